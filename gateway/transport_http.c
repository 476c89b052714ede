/* Streamable HTTP at /mcp: POST carries one JSON-RPC message (or a batch
 * where 2025-03-26 allows it) and is answered with JSON, with an SSE stream
 * (tools/call with a progressToken), or with 202; GET opens the session's
 * stream or resumes one with Last-Event-ID; DELETE ends the session.
 * Status codes follow shared/reference/mcp-anchors.md §6b.
 */
#include "transport_http.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdio.h>
#include <string.h>

#include "http_guard.h"
#include "http_headers.h"
#include "http_reply.h"
#include "http_session.h"
#include "json_check.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp_version.h"
#include "mcp.h"
#include "metrics.h"

static const char supported_versions[] =
    "unsupported MCP-Protocol-Version; supported: 2025-11-25, 2025-06-18, 2025-03-26, "
    "2024-11-05";

int transport_read_body(struct evhttp_request *req, struct jsonrpc_input *in)
{
	struct evbuffer *b = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(b);
	const char *why = NULL;
	char msg[160];

	const char *data = len ? (const char *)evbuffer_pullup(b, -1) : "";
	if (len && !data) {
		http_respond_rpc_error(req, 500, JSONRPC_INTERNAL_ERROR, "out of memory");
		return -1;
	}
	if (jsonrpc_parse(data, len, in, &why) != 0) {
		snprintf(msg, sizeof(msg), "parse error: %s", why ? why : "invalid JSON");
		http_respond_rpc_error(req, 400, JSONRPC_PARSE_ERROR, msg);
		return -1;
	}
	return 0;
}

static bool is_execute_call(const cJSON *item)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(item, "method");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(item, "params");
	const cJSON *n = cJSON_IsObject(p) ? cJSON_GetObjectItemCaseSensitive(p, "name") : NULL;
	return cJSON_IsString(m) && strcmp(m->valuestring, "tools/call") == 0 && cJSON_IsString(n) &&
	       strcmp(n->valuestring, "execute") == 0 &&
	       cJSON_GetObjectItemCaseSensitive(item, "id") != NULL;
}

int transport_admit(struct http_gateway *gw, struct evhttp_request *req, const char *transport,
		    const struct http_caller *caller, struct http_session *s,
		    const struct jsonrpc_input *in)
{
	bool any = false;
	if (cJSON_IsArray(in->root)) {
		for (const cJSON *it = in->root->child; it && !any; it = it->next)
			any = is_execute_call(it);
	} else {
		any = is_execute_call(in->root);
	}
	if (!any)
		return 0;
	unsigned retry;
	const char *reason;
	int rc = http_session_precheck(s, &retry, &reason);
	if (rc == 0)
		return 0;
	if (rc == -EIO) {
		http_deny(gw, req, transport, caller, 503, "audit unavailable", 0,
			  "service unavailable: the audit log cannot be written, so no code runs; "
			  "try again later");
		return -1;
	}
	metrics_rate_limited(reason);
	http_deny(gw, req, transport, caller, 429, reason, retry,
		  strcmp(reason, "quota") == 0
		      ? "too many requests: this tenant's CPU-seconds quota for the last hour is "
			"used up"
		      : "too many requests: this tenant already runs its maximum of concurrent "
			"executions");
	return -1;
}

/* What a message needs: how many final replies (0 or 1), whether it is an
 * initialize request, whether it holds anything invalid at the top. */
struct shape {
	unsigned nreplies;
	bool initialize;
	bool progress; /* a single tools/call with _meta.progressToken */
	const char *invalid;
};

static void classify(const struct jsonrpc_input *in, struct shape *sh)
{
	struct jsonrpc_msg m;
	memset(sh, 0, sizeof(*sh));
	if (cJSON_IsArray(in->root)) {
		if (cJSON_GetArraySize(in->root) == 0) {
			sh->invalid = "invalid request: empty batch";
			return;
		}
		for (const cJSON *it = in->root->child; it; it = it->next) {
			jsonrpc_classify(it, &m);
			if (m.kind == JSONRPC_REQUEST || m.kind == JSONRPC_INVALID)
				sh->nreplies = 1;
			if (m.kind == JSONRPC_REQUEST && strcmp(m.method, "initialize") == 0)
				sh->invalid = "invalid request: initialize must not be batched";
		}
		return;
	}
	jsonrpc_classify(in->root, &m);
	if (m.kind == JSONRPC_INVALID) {
		sh->invalid = m.error;
		return;
	}
	if (m.kind != JSONRPC_REQUEST)
		return;
	sh->nreplies = 1;
	sh->initialize = strcmp(m.method, "initialize") == 0;
	if (strcmp(m.method, "tools/call") == 0 && cJSON_IsObject(m.params)) {
		const cJSON *meta = cJSON_GetObjectItemCaseSensitive(m.params, "_meta");
		sh->progress = cJSON_IsObject(meta) &&
			       cJSON_GetObjectItemCaseSensitive(meta, "progressToken") != NULL;
	}
}

/* The session named by Mcp-Session-Id, or NULL after answering 400/404. */
static struct http_session *session_of(struct http_gateway *gw, struct evhttp_request *req,
				       const struct http_caller *caller)
{
	const char *id = caller->hdr->session_id;
	if (!id) {
		http_respond_rpc_error(req, 400, -32000,
				       "bad request: the Mcp-Session-Id header is required");
		return NULL;
	}
	struct http_session *s = http_session_find(gw, id, caller);
	if (!s || s->kind != HTTP_SESSION_STREAMABLE) {
		http_respond_rpc_error(req, 404, -32001,
				       "session not found; initialize a new session");
		return NULL;
	}
	const char *v = caller->hdr->protocol_version;
	if (v && mcp_version_from_string(v) == MCP_VERSION_NONE) {
		http_respond_rpc_error(req, 400, -32000, supported_versions);
		return NULL;
	}
	return s;
}

static void handle_post(struct http_gateway *gw, struct evhttp_request *req,
			const struct http_caller *caller)
{
	const struct http_headers *h = caller->hdr;
	struct jsonrpc_input in;
	struct shape sh;

	if (!http_headers_accept(h, "application/json") ||
	    !http_headers_accept(h, "text/event-stream")) {
		http_respond_rpc_error(req, 406, -32000,
				       "not acceptable: Accept must list application/json and "
				       "text/event-stream");
		return;
	}
	if (!http_content_type_is(h->content_type, "application/json")) {
		http_respond_rpc_error(req, 415, -32000,
				       "unsupported media type: Content-Type must be "
				       "application/json");
		return;
	}
	if (transport_read_body(req, &in) < 0)
		return;
	classify(&in, &sh);
	if (sh.invalid) {
		http_respond_rpc_error(req, 400, JSONRPC_INVALID_REQUEST, sh.invalid);
		goto out;
	}
	struct http_session *s;
	if (sh.initialize) {
		if (h->session_id) {
			http_respond_rpc_error(req, 400, JSONRPC_INVALID_REQUEST,
					       "invalid request: initialize starts a new session "
					       "and must not carry Mcp-Session-Id");
			goto out;
		}
		int rc = http_session_create(gw, caller, HTTP_SESSION_STREAMABLE, &s);
		if (rc == -EUSERS) {
			metrics_rate_limited("sessions");
			http_deny(gw, req, "http", caller, 429, "sessions", 60,
				  "too many requests: this tenant has its maximum of open sessions; "
				  "end one (DELETE) or wait for an idle one to expire");
			goto out;
		}
		if (rc < 0) {
			http_respond_rpc_error(req, 500, JSONRPC_INTERNAL_ERROR,
					       "the session could not be created");
			goto out;
		}
		http_session_dispatch(s, req, &in, 1, false);
		/* initialize is answered at once; a refused one leaves no session */
		if (!mcp_session_initialized(s->mcp))
			http_session_destroy(s);
		goto out;
	}
	s = session_of(gw, req, caller);
	if (!s)
		goto out;
	if (cJSON_IsArray(in.root) && mcp_session_version(s->mcp) != MCP_2025_03_26) {
		http_respond_rpc_error(req, 400, JSONRPC_INVALID_REQUEST,
				       "invalid request: JSON-RPC batches are only accepted with "
				       "protocol version 2025-03-26");
		goto out;
	}
	if (transport_admit(gw, req, "http", caller, s, &in) < 0)
		goto out;
	http_session_dispatch(s, req, &in, sh.nreplies, sh.progress);
	if (sh.nreplies == 0)
		http_respond(req, 202, NULL, NULL, 0);
out:
	cJSON_Delete(in.root);
}

static void handle_get(struct http_gateway *gw, struct evhttp_request *req,
		       const struct http_caller *caller)
{
	if (!http_headers_accept(caller->hdr, "text/event-stream")) {
		http_respond_rpc_error(req, 406, -32000,
				       "not acceptable: a GET stream needs Accept: text/event-stream");
		return;
	}
	struct http_session *s = session_of(gw, req, caller);
	if (!s)
		return;
	const char *last = caller->hdr->last_event_id;
	int rc = last ? http_session_resume(s, req, last) : -ENOENT;
	if (rc == -ENOENT)
		rc = http_session_open_stream(s, req);
	if (rc == -EBUSY)
		http_respond_rpc_error(req, 409, -32000,
				       "conflict: this session already has an open stream");
}

static void handle_delete(struct http_gateway *gw, struct evhttp_request *req,
			  const struct http_caller *caller)
{
	struct http_session *s = session_of(gw, req, caller);
	if (!s)
		return;
	http_session_destroy(s);
	http_respond(req, 200, NULL, NULL, 0);
}

void transport_http_handle(struct http_gateway *gw, struct evhttp_request *req,
			   const struct http_caller *caller)
{
	switch (evhttp_request_get_command(req)) {
	case EVHTTP_REQ_POST:
		handle_post(gw, req, caller);
		return;
	case EVHTTP_REQ_GET:
		handle_get(gw, req, caller);
		return;
	case EVHTTP_REQ_DELETE:
		handle_delete(gw, req, caller);
		return;
	default:
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
				  "GET, POST, DELETE, OPTIONS");
		http_respond_rpc_error(req, 405, -32000, "method not allowed");
		return;
	}
}
