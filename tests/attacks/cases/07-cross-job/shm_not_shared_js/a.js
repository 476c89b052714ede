// status: ok
// stdout: created
const fs = require('fs');
fs.writeFileSync('/dev/shm/cellgate-a', 'from job a');
fs.writeFileSync('/tmp/cellgate-a', 'from job a');
console.log('created');
const t0 = Date.now() / 1000;
setTimeout(() => console.log('@window', t0, Date.now() / 1000), 2000);
