# attack: search every readable file of /proc for the host's paths (jailer, socket, policy, tmp dir)
# status: ok
# stdout_has: mountinfo
# stdout_lacks: @@TMPDIR@@
# stdout_lacks: @@JAILER_DIR@@
# stdout_lacks: @@REPO@@
# stdout_lacks: jailer.sock
# stdout_lacks: jailer.conf
#   The cmdline and environ of every visible process and the mount table:
#   none may show where the jailer, its socket, its policy or this test's
#   directory live on the host.
import os
for p in sorted(x for x in os.listdir('/proc') if x.isdigit()):
    for f in ('cmdline', 'environ'):
        try:
            data = open('/proc/%s/%s' % (p, f), 'rb').read().replace(b'\0', b' ')
            print(p, f, data.decode('utf-8', 'replace'))
        except OSError as e:
            print(p, f, type(e).__name__)
print('mountinfo', open('/proc/self/mountinfo').read().replace('\n', ' | '))
