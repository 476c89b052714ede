# attack: start threads until the kernel refuses
# status: ok
# stdout~: stopped (?P<n>\d+)
# where: n < 64
# where: n >= 50
# timeout_s: 10
#   Threads count against the same pids limit as processes.
import threading, time
ts = []
try:
    for i in range(1000):
        t = threading.Thread(target=time.sleep, args=(30,), daemon=True)
        t.start()
        ts.append(t)
except RuntimeError as e:
    print('stopped', len(ts))
else:
    print('started', len(ts))
