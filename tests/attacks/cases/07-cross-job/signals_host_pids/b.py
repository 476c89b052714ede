# status: ok
# stdout: b survived
import time
time.sleep(2)
print('b survived')
