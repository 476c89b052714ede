/* See http_guard.h. */
#include "http_guard.h"

#include <event2/http.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http_headers.h"
#include "http_reply.h"
#include "log.h"
#include "metrics.h"

/* Longest Authorization value looked at; keys are 47 bytes. */
#define MAX_AUTH_HEADER 512

static bool is_loopback_name(const char *h, size_t n)
{
	return (n == 9 && strncasecmp(h, "localhost", 9) == 0) ||
	       (n == 9 && strncmp(h, "127.0.0.1", 9) == 0) || (n == 5 && strncmp(h, "[::1]", 5) == 0);
}

/* Split "host[:port]" / "[v6][:port]": length of the host part (with
 * brackets for v6), or 0 when malformed. */
static size_t host_part(const char *hp)
{
	if (hp[0] == '[') {
		const char *end = strchr(hp, ']');
		if (!end || (end[1] != '\0' && end[1] != ':'))
			return 0;
		return (size_t)(end - hp) + 1;
	}
	size_t n = strcspn(hp, ":");
	return n;
}

static bool host_allowed(const struct http_gateway *gw, const char *hp)
{
	size_t n = host_part(hp);
	if (n == 0)
		return false;
	if (gw->listen_loopback && is_loopback_name(hp, n))
		return true;
	for (unsigned i = 0; i < gw->cfg->nhosts; i++)
		if (strlen(gw->cfg->allowed_hosts[i]) == n &&
		    strncasecmp(gw->cfg->allowed_hosts[i], hp, n) == 0)
			return true;
	return false;
}

static bool origin_allowed(const struct http_gateway *gw, const char *origin)
{
	for (unsigned i = 0; i < gw->cfg->norigins; i++)
		if (strcmp(gw->cfg->allowed_origins[i], origin) == 0)
			return true;
	if (!gw->listen_loopback)
		return false;
	/* A page served from this machine (an inspector on localhost) may
	 * talk to a loopback gateway; one from anywhere else may not. */
	const char *rest = NULL;
	if (strncmp(origin, "http://", 7) == 0)
		rest = origin + 7;
	else if (strncmp(origin, "https://", 8) == 0)
		rest = origin + 8;
	if (!rest)
		return false;
	size_t n = host_part(rest);
	if (n == 0 || !is_loopback_name(rest, n))
		return false;
	const char *port = rest + n;
	if (*port == '\0')
		return true;
	if (*port != ':' || port[1] == '\0')
		return false;
	for (const char *p = port + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

void http_deny(struct http_gateway *gw, struct evhttp_request *req, const char *transport,
	       const struct http_caller *caller, int status, const char *reason,
	       unsigned retry_after_s, const char *message)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	char client[64], path[256];
	const char *uri = evhttp_request_get_uri(req);

	if (caller)
		snprintf(client, sizeof(client), "%s", caller->client);
	else
		http_client_addr(req, client, sizeof(client));
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(uri ? uri : "", "?"), uri ? uri : "");
	struct audit_denial d = {
	    .who =
		{
		    .tenant = caller && caller->ts ? caller->ts->tenant->name : NULL,
		    .key_id = caller ? caller->key_id : NULL,
		    .client = client,
		    .transport = transport,
		},
	    .method = http_method_name(req),
	    .path = path,
	    .http_status = status,
	    .reason = reason,
	};
	if (gw->audit && audit_denied(gw->audit, &d) < 0)
		gw_log(GW_LOG_ERROR, "audit: a denial (%d %s) could not be recorded", status,
		       reason);
	if (status == 401) {
		metrics_auth_failure();
		evhttp_add_header(h, "WWW-Authenticate",
				  strcmp(reason, "missing key") == 0
				      ? "Bearer realm=\"cellgate\""
				      : "Bearer realm=\"cellgate\", error=\"invalid_token\"");
	}
	if (retry_after_s > 0) {
		char v[16];
		snprintf(v, sizeof(v), "%u", retry_after_s);
		evhttp_add_header(h, "Retry-After", v);
	}
	http_respond_rpc_error(req, status, -32000, message);
}

int http_guard_origin(struct http_gateway *gw, struct evhttp_request *req,
		      const struct http_headers *hdr, const char *transport)
{
	const char *host = hdr->host;
	const char *origin = hdr->origin;

	if ((gw->listen_loopback || gw->cfg->nhosts > 0) && (!host || !host_allowed(gw, host))) {
		http_deny(gw, req, transport, NULL, 403, "host",
			  0, "forbidden: the Host header names a host this server does not serve");
		return -1;
	}
	if (origin) {
		if (!origin_allowed(gw, origin)) {
			http_deny(gw, req, transport, NULL, 403, "origin", 0,
				  "forbidden: requests from this Origin are not allowed");
			return -1;
		}
		http_add_cors(req, origin,
			      evhttp_request_get_command(req) == EVHTTP_REQ_OPTIONS);
	}
	return 0;
}

int http_guard_auth(struct http_gateway *gw, struct evhttp_request *req,
		    const struct http_headers *hdr, const char *transport,
		    struct http_caller *caller)
{
	const char *v = hdr->authorization;

	memset(caller, 0, sizeof(*caller));
	caller->hdr = hdr;
	http_client_addr(req, caller->client, sizeof(caller->client));
	if (!v) {
		http_deny(gw, req, transport, NULL, 401, "missing key", 0,
			  "unauthorized: send Authorization: Bearer <API key>");
		return -1;
	}
	size_t len = strnlen(v, MAX_AUTH_HEADER + 1);
	const struct tenant *t = NULL;
	const char *key_id = NULL;
	if (len <= MAX_AUTH_HEADER && len > 7 && strncasecmp(v, "Bearer ", 7) == 0) {
		const char *key = v + 7;
		while (*key == ' ')
			key++;
		size_t klen = strlen(key);
		while (klen > 0 && (key[klen - 1] == ' ' || key[klen - 1] == '\t'))
			klen--;
		if (klen > 0)
			t = tenants_authenticate(gw->tenants, key, klen, &key_id);
	}
	if (!t) {
		http_deny(gw, req, transport, NULL, 401, "bad key", 0,
			  "unauthorized: the API key is not valid");
		return -1;
	}
	caller->ts = http_gateway_state(gw, t);
	caller->key_id = key_id;
	return 0;
}

int http_guard_rate(struct http_gateway *gw, struct evhttp_request *req, const char *transport,
		    const struct http_caller *caller)
{
	unsigned retry = 1;
	if (token_bucket_take(&caller->ts->usage.requests, ratelimit_now_ns(), &retry))
		return 0;
	metrics_rate_limited("rate");
	http_deny(gw, req, transport, caller, 429, "rate", retry,
		  "too many requests: this tenant's request rate is exceeded; retry later");
	return -1;
}
