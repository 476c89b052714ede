# attack: a 4 GiB multiprocessing.shared_memory segment (a sparse /dev/shm file)
# status: ok
# stdout: SharedMemory EFBIG
# timeout_s: 20
#   snekbox's test_multiprocessing_shared_memory_mmap_limited: the segment is
#   refused (file size limit = the tmpfs size) before any page is touched.
import errno
from multiprocessing import shared_memory
try:
    shm = shared_memory.SharedMemory(create=True, size=4 << 30)
    shm.buf[::4096] = b'\x01' * len(shm.buf[::4096])
    print('SharedMemory touched', shm.size)
except OSError as e:
    print('SharedMemory', errno.errorcode.get(e.errno))
