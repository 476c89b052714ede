// attack: node grows a JavaScript array of strings without end
// status: memory
// stdout_len: 0
// timeout_s: 20
//   V8's own heap limit (sized from the host's RAM, not the job's) is far
//   above 256 MiB, so the cgroup limit fires first: "memory".
const a = [];
for (let i = 0; ; i++) a.push('x'.repeat(1024) + i);
