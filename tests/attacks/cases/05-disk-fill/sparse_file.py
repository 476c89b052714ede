# attack: a 1 TiB sparse file, by truncate and by seek-and-write
# status: ok
# stdout: truncate EFBIG
# stdout: seek-write EFBIG
# stdout: fallocate EFBIG
# stdout: size 0
#   The file size limit (= the tmpfs size) refuses sizes a tmpfs would
#   otherwise accept without using a block (Python ignores SIGXFSZ).
import errno, os
fd = os.open('/tmp/sparse', os.O_RDWR | os.O_CREAT, 0o600)
def t(name, fn):
    try:
        fn()
        print(name, 'OK')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
t('truncate', lambda: os.ftruncate(fd, 1 << 40))
t('seek-write', lambda: os.pwrite(fd, b'x', 1 << 40))
t('fallocate', lambda: os.posix_fallocate(fd, 0, 1 << 40))
print('size', os.fstat(fd).st_size)
