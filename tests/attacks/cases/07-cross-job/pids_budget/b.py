# status: ok
# stdout: b forked 40
import os, time
time.sleep(0.7)
n = 0
for i in range(40):
    if os.fork() == 0:
        time.sleep(0.5)
        os._exit(0)
    n += 1
print('@probe', time.time())  # 40 children alive while A is at its limit
print('b forked', n)
