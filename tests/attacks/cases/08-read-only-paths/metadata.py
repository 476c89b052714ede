# attack: change metadata of system files: chmod, chown, utime, rename, unlink, link
# status: ok
# stdout: chmod EROFS
# stdout: chown EROFS
# stdout: utime EROFS
# stdout: rename EROFS
# stdout: unlink EROFS
# stdout: link EXDEV
# stdout: symlink EROFS
# stdout: setxattr EROFS
import errno, os
def t(name, fn):
    try:
        fn()
        print(name, 'DONE')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
t('chmod', lambda: os.chmod('/usr/bin/python3.11', 0o4777))
t('chown', lambda: os.chown('/etc/passwd', 1000, 1000))
t('utime', lambda: os.utime('/usr/bin/python3.11', (0, 0)))
t('rename', lambda: os.rename('/usr/bin/python3.11', '/usr/bin/py'))
t('unlink', lambda: os.unlink('/etc/passwd'))
t('link', lambda: os.link('/usr/bin/python3.11', '/tmp/py'))
t('symlink', lambda: os.symlink('/tmp/x', '/usr/bin/cellgate-attack'))
t('setxattr', lambda: os.setxattr('/usr/bin/python3.11', 'user.x', b'1'))
