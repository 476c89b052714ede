# status: ok
# start_after: b
# stdout: host pids of b: 2 ESRCH
# stdout: pidfd_open of b: ESRCH
# stdout: sweep: exists [1, 2]
# stdout: kill -1: ESRCH
# stdout: a alive
import ctypes, errno, os, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
pids = [int(p) for p in '@@PIDS_OF_B@@'.split()]
res = set()
for p in pids:
    try:
        os.kill(p, signal.SIGKILL)
        res.add('SENT')
    except OSError as e:
        res.add(errno.errorcode.get(e.errno))
print('host pids of b:', len(pids), ' '.join(sorted(res)))
fdres = set()
for p in pids:
    r = libc.syscall(ctypes.c_long(434), ctypes.c_long(p), ctypes.c_long(0))  # pidfd_open
    fdres.add('FD' if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
print('pidfd_open of b:', ' '.join(sorted(fdres)))
exists = []
for p in range(1, 4097):
    try:
        os.kill(p, 0)
        exists.append(p)
    except PermissionError:
        exists.append(p)
    except ProcessLookupError:
        pass
print('sweep: exists', exists)
try:
    os.kill(-1, signal.SIGKILL)
    print('kill -1: sent')
except OSError as e:
    print('kill -1:', errno.errorcode.get(e.errno))
print('a alive')
