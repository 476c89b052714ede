# attack: print 1000-character lines forever
# status: output_limit
# stdout_len: 1048576
# stdout_truncated: true
# stdout_each~: A*
# timeout_s: 20
# gateway_hwm_mib: 64
#   The first 1 MiB is returned unaltered, the job is ended, and the gateway
#   never buffered the flood (its peak RSS stays small).
while True:
    print('A' * 1000)
