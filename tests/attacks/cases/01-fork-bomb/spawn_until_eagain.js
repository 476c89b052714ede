// attack: spawn sleeping children with child_process until spawn fails
// status: ok
// stdout~: stopped EAGAIN (?P<n>\d+)
// where: n < 64
// where: n >= 40
// timeout_s: 10
const cp = require('child_process');
let n = 0;
function next() {
  if (n >= 1000) { console.log('spawned', n); process.exit(0); }
  const c = cp.spawn('/bin/sleep', ['30'], { stdio: 'ignore' });
  c.on('error', (e) => { console.log('stopped', e.code, n); process.exit(0); });
  c.on('spawn', () => { n++; next(); });
}
next();
