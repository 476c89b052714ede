# attack: none: the control case; loopback works inside the job
# status: ok
# stdout: ping
#   A server and a client in the same job talk over 127.0.0.1: what the
#   network cases refuse is only what lies outside the job.
import socket
s = socket.socket()
s.bind(('127.0.0.1', 0))
s.listen()
c = socket.create_connection(s.getsockname(), timeout=2)
a, _ = s.accept()
c.sendall(b'ping')
print(a.recv(4).decode())
