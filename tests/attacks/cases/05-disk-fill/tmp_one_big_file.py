# attack: one 100 MiB file into a 64 MiB /tmp
# status: ok
# stdout: stopped EFBIG 64
# timeout_s: 20
#   The file size limit (RLIMIT_FSIZE = the tmpfs size) stops the file at
#   exactly 64 MiB with EFBIG (Python ignores SIGXFSZ); never a crash.
import errno
n = 0
try:
    with open('/tmp/big', 'wb') as f:
        while n < 100:
            f.write(b'\x06' * (1 << 20))
            f.flush()
            n += 1
except OSError as e:
    print('stopped', errno.errorcode.get(e.errno), n)
else:
    print('wrote', n)
