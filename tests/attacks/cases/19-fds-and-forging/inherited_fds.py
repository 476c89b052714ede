# attack: look for file descriptors inherited from the jailer or the gateway
# status: ok
# stdout: fds 0 1 2
# stdout: target 0 /dev/null
# stdout~: target 1 pipe:\[\d+\]
# stdout~: target 2 pipe:\[\d+\]
#   Only stdin, stdout and stderr: no socket to the jailer, no status pipe,
#   no code memfd.
import os
alive = []
for fd in sorted(int(x) for x in os.listdir('/proc/self/fd')):
    try:
        alive.append((fd, os.readlink('/proc/self/fd/%d' % fd)))
    except OSError:
        pass  # the directory fd listdir used, closed by now
print('fds', ' '.join(str(fd) for fd, _ in alive))
for fd, target in alive:
    print('target', fd, target)
