# status: ok
# stdout: a holds 220
import time
x = bytearray(220 << 20)
for i in range(0, len(x), 4096):
    x[i] = 1
print('a holds', len(x) >> 20, flush=True)
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
