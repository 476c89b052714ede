# attack: the jailer itself is SIGKILLed while a job runs
# status: ok
# action: kill-jailer 0.5
# stdout: finished
#   The running job has its own supervisor and finishes normally; nothing
#   is left; a new execute without a jailer gets an isError answer, never a
#   hang, and the gateway still answers ping (the runner's after-checks
#   for this action).
import time
time.sleep(1.5)
print('finished')
