#!/usr/bin/python3
"""Runs the integration suite against $BUILD/cellgate and
$BUILD/cellgate-jailer (BUILD defaults to "build", relative to the repo).

  /usr/bin/python3 tests/integration/run.py [-k PATTERN]... [-x] [--list]

Every test_*.py module here holds test functions `test_NAME(ctx)` run in
file order; a test is named "<module>.<NAME>" (module without "test_").
-k selects tests whose name contains PATTERN (repeatable: any matches).
A module may set FOLLOWUP = True: after each of its tests a fresh gateway
must still run print(1).  A function may set `.timeout` (seconds, default
60) and `.socket_activated = True` (the jailer is started the way
systemd's cellgate-jailer.socket would start it).  Prints `ok NAME`, `FAIL NAME: reason` or `skip NAME: reason` per test
and, last, `RESULT passed=N failed=N skipped=N`; exits 0 iff none failed.
Must run as root (the jailer needs it).
"""
import argparse
import importlib
import inspect
import os
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import harness  # noqa: E402

DEFAULT_TIMEOUT_S = 60
TEARDOWN_TIMEOUT_S = 60


def on_alarm(signum, frame):
    raise harness.TestTimeout()


def discover():
    tests = []
    for fname in sorted(os.listdir(HERE)):
        if not (fname.startswith("test_") and fname.endswith(".py")):
            continue
        mod = importlib.import_module(fname[:-3])
        fns = [(n, f) for n, f in vars(mod).items()
               if n.startswith("test_") and inspect.isfunction(f) and f.__module__ == mod.__name__]
        fns.sort(key=lambda nf: nf[1].__code__.co_firstlineno)
        for n, f in fns:
            tests.append(("%s.%s" % (fname[5:-3], n[5:]), f, getattr(mod, "FOLLOWUP", False)))
    return tests


def one_line(s):
    return " ".join(str(s).split())


def run_test(name, fn, followup, tag):
    """Returns ("ok"|"FAIL"|"skip", reason)."""
    ctx = harness.Ctx(name, tag, followup, getattr(fn, "extra_global", None))
    outcome, reason = "ok", ""
    signal.alarm(getattr(fn, "timeout", DEFAULT_TIMEOUT_S))
    try:
        ctx.start(socket_activated=getattr(fn, "socket_activated", False))
        fn(ctx)
    except harness.Skip as e:
        outcome, reason = "skip", str(e)
    except harness.TestTimeout:
        outcome, reason = "FAIL", "test timed out after %d s" % getattr(fn, "timeout",
                                                                         DEFAULT_TIMEOUT_S)
    except AssertionError as e:
        outcome, reason = "FAIL", str(e) or "assertion failed"
    except Exception as e:  # a crash of the test itself is a failure too
        tb = traceback.extract_tb(e.__traceback__)[-1]
        outcome, reason = "FAIL", "%s: %s (at %s:%d)" % (type(e).__name__, e,
                                                         os.path.basename(tb.filename), tb.lineno)
    except BaseException:  # Ctrl-C: still stop what the test started
        signal.alarm(0)
        ctx.finish(False)
        raise
    finally:
        signal.alarm(0)
    signal.alarm(TEARDOWN_TIMEOUT_S)
    try:
        problems = ctx.finish(outcome == "ok")
    except harness.TestTimeout:
        problems = ["teardown timed out"]
    except Exception as e:
        problems = ["teardown crashed: %s: %s" % (type(e).__name__, e)]
    finally:
        signal.alarm(0)
    if problems:
        msg = "after the test: " + "; ".join(problems[:8])
        if outcome == "FAIL":
            reason += " [" + msg + "]"
        else:
            outcome, reason = "FAIL", msg
        reason += " (logs kept in %s)" % ctx.tmpdir
    elif outcome == "FAIL":
        reason += " (logs kept in %s)" % ctx.tmpdir
    if outcome == "FAIL":
        # What the jailer and the gateways said, so a failure in CI can be
        # understood from its output alone.
        for fname in sorted(os.listdir(ctx.tmpdir)) if os.path.isdir(ctx.tmpdir) else []:
            if fname.endswith(".log"):
                lines = harness.tail(os.path.join(ctx.tmpdir, fname), 12)
                if lines:
                    reason += "\n  | %s: %s" % (fname, lines)
    return outcome, reason


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", action="append", default=[], metavar="PATTERN")
    ap.add_argument("-x", action="store_true", help="stop at the first failure")
    ap.add_argument("--list", action="store_true")
    opts = ap.parse_args()

    signal.signal(signal.SIGALRM, on_alarm)
    tests = discover()
    if opts.k:
        tests = [t for t in tests if any(p in t[0] for p in opts.k)]
    if opts.list:
        for name, _f, _fu in tests:
            print(name)
        return 0

    passed = failed = skipped = 0
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

    tag = str(os.getpid())
    started = time.monotonic()
    for name, fn, followup in tests:
        t0 = time.monotonic()
        outcome, reason = run_test(name, fn, followup, tag)
        dt = time.monotonic() - t0
        if outcome == "ok":
            passed += 1
            print("ok %s" % name, flush=True)
        elif outcome == "skip":
            skipped += 1
            print("skip %s: %s" % (name, one_line(reason)), flush=True)
        else:
            failed += 1
            print("FAIL %s: %s" % (name, one_line(reason)), flush=True)
        if os.environ.get("CELLGATE_IT_TIMES"):
            print("#   %.2f s" % dt, flush=True)
        if failed and opts.x:
            break
    print("# %d test(s) in %.1f s" % (passed + failed + skipped, time.monotonic() - started))
    print("RESULT passed=%d failed=%d skipped=%d" % (passed, failed, skipped), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
