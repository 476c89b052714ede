/* MCP session: lifecycle (initialize / initialized, version negotiation),
 * ping, tools/list, tools/call, logging/setLevel, notifications/cancelled.
 * Transport-neutral: a transport hands it one complete JSON-RPC message at a
 * time and gives it a function to send one complete message back.
 */
#ifndef CELLGATE_MCP_H
#define CELLGATE_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include "exec_backend.h"

/* Largest single JSON-RPC message the gateway accepts (a line on stdio).
 * Room for 1 MiB of code and 1 MiB of stdin even if every byte arrives as a
 * six-byte \u escape. */
#define MCP_MAX_MESSAGE_BYTES (16u * 1024u * 1024u)

struct mcp_session;

/* Send one serialized JSON-RPC message (no trailing newline; the transport
 * frames it).  `json` is valid only during the call. */
typedef void (*mcp_send_fn)(const char *json, size_t len, void *arg);

struct mcp_config {
	const char *server_name;    /* "cellgate" */
	const char *server_version; /* CELLGATE_VERSION */
	unsigned max_concurrent_jobs; /* per session; above it execute answers isError */
	const struct tenant_limits *tenant; /* the caller's ceilings */
};

struct mcp_session *mcp_session_new(const struct mcp_config *cfg, struct exec_backend *backend,
				    mcp_send_fn send, void *send_arg);

/* Handle one raw message (bytes of one line on stdio, one POST body on
 * HTTP).  Replies go out through `send`, now or later (tools/call). */
void mcp_session_handle(struct mcp_session *s, const char *data, size_t len);

/* Answer a message the transport discarded for being longer than
 * MCP_MAX_MESSAGE_BYTES: -32600 with the id written as the negotiated
 * revision wants (null, or absent from 2025-11-25). */
void mcp_session_reject_oversized(struct mcp_session *s);

/* Number of requests still awaiting a reply (running tools/call). */
size_t mcp_session_pending(const struct mcp_session *s);

/* Abandon running jobs (they are killed) and free the session; no replies
 * are sent after this. */
void mcp_session_free(struct mcp_session *s);

#endif
