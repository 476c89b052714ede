/* The legacy HTTP+SSE transport (MCP 2024-11-05): GET /sse opens a session
 * and its stream and names the POST endpoint in an `endpoint` event; each
 * POST /messages?sessionId=ID is answered 202 and its replies go out on
 * the stream as `message` events.  Closing the stream ends the session.
 */
#include <errno.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <sys/queue.h>
#include <stdio.h>
#include <string.h>

#include "http_guard.h"
#include "http_headers.h"
#include "http_reply.h"
#include "http_session.h"
#include "jsonrpc.h"
#include "metrics.h"
#include "sse.h"
#include "transport_http.h"

static void stream_closed(struct sse_stream *st, void *arg)
{
	struct http_session *s = arg;
	(void)st;
	s->stream = NULL;
	http_session_destroy(s);
}

void transport_sse_get(struct http_gateway *gw, struct evhttp_request *req,
		       const struct http_caller *caller)
{
	struct http_session *s;
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, OPTIONS");
		http_respond_rpc_error(req, 405, -32000, "method not allowed: GET /sse");
		return;
	}
	if (caller->hdr->accept && !http_headers_accept(caller->hdr, "text/event-stream")) {
		http_respond_rpc_error(req, 406, -32000,
				       "not acceptable: /sse answers text/event-stream");
		return;
	}
	int rc = http_session_create(gw, caller, HTTP_SESSION_LEGACY_SSE, &s);
	if (rc == -EUSERS) {
		metrics_rate_limited("sessions");
		http_deny(gw, req, "sse", caller, 429, "sessions", 60,
			  "too many requests: this tenant has its maximum of open sessions");
		return;
	}
	if (rc < 0) {
		http_respond_rpc_error(req, 500, JSONRPC_INTERNAL_ERROR,
				       "the session could not be created");
		return;
	}
	s->stream = sse_start(req, gw->base, gw->cfg->sse_keepalive_s,
			      gw->cfg->max_stream_buffer_bytes, stream_closed, s);
	if (!s->stream) {
		http_session_destroy(s);
		return;
	}
	/* Relative to the SSE URL, same origin: what clients expect. */
	char endpoint[64];
	int n = snprintf(endpoint, sizeof(endpoint), "/messages?sessionId=%s", s->id);
	sse_send(s->stream, NULL, "endpoint", endpoint, (size_t)n);
}

/* sessionId (TS SDK) or session_id (Python SDK) from the query. */
static const char *query_session(struct evhttp_request *req, struct evkeyvalq *q)
{
	const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(req);
	const char *query = u ? evhttp_uri_get_query(u) : NULL;
	if (!query || evhttp_parse_query_str(query, q) < 0)
		return NULL;
	const char *id = evhttp_find_header(q, "sessionId");
	return id ? id : evhttp_find_header(q, "session_id");
}

void transport_sse_post(struct http_gateway *gw, struct evhttp_request *req,
			const struct http_caller *caller)
{
	struct evkeyvalq q = {0};
	struct jsonrpc_input in;

	TAILQ_INIT(&q);
	if (evhttp_request_get_command(req) != EVHTTP_REQ_POST) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "POST, OPTIONS");
		http_respond_rpc_error(req, 405, -32000, "method not allowed: POST /messages");
		return;
	}
	const char *id = query_session(req, &q);
	if (!id) {
		http_respond_rpc_error(req, 400, -32000,
				       "bad request: the sessionId query parameter is required");
		goto out;
	}
	struct http_session *s = http_session_find(gw, id, caller);
	if (!s || s->kind != HTTP_SESSION_LEGACY_SSE || !s->stream) {
		http_respond_rpc_error(req, 404, -32001, "session not found; open /sse again");
		goto out;
	}
	if (!http_content_type_is(caller->hdr->content_type, "application/json")) {
		http_respond_rpc_error(req, 415, -32000,
				       "unsupported media type: Content-Type must be "
				       "application/json");
		goto out;
	}
	if (transport_read_body(req, &in) < 0)
		goto out;
	if (transport_admit(gw, req, "sse", caller, s, &in) == 0) {
		/* 202 first: the replies follow on the stream. */
		http_respond(req, 202, "text/plain", "Accepted", 8);
		http_session_dispatch(s, NULL, &in, 0, false);
	}
	cJSON_Delete(in.root);
out:
	evhttp_clear_headers(&q);
}
