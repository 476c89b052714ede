// cellgate over stdio, driven by the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package.json).
//
//   node tests/interop/sdk_stdio.mjs CELLGATE_BINARY JAILER_SOCKET
//
// Prints `ok NAME` / `FAIL NAME: reason` per check and, last,
// `RESULT passed=N failed=N skipped=N`.  Exits 0 iff nothing failed.  The
// SDK itself validates every message, and validates structuredContent
// against the tool's outputSchema, so a pass here means the official
// client accepts what cellgate sends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const [gatewayBin, jailerSocket] = process.argv.slice(2);
if (!gatewayBin || !jailerSocket) {
  console.error('usage: sdk_stdio.mjs CELLGATE_BINARY JAILER_SOCKET');
  process.exit(2);
}

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
  console.log('FAIL interop.watchdog: the interop run took longer than 150 s');
  failed++;
  finish();
}, 150000);

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok interop.${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL interop.${name}: ${String(e && e.message ? e.message : e).replace(/\s+/g, ' ')}`);
  }
}

function exec(client, args, options = {}) {
  return client.callTool({ name: 'execute', arguments: args }, undefined,
    { timeout: CALL_TIMEOUT_MS, ...options });
}

function brief(v) {
  const s = JSON.stringify(v);
  return s.length > 300 ? s.slice(0, 300) + '...' : s;
}

const client = new Client({ name: 'cellgate-interop', version: '0.0.0' }, { capabilities: {} });
const transport = new StdioClientTransport({
  command: gatewayBin,
  args: ['--stdio', '--jailer-socket', jailerSocket],
  stderr: 'inherit',
});
// The client hands the negotiated version to transports that want it.
let negotiated;
transport.setProtocolVersion = (v) => { negotiated = v; };

let connected = false;
await check('connect', async () => {
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  connected = true;
  const info = client.getServerVersion();
  assert(info && typeof info.name === 'string', `serverInfo ${brief(info)}`);
  const caps = client.getServerCapabilities();
  assert(caps && caps.tools, `capabilities ${brief(caps)}`);
});

if (connected) {
  await check('negotiated_latest_version', async () => {
    // The SDK offers its latest version; a server that supports it echoes it.
    assert(negotiated === LATEST_PROTOCOL_VERSION, `negotiated ${negotiated}`);
  });

  await check('ping', async () => {
    await client.ping({ timeout: CALL_TIMEOUT_MS });
  });

  await check('list_tools', async () => {
    const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert(byName.execute && byName.get_sandbox_info, `tools ${Object.keys(byName)}`);
    assert(byName.execute.outputSchema && byName.execute.outputSchema.type === 'object',
      `execute outputSchema ${brief(byName.execute.outputSchema)}`);
    assert(byName.execute.inputSchema.required?.includes('code'), 'code not required');
  });

  await check('execute_python', async () => {
    const r = await exec(client, { code: 'print(6*7)' });
    assert(!r.isError, `isError ${brief(r)}`);
    assert(r.structuredContent?.stdout === '42\n', `stdout ${brief(r.structuredContent)}`);
    assert(r.structuredContent.status === 'ok', `status ${r.structuredContent.status}`);
    assert(r.content?.[0]?.type === 'text', `content ${brief(r.content)}`);
  });

  await check('execute_javascript', async () => {
    const r = await exec(client, { code: 'console.log(6*7)', language: 'javascript' });
    assert(!r.isError, `isError ${brief(r)}`);
    assert(r.structuredContent?.stdout === '42\n', `stdout ${brief(r.structuredContent)}`);
  });

  await check('get_sandbox_info', async () => {
    const r = await client.callTool({ name: 'get_sandbox_info', arguments: {} }, undefined,
      { timeout: CALL_TIMEOUT_MS });
    assert(!r.isError, `isError ${brief(r)}`);
    const info = r.structuredContent ?? JSON.parse(r.content[0].text);
    const langs = (info.languages || []).map((l) => (typeof l === 'string' ? l : l.language));
    assert(langs.includes('python') && langs.includes('javascript'), `languages ${brief(langs)}`);
  });

  await check('failing_program_is_error', async () => {
    const r = await exec(client, { code: 'import sys\nsys.exit(3)' });
    assert(r.isError === true, `isError ${r.isError}`);
    assert(r.structuredContent?.status === 'exit', `status ${brief(r.structuredContent)}`);
    assert(r.structuredContent.exit_code === 3, `exit_code ${r.structuredContent.exit_code}`);
  });

  await check('timeout_status', async () => {
    const r = await exec(client, { code: 'while True: pass', timeout_s: 1 });
    assert(r.isError === true && r.structuredContent?.status === 'timeout',
      `result ${brief(r.structuredContent)}`);
  });

  await check('bad_argument_is_tool_error', async () => {
    const r = await exec(client, { code: 'print(1)', language: 'ruby' });
    assert(r.isError === true, `isError ${r.isError}`);
    assert(r.content?.some((b) => b.type === 'text' && b.text.length > 0), 'no message');
  });

  await check('unknown_tool_is_protocol_error', async () => {
    let threw = null;
    try {
      await client.callTool({ name: 'no_such_tool', arguments: {} }, undefined,
        { timeout: CALL_TIMEOUT_MS });
    } catch (e) {
      threw = e;
    }
    assert(threw, 'no error for an unknown tool');
    assert(threw.code === -32602, `error code ${threw.code}: ${threw.message}`);
  });

  await check('concurrent_calls', async () => {
    const rs = await Promise.all([0, 1, 2, 3].map((i) =>
      exec(client, i % 2 ? { code: `console.log(${i})`, language: 'javascript' }
        : { code: `print(${i})` })));
    rs.forEach((r, i) => assert(r.structuredContent?.stdout === `${i}\n`,
      `call ${i}: ${brief(r.structuredContent)}`));
    const ids = new Set(rs.map((r) => r.structuredContent.execution_id));
    assert(ids.size === 4, 'execution_ids not distinct');
  });

  await check('cancel_with_abort_signal', async () => {
    const ac = new AbortController();
    const p = exec(client, { code: 'import time\ntime.sleep(30)' }, { signal: ac.signal });
    setTimeout(() => ac.abort('test'), 500);
    let threw = false;
    try {
      await p;
    } catch (e) {
      threw = true;
    }
    assert(threw, 'the aborted call resolved');
    const r = await exec(client, { code: 'print("after")' });
    assert(r.structuredContent?.stdout === 'after\n', `after cancel ${brief(r.structuredContent)}`);
  });

  await check('close', async () => {
    await client.close();
  });
}

clearTimeout(watchdog);
finish();
