/* The checks every HTTP request passes before it reaches a transport:
 * Host and Origin (DNS rebinding), the Bearer key, the tenant's request
 * rate.  Each returns 0 to go on, or -1 after answering the request itself
 * (403, 401, 429) and auditing the denial.
 */
#ifndef CELLGATE_HTTP_GUARD_H
#define CELLGATE_HTTP_GUARD_H

#include "http_gateway.h"

struct evhttp_request;

/* Host (on a loopback listener, or when allowed_host is configured) and
 * Origin; adds the CORS headers when an allowed Origin is present. */
int http_guard_origin(struct http_gateway *gw, struct evhttp_request *req,
		      const struct http_headers *hdr, const char *transport);

/* Authorization: Bearer <key>.  Fills *caller. */
int http_guard_auth(struct http_gateway *gw, struct evhttp_request *req,
		    const struct http_headers *hdr, const char *transport,
		    struct http_caller *caller);

/* One token from the tenant's request bucket. */
int http_guard_rate(struct http_gateway *gw, struct evhttp_request *req, const char *transport,
		    const struct http_caller *caller);

/* Answer with `status` (401, 403, 429, 503 ...), audit the denial and count
 * it.  retry_after_s > 0 adds Retry-After. */
void http_deny(struct http_gateway *gw, struct evhttp_request *req, const char *transport,
	       const struct http_caller *caller, int status, const char *reason,
	       unsigned retry_after_s, const char *message);

#endif
