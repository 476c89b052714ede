# status: ok
# stdout: read True
import time
time.sleep(0.7)
print('@probe', time.time())
with open('/usr/lib/python3.11/this.py') as f:
    print('read', len(f.read()) > 0)
