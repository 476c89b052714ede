# attack: unshare() each namespace, and setns into another
# status: ok
# stdout: unshare CLONE_NEWUSER EPERM
# stdout: unshare CLONE_NEWNS EPERM
# stdout: unshare CLONE_NEWNET EPERM
# stdout: unshare CLONE_NEWPID EPERM
# stdout: unshare CLONE_NEWIPC EPERM
# stdout: unshare CLONE_NEWUTS EPERM
# stdout: unshare CLONE_NEWCGROUP EPERM
# stdout: unshare CLONE_NEWTIME EPERM
# stdout: unshare 0 EPERM
# stdout: setns /proc/self/ns/user EPERM
# stdout: max_user_namespaces False
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for name, flag in (('CLONE_NEWUSER', 0x10000000), ('CLONE_NEWNS', 0x20000),
                   ('CLONE_NEWNET', 0x40000000), ('CLONE_NEWPID', 0x20000000),
                   ('CLONE_NEWIPC', 0x8000000), ('CLONE_NEWUTS', 0x4000000),
                   ('CLONE_NEWCGROUP', 0x2000000), ('CLONE_NEWTIME', 0x80), ('0', 0)):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(272), ctypes.c_ulong(flag))
    print('unshare', name, 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
fd = os.open('/proc/self/ns/user', os.O_RDONLY)
ctypes.set_errno(0)
r = libc.syscall(ctypes.c_long(308), ctypes.c_long(fd), ctypes.c_long(0))
print('setns /proc/self/ns/user', 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
print('max_user_namespaces', os.path.exists('/proc/sys/user/max_user_namespaces'))
