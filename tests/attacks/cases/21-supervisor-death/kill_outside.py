# attack: signal the jailer and the gateway by their host pids, init, and everything (-1)
# status: ok
# stdout: jailer ESRCH
# stdout: gateway ESRCH
# stdout: kill -1 ESRCH
# stdout: init sent
# stdout: still here
#   Host pids do not exist in the job's pid namespace.  kill(-1) reaches
#   no other process (init is exempt).  Init runs as the job's uid, so the
#   kernel accepts the SIGKILL but drops it (init has no handler): the job
#   goes on and is reported normally.
import errno, os, signal, time
for name, pid in (('jailer', @@JAILER_PID@@), ('gateway', @@GATEWAY_PID@@)):
    try:
        os.kill(pid, signal.SIGKILL)
        print(name, 'sent')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno))
try:
    os.kill(-1, signal.SIGKILL)
    print('kill -1 sent')
except OSError as e:
    print('kill -1', errno.errorcode.get(e.errno))
os.kill(1, signal.SIGKILL)
print('init sent', flush=True)
time.sleep(0.3)
print('still here')
