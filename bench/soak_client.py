"""A minimal MCP Streamable HTTP client: one session on one keep-alive
connection, reopened (same session) after a transport error."""

import http.client
import json

PROTOCOL = "2025-11-25"


class Lost(Exception):
    """No usable answer: transport error, client-side timeout, cut reply."""


class Reply:
    """What one tools/call produced: an HTTP status, and for 200 the
    JSON-RPC message that answers it."""

    def __init__(self, http_status, headers, body, message=None):
        self.http_status = http_status
        self.headers = headers
        self.body = body
        self.message = message

    def outcome(self):
        """The execute tool's structured result, or None."""
        res = (self.message or {}).get("result")
        if not isinstance(res, dict):
            return None
        sc = res.get("structuredContent")
        if isinstance(sc, dict):
            return sc
        for block in res.get("content") or []:
            try:
                obj = json.loads(block.get("text", ""))
                if isinstance(obj, dict) and "status" in obj:
                    return obj
            except (ValueError, AttributeError):
                continue
        return None

    def error_message(self):
        try:
            return json.loads(self.body).get("error", {}).get("message", "")
        except (ValueError, AttributeError):
            return self.body[:200]


def _sse_messages(text):
    """JSON messages carried by the data: lines of an event stream."""
    out = []
    for event in text.replace("\r\n", "\n").split("\n\n"):
        data = [ln[5:].lstrip(" ") if ln.startswith("data:") else None
                for ln in event.split("\n")]
        data = [d for d in data if d is not None]
        if data:
            try:
                out.append(json.loads("\n".join(data)))
            except ValueError:
                pass
    return out


class Session:
    def __init__(self, port, key, timeout):
        self.port = port
        self.key = key
        self.timeout = timeout
        self.conn = None
        self.session_id = None
        self.next_id = 1

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _headers(self):
        h = {"Authorization": f"Bearer {self.key}",
             "Accept": "application/json, text/event-stream",
             "Content-Type": "application/json"}
        if self.session_id:
            h["Mcp-Session-Id"] = self.session_id
            h["MCP-Protocol-Version"] = PROTOCOL
        return h

    def post(self, msg):
        """POST one message; return (status, headers, body text).  Any
        failure to get a complete reply raises Lost."""
        body = json.dumps(msg).encode()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                       timeout=self.timeout)
            self.conn.request("POST", "/mcp", body=body, headers=self._headers())
            r = self.conn.getresponse()
            data = r.read()
            headers = {k.lower(): v for k, v in r.getheaders()}
            if r.will_close:
                self.close()
        except (OSError, http.client.HTTPException) as e:
            self.close()
            raise Lost(f"{type(e).__name__}: {e}") from e
        return r.status, headers, data.decode("utf-8", errors="replace")

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        status, headers, text = self.post({"jsonrpc": "2.0", "id": rid, "method": method,
                                           "params": params})
        reply = Reply(status, headers, text)
        if status != 200:
            return reply
        ctype = headers.get("content-type", "")
        msgs = _sse_messages(text) if ctype.startswith("text/event-stream") else None
        if msgs is None:
            try:
                msgs = [json.loads(text)]
            except ValueError:
                raise Lost(f"200 with a body that is not JSON: {text[:120]!r}")
        for m in msgs:
            if isinstance(m, dict) and m.get("id") == rid and ("result" in m or "error" in m):
                reply.message = m
                return reply
        raise Lost(f"200 without the answer to request {rid}: {text[:120]!r}")

    def open(self):
        """initialize + notifications/initialized; raises on any failure."""
        rep = self.request("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "cellgate-soak", "version": "1"}})
        if rep.http_status != 200 or "result" not in (rep.message or {}):
            raise RuntimeError(f"initialize: HTTP {rep.http_status}: {rep.body[:200]}")
        self.session_id = rep.headers.get("mcp-session-id")
        if not self.session_id:
            raise RuntimeError("initialize: no Mcp-Session-Id")
        st, _, text = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if st != 202:
            raise RuntimeError(f"notifications/initialized: HTTP {st}: {text[:200]}")

    def execute(self, code, language, timeout_s=None):
        args = {"code": code, "language": language}
        if timeout_s is not None:
            args["timeout_s"] = timeout_s
        return self.request("tools/call", {"name": "execute", "arguments": args})
