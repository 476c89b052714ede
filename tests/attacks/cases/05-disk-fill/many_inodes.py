# attack: create empty files until the file system refuses (inode exhaustion)
# status: ok
# stdout~: stopped ENOSPC (?P<n>\d+)
# where: n <= 65536
# timeout_s: 30
# case_timeout: 90
#   Empty files take no blocks but an inode and kernel memory each; the
#   tmpfs inode cap (64 Ki inodes) must stop it quickly.
import errno, os
n = 0
os.mkdir('/tmp/i')
try:
    while True:
        os.close(os.open('/tmp/i/%d' % n, os.O_CREAT | os.O_WRONLY, 0o600))
        n += 1
except OSError as e:
    print('stopped', errno.errorcode.get(e.errno), n)
