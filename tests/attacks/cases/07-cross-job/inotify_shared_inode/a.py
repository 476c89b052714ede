# status: ok
# stdout: inotify_init1 refused 1
# stdout: inotify_add_watch refused 1
# stdout: fanotify_init refused 1
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
def report(name, rc):
    print(name, 'refused' if rc < 0 else 'allowed', ctypes.get_errno() if rc < 0 else rc,
          flush=True)
t0 = time.time()
report('inotify_init1', libc.inotify_init1(os.O_NONBLOCK))
report('inotify_add_watch', libc.inotify_add_watch(0, b'/usr/lib/python3.11/this.py', 0x21))
report('fanotify_init', libc.fanotify_init(0, 0))
time.sleep(2)  # B reads the file meanwhile
print('@window', t0, time.time())
