# attack: read the host through /proc and /sys: init, kcore, sysctls, other pids, cgroups
# status: ok
# stdout: pid 2
# stdout: init cellgate-init
# stdout: kcore False
# stdout: procsys False
# stdout: sys False
# stdout: pids ['1', '2']
# stdout: init_environ EACCES
# stdout: cgroup paths all /: True
# stdout: procsys_write ENOENT
# stdout: sysrq ENOENT
# stdout: kmsg False
# stdout: modules False
# stdout_lacks: @@HOST_INIT@@
#   A fresh /proc with only the job's pids (subset=pid): no /proc/sys,
#   /proc/kcore, /proc/kmsg, /proc/modules; no /sys at all; init shows its
#   rewritten name; /proc/self/cgroup shows no host paths.
import errno, os
def rd(p):
    try:
        return open(p, 'rb').read().replace(b'\0', b' ').decode('utf-8', 'replace').strip()
    except OSError as e:
        return errno.errorcode.get(e.errno)
print('pid', os.getpid())
print('init', rd('/proc/1/cmdline'))
print('kcore', os.path.exists('/proc/kcore'))
print('procsys', os.path.exists('/proc/sys'))
print('sys', os.path.exists('/sys'))
print('pids', sorted(p for p in os.listdir('/proc') if p.isdigit()))
print('init_environ', rd('/proc/1/environ')[:60] or 'empty')
# Each line is ID:CONTROLLERS:PATH; the cgroup namespace is rooted at the
# job's cgroup, so every path must be "/" (a host path would name the
# jailer's cgroup tree).
cg = rd('/proc/self/cgroup').splitlines()
print('cgroup paths all /:', bool(cg) and all(l.split(':', 2)[2] == '/' for l in cg))
try:
    open('/proc/sys/kernel/hostname', 'w').write('x')
    print('procsys_write', 'WRITABLE')
except OSError as e:
    print('procsys_write', errno.errorcode.get(e.errno))
try:
    open('/proc/sysrq-trigger', 'w').write('b')
    print('sysrq', 'WRITABLE')
except OSError as e:
    print('sysrq', errno.errorcode.get(e.errno))
print('kmsg', os.path.exists('/proc/kmsg'))
print('modules', os.path.exists('/proc/modules'))
