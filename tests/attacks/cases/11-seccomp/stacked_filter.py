# attack: stack an allow-everything seccomp filter on top, then call what the first one refuses
# status: ok
# stdout: stacked 0
# stdout: filters 2
# stdout: unshare EPERM
# stdout: keyctl EPERM
# stdout: strict mode refused EINVAL
#   Filters only add up: the most restrictive answer wins, so the job
#   cannot undo the jailer's filter (and the state is in the kernel, not
#   in a file it could edit: firejail #2718).
import ctypes, errno, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
insn = ctypes.create_string_buffer(struct.pack('HBBI', 0x06, 0, 0, 0x7fff0000))  # ret ALLOW
class Fprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
prog = Fprog(1, ctypes.addressof(insn))
PR_SET_SECCOMP, SECCOMP_MODE_STRICT, SECCOMP_MODE_FILTER = 22, 1, 2
print('stacked', libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0))
print('filters', [l.split()[1] for l in open('/proc/self/status')
                  if l.startswith('Seccomp_filters')][0])
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    print(name, 'OK' if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
sc('unshare', 272, 0x10000000)
sc('keyctl', 250, 0, 0, 0, 0, 0)
ctypes.set_errno(0)
r = libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0)
print('strict mode refused' if r < 0 else 'strict mode set',
      errno.errorcode.get(ctypes.get_errno()))
