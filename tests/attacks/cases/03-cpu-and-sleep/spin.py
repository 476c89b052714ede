# attack: an endless busy loop
# status: timeout
# signal: 9
# stdout: spinning
# timeout_s: 1
# wall_ms: 950..2000
#   Killed at the 1 s limit and reported as "timeout" (not a bare 137).
print('spinning', flush=True)
while True:
    pass
