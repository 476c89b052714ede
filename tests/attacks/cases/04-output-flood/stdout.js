// attack: node floods stdout as fast as the pipe drains
// status: output_limit
// stdout_len: 1048576
// stdout_truncated: true
// stdout_each~: E*
// timeout_s: 20
// gateway_hwm_mib: 64
const s = 'E'.repeat(65536);
function more() { while (process.stdout.write(s)); process.stdout.once('drain', more); }
more();
