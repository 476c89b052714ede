# status: ok
# stdout: /tmp/cellgate-attack-mark True
# stdout: /dev/shm/cellgate-attack-mark True
# stdout: /var/tmp/cellgate-attack-mark ENOENT
# stdout: /run/lock/cellgate-attack-mark ENOENT
# stdout: /cellgate-attack-mark EROFS
# host_absent: /tmp/cellgate-attack-mark
# host_absent: /dev/shm/cellgate-attack-mark
# host_absent: /var/tmp/cellgate-attack-mark
# host_absent: /run/lock/cellgate-attack-mark
# host_absent: /cellgate-attack-mark
import errno, os
for d in ('/tmp', '/dev/shm', '/var/tmp', '/run/lock', ''):
    p = d + '/cellgate-attack-mark'
    try:
        with open(p, 'w') as f:
            f.write('secret')
        print(p, os.path.exists(p))
    except OSError as e:
        print(p, errno.errorcode.get(e.errno))
