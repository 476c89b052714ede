#!/usr/bin/python3
"""Write the seed corpora of the mcp, http, policy and tenants fuzz targets
(tests/fuzz/corpus/<target>/).  Run by hand from the repository root after
changing a harness's input format; the output files are committed:

    python3 tests/fuzz/gen_seeds.py

Input formats are described at the top of each harness (fuzz_mcp.c,
fuzz_http.c).  The ipc_decode seeds come from gen_ipc_corpus.c.
"""
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")

# fuzz_http.c's fixture keys and the session ids its getrandom hands out.
KEY_ALPHA = "cgk_fuzzalphaAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
KEY_BETA = "cgk_fuzzbetaBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
SID1 = "01" * 16
SID2 = "02" * 16
CONN_SEP = b"\n====\n"


def msg(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def req(id_, method, params=None):
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return m


def note(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return m


def init(version, id_=0):
    return req(id_, "initialize", {"protocolVersion": version, "capabilities": {},
                                   "clientInfo": {"name": "seed", "version": "1"}})


def execute(id_, code, **kw):
    args = {"code": code}
    args.update(kw)
    return req(id_, "tools/call", {"name": "execute", "arguments": args})


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- mcp: flags byte, then one message per line (b"\xff": an oversized line) ----
# flags: bits 0-2 version (0 new, 1 2024-11-05, 2 2025-03-26, 3 2025-06-18,
# 4 2025-11-25), 0x08 complete jobs after each message, 0x10 complete at the
# end, 0x20 one job at a time, 0x40 narrow tenant, 0x80 the k-th cJSON
# allocation fails (k in the next two bytes, little endian).
EACH_END = 0x18


def mcp(name, flags, lines, fail_alloc=None):
    head = bytes([flags | (0x80 if fail_alloc else 0)])
    if fail_alloc:
        head += fail_alloc.to_bytes(2, "little")
    write("mcp", name, head + b"\n".join(
        l if isinstance(l, bytes) else msg(l) for l in lines))


def gen_mcp():
    mcp("lifecycle", EACH_END, [
        init("2025-06-18", 1), note("notifications/initialized"), req(2, "ping"),
        req(3, "tools/list"), execute(4, "print('hi')"),
        req(5, "tools/call", {"name": "get_sandbox_info", "arguments": {}}),
        req(6, "logging/setLevel", {"level": "debug"})])
    mcp("statuses", EACH_END | 4, [
        execute(1, "exit(3)"), execute(2, "kill"), execute(3, "timeout", timeout_s=2.5),
        execute(4, "oom"), execute(5, "output", stdin="in"), execute(6, "seccomp"),
        execute(7, "internal"), execute(8, "reject"), execute(9, "binary\u00e9"),
        execute(10, "nul data"), execute(11, "console.log(1)", language="javascript"),
        execute("s", "print(input())", stdin="x\ny\n")])
    mcp("batch", EACH_END | 2, [
        [req(1, "tools/list"), execute(2, "print(2)"), note("notifications/progress"),
         {"jsonrpc": "2.0", "id": 3}, req(4, "ping"), "junk",
         req(5, "tools/call", {"name": "get_sandbox_info"})],
        [note("notifications/initialized")], [], [req(6, "initialize", {})]])
    mcp("cancel", 0x10 | 2, [
        execute(7, "hang"), note("notifications/cancelled", {"requestId": 7}),
        req(8, "tools/call", {"name": "execute", "arguments": {"code": "hang"},
                              "_meta": {"progressToken": "p1"}}),
        execute(8, "print('same id')"), req(9, "tools/call", {"name": "get_sandbox_info"}),
        note("notifications/cancelled", {"requestId": 9, "reason": "user"})])
    mcp("errors", EACH_END | 3, [
        b"not json", b'{"jsonrpc":"2.0","id":1,"method":"ping"', b'{"jsonrpc":"1.0","id":1}',
        req(2, "no/such/method"), req(3, "tools/list", [1, 2]),
        req(4, "resources/list"), req(5, "resources/read", {"uri": "file:///etc/passwd"}),
        req(6, "prompts/get", {"name": "x"}), req(7, "prompts/list", {"cursor": "c"}),
        req(8, "resources/templates/list"), req(1.5, "ping"), req(None, "ping"),
        b'{"jsonrpc":"2.0","id":9,"id":10,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"execute",'
        b'"arguments":{"code":"a\\u0000b"}}}',
        execute(12, ""), execute(13, 5), execute(14, "x", language="ruby"),
        execute(15, "x", timeout_s=-1), execute(16, "x", timeout_s=1e9), execute(17, "x", foo=1),
        req(18, "tools/call", {"name": "nope"}), req(19, "tools/call", {}),
        {"jsonrpc": "2.0", "id": 20, "result": {}}, [req(21, "ping")]])
    mcp("new_session", EACH_END, [
        req(1, "tools/list"), b"\xff", req(2, "ping"), init("1999-01-01", 3), init("2025-11-25", 4),
        [req(5, "ping")], note("notifications/initialized"), req(6, "tools/list")])
    mcp("old_revision", EACH_END | 1, [
        req(1, "tools/list"), b"\xff", execute(2, "print(1)"), [req(3, "ping")]])
    mcp("narrow_tenant", EACH_END | 0x40 | 4, [
        execute(1, "x", language="javascript"), execute(2, "x", timeout_s=10),
        execute(3, "x", timeout_s=4), req(4, "tools/call", {"name": "get_sandbox_info"})])
    for k in (3, 40, 400):
        mcp(f"oom_{k}", EACH_END | 2, [
            req(1, "tools/list"), execute(2, "print(1)", stdin="in"),
            [req(3, "ping"), execute(4, "exit"), req(5, "resources/read", {"uri": "u"})],
            req(6, "tools/call", {"name": "get_sandbox_info"}), b"bad json",
            req(7, "prompts/get", {"name": "p"}),
            req(8, "tools/call", {"name": "execute", "arguments": {"code": "hang"},
                                  "_meta": {"progressToken": 8}}),
            note("notifications/cancelled", {"requestId": 8})], fail_alloc=k)
    mcp("one_job", 0x10 | 0x20 | 4, [
        execute(1, "print(1)"), execute(2, "print(2)"),
        req(3, "tools/call", {"name": "get_sandbox_info"})])


# ---- http: raw requests, connections split at CONN_SEP ----

def http(method, path, body=b"", headers=None, key=KEY_ALPHA, host="127.0.0.1:8000"):
    h = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    if key:
        h.append(f"Authorization: Bearer {key}")
    for k, v in (headers or {}).items():
        h.append(f"{k}: {v}")
    if body or method == "POST":
        h.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(h) + "\r\n\r\n").encode() + body


POST_HDRS = {"Content-Type": "application/json",
             "Accept": "application/json, text/event-stream"}


def post(body, sid=None, version=None, key=KEY_ALPHA, **extra):
    hdrs = dict(POST_HDRS)
    if sid:
        hdrs["Mcp-Session-Id"] = sid
    if version:
        hdrs["MCP-Protocol-Version"] = version
    hdrs.update(extra)
    return http("POST", "/mcp", msg(body) if not isinstance(body, bytes) else body, hdrs,
                key=key)


def gen_http():
    v = "2025-06-18"
    write("http", "streamable", b"".join([
        post(init(v)), post(note("notifications/initialized"), SID1, v),
        post(req(1, "tools/list"), SID1, v), post(execute(2, "print(1)"), SID1, v),
        post(req(3, "tools/call", {"name": "get_sandbox_info"}), SID1, v),
        http("DELETE", "/mcp", headers={"Mcp-Session-Id": SID1})]))
    write("http", "sse_progress", CONN_SEP.join([
        post(init("2025-11-25")),
        http("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": SID1}),
        post(req(1, "tools/call", {"name": "execute", "arguments": {"code": "slow"},
                                   "_meta": {"progressToken": 1}}), SID1, "2025-11-25"),
        http("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": SID1,
                                     "Last-Event-ID": "2-0"}),
        post(req(2, "tools/call", {"name": "execute", "arguments": {"code": "hang"},
                                   "_meta": {"progressToken": "t"}}), SID1, "2025-11-25"),
        post(note("notifications/cancelled", {"requestId": 2}), SID1, "2025-11-25")]))
    write("http", "legacy_sse", CONN_SEP.join([
        http("GET", "/sse", headers={"Accept": "text/event-stream"}),
        http("POST", f"/messages?sessionId={SID1}", msg(init("2024-11-05")),
             {"Content-Type": "application/json"}) +
        http("POST", f"/messages?session_id={SID1}", msg(note("notifications/initialized")),
             {"Content-Type": "application/json"}) +
        http("POST", f"/messages?sessionId={SID1}", msg(execute(1, "print(1)")),
             {"Content-Type": "application/json"}),
        http("POST", "/messages", msg(req(2, "ping")), {"Content-Type": "application/json"})]))
    write("http", "batch", b"".join([
        post(init("2025-03-26")), post(note("notifications/initialized"), SID1, "2025-03-26"),
        post([req(1, "ping"), execute(2, "exit"), note("notifications/x")], SID1, "2025-03-26"),
        post([note("notifications/x")], SID1, "2025-03-26"),
        post([], SID1, "2025-03-26")]))
    write("http", "guards", b"".join([
        http("GET", "/mcp", host="evil.example"),
        http("POST", "/mcp", b"{}", {"Origin": "https://evil.example"}),
        http("OPTIONS", "/mcp", headers={"Origin": "https://app.example",
                                         "Access-Control-Request-Method": "POST"}),
        http("OPTIONS", "/sse", headers={"Origin": "http://localhost:6274"}),
        http("GET", "/mcp", key=None), http("GET", "/mcp", key="cgk_wrong"),
        http("GET", "/metrics", host="mcp.example"), http("GET", "/healthz"),
        http("GET", "/nope"), http("PUT", "/mcp"),
        http("GET", "/mcp", headers={"Host": "127.0.0.1"}),
        post(req(1, "ping"), Accept="application/json"),
        post(req(1, "ping"), **{"Content-Type": "text/plain"}),
        post(b"{not json"), post(req(1, "ping")), post(req(1, "ping"), "f" * 32),
        post(req(1, "ping"), SID1, "1999-01-01"), post(init(v), SID1),
        post({"jsonrpc": "2.0"}), post([init(v)])]))
    write("http", "tenant_beta", b"".join([
        post(init(v), key=KEY_BETA), post(init(v), key=KEY_BETA),
        post(execute(1, "print(1)", language="javascript"), SID1, v, key=KEY_BETA),
        post(execute(2, "print(2)"), SID1, v, key=KEY_BETA),
        post(execute(3, "print(3)"), SID1, v, key=KEY_BETA),
        post(execute(4, "print(4)"), SID1, v, key=KEY_BETA)]))
    write("http", "tenant_beta_busy", CONN_SEP.join([
        post(init(v), key=KEY_BETA),
        post(execute(1, "hang"), SID1, v, key=KEY_BETA),
        post(execute(2, "print(2)"), SID1, v, key=KEY_BETA) +
        http("DELETE", "/mcp", headers={"Mcp-Session-Id": SID1}, key=KEY_BETA) +
        post(init(v), key=KEY_BETA)]))
    write("http", "many_conns", CONN_SEP.join(
        [http("GET", "/sse", headers={"Accept": "text/event-stream"})] * 8))
    write("http", "chunked", (
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + KEY_ALPHA +
        "\r\nContent-Type: application/json; charset=utf-8\r\n"
        "Accept: text/event-stream\r\nAccept: application/*\r\n"
        "Transfer-Encoding: chunked\r\n\r\n").encode() +
        b"%x\r\n" % len(msg(init(v))) + msg(init(v)) + b"\r\n0\r\n\r\n")


def gen_conf():
    for target in ("policy", "tenants"):
        os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    shutil.copy(os.path.join(ROOT, "etc", "jailer.conf"), os.path.join(CORPUS, "policy"))
    shutil.copy(os.path.join(ROOT, "etc", "tenants.conf"), os.path.join(CORPUS, "tenants"))
    write("policy", "minimal", b"[global]\nuid_base = 100000\ngid_base = 100000\n"
          b"uid_count = 8\nmax_jobs = 4\n")
    write("policy", "custom_profile", b"[global]\nallow_uid = 0\nallow_gid = root\n"
          b"cgroup = v2\ncgroup_root = /sys/fs/cgroup/cellgate\n"
          b"[profile ruby]\nlanguage = ruby\ninterpreter = /usr/bin/ruby\narg = {code}\n"
          b"code_name = main.rb\nro_path = /usr\nro_path = /lib\nenv = PATH=/usr/bin\n"
          b"env_allow = TZ\nnetwork = yes\ndefault_wall_ms = 1s\nmax_wall_ms = 2s\n"
          b"max_output = 4K\n")
    write("tenants", "minimal", b"[tenant a]\nlanguages = python\n")
    write("tenants", "full", b"; comment\n[tenant t-1]\nkey = sha256:" + b"ab" * 32 +
          b"\nkey = sha256:" + b"cd" * 32 + b"\nlanguages = python javascript\n"
          b"network = yes\nmax_timeout = 1500ms\nmax_cpu = 2s\nmax_memory = 1G\n"
          b"max_pids = 10\nmax_tmpfs = 512K\nmax_output = 1M\nmax_concurrent_jobs = 2\n"
          b"rate = 0.5\nburst = 3\ncpu_seconds_per_hour = 60\nmax_sessions = 2\n"
          b"[tenant t_2]\nlanguages = ruby\n")


def main():
    gen_mcp()
    gen_http()
    gen_conf()
    return 0


if __name__ == "__main__":
    sys.exit(main())
