// attack: node spawns node children in a tight loop (child_process.spawn)
// status: memory
// stdout_len: 0
// case_timeout: 90
//   The loop never yields, so spawn errors (EAGAIN at the pids limit) are
//   never even delivered; the ~60 node children that did start take tens
//   of MiB each, and together pass the job's 256 MiB: the whole job ends
//   as "memory" (well before the default 10 s limit), host untouched.
const cp = require('child_process');
for (;;) { try { cp.spawn('/usr/bin/node', ['-e', 'setInterval(()=>{},1000)']); } catch (e) {} }
