/* MCP sessions over HTTP: ids from the CSPRNG bound to the tenant that
 * created them, the table they live in, idle expiry, and the routing of
 * each reply to the HTTP exchange (the POST, or the legacy SSE stream) it
 * belongs to, with SSE event ids unique per session and a bounded replay
 * store for resumption with Last-Event-ID.
 */
#ifndef CELLGATE_HTTP_SESSION_H
#define CELLGATE_HTTP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http_gateway.h"
#include "mcp.h"

struct evhttp_request;
struct sse_stream;
struct http_exchange;

#define HTTP_SESSION_ID_LEN 32 /* hex of 16 random bytes */

enum http_session_kind { HTTP_SESSION_STREAMABLE, HTTP_SESSION_LEGACY_SSE };

struct http_session {
	char id[HTTP_SESSION_ID_LEN + 1];
	enum http_session_kind kind;
	struct http_gateway *gw;
	struct tenant_state *ts;
	char key_id[TENANT_KEY_ID_LEN + 1];
	char client[64];
	struct mcp_session *mcp;
	struct mcp_config mcfg;
	struct job_observer observer;
	/* Streamable: the standalone GET stream; legacy: the stream every
	 * reply goes out on. */
	struct sse_stream *stream;
	struct http_exchange *exchanges;
	uint64_t next_stream_no;
	uint64_t last_used_ns;
	struct event *idle;
	struct http_session *hnext; /* hash chain */
	bool closing;
};

/* The table of live sessions. */
struct http_session_table *http_sessions_new(void);
void http_sessions_free(struct http_session_table *t); /* destroys every session */
size_t http_sessions_count(const struct http_session_table *t);

/* A new session for the caller: -EUSERS when the tenant has its maximum
 * of sessions, -ENOMEM.  The MCP session is created too. */
int http_session_create(struct http_gateway *gw, const struct http_caller *caller,
			enum http_session_kind kind, struct http_session **out);
/* The session with this id if it belongs to the caller's tenant, else NULL
 * (another tenant's session is as unknown as a missing one). */
struct http_session *http_session_find(struct http_gateway *gw, const char *id,
				       const struct http_caller *caller);
/* End the session: running jobs are killed, open streams and pending
 * requests are closed. */
void http_session_destroy(struct http_session *s);
void http_session_touch(struct http_session *s);

/* Hand one parsed message to the session's MCP layer.  nreplies: how many
 * final replies it will produce (0 or 1).  For Streamable HTTP with
 * nreplies 1 the answer goes back on `req`, as JSON or (sse) as an event
 * stream; extra_header/extra_value is added to the JSON reply (the
 * session id on initialize).  With nreplies 0 the caller answers 202
 * itself.  Legacy sessions send everything on their stream; req is unused. */
void http_session_dispatch(struct http_session *s, struct evhttp_request *req,
			   const struct jsonrpc_input *in, unsigned nreplies, bool sse);

/* Whether an execute would be admitted now (job_watch_precheck). */
int http_session_precheck(struct http_session *s, unsigned *retry_after_s, const char **reason);

/* GET with Last-Event-ID: attach a new stream to the exchange that id
 * belongs to and replay what followed it.  Returns 0, or -ENOENT when no
 * such exchange is kept (the caller opens a plain stream), -EBUSY when it
 * already has a live stream. */
int http_session_resume(struct http_session *s, struct evhttp_request *req,
			const char *last_event_id);
/* GET without Last-Event-ID: the standalone stream; -EBUSY if open. */
int http_session_open_stream(struct http_session *s, struct evhttp_request *req);

#endif
