# attack: the shell fork bomb b(){ b|b& }; b through /bin/sh
# status: ok
# stdout: shell said Cannot fork: True
# stdout: parent alive
# timeout_s: 10
#   The bomb's processes hit the pids limit (dash says "Cannot fork"); the
#   Python parent keeps running, and the whole swarm dies with the job.
import subprocess, time
with open('/tmp/bomb.err', 'wb') as err:
    subprocess.Popen(['/bin/sh', '-c', 'b(){ b|b& }; b'], stderr=err)
deadline = time.monotonic() + 5
said = False
while not said and time.monotonic() < deadline:
    time.sleep(0.1)
    with open('/tmp/bomb.err', 'rb') as f:
        said = b'Cannot fork' in f.read()
print('shell said Cannot fork:', said)
print('parent alive')
