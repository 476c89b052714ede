# attack: fork sleeping children until fork fails
# status: ok
# stdout~: stopped EAGAIN (?P<n>\d+)
# where: n < 64
# where: n >= 50
# timeout_s: 10
#   fork must fail with EAGAIN at the pids limit (64, of which the init and
#   the interpreter take two), never succeed a thousand times.
import errno, os, time
n = 0
try:
    while n < 1000:
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except OSError as e:
    print('stopped', errno.errorcode.get(e.errno), n)
else:
    print('forked', n)
