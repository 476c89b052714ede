# attack: reach the cgroup file system to raise limits or move out of the job's cgroup
# status: ok
# stdout: /sys/fs/cgroup ENOENT
# stdout: mount cgroup2 EPERM
# stdout: mount cgroup v1 memory EPERM
# stdout: mkdir /sys EROFS
#   No /sys in the cell, and no way to mount one.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
try:
    os.listdir('/sys/fs/cgroup')
    print('/sys/fs/cgroup', 'VISIBLE')
except OSError as e:
    print('/sys/fs/cgroup', errno.errorcode.get(e.errno))
r = libc.mount(b'none', b'/tmp', b'cgroup2', ctypes.c_ulong(0), None)
print('mount cgroup2', 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
r = libc.mount(b'none', b'/tmp', b'cgroup', ctypes.c_ulong(0), b'memory')
print('mount cgroup v1 memory', 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
try:
    os.mkdir('/sys')
    print('mkdir /sys', 'OK')
except OSError as e:
    print('mkdir /sys', errno.errorcode.get(e.errno))
