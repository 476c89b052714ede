# attack: fill /tmp (60 MiB) and then the heap, to use tmpfs as extra memory
# status: memory
# stdout: tmp 60
# timeout_s: 20
#   Files in the job's tmpfs are charged to the job's memory: 60 MiB of
#   files plus 220 MiB of heap is over the 256 MiB budget.
with open('/tmp/fill', 'wb') as f:
    for i in range(60):
        f.write(b'\x07' * (1 << 20))
print('tmp', 60, flush=True)
x = b'\x08' * (220 << 20)
print('heap', len(x) >> 20)
