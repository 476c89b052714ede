// attack: node signals the jailer and the gateway by their host pids
// status: ok
// stdout: jailer ESRCH
// stdout: gateway ESRCH
// stdout: still here
for (const [name, pid] of [['jailer', @@JAILER_PID@@], ['gateway', @@GATEWAY_PID@@]]) {
  try { process.kill(pid, 'SIGKILL'); console.log(name, 'sent'); } catch (e) { console.log(name, e.code); }
}
setTimeout(() => console.log('still here'), 200);
