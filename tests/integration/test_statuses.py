"""Every execute status in both languages, the result's shape, stdin,
stderr, encodings and metrics."""
import json

from harness import (RESULT_KEYS, STRUCTURED_VERSIONS, TestFailure, check, describe, eq,
                     expect_status, short)

MIB = 1 << 20


def check_shape(res, sc, version):
    """The CallToolResult around an execute outcome, per the contract."""
    for k, t in RESULT_KEYS.items():
        check(k in sc, "structured result lacks %r: %s" % (k, describe(sc)))
        check(isinstance(sc[k], t) and not (t is int and isinstance(sc[k], bool)),
              "%s has type %s: %r" % (k, type(sc[k]).__name__, short(sc[k])))
    check(sc["execution_id"], "empty execution_id")
    content = res.get("content")
    check(isinstance(content, list) and content and content[0].get("type") == "text",
          "content[0] is not a text block: %s" % short(json.dumps(res)))
    eq(json.loads(content[0]["text"]), sc, "content[0] text parsed vs structuredContent")
    if version in STRUCTURED_VERSIONS:
        eq(res.get("structuredContent"), sc, "structuredContent")
    else:
        check("structuredContent" not in res, "structuredContent before 2025-06-18")
    bad = sc["status"] != "ok"
    eq(bool(res.get("isError")), bad, "isError for status %s" % sc["status"])
    if bad:
        check(len(content) == 2 and content[1].get("type") == "text" and content[1]["text"],
              "an error result has a second text block explaining it: %s"
              % short(json.dumps(content)))
    else:
        eq(len(content), 1, "number of content blocks of an ok result")


def run(ctx, code, language=None, **kw):
    c = ctx.client()
    res, sc = c.execute(code, language, **kw)
    check_shape(res, sc, c.version)
    return sc


# ---------------------------------------------------------------- ok

def test_ok_python(ctx):
    sc = run(ctx, "print('hello')")
    expect_status(sc, "ok")
    eq(sc["stdout"], "hello\n", "stdout")
    eq(sc["stderr"], "", "stderr")
    eq((sc["exit_code"], sc["signal"]), (0, None), "exit_code, signal")
    eq((sc["stdout_truncated"], sc["stderr_truncated"]), (False, False), "truncated flags")


def test_ok_javascript(ctx):
    sc = run(ctx, "console.log('hello')", "javascript")
    expect_status(sc, "ok")
    eq(sc["stdout"], "hello\n", "stdout")
    eq((sc["exit_code"], sc["signal"]), (0, None), "exit_code, signal")


def test_metrics(ctx):
    sc = run(ctx, "x = bytearray(8 << 20)\nfor i in range(0, len(x), 4096): x[i] = 1\n"
             "print(sum(range(100000)))")
    expect_status(sc, "ok")
    check(sc["wall_ms"] > 0, "wall_ms %r" % sc["wall_ms"])
    check(sc["cpu_ms"] >= 0, "cpu_ms %r" % sc["cpu_ms"])
    check(sc["memory_peak_bytes"] > 8 * MIB, "memory_peak_bytes %r after touching 8 MiB"
          % sc["memory_peak_bytes"])
    check(sc["memory_peak_bytes"] < 256 * MIB, "memory_peak_bytes %r above the limit"
          % sc["memory_peak_bytes"])


def test_old_version_result_in_text(ctx):
    c = ctx.client("2025-03-26")
    res, sc = c.execute("print(5)")
    check_shape(res, sc, "2025-03-26")
    eq((sc["status"], sc["stdout"]), ("ok", "5\n"), "status, stdout")


# ---------------------------------------------------------------- exit

def test_exit_python(ctx):
    sc = run(ctx, "import sys\nprint('before')\nsys.exit(3)")
    expect_status(sc, "exit")
    eq((sc["exit_code"], sc["signal"]), (3, None), "exit_code, signal")
    eq(sc["stdout"], "before\n", "stdout")


def test_exit_javascript(ctx):
    sc = run(ctx, "process.exit(3)", "javascript")
    expect_status(sc, "exit")
    eq(sc["exit_code"], 3, "exit_code")


def test_exit_255_and_uncaught_exception(ctx):
    c = ctx.client()
    _, sc = c.execute("import os\nos._exit(255)")
    expect_status(sc, "exit", "os._exit(255)")
    eq(sc["exit_code"], 255, "exit_code")
    _, sc = c.execute("raise ValueError('boom')")
    expect_status(sc, "exit", "uncaught exception")
    eq(sc["exit_code"], 1, "exit_code of an uncaught exception")
    check("ValueError: boom" in sc["stderr"], "traceback in stderr: %r" % short(sc["stderr"]))
    _, sc = c.execute("throw new Error('boom')", "javascript")
    expect_status(sc, "exit", "js throw")
    check("boom" in sc["stderr"], "js error in stderr: %r" % short(sc["stderr"]))


def test_syntax_error(ctx):
    sc = run(ctx, "def (:\n")
    expect_status(sc, "exit")
    check("SyntaxError" in sc["stderr"], "SyntaxError in stderr: %r" % short(sc["stderr"]))


# ---------------------------------------------------------------- signal

def test_signal_python(ctx):
    sc = run(ctx, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    expect_status(sc, "signal")
    eq((sc["signal"], sc["exit_code"]), (11, None), "signal, exit_code")


def test_signal_javascript(ctx):
    sc = run(ctx, "process.kill(process.pid, 'SIGSEGV')", "javascript")
    expect_status(sc, "signal")
    eq(sc["signal"], 11, "signal")


def test_signal_abort(ctx):
    sc = run(ctx, "import os\nos.abort()")
    expect_status(sc, "signal")
    eq(sc["signal"], 6, "signal")


# ---------------------------------------------------------------- timeout

def test_timeout_python(ctx):
    sc = run(ctx, "while True: pass", timeout_s=1)
    expect_status(sc, "timeout")


def test_timeout_javascript(ctx):
    sc = run(ctx, "while (true) {}", "javascript", timeout_s=1)
    expect_status(sc, "timeout")


def test_timeout_sleeping(ctx):
    sc = run(ctx, "import time\nprint('start')\ntime.sleep(30)", timeout_s=1.5)
    expect_status(sc, "timeout")
    eq(sc["stdout"], "start\n", "output written before the timeout is kept")


def test_timeout_fractional(ctx):
    sc = run(ctx, "import time\ntime.sleep(0.05)\nprint('done')", timeout_s=5.5)
    expect_status(sc, "ok")
    eq(sc["stdout"], "done\n", "stdout")


# ---------------------------------------------------------------- memory

def test_memory_python(ctx):
    sc = run(ctx, "x = b'\\x01' * (1 << 30)\nprint('survived', len(x))")
    expect_status(sc, "memory")
    check("survived" not in sc["stdout"], "1 GiB was allocated: %r" % sc["stdout"])


def test_memory_python_bytearray_touched(ctx):
    sc = run(ctx, "x = bytearray(1 << 30)\nfor i in range(0, len(x), 4096): x[i] = 1\n"
             "print('survived')")
    expect_status(sc, "memory")


def test_memory_javascript(ctx):
    sc = run(ctx, "const b = Buffer.alloc(1 << 30, 1); console.log('survived', b.length)",
             "javascript")
    expect_status(sc, "memory")
    check("survived" not in sc["stdout"], "1 GiB was allocated: %r" % sc["stdout"])


# ---------------------------------------------------------------- output limit

def test_output_limit_python(ctx):
    sc = run(ctx, "import sys\nsys.stdout.write('x' * (2 << 20))\nsys.stdout.flush()")
    expect_status(sc, "output_limit")
    eq(len(sc["stdout"]), MIB, "stdout length")
    check(set(sc["stdout"]) == {"x"}, "stdout content altered")
    eq((sc["stdout_truncated"], sc["stderr_truncated"]), (True, False), "truncated flags")


def test_output_limit_javascript(ctx):
    sc = run(ctx, "process.stdout.write('y'.repeat(2 << 20))", "javascript")
    expect_status(sc, "output_limit")
    eq(len(sc["stdout"]), MIB, "stdout length")
    eq(sc["stdout_truncated"], True, "stdout_truncated")


def test_output_exactly_at_limit_is_ok(ctx):
    sc = run(ctx, "import sys\nsys.stdout.write('z' * (1 << 20))")
    expect_status(sc, "ok")
    eq(len(sc["stdout"]), MIB, "stdout length")
    eq(sc["stdout_truncated"], False, "stdout_truncated")


def test_stderr_limit(ctx):
    sc = run(ctx, "import sys\nprint('out')\nsys.stderr.write('e' * (2 << 20))")
    expect_status(sc, "output_limit")
    eq(len(sc["stderr"]), MIB, "stderr length")
    eq((sc["stdout_truncated"], sc["stderr_truncated"]), (False, True), "truncated flags")
    eq(sc["stdout"], "out\n", "stdout")


# ---------------------------------------------------------------- cancelled

def _cancel(ctx, delay):
    c = ctx.client()
    id = c.start_execute("import time\ntime.sleep(30)")
    if delay:
        c.collect(delay)
    c.notify("notifications/cancelled", {"requestId": id, "reason": "test"})
    got = c.collect(3.0)
    check(not any(m.get("id") == id for m in got),
          "a reply came for the cancelled request: %s" % short(json.dumps(got)))
    eq(c.result("ping"), {}, "ping after cancel")
    ctx.assert_clean("after cancel, with the gateway running")
    # The session still runs code.
    _, sc = c.execute("print(2)")
    eq((sc["status"], sc["stdout"]), ("ok", "2\n"), "execute after cancel")


def test_cancel_running(ctx):
    _cancel(ctx, 1.0)


def test_cancel_immediately(ctx):
    _cancel(ctx, 0)


def test_cancel_one_of_three(ctx):
    c = ctx.client()
    ids = [c.start_execute("import time\ntime.sleep(%s)\nprint('done')" % s)
           for s in (1.5, 30, 1.5)]
    c.collect(0.5)
    c.notify("notifications/cancelled", {"requestId": ids[1]})
    for i in (0, 2):
        _, sc = c.finish_execute(ids[i], 20)
        eq((sc["status"], sc["stdout"]), ("ok", "done\n"), "uncancelled job %d" % i)
    got = c.collect(1.0)
    check(not any(m.get("id") == ids[1] for m in got), "reply for the cancelled request")


def test_cancel_unknown_id_is_ignored(ctx):
    c = ctx.client()
    c.notify("notifications/cancelled", {"requestId": 12345})
    c.notify("notifications/cancelled", {})
    eq(c.result("ping"), {}, "ping")


# ---------------------------------------------------------------- stdin, stderr, encodings

def test_stdin_python(ctx):
    sc = run(ctx, "print(input().upper())\nimport sys\nprint(repr(sys.stdin.read()))",
             stdin="hi\nrest")
    expect_status(sc, "ok")
    eq(sc["stdout"], "HI\n'rest'\n", "stdout")


def test_stdin_javascript(ctx):
    sc = run(ctx, "process.stdout.write(require('fs').readFileSync(0, 'utf8').toUpperCase())",
             "javascript", stdin="abc\n")
    expect_status(sc, "ok")
    eq(sc["stdout"], "ABC\n", "stdout")


def test_no_stdin_is_eof(ctx):
    sc = run(ctx, "import sys\nprint(repr(sys.stdin.read()))")
    expect_status(sc, "ok")
    eq(sc["stdout"], "''\n", "stdout")


def test_large_stdin(ctx):
    data = "0123456789abcdef" * 65536  # 1 MiB
    sc = run(ctx, "import sys\nd = sys.stdin.read()\nprint(len(d), d[:16], d[-16:])",
             stdin=data)
    expect_status(sc, "ok")
    eq(sc["stdout"], "%d 0123456789abcdef 0123456789abcdef\n" % len(data), "stdout")


def test_stderr_separate(ctx):
    sc = run(ctx, "import sys\nprint('to out')\nprint('to err', file=sys.stderr)")
    expect_status(sc, "ok")
    eq(sc["stdout"], "to out\n", "stdout")
    eq(sc["stderr"], "to err\n", "stderr")
    sc = run(ctx, "console.log('o'); console.error('e')", "javascript")
    eq((sc["stdout"], sc["stderr"]), ("o\n", "e\n"), "js stdout, stderr")


def test_unicode_output(ctx):
    text = "h\u00e9llo \u2713 \u65e5\u672c \U0001F600"
    sc = run(ctx, "print(%r)" % text)
    expect_status(sc, "ok")
    eq(sc["stdout"], text + "\n", "stdout")


def test_invalid_utf8_output(ctx):
    sc = run(ctx, "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe ok')\n"
             "sys.stderr.buffer.write(b'bad \\xc3')")
    expect_status(sc, "ok")
    check("\ufffd" in sc["stdout"] and sc["stdout"].endswith(" ok"),
          "stdout %r: expected U+FFFD then ' ok'" % sc["stdout"])
    check(sc["stderr"].startswith("bad ") and "\ufffd" in sc["stderr"],
          "stderr %r: expected U+FFFD for a cut sequence" % sc["stderr"])
    sc = run(ctx, "process.stdout.write(Buffer.from([0xff, 0xfe, 0x20, 0x6f, 0x6b]))",
             "javascript")
    check("\ufffd" in sc["stdout"] and sc["stdout"].endswith(" ok"),
          "js stdout %r" % sc["stdout"])


def test_nul_and_control_bytes_in_output(ctx):
    sc = run(ctx, "import sys\nsys.stdout.write('a\\x00b\\x01c\\x1b[31m\\u2028d')")
    expect_status(sc, "ok")
    eq(sc["stdout"], "a\x00b\x01c\x1b[31m\u2028d", "stdout with NUL and control bytes")


def test_unicode_code_and_stdin(ctx):
    sc = run(ctx, "s = input()\nprint('\u00fc' + s + '\u2603', len(s))", stdin="\u65e5\u672c\n")
    expect_status(sc, "ok")
    eq(sc["stdout"], "\u00fc\u65e5\u672c\u2603 2\n", "stdout")


def _tool_result(c, args):
    """A bad argument is a tool error (isError), never a JSON-RPC error."""
    msg = c.request("tools/call", {"name": "execute", "arguments": args}, 30)
    if "error" in msg:
        raise TestFailure("a bad execute argument got a JSON-RPC error instead of an isError "
                          "result: %r" % (msg["error"],))
    return msg["result"]


def test_nul_in_code_not_truncated(ctx):
    # A NUL inside the code must not silently cut it: either the argument
    # is refused, or the interpreter sees all of it (and refuses it).
    c = ctx.client()
    res = _tool_result(c, {"code": "print(1)\u0000print(2)"})
    sc = res.get("structuredContent")
    if res.get("isError") and sc is None:
        return  # refused as a bad argument
    sc = sc or json.loads(res["content"][0]["text"])
    check(not (sc.get("status") == "ok" and sc.get("stdout") == "1\n"),
          "code was cut at the NUL and the first part ran: %s" % describe(sc))


def test_nul_in_stdin_not_truncated(ctx):
    c = ctx.client()
    res = _tool_result(c, {"code": "import sys\nprint(repr(sys.stdin.read()))",
                           "stdin": "a\u0000b"})
    sc = res.get("structuredContent")
    if res.get("isError") and sc is None:
        return  # refused as a bad argument
    eq(sc.get("stdout"), "'a\\x00b'\n", "stdin with a NUL as the program read it")


def test_code_at_size_limit(ctx):
    code = "#" * ((1 << 20) - 64) + "\nprint('big code ran')\n"
    sc = run(ctx, code)
    expect_status(sc, "ok")
    eq(sc["stdout"], "big code ran\n", "stdout")
