# attack: one 8 MiB write without a newline
# status: output_limit
# stdout_len: 1048576
# stdout_truncated: true
# stdout_each~: C*
# timeout_s: 20
# gateway_hwm_mib: 64
import sys
sys.stdout.write('C' * (8 << 20))
sys.stdout.flush()
