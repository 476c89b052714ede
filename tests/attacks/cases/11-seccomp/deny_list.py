# attack: the privileged and kernel-attack-surface system calls a code runner never needs
# status: ok
# stdout: umount2 EPERM
# stdout: pivot_root EPERM
# stdout: chroot EPERM
# stdout: setns EPERM
# stdout: open_tree EPERM
# stdout: fsopen EPERM
# stdout: bpf EPERM
# stdout: perf_event_open EPERM
# stdout: userfaultfd EPERM
# stdout: kexec_load EPERM
# stdout: init_module EPERM
# stdout: finit_module EPERM
# stdout: delete_module EPERM
# stdout: open_by_handle_at EPERM
# stdout: name_to_handle_at EPERM
# stdout: swapon EPERM
# stdout: reboot EPERM
# stdout: acct EPERM
# stdout: syslog EPERM
# stdout: settimeofday EPERM
# stdout: clock_settime EPERM
# stdout: adjtimex EPERM
# stdout: iopl EPERM
# stdout: ioperm EPERM
# stdout: quotactl EPERM
# stdout: vhangup EPERM
# stdout: sethostname EPERM
#   Each is refused with EPERM by the seccomp filter (sethostname by the
#   missing capability: the UTS namespace is the job's own anyway).  The
#   arguments are harmless, so a call that got through would fail with
#   EFAULT/EINVAL instead, never EPERM.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    print(name, 'OK' if r >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))
path = ctypes.addressof(ctypes.create_string_buffer(b'/proc'))
sc('umount2', 166, path, 2)
sc('pivot_root', 155, 0, 0)
sc('chroot', 161, path)
sc('setns', 308, 0, 0)
sc('open_tree', 428, -100, path, 1)
sc('fsopen', 430, 0, 0)
sc('bpf', 321, 0, 0, 0)
sc('perf_event_open', 298, 0, 0, -1, -1, 0)
sc('userfaultfd', 323, 0)
sc('kexec_load', 246, 0, 0, 0, 0)
sc('init_module', 175, 0, 0, 0)
sc('finit_module', 313, 0, 0, 0)
sc('delete_module', 176, 0, 0)
sc('open_by_handle_at', 304, 0, 0, 0)
sc('name_to_handle_at', 303, -100, path, 0, 0, 0)
sc('swapon', 167, 0, 0)
sc('reboot', 169, 0, 0, 0, 0)
sc('acct', 163, 0)
sc('syslog', 103, 3, 0, 0)
sc('settimeofday', 164, 0, 0)
sc('clock_settime', 227, 0, 0)
sc('adjtimex', 159, 0)
sc('iopl', 172, 3)
sc('ioperm', 173, 0, 1024, 1)
sc('quotactl', 179, 0, 0, 0, 0)
sc('vhangup', 153)
sc('sethostname', 170, ctypes.addressof(ctypes.create_string_buffer(b'x')), 1)
