# attack: follow /proc magic links of init (a fork of the root jailer) to the host's root
# status: ok
# stdout: readlink /proc/1/root EACCES
# stdout: listdir /proc/1/root EACCES
# stdout: open /proc/1/root/etc/shadow EACCES
# stdout: readlink /proc/1/cwd EACCES
# stdout: readlink /proc/1/exe EACCES
# stdout: listdir /proc/1/fd EACCES
# stdout: symlink /tmp/l -> /proc/1/root/etc/hostname EACCES
# stdout: /proc/self/root ['bin', 'code', 'dev', 'etc', 'lib', 'lib64', 'proc', 'tmp', 'usr']
#   Init is not dumpable, so its magic links are closed; the job's own root
#   is the cell.
import errno, os
def t(name, fn):
    try:
        r = fn()
        print(name, 'OK' if r is None else r)
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
t('readlink /proc/1/root', lambda: os.readlink('/proc/1/root'))
t('listdir /proc/1/root', lambda: os.listdir('/proc/1/root'))
t('open /proc/1/root/etc/shadow', lambda: open('/proc/1/root/etc/shadow').read())
t('readlink /proc/1/cwd', lambda: os.readlink('/proc/1/cwd'))
t('readlink /proc/1/exe', lambda: os.readlink('/proc/1/exe'))
t('listdir /proc/1/fd', lambda: os.listdir('/proc/1/fd'))
os.symlink('/proc/1/root/etc/hostname', '/tmp/l')
t('symlink /tmp/l -> /proc/1/root/etc/hostname', lambda: open('/tmp/l').read())
print('/proc/self/root', sorted(os.listdir('/proc/self/root')))
