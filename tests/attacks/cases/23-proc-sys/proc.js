// attack: node reads init's environment and the process list
// status: ok
// stdout: /proc/1/environ EACCES
// stdout: pids ["1","2"]
// stdout: /proc/sys false
// stdout: /sys false
const fs = require('fs');
try { fs.readFileSync('/proc/1/environ'); console.log('/proc/1/environ', 'READ'); }
catch (e) { console.log('/proc/1/environ', e.code); }
console.log('pids', JSON.stringify(fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).sort()));
console.log('/proc/sys', fs.existsSync('/proc/sys'));
console.log('/sys', fs.existsSync('/sys'));
