# attack: take a file lease on a shared read-only inode (lease breaks signal other openers)
# status: ok
# stdout: lease EACCES
#   A read lease needs the file to be ours (or CAP_LEASE): files of the
#   read-only binds belong to the host's root, so it is refused.
import errno, fcntl, os
fd = os.open('/usr/lib/python3.11/os.py', os.O_RDONLY)
try:
    fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)  # F_SETLEASE
    print('lease ok')
except OSError as e:
    print('lease', errno.errorcode.get(e.errno))
