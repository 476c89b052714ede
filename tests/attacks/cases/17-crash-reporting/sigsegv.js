// attack: node sends itself SIGSEGV
// status: signal
// signal: 11
// exit_code: null
// stdout: before
console.log('before');
process.kill(process.pid, 'SIGSEGV');
setTimeout(() => console.log('after'), 1000);
