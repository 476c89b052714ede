# attack: run a setuid-root binary of the host (if /usr has one) and a child, and compare ids
# status: ok
# stdout~: suid (?:/usr/bin/\S+ ?)+|suid none
# stdout: child_euid 1000
# timeout_s: 20
#   no_new_privs and nosuid binds: a setuid binary runs with the caller's ids.
import os, subprocess
cands = [p for p in ('/usr/bin/passwd', '/usr/bin/su', '/usr/bin/mount', '/usr/bin/newgrp',
                     '/usr/bin/chfn', '/usr/bin/sudo')
         if os.path.exists(p) and os.stat(p).st_mode & 0o4000]
print('suid', ' '.join(cands) or 'none')
for c in cands:
    subprocess.run([c, '--help'], capture_output=True, timeout=5)
r = subprocess.run(['/usr/bin/python3', '-c', 'import os; print(os.geteuid())'],
                   capture_output=True, timeout=5, text=True)
print('child_euid', r.stdout.strip())
