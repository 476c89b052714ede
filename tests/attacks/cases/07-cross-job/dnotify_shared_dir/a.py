# status: ok
# stdout: dnotify EPERM
import errno, fcntl, os, signal, time
events = 0
def seen(signo, frame):
    global events
    events += 1
signal.signal(signal.SIGIO, seen)
fd = os.open('/usr/lib/python3.11', os.O_RDONLY | os.O_DIRECTORY)
try:
    fcntl.fcntl(fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
except OSError as e:
    print('dnotify', errno.errorcode.get(e.errno))
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
if events:
    print('saw', events, 'reads of the shared directory')
