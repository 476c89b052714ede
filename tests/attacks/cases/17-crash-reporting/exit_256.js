// attack: process.exit(256) in node
// status: ok
// exit_code: 0
process.exit(256);
