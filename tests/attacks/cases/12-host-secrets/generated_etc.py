# attack: read the cell's /etc/passwd, /etc/group and /etc/hosts for host users and addresses
# status: ok
# stdout: passwd users ['nobody', 'root', 'sandbox']
# stdout: group names ['nogroup', 'root', 'sandbox']
# stdout: hosts 127.0.0.1	localhost | ::1	localhost | 127.0.1.1	cellgate |
#   The files are generated per job with three fixed entries: never the
#   host's (which would list its users and services).
import os
users = sorted(l.split(':')[0] for l in open('/etc/passwd') if l.strip())
print('passwd users', users)
print('group names', sorted(l.split(':')[0] for l in open('/etc/group') if l.strip()))
print('hosts', open('/etc/hosts').read().replace('\n', ' | ').rstrip())
