/* The request headers the gateway acts on, found in one pass over the
 * header list (evhttp_find_header walks it again for every name, with a
 * slow case-insensitive compare).  A header that decides who is asking,
 * for what session, or how long the body is, must appear at most once: a
 * second copy is a 400, never a guess which one counts (RFC 9112 §3.2 for
 * Host; request smuggling for the length fields).
 */
#ifndef CELLGATE_HTTP_HEADERS_H
#define CELLGATE_HTTP_HEADERS_H

#include <stdbool.h>

struct evhttp_request;
struct evkeyvalq;

struct http_headers {
	const char *host;
	const char *origin;
	const char *authorization;
	const char *content_type;
	const char *protocol_version; /* MCP-Protocol-Version */
	const char *session_id;	      /* Mcp-Session-Id */
	const char *last_event_id;
	const char *accept; /* the first Accept line (there may be more) */
	const char *duplicate; /* the name of a header sent twice that must not be */
	const struct evkeyvalq *all;
};

/* Fill h from req's headers; -1 when one of them is duplicated
 * (h->duplicate names it). */
int http_headers_scan(struct evhttp_request *req, struct http_headers *h);

/* Whether any Accept line names `type` or a wildcard covering it (Accept
 * is a list and may be split over several lines). */
bool http_headers_accept(const struct http_headers *h, const char *type);

#endif
