# attack: the program forks a child that sleeps, and waits for it
# status: timeout
# signal: 9
# stdout: waiting
# timeout_s: 1
# wall_ms: 950..2000
import os, time
pid = os.fork()
if pid == 0:
    time.sleep(3600)
    os._exit(0)
print('waiting', flush=True)
os.waitpid(pid, 0)
