# status: timeout
# timeout_s: 2
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
