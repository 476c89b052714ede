"""systemd notifications (Type=notify units, issue 5): the gateway sends
READY=1 once it listens, WATCHDOG=1 from its event loop at half of
WatchdogSec, STOPPING=1 on SIGTERM; the jailer sends READY=1 once its
socket is up and STOPPING=1 on SIGTERM.  The test plays the service
manager: it binds $NOTIFY_SOCKET and reads the datagrams."""
import os
import signal
import socket
import time

from harness import check, eq
from http_harness import Gateway


class NotifySocket:
    def __init__(self, ctx):
        self.path = os.path.join(ctx.tmpdir, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.got = []

    def wait(self, line, timeout):
        """The datagrams up to and including the first holding `line`."""
        deadline = time.monotonic() + timeout
        while True:
            for i, msg in enumerate(self.got):
                if line in msg.split("\n"):
                    seen, self.got = self.got[:i + 1], self.got[i + 1:]
                    return seen
            left = deadline - time.monotonic()
            check(left > 0, "no %s within %.1f s (got %r)" % (line, timeout, self.got))
            self.sock.settimeout(left)
            try:
                self.got.append(self.sock.recv(4096).decode())
            except socket.timeout:
                pass

    def close(self):
        self.sock.close()


def with_env(env):
    def preexec():
        for k, v in env.items():
            os.environ[k] = v
    return preexec


def test_gateway_ready_watchdog_stopping(ctx):
    n = NotifySocket(ctx)
    try:
        gw = Gateway(ctx, preexec=with_env({"NOTIFY_SOCKET": n.path,
                                            "WATCHDOG_USEC": "300000"}))
        seen = n.wait("READY=1", 10)
        check(any(l.startswith("STATUS=serving 1 tenant(s)") for m in seen
                  for l in m.split("\n")), "READY without STATUS: %r" % seen)
        t0 = time.monotonic()
        for i in range(4):
            n.wait("WATCHDOG=1", 2)
        elapsed = time.monotonic() - t0
        # Every 150 ms: four pings take about 0.45-0.6 s (the first may
        # come with READY).
        check(0.25 <= elapsed <= 1.5, "4 watchdog pings took %.2f s (WatchdogSec 0.3 s)"
              % elapsed)
        eq(gw.raw("GET", "/healthz")[0], 200, "healthz while pinging")
        gw.proc.send_signal(signal.SIGTERM)
        n.wait("STOPPING=1", 10)
        eq(gw.proc.wait(10), 0, "gateway exit status after SIGTERM")
        ctx.allow_dead_gateway.add(gw.name)
    finally:
        n.close()


def test_gateway_without_watchdog_sends_no_pings(ctx):
    n = NotifySocket(ctx)
    try:
        Gateway(ctx, preexec=with_env({"NOTIFY_SOCKET": n.path}))
        n.wait("READY=1", 10)
        n.sock.settimeout(0.8)
        try:
            extra = n.sock.recv(4096).decode()
        except socket.timeout:
            extra = None
        eq(extra, None, "a datagram after READY without WATCHDOG_USEC")
    finally:
        n.close()


def test_jailer_ready_and_stopping(ctx):
    n = NotifySocket(ctx)
    try:
        check(ctx.jailer.stop(), "the test's jailer did not stop")
        saved = os.environ.get("NOTIFY_SOCKET")
        os.environ["NOTIFY_SOCKET"] = n.path
        try:
            ctx.jailer.start()
        finally:
            if saved is None:
                del os.environ["NOTIFY_SOCKET"]
            else:
                os.environ["NOTIFY_SOCKET"] = saved
        n.wait("READY=1", 10)
        ctx.jailer.proc.send_signal(signal.SIGTERM)
        n.wait("STOPPING=1", 10)
        eq(ctx.jailer.proc.wait(10), 0, "jailer exit status after SIGTERM")
        ctx.jailer.start()  # for the teardown's checks
    finally:
        n.close()
