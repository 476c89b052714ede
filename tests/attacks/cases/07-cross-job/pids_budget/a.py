# status: ok
# stdout~: a stopped EAGAIN (?P<n>\d+)
# where: n >= 50
import errno, os, time
n = 0
try:
    while n < 1000:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        n += 1
except OSError as e:
    print('a stopped', errno.errorcode.get(e.errno), n, flush=True)
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
