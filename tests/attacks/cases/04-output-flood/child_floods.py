# attack: a background child floods stdout while the program sleeps
# status: output_limit
# stdout_len: 1048576
# stdout_truncated: true
# stdout_each~: D*
# timeout_s: 20
#   Output of any process of the job counts against the cap.
import os, time
if os.fork() == 0:
    while True:
        os.write(1, b'D' * 65536)
time.sleep(30)
