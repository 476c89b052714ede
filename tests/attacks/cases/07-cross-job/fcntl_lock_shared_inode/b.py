# status: ok
# stdout: getlk F_UNLCK
import fcntl, os, struct, time
time.sleep(0.7)
fd = os.open('/usr/lib/python3.11/os.py', os.O_RDONLY)
print('@probe', time.time())
lk = struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0)
typ = struct.unpack('hhqqi', fcntl.fcntl(fd, fcntl.F_GETLK, lk))[0]
print('getlk', {fcntl.F_RDLCK: 'F_RDLCK', fcntl.F_WRLCK: 'F_WRLCK', fcntl.F_UNLCK: 'F_UNLCK'}[typ])
