# attack: a client sends stdin with a lone surrogate escape (\ud800), which is not Unicode
# jsonrpc_error: -32700
# stdin: "a\ud800b"
#   The gateway refuses the message as a parse error (it cannot be turned
#   into UTF-8 for the program), starts no job, and keeps serving: the
#   after-checks run print(1) through the same gateway.
import sys
print(sys.stdin.buffer.read())
