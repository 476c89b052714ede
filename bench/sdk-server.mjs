// The comparison peer for bench/http-bench.sh: the official MCP TypeScript
// SDK (pinned in bench/package.json) serving Streamable HTTP at /mcp in
// stateful mode, one transport and one McpServer per session, JSON
// responses (enableJsonResponse) so tools/list answers application/json as
// cellgate does.  Plain node:http, no express, no auth.
//
//   npm install --prefix bench
//   node bench/sdk-server.mjs PORT [HOST]
//
// Prints "listening HOST:PORT" on stdout once the socket is bound (PORT 0
// picks a free port; the line names the one bound).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

const port = Number.parseInt(process.argv[2] ?? '', 10);
const host = process.argv[3] ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
	console.error('usage: node sdk-server.mjs PORT [HOST]');
	process.exit(2);
}

// Bodies larger than this are refused, as a real server would.
const MAX_BODY = 4 * 1024 * 1024;
const sessions = new Map(); // Mcp-Session-Id -> StreamableHTTPServerTransport

function newServer() {
	const server = new McpServer({ name: 'sdk-bench-server', version: '1.0.0' });
	// A trivial stand-in with the same name and input shape as cellgate's tool,
	// so tools/list returns a comparable (if shorter) answer.
	server.registerTool(
		'execute',
		{
			description: 'Echo the code back (benchmark stand-in; runs nothing).',
			inputSchema: {
				code: z.string().describe('Source code'),
				language: z.enum(['python', 'javascript']).optional(),
			},
		},
		async ({ code }) => ({ content: [{ type: 'text', text: code }] }),
	);
	return server;
}

function sendJsonError(res, status, code, message) {
	if (res.headersSent)
		return;
	res.writeHead(status, { 'Content-Type': 'application/json' });
	res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let size = 0;
		req.on('data', (c) => {
			size += c.length;
			if (size > MAX_BODY) {
				reject(new Error('body too large'));
				req.destroy();
				return;
			}
			chunks.push(c);
		});
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

async function handle(req, res) {
	const url = new URL(req.url ?? '/', 'http://localhost');
	if (url.pathname !== '/mcp') {
		res.writeHead(404).end();
		return;
	}
	const sid = req.headers['mcp-session-id'];
	if (req.method !== 'POST') {
		// GET (standalone SSE stream) and DELETE go to the session's transport.
		const t = typeof sid === 'string' ? sessions.get(sid) : undefined;
		if (!t) {
			sendJsonError(res, sid ? 404 : 400, -32000, 'Missing or unknown session');
			return;
		}
		await t.handleRequest(req, res);
		return;
	}

	let body;
	try {
		body = JSON.parse(await readBody(req));
	} catch {
		sendJsonError(res, 400, -32700, 'Parse error');
		return;
	}
	if (typeof sid === 'string') {
		const t = sessions.get(sid);
		if (!t) {
			sendJsonError(res, 404, -32001, 'Session not found');
			return;
		}
		await t.handleRequest(req, res, body);
		return;
	}
	if (!isInitializeRequest(body)) {
		sendJsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
		return;
	}
	const transport = new StreamableHTTPServerTransport({
		sessionIdGenerator: () => randomUUID(),
		enableJsonResponse: true,
		onsessioninitialized: (id) => {
			sessions.set(id, transport);
		},
	});
	transport.onclose = () => {
		if (transport.sessionId)
			sessions.delete(transport.sessionId);
	};
	await newServer().connect(transport);
	await transport.handleRequest(req, res, body);
}

const httpServer = createServer((req, res) => {
	handle(req, res).catch((err) => {
		console.error('request failed:', err);
		sendJsonError(res, 500, -32603, 'Internal server error');
	});
});
// Keep-alive connections of the load client stay open for the whole run.
httpServer.keepAliveTimeout = 120000;
httpServer.headersTimeout = 125000;
httpServer.listen(port, host, () => {
	console.log(`listening ${host}:${httpServer.address().port}`);
});
for (const sig of ['SIGINT', 'SIGTERM'])
	process.on(sig, () => process.exit(0));
