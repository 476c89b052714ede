// attack: node waits on a timer far in the future
// status: timeout
// signal: 9
// stdout: sleeping
// timeout_s: 1
// wall_ms: 950..2000
console.log('sleeping');
setTimeout(() => console.log('woke'), 3600 * 1000);
