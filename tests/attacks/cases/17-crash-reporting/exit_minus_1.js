// attack: process.exit(-1) and its modulo
// status: exit
// exit_code: 255
process.exit(-1);
