/* See http_reply.h. */
#include "http_reply.h"

#include <event2/buffer.h>
#include <event2/http.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "jsonrpc.h"
#include "log.h"
#include "metrics.h"

const char *http_method_name(struct evhttp_request *req)
{
	switch (evhttp_request_get_command(req)) {
	case EVHTTP_REQ_GET:
		return "GET";
	case EVHTTP_REQ_POST:
		return "POST";
	case EVHTTP_REQ_DELETE:
		return "DELETE";
	case EVHTTP_REQ_OPTIONS:
		return "OPTIONS";
	case EVHTTP_REQ_HEAD:
		return "HEAD";
	case EVHTTP_REQ_PUT:
		return "PUT";
	default:
		return "other";
	}
}

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 202:
		return "Accepted";
	case 204:
		return "No Content";
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 406:
		return "Not Acceptable";
	case 409:
		return "Conflict";
	case 413:
		return "Content Too Large";
	case 415:
		return "Unsupported Media Type";
	case 429:
		return "Too Many Requests";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	default:
		return NULL;
	}
}

void http_respond(struct evhttp_request *req, int status, const char *content_type,
		  const char *body, size_t len)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	struct evbuffer *b = NULL;

	metrics_http_request(http_method_name(req), status);
	if (content_type && len > 0)
		evhttp_add_header(h, "Content-Type", content_type);
	if (len > 0) {
		b = evbuffer_new();
		if (!b || evbuffer_add(b, body, len) < 0) {
			gw_log(GW_LOG_ERROR, "http: out of memory building a response");
			if (b)
				evbuffer_free(b);
			b = NULL;
			status = 500;
		}
	}
	evhttp_send_reply(req, status, reason_phrase(status), b);
	if (b)
		evbuffer_free(b);
}

void http_respond_rpc_error(struct evhttp_request *req, int status, int code,
			    const char *message)
{
	cJSON *e = jsonrpc_make_error(NULL, code, message, JSONRPC_ID_NULL);
	size_t len = 0;
	char *text = e ? jsonrpc_serialize(e, &len) : NULL;

	cJSON_Delete(e);
	http_respond(req, status, "application/json", text ? text : "", text ? len : 0);
	cJSON_free(text);
}

void http_add_cors(struct evhttp_request *req, const char *origin, bool preflight)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Access-Control-Allow-Origin", origin);
	evhttp_add_header(h, "Vary", "Origin");
	/* Without this a browser client cannot read the session id and
	 * opens a new session with every request. */
	evhttp_add_header(h, "Access-Control-Expose-Headers",
			  "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After");
	if (!preflight)
		return;
	evhttp_add_header(h, "Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
	evhttp_add_header(h, "Access-Control-Allow-Headers",
			  "Authorization, Content-Type, Accept, Mcp-Session-Id, "
			  "Mcp-Protocol-Version, Last-Event-ID");
	evhttp_add_header(h, "Access-Control-Max-Age", "600");
}

void http_client_addr(struct evhttp_request *req, char *buf, size_t size)
{
	struct evhttp_connection *c = evhttp_request_get_connection(req);
	char *host = NULL;
	ev_uint16_t port = 0;

	if (c)
		evhttp_connection_get_peer(c, &host, &port);
	if (host && strchr(host, ':'))
		snprintf(buf, size, "[%s]:%u", host, port);
	else
		snprintf(buf, size, "%s:%u", host ? host : "?", port);
}

/* Compare the media type at `p` (up to ';' ',' or end, trimmed) with
 * `type`, honouring wildcards. */
static bool media_matches(const char *p, size_t n, const char *type)
{
	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n == 3 && strncmp(p, "*/*", 3) == 0)
		return true;
	const char *slash = strchr(type, '/');
	size_t major = (size_t)(slash - type);
	if (n == major + 2 && strncasecmp(p, type, major + 1) == 0 && p[major + 1] == '*')
		return true;
	return n == strlen(type) && strncasecmp(p, type, n) == 0;
}

bool http_accepts(const char *accept, const char *type)
{
	if (!accept)
		return false;
	const char *p = accept;
	while (*p) {
		size_t n = strcspn(p, ",;");
		if (media_matches(p, n, type))
			return true;
		p += n;
		if (*p == ';')
			p += strcspn(p, ","); /* skip parameters such as q= */
		if (*p == ',')
			p++;
	}
	return false;
}

bool http_content_type_is(const char *value, const char *type)
{
	if (!value)
		return false;
	size_t n = strcspn(value, ";");
	while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t'))
		n--;
	while (n > 0 && (*value == ' ' || *value == '\t')) {
		value++;
		n--;
	}
	return n == strlen(type) && strncasecmp(value, type, n) == 0;
}
