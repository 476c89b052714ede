# status: ok
# stdout: locked
import fcntl, os, time
fd = os.open('/usr/bin/python3', os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print('locked', flush=True)
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
