# status: ok
# stdout: add_key user EPERM
# stdout: add_key session EPERM
# stdout: join_session_keyring EPERM
import ctypes, errno, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    print(name, r if r >= 0 else errno.errorcode.get(ctypes.get_errno()), flush=True)
KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING = -4, -3
sc('add_key user', 248, b'user', b'cellgate-attack', b'secret', ctypes.c_size_t(6),
   ctypes.c_long(KEY_SPEC_USER_KEYRING))
sc('add_key session', 248, b'user', b'cellgate-attack', b'secret', ctypes.c_size_t(6),
   ctypes.c_long(KEY_SPEC_SESSION_KEYRING))
KEYCTL_JOIN_SESSION_KEYRING = 1
sc('join_session_keyring', 250, ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), b'cellgate-attack-ring')
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
