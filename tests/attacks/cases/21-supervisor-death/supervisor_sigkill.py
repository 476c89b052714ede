# attack: the job's supervisor (the root process that watches it) is SIGKILLed mid-job
# status: internal
# action: kill-supervisors 0.8
# stdout_len: 0
#   The runner kills every supervisor under the jailer 0.8 s into a 30 s
#   sleep.  The job must not run on unsupervised: it is answered (as
#   "internal", the sandbox failed) and nothing of it is left.
import time
time.sleep(30)
