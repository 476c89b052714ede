# attack: attach to the cell's init (a fork of the root jailer) and read it
# status: ok
# stdout: PTRACE_ATTACH 1 EPERM
# stdout: PTRACE_SEIZE 1 EPERM
# stdout: /proc/1/mem EACCES
# stdout: /proc/1/maps EACCES
# stdout: /proc/1/environ EACCES
# stdout: pidfd_getfd 1 EPERM
#   Init is not dumpable: its memory, maps and environment are closed to the
#   job even though it runs as the job's uid.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    print(name, 'OK' if r >= 0 else errno.errorcode.get(ctypes.get_errno()), flush=True)
sc('PTRACE_ATTACH 1', 101, 16, 1, 0, 0)
sc('PTRACE_SEIZE 1', 101, 0x4206, 1, 0, 0)
for f in ('mem', 'maps', 'environ'):
    try:
        open('/proc/1/' + f, 'rb').read(1)
        print('/proc/1/' + f, 'READ')
    except OSError as e:
        print('/proc/1/' + f, errno.errorcode.get(e.errno))
pidfd = libc.syscall(ctypes.c_long(434), ctypes.c_long(1), ctypes.c_long(0))  # pidfd_open
sc('pidfd_getfd 1', 438, pidfd, 3, 0)
