# attack: a program that sleeps forever (uses no CPU)
# status: timeout
# signal: 9
# stdout: sleeping
# timeout_s: 1
# wall_ms: 950..2000
#   Only a wall-clock limit catches it.
import time
print('sleeping', flush=True)
time.sleep(3600)
