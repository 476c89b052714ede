# attack: close stdout and stderr, then exit cleanly: the result must still arrive
# status: ok
# stdout: bye
# wall_ms: 0..2000
import os, sys
print('bye', flush=True)
os.close(1)
os.close(2)
sys.stdout = sys.stderr = open(os.devnull, 'w')
