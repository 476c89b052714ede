# status: ok
# stdout: unix ConnectionRefusedError
# stdout: tcp ConnectionRefusedError
# stdout: /proc/net False
import os, socket, time
time.sleep(0.7)
print('@probe', time.time())
for name, fam, addr in (('unix', socket.AF_UNIX, '\0cellgate-attack'),
                        ('tcp', socket.AF_INET, ('127.0.0.1', 47123))):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(1)
    try:
        s.connect(addr)
        print(name, 'CONNECTED')
    except OSError as e:
        print(name, type(e).__name__)
print('/proc/net', os.path.exists('/proc/net'))  # no socket tables to browse either
