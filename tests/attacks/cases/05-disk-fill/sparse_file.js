// attack: node truncates a file to 1 TiB
// status: ok
// stdout: truncate EFBIG
// stdout: size 0
//   Node ignores SIGXFSZ too, so the call fails with EFBIG.
const fs = require('fs');
fs.writeFileSync('/tmp/sparse', '');
try { fs.truncateSync('/tmp/sparse', 2 ** 40); console.log('truncate OK'); }
catch (e) { console.log('truncate', e.code); }
console.log('size', fs.statSync('/tmp/sparse').size);
