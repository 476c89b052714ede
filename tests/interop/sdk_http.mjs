// cellgate's HTTP transports (Streamable HTTP at /mcp, legacy HTTP+SSE at
// /sse + /messages), driven by the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk v1, pinned in package.json).
//
//   CELLGATE_KEY=cgk_... [CELLGATE_OTHER_KEY=cgk_...] \
//     node tests/interop/sdk_http.mjs http://127.0.0.1:PORT
//
// CELLGATE_KEY is a valid tenant key; CELLGATE_OTHER_KEY, if set, is a valid
// key of a different tenant (used to check that a session is bound to its
// tenant).  Keys come from the environment so that they never show in ps.
// Prints `ok NAME` / `FAIL NAME: reason` / `skip NAME: reason` per check and,
// last, `RESULT passed=N failed=N skipped=N`.  Exits 0 iff nothing failed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import http from 'node:http';

const [base] = process.argv.slice(2);
const key = process.env.CELLGATE_KEY;
const otherKey = process.env.CELLGATE_OTHER_KEY;
if (!base || !key) {
  console.error('usage: CELLGATE_KEY=KEY sdk_http.mjs http://HOST:PORT');
  process.exit(2);
}
const mcpUrl = new URL('/mcp', base);
const sseUrl = new URL('/sse', base);

const CALL_TIMEOUT_MS = 30000;
let passed = 0;
let failed = 0;
let skipped = 0;

function finish() {
  console.log(`RESULT passed=${passed} failed=${failed} skipped=${skipped}`);
  process.exit(failed === 0 ? 0 : 1);
}

// Never hang: a watchdog ends the run with a failure.
const watchdog = setTimeout(() => {
  console.log('FAIL interop.http.watchdog: the HTTP interop run took longer than 150 s');
  failed++;
  finish();
}, 150000);

class Skip extends Error {}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

function oneLine(e) {
  return String(e && e.message ? e.message : e).replace(/\s+/g, ' ').slice(0, 400);
}

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok interop.${name}`);
  } catch (e) {
    if (e instanceof Skip) {
      skipped++;
      console.log(`skip interop.${name}: ${e.message}`);
      return;
    }
    failed++;
    console.log(`FAIL interop.${name}: ${oneLine(e)}`);
  }
}

function brief(v) {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 300 ? s.slice(0, 300) + '...' : s;
}

function bearer(k) {
  return k === undefined ? {} : { Authorization: `Bearer ${k}` };
}

function newClient() {
  return new Client({ name: 'cellgate-interop-http', version: '0.0.0' }, { capabilities: {} });
}

function httpTransport(k) {
  return new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: bearer(k) } });
}

function sseTransport(k) {
  return new SSEClientTransport(sseUrl, { requestInit: { headers: bearer(k) } });
}

function exec(client, args, options = {}) {
  return client.callTool({ name: 'execute', arguments: args }, undefined,
    { timeout: CALL_TIMEOUT_MS, ...options });
}

// Connecting with a missing or wrong key must fail with HTTP 401, and the
// SDK reports the status as the error's code.
async function expect401(client, transport) {
  let threw = null;
  try {
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  } catch (e) {
    threw = e;
  }
  await client.close().catch(() => {});
  assert(threw, 'connected without a valid key');
  assert(threw.code === 401, `error code ${threw.code}: ${oneLine(threw)}`);
}

// A raw POST to /mcp, for what the SDK hides (headers, status codes).
function rawPost(body, headers) {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

// ------------------------------------------------------------ Streamable HTTP
const client = newClient();
const transport = httpTransport(key);
let connected = false;
await check('http.connect', async () => {
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  connected = true;
  const info = client.getServerVersion();
  assert(info && typeof info.name === 'string', `serverInfo ${brief(info)}`);
  assert(client.getServerCapabilities()?.tools, `capabilities ${brief(client.getServerCapabilities())}`);
  assert(typeof transport.sessionId === 'string' && transport.sessionId.length > 0,
    `no Mcp-Session-Id (${transport.sessionId})`);
});

if (connected) {
  await check('http.negotiated_latest_version', async () => {
    assert(transport.protocolVersion === LATEST_PROTOCOL_VERSION,
      `negotiated ${transport.protocolVersion}`);
  });

  await check('http.ping', async () => {
    await client.ping({ timeout: CALL_TIMEOUT_MS });
  });

  await check('http.list_tools', async () => {
    const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert(byName.execute && byName.get_sandbox_info, `tools ${Object.keys(byName)}`);
    assert(byName.execute.outputSchema?.type === 'object',
      `execute outputSchema ${brief(byName.execute.outputSchema)}`);
  });

  await check('http.execute_python', async () => {
    const r = await exec(client, { code: 'print(1)' });
    assert(r.isError === false || r.isError === undefined, `isError ${brief(r)}`);
    assert(r.structuredContent?.stdout === '1\n', `stdout ${brief(r.structuredContent)}`);
    assert(r.structuredContent.status === 'ok', `status ${r.structuredContent.status}`);
  });

  await check('http.execute_with_progress', async () => {
    const seen = [];
    const r = await exec(client,
      { code: 'import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(1)' },
      { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true });
    assert(seen.length >= 1, 'no notifications/progress arrived');
    for (let i = 1; i < seen.length; i++) {
      assert(seen[i].progress > seen[i - 1].progress,
        `progress not strictly increasing: ${brief(seen.map((p) => p.progress))}`);
    }
    assert(!r.isError, `isError ${brief(r)}`);
    assert(r.structuredContent?.stdout === '0\n1\n2\n', `stdout ${brief(r.structuredContent)}`);
  });

  await check('http.failing_program_is_error', async () => {
    const r = await exec(client, { code: 'import sys\nsys.exit(3)' });
    assert(r.isError === true, `isError ${r.isError}`);
    assert(r.structuredContent?.exit_code === 3, `result ${brief(r.structuredContent)}`);
  });

  await check('http.execute_javascript', async () => {
    const r = await exec(client, { code: 'console.log(6*7)', language: 'javascript' });
    assert(!r.isError, `isError ${brief(r)}`);
    assert(r.structuredContent?.stdout === '42\n', `stdout ${brief(r.structuredContent)}`);
  });

  await check('http.get_sandbox_info', async () => {
    const r = await client.callTool({ name: 'get_sandbox_info', arguments: {} }, undefined,
      { timeout: CALL_TIMEOUT_MS });
    assert(!r.isError, `isError ${brief(r)}`);
    const info = r.structuredContent ?? JSON.parse(r.content[0].text);
    const langs = (info.languages || []).map((l) => (typeof l === 'string' ? l : l.language));
    assert(langs.includes('python') && langs.includes('javascript'), `languages ${brief(langs)}`);
  });

  // Sessions must not be authentication: another tenant's valid key cannot
  // use this session (404, or 403).
  await check('http.session_bound_to_tenant', async () => {
    if (!otherKey) throw new Skip('CELLGATE_OTHER_KEY not set');
    const res = await rawPost({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, {
      ...bearer(otherKey),
      'Mcp-Session-Id': transport.sessionId,
      'MCP-Protocol-Version': transport.protocolVersion,
    });
    await res.body?.cancel();
    assert(res.status === 404 || res.status === 403, `status ${res.status}`);
  });

  await check('http.close', async () => {
    await client.close();
  });
}

// ------------------------------------------------ HTTP/1.1 keep-alive
// One keep-alive connection (node:http, one socket): a tools/call answered
// as an SSE stream (it carries a progressToken), then a ping.  Clients pool
// connections, so a connection that stops answering after a streamed reply
// hangs some later, unrelated request.
function onSocket(agent, method, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent, host: mcpUrl.hostname, port: mcpUrl.port, path: mcpUrl.pathname, method,
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
        ...bearer(key), ...headers,
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.setTimeout(10000, () => req.destroy(new Error(`${method} ${body?.method}: no reply within 10 s`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

// The JSON-RPC messages of a reply: one JSON body, or an SSE stream's
// data fields (events are separated by blank lines).
function messages(reply) {
  if (/^application\/json/.test(reply.headers['content-type'] || '')) return [JSON.parse(reply.text)];
  return reply.text.split(/\r?\n\r?\n/).map((ev) => ev.split(/\r?\n/)
    .filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n'))
    .filter((d) => d.trim() !== '').map((d) => JSON.parse(d));
}

function hasResult(reply, id) {
  return messages(reply).some((m) => m.id === id && m.result !== undefined);
}

await check('http.keepalive_after_sse_response', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const init = await onSocket(agent, 'POST', {
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {},
        clientInfo: { name: 'cellgate-interop-http', version: '0.0.0' } },
    }, {});
    const sid = init.headers['mcp-session-id'];
    assert(init.status === 200 && sid, `initialize: ${init.status} ${brief(init.text)}`);
    const s = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION };
    const note = await onSocket(agent, 'POST',
      { jsonrpc: '2.0', method: 'notifications/initialized' }, s);
    assert(note.status === 202, `notifications/initialized: ${note.status}`);
    const call = await onSocket(agent, 'POST', {
      jsonrpc: '2.0', id: 2, method: 'tools/call',
      params: { name: 'execute', arguments: { code: 'print(1)' }, _meta: { progressToken: 'k' } },
    }, s);
    assert(call.status === 200 && /^text\/event-stream/.test(call.headers['content-type'] || ''),
      `tools/call with progressToken: ${call.status} ${call.headers['content-type']}`);
    assert(hasResult(call, 2), `no result in the stream: ${brief(call.text)}`);
    const ping = await onSocket(agent, 'POST', { jsonrpc: '2.0', id: 3, method: 'ping' }, s);
    assert(ping.status === 200 && hasResult(ping, 3),
      `ping after the stream: ${ping.status} ${brief(ping.text)}`);
    await onSocket(agent, 'DELETE', undefined, s);
  } finally {
    agent.destroy();
  }
});

// ----------------------------------------------------------------- auth
await check('http.no_key_is_401', async () => {
  await expect401(newClient(), httpTransport(undefined));
});

await check('http.wrong_key_is_401', async () => {
  await expect401(newClient(), httpTransport(`${key}x`));
});

// RFC 6750 §3: a 401 carries a Bearer challenge.
await check('http.401_has_bearer_challenge', async () => {
  const res = await rawPost({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {},
      clientInfo: { name: 'cellgate-interop-http', version: '0.0.0' } },
  }, {});
  await res.body?.cancel();
  assert(res.status === 401, `status ${res.status}`);
  const www = res.headers.get('www-authenticate') || '';
  assert(/^Bearer\b/i.test(www), `WWW-Authenticate "${www}"`);
});

// ------------------------------------------------------- legacy HTTP+SSE
const sseClient = newClient();
let sseConnected = false;
await check('sse.connect', async () => {
  await sseClient.connect(sseTransport(key), { timeout: CALL_TIMEOUT_MS });
  sseConnected = true;
  assert(sseClient.getServerCapabilities()?.tools,
    `capabilities ${brief(sseClient.getServerCapabilities())}`);
});

if (sseConnected) {
  await check('sse.list_tools', async () => {
    const { tools } = await sseClient.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    const names = tools.map((t) => t.name);
    assert(names.includes('execute') && names.includes('get_sandbox_info'), `tools ${names}`);
  });

  await check('sse.execute_python', async () => {
    const r = await exec(sseClient, { code: 'print(6*7)' });
    assert(!r.isError, `isError ${brief(r)}`);
    assert(r.structuredContent?.stdout === '42\n', `stdout ${brief(r.structuredContent)}`);
  });

  await check('sse.close', async () => {
    await sseClient.close();
  });
}

await check('sse.no_key_is_401', async () => {
  await expect401(newClient(), sseTransport(undefined));
});

// ----------------------------------------------------- session termination
await check('http.terminated_session_is_404', async () => {
  const c = newClient();
  const t = httpTransport(key);
  await c.connect(t, { timeout: CALL_TIMEOUT_MS });
  const sid = t.sessionId;
  const version = t.protocolVersion;
  assert(sid, 'no session id');
  try {
    await t.terminateSession();  // DELETE; throws on anything but 2xx or 405
    assert(t.sessionId === undefined, 'the server answered DELETE with 405');
  } finally {
    await c.close().catch(() => {});
  }
  const res = await rawPost({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { ...bearer(key), 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': version });
  await res.body?.cancel();
  assert(res.status === 404, `request on the terminated session: status ${res.status}`);
});

clearTimeout(watchdog);
finish();
