"""HTTP pieces for the integration suite: a gateway serving MCP over HTTP
(`cellgate --listen`) and a small client for it.  Stdlib only.

  Gateway   writes a tenants file (one API key per tenant) and a gateway
            config into the test's temp dir, picks a free loopback port,
            starts BUILD/cellgate --listen 127.0.0.1:PORT --config FILE
            (stderr to http-gatewayN.log), waits for /healthz.  It joins
            ctx.gateways, so the test's teardown stops it (SIGTERM, exit 0
            expected) before the leftover checks, and a gateway that died
            during the test fails it.
  McpHttp   one client: raw requests returning (status, headers, body),
            Streamable HTTP helpers (initialize, request, notify, call)
            that keep the session id and protocol version, SSE streams.
  SseStream the events of a streaming response, parsed as they arrive.
"""
import hashlib
import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import time

from harness import GATEWAY_BIN, LATEST, TestFailure, check, short, stop_process, tail

ACCEPT_BOTH = "application/json, text/event-stream"
DEFAULT_TENANT = {"languages": "python javascript", "rate": "1000", "burst": "1000",
                  "max_concurrent_jobs": "8"}


def new_key():
    """A key in the gateway's format ("cgk_" + 43 base64url characters)."""
    return "cgk_" + secrets.token_urlsafe(32)


def key_line(key):
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def key_id(key):
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def ini(sections):
    """[(section header, {key: value or [values]})] -> INI text."""
    out = []
    for name, keys in sections:
        out.append("[%s]" % name)
        for k, v in keys.items():
            for one in (v if isinstance(v, (list, tuple)) else [v]):
                out.append("%s = %s" % (k, one))
        out.append("")
    return "\n".join(out)


def write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)
    return path


class Gateway:
    """An HTTP gateway of one test.

    tenants: {name: {field: value}} merged over DEFAULT_TENANT (default: one
    tenant "dev"); each tenant gets a fresh key (self.keys[name]) unless its
    fields hold "key".  gateway/limits/audit: extra keys of those config
    sections.  audit=True: an audit file (self.audit_file) in the temp dir.
    preexec: run in the child before exec (e.g. setrlimit); args: more
    command-line arguments (e.g. --verbose).  config_listen=True: the
    address goes into the file's `listen` and the gateway is started with
    --config alone, as the systemd unit does."""

    def __init__(self, ctx, tenants=None, gateway=None, limits=None, audit=False,
                 preexec=None, args=(), start=True, config_listen=False):
        self.ctx = ctx
        n = sum(1 for g in ctx.gateways if isinstance(g, Gateway))
        self.name = "http-gateway%d" % n
        self.stderr_path = os.path.join(ctx.tmpdir, "%s.log" % self.name)
        self.tenants_path = os.path.join(ctx.tmpdir, "%s-tenants.conf" % self.name)
        self.config_path = os.path.join(ctx.tmpdir, "%s.conf" % self.name)
        self.audit_file = os.path.join(ctx.tmpdir, "audit.jsonl") if audit else None
        self.keys = {}
        sections = []
        for tname, fields in (tenants or {"dev": {}}).items():
            merged = dict(DEFAULT_TENANT)
            merged.update(fields)
            key = merged.pop("key", None) or new_key()
            self.keys[tname] = key
            sections.append(("tenant %s" % tname, dict({"key": key_line(key)}, **merged)))
        write_private(self.tenants_path, ini(sections))
        gw = {"tenants": self.tenants_path, "jailer_socket": ctx.sock}
        gw.update(gateway or {})
        au = {"journald": "no"}
        if self.audit_file:
            au["file"] = self.audit_file
        if isinstance(audit, dict):
            au.update(audit)
        conf = [("gateway", gw)]
        if limits:
            conf.append(("limits", limits))
        conf.append(("audit", au))
        self.conf = conf
        self.config_listen = config_listen
        write_private(self.config_path, ini(conf))
        self.preexec = preexec
        self.args = list(args)
        self.port = None
        self.proc = None
        if start:
            self.start()

    @property
    def key(self):
        return next(iter(self.keys.values()))

    @property
    def host(self):
        return "127.0.0.1:%d" % self.port

    def start(self, timeout=10.0):
        self.port = free_port()
        argv = [GATEWAY_BIN, "--listen", self.host, "--config", self.config_path]
        if self.config_listen:
            self.conf[0][1]["listen"] = self.host
            write_private(self.config_path, ini(self.conf))
            argv = [GATEWAY_BIN, "--config", self.config_path]
        errf = open(self.stderr_path, "ab")
        try:
            self.proc = subprocess.Popen(
                argv + self.args,
                stdin=subprocess.DEVNULL, stdout=errf, stderr=errf, close_fds=True,
                start_new_session=True, preexec_fn=self.preexec)
        finally:
            errf.close()
        self.ctx.gateways.append(self)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise TestFailure("%s exited with %s at start: %s"
                                  % (self.name, self.proc.returncode, tail(self.stderr_path)))
            try:
                status, _h, _b = self.raw("GET", "/healthz", timeout=2)
                if status == 200:
                    return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TestFailure("%s: /healthz not 200 after %.0f s: %s"
                                  % (self.name, timeout, tail(self.stderr_path)))
            time.sleep(0.05)

    # -- the interface Ctx.finish uses for its gateways
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def close(self, timeout=8.0):
        """Stop it (SIGTERM); a list of problems."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        if not stop_process(self.proc, signal.SIGTERM, timeout):
            return ["%s did not exit within %.0f s of SIGTERM" % (self.name, timeout)]
        return []

    def stop(self):
        """Stop it now and check it exited 0 (teardown then expects it dead)."""
        self.ctx.allow_dead_gateway.add(self.name)
        problems = self.close()
        check(not problems, "; ".join(problems))
        check(self.proc.returncode == 0, "%s exited %s on SIGTERM: %s"
              % (self.name, self.proc.returncode, tail(self.stderr_path, 5)))

    def log(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    # -- plain HTTP
    def connect(self, timeout=10.0):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def raw(self, method, path, body=None, headers=None, timeout=10.0):
        """One request on a fresh connection: (status, headers, body bytes).
        headers: a dict; a Host entry replaces the default one."""
        conn = self.connect(timeout)
        try:
            return send(conn, method, path, body, headers)
        finally:
            conn.close()

    def client(self, tenant=None, **kw):
        key = self.keys[tenant] if tenant else self.key
        return McpHttp(self, key, **kw)

    def metrics(self):
        # On the main address /metrics needs a key (any tenant's).
        status, _h, body = self.raw("GET", "/metrics",
                                    headers={"Authorization": "Bearer " + self.key})
        check(status == 200, "GET /metrics: status %s" % status)
        return parse_metrics(body.decode())


def send(conn, method, path, body=None, headers=None):
    """Send one request on conn and read the whole response."""
    resp = start(conn, method, path, body, headers)
    data = resp.read()
    return resp.status, resp.headers, data


def start(conn, method, path, body=None, headers=None):
    """Send one request on conn; the response with only its head read."""
    headers = dict(headers or {})
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
    elif isinstance(body, str):
        body = body.encode()
    skip_host = any(k.lower() == "host" for k in headers)
    conn.putrequest(method, path, skip_host=skip_host, skip_accept_encoding=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    return conn.getresponse()


def parse_json_body(status, headers, body, what):
    ctype = headers.get("Content-Type", "")
    check(ctype.split(";")[0].strip() == "application/json",
          "%s: Content-Type %r (status %s, body %s)" % (what, ctype, status, short(body)))
    try:
        return json.loads(body)
    except ValueError:
        raise TestFailure("%s: body is not JSON: %s" % (what, short(body)))


def parse_metrics(text):
    """Prometheus text -> {'name{labels}': value} (labels as written)."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        try:
            out[name] = float(value)
        except ValueError:
            raise TestFailure("bad metrics line %r" % line)
    return out


class SseStream:
    """Events of one streaming response as they arrive.  An event is a
    dict {"id": str or None, "event": str or None, "data": str}; comment
    lines (keep-alives) are counted, not returned."""

    def __init__(self, conn, resp):
        self.conn = conn
        self.resp = resp
        self.status = resp.status
        self.headers = resp.headers
        self.events = []
        self.comments = 0
        self.ended = False

    def next(self, timeout=15.0):
        """The next event, or None when the stream ended.  TestFailure on
        timeout."""
        deadline = time.monotonic() + timeout
        ev = {"id": None, "event": None, "data": None}
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TestFailure("no SSE event within %.1f s (got %d so far)"
                                  % (timeout, len(self.events)))
            self.conn.sock.settimeout(left)
            try:
                line = self.resp.readline()
            except socket.timeout:
                raise TestFailure("no SSE event within %.1f s (got %d so far)"
                                  % (timeout, len(self.events)))
            except http.client.IncompleteRead:
                line = b""
            if not line:
                self.ended = True
                return None
            line = line.decode("utf-8").rstrip("\r\n")
            if line == "":
                if ev["data"] is None and ev["id"] is None and ev["event"] is None:
                    continue
                if ev["data"] is None:
                    ev["data"] = ""
                self.events.append(ev)
                return ev
            if line.startswith(":"):
                self.comments += 1
                continue
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "data":
                ev["data"] = value if ev["data"] is None else ev["data"] + "\n" + value
            elif field in ("id", "event"):
                ev[field] = value

    def messages(self, timeout=15.0):
        """The JSON-RPC messages of every `message` event until the end."""
        out = []
        while True:
            ev = self.next(timeout)
            if ev is None:
                return out
            if ev["event"] in (None, "message") and ev["data"]:
                out.append(json.loads(ev["data"]))

    def until_response(self, id, timeout=15.0):
        """Events up to and including the response to `id`; the list of
        (event, message) pairs."""
        got = []
        while True:
            ev = self.next(timeout)
            check(ev is not None, "stream ended before the response to %r; events: %s"
                  % (id, short(json.dumps(got))))
            msg = json.loads(ev["data"]) if ev["data"] else None
            got.append((ev, msg))
            if isinstance(msg, dict) and msg.get("id") == id and \
                    ("result" in msg or "error" in msg):
                return got

    def close(self):
        self.conn.close()


class McpHttp:
    """A Streamable HTTP client of one gateway with one API key."""

    def __init__(self, gw, key, path="/mcp"):
        self.gw = gw
        self.key = key
        self.path = path
        self.session = None
        self.version = None
        self.next_id = 1
        self.streams = []

    def headers(self, extra=None, session=True, version=True):
        h = {"Accept": ACCEPT_BOTH, "Content-Type": "application/json"}
        if self.key is not None:
            h["Authorization"] = "Bearer " + self.key
        if session and self.session:
            h["Mcp-Session-Id"] = self.session
        if version and self.version:
            h["MCP-Protocol-Version"] = self.version
        h.update(extra or {})
        return {k: v for k, v in h.items() if v is not None}

    def new_id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def post(self, body, extra=None, session=True, path=None):
        """POST a message (dict/list/str/bytes): (status, headers, body)."""
        return self.gw.raw("POST", path or self.path, body,
                           self.headers(extra, session=session))

    def post_json(self, body, want_status=200, extra=None, what=None):
        status, h, data = self.post(body, extra)
        what = what or "POST %s" % short(json.dumps(body) if not isinstance(body, bytes)
                                         else body, 120)
        check(status == want_status, "%s: status %s, expected %s; body %s"
              % (what, status, want_status, short(data)))
        return parse_json_body(status, h, data, what), h

    def initialize(self, version=LATEST, send_initialized=True):
        msg = {"jsonrpc": "2.0", "id": self.new_id(), "method": "initialize",
               "params": {"protocolVersion": version, "capabilities": {},
                          "clientInfo": {"name": "cellgate-it-http", "version": "0"}}}
        status, h, data = self.post(msg, session=False)
        check(status == 200, "initialize: status %s: %s" % (status, short(data)))
        reply = parse_json_body(status, h, data, "initialize")
        check("result" in reply, "initialize: %s" % short(json.dumps(reply)))
        sid = h.get("Mcp-Session-Id")
        check(sid, "initialize: no Mcp-Session-Id header")
        self.session = sid
        self.version = reply["result"].get("protocolVersion")
        if send_initialized:
            status = self.notify("notifications/initialized")
            check(status == 202, "notifications/initialized: status %s" % status)
        return reply["result"]

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        status, _h, data = self.post(msg)
        if status == 202:
            check(data == b"", "202 with a body: %s" % short(data))
        return status

    def request(self, method, params=None, id=None):
        """A request answered with JSON: the whole response message."""
        if id is None:
            id = self.new_id()
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        reply, _h = self.post_json(msg, what=method)
        check(isinstance(reply, dict) and reply.get("id") == id,
              "%s: reply id %r, expected %r" % (method, reply.get("id") if isinstance(
                  reply, dict) else None, id))
        return reply

    def result(self, method, params=None):
        reply = self.request(method, params)
        check("result" in reply, "%s: JSON-RPC error %s" % (method, short(json.dumps(reply))))
        return reply["result"]

    def execute(self, code, language=None, **args):
        a = {"code": code}
        if language:
            a["language"] = language
        a.update(args)
        return self.request("tools/call", {"name": "execute", "arguments": a})

    def execute_msg(self, code, language=None, progress_token=None, id=None):
        a = {"code": code}
        if language:
            a["language"] = language
        params = {"name": "execute", "arguments": a}
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        return {"jsonrpc": "2.0", "id": id if id is not None else self.new_id(),
                "method": "tools/call", "params": params}

    def open(self, method, path=None, body=None, extra=None, timeout=15.0, session=True):
        """A request whose response is read as it arrives: an SseStream
        (check .status and .headers; a non-stream answer has its body left
        in .resp)."""
        conn = self.gw.connect(timeout)
        h = self.headers(extra, session=session)
        if body is None:
            h.pop("Content-Type", None)
        resp = start(conn, method, path or self.path, body, h)
        st = SseStream(conn, resp)
        self.streams.append(st)
        return st

    def stream_call(self, msg, timeout=15.0):
        """POST a request expected to be answered with an SSE stream."""
        st = self.open("POST", body=msg, timeout=timeout)
        if st.status != 200:
            body = st.resp.read()
            st.close()
            raise TestFailure("%s: status %s: %s" % (msg.get("method"), st.status, short(body)))
        return st

    def delete(self):
        return self.gw.raw("DELETE", self.path, None, self.headers())

    def close(self):
        for st in self.streams:
            st.close()
        self.streams = []
