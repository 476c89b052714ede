# attack: fill /dev/shm with 1 GiB of 8 MiB files
# status: ok
# stdout~: stopped ENOSPC (?P<n>\d+)
# where: n <= 64
# where: n >= 32
# timeout_s: 20
#   /dev/shm is a per-job tmpfs capped like /tmp (64 MiB): ENOSPC, never a
#   gigabyte of host memory.
import errno
n = 0
try:
    for i in range(128):
        with open('/dev/shm/f%d' % i, 'wb') as f:
            for j in range(8):
                f.write(b'\x05' * (1 << 20))
                f.flush()
                n += 1
except OSError as e:
    print('stopped', errno.errorcode.get(e.errno), n)
else:
    print('wrote', n)
