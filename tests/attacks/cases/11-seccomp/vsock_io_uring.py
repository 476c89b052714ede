# attack: AF_VSOCK (host-wide) and io_uring (sockets and opens that bypass the socket/open filters)
# status: ok
# stdout: socket AF_VSOCK EAFNOSUPPORT
# stdout: socket AF_VSOCK|1<<32 EAFNOSUPPORT
# stdout: socketpair: families other than AF_UNIX that work: []
# stdout: io_uring_setup ENOSYS
# stdout: io_uring_enter ENOSYS
# stdout: io_uring_register ENOSYS
#   isolate 2.4-2.6: vsock and io_uring-created sockets cross sandboxes.
#   The family with high bits set still reads as AF_VSOCK to the kernel.
#   socketpair is not filtered by family: the kernel must refuse every
#   family but AF_UNIX there (none other implements it on this kernel).
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    print(name, 'OK' if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
sv = (ctypes.c_int * 2)()
params = ctypes.create_string_buffer(120)
sc('socket AF_VSOCK', 41, 40, 1, 0)
sc('socket AF_VSOCK|1<<32', 41, 40 | 1 << 32, 1, 0)
ok = []
for fam in range(46):
    for typ in (1, 2, 5):
        r = libc.syscall(ctypes.c_long(53), ctypes.c_long(fam), ctypes.c_long(typ),
                         ctypes.c_long(0), ctypes.c_long(ctypes.addressof(sv)))
        if r == 0 and fam != 1:
            ok.append((fam, typ))
print('socketpair: families other than AF_UNIX that work:', ok)
sc('io_uring_setup', 425, 8, ctypes.addressof(params))
sc('io_uring_enter', 426, 0, 1, 0, 0, 0, 0)
sc('io_uring_register', 427, 0, 0, 0, 0)
