# status: ok
# stdout~: shmget \d+
import ctypes, errno, time
libc = ctypes.CDLL(None, use_errno=True)
r = libc.shmget(0x43454c4c, 4096, 0o1000 | 0o666)
print('shmget', r if r >= 0 else errno.errorcode.get(ctypes.get_errno()), flush=True)
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
