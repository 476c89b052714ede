// status: output_limit
// stdout_len: 1048576
const s = 'q'.repeat(65536);
function more() { while (process.stdout.write(s)); process.stdout.once('drain', more); }
more();
