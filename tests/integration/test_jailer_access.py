"""The jailer's front door: only peers the policy allows (SO_PEERCRED), a
version mismatch answered with both versions named, garbage refused, and
the jailer unharmed by any of it."""
import os
import socket
import struct
import subprocess

from harness import GATEWAY_BIN, check, eq, short

IPC_MAGIC = 0x50494743
IPC_HELLO, IPC_HELLO_OK, IPC_ERROR = 1, 2, 8


def header(version, mtype, length=0):
    return struct.pack("<IHHII", IPC_MAGIC, version, mtype, length, 0)


def exchange(sock_path, datagram, expect_close=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    try:
        s.connect(sock_path)
        s.send(datagram)
        reply = s.recv(65536)
        # after an error the jailer closes the connection
        after = s.recv(65536) if expect_close else None
        return reply, after
    finally:
        s.close()


def test_peer_not_in_policy_is_refused(ctx):
    # Let anyone connect at the file level, so only SO_PEERCRED stands
    # between another user and the jailer.
    os.chmod(ctx.sock, 0o666)
    os.chmod(ctx.tmpdir, 0o755)
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                        GATEWAY_BIN, "run", "--jailer-socket", ctx.sock, "-"],
                       input=b"print('escaped')\n", capture_output=True, timeout=20)
    check(p.returncode != 0, "a user outside the policy ran code")
    check(b"escaped" not in p.stdout, "the program ran")
    check(b"refused" in p.stderr, "no refusal message: %s" % short(p.stderr))
    # Root (the policy's allowed user here) still gets through.
    _, sc = ctx.client().execute("print('in')")
    eq(sc["stdout"], "in\n", "allowed peer after a refusal")


def test_version_mismatch_names_both_versions(ctx):
    reply, after = exchange(ctx.sock, header(2, IPC_HELLO))
    magic, version, mtype = struct.unpack("<IHH", reply[:8])
    eq((magic, mtype), (IPC_MAGIC, IPC_ERROR), "answer to a version-2 HELLO")
    text = reply[16:]
    check(b"version 1" in text and b"sent 2" in text, "message %r" % text)
    eq(after, b"", "connection closed after the error")


def test_garbage_is_refused_and_jailer_survives(ctx):
    for junk in (b"x", b"\0" * 16, header(1, 0xffff), header(1, IPC_HELLO, 100)):
        reply, after = exchange(ctx.sock, junk)
        eq(struct.unpack("<IHH", reply[:8])[2], IPC_ERROR, "answer to %r" % junk[:16])
        eq(after, b"", "connection closed")
    reply, _ = exchange(ctx.sock, header(1, IPC_HELLO), expect_close=False)
    eq(struct.unpack("<IHH", reply[:8])[2], IPC_HELLO_OK, "a good HELLO afterwards")
    _, sc = ctx.client().execute("print(1)")
    eq(sc["status"], "ok", "a job afterwards")


def test_member_of_allowed_group_is_admitted(ctx):
    # The policy admits group 65530.  A user whose primary group is another
    # but who holds 65530 as a supplementary group (SO_PEERGROUPS) gets in;
    # the same user without it does not.
    os.chmod(ctx.sock, 0o666)
    os.chmod(ctx.tmpdir, 0o755)
    base = ["setpriv", "--reuid=65534", "--regid=65534"]
    run = [GATEWAY_BIN, "run", "--jailer-socket", ctx.sock, "-"]
    p = subprocess.run(base + ["--groups=65530", "--"] + run, input=b"print('member')\n",
                       capture_output=True, timeout=20)
    eq(p.returncode, 0, "a member of the allowed group: %s" % short(p.stderr))
    eq(p.stdout, b"member\n", "its program's output")
    p = subprocess.run(base + ["--clear-groups", "--"] + run, input=b"print('outsider')\n",
                       capture_output=True, timeout=20)
    check(p.returncode != 0 and b"outsider" not in p.stdout, "a non-member ran code")
    check(b"refused" in p.stderr, "no refusal message: %s" % short(p.stderr))


test_member_of_allowed_group_is_admitted.extra_global = {"allow_gid": "65530"}
