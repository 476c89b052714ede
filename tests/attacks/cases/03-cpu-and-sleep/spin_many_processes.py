# attack: five processes spin on two cores to take all the host's CPU
# status: timeout
# signal: 9
# stdout: spinning
# timeout_s: 2
# wall_ms: 1950..3000
# cpu_ms: 0..2800
#   A job gets at most one CPU (cgroup CPU quota), so the host keeps its
#   other core, and the CPU time of all five processes together stays at
#   about the wall time.  It ends as "timeout".
import os
for i in range(4):
    if os.fork() == 0:
        while True:
            pass
print('spinning', flush=True)
while True:
    pass
