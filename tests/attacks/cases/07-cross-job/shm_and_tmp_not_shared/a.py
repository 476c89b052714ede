# status: ok
# stdout: created
import time
from multiprocessing import shared_memory
for p in ('/dev/shm/cellgate-a', '/tmp/cellgate-a'):
    with open(p, 'w') as f:
        f.write('from job a')
shm = shared_memory.SharedMemory(name='cellgate-a-shm', create=True, size=4096)
print('created', flush=True)
t0 = time.time()
time.sleep(2)
print('@window', t0, time.time())
shm.close()
shm.unlink()
