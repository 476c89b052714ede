# attack: the x32 syscall run through `cellgate run`: the CLI must report the seccomp kill too
# status: seccomp
# via: cli
# cli_exit: 159
# cli_stderr_has: status=seccomp
#   128 + SIGSYS (31) as the exit code, and the summary names the status.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print('before', flush=True)
libc.syscall(ctypes.c_long(0x40000000 | 39))
print('after', flush=True)
