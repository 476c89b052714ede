# attack: write, create and mkdir in every system path
# status: ok
# stdout: / EROFS
# stdout: /usr EROFS
# stdout: /usr/bin/python3 EACCES
# stdout: /etc EROFS
# stdout: /etc/passwd EACCES
# stdout: /code/main.py EACCES
# stdout: /code EROFS
# stdout: /lib EROFS
# stdout: /bin EROFS
# stdout: /mkdir EROFS
# stdout: /dev EROFS
# stdout: /proc/sysrq-trigger ENOENT
# host_absent: /cellgate-attack-evil
# host_absent: /usr/cellgate-attack-evil
# host_absent: /etc/cellgate-attack-evil
# host_absent: /lib/cellgate-attack-evil
# host_absent: /bin/cellgate-attack-evil
#   Everything but /tmp and /dev/shm is read-only: creating fails with
#   EROFS; opening an existing file for writing fails earlier, with EACCES
#   (it is not ours: root's, or read-only).  Nothing reaches the host.
import errno, os
def w(label, fn):
    try:
        fn()
        print(label, 'WRITABLE')
    except OSError as e:
        print(label, errno.errorcode.get(e.errno, e.errno))
E = 'cellgate-attack-evil'
w('/', lambda: open('/' + E, 'w'))
w('/usr', lambda: open('/usr/' + E, 'w'))
w('/usr/bin/python3', lambda: open('/usr/bin/python3', 'ab'))
w('/etc', lambda: open('/etc/' + E, 'w'))
w('/etc/passwd', lambda: open('/etc/passwd', 'a'))
w('/code/main.py', lambda: open('/code/main.py', 'a'))
w('/code', lambda: open('/code/' + E, 'w'))
w('/lib', lambda: open('/lib/' + E, 'w'))
w('/bin', lambda: os.mkdir('/bin/' + E))
w('/mkdir', lambda: os.mkdir('/' + E))
w('/dev', lambda: open('/dev/' + E, 'w'))
w('/proc/sysrq-trigger', lambda: open('/proc/sysrq-trigger', 'w').write('h'))
