"""The attack corpus (reference/sandbox-anchors.md §7-§9): each attack runs
as a real job; the test checks its status and the job's own output that
proves the containment.  After each test the gateway and the jailer must be
alive, a fresh print(1) must work and nothing may be left on the host."""
import json
import os
import signal
import socket

from harness import JAILER_BIN, children_of, check, describe, eq, expect_status, short

FOLLOWUP = True
MIB = 1 << 20


def run(ctx, code, language=None, timeout_s=None, stdin=None):
    c = ctx.client()
    _, sc = c.execute(code, language, timeout_s, stdin, timeout=60)
    return sc


def lines(sc):
    return sc["stdout"].splitlines()


def kv(sc):
    """stdout lines "key value..." -> {key: "value..."}"""
    out = {}
    for line in lines(sc):
        k, _, v = line.partition(" ")
        out[k] = v
    return out


# ---------------------------------------------------------------- processes

def test_fork_bomb(ctx):
    sc = run(ctx, "import os\nwhile True:\n    try:\n        os.fork()\n"
             "    except OSError:\n        pass\n", timeout_s=3)
    check(sc["status"] in ("exit", "timeout", "signal"),
          "fork bomb: status %s" % describe(sc))
    # The host stays responsive while the bomb's cgroup is torn down.
    ctx.assert_clean("after the fork bomb")
test_fork_bomb.timeout = 90


def test_fork_bomb_javascript(ctx):
    sc = run(ctx, "const cp = require('child_process');\n"
             "for (;;) { try { cp.spawn('/usr/bin/node', ['-e', 'setInterval(()=>{},1000)']); }"
             " catch (e) {} }", "javascript", timeout_s=3)
    check(sc["status"] in ("exit", "timeout", "signal", "memory"),
          "js spawn bomb: status %s" % describe(sc))
test_fork_bomb_javascript.timeout = 90


def test_pids_limit(ctx):
    sc = run(ctx, "import os, time\nn = 0\ntry:\n    while n < 1000:\n"
             "        pid = os.fork()\n        if pid == 0:\n            time.sleep(30)\n"
             "            os._exit(0)\n        n += 1\nexcept OSError as e:\n"
             "    import errno\n    print('stopped', errno.errorcode.get(e.errno), n)\n"
             "else:\n    print('forked', n)\n", timeout_s=10)
    expect_status(sc, "ok")
    words = sc["stdout"].split()
    check(len(words) == 3 and words[0] == "stopped" and words[1] == "EAGAIN",
          "fork must fail with EAGAIN at the pids limit: %r" % sc["stdout"])
    check(int(words[2]) < 64, "forked %s children with a 64 pids limit" % words[2])


def test_threads_limit(ctx):
    sc = run(ctx, "import threading, time\nts = []\ntry:\n    for i in range(1000):\n"
             "        t = threading.Thread(target=time.sleep, args=(30,), daemon=True)\n"
             "        t.start(); ts.append(t)\nexcept RuntimeError as e:\n"
             "    print('stopped', len(ts))\nelse:\n    print('started', len(ts))\n",
             timeout_s=10)
    expect_status(sc, "ok")
    words = sc["stdout"].split()
    check(words[:1] == ["stopped"] and int(words[1]) < 64,
          "threads must stop at the pids limit: %r" % sc["stdout"])


# ---------------------------------------------------------------- memory

def test_memory_bomb(ctx):
    sc = run(ctx, "chunks = []\nwhile True:\n    chunks.append(b'\\x03' * (16 << 20))\n"
             "    print(len(chunks) * 16, flush=True)\n")
    expect_status(sc, "memory")
    got = [int(x) for x in lines(sc)]
    check(got and max(got) <= 256, "allocated up to %r MiB under a 256 MiB limit"
          % (max(got) if got else None))


def test_memory_bomb_multiprocess(ctx):
    # Four processes of 100 MiB each: each is under the limit, together over.
    sc = run(ctx, "import os, time\nfor i in range(4):\n    if os.fork() == 0:\n"
             "        x = b'\\x04' * (100 << 20)\n        time.sleep(2)\n        os._exit(0)\n"
             "ok = 0\nfor i in range(4):\n    _, st = os.wait()\n"
             "    ok += os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0\n"
             "print('children ok', ok)\n", timeout_s=20)
    check("children ok 4" not in sc["stdout"],
          "four 100 MiB children all survived a 256 MiB limit: %s" % describe(sc))
    # The OOM killer fired in the job: the job is reported as "memory" (v2:
    # memory.oom.group kills the whole job), not as a clean exit.
    expect_status(sc, "memory")
test_memory_bomb_multiprocess.timeout = 90


def test_sparse_mmap_and_swap(ctx):
    sc = run(ctx, "import mmap\nm = mmap.mmap(-1, 4 << 30)\nprint('mapped')\n"
             "for i in range(0, len(m), 4096): m[i] = 1\nprint('touched')\n", timeout_s=20)
    expect_status(sc, "memory")
    check("touched" not in sc["stdout"], "touched 4 GiB: %r" % sc["stdout"])
test_sparse_mmap_and_swap.timeout = 90


def test_dev_shm_fill(ctx):
    sc = run(ctx, "import errno\nn = 0\ntry:\n    for i in range(128):\n"
             "        with open('/dev/shm/f%d' % i, 'wb') as f:\n"
             "            for j in range(8):\n"
             "                f.write(b'\\x05' * (1 << 20)); f.flush(); n += 1\n"
             "except OSError as e:\n    print('stopped', errno.errorcode.get(e.errno), n)\n"
             "else:\n    print('wrote', n)\n", timeout_s=20)
    # Either the tmpfs is capped (ENOSPC) or its pages count against the
    # job's memory and the job is killed: never 1 GiB of host memory.
    if sc["status"] == "ok":
        words = sc["stdout"].split()
        check(words[:2] == ["stopped", "ENOSPC"] and int(words[2]) < 256,
              "/dev/shm fill: %r" % sc["stdout"])
    else:
        check(sc["status"] in ("memory", "signal"), "/dev/shm fill: %s" % describe(sc))
test_dev_shm_fill.timeout = 90


# ---------------------------------------------------------------- output

def test_stdout_flood(ctx):
    sc = run(ctx, "while True:\n    print('A' * 1000)\n", timeout_s=20)
    expect_status(sc, "output_limit")
    eq(len(sc["stdout"]), MIB, "stdout length")
    eq(sc["stdout_truncated"], True, "stdout_truncated")
    check(set(sc["stdout"]) <= {"A", "\n"}, "stdout content altered")
test_stdout_flood.timeout = 90


def test_stderr_flood(ctx):
    sc = run(ctx, "import sys\nwhile True:\n    sys.stderr.write('B' * 4096)\n", timeout_s=20)
    expect_status(sc, "output_limit")
    eq(len(sc["stderr"]), MIB, "stderr length")
    eq(sc["stderr_truncated"], True, "stderr_truncated")
test_stderr_flood.timeout = 90


def test_flood_javascript(ctx):
    sc = run(ctx, "const s = 'C'.repeat(65536); for (;;) process.stdout.write(s);",
             "javascript", timeout_s=20)
    check(sc["status"] in ("output_limit", "memory"), "js flood: %s" % describe(sc))
    check(len(sc["stdout"]) <= MIB, "stdout over the cap: %d" % len(sc["stdout"]))
test_flood_javascript.timeout = 90


def test_disk_fill_tmp(ctx):
    # Many files of 8 MiB: the tmpfs size cap (64 MiB) must stop them.
    sc = run(ctx, "import errno, os\nprint('cwd', os.getcwd())\nn = 0\ntry:\n"
             "    for i in range(20):\n        with open('/tmp/f%d' % i, 'wb') as f:\n"
             "            for j in range(8):\n"
             "                f.write(b'\\x06' * (1 << 20)); f.flush(); n += 1\n"
             "except OSError as e:\n    print('stopped', errno.errorcode.get(e.errno), n)\n"
             "else:\n    print('wrote', n)\n", timeout_s=20)
    expect_status(sc, "ok")
    d = kv(sc)
    eq(d.get("cwd"), "/tmp", "working directory")
    words = d.get("stopped", "").split()
    check(words[:1] == ["ENOSPC"] and int(words[1]) <= 64,
          "160 MiB of files into a 64 MiB /tmp: %r" % sc["stdout"])


def test_disk_fill_one_big_file(ctx):
    # One 100 MiB file: refused (ENOSPC from the tmpfs, or EFBIG from
    # RLIMIT_FSIZE), never a crash of the program.
    sc = run(ctx, "import errno\nn = 0\ntry:\n    with open('/tmp/big', 'wb') as f:\n"
             "        while n < 100:\n            f.write(b'\\x06' * (1 << 20)); f.flush(); n += 1\n"
             "except OSError as e:\n    print('stopped', errno.errorcode.get(e.errno), n)\n"
             "else:\n    print('wrote', n)\n", timeout_s=20)
    expect_status(sc, "ok")
    words = sc["stdout"].split()
    check(words[:1] == ["stopped"] and words[1] in ("ENOSPC", "EFBIG") and int(words[2]) <= 64,
          "a 100 MiB write into a 64 MiB /tmp: %r" % sc["stdout"])
    sc = run(ctx, "const fs = require('fs');\ntry { fs.writeFileSync('/tmp/big', "
             "Buffer.alloc(100 << 20, 7)); console.log('wrote'); }\n"
             "catch (e) { console.log('stopped', e.code); }", "javascript", timeout_s=20)
    expect_status(sc, "ok", "javascript")
    check(sc["stdout"] in ("stopped ENOSPC\n", "stopped EFBIG\n"),
          "js 100 MiB write into a 64 MiB /tmp: %r" % sc["stdout"])


def test_tmp_does_not_persist(ctx):
    c = ctx.client()
    _, sc = c.execute("import os\nfor p in ('/tmp/mark', '/dev/shm/mark'):\n"
                      "    open(p, 'w').write('secret')\n    print(p, os.path.exists(p))\n")
    expect_status(sc, "ok", "writing marks")
    eq(sc["stdout"], "/tmp/mark True\n/dev/shm/mark True\n", "marks written")
    _, sc = c.execute("import os\nprint(os.path.exists('/tmp/mark'), "
                      "os.path.exists('/dev/shm/mark'), sorted(os.listdir('/tmp')))")
    expect_status(sc, "ok", "reading marks")
    eq(sc["stdout"], "False False []\n", "files of an earlier job")


# ---------------------------------------------------------------- network

class Listener:
    """A TCP listener on the host's loopback that must never be reached."""

    def __enter__(self):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(8)
        self.s.setblocking(False)
        self.port = self.s.getsockname()[1]
        return self

    def accepted(self):
        try:
            conn, _ = self.s.accept()
            conn.close()
            return True
        except BlockingIOError:
            return False

    def __exit__(self, *a):
        self.s.close()


NET_PROBE = r"""
import socket
def attempt(name, fn):
    try:
        fn()
        print(name, 'CONNECTED')
    except Exception as e:
        print(name, type(e).__name__, getattr(e, 'errno', None))
attempt('tcp-1.1.1.1', lambda: socket.create_connection(('1.1.1.1', 53), timeout=2))
attempt('tcp-host-loopback', lambda: socket.create_connection(('127.0.0.1', PORT), timeout=2))
attempt('tcp6-loopback', lambda: socket.create_connection(('::1', PORT), timeout=2))
attempt('udp-1.1.1.1', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('1.1.1.1', 53)))
attempt('dns', lambda: socket.getaddrinfo('example.com', 80))
print('interfaces', ','.join(sorted(l.split(':')[0].strip() for l in open('/proc/self/net/dev').readlines()[2:])))
"""


def test_network_egress(ctx):
    with Listener() as lst:
        sc = run(ctx, NET_PROBE.replace("PORT", str(lst.port)), timeout_s=20)
        expect_status(sc, "ok")
        d = kv(sc)
        for name in ("tcp-1.1.1.1", "tcp-host-loopback", "tcp6-loopback", "udp-1.1.1.1",
                     "dns"):
            check(name in d, "%s missing in output %r" % (name, sc["stdout"]))
            check(d[name] != "CONNECTED", "%s: the sandbox reached it" % name)
            check(not d[name].startswith("NameError"), "probe broken: %s" % d[name])
        eq(d.get("interfaces"), "lo", "network interfaces inside the cell")
        check(not lst.accepted(), "the host's loopback listener got a connection")
test_network_egress.timeout = 90


def test_network_javascript(ctx):
    with Listener() as lst:
        code = ("const net = require('net'); let n = 0; const done = () => { if (++n === 2) "
                "process.exit(0); };\n"
                "for (const [h, p] of [['1.1.1.1', 53], ['127.0.0.1', %d]]) {\n"
                "  const s = net.connect({host: h, port: p, timeout: 2000});\n"
                "  s.on('connect', () => { console.log(h, 'CONNECTED'); s.destroy(); done(); });\n"
                "  s.on('timeout', () => { console.log(h, 'timeout'); s.destroy(); done(); });\n"
                "  s.on('error', (e) => { console.log(h, e.code); done(); });\n}\n" % lst.port)
        sc = run(ctx, code, "javascript", timeout_s=20)
        expect_status(sc, "ok")
        d = kv(sc)
        for h in ("1.1.1.1", "127.0.0.1"):
            check(h in d and d[h] != "CONNECTED", "%s: %r" % (h, sc["stdout"]))
        check(not lst.accepted(), "the host's loopback listener got a connection")
test_network_javascript.timeout = 90


def test_loopback_inside_works(ctx):
    # Loopback is up inside (own net namespace): a server and client in the
    # same job talk; this is what "loopback only" means.
    sc = run(ctx, "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\n"
             "c = socket.create_connection(s.getsockname(), timeout=2)\na, _ = s.accept()\n"
             "c.sendall(b'ping')\nprint(a.recv(4).decode())\n")
    expect_status(sc, "ok")
    eq(sc["stdout"], "ping\n", "loopback round trip")


# ---------------------------------------------------------------- filesystem

def test_read_only_paths(ctx):
    sc = run(ctx, r"""
import errno, os
def w(label, fn):
    try:
        fn()
        print(label, 'WRITABLE')
    except OSError as e:
        print(label, errno.errorcode.get(e.errno, e.errno))
w('/', lambda: open('/evil', 'w'))
w('/usr', lambda: open('/usr/evil', 'w'))
w('/usr/bin/python3', lambda: open('/usr/bin/python3', 'ab'))
w('/etc', lambda: open('/etc/evil', 'w'))
w('/etc/passwd', lambda: open('/etc/passwd', 'a'))
w('/code/main.py', lambda: open('/code/main.py', 'a'))
w('/code', lambda: open('/code/evil', 'w'))
w('/lib', lambda: open('/lib/evil', 'w'))
w('/bin', lambda: os.mkdir('/bin/evil'))
w('/mkdir', lambda: os.mkdir('/evil'))
w('/dev', lambda: open('/dev/evil', 'w'))
w('/proc/sysrq-trigger', lambda: open('/proc/sysrq-trigger', 'w').write('h'))
""")
    expect_status(sc, "ok")
    d = kv(sc)
    for label in ("/", "/usr", "/usr/bin/python3", "/etc", "/etc/passwd", "/code/main.py",
                  "/code", "/lib", "/bin", "/mkdir", "/dev"):
        check(d.get(label) in ("EROFS", "EACCES", "EPERM"),
              "write to %s: %r (expected EROFS/EACCES)" % (label, d.get(label)))
    check(d.get("/proc/sysrq-trigger") in ("EROFS", "EACCES", "EPERM", "ENOENT"),
          "write to /proc/sysrq-trigger: %r" % d.get("/proc/sysrq-trigger"))


def test_host_secrets(ctx):
    with open("/etc/hostname") as f:
        host_hostname = f.read().strip()
    sc = run(ctx, r"""
import os, socket
print('shadow', os.path.exists('/etc/shadow'))
try:
    print('root', sorted(os.listdir('/root')))
except OSError as e:
    print('root', type(e).__name__)
print('hostname', socket.gethostname())
try:
    print('etc_hostname', open('/etc/hostname').read().strip())
except OSError as e:
    print('etc_hostname', type(e).__name__)
print('home', os.path.exists('/home') and os.listdir('/home'))
print('work', os.path.exists('/work'))
print('var', os.path.exists('/var/lib') and len(os.listdir('/var/lib')))
print('ssh', os.path.exists('/etc/ssh'))
print('uname', os.uname().nodename)
""")
    expect_status(sc, "ok")
    d = kv(sc)
    eq(d.get("shadow"), "False", "/etc/shadow visible")
    check(d.get("root") in ("[]", "FileNotFoundError", "PermissionError"),
          "/root: %r" % d.get("root"))
    eq(d.get("hostname"), "cellgate", "hostname")
    eq(d.get("uname"), "cellgate", "uname nodename")
    check(d.get("etc_hostname") != host_hostname or host_hostname == "cellgate",
          "the host's /etc/hostname is visible: %r" % d.get("etc_hostname"))
    check(d.get("home") in ("False", "[]"), "/home: %r" % d.get("home"))
    eq(d.get("work"), "False", "/work (the host's project tree) visible")
    check(d.get("var") in ("False", "0"), "/var/lib visible: %r" % d.get("var"))
    eq(d.get("ssh"), "False", "/etc/ssh visible")


def test_proc_and_sys(ctx):
    with open("/proc/1/cmdline", "rb") as f:
        host_init = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    sc = run(ctx, r"""
import os
def rd(p):
    try:
        return open(p, 'rb').read().replace(b'\0', b' ').decode('utf-8', 'replace').strip()
    except OSError as e:
        return type(e).__name__
print('pid', os.getpid())
print('init', rd('/proc/1/cmdline'))
print('kcore', os.path.exists('/proc/kcore'))
print('procsys', os.path.exists('/proc/sys') and sorted(os.listdir('/proc/sys')))
print('sys', os.path.exists('/sys'))
pids = [p for p in os.listdir('/proc') if p.isdigit()]
print('npids', len(pids))
mi = open('/proc/self/mountinfo').read()
print('mountinfo_work', '/work' in mi or 'cellgate-it-' in mi)
print('init_environ', rd('/proc/1/environ')[:60] or 'empty')
print('cgroup', rd('/proc/self/cgroup'))
try:
    open('/proc/sys/kernel/hostname', 'w').write('x')
    print('procsys_write', 'WRITABLE')
except OSError as e:
    print('procsys_write', type(e).__name__)
""")
    expect_status(sc, "ok")
    d = kv(sc)
    eq(d.get("pid"), "2", "the interpreter's pid inside")
    check(d.get("init") and d["init"] != host_init,
          "/proc/1/cmdline is the host's init: %r" % d.get("init"))
    eq(d.get("kcore"), "False", "/proc/kcore present")
    eq(d.get("procsys"), "False", "/proc/sys present")
    eq(d.get("sys"), "False", "/sys present")
    check(int(d.get("npids", "999")) < 10, "%s pids visible in /proc" % d.get("npids"))
    eq(d.get("mountinfo_work"), "False", "host paths in /proc/self/mountinfo")
    check(d.get("procsys_write") != "WRITABLE", "/proc/sys/kernel/hostname writable")
    check(d.get("init_environ") in ("PermissionError", "empty"),
          "the init's environment (the jailer's) is readable: %r" % d.get("init_environ"))
    check("cellgate-test" not in d.get("cgroup", "") and "job-" not in d.get("cgroup", ""),
          "/proc/self/cgroup shows the host's cgroup paths: %r" % d.get("cgroup"))


def test_proc_no_host_paths(ctx):
    # PID 1 of the cell and everything else in /proc must not show the
    # host's file paths (where the jailer lives, its socket and policy).
    sc = run(ctx, r"""
import os
for p in sorted(x for x in os.listdir('/proc') if x.isdigit()):
    for f in ('cmdline', 'environ'):
        try:
            data = open('/proc/%s/%s' % (p, f), 'rb').read().replace(b'\0', b' ')
            print(p, f, data.decode('utf-8', 'replace'))
        except OSError as e:
            print(p, f, type(e).__name__)
print('mountinfo', open('/proc/self/mountinfo').read().replace('\n', ' | '))
""")
    expect_status(sc, "ok")
    # Where the jailer binary lives on the host must not show either.
    jailer_dir = os.path.dirname(os.path.abspath(JAILER_BIN))
    for needle in (ctx.tmpdir, jailer_dir, "jailer.sock", "jailer.conf"):
        check(needle not in sc["stdout"], "host path %r visible in /proc: %s"
              % (needle, short(" / ".join(l for l in lines(sc) if needle in l), 400)))


def test_dev_minimal(ctx):
    sc = run(ctx, "import os\nprint(' '.join(sorted(os.listdir('/dev'))))\n"
             "print(len(open('/dev/urandom', 'rb').read(16)))\n"
             "open('/dev/null', 'w').write('x')\n"
             "for p in ('/dev/mem', '/dev/kmsg', '/dev/sda', '/dev/tty', '/dev/console', "
             "'/dev/vsock', '/dev/fuse', '/dev/kvm'):\n"
             "    print(p, os.path.exists(p))\n")
    expect_status(sc, "ok")
    out = lines(sc)
    eq(out[1], "16", "/dev/urandom read")
    for line in out[2:]:
        check(line.endswith("False"), "device present: %s (all: %s)" % (line, out[0]))


# ---------------------------------------------------------------- privileges

def test_capabilities_and_ids(ctx):
    sc = run(ctx, r"""
import os
st = {}
for line in open('/proc/self/status'):
    k, _, v = line.partition(':')
    st[k] = v.strip()
for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp', 'Uid', 'Gid'):
    print(k, st.get(k))
print('ids', os.getuid(), os.geteuid(), os.getgid(), os.getegid())
print('groups', sorted(os.getgroups()))
""")
    expect_status(sc, "ok")
    d = kv(sc)
    for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        check(d.get(k) is not None and int(d[k], 16) == 0, "%s = %r" % (k, d.get(k)))
    eq(d.get("NoNewPrivs"), "1", "NoNewPrivs")
    eq(d.get("Seccomp"), "2", "Seccomp (2 = filter)")
    eq(d.get("Uid", "").split(), ["1000"] * 4, "Uid line")
    eq(d.get("Gid", "").split(), ["1000"] * 4, "Gid line")
    eq(d.get("ids"), "1000 1000 1000 1000", "uid euid gid egid")
    check("0" not in d.get("groups", "").strip("[]").replace(" ", "").split(","),
          "supplementary groups contain root: %r" % d.get("groups"))


def test_javascript_ids(ctx):
    sc = run(ctx, "console.log(process.getuid(), process.getgid(), process.pid, "
             "require('os').hostname())", "javascript")
    expect_status(sc, "ok")
    eq(sc["stdout"], "1000 1000 2 cellgate\n", "uid gid pid hostname")


def test_inherited_fds(ctx):
    sc = run(ctx, r"""
import os
listing = os.listdir('/proc/self/fd')
# The listing includes the directory fd listdir itself held; it is closed
# by now, so only fds that still exist count.
alive = []
for fd in sorted(int(x) for x in listing):
    try:
        alive.append((fd, os.readlink('/proc/self/fd/%d' % fd)))
    except OSError:
        pass
print('fds', ' '.join(str(fd) for fd, _ in alive))
for fd, target in alive:
    print('target', fd, target)
""")
    expect_status(sc, "ok")
    d = kv(sc)
    eq(d.get("fds"), "0 1 2", "open file descriptors in the sandboxed program (%s)"
       % short(sc["stdout"]))


def test_privileged_syscalls(ctx):
    sc = run(ctx, r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    e = ctypes.get_errno()
    if r == 0 and name.startswith('clone'):
        os._exit(0)   # a child that must never exist
    print(name, 'OK' if r >= 0 else errno.errorcode.get(e, e))
CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET = 0x10000000, 0x20000, 0x40000000
sc('ptrace_traceme', 101, 0, 0, 0, 0)
sc('ptrace_attach_init', 101, 16, 1, 0, 0)
sc('unshare_user', 272, CLONE_NEWUSER)
sc('unshare_ns', 272, CLONE_NEWNS)
sc('unshare_net', 272, CLONE_NEWNET)
sc('clone_newuser', 56, CLONE_NEWUSER | 17, 0, 0, 0, 0)
sc('clone3', 435, 0, 0)
r = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)
print('mount', 'OK' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
sc('umount2', 166, ctypes.addressof(ctypes.create_string_buffer(b'/proc')), 2)
sc('pivot_root', 155, 0, 0)
sc('setns', 308, 0, 0)
sc('bpf', 321, 0, 0, 0)
sc('perf_event_open', 298, 0, 0, -1, -1, 0)
sc('userfaultfd', 323, 0)
sc('keyctl', 250, 0, 0, 0, 0, 0)
sc('add_key', 248, 0, 0, 0, 0, 0)
sc('request_key', 249, 0, 0, 0, 0)
sc('io_uring_setup', 425, 1, 0)
sc('kexec_load', 246, 0, 0, 0, 0)
sc('init_module', 175, 0, 0, 0)
sc('open_by_handle_at', 304, 0, 0, 0)
sc('process_vm_readv', 310, 1, 0, 0, 0, 0, 0)
sc('swapon', 167, 0, 0)
sc('reboot', 169, 0, 0, 0, 0)
sc('acct', 163, 0)
sc('syslog', 103, 3, 0, 0)
sc('settimeofday', 164, 0, 0)
sc('clock_settime', 227, 0, 0)
sc('tiocsti_high_bits', 16, 0, 0x100005412, ctypes.addressof(ctypes.c_char(b'x')))
sc('tiocsti', 16, 0, 0x5412, ctypes.addressof(ctypes.c_char(b'x')))
sc('socket_vsock', 41, 40, 1, 0)
sc('sethostname', 170, ctypes.addressof(ctypes.create_string_buffer(b'x')), 1)
""")
    expect_status(sc, "ok")
    d = kv(sc)
    must_eperm = ("ptrace_traceme", "ptrace_attach_init", "unshare_user", "unshare_ns",
                  "unshare_net", "clone_newuser", "mount")
    for name in must_eperm:
        eq(d.get(name), "EPERM", "%s inside the cell (%s)" % (name, short(sc["stdout"])))
    eq(d.get("clone3"), "ENOSYS", "clone3 (so libc falls back to clone)")
    for name in ("umount2", "pivot_root", "setns", "bpf", "perf_event_open", "userfaultfd",
                 "keyctl", "add_key", "request_key", "io_uring_setup", "kexec_load",
                 "init_module", "open_by_handle_at", "process_vm_readv", "swapon", "reboot",
                 "acct", "syslog", "settimeofday", "clock_settime", "tiocsti_high_bits",
                 "tiocsti", "socket_vsock", "sethostname"):
        check(d.get(name) in ("EPERM", "ENOSYS", "EACCES", "EAFNOSUPPORT"),
              "%s: %r (expected denied with EPERM/ENOSYS)" % (name, d.get(name)))
    check(d.get("tiocsti_high_bits") in ("EPERM", "ENOSYS"),
          "TIOCSTI with high bits set passed the filter (CVE-2019-10063): %r"
          % d.get("tiocsti_high_bits"))


def test_setuid_binary_gains_nothing(ctx):
    # no_new_privs + nosuid: running a setuid-root binary (if the host has
    # one under /usr) does not change our ids.
    sc = run(ctx, r"""
import os, subprocess
cands = [p for p in ('/usr/bin/passwd', '/usr/bin/su', '/usr/bin/mount', '/usr/bin/newgrp',
                     '/usr/bin/chfn', '/usr/bin/sudo')
         if os.path.exists(p) and os.stat(p).st_mode & 0o4000]
print('suid', ' '.join(cands) or 'none')
if cands:
    r = subprocess.run([cands[0], '--help'], capture_output=True, timeout=5)
    print('ran', r.returncode)
r = subprocess.run(['/usr/bin/python3', '-c', 'import os; print(os.geteuid())'],
                   capture_output=True, timeout=5, text=True)
print('child_euid', r.stdout.strip())
""", timeout_s=20)
    expect_status(sc, "ok")
    eq(kv(sc).get("child_euid"), "1000", "euid of a child process")


def test_kill_outside_pid_namespace(ctx):
    sc = run(ctx, r"""
import os, signal
print('me', os.getpid())
try:
    os.kill(-1, 0)
    print('kill-1', 'ok')
except OSError as e:
    print('kill-1', type(e).__name__)
for pid in (1,):
    try:
        os.kill(pid, signal.SIGKILL)
        print('kill1', 'sent')
    except OSError as e:
        print('kill1', type(e).__name__)
print('still', 'here')
""")
    expect_status(sc, "ok")
    eq(kv(sc).get("still"), "here", "the program survives")


# ---------------------------------------------------------------- supervisor death

def test_supervisor_sigkill(ctx):
    c = ctx.client()
    id = c.start_execute("import time\ntime.sleep(30)")
    c.collect(0.8)
    sups = children_of(ctx.jailer.pid)
    check(sups, "no supervisor process found under the jailer")
    for p in sups:
        os.kill(p, signal.SIGKILL)
    res, sc = c.finish_execute(id, 15)
    check(sc["status"] != "ok", "status after the supervisor died: %s" % describe(sc))
    check(res.get("isError") is True, "isError after the supervisor died")
    ctx.assert_clean("after the supervisor was killed")


# ---------------------------------------------------------------- seccomp kills

WRONG_ARCH = r"""
import ctypes, mmap
libc = ctypes.CDLL(None, use_errno=True)
print('before', flush=True)
if WHICH == 'x32':
    r = libc.syscall(ctypes.c_long(0x40000000 | 39))   # x32 getpid
else:
    code = bytes([0xb8, 0x14, 0, 0, 0, 0xcd, 0x80, 0xc3])  # mov eax,20; int 0x80; ret
    buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(code)
    r = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))()
print('after', r, flush=True)
"""


def test_wrong_arch_syscall_x32(ctx):
    sc = run(ctx, WRONG_ARCH.replace("WHICH", "'x32'"))
    expect_status(sc, "seccomp")
    eq(sc["stdout"], "before\n", "the program must die at the x32 syscall")
    eq(sc["signal"], 31, "signal (SIGSYS)")


def test_wrong_arch_syscall_i386(ctx):
    sc = run(ctx, WRONG_ARCH.replace("WHICH", "'i386'"))
    # Killed by the arch check (seccomp), or refused by a kernel without
    # ia32 emulation (SIGSEGV); never executed.
    check(sc["status"] == "seccomp" or (sc["status"] == "signal" and sc["signal"] == 11),
          "int 0x80 getpid: %s" % describe(sc))
    eq(sc["stdout"], "before\n", "the program must die at the i386 syscall")


def test_seccomp_status_in_cli(ctx):
    f = ctx.write("x32.py", WRONG_ARCH.replace("WHICH", "'x32'"))
    p = ctx.cli([f])
    eq(p.returncode, 128 + 31, "cellgate run exit code of a seccomp kill")
    check(b"status=seccomp" in p.stderr, "summary: %r" % short(p.stderr))


# ---------------------------------------------------------------- jailer death

def test_jailer_sigkill_mid_job(ctx):
    c = ctx.client()
    id = c.start_execute("import time\ntime.sleep(1.5)\nprint('finished')")
    c.collect(0.5)
    os.kill(ctx.jailer.pid, signal.SIGKILL)
    ctx.jailer.proc.wait(5)
    ctx.allow_dead_jailer = True
    # The running job is supervised by its own process: it ends (either
    # way) and is answered; nothing is left afterwards.
    res, sc = c.finish_execute(id, 20)
    check(sc["status"] in ("ok", "internal", "cancelled"), "job after the jailer died: %s"
          % describe(sc))
    ctx.assert_clean("after the jailer was killed")
    # A new execute has no jailer: an isError answer, never a hang or a crash.
    res = c.call_tool("execute", {"code": "print(1)"}, timeout=20)
    check(res.get("isError") is True, "execute without a jailer: %s" % short(json.dumps(res)))
    eq(c.result("ping"), {}, "ping with the jailer gone")
