# status: ok
# stdout: b holds 220
import time
time.sleep(0.6)
x = bytearray(220 << 20)
for i in range(0, len(x), 4096):
    x[i] = 1
print('@probe', time.time())
print('b holds', len(x) >> 20)
