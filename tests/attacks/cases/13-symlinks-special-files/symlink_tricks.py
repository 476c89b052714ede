# attack: symlinks and .. to leave the cell's root: to /etc/shadow, up the tree, loops
# status: ok
# stdout: /tmp/s -> /etc/shadow ENOENT
# stdout: ../../../../../etc/shadow ENOENT
# stdout: /tmp/../../../../etc/shadow ENOENT
# stdout: /proc/self/cwd/../../../etc/shadow ENOENT
# stdout: loop ELOOP
# stdout: /tmp/u -> /usr write EACCES
# stdout: rename /tmp/d over /code EXDEV
#   There is nothing above the cell's root: every path resolves inside it.
import errno, os
def t(name, fn):
    try:
        fn()
        print(name, 'OK')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
os.symlink('/etc/shadow', '/tmp/s')
t('/tmp/s -> /etc/shadow', lambda: open('/tmp/s').read())
t('../../../../../etc/shadow', lambda: open('../../../../../etc/shadow').read())
t('/tmp/../../../../etc/shadow', lambda: open('/tmp/../../../../etc/shadow').read())
t('/proc/self/cwd/../../../etc/shadow', lambda: open('/proc/self/cwd/../../../etc/shadow').read())
os.symlink('/tmp/loop2', '/tmp/loop1')
os.symlink('/tmp/loop1', '/tmp/loop2')
t('loop', lambda: open('/tmp/loop1').read())
os.symlink('/usr', '/tmp/u')
t('/tmp/u -> /usr write', lambda: open('/tmp/u/bin/python3', 'ab'))
os.mkdir('/tmp/d')
t('rename /tmp/d over /code', lambda: os.rename('/tmp/d', '/code'))
