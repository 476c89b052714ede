# attack: take a file lease on a shared read-only inode (lease breaks signal other openers)
# status: ok
# stdout: lease EPERM
#   The filter refuses F_SETLEASE (without it the kernel would still say
#   EACCES: a read lease needs the file to be ours or CAP_LEASE, and the
#   read-only binds belong to the host's root).
import errno, fcntl, os
fd = os.open('/usr/lib/python3.11/os.py', os.O_RDONLY)
try:
    fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)  # F_SETLEASE
    print('lease ok')
except OSError as e:
    print('lease', errno.errorcode.get(e.errno))
