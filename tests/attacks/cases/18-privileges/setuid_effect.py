# attack: run `mount` and `su -c id` (setuid root on the host) and see whether they act as root
# status: ok
# stdout: mount failed True
# stdout: /tmp mounts unchanged True
# stdout: su failed True
# stdout: su gave root False
# timeout_s: 20
#   With nosuid binds and no_new_privs the binaries run as uid 1000 and
#   fail; nothing they do reaches root.
import subprocess
def tmp_mounts():
    return [l for l in open('/proc/self/mountinfo') if l.split()[4] == '/tmp']
before = tmp_mounts()
r = subprocess.run(['/usr/bin/mount', '-t', 'tmpfs', 'none', '/tmp'], capture_output=True,
                   text=True, timeout=5)
print('mount failed', r.returncode != 0)
print('/tmp mounts unchanged', tmp_mounts() == before)
r = subprocess.run(['/usr/bin/su', '-c', 'id'], capture_output=True, text=True, timeout=5,
                   input='')
print('su failed', r.returncode != 0)
print('su gave root', 'uid=0' in r.stdout)
