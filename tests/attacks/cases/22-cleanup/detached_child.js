// attack: node spawns a detached, unref'd child that outlives it
// status: ok
// stdout: parent done
// wall_ms: 0..1500
const cp = require('child_process');
const c = cp.spawn('/bin/sh', ['-c', 'while :; do :; done'], { detached: true, stdio: 'ignore' });
c.unref();
console.log('parent done');
