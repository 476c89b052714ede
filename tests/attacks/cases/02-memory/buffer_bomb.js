// attack: node fills 16 MiB Buffers until it is stopped
// status: memory
// stdout~: (?:\d+ )*(?P<last>\d+)[ ]
// where: last <= 256
// where: last >= 112
// timeout_s: 20
//   Buffers live outside the V8 heap, so only the cgroup limit stops them.
const keep = [];
for (;;) {
  keep.push(Buffer.alloc(16 << 20, 3));
  process.stdout.write((keep.length * 16) + ' ');
}
