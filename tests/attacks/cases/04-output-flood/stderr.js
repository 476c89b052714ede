// attack: node floods stderr as fast as the pipe drains
// status: output_limit
// stderr_len: 1048576
// stderr_truncated: true
// stderr_each~: F*
// timeout_s: 20
const s = 'F'.repeat(4000) + '\n';
function more() { while (process.stderr.write(s)); process.stderr.once('drain', more); }
more();
