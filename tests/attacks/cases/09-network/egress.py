# attack: reach the internet, the host's loopback and DNS with the network off
# status: ok
# host_listener: yes
# stdout: tcp-1.1.1.1 OSError 101
# stdout: tcp-host-loopback ConnectionRefusedError 111
# stdout: tcp6-loopback ConnectionRefusedError 111
# stdout: udp-1.1.1.1 OSError 101
# stdout: dns gaierror -3
# stdout: interfaces lo
#   The runner listens on the host's 127.0.0.1:@@PORT@@ and checks that no
#   connection arrived.  Inside, only the job's own loopback exists:
#   ENETUNREACH (101) outside, ECONNREFUSED for the port, no resolver.
import socket
def attempt(name, fn):
    try:
        fn()
        print(name, 'CONNECTED')
    except Exception as e:
        print(name, type(e).__name__, getattr(e, 'errno', None))
attempt('tcp-1.1.1.1', lambda: socket.create_connection(('1.1.1.1', 53), timeout=2))
attempt('tcp-host-loopback', lambda: socket.create_connection(('127.0.0.1', @@PORT@@), timeout=2))
attempt('tcp6-loopback', lambda: socket.create_connection(('::1', @@PORT@@), timeout=2))
attempt('udp-1.1.1.1', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        .sendto(b'x', ('1.1.1.1', 53)))
attempt('dns', lambda: socket.getaddrinfo('example.com', 80))
dev = open('/proc/self/net/dev').readlines()[2:]
print('interfaces', ','.join(sorted(l.split(':')[0].strip() for l in dev)))
