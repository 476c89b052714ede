# attack: flood stdout and stderr alternately
# status: output_limit
# stdout_each~: G*
# stderr_each~: H*
# timeout_s: 20
# gateway_hwm_mib: 64
#   The job ends when either stream passes its cap; neither is returned
#   beyond 1 MiB (the runner checks that of every job).
import sys
while True:
    sys.stdout.write('G' * 4096 + '\n')
    sys.stderr.write('H' * 4096 + '\n')
