"""MCP over HTTP (`cellgate --listen`): every row of the Streamable HTTP
status table (reference/mcp-anchors.md §6b), batches, sessions and their
tenants, CORS, resumption with Last-Event-ID, slow and surplus clients,
the legacy HTTP+SSE transport (§7), API keys (§8), the audit log, /metrics
and /healthz.  Each test starts its own gateway (http_harness.Gateway) on
the test's jailer."""
import hashlib
import http.client
import json
import os
import re
import resource
import secrets
import select
import signal
import socket
import subprocess
import threading
import time

import harness
from harness import GATEWAY_BIN, check, eq, short
from http_harness import (ACCEPT_BOTH, Gateway, free_port, key_id, new_key, parse_json_body,
                          parse_metrics, send)

PARSE_ERROR, INVALID_REQUEST, SERVER_ERROR, SESSION_NOT_FOUND = -32700, -32600, -32000, -32001
SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
INSPECTOR = "http://localhost:6274"
FAST = {"progress_interval": "200ms"}


def rpc_error(status, headers, body, want_status, code, what):
    """An HTTP error answered with a JSON-RPC error without id: its message."""
    check(status == want_status, "%s: status %s, expected %s; body %s"
          % (what, status, want_status, short(body)))
    msg = parse_json_body(status, headers, body, what)
    check(isinstance(msg, dict) and msg.get("jsonrpc") == "2.0",
          "%s: not a JSON-RPC message: %s" % (what, short(body)))
    check(msg.get("id") is None, "%s: error has id %r" % (what, msg.get("id")))
    check("result" not in msg, "%s: error with a result" % what)
    err = msg.get("error")
    check(isinstance(err, dict), "%s: no error object: %s" % (what, short(body)))
    eq(err.get("code"), code, "%s: error code" % what)
    check(isinstance(err.get("message"), str) and err["message"],
          "%s: error without message" % what)
    return err["message"]


def exec_result(reply, what="execute"):
    check("result" in reply, "%s: JSON-RPC error %s" % (what, short(json.dumps(reply))))
    sc = reply["result"].get("structuredContent")
    check(isinstance(sc, dict), "%s: no structuredContent: %s" % (what, short(json.dumps(reply))))
    return sc


def wait_for(pred, timeout, what, step=0.05):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        check(time.monotonic() < deadline, "%s: not within %.1f s" % (what, timeout))
        time.sleep(step)


def raw_socket(gw):
    s = socket.create_connection(("127.0.0.1", gw.port), timeout=5)
    return s


def wait_closed(s, timeout):
    """Seconds until the peer closes s (EOF or reset); None if it did not
    within timeout.  Data the peer sends is read and ignored."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        r, _, _ = select.select([s], [], [], 0.05)
        if r:
            try:
                if not s.recv(4096):
                    return time.monotonic() - t0
            except ConnectionResetError:
                return time.monotonic() - t0
    return None


# ================================================================ §6b: 2xx

def test_json_replies_and_202(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    res = c.initialize(send_initialized=False)
    eq(res.get("protocolVersion"), "2025-11-25", "negotiated version")
    check(re.fullmatch(r"[\x21-\x7e]{16,}", c.session or ""),
          "Mcp-Session-Id %r is not >= 16 visible ASCII characters" % c.session)
    # A notification and a client's response are accepted with 202, no body.
    eq(c.notify("notifications/initialized"), 202, "notifications/initialized")
    status, h, body = c.post({"jsonrpc": "2.0", "id": "srv-1", "result": {}})
    eq((status, body), (202, b""), "a client's JSON-RPC response: status, body")
    reply = c.request("tools/list")
    names = {t["name"] for t in reply["result"]["tools"]}
    check({"execute", "get_sandbox_info"} <= names, "tools/list: %r" % sorted(names))
    sc = exec_result(c.execute("print('hello http')"))
    eq((sc["status"], sc["stdout"]), ("ok", "hello http\n"), "execute status, stdout")
    # Without MCP-Protocol-Version the server assumes a version it knows.
    status, h, body = c.post({"jsonrpc": "2.0", "id": 77, "method": "ping"},
                             extra={"MCP-Protocol-Version": None})
    eq(status, 200, "ping without MCP-Protocol-Version: status (%s)" % short(body))
    eq(json.loads(body), {"jsonrpc": "2.0", "id": 77, "result": {}}, "ping reply")


def test_config_alone_serves_its_listen(ctx):
    """`cellgate --config FILE` (the systemd unit's command line) serves HTTP
    on the file's `listen`; a bare `cellgate` is a usage error, not a port."""
    gw = Gateway(ctx, config_listen=True)
    check("--listen" not in gw.proc.args, "started with --listen: %r" % (gw.proc.args,))
    c = gw.client()
    c.initialize()
    sc = exec_result(c.execute("print('via listen in the file')"))
    eq((sc["status"], sc["stdout"]), ("ok", "via listen in the file\n"), "execute")
    p = subprocess.run([GATEWAY_BIN], capture_output=True, timeout=10)
    eq(p.returncode, 2, "bare cellgate: exit status")
    check(b"usage:" in p.stderr, "bare cellgate: no usage (%s)" % short(p.stderr))


def progress_code(n=5, pause=0.25):
    return ("import time\nfor i in range(%d):\n    print(i, flush=True)\n    time.sleep(%s)\n"
            "print('done')" % (n, pause))


def check_progress_stream(events, token, id, stream_prefix, primed):
    """events: (event, message) pairs up to the response."""
    ids = [ev["id"] for ev, _m in events]
    check(all(ids), "an event without id: %s" % short(json.dumps(events)))
    eq(len(set(ids)), len(ids), "event ids are unique: %r" % ids)
    check(all(i.startswith(stream_prefix) for i in ids),
          "event ids %r not all of stream %r" % (ids, stream_prefix))
    body = events
    if primed:
        first, msg = events[0]
        eq((first["data"], first["event"], msg), ("", None, None), "priming event")
        body = events[1:]
    for ev, msg in body:
        eq(ev["event"], "message", "event type of %s" % short(ev["data"]))
    notes = [m for _e, m in body if m.get("method") == "notifications/progress"]
    check(notes, "no notifications/progress before the result: %s" % short(json.dumps(events)))
    last = -1.0
    for n in notes:
        eq(n["params"].get("progressToken"), token, "progressToken")
        p = n["params"].get("progress")
        check(isinstance(p, (int, float)) and p > last, "progress %r after %r" % (p, last))
        last = p
    final = body[-1][1]
    eq(final.get("id"), id, "the last event is the response")
    return exec_result(final)


def test_sse_progress_stream(ctx):
    gw = Gateway(ctx, limits=FAST)
    c = gw.client()
    c.initialize()
    all_ids = set()
    for token in ("tok-1", 42):
        msg = c.execute_msg(progress_code(), progress_token=token)
        st = c.stream_call(msg)
        ctype = st.headers.get("Content-Type", "")
        eq(ctype.split(";")[0], "text/event-stream", "Content-Type")
        events = st.until_response(msg["id"])
        prefix = events[0][0]["id"].split("-")[0] + "-"
        eq(events[0][0]["id"], prefix + "0", "priming event id")
        sc = check_progress_stream(events, token, msg["id"], prefix, primed=True)
        eq((sc["status"], sc["stdout"]), ("ok", "0\n1\n2\n3\n4\ndone\n"), "status, stdout")
        check(st.next(5) is None, "the stream did not end after the response")
        ids = {ev["id"] for ev, _m in events}
        check(not ids & all_ids, "event ids reused across streams of a session: %r"
              % sorted(ids & all_ids))
        all_ids |= ids
        st.close()
    # Before 2025-11-25 there is no priming event (older clients choke on
    # empty data), but the stream is the same otherwise.
    c = gw.client()
    c.initialize("2025-06-18")
    msg = c.execute_msg(progress_code(4), progress_token="old")
    st = c.stream_call(msg)
    events = st.until_response(msg["id"])
    check(events[0][0]["data"], "2025-06-18: an event with empty data: %s"
          % short(json.dumps(events[0][0])))
    prefix = events[0][0]["id"].split("-")[0] + "-"
    check_progress_stream(events, "old", msg["id"], prefix, primed=False)
    st.close()
test_sse_progress_stream.timeout = 40


# ================================================================ §6b: 400 / 404

def test_bad_json_400(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    for raw in (b'{"jsonrpc":"2.0","id":1,', b"not json", b'{"jsonrpc":"2.0"}}', b"\xff\xfe{}",
                b""):
        status, h, body = c.post(raw)
        rpc_error(status, h, body, 400, PARSE_ERROR, "body %r" % raw)
    # Also before a session exists (the body is read before the session).
    status, h, body = c.post(b"{nope", session=False)
    rpc_error(status, h, body, 400, PARSE_ERROR, "bad JSON without a session")


def test_invalid_jsonrpc_400(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    for msg in ({"jsonrpc": "1.0", "id": 1, "method": "ping"},
                {"id": 1, "method": "ping"},
                {"jsonrpc": "2.0", "id": 1, "method": 5},
                {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
                "just a string", 17, []):
        status, h, body = c.post(json.dumps(msg))
        rpc_error(status, h, body, 400, INVALID_REQUEST, "message %s" % json.dumps(msg))
    # initialize starts a session: with a session id it is invalid.
    init = {"jsonrpc": "2.0", "id": 9, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "x", "version": "0"}}}
    status, h, body = c.post(init)
    rpc_error(status, h, body, 400, INVALID_REQUEST, "initialize with Mcp-Session-Id")


def test_missing_session_id_400(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    status, h, body = c.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                             session=False)
    msg = rpc_error(status, h, body, 400, SERVER_ERROR, "POST without Mcp-Session-Id")
    check("Mcp-Session-Id" in msg, "message does not name the header: %r" % msg)
    status, h, body = gw.raw("GET", "/mcp", None, {"Authorization": "Bearer " + gw.key,
                                                   "Accept": "text/event-stream"})
    rpc_error(status, h, body, 400, SERVER_ERROR, "GET without Mcp-Session-Id")
    status, h, body = gw.raw("DELETE", "/mcp", None, {"Authorization": "Bearer " + gw.key})
    rpc_error(status, h, body, 400, SERVER_ERROR, "DELETE without Mcp-Session-Id")


def test_unsupported_protocol_version_400(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    for bad in ("1999-01-01", "2025-11-25x", "latest"):
        status, h, body = c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                 extra={"MCP-Protocol-Version": bad})
        msg = rpc_error(status, h, body, 400, SERVER_ERROR, "MCP-Protocol-Version %s" % bad)
        for v in SUPPORTED:
            check(v in msg, "the 400 does not list supported version %s: %r" % (v, msg))
    for good in SUPPORTED:
        status, h, body = c.post({"jsonrpc": "2.0", "id": 2, "method": "ping"},
                                 extra={"MCP-Protocol-Version": good})
        eq(status, 200, "MCP-Protocol-Version %s: status (%s)" % (good, short(body)))


def test_unknown_session_404(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    real = c.session
    for sid in (secrets.token_hex(16), "x", real[:-1] + ("0" if real[-1] != "0" else "1"),
                real + "0"):
        c.session = sid
        status, h, body = c.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "session id %r" % sid)
        st = c.open("GET", extra={"Accept": "text/event-stream"})
        rpc_error(st.status, st.headers, st.resp.read(), 404, SESSION_NOT_FOUND,
                  "GET with session id %r" % sid)
        st.close()
    c.session = real
    eq(c.request("ping")["result"], {}, "the real session still works")


# ================================================================ §6b: 405 406 409 413 415

def test_other_methods_405(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    for method in ("PUT", "PATCH"):
        status, h, body = gw.raw(method, "/mcp", b"{}", c.headers())
        rpc_error(status, h, body, 405, SERVER_ERROR, method)
        allow = {m.strip() for m in (h.get("Allow") or "").split(",")}
        check({"GET", "POST", "DELETE"} <= allow, "%s: Allow %r" % (method, h.get("Allow")))
        check(method not in allow, "%s: Allow lists it: %r" % (method, h.get("Allow")))


def test_accept_406(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for accept in ("application/json", "text/event-stream", "text/html", None):
        status, h, body = c.post(ping, extra={"Accept": accept})
        rpc_error(status, h, body, 406, SERVER_ERROR, "POST with Accept %r" % accept)
    for accept in ("application/json, text/event-stream",
                   "text/event-stream;q=0.9, application/json;q=1.0", "*/*"):
        status, h, body = c.post(ping, extra={"Accept": accept})
        eq(status, 200, "POST with Accept %r (%s)" % (accept, short(body)))
    st = c.open("GET", extra={"Accept": "application/json"})
    rpc_error(st.status, st.headers, st.resp.read(), 406, SERVER_ERROR,
              "GET with Accept: application/json")
    st.close()


def test_second_get_stream_409(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    first = c.open("GET", extra={"Accept": "text/event-stream"})
    eq(first.status, 200, "first GET stream")
    eq(first.headers.get("Content-Type", "").split(";")[0], "text/event-stream",
       "first GET stream Content-Type")
    second = c.open("GET", extra={"Accept": "text/event-stream"})
    rpc_error(second.status, second.headers, second.resp.read(), 409, SERVER_ERROR,
              "second GET stream")
    second.close()
    # POSTs go on while the stream is open.
    eq(c.request("ping")["result"], {}, "ping while the GET stream is open")
    first.close()

    def reopened():
        st = c.open("GET", extra={"Accept": "text/event-stream"})
        if st.status == 200:
            return st
        st.resp.read()
        st.close()
        return None
    wait_for(reopened, 3, "a GET stream after the first was closed").close()


def test_body_too_large_413(ctx):
    gw = Gateway(ctx, limits={"max_body": "1K"})
    c = gw.client()
    c.initialize()
    small = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"pad": "a" * 800}}}
    status, _h, body = c.post(small)
    eq(status, 200, "a body under max_body (%s)" % short(body))
    big = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"_meta": {"pad": "a" * 2000}}}
    try:
        status, h, body = c.post(big)
    except OSError as e:
        raise AssertionError("POST of a %d-byte body with max_body = 1K: no HTTP response "
                             "(%s: %s), expected 413" % (len(json.dumps(big)),
                                                         type(e).__name__, e))
    eq(status, 413, "POST of a body over max_body: status (%s)" % short(body))


def test_content_type_415(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "application/jsonx", None):
        status, h, body = c.post(ping, extra={"Content-Type": ctype})
        rpc_error(status, h, body, 415, SERVER_ERROR, "Content-Type %r" % ctype)
    status, _h, body = c.post(ping, extra={"Content-Type": "application/json; charset=utf-8"})
    eq(status, 200, "Content-Type with charset (%s)" % short(body))


# ================================================================ §6b: 401 403

def test_bad_origin_403(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for origin in ("http://evil.example.com", "null", "http://localhost.evil.com",
                   "https://127.0.0.1.nip.io", "http://localhost:80x"):
        status, h, body = c.post(ping, extra={"Origin": origin})
        rpc_error(status, h, body, 403, SERVER_ERROR, "Origin %s" % origin)
        check(h.get("Access-Control-Allow-Origin") is None,
              "Origin %s: a 403 carries Access-Control-Allow-Origin" % origin)
    # The legacy endpoints check it too.
    st = c.open("GET", path="/sse", extra={"Accept": "text/event-stream",
                                           "Origin": "http://evil.example.com"}, session=False)
    rpc_error(st.status, st.headers, st.resp.read(), 403, SERVER_ERROR, "GET /sse, bad Origin")
    st.close()
    status, h, body = gw.raw("POST", "/messages?sessionId=%s" % secrets.token_hex(16), ping,
                             c.headers({"Origin": "http://evil.example.com"}, session=False))
    rpc_error(status, h, body, 403, SERVER_ERROR, "POST /messages, bad Origin")
    for origin in (INSPECTOR, "http://127.0.0.1:8080", "http://[::1]:3000"):
        status, h, body = c.post(ping, extra={"Origin": origin})
        eq(status, 200, "Origin %s on a loopback gateway (%s)" % (origin, short(body)))
        eq(h.get("Access-Control-Allow-Origin"), origin, "Origin %s: ACAO" % origin)


def test_bad_host_403(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for extra in ({"Host": "evil.example.com"},
                  {"Host": "evil.example.com:%d" % gw.port},
                  {"Host": "evil.example.com", "Origin": "http://evil.example.com"}):
        status, h, body = c.post(ping, extra=extra)
        rpc_error(status, h, body, 403, SERVER_ERROR, "headers %r" % extra)
    # Without a key at all: the Host check comes first.
    status, h, body = gw.raw("POST", "/mcp", ping, {"Host": "evil.example.com",
                                                   "Content-Type": "application/json",
                                                   "Accept": ACCEPT_BOTH})
    rpc_error(status, h, body, 403, SERVER_ERROR, "bad Host, no key")
    for host in ("localhost:%d" % gw.port, "127.0.0.1:%d" % gw.port, "[::1]:%d" % gw.port,
                 "LOCALHOST:%d" % gw.port, "127.0.0.1"):
        status, _h, body = c.post(ping, extra={"Host": host})
        eq(status, 200, "Host %s (%s)" % (host, short(body)))


def test_duplicate_headers_400(ctx):
    """A header that says who asks, for which session or how long the body
    is, sent twice, is a 400 (RFC 9112 §3.2 for Host), never a guess."""
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    base = ["Host: 127.0.0.1:%d" % gw.port, "Content-Type: application/json",
            "Accept: %s" % ACCEPT_BOTH] + ["%s: %s" % kv for kv in c.headers().items()
                                           if kv[0].lower() not in ("content-type", "accept")]

    def request(path, lines, method="POST", payload=body):
        head = "%s %s HTTP/1.1\r\n" % (method, path) + "".join(l + "\r\n" for l in lines)
        if payload is not None:
            head += "Content-Length: %d\r\n" % len(payload)
        return raw_exchange(gw, (head + "Connection: close\r\n\r\n" + (payload or "")).encode())

    ok = request("/mcp", base)
    check(ok.startswith(b"HTTP/1.1 200 "), "the request without duplicates: %r" % ok[:80])
    for name, value in (("Host", "127.0.0.1:%d" % gw.port), ("Host", "evil.example.com"),
                        ("Authorization", "Bearer x"),
                        ("Mcp-Session-Id", c.session),
                        ("MCP-Protocol-Version", "2025-06-18")):
        data = request("/mcp", base + ["%s: %s" % (name, value)])
        check(data.startswith(b"HTTP/1.1 400 "), "a second %s header: %r" % (name, data[:80]))
        check(name.lower().encode() in data.lower(), "the 400 names %s: %r" % (name, data[-200:]))
    data = request("/healthz", ["Host: 127.0.0.1:%d" % gw.port, "Host: evil.example.com"],
                   method="GET", payload=None)
    check(data.startswith(b"HTTP/1.1 400 "), "GET /healthz with two Host headers: %r" % data[:80])
    # Accept is a list and may come in several lines.
    split = [l for l in base if not l.startswith("Accept:")] + [
        "Accept: application/json", "Accept: text/event-stream"]
    data = request("/mcp", split)
    check(data.startswith(b"HTTP/1.1 200 "), "Accept split over two lines: %r" % data[:80])


def test_missing_key_401(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    anon = gw.client()
    anon.key = None
    anon.session, anon.version = c.session, c.version
    for path, method in (("/mcp", "POST"), ("/mcp", "GET"), ("/mcp", "DELETE"),
                         ("/sse", "GET")):
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"} if method == "POST" else None
        status, h, data = gw.raw(method, path, body, anon.headers())
        rpc_error(status, h, data, 401, SERVER_ERROR, "%s %s without a key" % (method, path))
        www = h.get("WWW-Authenticate") or ""
        check(www.startswith("Bearer"), "%s %s: WWW-Authenticate %r" % (method, path, www))
    for auth in ("Basic %s" % gw.key, "Bearer", "Bearer ", gw.key):
        status, h, data = c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                 extra={"Authorization": auth})
        rpc_error(status, h, data, 401, SERVER_ERROR, "Authorization %r" % auth[:12])
        check((h.get("WWW-Authenticate") or "").startswith("Bearer"),
              "Authorization %r: WWW-Authenticate %r" % (auth[:12], h.get("WWW-Authenticate")))


def test_wrong_key_401(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    for wrong in (new_key(), gw.key[:-1], gw.key + "A", gw.key.upper(), "x" * 600):
        status, h, body = c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                 extra={"Authorization": "Bearer " + wrong})
        rpc_error(status, h, body, 401, SERVER_ERROR, "a wrong key")
        www = h.get("WWW-Authenticate") or ""
        check(www.startswith("Bearer") and 'error="invalid_token"' in www,
              "wrong key: WWW-Authenticate %r" % www)
    # A key in the query string is never accepted (§8).
    status, h, body = gw.raw("POST", "/mcp?api_key=%s&key=%s" % (gw.key, gw.key),
                             {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                             c.headers({"Authorization": None}))
    rpc_error(status, h, body, 401, SERVER_ERROR, "key in the query string")


# ================================================================ §6b: 429

def test_rate_limit_429(ctx):
    gw = Gateway(ctx, tenants={"dev": {"rate": "1", "burst": "2"}})
    c = gw.client()
    ping = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    t0 = time.monotonic()
    got = [c.post(ping, session=False) for _ in range(3)]
    if time.monotonic() - t0 > 0.9:
        raise AssertionError("three requests took %.1f s: too slow to test a rate of 1/s"
                             % (time.monotonic() - t0))
    eq([s for s, _h, _b in got[:2]], [400, 400], "first two requests (burst 2; no session)")
    status, h, body = got[2]
    msg = rpc_error(status, h, body, 429, SERVER_ERROR, "third request at rate 1 burst 2")
    retry = h.get("Retry-After") or ""
    check(retry.isdigit() and 1 <= int(retry) <= 2, "Retry-After %r" % retry)
    check("rate" in msg, "429 message %r" % msg)
    time.sleep(int(retry) + 0.1)
    status, _h, body = c.post(ping, session=False)
    eq(status, 400, "after Retry-After the request passes the limiter again (%s)" % short(body))
    # A wrong key is not charged to the tenant: it is refused as 401.
    status, _h, _b = c.post(ping, session=False, extra={"Authorization": "Bearer " + new_key()})
    eq(status, 401, "a wrong key while the tenant is limited")


def test_concurrency_limit_429(ctx):
    gw = Gateway(ctx, tenants={"dev": {"max_concurrent_jobs": "1"}}, limits=FAST)
    c = gw.client()
    c.initialize()
    other = gw.client()
    other.initialize()
    msg = c.execute_msg("import time\nprint('long', flush=True)\ntime.sleep(2.5)\nprint('end')",
                        progress_token="long")
    st = c.stream_call(msg)
    # The job runs once progress arrives.
    while True:
        ev = st.next(10)
        check(ev is not None, "stream ended before any progress")
        if ev["data"] and json.loads(ev["data"]).get("method") == "notifications/progress":
            break
    for who, cl in (("the same session", c), ("another session of the tenant", other)):
        status, h, body = cl.post(cl.execute_msg("print('second')"))
        text = rpc_error(status, h, body, 429, SERVER_ERROR,
                         "a second execute from %s with max_concurrent_jobs = 1" % who)
        check(b"second" not in body, "the second job ran")
        eq(h.get("Retry-After"), "1", "Retry-After of a concurrency 429")
        check("concurrent" in text, "message %r" % text)
    # Other requests are not limited by running jobs.
    eq(other.request("ping")["result"], {}, "ping while the tenant's job runs")
    events = st.until_response(msg["id"])
    sc = exec_result(events[-1][1], "the long job")
    eq((sc["status"], sc["stdout"]), ("ok", "long\nend\n"), "the long job")
    st.close()
    sc = exec_result(other.execute("print('after')"), "execute after the long job ended")
    eq(sc["stdout"], "after\n", "execute after the long job ended")
test_concurrency_limit_429.timeout = 40


def test_cpu_quota_429(ctx):
    gw = Gateway(ctx, tenants={"dev": {"cpu_seconds_per_hour": "1"}})
    c = gw.client()
    c.initialize()
    burn = ("import time\nt = time.process_time()\nwhile time.process_time() - t < 1.3: pass\n"
            "print('burnt')")
    sc = exec_result(c.execute(burn), "a job burning 1.3 s of CPU")
    eq((sc["status"], sc["stdout"]), ("ok", "burnt\n"), "the burning job")
    check(sc["cpu_ms"] >= 1000, "cpu_ms %r of the burning job" % sc["cpu_ms"])
    status, h, body = c.post(c.execute_msg("print('over quota')"))
    text = rpc_error(status, h, body, 429, SERVER_ERROR, "execute over the CPU quota")
    retry = h.get("Retry-After") or ""
    check(retry.isdigit() and 1 <= int(retry) <= 3600, "Retry-After %r" % retry)
    check("quota" in text, "message %r" % text)
    # Only code execution is refused.
    eq(c.request("ping")["result"], {}, "ping over the quota")
test_cpu_quota_429.timeout = 40


def test_max_sessions_429(ctx):
    gw = Gateway(ctx, tenants={"dev": {"max_sessions": "2"}, "other": {}})
    a, b, third = gw.client(), gw.client(), gw.client()
    a.initialize()
    b.initialize()
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "x", "version": "0"}}}
    status, h, body = third.post(init, session=False)
    text = rpc_error(status, h, body, 429, SERVER_ERROR, "a third session with max_sessions = 2")
    check(h.get("Mcp-Session-Id") is None, "a refused initialize got a session id")
    check((h.get("Retry-After") or "").isdigit(), "Retry-After %r" % h.get("Retry-After"))
    check("session" in text, "message %r" % text)
    # A legacy /sse stream is a session too.
    st = third.open("GET", path="/sse", extra={"Accept": "text/event-stream"}, session=False)
    rpc_error(st.status, st.headers, st.resp.read(), 429, SERVER_ERROR,
              "GET /sse over max_sessions")
    st.close()
    # Another tenant is not affected; ending a session frees its slot.
    gw.client("other").initialize()
    status, _h, _b = a.delete()
    check(200 <= status < 300, "DELETE: status %s" % status)
    third.initialize()
    eq(third.request("ping")["result"], {}, "ping in the new session")


# ================================================================ batches, tenants, lifecycle

def test_batch_2025_03_26(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize("2025-03-26")
    eq(c.version, "2025-03-26", "negotiated version")
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": "two", "method": "tools/list"},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "execute", "arguments": {"code": "print(3)"}}}]
    status, h, body = c.post(batch)
    eq(status, 200, "batch: status (%s)" % short(body))
    replies = parse_json_body(status, h, body, "batch")
    check(isinstance(replies, list), "batch reply is not an array: %s" % short(body))
    by_id = {r.get("id"): r for r in replies}
    eq(sorted(by_id, key=str), [1, 3, "two"], "ids in the batch reply")
    eq(by_id[1].get("result"), {}, "ping in the batch")
    check("tools" in by_id["two"].get("result", {}), "tools/list in the batch")
    sc = json.loads(by_id[3]["result"]["content"][0]["text"])
    eq((sc["status"], sc["stdout"]), ("ok", "3\n"), "execute in the batch")
    # Only notifications: 202, no body.
    status, _h, body = c.post([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    eq((status, body), (202, b""), "a batch of notifications")


def test_batch_rejected_after_2025_03_26(ctx):
    gw = Gateway(ctx)
    for version in ("2025-11-25", "2025-06-18"):
        c = gw.client()
        c.initialize(version)
        status, h, body = c.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                  {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
        rpc_error(status, h, body, 400, INVALID_REQUEST, "a batch in a %s session" % version)


def test_session_bound_to_tenant(ctx):
    gw = Gateway(ctx, tenants={"dev": {}, "other": {}})
    a = gw.client("dev")
    a.initialize()
    b = gw.client("other")
    b.session, b.version = a.session, a.version
    status, h, body = b.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "another tenant's key on a session")
    status, h, body = b.delete()
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "DELETE with another tenant's key")
    st = b.open("GET", extra={"Accept": "text/event-stream"})
    rpc_error(st.status, st.headers, st.resp.read(), 404, SESSION_NOT_FOUND,
              "GET with another tenant's key")
    st.close()
    eq(a.request("ping")["result"], {}, "the owner's session still works")


def test_delete_ends_session(ctx):
    gw = Gateway(ctx)
    c = gw.client()
    c.initialize()
    status, _h, body = c.delete()
    check(200 <= status < 300, "DELETE: status %s (%s)" % (status, short(body)))
    status, h, body = c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "a request after DELETE")
    status, h, body = c.delete()
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "a second DELETE")


def test_delete_ends_running_job(ctx):
    gw = Gateway(ctx, limits=FAST)
    c = gw.client()
    c.initialize()
    msg = c.execute_msg("import time\nprint('x', flush=True)\ntime.sleep(30)",
                        progress_token=1)
    st = c.stream_call(msg)
    st.next(5)
    status, _h, _b = c.delete()
    check(200 <= status < 300, "DELETE with a job running: status %s" % status)
    t0 = time.monotonic()
    while st.next(10) is not None:
        pass
    check(time.monotonic() - t0 < 5, "the stream outlived its session")
    ctx.assert_clean("after DELETE of a session with a running job")


def test_session_idle_expiry(ctx):
    gw = Gateway(ctx, limits={"session_idle_timeout": "1s"})
    busy, idle = gw.client(), gw.client()
    busy.initialize()
    idle.initialize()
    # Used every 0.4 s: stays.
    for _ in range(6):
        time.sleep(0.4)
        eq(busy.request("ping")["result"], {}, "a session in use")
    status, h, body = idle.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "a session idle for 2.4 s")
    eq(busy.request("ping")["result"], {}, "the used session after 2.4 s")
    time.sleep(2.5)
    status, h, body = busy.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "a session idle for 2.5 s")


# ================================================================ CORS

def test_cors_preflight(ctx):
    gw = Gateway(ctx)
    status, h, body = gw.raw("OPTIONS", "/mcp", None, {
        "Origin": INSPECTOR, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, mcp-session-id"})
    eq(status, 204, "preflight status (%s)" % short(body))
    eq(h.get("Access-Control-Allow-Origin"), INSPECTOR, "Access-Control-Allow-Origin")
    expose = {x.strip().lower() for x in (h.get("Access-Control-Expose-Headers") or "").split(",")}
    check("mcp-session-id" in expose, "Access-Control-Expose-Headers %r"
          % h.get("Access-Control-Expose-Headers"))
    allow_h = {x.strip().lower() for x in (h.get("Access-Control-Allow-Headers") or "").split(",")}
    want = {"authorization", "content-type", "mcp-session-id", "mcp-protocol-version",
            "last-event-id"}
    check(want <= allow_h, "Access-Control-Allow-Headers lacks %r" % sorted(want - allow_h))
    allow_m = {x.strip() for x in (h.get("Access-Control-Allow-Methods") or "").split(",")}
    check({"GET", "POST", "DELETE"} <= allow_m, "Access-Control-Allow-Methods %r" % allow_m)
    # The real requests carry the CORS headers too, errors included.
    c = gw.client()
    c.initialize()
    status, h, _b = c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                           extra={"Origin": INSPECTOR})
    eq(status, 200, "POST from the inspector origin")
    eq(h.get("Access-Control-Allow-Origin"), INSPECTOR, "ACAO on a POST")
    check("mcp-session-id" in (h.get("Access-Control-Expose-Headers") or "").lower(),
          "Expose-Headers on a POST")
    status, h, _b = c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                           extra={"Origin": INSPECTOR, "Authorization": None})
    eq(status, 401, "POST without a key from the inspector")
    eq(h.get("Access-Control-Allow-Origin"), INSPECTOR, "ACAO on a 401")
    check("www-authenticate" in (h.get("Access-Control-Expose-Headers") or "").lower(),
          "a browser cannot read WWW-Authenticate of the 401")
    # A preflight from a foreign origin is refused.
    status, h, _b = gw.raw("OPTIONS", "/mcp", None, {"Origin": "http://evil.example.com",
                                                     "Access-Control-Request-Method": "POST"})
    eq(status, 403, "preflight from a foreign origin")
    check(h.get("Access-Control-Allow-Origin") is None, "ACAO for a foreign origin")


# ================================================================ resumption

def test_resume_with_last_event_id(ctx):
    gw = Gateway(ctx, limits=FAST)
    c = gw.client()
    c.initialize()
    msg = c.execute_msg(progress_code(6, 0.2), progress_token="r")
    st = c.stream_call(msg)
    prime = st.next(5)
    check(prime and prime["id"] and prime["data"] == "", "priming event %r" % (prime,))
    stream_no, seq = prime["id"].split("-")
    eq(seq, "0", "priming event's sequence number")
    st.close()  # the connection drops; the job goes on

    def resumed():
        s = c.open("GET", extra={"Accept": "text/event-stream",
                                 "Last-Event-ID": prime["id"]})
        if s.status == 200:
            return s
        s.resp.read()  # 409 while the server has not noticed the drop yet
        s.close()
        check(s.status == 409, "GET with Last-Event-ID: status %s" % s.status)
        return None
    again = wait_for(resumed, 3, "resuming with Last-Event-ID", 0.1)
    eq(again.headers.get("Content-Type", "").split(";")[0], "text/event-stream",
       "resumed Content-Type")
    events = again.until_response(msg["id"])
    seqs = [int(ev["id"].split("-")[1]) for ev, _m in events]
    check(all(ev["id"].split("-")[0] == stream_no for ev, _m in events),
          "resumed events from another stream: %r" % [ev["id"] for ev, _m in events])
    eq(seqs, list(range(1, len(seqs) + 1)), "resumed event sequence numbers")
    sc = check_progress_stream(events, "r", msg["id"], stream_no + "-", primed=False)
    eq((sc["status"], sc["stdout"]), ("ok", "0\n1\n2\n3\n4\n5\ndone\n"), "resumed result")
    check(again.next(5) is None, "the resumed stream did not end after the response")
    again.close()
    # Resuming after the last event: nothing more, the stream just ends.
    last = events[-1][0]["id"]
    s = c.open("GET", extra={"Accept": "text/event-stream", "Last-Event-ID": last})
    eq(s.status, 200, "GET with the last event id")
    eq(s.messages(5), [], "events after the last one")
    s.close()
test_resume_with_last_event_id.timeout = 30


# ================================================================ slow and surplus clients

def test_half_request_line_closed(ctx):
    gw = Gateway(ctx, limits={"header_timeout": "1s"})
    s = raw_socket(gw)
    s.sendall(b"POST /mcp HT")
    dt = wait_closed(s, 5)
    s.close()
    check(dt is not None, "a connection with half a request line was not closed in 5 s")
    check(0.7 <= dt <= 2.5, "closed after %.2f s; header_timeout is 1 s" % dt)
    # The gateway still serves.
    status, _h, _b = gw.raw("GET", "/healthz")
    eq(status, 200, "healthz after a dropped slow client")


def drip_until_closed(s, payload, limit):
    """Send payload one byte per 0.2 s until the server closes s; seconds
    until then, or None if still open after `limit` seconds."""
    t0 = time.monotonic()
    for b in payload:
        if time.monotonic() - t0 > limit:
            return None
        try:
            s.send(bytes([b]))
        except OSError:
            return time.monotonic() - t0
        if wait_closed(s, 0.2) is not None:
            return time.monotonic() - t0
    return None


SLOW = {"header_timeout": "1s", "body_timeout": "500ms"}  # whole request within 1.5 s


def test_slowloris_closed(ctx):
    gw = Gateway(ctx, limits=SLOW)
    s = raw_socket(gw)
    head = ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % gw.port).encode()
    closed_at = drip_until_closed(s, head + b"a" * 100, 6)
    s.close()
    check(closed_at is not None, "a header dripped at 1 byte per 0.2 s kept the connection "
          "open for 6 s (header_timeout 1 s + body_timeout 0.5 s)")
    check(1.2 <= closed_at <= 3.0, "slowloris closed after %.2f s, expected about 1.5 s"
          % closed_at)
    # A body dripped the same way is dropped too.
    c = gw.client()
    c.initialize()
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    s = raw_socket(gw)
    head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % gw.port)
    for k, v in c.headers().items():
        head += "%s: %s\r\n" % (k, v)
    head += "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (len(body) + 200)
    s.sendall(head.encode())
    closed_at = drip_until_closed(s, body + b" " * 200, 6)
    s.close()
    check(closed_at is not None and closed_at <= 3.0,
          "a dripped body was not dropped within 3 s (%r)" % closed_at)
    _st, _h, mbody = gw.raw("GET", "/metrics", headers=c.headers(session=False, version=False))
    m = parse_metrics(mbody.decode())
    check(m.get('cellgate_http_connections_dropped_total{reason="slow"}', 0) >= 2,
          "slow drops counted: %r" % {k: v for k, v in m.items() if "dropped" in k})
    eq(gw.raw("GET", "/healthz")[0], 200, "healthz after dropping slow clients")


def test_deadline_spares_streams_and_keepalive(ctx):
    """The request deadline bounds receiving a request, not answering it:
    an SSE stream outlives it, and a kept-alive connection gets a fresh
    deadline for each request."""
    gw = Gateway(ctx, limits=dict(SLOW, sse_keepalive="1s"))
    c = gw.client()
    c.initialize()
    st = c.open("GET", extra={"Accept": "text/event-stream"})
    eq(st.status, 200, "standalone GET stream")
    t0 = time.monotonic()
    conn = gw.connect()
    for i in range(6):
        status, _h, _b = send(conn, "GET", "/healthz")
        eq(status, 200, "healthz #%d on one kept-alive connection" % i)
        # under the 0.5 s idle timeout and the 1.5 s deadline each time,
        # over the deadline in sum
        time.sleep(0.35)
    # The stream is over 2.7 s old now: it still carries keep-alives.
    for _ in range(2):
        st.conn.sock.settimeout(3)
        line = st.resp.readline()
        check(line.startswith(b":"), "SSE stream after %.1f s: %r instead of a keep-alive"
              % (time.monotonic() - t0, line))
        st.resp.readline()
    conn.close()
    st.close()


def raw_exchange(gw, request, timeout=5):
    """Send bytes on a fresh connection, read until the server closes it."""
    s = raw_socket(gw)
    s.settimeout(timeout)
    s.sendall(request)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise AssertionError("no end of the response within %d s; got %r"
                             % (timeout, data[:200]))
    finally:
        s.close()
    return data


def test_connection_close_gets_reply(ctx):
    # Clients that send "Connection: close" (urllib, many proxies) or speak
    # HTTP/1.0 must still get the response before the connection closes.
    gw = Gateway(ctx)
    host = "Host: 127.0.0.1:%d\r\n" % gw.port
    for what, req in (("HTTP/1.1 with Connection: close",
                       "GET /healthz HTTP/1.1\r\n%sConnection: close\r\n\r\n" % host),
                      ("HTTP/1.0", "GET /healthz HTTP/1.0\r\n%s\r\n" % host)):
        data = raw_exchange(gw, req.encode())
        check(data.startswith(b"HTTP/1.") and b" 200 " in data.split(b"\r\n")[0],
              "GET /healthz, %s: got %r, expected a 200 response" % (what, data[:120]))
        check(data.endswith(b'"audit":"ok"}'), "GET /healthz, %s: body %r" % (what, data[-80:]))
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "x", "version": "0"}}})
    req = ("POST /mcp HTTP/1.1\r\n%sAuthorization: Bearer %s\r\nConnection: close\r\n"
           "Content-Type: application/json\r\nAccept: %s\r\nContent-Length: %d\r\n\r\n%s"
           % (host, gw.key, ACCEPT_BOTH, len(body), body))
    data = raw_exchange(gw, req.encode())
    check(b" 200 " in data.split(b"\r\n")[0] and b'"protocolVersion"' in data,
          "initialize with Connection: close: got %r" % data[:200])


def test_max_connections(ctx):
    gw = Gateway(ctx, limits={"max_connections": "4"})
    first = gw.connect()

    def only_this_one():
        # Asked on the connection itself, so no other one lingers.
        status, _h, body = send(first, "GET", "/metrics",
                                headers={"Authorization": "Bearer " + gw.key})
        eq(status, 200, "GET /metrics")
        return parse_metrics(body.decode()).get("cellgate_http_connections_open") == 1
    wait_for(only_this_one, 3, "one connection open")
    held = [first] + [gw.connect() for _ in range(3)]
    for conn in held[1:]:
        conn.connect()
    time.sleep(0.3)
    fifth = raw_socket(gw)
    fifth.settimeout(3)
    try:
        data = b""
        while True:
            chunk = fifth.recv(4096)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise AssertionError("the 5th connection with max_connections = 4 was neither "
                             "answered nor closed within 3 s")
    fifth.close()
    if data:
        check(data.startswith(b"HTTP/1.1 503 "), "5th connection got %r" % data[:80])
    # The first four still work.
    for i, conn in enumerate(held):
        try:
            status, _h, _b = send(conn, "GET", "/healthz")
        except OSError as e:
            raise AssertionError("held connection %d: %s: %s" % (i, type(e).__name__, e))
        eq(status, 200, "GET /healthz on held connection %d" % i)
    for conn in held:
        conn.close()
    # Once they are gone, new connections are served again.
    def served():
        try:
            return gw.raw("GET", "/healthz")[0] == 200
        except OSError:
            return False
    wait_for(served, 3, "healthz after closing them")


# ================================================================ legacy HTTP+SSE (§7)

def open_legacy(gw, tenant=None):
    c = gw.client(tenant)
    st = c.open("GET", path="/sse", extra={"Accept": "text/event-stream"}, session=False)
    eq(st.status, 200, "GET /sse")
    eq(st.headers.get("Content-Type", "").split(";")[0], "text/event-stream",
       "GET /sse Content-Type")
    ev = st.next(5)
    check(ev and ev["event"] == "endpoint", "first /sse event %r" % (ev,))
    m = re.fullmatch(r"/messages\?sessionId=([0-9a-f]{32})", ev["data"])
    check(m, "endpoint event data %r" % ev["data"])
    return c, st, ev["data"], m.group(1)


def legacy_post(c, endpoint, msg, extra=None):
    h = c.headers(extra, session=False, version=False)
    return c.gw.raw("POST", endpoint, msg, h)


def legacy_call(c, st, endpoint, msg):
    status, _h, body = legacy_post(c, endpoint, msg)
    eq((status, body), (202, b"Accepted"), "POST %s: status, body" % msg.get("method"))
    if "id" not in msg:
        return None
    while True:
        ev = st.next(15)
        check(ev is not None, "/sse stream ended waiting for %s" % msg["method"])
        if ev["event"] != "message":
            continue
        reply = json.loads(ev["data"])
        if reply.get("id") == msg["id"]:
            return reply


def test_legacy_sse_flow(ctx):
    gw = Gateway(ctx)
    c, st, endpoint, sid = open_legacy(gw)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                       "clientInfo": {"name": "legacy", "version": "0"}}}
    reply = legacy_call(c, st, endpoint, init)
    eq(reply["result"]["protocolVersion"], "2024-11-05", "legacy initialize")
    legacy_call(c, st, endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    reply = legacy_call(c, st, endpoint, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                          "params": {"name": "execute",
                                                     "arguments": {"code": "print(6*7)"}}})
    sc = json.loads(reply["result"]["content"][0]["text"])
    eq((sc["status"], sc["stdout"]), ("ok", "42\n"), "legacy execute")
    # The Python SDK's spelling of the endpoint works too.
    reply = legacy_call(c, st, "/messages/?session_id=%s" % sid,
                        {"jsonrpc": "2.0", "id": 3, "method": "ping"})
    eq(reply.get("result"), {}, "ping via /messages/?session_id=")
    # Errors of the POST endpoint.
    status, h, body = legacy_post(c, "/messages?sessionId=%s" % secrets.token_hex(16),
                                  {"jsonrpc": "2.0", "id": 4, "method": "ping"})
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "unknown sessionId")
    status, h, body = legacy_post(c, "/messages", {"jsonrpc": "2.0", "id": 4, "method": "ping"})
    rpc_error(status, h, body, 400, SERVER_ERROR, "no sessionId")
    status, h, body = legacy_post(c, endpoint, b"{bad")
    rpc_error(status, h, body, 400, PARSE_ERROR, "bad JSON on /messages")
    status, h, body = legacy_post(c, endpoint, {"jsonrpc": "2.0", "id": 5, "method": "ping"},
                                  extra={"Content-Type": "text/plain"})
    rpc_error(status, h, body, 415, SERVER_ERROR, "text/plain on /messages")
    status, h, body = legacy_post(c, endpoint, {"jsonrpc": "2.0", "id": 6, "method": "ping"},
                                  extra={"Authorization": "Bearer " + new_key()})
    rpc_error(status, h, body, 401, SERVER_ERROR, "a wrong key on /messages")
    # Closing the stream ends the session.
    st.close()

    def gone():
        s, _h, _b = legacy_post(c, endpoint, {"jsonrpc": "2.0", "id": 7, "method": "ping"})
        return s == 404
    wait_for(gone, 3, "POST after the /sse stream closed answered 404")
    wait_for(lambda: gw.metrics().get("cellgate_sessions_active") == 0, 3,
             "the legacy session is gone from cellgate_sessions_active")


def test_legacy_sse_other_tenant_404(ctx):
    gw = Gateway(ctx, tenants={"dev": {}, "other": {}})
    c, st, endpoint, _sid = open_legacy(gw, "dev")
    intruder = gw.client("other")
    status, h, body = legacy_post(intruder, endpoint, {"jsonrpc": "2.0", "id": 1,
                                                       "method": "ping"})
    rpc_error(status, h, body, 404, SESSION_NOT_FOUND, "another tenant's POST to the session")
    st.close()


# ================================================================ audit

def read_records(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def audit_verify(path):
    p = subprocess.run([GATEWAY_BIN, "audit", "verify", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=20)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")


def test_audit_records_and_verify(ctx):
    gw = Gateway(ctx, audit=True)
    key = gw.key
    c = gw.client()
    c.initialize()
    codes = {}
    for code, lang in (("print('audit-1')", None), ("console.log('audit-2')", "javascript"),
                       ("import sys\nsys.exit(3)", None)):
        sc = exec_result(c.execute(code, lang))
        codes[sc["execution_id"]] = (code, sc["status"], lang or "python")
    wrong = new_key()
    denials = [c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                      extra={"Authorization": None})[0],
               c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                      extra={"Authorization": "Bearer " + wrong})[0],
               c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                      extra={"Origin": "http://evil.example.com"})[0]]
    eq(denials, [401, 401, 403], "the denied requests")
    gw.stop()  # every record written

    rc, out = audit_verify(gw.audit_file)
    check(rc == 0 and out.startswith("ok"), "audit verify: exit %d: %s" % (rc, out))
    with open(gw.audit_file) as f:
        text = f.read()
    check(key not in text, "the API key is in the audit file")
    check(wrong not in text, "a presented wrong key is in the audit file")
    check(key[4:] not in text and wrong[4:] not in text, "a key body is in the audit file")
    recs = read_records(gw.audit_file)
    eq([r.get("seq") for r in recs], list(range(1, len(recs) + 1)), "seq numbers")
    check("%d records" % len(recs) in out, "verify counted %r, file has %d" % (out, len(recs)))
    for xid, (code, status, lang) in codes.items():
        for kind in ("job.start", "job.end"):
            mine = [r for r in recs if r.get("event") == kind and r.get("execution_id") == xid]
            eq(len(mine), 1, "%s records of job %s" % (kind, xid))
            r = mine[0]
            eq(r.get("tenant"), "dev", "%s tenant" % kind)
            eq(r.get("key_id"), key_id(key), "%s key_id" % kind)
            eq(r.get("code_sha256"), hashlib.sha256(code.encode()).hexdigest(),
               "%s code_sha256 of %r" % (kind, code))
            eq(r.get("code_bytes"), len(code.encode()), "%s code_bytes" % kind)
            eq(r.get("session"), c.session, "%s session" % kind)
            eq(r.get("transport"), "http", "%s transport" % kind)
            eq(r.get("language"), lang, "%s language" % kind)
            check("code" not in r, "%s holds the code (log_code is off)" % kind)
            if kind == "job.end":
                eq(r.get("status"), status, "job.end status of %r" % code)
        start_seq = [r["seq"] for r in recs if r.get("execution_id") == xid]
        check(start_seq[0] < start_seq[1], "job.start after job.end for %s" % xid)
    denied = [(r.get("http_status"), r.get("reason")) for r in recs
              if r.get("event") == "denied"]
    for want in ((401, "missing key"), (401, "bad key"), (403, "origin")):
        check(want in denied, "no denied record %r in %r" % (want, denied))

    # Tampering with a middle record is found and named.
    lines = text.splitlines(keepends=True)
    check(len(lines) >= 5, "only %d records" % len(lines))
    mid = len(lines) // 2
    tampered = os.path.join(ctx.tmpdir, "audit-tampered.jsonl")
    bad = lines[mid].replace('"tenant":"dev"', '"tenant":"dew"', 1)
    if bad == lines[mid]:
        bad = lines[mid].replace('"time":"', '"time":"1', 1)
    check(bad != lines[mid], "could not tamper with %r" % lines[mid])
    with open(tampered, "w") as f:
        f.write("".join(lines[:mid] + [bad] + lines[mid + 1:]))
    rc, out = audit_verify(tampered)
    eq(rc, 1, "audit verify of a modified record: exit status (%s)" % out.strip())
    check("record %d" % (mid + 1) in out, "verify output does not name record %d: %r"
          % (mid + 1, out))
    # So is a removed one.
    with open(tampered, "w") as f:
        f.write("".join(lines[:mid] + lines[mid + 1:]))
    rc, out = audit_verify(tampered)
    eq(rc, 1, "audit verify with a record removed: exit status (%s)" % out.strip())
    check("record %d" % (mid + 1) in out, "verify output does not name record %d: %r"
          % (mid + 1, out))


def test_audit_unwritable_503(ctx):
    # Some records first, so that the file limit below leaves room for the
    # gateway's log (RLIMIT_FSIZE applies to every file it writes).
    first = Gateway(ctx, audit=True)
    for _ in range(12):
        first.raw("POST", "/mcp", b"{}", {"Authorization": "Bearer " + new_key(),
                                          "Content-Type": "application/json",
                                          "Accept": ACCEPT_BOTH})
    first.stop()
    audit = first.audit_file
    size = os.path.getsize(audit)
    check(size > 2000, "audit file has only %d bytes" % size)
    recs_before = len(read_records(audit))
    limit = size + 64  # less than any record

    def limit_writes():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    gw = Gateway(ctx, audit={"file": audit}, preexec=limit_writes)
    gw.audit_file = audit
    c = gw.client()
    c.initialize()
    marker = "RAN-" + secrets.token_hex(6)
    outcomes = []
    for i in range(2):
        status, h, body = c.post(c.execute_msg("print(%r)" % marker))
        check(marker.encode() not in body, "execute %d ran with the audit log failing: %s"
              % (i, short(body)))
        if status == 503:
            text = rpc_error(status, h, body, 503, SERVER_ERROR, "execute %d" % i)
            check("audit" in text, "503 message %r" % text)
            outcomes.append(503)
        else:
            eq(status, 200, "execute %d: status (%s)" % (i, short(body)))
            reply = json.loads(body)
            res = reply.get("result") or {}
            check(res.get("isError") is True, "execute %d: not an error: %s"
                  % (i, short(body)))
            check("audit" in json.dumps(res), "execute %d: error does not mention the "
                  "audit log: %s" % (i, short(body)))
            outcomes.append(200)
    eq(outcomes[1], 503, "the second execute with the audit log failing (first: %s)"
       % outcomes[0])
    status, _h, body = gw.raw("GET", "/healthz")
    eq(status, 503, "/healthz with a failing audit log (%s)" % short(body))
    eq(json.loads(body).get("audit"), "failing", "/healthz audit")
    # Other requests still work; nothing ran; the file is still a valid chain.
    eq(c.request("ping")["result"], {}, "ping with the audit log failing")
    gw.stop()
    check(os.path.getsize(audit) <= limit, "audit file over its limit")
    recs = read_records(audit)
    check(not [r for r in recs[recs_before:] if r.get("event", "").startswith("job.")],
          "job records were written: %s" % short(json.dumps(recs[recs_before:])))
    rc, out = audit_verify(audit)
    check(rc == 0, "audit verify after failed writes: exit %d: %s" % (rc, out))
test_audit_unwritable_503.timeout = 40


# ================================================================ keys, metrics, health

def test_keys_never_in_logs_or_metrics(ctx):
    gw = Gateway(ctx, audit=True, args=["--verbose"])
    key = gw.key
    c = gw.client()
    c.initialize()
    exec_result(c.execute("print(1)"))
    wrong = new_key()
    c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
           extra={"Authorization": "Bearer " + wrong})
    c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
           extra={"Authorization": "Basic " + key})
    status, _h, metrics = gw.raw("GET", "/metrics", headers={"Authorization": "Bearer " + key})
    eq(status, 200, "/metrics")
    gw.stop()
    log = gw.log()
    check(log.strip(), "the --verbose gateway logged nothing")
    with open(gw.audit_file) as f:
        audit = f.read()
    for what, text in (("the gateway log", log), ("/metrics", metrics.decode()),
                       ("the audit file", audit)):
        for k, name in ((key, "the valid key"), (wrong, "a wrong key")):
            check(k not in text and k[4:] not in text and k[4:24] not in text,
                  "%s contains %s" % (what, name))
    check(key_id(key) in audit, "the audit file does not name the key id")


def metric(m, name, **labels):
    lab = ",".join('%s="%s"' % kv for kv in labels.items())
    return m.get("%s{%s}" % (name, lab) if lab else name, 0.0)


def test_metrics_key_on_main_address_only(ctx):
    """/metrics on the main address needs a key; on metrics_listen it needs
    none, and that address serves nothing else."""
    mport = free_port()
    gw = Gateway(ctx, gateway={"metrics_listen": "127.0.0.1:%d" % mport})
    status, h, _b = gw.raw("GET", "/metrics")
    eq(status, 401, "/metrics on the main address without a key")
    check("Bearer" in (h.get("WWW-Authenticate") or ""), "no WWW-Authenticate: %r" % h)
    eq(gw.raw("GET", "/metrics", headers={"Authorization": "Bearer " + gw.key})[0], 200,
       "/metrics on the main address with a key")
    conn = http.client.HTTPConnection("127.0.0.1", mport, timeout=10)
    try:
        status, _h, body = send(conn, "GET", "/metrics")
        eq(status, 200, "/metrics on metrics_listen without a key")
        check("cellgate_http_requests_total" in body.decode(), "metrics body: %s" % short(body))
        eq(send(conn, "POST", "/mcp", b"{}", {"Content-Type": "application/json"})[0], 404,
           "/mcp on metrics_listen")
    finally:
        conn.close()


def test_metrics_counts(ctx):
    gw = Gateway(ctx)
    m0 = gw.metrics()
    c = gw.client()
    c.initialize()
    exec_result(c.execute("print(1)"))
    exec_result(c.execute("import sys\nsys.exit(2)"))
    exec_result(c.execute("console.log(1)", "javascript"))
    c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, extra={"Authorization": None})
    c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
           extra={"Authorization": "Bearer " + new_key()})
    c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
           extra={"Origin": "http://evil.example.com"})
    c.post(b"{bad")
    m1 = gw.metrics()

    def delta(name, **labels):
        return metric(m1, name, **labels) - metric(m0, name, **labels)
    eq(delta("cellgate_http_requests_total", method="POST", code="200"), 4.0,
       "POST 200 (initialize + 3 executes)")
    eq(delta("cellgate_http_requests_total", method="POST", code="202"), 1.0, "POST 202")
    eq(delta("cellgate_http_requests_total", method="POST", code="401"), 2.0, "POST 401")
    eq(delta("cellgate_http_requests_total", method="POST", code="403"), 1.0, "POST 403")
    eq(delta("cellgate_http_requests_total", method="POST", code="400"), 1.0, "POST 400")
    eq(delta("cellgate_http_requests_total", method="GET", code="200"), 1.0,
       "GET 200 (the first /metrics)")
    eq(delta("cellgate_auth_failures_total"), 2.0, "auth failures")
    eq(delta("cellgate_jobs_total", language="python", status="ok"), 1.0, "python ok jobs")
    eq(delta("cellgate_jobs_total", language="python", status="exit"), 1.0, "python exit jobs")
    eq(delta("cellgate_jobs_total", language="javascript", status="ok"), 1.0, "javascript ok")
    eq(delta("cellgate_job_duration_seconds_count", language="python"), 2.0,
       "python job durations")
    eq(metric(m1, "cellgate_sessions_active"), 1.0, "sessions active")
    eq(metric(m1, "cellgate_jobs_active"), 0.0, "jobs active")
    eq(metric(m1, "cellgate_jailer_up"), 1.0, "jailer up")
    c.delete()
    eq(metric(gw.metrics(), "cellgate_sessions_active"), 0.0, "sessions active after DELETE")


def test_healthz(ctx):
    gw = Gateway(ctx)
    status, h, body = gw.raw("GET", "/healthz")
    eq(status, 200, "/healthz")
    eq(json.loads(body), {"status": "ok", "jailer": "up", "audit": "ok"}, "/healthz body")
    eq(h.get("Cache-Control"), "no-store", "/healthz Cache-Control")
    status, _h, body = gw.raw("HEAD", "/healthz")
    eq((status, body), (200, b""), "HEAD /healthz")
    # A jailer that accepts but does not answer: /healthz says so after
    # the probe's second, and the gateway serves others meanwhile.
    time.sleep(1.1)  # past the cached answer
    os.kill(ctx.jailer.proc.pid, signal.SIGSTOP)
    try:
        result = {}

        def probe():
            t0 = time.monotonic()
            result["healthz"] = gw.raw("GET", "/healthz")
            result["healthz_s"] = time.monotonic() - t0
        th = threading.Thread(target=probe)
        th.start()
        time.sleep(0.2)
        t0 = time.monotonic()
        mstatus = gw.raw("GET", "/metrics", headers={"Authorization": "Bearer " + gw.key})[0]
        metrics_s = time.monotonic() - t0
        th.join(10)
    finally:
        os.kill(ctx.jailer.proc.pid, signal.SIGCONT)
    eq(mstatus, 200, "/metrics while a probe waits")
    check(metrics_s < 0.5, "/metrics took %.2f s while /healthz waited for the jailer: the "
          "probe blocks the event loop" % metrics_s)
    status, _h, body = result["healthz"]
    eq((status, json.loads(body).get("jailer")), (503, "down"),
       "/healthz with a stopped jailer: status, jailer")
    check(0.8 <= result["healthz_s"] <= 3, "/healthz answered after %.2f s (probe timeout 1 s)"
          % result["healthz_s"])
    ctx.allow_dead_jailer = True
    check(ctx.jailer.stop(), "the jailer did not stop")
    time.sleep(1.2)  # the probe result is cached for a second
    status, _h, body = gw.raw("GET", "/healthz")
    eq(status, 503, "/healthz without a jailer (%s)" % short(body))
    eq(json.loads(body).get("jailer"), "down", "/healthz jailer")
    eq(metric(gw.metrics(), "cellgate_jailer_up"), 0.0, "cellgate_jailer_up without a jailer")
