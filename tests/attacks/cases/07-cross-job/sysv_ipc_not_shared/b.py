# status: ok
# stdout: shmget ENOENT
# stdout: sysvipc []
import ctypes, errno, os, time
libc = ctypes.CDLL(None, use_errno=True)
time.sleep(0.7)
print('@probe', time.time())
r = libc.shmget(0x43454c4c, 4096, 0)
print('shmget', r if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
print('sysvipc', os.listdir('/proc/sysvipc') if os.path.exists('/proc/sysvipc') else [])
