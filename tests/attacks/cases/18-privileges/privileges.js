// attack: node tries to become root
// status: ok
// stdout: setuid EPERM
// stdout: setgid EPERM
// stdout: setgroups EPERM
// stdout: seteuid EPERM
for (const [name, fn] of [['setuid', () => process.setuid(0)], ['setgid', () => process.setgid(0)],
                          ['setgroups', () => process.setgroups([0])],
                          ['seteuid', () => process.seteuid(0)]]) {
  try { fn(); console.log(name, 'OK'); } catch (e) { console.log(name, e.code); }
}
