# attack: abort()
# status: signal
# signal: 6
# stdout: before
import os
print('before', flush=True)
os.abort()
