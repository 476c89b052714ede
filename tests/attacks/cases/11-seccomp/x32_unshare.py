# attack: unshare(CLONE_NEWUSER) through the x32 ABI, where a 64-bit-only filter might not look
# status: seccomp
# signal: 31
# stdout: before
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print('before', flush=True)
r = libc.syscall(ctypes.c_long(0x40000000 | 272), ctypes.c_long(0x10000000))  # x32 unshare
print('after', r, flush=True)
