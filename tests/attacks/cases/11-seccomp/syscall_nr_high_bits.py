# attack: a syscall number with the high 32 bits set, to slip past a filter comparing 64 bits
# status: ok
# stdout: getpid|1<<32 2
# stdout: unshare|1<<32 EPERM
# stdout: keyctl|1<<32 EPERM
# stdout: io_uring_setup|1<<32 ENOSYS
#   The control shows the kernel runs number & 0xffffffff (getpid answers);
#   the filter sees the same truncated number, so the refused calls stay
#   refused.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr | 1 << 32), *[ctypes.c_long(a) for a in args])
    print(name, r if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
sc('getpid|1<<32', 39)
sc('unshare|1<<32', 272, 0x10000000)
sc('keyctl|1<<32', 250, 0, 0, 0, 0, 0)
sc('io_uring_setup|1<<32', 425, 1, 0)
