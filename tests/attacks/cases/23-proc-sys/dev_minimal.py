# attack: look for device nodes: memory, kernel log, disks, tty, console, vsock, fuse, kvm
# status: ok
# stdout: dev ['fd', 'full', 'null', 'random', 'shm', 'stderr', 'stdin', 'stdout', 'urandom', 'zero']
# stdout: urandom 16
# stdout: /dev/mem False
# stdout: /dev/kmsg False
# stdout: /dev/sda False
# stdout: /dev/vda False
# stdout: /dev/tty False
# stdout: /dev/console False
# stdout: /dev/vsock False
# stdout: /dev/fuse False
# stdout: /dev/kvm False
# stdout: /dev/net/tun False
# stdout: /dev/ptmx False
#   Five character devices, /dev/shm and the four usual symlinks into
#   /proc/self; no disk, memory, log, terminal or virtualisation device.
import os
print('dev', sorted(os.listdir('/dev')))
print('urandom', len(open('/dev/urandom', 'rb').read(16)))
for p in ('/dev/mem', '/dev/kmsg', '/dev/sda', '/dev/vda', '/dev/tty', '/dev/console',
          '/dev/vsock', '/dev/fuse', '/dev/kvm', '/dev/net/tun', '/dev/ptmx'):
    print(p, os.path.exists(p))
