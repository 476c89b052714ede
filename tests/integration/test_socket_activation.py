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
