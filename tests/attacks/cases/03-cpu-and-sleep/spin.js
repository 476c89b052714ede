// attack: an endless busy loop in node
// status: timeout
// signal: 9
// stdout: spinning
// timeout_s: 1
// wall_ms: 950..2000
console.log('spinning');
for (;;) {}
