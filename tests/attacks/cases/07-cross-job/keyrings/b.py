# status: ok
# stdout: request_key EPERM
# stdout: keyctl search EPERM
# stdout: keyctl join EPERM
# stdout: /proc/keys False
import ctypes, errno, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    print(name, r if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
time.sleep(0.7)
print('@probe', time.time())
sc('request_key', 249, b'user', b'cellgate-attack', None, ctypes.c_long(0))
sc('keyctl search', 250, ctypes.c_long(10), ctypes.c_long(-4), b'user', b'cellgate-attack',
   ctypes.c_long(0))  # KEYCTL_SEARCH in the user keyring
sc('keyctl join', 250, ctypes.c_long(1), b'cellgate-attack-ring')
print('/proc/keys', os.path.exists('/proc/keys'))
