# attack: four processes of 100 MiB each: each under the limit, together over
# status: memory
# stdout_len: 0
# timeout_s: 20
#   The OOM killer fires inside the job, and the whole job is reported as
#   "memory" (never a clean exit with the survivors).
import os, time
for i in range(4):
    if os.fork() == 0:
        x = b'\x04' * (100 << 20)
        time.sleep(2)
        os._exit(0)
ok = 0
for i in range(4):
    _, st = os.wait()
    ok += os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0
print('children ok', ok)
