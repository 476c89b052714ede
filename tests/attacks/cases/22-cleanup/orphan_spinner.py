# attack: leave a detached session leader spinning and holding stdout, then exit at once
# status: ok
# stdout: parent done
# wall_ms: 0..1500
#   The job ends when the program ends: the orphan is killed with it, the
#   answer does not wait for the orphan to close stdout, and nothing of it
#   is left on the host.
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            pass
    os._exit(0)
os.wait()
print('parent done')
