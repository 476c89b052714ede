# attack: the program SIGKILLs itself: must read as a signal, not as "memory" or "timeout"
# status: signal
# signal: 9
# stdout: before
import os, signal
print('before', flush=True)
os.kill(os.getpid(), signal.SIGKILL)
