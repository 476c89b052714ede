# status: ok
# stdout: listening
# stdout: accepted 0
import socket, time
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
u.bind('\0cellgate-attack')
u.listen()
t = socket.socket()
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(('127.0.0.1', 47123))
t.listen()
print('listening', flush=True)
t0 = time.time()
u.settimeout(2)
n = 0
try:
    u.accept()
    n += 1
except socket.timeout:
    pass
print('@window', t0, time.time())
print('accepted', n)
