# attack: leave a tree built to trap host-side cleanup (snekbox/judge0 harvest abuses, §7.14)
# status: ok
# stdout: depth 1000
# stdout: files 5000
# stdout: links 1000
# stdout: odd names 3
# stdout: fifo and sparse left
# wall_ms: 0..5000
# case_timeout: 90
#   A 1000-deep directory chain, 5000 files, 1000 symlinks to / and to
#   /proc/1/root, names that are not UTF-8, a fifo and a sparse file.  The
#   jailer never walks the job's tmpfs (it is unmounted with the mount
#   namespace), so the after-checks must find everything gone in time.
import os
d = '/tmp/deep'
os.mkdir(d)
os.chdir(d)
for i in range(1000):
    os.mkdir('d')
    os.chdir('d')
print('depth', 1000)
os.chdir('/tmp')
os.mkdir('/tmp/many')
for i in range(5000):
    open('/tmp/many/%d' % i, 'w').close()
print('files', 5000)
os.mkdir('/tmp/links')
for i in range(500):
    os.symlink('/', '/tmp/links/root%d' % i)
    os.symlink('/proc/1/root', '/tmp/links/init%d' % i)
print('links', 1000)
for name in (b'/tmp/\xff\xfe', b'/tmp/a\nb', b'/tmp/\xc3('):
    open(name, 'w').close()
print('odd names', 3)
os.mkfifo('/tmp/fifo')
with open('/tmp/sparse', 'wb') as f:
    f.truncate(60 << 20)
print('fifo and sparse left')
