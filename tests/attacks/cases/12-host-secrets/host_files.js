// attack: node looks for the host's secrets
// status: ok
// stdout: /etc/shadow false
// stdout: /root false
// stdout: /home false
// stdout: /var false
// stdout: /etc/ssh false
// stdout: hostname cellgate
// stdout: top ["bin","code","dev","etc","lib","lib64","proc","tmp","usr"]
const fs = require('fs');
for (const p of ['/etc/shadow', '/root', '/home', '/var', '/etc/ssh']) console.log(p, fs.existsSync(p));
console.log('hostname', require('os').hostname());
console.log('top', JSON.stringify(fs.readdirSync('/').sort()));
