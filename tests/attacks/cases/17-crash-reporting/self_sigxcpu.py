# attack: the program raises SIGXCPU itself after 20 ms, to forge a "timeout" status
# status: signal
# signal: 24
# stdout: before
# wall_ms: 0..2000
# xfail: the supervisor maps any death by SIGXCPU to "timeout" (jailer/supervisor.c), so a program that kill()s itself with SIGXCPU after 20 ms is reported as having hit the 10 s CPU limit
# xfail_match: expected status signal, got {"status": "timeout"
import os, signal, time
print('before', flush=True)
time.sleep(0.02)
os.kill(os.getpid(), signal.SIGXCPU)
