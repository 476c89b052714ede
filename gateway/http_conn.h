/* The gateway's own account of evhttp's client connections: how many are
 * open (max_connections), how long a client may take to send a request
 * (slow clients are dropped), and who hears that a connection closed.
 *
 * libevent 2.1's evhttp offers no callback for a new connection, only one
 * for making its bufferevent (evhttp_set_bevcb).  This module makes that
 * bufferevent, holds a reference to it, and a moment later (still before
 * any byte of the request is read) finds the connection that owns it and
 * takes the connection's close callback.  Because this module owns that
 * callback, everything else that needs to hear of a close subscribes here
 * (http_conn_on_close) instead of calling evhttp_connection_set_closecb.
 *
 * The request deadline: from the moment a connection is ready for a
 * request (accepted, or its previous reply sent) the whole request must
 * arrive within `request_ms`; otherwise the connection is closed.  While a
 * handler holds a request (a long SSE stream, a job) there is no deadline.
 * evhttp's own idle timeout still bounds every single stalled read.
 */
#ifndef CELLGATE_HTTP_CONN_H
#define CELLGATE_HTTP_CONN_H

#include <stddef.h>

struct event_base;
struct evhttp;
struct evhttp_connection;
struct evhttp_request;

struct http_conns;

/* Track the connections of `http` (one listener).  At most `max_conns`
 * open at once: one more is answered 503 with Retry-After and closed.
 * NULL on allocation failure.  Free with http_conns_free after
 * evhttp_free(http). */
struct http_conns *http_conns_new(struct event_base *base, struct evhttp *http,
				  unsigned max_conns, unsigned request_ms);
void http_conns_free(struct http_conns *c);

/* Connections open on this listener now. */
size_t http_conns_open(const struct http_conns *c);

/* A request reached its handler: its connection has no deadline until the
 * reply is sent.  Call first thing for every request of a tracked
 * listener.  -1: a connection this module cannot account for (memory ran
 * out when it opened, or one over the limit); answer 503 with
 * "Connection: close". */
int http_conn_request_begin(struct http_conns *c, struct evhttp_request *req);

/* Call fn(arg) when `evcon` closes (the client went away, or it was
 * dropped).  One subscriber per connection; fn NULL unsubscribes.  fn
 * runs inside evhttp's teardown of the connection: it may end a request
 * it holds but must not free the connection. */
typedef void (*http_conn_closed_fn)(void *arg);
void http_conn_on_close(struct evhttp_connection *evcon, http_conn_closed_fn fn, void *arg);

#endif
