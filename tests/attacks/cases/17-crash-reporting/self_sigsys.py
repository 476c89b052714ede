# attack: the program raises SIGSYS itself, to forge a "seccomp" status
# status: signal
# signal: 31
# stdout: before
# xfail: the supervisor derives "seccomp" from the terminating signal alone (jailer/supervisor.c: WTERMSIG == SIGSYS), so a program that kill()s itself with SIGSYS is reported as a seccomp violation it never made
# xfail_match: expected status signal, got {"status": "seccomp"
import os, signal
print('before', flush=True)
os.kill(os.getpid(), signal.SIGSYS)
