# attack: become root or another user: setuid, setresuid, setgroups, capset, ambient caps
# status: ok
# stdout: setuid(0) EPERM
# stdout: setresuid(0,0,0) EPERM
# stdout: setgid(0) EPERM
# stdout: setgroups([0]) EPERM
# stdout: setuid(65534) EINVAL
# stdout: capset all EPERM
# stdout: ambient raise EPERM
# stdout: no_new_privs off EINVAL
# stdout: uid_map 0 1000
#   The user namespace maps only 0 (the cell's setup root) and 1000 (the
#   program); other ids do not exist (EINVAL).  Nothing lets the program
#   change ids or gain capabilities, and no_new_privs cannot be turned off.
import ctypes, errno, os, struct
libc = ctypes.CDLL(None, use_errno=True)
def t(name, fn):
    try:
        fn()
        print(name, 'OK')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
t('setuid(0)', lambda: os.setuid(0))
t('setresuid(0,0,0)', lambda: os.setresuid(0, 0, 0))
t('setgid(0)', lambda: os.setgid(0))
t('setgroups([0])', lambda: os.setgroups([0]))
t('setuid(65534)', lambda: os.setuid(65534))
hdr = ctypes.create_string_buffer(struct.pack('Ii', 0x20080522, 0))  # v3, this process
data = ctypes.create_string_buffer(struct.pack('6I', *([0xffffffff] * 6)))
r = libc.capset(hdr, data)
print('capset all', 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
r = libc.prctl(47, 2, 21, 0, 0)  # PR_CAP_AMBIENT, RAISE, CAP_SYS_ADMIN
print('ambient raise', 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
r = libc.prctl(38, 0, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS 0
print('no_new_privs off', 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
print('uid_map', ' '.join(l.split()[0] for l in open('/proc/self/uid_map')))
