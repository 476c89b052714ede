# attack: classic fork bomb: every process forks forever, ignoring EAGAIN
# status: timeout
# signal: 9
# stdout_len: 0
# timeout_s: 3
# wall_ms: 1000..4500
# case_timeout: 90
#   The pids limit (64) makes fork fail with EAGAIN; the processes keep
#   spinning until the CPU or wall limit ends the whole job.  The host and
#   the next job are unaffected (the runner's after-checks).
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
