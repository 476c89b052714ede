# status: ok
# stdout: late False
# stdout: pids ['1', '2']
import os, time
time.sleep(1.5)
print('late', os.path.exists('/tmp/late'))
print('pids', sorted(p for p in os.listdir('/proc') if p.isdigit()))
