# attack: look for any capability, a root id or a root group left to the program
# status: ok
# stdout: CapInh 0000000000000000
# stdout: CapPrm 0000000000000000
# stdout: CapEff 0000000000000000
# stdout: CapBnd 0000000000000000
# stdout: CapAmb 0000000000000000
# stdout: NoNewPrivs 1
# stdout: Seccomp 2
# stdout: Uid 1000 1000 1000 1000
# stdout: Gid 1000 1000 1000 1000
# stdout: ids 1000 1000 1000 1000
# stdout: groups []
#   Empty capability sets (bounding too), no_new_privs, seccomp filter mode,
#   uid and gid 1000 in every slot, no supplementary groups.
import os
st = {}
for line in open('/proc/self/status'):
    k, _, v = line.partition(':')
    st[k] = ' '.join(v.split())
for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp', 'Uid', 'Gid'):
    print(k, st.get(k))
print('ids', os.getuid(), os.geteuid(), os.getgid(), os.getegid())
print('groups', sorted(os.getgroups()))
