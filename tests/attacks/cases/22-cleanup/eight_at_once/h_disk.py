# status: ok
# stdout: EFBIG
import errno
try:
    with open('/tmp/x', 'wb') as f:
        for i in range(100):
            f.write(b'\0' * (1 << 20))
            f.flush()
except OSError as e:
    print(errno.errorcode.get(e.errno))
