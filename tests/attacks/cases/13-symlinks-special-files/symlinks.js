// attack: node plants symlinks out of the cell and reads through them
// status: ok
// stdout: /tmp/s -> /etc/shadow ENOENT
// stdout: /tmp/r -> /proc/1/root/etc/hostname EACCES
// stdout: readlink /proc/1/root EACCES
const fs = require('fs');
fs.symlinkSync('/etc/shadow', '/tmp/s');
fs.symlinkSync('/proc/1/root/etc/hostname', '/tmp/r');
for (const [name, fn] of [['/tmp/s -> /etc/shadow', () => fs.readFileSync('/tmp/s')],
                          ['/tmp/r -> /proc/1/root/etc/hostname', () => fs.readFileSync('/tmp/r')],
                          ['readlink /proc/1/root', () => fs.readlinkSync('/proc/1/root')]]) {
  try { fn(); console.log(name, 'OK'); } catch (e) { console.log(name, e.code); }
}
