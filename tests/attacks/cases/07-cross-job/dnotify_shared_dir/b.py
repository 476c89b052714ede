# status: ok
# stdout: read
import time
time.sleep(0.7)
print('@probe', time.time())
for _ in range(20):
    with open('/usr/lib/python3.11/os.py', 'rb') as f:
        f.read(1)
print('read')
