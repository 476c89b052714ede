#!/usr/bin/python3
"""Runs the attack corpus: every case under tests/attacks/cases/ against a real
cellgate-jailer and gateway ($BUILD, default "build", relative to the repo).

  /usr/bin/python3 tests/attacks/run.py [-k PATTERN]... [-x] [--list | --table]
                                        [--cases DIR]

A case is a file (one job) or a directory with case.conf (several jobs, run
concurrently or in sequence through one gateway); the file header declares
what must hold, see tests/attacks/README.md.  Each case gets its own jailer
(tests/integration/harness.py) and is run by the integration suite's
run_test, whose teardown checks that the jailer and gateways are alive and
exit cleanly, and that no process, cgroup or host mount of a job is left.
Before that, whatever the jobs showed, the runner checks that the attack
left nothing behind, and that the same gateway and then a fresh one still
run print(1).

Prints `ok NAME`, `xfail NAME: reason`, `FAIL NAME: reason` or `skip NAME:
reason` per case and, last, `RESULT passed=N failed=N skipped=N` (an expected
failure counts as skipped; one that unexpectedly passes is a failure, so the
marker is removed once the product is fixed).  Exits 0 iff none failed.
CELLGATE_ATTACK_VERBOSE=1 prints every job's result; CELLGATE_IT_TIMES=1 the
time of every case.  Must run as root (the jailer needs it).  Cases run one
after the other: each starts its own jailer, and the concurrent ones must
not be disturbed by others.
"""
import argparse
import importlib.util
import json
import os
import re
import signal
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
INTEGRATION = os.path.join(os.path.dirname(HERE), "integration")
sys.path.insert(0, INTEGRATION)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import harness  # noqa: E402
from harness import TestFailure, check, describe, eq, short  # noqa: E402


def _load_integration_runner():
    spec = importlib.util.spec_from_file_location("integration_run",
                                                  os.path.join(INTEGRATION, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


it_run = _load_integration_runner()

LANGUAGES = {".py": "python", ".js": "javascript"}
STATUSES = set(harness.STATUSES)
# Keys a job header may hold; those in REPEATABLE may appear more than once.
JOB_KEYS = {"attack", "status", "exit_code", "signal", "stdout", "stdout~", "stderr", "stderr~",
            "stdout_has", "stdout_lacks", "stderr_has", "stderr_lacks", "where", "stdout_len",
            "stderr_len", "stdout_truncated", "stderr_truncated", "wall_ms", "cpu_ms", "timeout_s",
            "stdin", "case_timeout", "xfail", "xfail_match", "host_listener", "host_absent",
            "gateway_hwm_mib", "action", "via", "cli_exit", "cli_stderr_has", "start_after",
            "arguments", "rejected", "stdout_each~", "stderr_each~", "jsonrpc_error",
            "stdout_json", "stderr_json"}
CASE_KEYS = {"attack", "mode", "overlap", "case_timeout", "xfail", "xfail_match"}
REPEATABLE = {"stdout", "stdout~", "stderr", "stderr~", "stdout_has", "stdout_lacks",
              "stderr_has", "stderr_lacks", "where", "host_absent", "cli_stderr_has"}
HEADER_RE = re.compile(r"^(?:#|//) ?([a-z_]+~?): ?(.*)$")
WHERE_RE = re.compile(r"^(\w+) *(<=|<|>=|>|==|!=) *(-?\d+)$")
RANGE_RE = re.compile(r"^(\d+)\.\.(\d+)$")
DEFAULT_CASE_TIMEOUT = 60
OUTPUT_CAP = 1 << 20  # default_output of the built-in profiles


class CaseError(Exception):
    """A malformed case file: reported as a failure of that case."""


# ---------------------------------------------------------------- loading

def parse_header(path):
    """The leading comment block of a file as {key: value or [values]}.
    Comment lines that are not `key: value` are prose and ignored."""
    keys = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not (line.startswith("#") or line.startswith("//")):
                break
            m = HEADER_RE.match(line)
            if not m:
                continue
            k, v = m.group(1), m.group(2).rstrip()
            if k in REPEATABLE:
                keys.setdefault(k, []).append(v)
            elif k in keys:
                raise CaseError("%s: key %r given twice" % (path, k))
            else:
                keys[k] = v
    return keys


def validate_job(path, h):
    unknown = set(h) - JOB_KEYS
    if unknown:
        raise CaseError("%s: unknown header key(s) %s" % (path, ", ".join(sorted(unknown))))
    if "rejected" not in h and "jsonrpc_error" not in h:
        if "status" not in h:
            raise CaseError("%s: no `status:` line" % path)
        for s in h["status"].split("|"):
            if s.strip() not in STATUSES:
                raise CaseError("%s: unknown status %r" % (path, s.strip()))
    for w in h.get("where", []):
        if not WHERE_RE.match(w):
            raise CaseError("%s: bad `where: %s` (NAME OP INTEGER)" % (path, w))
    for k in ("wall_ms", "cpu_ms"):
        if k in h and not RANGE_RE.match(h[k]):
            raise CaseError("%s: %s must be LOW..HIGH" % (path, k))
    for k in ("stdout~", "stderr~"):
        for rx in h.get(k, []):
            try:
                re.compile(rx)
            except re.error as e:
                raise CaseError("%s: bad regex %r: %s" % (path, rx, e))


def validate_case_conf(path, h):
    unknown = set(h) - CASE_KEYS
    if unknown:
        raise CaseError("%s: unknown key(s) %s" % (path, ", ".join(sorted(unknown))))
    if "attack" not in h:
        raise CaseError("%s: no `attack:` line" % path)
    if h.get("mode") not in ("concurrent", "sequential"):
        raise CaseError("%s: mode must be concurrent or sequential" % path)


def load_job(path):
    ext = os.path.splitext(path)[1]
    h = parse_header(path)
    validate_job(path, h)
    with open(path, encoding="utf-8") as f:
        code = f.read()
    return {"name": os.path.splitext(os.path.basename(path))[0], "path": path,
            "language": LANGUAGES[ext], "code": code, "h": h}


def discover(root=CASES):
    """[(name, category, case)] in directory order.  A case is a dict with
    `jobs` (list), `h` (case-level keys) and `mode`."""
    out = []
    for cat in sorted(os.listdir(root)):
        cdir = os.path.join(root, cat)
        if not os.path.isdir(cdir):
            continue
        for entry in sorted(os.listdir(cdir)):
            p = os.path.join(cdir, entry)
            name = "%s/%s" % (cat, entry)
            try:
                if os.path.isdir(p):
                    conf = os.path.join(p, "case.conf")
                    h = parse_header(conf)
                    validate_case_conf(conf, h)
                    jobs = [load_job(os.path.join(p, j)) for j in sorted(os.listdir(p))
                            if os.path.splitext(j)[1] in LANGUAGES]
                    if len(jobs) < 2:
                        raise CaseError("%s: a case directory needs two or more jobs" % p)
                    case = {"jobs": jobs, "h": h, "mode": h["mode"]}
                elif os.path.splitext(entry)[1] in LANGUAGES:
                    job = load_job(p)
                    if "attack" not in job["h"]:
                        raise CaseError("%s: no `attack:` line" % p)
                    case = {"jobs": [job], "h": job["h"], "mode": "single"}
                else:
                    continue
            except (CaseError, OSError, UnicodeDecodeError) as e:
                case = {"error": str(e), "jobs": [], "h": {}, "mode": "broken"}
            out.append((name, cat, case))
    return out


# ---------------------------------------------------------------- host side

def host_values(ctx):
    with open("/proc/1/cmdline", "rb") as f:
        init = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    return {"TMPDIR": ctx.tmpdir, "JAILER_DIR": os.path.dirname(os.path.abspath(
        harness.JAILER_BIN)), "REPO": harness.REPO, "HOST_HOSTNAME": socket.gethostname(),
        "HOST_INIT": init, "UID_BASE": str(ctx.uid_base)}


def expand(text, values):
    return re.sub(r"@@([A-Z_]+)@@", lambda m: values.get(m.group(1), m.group(0)), text)


class Listener:
    """A TCP listener on the host's loopback that no job may reach."""

    def __init__(self):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(8)
        self.s.setblocking(False)
        self.port = self.s.getsockname()[1]

    def accepted(self):
        try:
            conn, _ = self.s.accept()
            conn.close()
            return True
        except BlockingIOError:
            return False

    def close(self):
        self.s.close()


def gateway_hwm_mib(client):
    try:
        with open("/proc/%d/status" % client.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError):
        pass
    return -1.0


def wait_new_uid(ctx, before, timeout=5.0):
    """The outside uid of a job that has just started (not in `before`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = [u for u in harness.sandbox_uids_running(ctx.uid_base) if u not in before]
        if new:
            return new[0]
        time.sleep(0.02)
    raise TestFailure("the job did not show up on the host within %.0f s" % timeout)


def host_pids_of_uid(ctx, uid):
    return sorted(pid for pid, u, _c in harness.processes_in_uid_range(ctx.uid_base,
                                                                       harness.uid_span())
                  if u == uid)


# ---------------------------------------------------------------- checking one job

def split_timing(text):
    """Lines starting with '@' carry timestamps for the overlap check and
    are left out of every other comparison."""
    timing, rest = [], []
    for line in text.split("\n"):
        (timing if line.startswith("@") else rest).append(line)
    return timing, "\n".join(rest)


def check_lines(text, lits_and_res, what, vars_):
    """lits_and_res: [(kind, value)] in header order, kind "=" or "~"."""
    got = text.split("\n")
    if got and got[-1] == "":
        got.pop()
    want = "\n".join(("  %s %s" % (k, v)) for k, v in lits_and_res)
    if len(got) != len(lits_and_res):
        raise TestFailure("%s has %d line(s), expected %d:\n%s\n  got: %s"
                          % (what, len(got), len(lits_and_res), want, short(text, 600)))
    for i, ((kind, v), line) in enumerate(zip(lits_and_res, got)):
        if kind == "=":
            if line != v:
                raise TestFailure("%s line %d: expected %r, got %r (all: %s)"
                                  % (what, i + 1, v, short(line), short(text, 600)))
        else:
            m = re.fullmatch(v, line)
            if not m:
                raise TestFailure("%s line %d: %r does not match /%s/ (all: %s)"
                                  % (what, i + 1, short(line), v, short(text, 600)))
            vars_.update(m.groupdict())


def ordered_lines(job, stream):
    """The header's stdout/stdout~ (or stderr) lines in file order."""
    out = []
    with open(job["path"], encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not (line.startswith("#") or line.startswith("//")):
                break
            m = HEADER_RE.match(line)
            if m and m.group(1) in (stream, stream + "~"):
                out.append(("~" if m.group(1).endswith("~") else "=", m.group(2).rstrip()))
    return out


def check_job(job, res, sc, values):
    h = job["h"]
    what = job["name"]
    if os.environ.get("CELLGATE_ATTACK_VERBOSE"):
        print("#   %s: %s" % (what, describe(sc)), flush=True)
    statuses = [s.strip() for s in h["status"].split("|")]
    if sc.get("status") not in statuses:
        raise TestFailure("%s: expected status %s, got %s" % (what, " or ".join(statuses),
                                                             describe(sc)))
    # isError is true for anything but a clean exit, and then says why.
    bad = sc["status"] != "ok"
    eq(bool(res.get("isError")), bad, "%s: isError for status %s" % (what, sc["status"]))
    if bad:
        content = res.get("content") or []
        check(len(content) >= 2 and content[1].get("text"),
              "%s: an error result has no second text block: %s" % (what, short(json.dumps(res))))
    for stream in ("stdout", "stderr"):  # never more than the default cap per stream
        check(len(sc[stream].encode("utf-8", "surrogatepass")) <= OUTPUT_CAP * 3
              and len(sc[stream]) <= OUTPUT_CAP,
              "%s: %s of %d characters passed the 1 MiB cap" % (what, stream, len(sc[stream])))
    for key in ("exit_code", "signal"):
        if key in h:
            want = None if h[key] == "null" else int(h[key])
            eq(sc.get(key), want, "%s: %s (%s)" % (what, key, describe(sc)))
    timing, stdout = split_timing(sc["stdout"])
    _, stderr = split_timing(sc["stderr"])
    vars_ = {}
    for stream, text in (("stdout", stdout), ("stderr", stderr)):
        lines = ordered_lines(job, stream)
        if lines:
            check_lines(text, lines, "%s: %s" % (what, stream), vars_)
        if stream + "_json" in h:  # exact text, as a JSON string literal
            eq(text, json.loads(h[stream + "_json"]), "%s: %s" % (what, stream))
        if stream + "_each~" in h:
            rx = re.compile(h[stream + "_each~"])
            got = text.split("\n")
            if got[-1] == "":
                got.pop()
            check(got, "%s: %s is empty" % (what, stream))
            bad = [l for l in got if not rx.fullmatch(l)]
            check(not bad, "%s: %d %s line(s) do not match /%s/, e.g. %r" % (
                what, len(bad), stream, rx.pattern, short(bad[0] if bad else "")))
        for needle in h.get(stream + "_has", []):
            needle = expand(needle, values)
            check(needle in text, "%s: %s lacks %r: %s" % (what, stream, needle,
                                                           short(text, 600)))
        for needle in h.get(stream + "_lacks", []):
            needle = expand(needle, values)
            if needle and needle in text:
                at = text.index(needle)
                raise TestFailure("%s: %s contains %r: ...%s..." % (
                    what, stream, needle, short(text[max(0, at - 150):at + 150], 400)))
        if stream + "_len" in h:
            eq(len(sc[stream]), int(h[stream + "_len"]), "%s: %s length" % (what, stream))
        if stream + "_truncated" in h:
            eq(sc[stream + "_truncated"], h[stream + "_truncated"] == "true",
               "%s: %s_truncated" % (what, stream))
    for w in h.get("where", []):
        name, op, num = WHERE_RE.match(w).groups()
        check(name in vars_ and vars_[name] is not None,
              "%s: `where: %s` names no matched group" % (what, w))
        val, num = int(vars_[name]), int(num)
        ok = {"<": val < num, "<=": val <= num, ">": val > num, ">=": val >= num,
              "==": val == num, "!=": val != num}[op]
        check(ok, "%s: %s = %d, expected %s %d (stdout %s)" % (what, name, val, op, num,
                                                             short(stdout, 300)))
    for k in ("wall_ms", "cpu_ms"):
        if k in h:
            lo, hi = (int(x) for x in RANGE_RE.match(h[k]).groups())
            check(lo <= sc[k] <= hi, "%s: %s %d not in %d..%d" % (what, k, sc[k], lo, hi))
    return timing


def check_overlap(spec, timings):
    """`overlap: b in a`: every `@probe T` of job b lies inside an
    `@window START END` of job a, so the jobs really ran at the same time."""
    m = re.fullmatch(r"(\w+) in (\w+)", spec)
    if not m:
        raise CaseError("overlap must be `PROBER in HOLDER`")
    prober, holder = m.groups()
    windows = [tuple(float(x) for x in l.split()[1:3]) for l in timings.get(holder, [])
               if l.startswith("@window ") and len(l.split()) == 3]
    probes = [float(l.split()[1]) for l in timings.get(prober, []) if l.startswith("@probe ")]
    check(windows, "job %s printed no complete `@window START END`" % holder)
    check(probes, "job %s printed no `@probe T`" % prober)
    for t in probes:
        check(any(s <= t <= e for s, e in windows),
              "job %s probed at %.3f, outside job %s's window(s) %r: the jobs did not "
              "overlap, the case proves nothing" % (prober, t, holder, windows))


# ---------------------------------------------------------------- actions

def do_action(ctx, client, spec):
    """Host-side actions while a job runs.  Returns what the after-checks
    must expect: "normal" or "jailer-dead"."""
    what, _, delay = spec.partition(" ")
    client.collect(float(delay or 0.5))
    if what == "kill-supervisors":
        sups = harness.children_of(ctx.jailer.pid)
        check(sups, "no supervisor process found under the jailer")
        for p in sups:
            os.kill(p, signal.SIGKILL)
        return "normal"
    if what == "kill-jailer":
        os.kill(ctx.jailer.pid, signal.SIGKILL)
        ctx.jailer.proc.wait(5)
        ctx.allow_dead_jailer = True
        return "jailer-dead"
    raise CaseError("unknown action %r" % what)


# ---------------------------------------------------------------- running a case

def execute_params(job, values, extra_values=None):
    h = job["h"]
    vals = dict(values, **(extra_values or {}))
    if "arguments" in h:
        return json.loads(expand(h["arguments"], vals))
    args = {"code": expand(job["code"], vals), "language": job["language"]}
    if "timeout_s" in h:
        args["timeout_s"] = float(h["timeout_s"]) if "." in h["timeout_s"] \
            else int(h["timeout_s"])
    if "stdin" in h:
        args["stdin"] = json.loads(h["stdin"])  # a JSON string literal
    return args


def start_job(client, args):
    # ensure_ascii: a lone surrogate in a case (\ud800) travels as the
    # escape a hostile client would send, not as bytes Python cannot encode.
    id = client.new_id()
    msg = {"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "execute", "arguments": args}}
    client.send_raw((json.dumps(msg, ensure_ascii=True) + "\n").encode("ascii"))
    return id


def finish_job(client, id, timeout):
    msg = client.response(id, timeout)
    if "error" in msg:
        raise TestFailure("tools/call execute: JSON-RPC error %r" % (msg["error"],))
    res = msg["result"]
    if res.get("isError") and res.get("structuredContent") is None:
        try:
            json.loads(res["content"][0]["text"])
        except (ValueError, KeyError, IndexError, TypeError):
            return res, None  # refused before any job ran
    return res, harness.structured(res, client.version)


def check_rejected(job, res, sc):
    check(sc is None, "%s: expected the request to be refused, but a job ran: %s"
          % (job["name"], describe(sc) if sc else ""))
    eq(res.get("isError"), True, "%s: isError of a refused request" % job["name"])
    texts = [b.get("text", "") for b in res.get("content", []) if b.get("type") == "text"]
    check(any(len(t) > 5 for t in texts), "%s: the refusal says nothing" % job["name"])
    needle = job["h"]["rejected"]
    check(any(needle in t for t in texts), "%s: the refusal does not mention %r: %r"
          % (job["name"], needle, texts))


def check_jsonrpc_error(job, client, id):
    """A request the gateway cannot even parse: a JSON-RPC error (id null
    when the id itself could not be read), no job, and no reply later."""
    code = int(job["h"]["jsonrpc_error"])
    msg = client.recv(10, lambda m: "error" in m and m.get("id") in (id, None))
    eq(msg["error"].get("code"), code, "%s: JSON-RPC error code (%s)" % (
        job["name"], short(json.dumps(msg))))
    late = [m for m in client.collect(0.5) if m.get("id") == id]
    check(not late, "%s: a reply for the refused request came later: %s"
          % (job["name"], short(json.dumps(late))))


def run_cli_job(ctx, job, values):
    h = job["h"]
    f = ctx.write(os.path.basename(job["path"]), expand(job["code"], values))
    p = ctx.cli([f], timeout=60)
    eq(p.returncode, int(h["cli_exit"]), "%s: `cellgate run` exit code" % job["name"])
    for needle in h.get("cli_stderr_has", []):
        check(needle.encode() in p.stderr, "%s: `cellgate run` stderr lacks %r: %r"
              % (job["name"], needle, short(p.stderr)))


AFTER = "after the attack: "


def after_checks(ctx, client, state, hosts_absent, listener):
    """The host, the gateway and the next job are unaffected.  Raises with
    a message starting with AFTER."""
    try:
        if listener is not None:
            check(not listener.accepted(), "the host's loopback listener got a connection")
        for p in hosts_absent:
            check(not os.path.lexists(p), "the job created %s on the host" % p)
        check(client.alive(), "the gateway died: %s" % harness.tail(client.stderr_path))
        if state == "jailer-dead":
            ctx.assert_clean("after the jailer was killed")
            # No jailer: an isError answer, never a hang or a crash.
            res = client.call_tool("execute", {"code": "print(1)"}, timeout=20)
            check(res.get("isError") is True, "execute without a jailer: %s"
                  % short(json.dumps(res)))
            eq(client.result("ping"), {}, "ping with the jailer gone")
            return
        ctx.assert_clean()
        _, sc = client.execute("print(1)", timeout=30)
        eq((sc["status"], sc["stdout"]), ("ok", "1\n"), "the same gateway's next job, print(1)")
        _, sc = ctx.client().execute("print(1)", timeout=30)
        eq((sc["status"], sc["stdout"]), ("ok", "1\n"), "a fresh gateway's job, print(1)")
    except TestFailure as e:
        raise TestFailure(AFTER + str(e))


def run_case(ctx, case):
    """Runs the jobs and checks them; whatever they showed, the after-checks
    run too (an expected failure must still leave the system unharmed)."""
    values = host_values(ctx)
    values["JAILER_PID"] = str(ctx.jailer.pid)
    jobs = case["jobs"]
    listener = Listener() if any(j["h"].get("host_listener") == "yes" for j in jobs) else None
    if listener:
        values["PORT"] = str(listener.port)
    hosts_absent = [p for j in jobs for p in j["h"].get("host_absent", [])]
    for p in hosts_absent:
        if os.path.lexists(p):
            raise harness.Skip("%s exists on the host before the case" % p)
    failure = None
    try:
        client = ctx.client()
        values["GATEWAY_PID"] = str(client.proc.pid)
        state = "normal"
        try:
            timings = {}
            if case["mode"] == "concurrent":
                run_concurrent(ctx, client, jobs, values, timings)
            else:
                state = run_sequence(ctx, client, jobs, values, timings)
            if "overlap" in case["h"]:
                check_overlap(case["h"]["overlap"], timings)
        except TestFailure as e:
            failure = e
            # Let a job that is still running end before the after-checks.
            client.collect(0.2)
        try:
            after_checks(ctx, client, state, hosts_absent, listener)
        except TestFailure as e:
            if failure is None:
                raise
            raise TestFailure("%s [%s]" % (failure, e))
        if failure is not None:
            raise failure
    finally:
        if listener:
            listener.close()


def run_sequence(ctx, client, jobs, values, timings):
    state = "normal"
    for job in jobs:
        if job["h"].get("via") == "cli":
            run_cli_job(ctx, job, values)
            continue
        id = start_job(client, execute_params(job, values))
        if "jsonrpc_error" in job["h"]:
            check_jsonrpc_error(job, client, id)
            continue
        if "action" in job["h"]:
            state = do_action(ctx, client, job["h"]["action"])
        res, sc = finish_job(client, id, 60)
        if "rejected" in job["h"]:
            check_rejected(job, res, sc)
            continue
        check(sc is not None, "%s: refused: %s" % (job["name"], short(json.dumps(res))))
        timings[job["name"]] = check_job(job, res, sc, values)
        if "gateway_hwm_mib" in job["h"] and not gateway_sanitized():
            hwm = gateway_hwm_mib(client)
            check(0 < hwm <= float(job["h"]["gateway_hwm_mib"]),
                  "%s: the gateway's peak RSS is %.1f MiB (at most %s allowed): it "
                  "buffered the flood" % (job["name"], hwm, job["h"]["gateway_hwm_mib"]))
    return state


_sanitized = None


def gateway_sanitized():
    """Whether the gateway is an AddressSanitizer build (make asan).  Its
    RSS then holds ASan's quarantine of freed memory (256 MiB by default),
    so a bound on it says nothing; the normal build checks it."""
    global _sanitized
    if _sanitized is None:
        with open(harness.GATEWAY_BIN, "rb") as f:
            _sanitized = b"__asan_init" in f.read()
    return _sanitized


def run_concurrent(ctx, client, jobs, values, timings):
    """All jobs through one gateway at once.  A job with `start_after: X`
    starts once X is seen running on the host, and may name X's host pids
    as @@PIDS_OF_X@@.  Every job is answered before any is checked."""
    ids, extra = {}, {}
    by_name = {j["name"]: j for j in jobs}
    needed = {j["h"]["start_after"] for j in jobs if "start_after" in j["h"]}
    for n in needed:
        if n not in by_name:
            raise CaseError("start_after names no job %r" % n)
    order = sorted(jobs, key=lambda j: "start_after" in j["h"])
    for job in order:
        before = harness.sandbox_uids_running(ctx.uid_base)
        ids[job["name"]] = start_job(client, execute_params(job, values, extra))
        if job["name"] in needed:
            uid = wait_new_uid(ctx, before)
            time.sleep(0.1)  # let the interpreter start under init
            extra["PIDS_OF_" + job["name"].upper()] = " ".join(
                str(p) for p in host_pids_of_uid(ctx, uid))
    results = [(job, finish_job(client, ids[job["name"]], 60)) for job in order]
    for job, (res, sc) in results:
        check(sc is not None, "%s: refused: %s" % (job["name"], short(json.dumps(res))))
        timings[job["name"]] = check_job(job, res, sc, values)


def case_fn(case):
    def fn(ctx):
        if "error" in case:
            raise TestFailure("bad case: " + case["error"])
        run_case(ctx, case)
    timeouts = [int(j["h"].get("case_timeout", 0)) for j in case["jobs"]]
    fn.timeout = max([int(case["h"].get("case_timeout", DEFAULT_CASE_TIMEOUT))] + timeouts)
    return fn


def languages(case):
    """The languages the case's jobs run in; "-" for requests refused
    before any job ran."""
    langs = {"-" if ("rejected" in j["h"] or "jsonrpc_error" in j["h"]) else j["language"]
             for j in case["jobs"]}
    return ",".join(sorted(langs)) or "?"


def statuses(case):
    return ",".join(j["h"].get("status") or ("rejected" if "rejected" in j["h"] else
                                             "jsonrpc-error " + j["h"].get("jsonrpc_error", "?"))
                    for j in case["jobs"]) or "?"


def print_table(cases):
    print("| case | §7 category | language | jobs | expected status | expected failure |")
    print("|---|---|---|---|---|---|")
    for name, cat, case in cases:
        print("| %s | %s | %s | %s | %s | %s |" % (
            name, cat, languages(case), case["mode"], statuses(case),
            case["h"].get("xfail", "") or "; ".join(j["h"].get("xfail", "")
                                                    for j in case["jobs"]).strip("; ")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", action="append", default=[], metavar="PATTERN")
    ap.add_argument("-x", action="store_true", help="stop at the first failure")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--table", action="store_true", help="print the corpus as a table")
    ap.add_argument("--cases", default=CASES, metavar="DIR",
                    help="another corpus directory (to try new cases)")
    opts = ap.parse_args()

    cases = discover(opts.cases)
    if opts.k:
        cases = [c for c in cases if any(p in c[0] for p in opts.k)]
    if opts.list:
        for name, _cat, case in cases:
            print("%s\t%s\t%s" % (name, languages(case), statuses(case)))
        return 0
    if opts.table:
        print_table(cases)
        return 0

    signal.signal(signal.SIGALRM, it_run.on_alarm)
    setup_error = None
    if os.geteuid() != 0:
        setup_error = "must run as root (the jailer needs it)"
    else:
        missing = [p for p in (harness.JAILER_BIN, harness.GATEWAY_BIN)
                   if not os.access(p, os.X_OK)]
        if missing:
            setup_error = "not built: %s (run make)" % ", ".join(missing)
    if setup_error:
        print("FAIL setup: %s" % setup_error)
        print("RESULT passed=0 failed=1 skipped=0")
        return 1

    passed = failed = skipped = xfailed = 0
    tag = str(os.getpid())
    started = time.monotonic()
    for name, _cat, case in cases:
        xfail = case["h"].get("xfail") or next(
            (j["h"]["xfail"] for j in case["jobs"] if "xfail" in j["h"]), None)
        match = case["h"].get("xfail_match") or next(
            (j["h"]["xfail_match"] for j in case["jobs"] if "xfail_match" in j["h"]), None)
        t0 = time.monotonic()
        outcome, reason = it_run.run_test(name, case_fn(case), False, tag)
        dt = time.monotonic() - t0
        reason = it_run.one_line(reason)
        if xfail and outcome == "FAIL":
            # Strict: the case must fail for the stated reason, and the
            # after-test checks (leftovers, dead processes) must still pass.
            if match and match in reason and AFTER not in reason \
                    and "after the test:" not in reason:
                outcome = "xfail"
                kept = re.search(r"\(logs kept in (\S+)\)", reason)
                if kept and os.path.basename(kept.group(1)).startswith("cellgate-it-"):
                    harness._rmtree(kept.group(1))
                reason = reason.split(" (logs kept in ")[0]
            else:
                reason = "expected failure (%s) but it failed otherwise: %s" % (xfail, reason)
        elif xfail and outcome == "ok":
            outcome, reason = "FAIL", ("passed although marked as an expected failure (%s): "
                                       "remove the marker" % xfail)
        if outcome == "ok":
            passed += 1
            print("ok %s" % name, flush=True)
        elif outcome == "xfail":
            skipped += 1
            xfailed += 1
            print("xfail %s: %s [got: %s]" % (name, xfail, short(reason, 300)), flush=True)
        elif outcome == "skip":
            skipped += 1
            print("skip %s: %s" % (name, reason), flush=True)
        else:
            failed += 1
            print("FAIL %s: %s" % (name, reason), flush=True)
        if os.environ.get("CELLGATE_IT_TIMES"):
            print("#   %.2f s" % dt, flush=True)
        if failed and opts.x:
            break
    print("# %d case(s) in %.1f s, %d expected failure(s) counted as skipped"
          % (passed + failed + skipped, time.monotonic() - started, xfailed))
    print("RESULT passed=%d failed=%d skipped=%d" % (passed, failed, skipped), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
