# attack: ignore every catchable signal, then spin
# status: timeout
# signal: 9
# stdout: ignoring
# timeout_s: 1
# wall_ms: 950..2000
#   SIGXCPU, SIGTERM, SIGINT, SIGHUP ignored: the limit is enforced with
#   SIGKILL on the whole cgroup, which cannot be ignored.
import signal
for s in (signal.SIGXCPU, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM,
          signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE):
    signal.signal(s, signal.SIG_IGN)
print('ignoring', flush=True)
while True:
    pass
