# status: ok
# stdout~: shmget \d+
# stdout~: semget \d+
# stdout~: msgget \d+
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
KEY, IPC_CREAT = 0x43454c4c, 0o1000
for name, fn, args in (('shmget', libc.shmget, (KEY, 4096, IPC_CREAT | 0o666)),
                       ('semget', libc.semget, (KEY, 1, IPC_CREAT | 0o666)),
                       ('msgget', libc.msgget, (KEY, IPC_CREAT | 0o666))):
    r = fn(*args)
    print(name, r if r >= 0 else errno.errorcode.get(ctypes.get_errno()))
