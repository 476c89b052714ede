"""Faults (issue 4): crashes of the jailer, of a job's supervisor and of the
gateway while jobs run; a jailer that answers garbage; a full disk under the
audit log; a client that goes away mid-job.  Each must lose nothing: every
job is answered (as `internal` when the crash took it), nothing of a job is
left on the host, and the next start sweeps what a crash could leave."""
import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import threading
import time

from harness import GATEWAY_BIN, check, describe, eq, short
from http_harness import ACCEPT_BOTH, Gateway, new_key

SLEEPER = "import time\nprint('started', flush=True)\ntime.sleep(30)\nprint('finished')"


def wait_for(pred, timeout, what, step=0.05):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        check(time.monotonic() < deadline, "%s: not within %.1f s" % (what, timeout))
        time.sleep(step)


def running_job_cgroups(ctx):
    return [p for p in ctx.leftovers() if "cgroup" in p]


def test_jailer_crash_loses_jobs_as_internal_and_restart_sweeps(ctx):
    """SIGKILL of the jailer and every supervisor (its whole process group)
    while two jobs run: both are answered `internal`; the crash leaves job
    cgroups behind, and the next jailer start sweeps them; the same gateway
    reconnects and runs the next job."""
    c = ctx.client()
    ids = [c.start_execute(SLEEPER, timeout_s=30) for _ in range(2)]
    wait_for(lambda: len(running_job_cgroups(ctx)) >= 2, 15, "two jobs running")
    time.sleep(0.3)
    os.killpg(ctx.jailer.pid, signal.SIGKILL)
    ctx.jailer.proc.wait(5)
    for id in ids:
        _res, sc = c.finish_execute(id, 30)
        eq(sc["status"], "internal", "a job lost to the crash: %s" % describe(sc))
        check("finished" not in sc["stdout"], "the lost job ran on: %s" % describe(sc))
    ctx.jailer.start()
    ctx.assert_clean("after the jailer restarted")
    _res, sc = c.execute("print('again')", timeout=30)
    eq((sc["status"], sc["stdout"]), ("ok", "again\n"),
       "the same gateway after the jailer restarted: %s" % describe(sc))


def test_gateway_sigkill_kills_its_jobs(ctx):
    """SIGKILL of a gateway (stdio and HTTP) while its jobs run: the jobs die
    with it (their control connection closes) and nothing is left."""
    c = ctx.client()
    c.start_execute(SLEEPER, timeout_s=30)
    wait_for(lambda: running_job_cgroups(ctx), 15, "the stdio gateway's job running")
    os.kill(c.proc.pid, signal.SIGKILL)
    c.proc.wait(5)
    ctx.allow_dead_gateway.add(c.name)
    ctx.assert_clean("after SIGKILL of the stdio gateway")

    gw = Gateway(ctx)
    h = gw.client()
    h.initialize()
    conn = gw.connect(timeout=60)
    body = json.dumps(h.execute_msg(SLEEPER))
    conn.request("POST", "/mcp", body, h.headers())
    wait_for(lambda: running_job_cgroups(ctx), 15, "the HTTP gateway's job running")
    os.kill(gw.proc.pid, signal.SIGKILL)
    gw.proc.wait(5)
    ctx.allow_dead_gateway.add(gw.name)
    conn.close()
    ctx.assert_clean("after SIGKILL of the HTTP gateway")


def test_supervisor_sigkill_is_internal(ctx):
    """SIGKILL of one job's supervisor: that job is answered `internal`, its
    cell is gone, and a job running beside it is unaffected."""
    c = ctx.client()
    victim = c.start_execute(SLEEPER, timeout_s=30)
    wait_for(lambda: running_job_cgroups(ctx), 15, "the first job running")
    sups = wait_for(lambda: [p for p in children_of_pid(ctx.jailer.pid)], 5, "a supervisor")
    other = c.start_execute("import time\ntime.sleep(1.5)\nprint('other ok')", timeout_s=30)
    time.sleep(0.3)
    os.kill(sups[0], signal.SIGKILL)
    _res, sc = c.finish_execute(victim, 30)
    eq(sc["status"], "internal", "the job whose supervisor was killed: %s" % describe(sc))
    _res, sc = c.finish_execute(other, 30)
    eq((sc["status"], sc["stdout"]), ("ok", "other ok\n"), "the job beside it: %s"
       % describe(sc))
    ctx.assert_clean("after SIGKILL of a supervisor")


def children_of_pid(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(d))
    return sorted(out)


class GarbageProxy:
    """A SEQPACKET proxy between a gateway and the real jailer that passes
    everything (descriptors included) except the answer to the first RUN,
    which it replaces with garbage."""

    def __init__(self, ctx):
        self.path = os.path.join(ctx.tmpdir, "proxy.sock")
        self.target = ctx.sock
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.srv.bind(self.path)
        self.srv.listen(8)
        self.garbled = threading.Event()
        self.stop = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.stop:
            try:
                a, _ = self.srv.accept()
            except OSError:
                return
            b = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            b.connect(self.target)
            threading.Thread(target=self.pump, args=(a, b, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(b, a, True), daemon=True).start()

    def pump(self, src, dst, from_jailer):
        seen_hello = False
        while True:
            try:
                data, anc, _flags, _addr = src.recvmsg(1 << 20, socket.CMSG_SPACE(64 * 4))
            except OSError:
                data = b""
            if not data:
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                return
            fds = []
            for level, typ, payload in anc:
                if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                    n = len(payload) // 4
                    fds.extend(int.from_bytes(payload[i * 4:i * 4 + 4], "little")
                               for i in range(n))
            if from_jailer and seen_hello and not self.garbled.is_set():
                self.garbled.set()
                for fd in fds:
                    os.close(fd)
                dst.send(secrets.token_bytes(64))
                continue
            seen_hello = seen_hello or from_jailer
            try:
                if fds:
                    dst.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                          b"".join(fd.to_bytes(4, "little") for fd in fds))])
                else:
                    dst.send(data)
            except OSError:
                pass
            for fd in fds:
                os.close(fd)

    def close(self):
        self.stop = True
        self.srv.close()


def test_jailer_answering_garbage(ctx):
    """A jailer whose answer to a job is garbage: that job is answered
    `internal` (isError), the gateway drops the connection, reconnects for
    the next job and runs it; nothing is left."""
    proxy = GarbageProxy(ctx)
    try:
        err = os.path.join(ctx.tmpdir, "gateway-garbage.log")
        with open(err, "ab") as errf:
            proc = subprocess.Popen([GATEWAY_BIN, "--stdio", "--jailer-socket", proxy.path],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=errf, close_fds=True, start_new_session=True)
        from harness import McpClient
        c = McpClient(proc, "gateway-garbage")
        c.stderr_path = err
        ctx.gateways.append(c)
        c.initialize()
        res = c.call_tool("execute", {"code": "print('first')"}, timeout=30)
        check(proxy.garbled.is_set(), "the proxy never saw a RUN answer")
        check(res.get("isError") is True, "a job answered with garbage: %s"
              % short(json.dumps(res)))
        sc = res.get("structuredContent") or {}
        eq(sc.get("status"), "internal", "status of the garbled job (%s)" % short(json.dumps(res)))
        _res, sc = c.execute("print('second')", timeout=30)
        eq((sc["status"], sc["stdout"]), ("ok", "second\n"), "the next job: %s" % describe(sc))
        ctx.assert_clean("after a garbled answer")
    finally:
        proxy.close()


def test_audit_disk_full_refuses_jobs(ctx):
    """The audit log's file system fills up: jobs are refused (503), never
    run unaudited; /healthz says so; the chain written so far verifies."""
    mnt = os.path.join(ctx.tmpdir, "auditfs")
    os.mkdir(mnt)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mnt],
                   check=True)
    try:
        audit = os.path.join(mnt, "audit.jsonl")
        gw = Gateway(ctx, audit={"file": audit})
        c = gw.client()
        c.initialize()
        _status, _h, body = c.post(c.execute_msg("print('audited')"))
        check(b"audited" in body, "execute with room in the audit fs: %s" % short(body))
        # Fill what is left.
        fd = os.open(os.path.join(mnt, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        try:
            while True:
                os.write(fd, b"\0")
        except OSError:
            pass
        os.close(fd)
        # The last page of the file may still hold a record or two; from
        # then on every job is refused, and every job that did run has
        # its job.start on disk.
        ran, statuses = [], []
        for i in range(30):
            code = "print(%r)" % ("RAN-%d-%s" % (i, secrets.token_hex(4)))
            status, _h, body = c.post(c.execute_msg(code))
            statuses.append(status)
            if b"RAN-%d-" % i in body:
                ran.append(hashlib.sha256(code.encode()).hexdigest())
            if status == 503:
                break
        eq(statuses[-1], 503, "execute with the audit fs full (all: %r)" % statuses)
        with open(audit) as f:
            started = {r.get("code_sha256") for r in map(json.loads, f)
                       if r.get("event") == "job.start"}
        for sha in ran:
            check(sha in started, "a job ran without a job.start record (code %s)" % sha)
        eq(gw.raw("GET", "/healthz")[0], 503, "/healthz with the audit fs full")
        gw.stop()
        p = subprocess.run([GATEWAY_BIN, "audit", "verify", audit], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        eq(p.returncode, 0, "audit verify after a full disk: %s" % p.stdout.decode()[-300:])
    finally:
        subprocess.run(["umount", "-l", mnt])
    ctx.assert_clean("after the audit fs filled")


def test_http_client_disconnects_mid_job(ctx):
    """A client that goes away during a job: the job is not cancelled (MCP:
    disconnection is not cancellation), it ends within its own limits, is
    audited, and nothing of it is left."""
    gw = Gateway(ctx, audit=True)
    c = gw.client()
    c.initialize()
    conn = gw.connect(timeout=30)
    code = "import time\nprint('begun', flush=True)\ntime.sleep(1)\nprint('done')"
    conn.request("POST", "/mcp", json.dumps(c.execute_msg(code)), c.headers())
    wait_for(lambda: running_job_cgroups(ctx), 15, "the job running")
    conn.close()

    def ended():
        try:
            with open(gw.audit_file) as f:
                return any(json.loads(l).get("event") == "job.end" for l in f if l.strip())
        except OSError:
            return False
    wait_for(ended, 20, "job.end in the audit log after the client left")
    ctx.assert_clean("after the client left mid-job")
    eq(gw.raw("GET", "/healthz")[0], 200, "healthz after the client left")
    # A bad key meanwhile changes nothing.
    status, _h, _b = gw.raw("POST", "/mcp", b"{}", {"Authorization": "Bearer " + new_key(),
                                                    "Content-Type": "application/json",
                                                    "Accept": ACCEPT_BOTH})
    eq(status, 401, "a bad key")
