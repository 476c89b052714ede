// attack: node writes into system paths and its own code file
// status: ok
// stdout: /usr/cellgate-attack-evil EROFS
// stdout: /etc/passwd EACCES
// stdout: /code/main.js EACCES
// stdout: /usr/bin/node EACCES
// stdout: /lib/cellgate-attack-evil EROFS
// host_absent: /usr/cellgate-attack-evil
// host_absent: /lib/cellgate-attack-evil
//   New files: EROFS; existing files that are not ours: EACCES.
const fs = require('fs');
for (const p of ['/usr/cellgate-attack-evil', '/etc/passwd', '/code/main.js', '/usr/bin/node',
                 '/lib/cellgate-attack-evil']) {
  try { fs.appendFileSync(p, 'x'); console.log(p, 'WRITABLE'); } catch (e) { console.log(p, e.code); }
}
