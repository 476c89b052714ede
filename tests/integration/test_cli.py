"""`cellgate run`: output passthrough, the summary line and exit codes."""
import os
import re
import subprocess

from harness import GATEWAY_BIN, check, eq, short

SUMMARY = re.compile(rb"^cellgate: status=(\w+)", re.M)


def summary(p):
    m = SUMMARY.findall(p.stderr)
    check(m, "no 'cellgate: status=...' summary line on stderr: %r" % short(p.stderr))
    return m[-1].decode()


def test_hello_world(ctx):
    f = ctx.write("hello.py", "print('hello world')\n")
    p = ctx.cli([f])
    eq(p.stdout, b"hello world\n", "stdout")
    eq(p.returncode, 0, "exit code")
    eq(summary(p), "ok", "summary status")


def test_exit_code_propagates(ctx):
    f = ctx.write("exit.py", "import sys\nprint('x', file=sys.stderr)\nsys.exit(7)\n")
    p = ctx.cli([f])
    eq(p.returncode, 7, "exit code")
    eq(summary(p), "exit", "summary status")
    check(p.stderr.startswith(b"x\n"), "program stderr first: %r" % short(p.stderr))


def test_javascript(ctx):
    f = ctx.write("hello.js", "console.log(6 * 7)\n")
    p = ctx.cli(["--language", "javascript", f])
    eq(p.stdout, b"42\n", "stdout")
    eq(p.returncode, 0, "exit code")


def test_timeout_124(ctx):
    f = ctx.write("loop.py", "while True: pass\n")
    p = ctx.cli(["--timeout", "1", f])
    eq(p.returncode, 124, "exit code of a timeout")
    eq(summary(p), "timeout", "summary status")


def test_signal_128_plus(ctx):
    f = ctx.write("segv.py", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    p = ctx.cli([f])
    eq(p.returncode, 128 + 11, "exit code of SIGSEGV")
    eq(summary(p), "signal", "summary status")


def test_memory_125(ctx):
    f = ctx.write("mem.py", "x = b'1' * (1 << 30)\n")
    p = ctx.cli([f])
    eq(p.returncode, 125, "exit code of a memory kill")
    eq(summary(p), "memory", "summary status")


def test_code_from_stdin(ctx):
    p = ctx.cli(["-"], stdin=b"print('from stdin')\n")
    eq(p.stdout, b"from stdin\n", "stdout")
    eq(p.returncode, 0, "exit code")


def test_bad_usage(ctx):
    p = ctx.cli(["--timeout", "0", ctx.write("a.py", "print(1)\n")])
    check(p.returncode not in (0, 70), "--timeout 0 accepted (exit %d)" % p.returncode)
    p = ctx.cli([ctx.write("b.py", "print(1)\n"), "extra-arg"])
    check(p.returncode != 0, "an extra argument accepted")
    p = ctx.cli(["/nonexistent/file.py"])
    check(p.returncode not in (0,), "a missing file accepted")
    p = ctx.cli(["--language", "cobol", ctx.write("c.py", "print(1)\n")])
    check(p.returncode != 0, "an unknown language accepted")


def test_no_jailer_is_70(ctx):
    f = ctx.write("x.py", "print(1)\n")
    p = subprocess.run([GATEWAY_BIN, "run", "--jailer-socket",
                        os.path.join(ctx.tmpdir, "no-such.sock"), "--jailer", "/nonexistent", f],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    eq(p.returncode, 70, "exit code when the jailer cannot be reached (%s)" % short(p.stderr))
