# status: ok
# stdout: /tmp []
# stdout: /dev/shm []
# stdout: /var/tmp False
# stdout: /run/lock False
# stdout: / False
import os
for d in ('/tmp', '/dev/shm'):
    print(d, sorted(os.listdir(d)))
for d in ('/var/tmp', '/run/lock', ''):
    print(d or '/', os.path.exists(d + '/cellgate-attack-mark'))
