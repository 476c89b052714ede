# attack: an x32-ABI system call (number | 0x40000000) from a 64-bit process
# status: seccomp
# signal: 31
# stdout: before
#   A foreign ABI would be checked against the wrong syscall table: the
#   filter's architecture check kills the process (SIGSYS), reported as
#   "seccomp"; "after" is never printed.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print('before', flush=True)
r = libc.syscall(ctypes.c_long(0x40000000 | 39))   # x32 getpid
print('after', r, flush=True)
