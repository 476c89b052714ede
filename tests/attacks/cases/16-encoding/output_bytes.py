# attack: NUL, control characters, escape sequences, U+2028/U+2029 and DEL in the output
# status: ok
# stdout_json: "a\u0000b\u0001c\u001b[31m\u2028d\u2029e\u007f\n"
#   Written raw to stdout: they travel JSON-escaped and come back exactly
#   (the harness checks that every gateway line is valid UTF-8 JSON).
import sys
sys.stdout.write('a\x00b\x01c\x1b[31m\u2028d\u2029e\x7f\n')
