// attack: node spawns node children in a tight loop (child_process.spawn)
// status: memory
// stdout_len: 0
// case_timeout: 90
//   The loop never yields, so spawn errors (EAGAIN at the pids limit) are
//   never even delivered. Each child that starts fills 48 MiB of its own
//   (anonymous memory, which no reclaim can take back without swap); a few
//   of them together pass the job's 256 MiB and the whole job ends as
//   "memory", well before the default 10 s limit, host untouched.
//   (Children that only idle do not do it: their memory is mostly node's
//   shared file pages, which the kernel reclaims, so the job thrashes
//   until its time limit instead, and which comes first depends on load.)
const cp = require('child_process');
for (;;) { try { cp.spawn('/usr/bin/node', ['-e', 'globalThis.b = Buffer.alloc(48 << 20, 1); setInterval(()=>{},1000)']); } catch (e) {} }
