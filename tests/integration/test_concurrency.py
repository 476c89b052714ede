"""Concurrent jobs: all answered, separate budgets, separate outside uids,
several gateways on one jailer, abrupt client exits."""
import os
import signal
import subprocess
import time

from harness import MAX_JOBS, check, eq, expect_status, sandbox_uids_running

MIB = 1 << 20


def test_six_concurrent_jobs(ctx):
    c = ctx.client()
    ids = [c.start_execute("import time\ntime.sleep(0.5)\nprint(%d)" % i) for i in range(6)]
    seen = set()
    for i, id in enumerate(ids):
        _, sc = c.finish_execute(id, 30)
        expect_status(sc, "ok", "job %d" % i)
        eq(sc["stdout"], "%d\n" % i, "stdout of job %d" % i)
        seen.add(sc["execution_id"])
    eq(len(seen), 6, "distinct execution_ids")


def test_concurrent_mixed_languages_and_outcomes(ctx):
    c = ctx.client()
    jobs = [("print('py')", None, None, "ok", "py\n"),
            ("console.log('js')", "javascript", None, "ok", "js\n"),
            ("import sys\nsys.exit(4)", None, None, "exit", ""),
            ("while True: pass", None, 1, "timeout", ""),
            ("x = b'1' * (1 << 30)", None, None, "memory", ""),
            ("process.stdout.write('q'.repeat(3 << 20))", "javascript", None, "output_limit",
             None)]
    ids = [c.start_execute(code, lang, t) for code, lang, t, _s, _o in jobs]
    for (code, _l, _t, status, out), id in zip(jobs, ids):
        _, sc = c.finish_execute(id, 30)
        expect_status(sc, status, code[:30])
        if out is not None:
            eq(sc["stdout"], out, "stdout of %r" % code[:30])


def test_separate_memory_budgets(ctx):
    # Three jobs of 200 MiB each under a 256 MiB limit: fine only if every
    # job has its own budget (snekbox #83: a shared parent cgroup OOMs).
    c = ctx.client()
    code = ("import time\nx = b'\\x02' * (200 << 20)\ntime.sleep(1.5)\n"
            "print(len(x) >> 20)")
    ids = [c.start_execute(code) for _ in range(3)]
    for i, id in enumerate(ids):
        _, sc = c.finish_execute(id, 30)
        expect_status(sc, "ok", "200 MiB job %d" % i)
        eq(sc["stdout"], "200\n", "stdout of job %d" % i)
        check(sc["memory_peak_bytes"] >= 200 * MIB,
              "job %d memory_peak_bytes %d < 200 MiB" % (i, sc["memory_peak_bytes"]))
test_separate_memory_budgets.timeout = 90


def test_distinct_outside_uids(ctx):
    c = ctx.client()
    code = "import os, time\nprint(os.getuid(), os.geteuid(), os.getgid())\ntime.sleep(3)"
    ids = [c.start_execute(code) for _ in range(3)]
    seen = []
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline:
        seen = sandbox_uids_running(ctx.uid_base)
        if len(seen) >= 3:
            break
        time.sleep(0.05)
    for i, id in enumerate(ids):
        _, sc = c.finish_execute(id, 30)
        expect_status(sc, "ok", "job %d" % i)
        eq(sc["stdout"], "1000 1000 1000\n", "uid, euid, gid inside job %d" % i)
    check(len(seen) >= 3, "three sleeping jobs seen from the host with outside uids %r "
          "(base %d): they must be distinct" % (seen, ctx.uid_base))
    for uid in seen:
        check(ctx.uid_base < uid < ctx.uid_base + 2 * MAX_JOBS,
              "outside uid %d not in the policy's range" % uid)


def test_two_gateways_one_jailer(ctx):
    a, b = ctx.client(), ctx.client()
    ia = [a.start_execute("import time\ntime.sleep(0.3)\nprint('a%d')" % i) for i in range(3)]
    ib = [b.start_execute("console.log('b%d')" % i, "javascript") for i in range(3)]
    for i, id in enumerate(ia):
        _, sc = a.finish_execute(id, 30)
        eq((sc["status"], sc["stdout"]), ("ok", "a%d\n" % i), "gateway a job %d" % i)
    for i, id in enumerate(ib):
        _, sc = b.finish_execute(id, 30)
        eq((sc["status"], sc["stdout"]), ("ok", "b%d\n" % i), "gateway b job %d" % i)


def test_client_eof_kills_running_jobs(ctx):
    c = ctx.client()
    for _ in range(3):
        c.start_execute("import time\ntime.sleep(30)")
    c.collect(0.8)
    check(ctx.leftovers(), "the jobs are not running (nothing seen from the host)")
    problems = c.close()
    ctx.allow_dead_gateway.add(c.name)
    check(not problems, "; ".join(problems))
    ctx.assert_clean("after the client closed stdin")


def test_gateway_sigkill_kills_running_jobs(ctx):
    c = ctx.client()
    for _ in range(3):
        c.start_execute("import time\ntime.sleep(30)")
    c.collect(0.8)
    check(ctx.leftovers(), "the jobs are not running (nothing seen from the host)")
    os.kill(c.proc.pid, signal.SIGKILL)
    c.proc.wait(5)
    ctx.allow_dead_gateway.add(c.name)
    ctx.assert_clean("after SIGKILL of the gateway")
    # The jailer serves the next gateway.
    _, sc = ctx.client().execute("print(3)")
    eq((sc["status"], sc["stdout"]), ("ok", "3\n"), "execute after a gateway crash")


def test_many_jobs_in_sequence(ctx):
    c = ctx.client()
    ids = set()
    for i in range(20):
        if i % 2:
            _, sc = c.execute("console.log(%d)" % i, "javascript")
        else:
            _, sc = c.execute("print(%d)" % i)
        eq((sc["status"], sc["stdout"]), ("ok", "%d\n" % i), "job %d" % i)
        ids.add(sc["execution_id"])
    eq(len(ids), 20, "distinct execution_ids")


def test_jobs_do_not_share_loopback(ctx):
    # Each job has its own network namespace (fresh, or prepared ahead and
    # used once): a port one job listens on is not reachable from another.
    c = ctx.client()
    server = ("import socket, time\ns = socket.socket()\n"
              "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
              "s.bind(('127.0.0.1', 47011)); s.listen()\nprint('listening', flush=True)\n"
              "time.sleep(3)")
    client = ("import socket, time\ntime.sleep(0.8)\n"
              "try:\n    socket.create_connection(('127.0.0.1', 47011), timeout=1)\n"
              "    print('connected')\nexcept OSError as e:\n    print(type(e).__name__)")
    ids = [c.start_execute(server), c.start_execute(client), c.start_execute(client)]
    results = [c.finish_execute(i, 30)[1] for i in ids]
    eq(results[0]["stdout"], "listening\n", "the listening job")
    for sc in results[1:]:
        eq(sc["status"], "ok", "the connecting job")
        eq(sc["stdout"], "ConnectionRefusedError\n", "another job's loopback port")


def test_sigterm_with_unread_replies_still_exits(ctx):
    # A client that stopped reading: replies pile up in the gateway.  SIGTERM
    # must still end it (after a short grace for the queued replies), and
    # its running job must go with it.
    c = ctx.client()
    c.start_execute("import time\ntime.sleep(30)")
    # Written straight to its stdin, never reading its stdout (the client's
    # helpers would drain it): ~250 KiB of replies, far over a pipe's 64 KiB.
    blob = b"".join(b'{"jsonrpc":"2.0","id":"p%d","method":"ping"}\n' % i for i in range(5000))
    fd = c.proc.stdin.fileno()
    deadline = time.monotonic() + 10
    while blob and time.monotonic() < deadline:
        try:
            blob = blob[os.write(fd, blob[:65536]):]
        except BlockingIOError:
            time.sleep(0.01)
    check(not blob, "the gateway stopped reading requests")
    time.sleep(0.5)
    t0 = time.monotonic()
    os.kill(c.proc.pid, signal.SIGTERM)
    try:
        c.proc.wait(8)
    except subprocess.TimeoutExpired:
        raise AssertionError("the gateway did not exit within 8 s of SIGTERM")
    check(time.monotonic() - t0 > 1.0, "exited at once: the replies were not backed up")
    ctx.allow_dead_gateway.add(c.name)
    # What was still queued when the grace ran out is lost, and the pipe may
    # end inside a message: nobody was reading it.  Discard it here rather
    # than let the usual end-of-test check read it as a protocol violation.
    os.set_blocking(c.proc.stdout.fileno(), True)
    c.proc.stdout.read()
    c.buf, c.eof = b"", True
    ctx.assert_clean("after SIGTERM of a gateway whose client stopped reading")
