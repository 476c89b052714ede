// status: ok
// stdout: [] []
// host_absent: /tmp/cellgate-attack-js
// host_absent: /dev/shm/cellgate-attack-js
const fs = require('fs');
console.log(JSON.stringify(fs.readdirSync('/tmp')), JSON.stringify(fs.readdirSync('/dev/shm')));
