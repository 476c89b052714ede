/* Small helpers every HTTP handler uses: answering with a status and a
 * body (counted in the metrics), JSON-RPC error bodies without an id, the
 * CORS headers browser clients need, the caller's address, Accept and
 * Content-Type checks.
 */
#ifndef CELLGATE_HTTP_REPLY_H
#define CELLGATE_HTTP_REPLY_H

#include <stdbool.h>
#include <stddef.h>

struct evhttp_request;

/* "GET", "POST", ... or "other". */
const char *http_method_name(struct evhttp_request *req);

/* Send a complete response: status, optional Content-Type and body. */
void http_respond(struct evhttp_request *req, int status, const char *content_type,
		  const char *body, size_t len);
/* A JSON-RPC error response with no id as the body (the transports' error
 * shape for whole-request failures); `code` e.g. -32600, -32000. */
void http_respond_rpc_error(struct evhttp_request *req, int status, int code,
			    const char *message);

/* Add Access-Control-* headers for an allowed Origin (the caller checked
 * it).  preflight: also the allowed methods and request headers. */
void http_add_cors(struct evhttp_request *req, const char *origin, bool preflight);

/* "ip:port" of the peer. */
void http_client_addr(struct evhttp_request *req, char *buf, size_t size);

/* Whether a header value listing media types (Accept) names `type`
 * ("application/json") or a wildcard covering it (star/star, type/star),
 * ignoring parameters. */
bool http_accepts(const char *accept, const char *type);
/* Whether Content-Type is `type`, ignoring parameters and case. */
bool http_content_type_is(const char *value, const char *type);

#endif
