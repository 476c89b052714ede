"""The soak's own cellgate: a jailer and a gateway in a temporary directory.

Everything it starts is recorded so that stop() can undo it on every path:
the two processes, the job cgroups under a cgroup_root of our own, any
process left in our private range of job uids, and the directory.
"""

import ctypes
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

CGROUP_MOUNT = "/sys/fs/cgroup"
PR_SET_PDEATHSIG = 1
# Two ids per job slot; the jailer's default.
UID_COUNT = 256


def _die_with_parent():
    """Runs in the child before exec: if the soak dies (even SIGKILL), the
    kernel sends SIGTERM so no gateway or jailer outlives it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status_field(pid, name):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split()[1:]
    except OSError:
        pass
    return None


def rss_kib(pid, field="VmRSS"):
    v = _status_field(pid, field)
    return int(v[0]) if v else None


def _all_pids():
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def _ppid(pid):
    v = _status_field(pid, "PPid")
    return int(v[0]) if v else None


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def descendants(root):
    """Every live process below `root` in the process tree."""
    children = {}
    for pid in _all_pids():
        pp = _ppid(pid)
        if pp is not None:
            children.setdefault(pp, []).append(pid)
    out, todo = [], list(children.get(root, []))
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


class Stack:
    def __init__(self, repo, build, good, hostile, log=print):
        """good / hostile: dicts of tenants.conf keys (without `key`)."""
        self.repo = repo
        self.build = os.path.join(repo, build)
        self.good_conf = good
        self.hostile_conf = hostile
        self.log = log
        self.dir = self.made_dir = None
        self.jailer = None
        self.gateway = None
        self.keys = {}
        self.port = None
        tag = f"soak-{os.getpid()}-{int(time.time()) % 100000}"
        self.cgroup_root = f"cellgate-{tag}"
        # A uid range of our own, so jobs of another jailer on this host are
        # never counted as our leftovers (base >= 65536, base + count < 2^32-1).
        self.uid_base = 3000000000 + (os.getpid() % 1000000) * UID_COUNT
        self.idle_pids = set()
        self.idle_cgroups = set()

    # ----------------------------------------------------------------- start
    def start(self):
        self.dir = self.made_dir = tempfile.mkdtemp(prefix="cellgate-soak-")
        os.chmod(self.dir, 0o700)
        self._write_policy()
        self._check_policy()
        for name in ("good", "hostile"):
            self.keys[name] = self._new_key(name)
        self._write_tenants()
        self.port = _free_port()
        self._write_gateway_conf()
        self._start_jailer()
        self._start_gateway()
        self.idle_pids = set(descendants(self.jailer.pid)) | set(descendants(self.gateway.pid))
        self.idle_cgroups = set(self.cgroup_dirs())

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _write_private(self, name, text):
        fd = os.open(self._path(name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)

    def _write_policy(self):
        with open(os.path.join(self.repo, "etc", "jailer.conf")) as f:
            text = f.read()
        subst = {
            "cgroup_root": self.cgroup_root,
            "uid_base": str(self.uid_base),
            "gid_base": str(self.uid_base),
            "uid_count": str(UID_COUNT),
        }
        for key, val in subst.items():
            text, n = re.subn(rf"(?m)^{key}\s*=.*$", f"{key} = {val}", text)
            if n != 1:
                raise RuntimeError(f"etc/jailer.conf: expected one `{key} =` line, found {n}")
        self._write_private("jailer.conf", text)

    def _run(self, argv):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
        return r.stdout

    def _check_policy(self):
        self._run([os.path.join(self.build, "cellgate-jailer"), "--check", "--policy",
                   self._path("jailer.conf")])

    def _new_key(self, tenant):
        out = self._run([os.path.join(self.build, "cellgate"), "key", "new", "--tenant", tenant])
        lines = [ln for ln in out.splitlines() if ln.strip()]
        key, hash_line = lines[0].strip(), lines[-1].strip()
        if not key.startswith("cgk_") or not hash_line.startswith("key = sha256:"):
            raise RuntimeError("cellgate key new: unexpected output")
        return {"key": key, "line": hash_line}

    def _write_tenants(self):
        text = ""
        for name, conf in (("good", self.good_conf), ("hostile", self.hostile_conf)):
            text += f"[tenant {name}]\n{self.keys[name]['line']}\n"
            text += "".join(f"{k} = {v}\n" for k, v in conf.items())
        self._write_private("tenants.conf", text)

    def _write_gateway_conf(self):
        self._write_private("cellgate.conf", (
            "[gateway]\n"
            f"listen = 127.0.0.1:{self.port}\n"
            f"tenants = {self._path('tenants.conf')}\n"
            f"jailer_socket = {self._path('jailer.sock')}\n"
            "[audit]\n"
            f"file = {self._path('audit.jsonl')}\n"
            "journald = no\n"))

    def _spawn(self, argv, logname):
        logf = open(self._path(logname), "wb")
        try:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                    start_new_session=True, preexec_fn=_die_with_parent)
        finally:
            logf.close()

    def _start_jailer(self):
        sock = self._path("jailer.sock")
        self.jailer = self._spawn([os.path.join(self.build, "cellgate-jailer"), "--listen", sock,
                                   "--policy", self._path("jailer.conf")], "jailer.log")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if os.path.exists(sock):
                return
            if self.jailer.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("the jailer did not start:\n" + self.log_tail("jailer.log"))

    def _start_gateway(self):
        self.gateway = self._spawn([os.path.join(self.build, "cellgate"), "--listen",
                                    f"127.0.0.1:{self.port}", "--config",
                                    self._path("cellgate.conf")], "gateway.log")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.gateway.poll() is not None:
                break
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/healthz")
                st = c.getresponse().status
                c.close()
                if st == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the gateway did not become healthy:\n" + self.log_tail("gateway.log"))

    def log_tail(self, name, n=20):
        try:
            with open(self._path(name), errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError as e:
            return f"({name}: {e})"

    # ----------------------------------------------------------- inspection
    def rss(self, field="VmRSS"):
        return {"gateway": rss_kib(self.gateway.pid, field) if self.gateway else None,
                "jailer": rss_kib(self.jailer.pid, field) if self.jailer else None}

    def alive(self):
        return {"gateway": self.gateway is not None and self.gateway.poll() is None,
                "jailer": self.jailer is not None and self.jailer.poll() is None}

    def leftover_cgroups(self):
        """Cgroups under our root that were not there when the jailer was idle."""
        return [d for d in self.cgroup_dirs() if d not in self.idle_cgroups]

    def cgroup_dirs(self):
        """Cgroups present under our cgroup_root, in any hierarchy (v1: one
        per controller mount; v2: the unified mount)."""
        found = []
        for top in self._cgroup_roots():
            for dirpath, dirnames, _ in os.walk(top):
                found.extend(os.path.join(dirpath, d) for d in dirnames)
        return sorted(found)

    def _cgroup_roots(self):
        roots = []
        base = self.cgroup_root.lstrip("/")
        cands = [os.path.join(CGROUP_MOUNT, base)]
        try:
            cands += [os.path.join(CGROUP_MOUNT, d, base) for d in os.listdir(CGROUP_MOUNT)]
        except OSError:
            pass
        for c in cands:
            if os.path.isdir(c):
                roots.append(c)
        return roots

    def job_uid_procs(self):
        """Live processes whose real, effective, saved or fs uid is in our
        job range (a zombie has ended; its parent's tree shows it if the
        parent fails to reap it)."""
        lo, hi = self.uid_base, self.uid_base + UID_COUNT
        out = []
        for pid in _all_pids():
            uids = _status_field(pid, "Uid")
            if (uids and any(lo <= int(u) < hi for u in uids)
                    and (_status_field(pid, "State") or ["Z"])[0] != "Z"):
                out.append(pid)
        return out

    def leftover_procs(self):
        """Processes left by jobs: in the jailer's (or gateway's) tree and not
        there when idle at start, or running as one of our job uids."""
        tree = set()
        for p in (self.jailer, self.gateway):
            if p is not None and p.poll() is None:
                tree |= set(descendants(p.pid))
        pids = (tree - self.idle_pids) | set(self.job_uid_procs())
        return [{"pid": p, "uid": (_status_field(p, "Uid") or ["?"])[0], "cmd": _cmdline(p)[:120]}
                for p in sorted(pids)]

    def remains(self):
        """After stop(): what could not be removed (should be nothing)."""
        return self._cgroup_roots() + [f"pid {p}" for p in self.job_uid_procs()] + \
            ([self.made_dir] if self.made_dir and os.path.exists(self.made_dir) else [])

    # ------------------------------------------------------------------ stop
    def stop(self):
        """Undo everything; safe to call more than once and after any failure."""
        for proc in (self.gateway, self.jailer):
            if proc is None or proc.poll() is not None:
                continue
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        self._reap_jobs()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def _reap_jobs(self):
        """Kill whatever jobs remain and remove our cgroup tree, deepest first."""
        for _ in range(50):
            victims = set(self.job_uid_procs())
            for top in self._cgroup_roots():
                for dirpath, _, files in os.walk(top):
                    if "cgroup.procs" in files:
                        try:
                            with open(os.path.join(dirpath, "cgroup.procs")) as f:
                                victims |= {int(x) for x in f.read().split()}
                        except OSError:
                            pass
            victims.discard(os.getpid())
            for pid in victims:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            for top in self._cgroup_roots():
                for dirpath, _, _ in sorted(os.walk(top), key=lambda w: -len(w[0])):
                    try:
                        os.rmdir(dirpath)
                    except OSError:
                        pass
            if not victims and not self._cgroup_roots():
                return
            time.sleep(0.1)
