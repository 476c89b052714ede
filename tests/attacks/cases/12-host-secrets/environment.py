# attack: read the environment for anything of the jailer, the gateway or the host
# status: ok
# stdout: env HOME=/tmp LANG=C.UTF-8 PATH=/usr/bin:/bin PYTHONDONTWRITEBYTECODE=1
# stdout: cwd /tmp
# stdout: argv ['/code/main.py']
#   Exactly the profile's fixed environment, nothing inherited.
import os, sys
print('env', ' '.join('%s=%s' % kv for kv in sorted(os.environ.items())))
print('cwd', os.getcwd())
print('argv', sys.argv)
