# attack: learn the host's addresses and routes from inside
# status: ok
# stdout: net/dev lo
# stdout: route []
# stdout: if_inet6 ['lo']
# stdout: arp []
import os
def rows(p, skip):
    try:
        return [l.split() for l in open(p).read().splitlines()[skip:]]
    except OSError as e:
        return type(e).__name__
dev = open('/proc/self/net/dev').readlines()[2:]
print('net/dev', ','.join(sorted(l.split(':')[0].strip() for l in dev)))
print('route', rows('/proc/self/net/route', 1))
r = rows('/proc/self/net/if_inet6', 0)
print('if_inet6', sorted(x[-1] for x in r) if isinstance(r, list) else r)
print('arp', rows('/proc/self/net/arp', 1))
