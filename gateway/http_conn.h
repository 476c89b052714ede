/* Connection limits evhttp (libevent 2.1) does not have: a cap on open
 * connections (one over the cap gets 503 and is closed) and a deadline for
 * a new connection's first request (slowloris clients that drip bytes
 * forever are dropped).  Hooked in through evhttp_set_bevcb: every
 * connection's bufferevent is a pass-through filter whose free callback
 * tells us when the connection is gone.
 */
#ifndef CELLGATE_HTTP_CONN_H
#define CELLGATE_HTTP_CONN_H

struct event_base;
struct evhttp;
struct evhttp_request;
struct http_conns;

struct http_conns *http_conns_new(struct event_base *base, struct evhttp *http,
				  unsigned max_connections, unsigned first_request_ms);
/* The request's connection delivered a complete request: its deadline no
 * longer applies (idle keep-alive is evhttp's timeout). */
void http_conns_request_seen(struct http_conns *c, struct evhttp_request *req);
unsigned http_conns_open(const struct http_conns *c);
/* Call after evhttp_free (which frees every connection). */
void http_conns_free(struct http_conns *c);

#endif
