# attack: a flood of bytes that are not UTF-8
# status: output_limit
# stdout_len: 1048576
# stdout_truncated: true
# stdout_each~: \ufffd*
# timeout_s: 20
# gateway_hwm_mib: 64
#   Each invalid byte becomes one U+FFFD; the cap counts the program's
#   bytes, and the protocol channel stays valid UTF-8 JSON.
import sys
while True:
    sys.stdout.buffer.write(b'\xff' * 65536)
