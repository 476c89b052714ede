// status: ok
// start_after: b
// stdout: host pids of b: 2 ESRCH
// stdout: pid 1: sent, init survives
// stdout: a alive
const pids = '@@PIDS_OF_B@@'.split(' ').map(Number);
const res = new Set();
for (const p of pids) {
  try { process.kill(p, 'SIGKILL'); res.add('SENT'); } catch (e) { res.add(e.code); }
}
console.log('host pids of b:', pids.length, [...res].sort().join(' '));
// Init of the cell runs as our uid, so the kernel accepts the call; it
// drops the signal because init has no handler.  If init died, the job
// (and this program, by its parent-death signal) would die with it.
process.kill(1, 'SIGKILL');
setTimeout(() => { console.log('pid 1: sent, init survives'); console.log('a alive'); }, 300);
