# attack: remount / and /usr read-write, or mount a fresh tmpfs over /usr
# status: ok
# stdout: remount / EPERM
# stdout: remount /usr EPERM
# stdout: tmpfs over /usr EPERM
# stdout: bind /tmp over /etc EPERM
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT, MS_BIND = 32, 4096
def m(name, src, dst, fstype, flags):
    r = libc.mount(src, dst, fstype, ctypes.c_ulong(flags), None)
    print(name, 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
m('remount /', None, b'/', None, MS_REMOUNT)
m('remount /usr', None, b'/usr', None, MS_REMOUNT | MS_BIND)
m('tmpfs over /usr', b'none', b'/usr', b'tmpfs', 0)
m('bind /tmp over /etc', b'/tmp', b'/etc', None, MS_BIND)
