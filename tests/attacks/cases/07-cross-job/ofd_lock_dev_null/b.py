# status: ok
# stdout: setlk ok
import errno, fcntl, os, struct, time
time.sleep(0.7)
fd = os.open('/dev/null', os.O_WRONLY)
print('@probe', time.time())
try:
    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0))
    print('setlk ok')
except OSError as e:
    print('setlk', errno.errorcode.get(e.errno))
