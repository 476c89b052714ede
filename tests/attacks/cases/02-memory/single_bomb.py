# attack: one process allocates 16 MiB chunks until it is stopped
# status: memory
# stdout~: (?:\d+ )*(?P<last>\d+)[ ]
# where: last <= 256
# where: last >= 160
#   It prints the MiB it holds after each chunk, on one line.  The job must
#   be stopped as "memory" below the 256 MiB limit, not before it got most
#   of its budget, and never with more.
chunks = []
while True:
    chunks.append(b'\x03' * (16 << 20))
    print(len(chunks) * 16, end=' ', flush=True)
