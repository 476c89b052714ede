// attack: node writes one 100 MiB buffer into a 64 MiB /tmp
// status: ok
// stdout: stopped EFBIG
// timeout_s: 20
//   One write(2) of 100 MiB is cut at the file size limit (64 MiB), and the
//   next one fails with EFBIG (node ignores SIGXFSZ).
const fs = require('fs');
try { fs.writeFileSync('/tmp/big', Buffer.alloc(100 << 20, 7)); console.log('wrote'); }
catch (e) { console.log('stopped', e.code); }
