"""The jailer started by socket activation (sd_listen_fds), as the
cellgate-jailer.socket unit does: systemd-socket-activate binds the
SOCK_SEQPACKET socket and execs the jailer with it on the first connection."""
from harness import eq


def test_socket_activated_jailer_runs_jobs(ctx):
    c = ctx.client()
    _, sc = c.execute("print(6 * 7)")
    eq(sc["status"], "ok", "python through a socket-activated jailer")
    eq(sc["stdout"], "42\n", "stdout")
    _, sc = c.execute("console.log(6 * 7)", "javascript")
    eq(sc["stdout"], "42\n", "javascript through a socket-activated jailer")
    # A second gateway on the same activated socket.
    c2 = ctx.client()
    _, sc = c2.execute("import sys; sys.exit(3)")
    eq(sc["status"], "exit", "second gateway")
    eq(sc["exit_code"], 3, "exit code")


test_socket_activated_jailer_runs_jobs.socket_activated = True


def test_idle_exit_and_restart(ctx):
    """--idle-exit: the socket-activated jailer exits once nothing has been
    connected or running for that long, and the next connection starts it
    again (systemd-socket-activate plays the .socket unit)."""
    import os
    import shutil
    import signal
    import subprocess
    import time

    from harness import JAILER_BIN, Skip, check, stop_process

    if not shutil.which("systemd-socket-activate"):
        raise Skip("systemd-socket-activate not installed")
    check(ctx.jailer.stop(), "the test's jailer did not stop")
    ctx.jailer.proc = None
    try:
        os.unlink(ctx.sock)
    except FileNotFoundError:
        pass

    def activate():
        logf = open(ctx.jailer.log, "ab")
        p = subprocess.Popen(["systemd-socket-activate", "--seqpacket", "-l", ctx.sock,
                              JAILER_BIN, "--policy", ctx.jailer.policy, "--idle-exit", "1"],
                             stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                             start_new_session=True)
        logf.close()
        deadline = time.monotonic() + 10
        while not os.path.exists(ctx.sock):
            check(time.monotonic() < deadline, "no activation socket")
            time.sleep(0.02)
        return p

    for round in range(2):
        act = activate()
        try:
            c = ctx.client()
            _, sc = c.execute("import time; time.sleep(1.5); print('busy')")
            eq(sc["stdout"], "busy\n", "round %d: a job longer than the idle time" % round)
            check(not c.close(), "round %d: the gateway did not exit cleanly" % round)
            ctx.allow_dead_gateway.add(c.name)
            # Nothing connected or running now: it exits within about 1 s.
            code = act.wait(6)
            eq(code, 0, "round %d: exit status of the idle jailer (and its activator)"
               % round)
            check("idle for 1 s" in open(ctx.jailer.log).read(),
                  "round %d: no idle-exit line in the log" % round)
        finally:
            if act.poll() is None:
                stop_process(act, signal.SIGKILL)
        try:
            os.unlink(ctx.sock)
        except FileNotFoundError:
            pass
    ctx.assert_clean("after idle exits")
    ctx.jailer.start()  # for the teardown's checks


test_idle_exit_and_restart.socket_activated = True
