// status: ok
// stdout: written
const fs = require('fs');
fs.writeFileSync('/tmp/cellgate-attack-js', 'secret');
fs.writeFileSync('/dev/shm/cellgate-attack-js', 'secret');
console.log('written');
