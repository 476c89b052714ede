# attack: raw, packet, netlink and ping sockets (sniffing, spoofing, reading the host's routes)
# status: ok
# stdout: raw-icmp EPERM
# stdout: raw-tcp EPERM
# stdout: packet EAFNOSUPPORT
# stdout: netlink-route EAFNOSUPPORT
# stdout: netlink-audit EAFNOSUPPORT
# stdout: ping-dgram EACCES
# stdout: vsock EAFNOSUPPORT
# stdout: bluetooth EAFNOSUPPORT
# stdout: alg EAFNOSUPPORT
import errno, socket
def t(name, *args):
    try:
        socket.socket(*args).close()
        print(name, 'CREATED')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
t('raw-icmp', socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
t('raw-tcp', socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
t('packet', 17, socket.SOCK_RAW, 0)
t('netlink-route', 16, socket.SOCK_RAW, 0)
t('netlink-audit', 16, socket.SOCK_RAW, 9)
t('ping-dgram', socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
t('vsock', 40, socket.SOCK_STREAM, 0)
t('bluetooth', 31, socket.SOCK_STREAM, 0)
t('alg', 38, socket.SOCK_SEQPACKET, 0)
