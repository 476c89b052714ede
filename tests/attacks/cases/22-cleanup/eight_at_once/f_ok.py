# status: ok
# stdout: 42
import time
time.sleep(0.5)
print(6 * 7)
