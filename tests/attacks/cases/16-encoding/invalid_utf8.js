// attack: node writes raw invalid bytes and a lone surrogate string
// status: ok
// stdout_json: "\ufffd\ufffd ok\n\ufffd|\n"
//   Raw 0xff 0xfe from a Buffer become U+FFFD in the gateway; the lone
//   surrogate '\ud800' is encoded by node itself as U+FFFD (EF BF BD).
process.stdout.write(Buffer.from([0xff, 0xfe, 0x20, 0x6f, 0x6b, 0x0a]));
process.stdout.write('\ud800|\n');
