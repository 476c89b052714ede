# status: ok
# stdout: flock ok
import errno, fcntl, os, time
time.sleep(0.7)
fd = os.open('/usr/bin/python3', os.O_RDONLY)
print('@probe', time.time())
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print('flock ok')
except OSError as e:
    print('flock', errno.errorcode.get(e.errno))
