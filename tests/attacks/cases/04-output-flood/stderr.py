# attack: write 4 KiB blocks to stderr forever
# status: output_limit
# stderr_len: 1048576
# stderr_truncated: true
# stderr_each~: B*
# stdout_truncated: false
# timeout_s: 20
# gateway_hwm_mib: 64
import sys
while True:
    sys.stderr.write('B' * 4096)
