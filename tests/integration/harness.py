"""Integration harness: a real cellgate-jailer and cellgate gateway per test.

Pieces:
  Jailer      starts BUILD/cellgate-jailer --listen SOCK --policy FILE with a
              policy derived from etc/jailer.conf (own uid range, own cgroup
              parent "cellgate-test-<tag>"), waits for the socket, stops it.
  Gateway     starts BUILD/cellgate --stdio --jailer-socket SOCK.
  McpClient   JSON-RPC over the gateway's stdio.  Every line read from the
              gateway's stdout must be strict UTF-8 and valid JSON, or the
              test fails (stdout is the protocol channel and nothing else).
  Ctx         what a test function receives: a started jailer, gateways on
              demand, and the after-test checks (everything alive, then
              nothing left: no process in the job uid range, no job cgroup,
              no supervisor child of the jailer).

Run as a program, it starts or stops a jailer for other suites (interop):
  harness.py jailer-start DIR [TAG]   prints the socket path
  harness.py jailer-stop DIR          stops it, checks for leftovers (exit 1)
Stdlib only.
"""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(REPO, os.environ.get("BUILD", "build"))
JAILER_BIN = os.path.join(BUILD, "cellgate-jailer")
GATEWAY_BIN = os.path.join(BUILD, "cellgate")
EXAMPLE_POLICY = os.path.join(REPO, "etc", "jailer.conf")
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
CGROUP_FS = "/sys/fs/cgroup"

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST = VERSIONS[0]
STRUCTURED_VERSIONS = ("2025-11-25", "2025-06-18")
STATUSES = ("ok", "exit", "signal", "timeout", "memory", "output_limit", "seccomp",
            "cancelled", "internal")
RESULT_KEYS = {"status": str, "exit_code": (int, type(None)), "signal": (int, type(None)),
               "stdout": str, "stderr": str, "stdout_truncated": bool,
               "stderr_truncated": bool, "wall_ms": int, "cpu_ms": int,
               "memory_peak_bytes": int, "execution_id": str}

MAX_JOBS = 64       # max_jobs in the test policy
UID_COUNT = 256     # uid_count in the test policy
CLEANUP_WAIT_S = 2.5  # how long the product gets to clean up after a job


class TestFailure(AssertionError):
    pass


class Skip(Exception):
    pass


class TestTimeout(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


def eq(got, want, what):
    if got != want:
        raise TestFailure("%s: expected %r, got %r" % (what, want, short(got)))


def short(v, n=300):
    s = v if isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[:n] + "...(%d chars)" % len(s)


def tail(path, n=15):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        return " | ".join(lines[-n:])
    except OSError:
        return ""


# ---------------------------------------------------------------- policy

def test_uid_base(tag):
    """A uid range of our own, so a jailer of another run on this host
    (default base 2000000000) never looks like our leftover, nor we like its."""
    return 2001000000 + (int(tag) % 1000) * 1024


def make_policy(tag, extra_global=None):
    """etc/jailer.conf with [global] uid/gid base, limits and cgroup_root
    replaced.  Returns the text."""
    base = test_uid_base(tag)
    overrides = {"uid_base": str(base), "gid_base": str(base), "uid_count": str(UID_COUNT),
                 "max_jobs": str(MAX_JOBS), "cgroup_root": "cellgate-test-%s" % tag}
    overrides.update(extra_global or {})
    try:
        with open(EXAMPLE_POLICY) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = ["[global]"]
    out, section, done = [], None, set()
    for line in lines:
        s = line.strip()
        if s.startswith("["):
            if section == "global":
                out.extend("%s = %s" % (k, v) for k, v in overrides.items() if k not in done)
                done.update(overrides)
            section = s.strip("[]").strip()
        elif section == "global" and "=" in s and not s.startswith(("#", ";")):
            key = s.split("=", 1)[0].strip()
            if key in overrides:
                out.append("%s = %s" % (key, overrides[key]))
                done.add(key)
                continue
        out.append(line)
    if section == "global":
        out.extend("%s = %s" % (k, v) for k, v in overrides.items() if k not in done)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- leak checks

def cgroup_parents(tag):
    return [os.path.join(CGROUP_FS, c, "cellgate-test-%s" % tag) for c in V1_CONTROLLERS]


def proc_uid(pid):
    try:
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("Uid:"):
                    return [int(x) for x in line.split()[1:]]
    except (OSError, ValueError):
        return None
    return None


def proc_comm(pid):
    try:
        with open("/proc/%s/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


def processes_in_uid_range(base, count):
    """[(pid, uid, comm)] of processes with any uid in [base, base+count)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        uids = proc_uid(pid)
        if not uids:
            continue
        hit = [u for u in uids if base <= u < base + count]
        if hit:
            found.append((int(pid), hit[0], proc_comm(pid)))
    return found


def job_cgroups(tag):
    """Paths of job-* cgroups under the test cgroup parents."""
    found = []
    for parent in cgroup_parents(tag):
        try:
            found.extend(os.path.join(parent, d) for d in os.listdir(parent)
                         if d.startswith("job-"))
        except FileNotFoundError:
            pass
    return found


def children_of(pid):
    kids = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                kids.extend(int(x) for x in f.read().split())
    except (OSError, ValueError):
        pass
    return kids


def uid_span():
    return max(UID_COUNT, 2 * MAX_JOBS)


def leftovers(tag, jailer_pid=None):
    """Human-readable list of what is left of jobs right now."""
    problems = []
    base = test_uid_base(tag)
    for pid, uid, comm in processes_in_uid_range(base, uid_span()):
        problems.append("process %d (%s) uid %d (slot %d) still running"
                        % (pid, comm, uid, (uid - base) // 2))
    for cg in job_cgroups(tag):
        problems.append("job cgroup %s still exists" % cg)
    if jailer_pid:
        for kid in children_of(jailer_pid):
            problems.append("jailer child %d (%s) still running" % (kid, proc_comm(kid)))
    return problems


def host_mounts():
    """The host mount table as a set of (mount point, fs type, source): a
    cell's mounts live in its own namespace and must never appear here."""
    mounts = set()
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(fields) >= 5 and len(rfields) >= 2:
                mounts.add((fields[4], rfields[0], rfields[1]))
    return mounts


def wait_no_leftovers(tag, jailer_pid=None, timeout=CLEANUP_WAIT_S):
    deadline = time.monotonic() + timeout
    while True:
        problems = leftovers(tag, jailer_pid)
        if not problems or time.monotonic() >= deadline:
            return problems
        time.sleep(0.05)


def force_cleanup(tag):
    """After a detected leak: kill and remove what is left so that the next
    test starts clean.  Never touches anything outside our uid range and
    our own cgroup parents."""
    base = test_uid_base(tag)
    for _ in range(3):
        for pid, _uid, _comm in processes_in_uid_range(base, uid_span()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for cg in job_cgroups(tag):
            try:
                with open(os.path.join(cg, "cgroup.procs")) as f:
                    for pid in f.read().split():
                        try:
                            os.kill(int(pid), signal.SIGKILL)
                        except OSError:
                            pass
            except OSError:
                pass
        time.sleep(0.2)
        for cg in job_cgroups(tag):
            try:
                os.rmdir(cg)
            except OSError:
                pass


def remove_cgroup_parents(tag):
    problems = []
    for parent in cgroup_parents(tag):
        if not os.path.isdir(parent):
            continue
        for attempt in range(20):
            try:
                os.rmdir(parent)
                break
            except FileNotFoundError:
                break
            except OSError as e:
                if attempt == 19:
                    problems.append("cannot remove %s: %s" % (parent, e))
                time.sleep(0.1)
    return problems


# ---------------------------------------------------------------- processes

def stop_process(proc, sig=signal.SIGTERM, timeout=5.0):
    """Signal, wait, then SIGKILL.  Returns True if it exited on `sig`."""
    if proc.poll() is not None:
        return True
    try:
        proc.send_signal(sig)
    except OSError:
        pass
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        return False


class Jailer:
    def __init__(self, tmpdir, tag, extra_global=None):
        self.tmpdir = tmpdir
        self.tag = str(tag)
        self.sock = os.path.join(tmpdir, "jailer.sock")
        self.policy = os.path.join(tmpdir, "jailer.conf")
        self.log = os.path.join(tmpdir, "jailer.log")
        self.uid_base = test_uid_base(self.tag)
        fd = os.open(self.policy, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(make_policy(self.tag, extra_global))
        self.proc = None

    def start(self, detach=False, socket_activated=False):
        if not os.access(JAILER_BIN, os.X_OK):
            raise Skip("%s not built" % JAILER_BIN)
        cmd = [JAILER_BIN, "--listen", self.sock, "--policy", self.policy]
        if socket_activated:
            # systemd's own tool binds the socket and execs the jailer with
            # it as fd 3 (LISTEN_FDS=1) on the first connection, exactly as
            # cellgate-jailer.socket would.
            if not shutil.which("systemd-socket-activate"):
                raise Skip("systemd-socket-activate not installed")
            cmd = ["systemd-socket-activate", "--seqpacket", "-l", self.sock,
                   JAILER_BIN, "--policy", self.policy]
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(cmd,
                                     stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                     start_new_session=True, close_fds=True)
        logf.close()
        deadline = time.monotonic() + 10
        while True:
            if self.proc.poll() is not None:
                raise TestFailure("jailer exited with %s at start: %s"
                                  % (self.proc.returncode, tail(self.log)))
            if self._connectable():
                return self
            if time.monotonic() > deadline:
                raise TestFailure("jailer socket not ready after 10 s: %s" % tail(self.log))
            time.sleep(0.02)

    def _connectable(self):
        if not os.path.exists(self.sock):
            return False
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            s.connect(self.sock)
            return True
        except OSError:
            return False
        finally:
            s.close()

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is None:
            return True
        return stop_process(self.proc, signal.SIGTERM, 5.0)


class ProtocolViolation(TestFailure):
    pass


class McpClient:
    """One gateway process spoken to over stdio."""

    def __init__(self, proc, name="gateway"):
        self.proc = proc
        self.name = name
        self.buf = b""
        self.stash = []      # messages read but not consumed yet
        self.received = []   # every message, in order
        self.next_id = 1
        self.version = None
        self.eof = False
        self.stderr_path = ""
        os.set_blocking(proc.stdout.fileno(), False)
        os.set_blocking(proc.stdin.fileno(), False)

    # -- sending
    def send(self, obj):
        self.send_raw((json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"))

    def send_raw(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        deadline = time.monotonic() + 20
        while view:
            _, w, _ = select.select([], [fd], [], 0.2)
            if w:
                try:
                    n = os.write(fd, view[:65536])
                except BlockingIOError:
                    n = 0
                except BrokenPipeError:
                    raise TestFailure("%s closed its stdin (exit %s): %s"
                                      % (self.name, self.proc.poll(), tail(self.stderr_path)))
                view = view[n:]
            # Drain our side meanwhile so a gateway that answers while we
            # write (e.g. a too-large line) never deadlocks with us.
            self._read_available(0)
            if time.monotonic() > deadline:
                raise TestFailure("%s: writing to stdin blocked for 20 s" % self.name)

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def new_id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def send_request(self, method, params=None, id=None):
        if id is None:
            id = self.new_id()
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    # -- receiving
    def _parse_line(self, line):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ProtocolViolation("%s wrote a line that is not UTF-8 (%s): %r"
                                    % (self.name, e, line[:200]))
        try:
            msg = json.loads(text)
        except ValueError as e:
            raise ProtocolViolation("%s wrote a non-JSON line on stdout (%s): %r"
                                    % (self.name, e, text[:200]))
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            raise ProtocolViolation("%s wrote a line that is not a JSON-RPC 2.0 message: %r"
                                    % (self.name, text[:200]))
        try:  # no lone surrogates smuggled in as \\ud8xx escapes
            json.dumps(msg, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ProtocolViolation("%s wrote JSON with a lone surrogate: %r"
                                    % (self.name, text[:200]))
        self.received.append(msg)
        return msg

    def _read_available(self, wait):
        """Read what is there (waiting up to `wait` s for something) and
        parse complete lines into the stash."""
        if self.eof:
            return
        fd = self.proc.stdout.fileno()
        r, _, _ = select.select([fd], [], [], max(0.0, wait))
        if not r:
            return
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                self.eof = True
                break
            self.buf += chunk
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                raise ProtocolViolation("%s wrote an empty line on stdout" % self.name)
            self.stash.append(self._parse_line(line))

    def recv(self, timeout=10.0, match=None):
        """Next message (satisfying `match` if given), or TestFailure."""
        deadline = time.monotonic() + timeout
        while True:
            for i, msg in enumerate(self.stash):
                if match is None or match(msg):
                    return self.stash.pop(i)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TestFailure("%s: no message%s within %.1f s; gateway stderr: %s"
                                  % (self.name, "" if match is None else " matching",
                                     timeout, tail(self.stderr_path)))
            if self.eof:
                raise TestFailure("%s: stdout closed (exit %s) while waiting; stderr: %s"
                                  % (self.name, self.proc.poll(), tail(self.stderr_path)))
            self._read_available(min(left, 0.5))

    def response(self, id, timeout=10.0):
        return self.recv(timeout, lambda m: "id" in m and m["id"] == id and
                         ("result" in m or "error" in m))

    def collect(self, seconds):
        """Everything that arrives within `seconds` (left in the stash too)."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self.eof:
                return list(self.stash)
            self._read_available(min(left, 0.2))

    def request(self, method, params=None, timeout=10.0):
        """Send a request, return the whole response message."""
        return self.response(self.send_request(method, params), timeout)

    def result(self, method, params=None, timeout=10.0):
        msg = self.request(method, params, timeout)
        if "error" in msg:
            raise TestFailure("%s: JSON-RPC error %r" % (method, msg["error"]))
        return msg["result"]

    def error(self, method, params=None, timeout=10.0):
        msg = self.request(method, params, timeout)
        if "error" not in msg:
            raise TestFailure("%s %s: expected a JSON-RPC error, got result %s"
                              % (method, short(json.dumps(params)), short(msg.get("result"))))
        return msg["error"]

    # -- MCP
    def initialize(self, version=LATEST, send_initialized=True):
        res = self.result("initialize", {"protocolVersion": version, "capabilities": {},
                                         "clientInfo": {"name": "cellgate-it",
                                                        "version": "0"}})
        self.version = res.get("protocolVersion")
        if send_initialized:
            self.notify("notifications/initialized")
        return res

    def call_tool(self, name, arguments=None, timeout=30.0):
        """tools/call; returns the CallToolResult (fails on a JSON-RPC error)."""
        params = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.result("tools/call", params, timeout)

    def execute(self, code, language=None, timeout_s=None, stdin=None, timeout=40.0):
        """Run code; returns (CallToolResult, structured result dict)."""
        args = execute_args(code, language, timeout_s, stdin)
        res = self.call_tool("execute", args, timeout)
        return res, structured(res, self.version)

    def start_execute(self, code, language=None, timeout_s=None, stdin=None, id=None):
        params = {"name": "execute", "arguments": execute_args(code, language, timeout_s, stdin)}
        return self.send_request("tools/call", params, id)

    def finish_execute(self, id, timeout=40.0):
        msg = self.response(id, timeout)
        if "error" in msg:
            raise TestFailure("tools/call execute: JSON-RPC error %r" % (msg["error"],))
        return msg["result"], structured(msg["result"], self.version)

    def alive(self):
        return self.proc.poll() is None

    def close(self, timeout=8.0):
        """Close stdin (the client goes away), read the rest of stdout (it
        must still be valid JSON lines), wait for exit.  Returns a list of
        problems."""
        problems = []
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        deadline = time.monotonic() + timeout
        try:
            while not self.eof and time.monotonic() < deadline:
                self._read_available(0.2)
        except ProtocolViolation as e:
            problems.append(str(e))
        if self.buf:
            problems.append("%s: stdout ended with an incomplete line %r" % (self.name,
                                                                              self.buf[:100]))
        try:
            self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            problems.append("%s did not exit within %.0f s of stdin EOF" % (self.name, timeout))
            stop_process(self.proc, signal.SIGKILL)
        try:
            self.proc.stdout.close()
        except OSError:
            pass
        return problems


def execute_args(code, language=None, timeout_s=None, stdin=None):
    args = {"code": code}
    if language is not None:
        args["language"] = language
    if timeout_s is not None:
        args["timeout_s"] = timeout_s
    if stdin is not None:
        args["stdin"] = stdin
    return args


def structured(res, version):
    """The execute outcome: structuredContent, or (before 2025-06-18) the
    JSON in the first text block."""
    check(isinstance(res, dict), "tools/call result is not an object: %r" % (res,))
    sc = res.get("structuredContent")
    if version in STRUCTURED_VERSIONS or version is None:
        check(isinstance(sc, dict), "execute result has no structuredContent: %s"
              % short(json.dumps(res)))
    if sc is None:
        content = res.get("content") or []
        check(content and content[0].get("type") == "text",
              "execute result has no text block: %s" % short(json.dumps(res)))
        try:
            sc = json.loads(content[0]["text"])
        except ValueError:
            raise TestFailure("first text block is not JSON: %s" % short(content[0]["text"]))
        check(isinstance(sc, dict), "first text block is not a JSON object")
    check(sc.get("status") in STATUSES, "unknown status %r in %s" % (sc.get("status"),
                                                                       short(json.dumps(sc))))
    return sc


def describe(sc):
    """One line for failure messages."""
    keys = ("status", "exit_code", "signal", "stdout_truncated", "wall_ms")
    d = {k: sc.get(k) for k in keys}
    d["stdout"] = short(sc.get("stdout", ""), 200)
    d["stderr"] = short(sc.get("stderr", ""), 300)
    return json.dumps(d, ensure_ascii=False)


def expect_status(sc, status, what=""):
    if sc.get("status") != status:
        raise TestFailure("%sexpected status %r, got %s" % (what + ": " if what else "", status,
                                                             describe(sc)))


# ---------------------------------------------------------------- per-test context

class Ctx:
    """What a test gets.  The jailer is started before the test; gateways
    are started on demand; finish() checks and tears everything down."""

    def __init__(self, name, tag, followup=False, extra_global=None):
        self.name = name
        self.tag = str(tag)
        self.followup = followup
        self.tmpdir = tempfile.mkdtemp(prefix="cellgate-it-")
        os.chmod(self.tmpdir, 0o700)
        self.jailer = Jailer(self.tmpdir, self.tag, extra_global)
        self.gateways = []
        self.mounts_before = host_mounts()
        self.allow_dead_jailer = False
        self.allow_dead_gateway = set()

    @property
    def uid_base(self):
        return self.jailer.uid_base

    @property
    def sock(self):
        return self.jailer.sock

    def start(self, socket_activated=False):
        if not os.access(GATEWAY_BIN, os.X_OK):
            raise Skip("%s not built" % GATEWAY_BIN)
        self.jailer.start(socket_activated=socket_activated)
        return self

    def gateway(self, extra_args=()):
        """A started gateway, not initialized."""
        n = len(self.gateways)
        err = os.path.join(self.tmpdir, "gateway%d.log" % n)
        errf = open(err, "ab")
        proc = subprocess.Popen([GATEWAY_BIN, "--stdio", "--jailer-socket", self.sock]
                                + list(extra_args), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=errf, close_fds=True,
                                start_new_session=True)
        errf.close()
        c = McpClient(proc, "gateway%d" % n)
        c.stderr_path = err
        self.gateways.append(c)
        return c

    def client(self, version=LATEST):
        """A started, initialized gateway."""
        c = self.gateway()
        c.initialize(version)
        return c

    def cli(self, args, stdin=None, timeout=30.0):
        """Run `cellgate run ...`; returns CompletedProcess (bytes)."""
        cmd = [GATEWAY_BIN, "run", "--jailer-socket", self.sock] + list(args)
        try:
            p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TestFailure("%s did not finish within %.0f s" % (" ".join(cmd), timeout))
        with open(os.path.join(self.tmpdir, "cli.log"), "ab") as f:
            f.write(p.stderr)
        return p

    def write(self, name, text):
        path = os.path.join(self.tmpdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def leftovers(self):
        return leftovers(self.tag, self.jailer.pid if self.jailer.alive() else None)

    def wait_clean(self, timeout=CLEANUP_WAIT_S):
        return wait_no_leftovers(self.tag, self.jailer.pid if self.jailer.alive() else None,
                                 timeout)

    def assert_clean(self, what="", timeout=CLEANUP_WAIT_S):
        problems = self.wait_clean(timeout)
        if problems:
            raise TestFailure("%sleft behind: %s" % (what + ": " if what else "",
                                                     "; ".join(problems[:6])))

    def finish(self, test_passed):
        """After-test checks, then teardown.  Returns a list of problems
        (empty when all is well).  Always tears down."""
        problems = []
        try:
            if self.jailer.proc is not None and not self.jailer.alive() \
                    and not self.allow_dead_jailer:
                problems.append("jailer died (exit %s): %s" % (self.jailer.proc.returncode,
                                                               tail(self.jailer.log)))
            for c in self.gateways:
                if not c.alive() and c.name not in self.allow_dead_gateway:
                    problems.append("%s died (exit %s): %s" % (c.name, c.proc.returncode,
                                                               tail(c.stderr_path)))
            if self.followup and test_passed and not problems and self.jailer.alive():
                problems.extend(self._followup())
            for c in self.gateways:
                was_alive = c.alive()
                problems.extend(c.close() if was_alive else c.close(timeout=1.0))
                if was_alive and c.proc.returncode != 0:
                    problems.append("%s exited %s after stdin EOF (expected 0): %s"
                                    % (c.name, c.proc.returncode, tail(c.stderr_path, 5)))
            # With the jailer still running: the product must have cleaned
            # up every job by itself (a closed gateway kills its jobs).
            if self.jailer.proc is not None:
                left = self.wait_clean()
                problems.extend(left)
                if left:
                    force_cleanup(self.tag)
            if self.jailer.proc is not None and self.jailer.alive():
                if not self.jailer.stop():
                    problems.append("jailer did not exit on SIGTERM within 5 s")
                elif self.jailer.proc.returncode != 0:
                    problems.append("jailer exited %s on SIGTERM (expected 0): %s"
                                    % (self.jailer.proc.returncode, tail(self.jailer.log, 5)))
            left = wait_no_leftovers(self.tag, None, 1.0)
            problems.extend("after jailer stop: " + p for p in left)
            for m in sorted(host_mounts() - self.mounts_before):
                problems.append("mount left on the host: %s (%s from %s)" % m)
            if left:
                force_cleanup(self.tag)
        finally:
            for c in self.gateways:
                if c.proc.poll() is None:
                    stop_process(c.proc, signal.SIGKILL)
            if self.jailer.proc is not None and self.jailer.proc.poll() is None:
                stop_process(self.jailer.proc, signal.SIGKILL)
            problems.extend(remove_cgroup_parents(self.tag))
            problems.extend(sanitizer_reports(self.tmpdir))
            if test_passed and not problems and not os.environ.get("CELLGATE_TEST_KEEP"):
                _rmtree(self.tmpdir)
        return problems

    def _followup(self):
        """The system still works after the test: a fresh gateway runs print(1)."""
        try:
            c = self.client()
            _, sc = c.execute("print(1)", timeout=30)
            if sc.get("status") != "ok" or sc.get("stdout") != "1\n":
                return ["follow-up print(1) after the test: %s" % describe(sc)]
        except (TestFailure, OSError) as e:
            return ["follow-up print(1) after the test failed: %s" % e]
        return []


SANITIZER_MARKERS = (b"AddressSanitizer", b"LeakSanitizer", b"UndefinedBehaviorSanitizer",
                     b"runtime error:", b"ThreadSanitizer")


def sanitizer_reports(tmpdir):
    """ASan/UBSan/LSan reports in the logs of the jailer, its supervisors
    and the gateways (the build-asan run depends on this)."""
    found = []
    for name in sorted(os.listdir(tmpdir)):
        if not name.endswith(".log"):
            continue
        try:
            with open(os.path.join(tmpdir, name), "rb") as f:
                data = f.read()
        except OSError:
            continue
        for m in SANITIZER_MARKERS:
            i = data.find(m)
            if i >= 0:
                line = data[max(0, data.rfind(b"\n", 0, i) + 1):data.find(b"\n", i)]
                found.append("sanitizer report in %s: %s" % (name, line.decode("utf-8",
                                                                                "replace")))
                break
    return found


def _rmtree(path):
    for root, dirs, files in os.walk(path, topdown=False):
        for f in files:
            try:
                os.unlink(os.path.join(root, f))
            except OSError:
                pass
        for d in dirs:
            try:
                os.rmdir(os.path.join(root, d))
            except OSError:
                pass
    try:
        os.rmdir(path)
    except OSError:
        pass


# ---------------------------------------------------------------- host helpers

def sandbox_uids_running(uid_base):
    """Outside uids of sandboxed programs (uid_base + 2*slot + 1) now running."""
    return sorted({uid for _pid, uid, _c in processes_in_uid_range(uid_base, uid_span())
                   if (uid - uid_base) % 2 == 1})


# ---------------------------------------------------------------- CLI mode

def _cli(argv):
    if len(argv) >= 2 and argv[0] == "jailer-start":
        tmpdir = argv[1]
        tag = argv[2] if len(argv) > 2 else str(os.getpid())
        os.makedirs(tmpdir, exist_ok=True)
        j = Jailer(tmpdir, tag)
        try:
            j.start()
        except (TestFailure, Skip) as e:
            print("jailer-start: %s" % e, file=sys.stderr)
            return 1
        with open(os.path.join(tmpdir, "jailer.pid"), "w") as f:
            f.write("%d %s\n" % (j.pid, tag))
        print(j.sock)
        return 0
    if len(argv) == 2 and argv[0] == "jailer-stop":
        tmpdir = argv[1]
        try:
            with open(os.path.join(tmpdir, "jailer.pid")) as f:
                pid_s, tag = f.read().split()
        except (OSError, ValueError) as e:
            print("jailer-stop: %s" % e, file=sys.stderr)
            return 1
        pid = int(pid_s)
        problems = wait_no_leftovers(tag, pid)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            problems.append("jailer %d was not running at stop" % pid)
        deadline = time.monotonic() + 5
        while os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
            try:  # not our child any more: just watch /proc (it may be a zombie of init)
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().split(")")[-1].split()[0] == "Z":
                        break
            except OSError:
                break
            time.sleep(0.05)
        else:
            if os.path.exists("/proc/%d" % pid):
                problems.append("jailer did not exit on SIGTERM")
                os.kill(pid, signal.SIGKILL)
        problems.extend(wait_no_leftovers(tag, None, 1.0))
        if problems:
            force_cleanup(tag)
        problems.extend(remove_cgroup_parents(tag))
        for p in problems:
            print("leftover: %s" % p)
        return 1 if problems else 0
    print("usage: harness.py jailer-start DIR [TAG] | jailer-stop DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_cli(sys.argv[1:]))
