# attack: map 4 GiB (more than memory and any swap) and touch every page
# status: memory
# stdout: mapped
# timeout_s: 20
#   The mapping itself is only address space; touching it must end as
#   "memory" before "touched" (no swap to escape into).
import mmap
m = mmap.mmap(-1, 4 << 30)
print('mapped', flush=True)
for i in range(0, len(m), 4096):
    m[i] = 1
print('touched')
