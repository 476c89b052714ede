# status: ok
# stdout: /dev/shm []
# stdout: /tmp []
# stdout: shm FileNotFoundError
import time
from multiprocessing import shared_memory
import os
time.sleep(0.7)
print('@probe', time.time())
print('/dev/shm', sorted(os.listdir('/dev/shm')))
print('/tmp', sorted(os.listdir('/tmp')))
try:
    shared_memory.SharedMemory(name='cellgate-a-shm')
    print('shm FOUND')
except OSError as e:
    print('shm', type(e).__name__)
