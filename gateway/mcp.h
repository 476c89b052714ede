/* MCP session: lifecycle (initialize / initialized, version negotiation),
 * ping, tools/list, tools/call, logging/setLevel, notifications/cancelled,
 * and an empty resources and prompts catalog (declared so that clients
 * that list them unconditionally get an answer, not an error).
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
struct event_base;
struct jsonrpc_input;

/* What a sent message is to the request context it belongs to. */
enum mcp_send_kind {
	/* The reply that ends the exchange of that context: the response to
	 * its request, the array answering its batch, or an error about the
	 * whole message. */
	MCP_SEND_FINAL,
	/* A notification about a request of that context (progress); more
	 * follows. */
	MCP_SEND_RELATED,
	/* No reply will come (the request was cancelled); json is NULL. */
	MCP_SEND_NONE,
};

/* Send one serialized JSON-RPC message (no trailing newline; the transport
 * frames it).  `json` is valid only during the call.  `ctx` is the context
 * passed with the message being answered (NULL for mcp_session_handle). */
typedef void (*mcp_send_fn)(const char *json, size_t len, enum mcp_send_kind kind, void *ctx,
			    void *arg);

struct job_request;
struct job_outcome;

/* Who watches the jobs of a session: admission (per-tenant concurrency and
 * quotas), the audit log and metrics.  Every hook is optional. */
struct job_observer {
	/* Called just before a job is handed to the jailer (req->job_id is
	 * set).  0 lets it run and *token is handed to `finished`; a negative
	 * errno refuses it and `msg` (NUL-terminated, for the model) says
	 * why: the call is answered with isError. */
	int (*admit)(void *arg, const struct job_request *req, const char *language, void **token,
		     char *msg, size_t msgsize);
	/* Exactly once per admitted job, when it has ended; out is NULL when
	 * the job was abandoned (its session went away, the jailer kills it). */
	void (*finished)(void *arg, void *token, const struct job_outcome *out);
	void *arg;
};

struct mcp_config {
	const char *server_name;    /* "cellgate" */
	const char *server_version; /* CELLGATE_VERSION */
	unsigned max_concurrent_jobs; /* per session; above it execute answers isError */
	const struct tenant_limits *tenant; /* the caller's ceilings */
	const struct job_observer *observer; /* NULL: none */
	/* Progress for tools/call with _meta.progressToken (NULL base: no
	 * progress notifications). */
	struct event_base *base;
	unsigned progress_interval_ms;
	size_t progress_message_bytes;
};

struct mcp_session *mcp_session_new(const struct mcp_config *cfg, struct exec_backend *backend,
				    mcp_send_fn send, void *send_arg);

/* Handle one raw message (bytes of one line on stdio, one POST body on
 * HTTP).  Replies go out through `send`, now or later (tools/call). */
void mcp_session_handle(struct mcp_session *s, const char *data, size_t len);

/* The same for a message the transport has already parsed (in.root stays
 * the caller's); replies for it carry `ctx`. */
void mcp_session_handle_parsed(struct mcp_session *s, const struct jsonrpc_input *in, void *ctx);

/* The revision agreed in initialize, MCP_VERSION_NONE before. */
int mcp_session_version(const struct mcp_session *s);
/* Whether initialize has been answered. */
bool mcp_session_initialized(const struct mcp_session *s);

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
