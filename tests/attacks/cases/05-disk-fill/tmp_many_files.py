# attack: write 160 MiB as 8 MiB files into the working directory /tmp
# status: ok
# stdout: cwd /tmp
# stdout~: stopped ENOSPC (?P<n>\d+)
# where: n <= 64
# where: n >= 48
# timeout_s: 20
#   The per-job tmpfs is capped at 64 MiB: ENOSPC, nothing on the host's disk.
import errno, os
print('cwd', os.getcwd())
n = 0
try:
    for i in range(20):
        with open('/tmp/f%d' % i, 'wb') as f:
            for j in range(8):
                f.write(b'\x06' * (1 << 20))
                f.flush()
                n += 1
except OSError as e:
    print('stopped', errno.errorcode.get(e.errno), n)
else:
    print('wrote', n)
