# status: ok
# stdout: daemon started
# wall_ms: 0..1000
import os, signal, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(1)
        with open('/tmp/late', 'w') as f:
            f.write('survived')
        os._exit(0)
    os._exit(0)
os.wait()
print('daemon started')
