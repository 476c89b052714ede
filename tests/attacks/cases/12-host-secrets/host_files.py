# attack: look for the host's secrets: shadow, /root, /home, ssh keys, the project tree
# status: ok
# stdout: shadow False
# stdout: root False
# stdout: hostname cellgate
# stdout: uname cellgate
# stdout: home False
# stdout: work False
# stdout: var False
# stdout: ssh False
# stdout: top ['bin', 'code', 'dev', 'etc', 'lib', 'lib64', 'proc', 'tmp', 'usr']
# stdout: etc ['alternatives', 'group', 'hostname', 'hosts', 'ld.so.cache', 'passwd']
# stdout: etc/hostname cellgate
#   Only the profile's read-only paths exist; /etc holds generated files
#   and two binds.  The host name is the cell's own, never the host's.
import os, socket
print('shadow', os.path.exists('/etc/shadow'))
print('root', os.path.exists('/root'))
print('hostname', socket.gethostname())
print('uname', os.uname().nodename)
print('home', os.path.exists('/home'))
print('work', os.path.exists('/work'))
print('var', os.path.exists('/var'))
print('ssh', os.path.exists('/etc/ssh'))
print('top', sorted(os.listdir('/')))
print('etc', sorted(os.listdir('/etc')))
print('etc/hostname', open('/etc/hostname').read().strip())
