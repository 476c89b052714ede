# attack: TIOCSTI/TIOCLINUX with the high 32 bits of the ioctl request set (CVE-2019-10063)
# status: ok
# stdout: FIONREAD 3
# stdout: FIONREAD|1<<32 3
# stdout: TIOCSTI EPERM
# stdout: TIOCSTI|1<<32 EPERM
# stdout: TIOCSTI|0xffffffff<<32 EPERM
# stdout: TIOCLINUX EPERM
# stdout: TIOCLINUX|1<<32 EPERM
#   The control lines show that the kernel ignores the high bits (FIONREAD
#   with them set still works on a pipe), so a filter comparing 64 bits
#   would let TIOCSTI through.  A request that passed the filter would fail
#   with ENOTTY here (the fd is a pipe, and the job has no terminal); EPERM
#   is the filter's answer.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r, w = os.pipe()
os.write(w, b'abc')
n = ctypes.c_int(0)
c = ctypes.c_char(b'x')
def ioctl(name, req, arg):
    ctypes.set_errno(0)
    rc = libc.syscall(ctypes.c_long(16), ctypes.c_long(r), ctypes.c_ulong(req),
                      ctypes.c_void_p(arg))
    return 'OK' if rc >= 0 else errno.errorcode.get(ctypes.get_errno())
for name, req in (('FIONREAD', 0x541B), ('FIONREAD|1<<32', 0x541B | 1 << 32)):
    n.value = -1
    res = ioctl(name, req, ctypes.addressof(n))
    print(name, n.value if res == 'OK' else res)
for name, req in (('TIOCSTI', 0x5412), ('TIOCSTI|1<<32', 0x5412 | 1 << 32),
                  ('TIOCSTI|0xffffffff<<32', 0x5412 | 0xffffffff << 32),
                  ('TIOCLINUX', 0x541C), ('TIOCLINUX|1<<32', 0x541C | 1 << 32)):
    print(name, ioctl(name, req, ctypes.addressof(c)))
