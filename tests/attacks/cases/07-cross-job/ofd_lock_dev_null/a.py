# status: ok
# stdout: locked
import fcntl, os, struct, time
fd = os.open('/dev/null', os.O_WRONLY)
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0))
print('locked', flush=True)
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
