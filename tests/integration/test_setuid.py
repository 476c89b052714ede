"""The setuid helper mode: an unprivileged `cellgate --stdio` with no jailer
socket starts an installed 4750 root:<group> cellgate-jailer on a socketpair
(`--fd 3`).  Checks that it works for a member of the group, that nobody
else can execute it, that setuid mode refuses every option but --fd, and
that the jailer's default policy then admits only the calling user."""
import os
import shutil
import subprocess
import tempfile
import time

from harness import GATEWAY_BIN, JAILER_BIN, McpClient, Skip, check, eq, short

NOBODY = 65534
NOGROUP = 65534
DEFAULT_UID_BASE = 2000000000
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")


def install_setuid():
    """A root-owned 0755 directory with the gateway and a 4750 root:nogroup
    jailer, as `make install-setuid` would lay them out."""
    d = tempfile.mkdtemp(prefix="cellgate-suid-", dir="/var/tmp")
    os.chmod(d, 0o755)
    gw = os.path.join(d, "cellgate")
    jl = os.path.join(d, "cellgate-jailer")
    shutil.copy(GATEWAY_BIN, gw)
    shutil.copy(JAILER_BIN, jl)
    os.chmod(gw, 0o755)
    os.chown(jl, 0, NOGROUP)
    os.chmod(jl, 0o4750)
    st = os.stat(jl)
    if not st.st_mode & 0o4000:
        shutil.rmtree(d)
        raise Skip("the file system drops the setuid bit")
    return d, gw, jl


def as_user(uid, gid, argv):
    return ["setpriv", "--reuid=%d" % uid, "--regid=%d" % gid, "--clear-groups", "--"] + argv


def own_v1_parents():
    """Where a jailer started from this process puts job cgroups by default."""
    parents = []
    for line in open("/proc/self/cgroup"):
        _, ctrls, path = line.rstrip("\n").split(":", 2)
        for c in ctrls.split(","):
            if c in V1_CONTROLLERS:
                parents.append("/sys/fs/cgroup/%s%s/cellgate" % (c, path.rstrip("/")))
    return parents


def job_cgroups_left():
    left = []
    for p in own_v1_parents():
        if os.path.isdir(p):
            left += [os.path.join(p, e) for e in os.listdir(p) if e.startswith("job-")]
    return left


def processes_in_default_range():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/status" % pid) as f:
                for line in f:
                    if line.startswith("Uid:"):
                        uid = int(line.split()[1])
                        if DEFAULT_UID_BASE <= uid < DEFAULT_UID_BASE + 256:
                            found.append(pid)
        except OSError:
            pass
    return found


def test_unprivileged_gateway_runs_code_through_setuid_helper(ctx):
    if os.path.exists("/etc/cellgate/jailer.conf"):
        raise Skip("a host policy exists; setuid mode would use it")
    d, gw, jl = install_setuid()
    try:
        errf = open(os.path.join(ctx.tmpdir, "setuid-gateway.log"), "ab")
        proc = subprocess.Popen(as_user(NOBODY, NOGROUP, [gw, "--stdio", "--jailer", jl]),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errf,
                                close_fds=True, start_new_session=True)
        errf.close()
        c = McpClient(proc, "setuid-gateway")
        c.initialize()
        _, sc = c.execute("import os\nprint(os.getuid(), os.geteuid())")
        eq(sc["status"], "ok", "status through the setuid helper")
        eq(sc["stdout"], "1000 1000\n", "uid inside the cell")
        _, sc = c.execute("console.log(6 * 7)", "javascript")
        eq(sc["stdout"], "42\n", "javascript through the setuid helper")
        problems = c.close()
        check(not problems, "; ".join(problems))
        # The helper serves one gateway and exits with it.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (job_cgroups_left() or
                                               processes_in_default_range()):
            time.sleep(0.05)
        eq(job_cgroups_left(), [], "job cgroups left by the setuid helper")
        eq(processes_in_default_range(), [], "job processes left by the setuid helper")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_setuid_helper_refuses_other_users_and_options(ctx):
    d, gw, jl = install_setuid()
    try:
        # Not in the group: the kernel refuses to execute it at all.
        p = subprocess.run(as_user(12345, 12345, [jl, "--fd", "3"]), capture_output=True,
                           timeout=10)
        check(p.returncode != 0, "a user outside the group ran the helper")
        # In the group, but asking for a listening socket or another policy.
        sock = os.path.join(d, "x.sock")
        for args in (["--listen", sock], ["--policy", "/dev/null", "--fd", "3"], []):
            p = subprocess.run(as_user(NOBODY, NOGROUP, [jl] + args), capture_output=True,
                               timeout=10)
            check(p.returncode != 0, "setuid helper accepted %r" % args)
            check(b"only --fd" in p.stderr, "no explanation for %r: %s" % (args, short(p.stderr)))
        check(not os.path.exists(sock), "setuid helper created a listening socket")
    finally:
        shutil.rmtree(d, ignore_errors=True)
