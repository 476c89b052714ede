/* Streamable HTTP (MCP 2025-03-26 .. 2025-11-25) at /mcp, and the legacy
 * HTTP+SSE transport (2024-11-05) at /sse and /messages.  The router
 * (http_server.c) has already checked Host, Origin, the key and the rate.
 */
#ifndef CELLGATE_TRANSPORT_HTTP_H
#define CELLGATE_TRANSPORT_HTTP_H

#include "http_gateway.h"

struct evhttp_request;

void transport_http_handle(struct http_gateway *gw, struct evhttp_request *req,
			   const struct http_caller *caller);
void transport_sse_get(struct http_gateway *gw, struct evhttp_request *req,
		       const struct http_caller *caller);
void transport_sse_post(struct http_gateway *gw, struct evhttp_request *req,
			const struct http_caller *caller);

/* Shared by both: the POST body as a parsed message, or an error answered
 * (400 parse error).  Returns 0 or -1 (answered). */
struct jsonrpc_input;
int transport_read_body(struct evhttp_request *req, struct jsonrpc_input *in);
/* Answer 429 or 503 when the message holds an execute call that would not
 * be admitted now.  Returns 0 or -1 (answered). */
struct http_session;
int transport_admit(struct http_gateway *gw, struct evhttp_request *req, const char *transport,
		    const struct http_caller *caller, struct http_session *s,
		    const struct jsonrpc_input *in);

#endif
