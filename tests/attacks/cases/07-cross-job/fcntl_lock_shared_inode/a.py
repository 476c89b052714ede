# status: ok
# stdout: locked
import fcntl, os, time
fd = os.open('/usr/lib/python3.11/os.py', os.O_RDONLY)
fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
print('locked', flush=True)
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
