# status: ok
# stdout: shmget ENOENT
# stdout: semget ENOENT
# stdout: msgget ENOENT
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
KEY = 0x43454c4c
for name, fn, args in (('shmget', libc.shmget, (KEY, 4096, 0)),
                       ('semget', libc.semget, (KEY, 1, 0)),
                       ('msgget', libc.msgget, (KEY, 0))):
    r = fn(*args)
    print(name, r if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
