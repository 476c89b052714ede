"""MCP over stdio: lifecycle, version negotiation, utilities, JSON-RPC errors,
tool listing and argument validation (reference/mcp-anchors.md §2-§5)."""
import json

from harness import LATEST, STRUCTURED_VERSIONS, VERSIONS, check, eq, short

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


def expect_error(msg, code, what):
    check("error" in msg, "%s: expected JSON-RPC error %d, got %s" % (what, code,
                                                                       short(json.dumps(msg))))
    err = msg["error"]
    check(isinstance(err, dict), "%s: error is not an object" % what)
    eq(err.get("code"), code, "%s: error code" % what)
    check(isinstance(err.get("message"), str) and err["message"],
          "%s: error has no message" % what)
    check("result" not in msg, "%s: response has both result and error" % what)


def test_initialize_each_version(ctx):
    for v in VERSIONS:
        c = ctx.gateway()
        res = c.initialize(v)
        eq(res.get("protocolVersion"), v, "initialize %s: protocolVersion" % v)
        info = res.get("serverInfo") or {}
        check(isinstance(info.get("name"), str) and info["name"],
              "initialize %s: serverInfo.name missing" % v)
        check(isinstance(info.get("version"), str), "initialize %s: serverInfo.version" % v)
        caps = res.get("capabilities")
        check(isinstance(caps, dict) and isinstance(caps.get("tools"), dict),
              "initialize %s: capabilities.tools missing: %r" % (v, caps))
        eq(c.result("ping"), {}, "ping after initialize %s" % v)


def test_unsupported_version_gets_latest(ctx):
    c = ctx.gateway()
    res = c.initialize("1999-01-01")
    eq(res.get("protocolVersion"), LATEST, "protocolVersion for an unsupported request")
    eq(c.result("ping"), {}, "ping")


def test_ping_and_notification_gets_no_reply(ctx):
    c = ctx.gateway()
    c.initialize()
    # notifications/initialized was sent by initialize(); a few more,
    # known and unknown, must all go unanswered.
    c.notify("notifications/initialized")
    c.notify("notifications/roots/list_changed")
    c.notify("notifications/no-such-thing", {"x": 1})
    c.send({"jsonrpc": "2.0", "method": "ping"})  # a ping without id is a notification
    id = c.send_request("ping")
    msg = c.recv(10)
    eq(msg.get("id"), id, "first message after notifications is the ping reply (id)")
    eq(msg.get("result"), {}, "ping result")
    extra = c.collect(0.5)
    check(not extra, "unexpected messages after notifications: %s" % short(json.dumps(extra)))


def test_tools_list_per_version(ctx):
    for v in VERSIONS:
        c = ctx.gateway()
        c.initialize(v)
        res = c.result("tools/list")
        tools = {t.get("name"): t for t in res.get("tools", [])}
        check({"execute", "get_sandbox_info"} <= set(tools),
              "%s: tools/list names %r" % (v, sorted(tools)))
        check(not res.get("nextCursor"), "%s: unexpected nextCursor" % v)
        for name, t in tools.items():
            schema = t.get("inputSchema")
            check(isinstance(schema, dict) and schema.get("type") == "object",
                  "%s: %s inputSchema %r" % (v, name, schema))
            check(isinstance(t.get("description"), str) and t["description"],
                  "%s: %s has no description" % (v, name))
            if v not in STRUCTURED_VERSIONS:
                check("outputSchema" not in t, "%s: %s has an outputSchema (only from "
                      "2025-06-18)" % (v, name))
        props = tools["execute"]["inputSchema"].get("properties", {})
        check({"code", "language", "timeout_s", "stdin"} <= set(props),
              "%s: execute properties %r" % (v, sorted(props)))
        eq(tools["execute"]["inputSchema"].get("required"), ["code"],
           "%s: execute required" % v)
        if v in STRUCTURED_VERSIONS:
            out = tools["execute"].get("outputSchema")
            check(isinstance(out, dict) and out.get("type") == "object",
                  "%s: execute outputSchema %r" % (v, out))
            check({"status", "exit_code", "stdout", "stderr", "execution_id"}
                  <= set(out.get("properties", {})),
                  "%s: outputSchema properties %r" % (v, sorted(out.get("properties", {}))))


def test_tools_list_unknown_cursor(ctx):
    c = ctx.client()
    msg = c.request("tools/list", {"cursor": "no-such-cursor"})
    expect_error(msg, INVALID_PARAMS, "tools/list with an unknown cursor")


def test_logging_set_level(ctx):
    c = ctx.client()
    for level in ("debug", "info", "warning", "error", "emergency"):
        eq(c.result("logging/setLevel", {"level": level}), {}, "logging/setLevel %s" % level)
    for bad in ({"level": "loud"}, {"level": 3}, {}):
        expect_error(c.request("logging/setLevel", bad), INVALID_PARAMS,
                     "logging/setLevel %s" % json.dumps(bad))


def test_unknown_method(ctx):
    c = ctx.client()
    for m in ("no/such/method", "resources/subscribe_not", "tools/delete"):
        expect_error(c.request(m, {}), METHOD_NOT_FOUND, "method %s" % m)


def test_parse_error(ctx):
    c = ctx.client()
    for raw in (b'{"jsonrpc":"2.0","id":1,', b"not json at all", b'{"jsonrpc":"2.0","id":1}}',
                b"\xff\xfe{}"):
        c.send_raw(raw + b"\n")
        msg = c.recv(10)
        expect_error(msg, PARSE_ERROR, "line %r" % raw)
        eq(msg.get("id"), None, "id of a parse error reply to %r" % raw)
    eq(c.result("ping"), {}, "ping after parse errors")


def test_invalid_request(ctx):
    c = ctx.client()
    cases = [
        {"jsonrpc": "2.0", "id": 7},                               # no method
        {"jsonrpc": "1.0", "id": 8, "method": "ping"},             # wrong version
        {"id": 9, "method": "ping"},                               # no jsonrpc
        {"jsonrpc": "2.0", "id": 10, "method": 42},                # method not a string
        {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},      # id not string/number
        {"jsonrpc": "2.0", "id": 11, "method": "ping", "params": 5},  # params not structured
        "a string",
        42,
    ]
    for i, case in enumerate(cases):
        c.send_raw(json.dumps(case) + "\n")
        msg = c.recv(10)
        what = "request %s" % json.dumps(case)
        if i == 5 and msg.get("error", {}).get("code") == INVALID_PARAMS:
            expect_error(msg, INVALID_PARAMS, what)  # either code is fair for bad params
        else:
            expect_error(msg, INVALID_REQUEST, what)
        if isinstance(case, dict) and isinstance(case.get("id"), (int, str)):
            eq(msg.get("id"), case["id"], "reply id for %s" % json.dumps(case))
    eq(c.result("ping"), {}, "ping after invalid requests")


def test_string_and_large_ids_echoed(ctx):
    c = ctx.client()
    for id in ("abc", "", 0, -5, 2 ** 53 - 1, "x" * 200):
        c.send({"jsonrpc": "2.0", "id": id, "method": "ping"})
        msg = c.recv(10)
        eq(msg.get("id"), id, "echoed id")
        eq(msg.get("result"), {}, "ping result for id %r" % (id,))


def test_oversized_line_rejected(ctx):
    c = ctx.client()
    big = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"%s"}}\n' % ("x" * (17 << 20))
    c.send_raw(big)
    msg = c.recv(20)
    expect_error(msg, INVALID_REQUEST, "a 17 MiB line")
    eq(c.result("ping"), {}, "ping after an oversized line")


def test_unknown_tool(ctx):
    c = ctx.client()
    msg = c.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    expect_error(msg, INVALID_PARAMS, "tools/call of an unknown tool")
    msg = c.request("tools/call", {"arguments": {}})
    expect_error(msg, INVALID_PARAMS, "tools/call without a name")


def test_bad_execute_arguments(ctx):
    c = ctx.client()
    cases = [
        ("missing code", {}),
        ("empty code", {"code": ""}),
        ("code not a string", {"code": 5}),
        ("language ruby", {"code": "print(1)", "language": "ruby"}),
        ("language not a string", {"code": "print(1)", "language": ["python"]}),
        ("timeout_s 0", {"code": "print(1)", "timeout_s": 0}),
        ("timeout_s -1", {"code": "print(1)", "timeout_s": -1}),
        ("timeout_s 1000", {"code": "print(1)", "timeout_s": 1000}),
        ("timeout_s string", {"code": "print(1)", "timeout_s": "x"}),
        ("unknown property", {"code": "print(1)", "network": True}),
        ("stdin not a string", {"code": "print(1)", "stdin": 5}),
        ("code over 1 MiB", {"code": "#" * ((1 << 20) + 1)}),
    ]
    for what, args in cases:
        res = c.call_tool("execute", args)
        check(res.get("isError") is True, "%s: isError %r in %s" % (what, res.get("isError"),
                                                                    short(json.dumps(res))))
        texts = [b.get("text", "") for b in res.get("content", []) if b.get("type") == "text"]
        check(texts and all(texts) and any(len(t) > 5 for t in texts),
              "%s: no explanatory text: %s" % (what, short(json.dumps(res))))
    # The session is fine afterwards.
    _, sc = c.execute("print(1)")
    eq((sc["status"], sc["stdout"]), ("ok", "1\n"), "execute after bad arguments")
test_bad_execute_arguments.timeout = 90


def test_arguments_not_an_object(ctx):
    c = ctx.client()
    msg = c.request("tools/call", {"name": "execute", "arguments": "print(1)"})
    if "error" in msg:
        expect_error(msg, INVALID_PARAMS, "tools/call with string arguments")
    else:
        check(msg["result"].get("isError") is True,
              "tools/call with string arguments: neither an error nor isError")


def test_get_sandbox_info(ctx):
    for v in (LATEST, "2024-11-05"):
        c = ctx.client(v)
        res = c.call_tool("get_sandbox_info", {})
        check(not res.get("isError"), "get_sandbox_info isError: %s" % short(json.dumps(res)))
        info = res.get("structuredContent")
        if v in STRUCTURED_VERSIONS:
            check(isinstance(info, dict), "%s: no structuredContent" % v)
        else:
            check("structuredContent" not in res, "%s: structuredContent before 2025-06-18" % v)
            info = json.loads(res["content"][0]["text"])
        langs = [x.get("language") if isinstance(x, dict) else x for x in info.get("languages", [])]
        check({"python", "javascript"} <= set(langs), "%s: languages %r" % (v, langs))
        check(info.get("network") is False, "%s: network %r (must be off)" % (v, info.get("network")))
