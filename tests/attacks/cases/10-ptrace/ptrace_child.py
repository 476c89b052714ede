# attack: ptrace its own child (attach, seize, traceme) and read its memory
# status: ok
# stdout: PTRACE_ATTACH child EPERM
# stdout: PTRACE_SEIZE child EPERM
# stdout: PTRACE_TRACEME EPERM
# stdout: process_vm_readv child EPERM
# stdout: kcmp EPERM
#   Even on its own processes: ptrace is what bypassed seccomp before
#   Linux 4.8 (CVE-2017-5206), so the filter refuses it outright.
import ctypes, errno, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    print(name, 'OK' if r >= 0 else errno.errorcode.get(ctypes.get_errno()), flush=True)
child = os.fork()
if child == 0:
    time.sleep(5)
    os._exit(0)
buf = ctypes.create_string_buffer(8)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
sc('PTRACE_ATTACH child', 101, 16, child, 0, 0)
sc('PTRACE_SEIZE child', 101, 0x4206, child, 0, 0)
sc('PTRACE_TRACEME', 101, 0, 0, 0, 0)
sc('process_vm_readv child', 310, child, ctypes.addressof(iov), 1, ctypes.addressof(iov), 1, 0)
sc('kcmp', 312, os.getpid(), child, 0, 0, 0)
os.kill(child, 9)
