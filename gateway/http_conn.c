/* See http_conn.h. */
#include "http_conn.h"

#include <errno.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "metrics.h"

struct conn {
	struct conn *hnext; /* in the table, by bufferevent */
	struct conn *pnext; /* in the owner's list of connections not yet attached */
	struct http_conns *owner;
	struct bufferevent *bev;
	struct evhttp_connection *evcon; /* NULL until attached */
	struct event *deadline;
	http_conn_closed_fn closed;
	void *closed_arg;
	bool held; /* we hold a reference on bev (until attached) */
};

struct http_conns {
	struct event_base *base;
	struct evhttp *http;
	unsigned max;
	struct timeval request_tv;
	size_t open;
	struct conn *pending;
	struct event *attach_ev;
};

/* Every tracked connection of the process, by bufferevent: subscribers
 * only know the evhttp connection, whose bufferevent leads here.  One
 * event loop, so one table. */
static struct {
	struct conn **b;
	size_t nb, n;
} table;

static size_t slot(const void *bev, size_t nb)
{
	return (size_t)(((uintptr_t)bev >> 4) * 0x9E3779B97F4A7C15ull) & (nb - 1);
}

static int table_add(struct conn *k)
{
	if (table.n + 1 > table.nb * 2) {
		size_t nb = table.nb ? table.nb * 2 : 256;
		struct conn **b = calloc(nb, sizeof(*b));
		if (!b)
			return -1;
		for (size_t i = 0; i < table.nb; i++)
			for (struct conn *e = table.b[i], *next; e; e = next) {
				next = e->hnext;
				size_t s = slot(e->bev, nb);
				e->hnext = b[s];
				b[s] = e;
			}
		free(table.b);
		table.b = b;
		table.nb = nb;
	}
	size_t s = slot(k->bev, table.nb);
	k->hnext = table.b[s];
	table.b[s] = k;
	table.n++;
	return 0;
}

static void table_remove(struct conn *k)
{
	for (struct conn **pp = &table.b[slot(k->bev, table.nb)]; *pp; pp = &(*pp)->hnext)
		if (*pp == k) {
			*pp = k->hnext;
			if (--table.n == 0) {
				free(table.b);
				table.b = NULL;
				table.nb = 0;
			}
			return;
		}
}

static struct conn *lookup(struct evhttp_connection *evcon)
{
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	if (!bev || !table.nb)
		return NULL;
	for (struct conn *k = table.b[slot(bev, table.nb)]; k; k = k->hnext)
		if (k->bev == bev)
			return k;
	return NULL;
}

static void conn_free(struct conn *k)
{
	struct http_conns *c = k->owner;
	table_remove(k);
	if (k->deadline)
		event_free(k->deadline);
	if (k->held)
		bufferevent_decref(k->bev);
	c->open--;
	metrics_connections_add(-1);
	free(k);
}

static void unlink_pending(struct conn *k)
{
	for (struct conn **pp = &k->owner->pending; *pp; pp = &(*pp)->pnext)
		if (*pp == k) {
			*pp = k->pnext;
			return;
		}
}

/* evhttp's close callback, which this module owns. */
static void on_closed(struct evhttp_connection *evcon, void *arg)
{
	struct conn *k = arg;
	(void)evcon;
	http_conn_closed_fn fn = k->closed;
	k->closed = NULL;
	if (fn)
		fn(k->closed_arg);
	conn_free(k);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct conn *k = arg;
	(void)fd;
	(void)what;
	gw_log(GW_LOG_INFO, "http: dropping a client that did not send its request within %ld ms",
	       (long)k->owner->request_tv.tv_sec * 1000 + k->owner->request_tv.tv_usec / 1000);
	metrics_connection_dropped("slow");
	evhttp_connection_free(k->evcon); /* runs on_closed, which frees k */
}

/* One connection too many: say so and close.  Whatever the client sent
 * already is read and dropped first, so that the close does not turn into
 * a reset that hides the answer. */
static void reject(struct conn *k)
{
	static const char answer[] = "HTTP/1.1 503 Service Unavailable\r\n"
				     "Retry-After: 1\r\n"
				     "Content-Length: 0\r\n"
				     "Connection: close\r\n\r\n";
	char sink[4096];
	int fd = bufferevent_getfd(k->bev);
	if (fd >= 0) {
		for (int i = 0; i < 16 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
			;
		if (send(fd, answer, sizeof(answer) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			gw_log(GW_LOG_DEBUG, "http: 503 to a surplus connection: %s",
			       strerror(errno));
	}
	metrics_connection_dropped("limit");
	metrics_http_request("other", 503);
	evhttp_connection_free(k->evcon); /* runs on_closed, which frees k */
}

/* Find the connection that owns k->bev.  evhttp sets the bufferevent's
 * callback argument to its connection (libevent 2.1); if the callbacks are
 * gone, evhttp has already freed the connection again.  Returns 0 when
 * attached, 1 when attached but one too many, -1 when gone (k freed). */
static int attach(struct conn *k, struct evhttp_connection *known)
{
	struct http_conns *c = k->owner;
	struct evhttp_connection *evcon = known;
	unlink_pending(k);
	if (!evcon) {
		bufferevent_data_cb readcb = NULL;
		void *cbarg = NULL;
		bufferevent_getcb(k->bev, &readcb, NULL, NULL, &cbarg);
		if (!readcb || !cbarg) {
			conn_free(k);
			return -1;
		}
		evcon = cbarg;
		if (evhttp_connection_get_bufferevent(evcon) != k->bev) {
			/* libevent changed how evhttp wires its connections; a
			 * connection we cannot account for must not be served. */
			gw_log(GW_LOG_ERROR, "http: cannot find the connection of a bufferevent");
			abort();
		}
	}
	k->evcon = evcon;
	evhttp_connection_set_closecb(evcon, on_closed, k);
	bufferevent_decref(k->bev); /* evhttp's own reference keeps it now */
	k->held = false;
	return c->open > c->max ? 1 : 0;
}

static void on_attach(evutil_socket_t fd, short what, void *arg)
{
	struct http_conns *c = arg;
	(void)fd;
	(void)what;
	while (c->pending) {
		struct conn *k = c->pending;
		int rc = attach(k, NULL);
		if (rc == 1)
			reject(k);
		else if (rc == 0 && event_add(k->deadline, &c->request_tv) < 0) {
			gw_log(GW_LOG_ERROR, "http: cannot arm a request deadline; closing");
			evhttp_connection_free(k->evcon);
		}
	}
}

/* evhttp asks for the bufferevent of a connection it just accepted. */
static struct bufferevent *make_bev(struct event_base *base, void *arg)
{
	struct http_conns *c = arg;
	struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	struct conn *k = calloc(1, sizeof(*k));
	if (!bev || !k)
		goto untracked;
	k->owner = c;
	k->bev = bev;
	k->deadline = event_new(base, -1, 0, on_deadline, k);
	if (!k->deadline || table_add(k) < 0)
		goto untracked;
	bufferevent_incref(bev);
	k->held = true;
	k->pnext = c->pending;
	c->pending = k;
	c->open++;
	metrics_connections_add(1);
	/* Runs before this loop iteration polls again, so before any byte
	 * of the request is read. */
	event_active(c->attach_ev, EV_TIMEOUT, 1);
	return bev;
untracked:
	/* Out of memory: evhttp serves the connection with a bufferevent of
	 * its own, and http_conn_request_begin refuses its requests. */
	if (k && k->deadline)
		event_free(k->deadline);
	free(k);
	if (bev)
		bufferevent_free(bev);
	return NULL;
}

struct http_conns *http_conns_new(struct event_base *base, struct evhttp *http,
				  unsigned max_conns, unsigned request_ms)
{
	struct http_conns *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->base = base;
	c->http = http;
	c->max = max_conns;
	c->request_tv.tv_sec = request_ms / 1000;
	c->request_tv.tv_usec = (request_ms % 1000) * 1000;
	c->attach_ev = event_new(base, -1, 0, on_attach, c);
	if (!c->attach_ev) {
		free(c);
		return NULL;
	}
	evhttp_set_bevcb(http, make_bev, c);
	return c;
}

void http_conns_free(struct http_conns *c)
{
	if (!c)
		return;
	/* evhttp_free has closed every attached connection (on_closed);
	 * what is left never got attached. */
	while (c->pending)
		attach(c->pending, NULL);
	event_free(c->attach_ev);
	free(c);
}

size_t http_conns_open(const struct http_conns *c)
{
	return c->open;
}

static void on_reply_sent(struct evhttp_request *req, void *arg)
{
	struct conn *k = lookup(evhttp_request_get_connection(req));
	(void)arg;
	if (k && event_add(k->deadline, &k->owner->request_tv) < 0)
		gw_log(GW_LOG_ERROR, "http: cannot arm a request deadline");
}

int http_conn_request_begin(struct http_conns *c, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct conn *k = lookup(evcon);
	if (!k || k->owner != c)
		return -1;
	/* The request came before the attach event: attach now, and leave a
	 * surplus connection to the caller's 503 (it cannot be freed under
	 * its own request). */
	if (!k->evcon && attach(k, evcon) != 0)
		return -1;
	event_del(k->deadline);
	evhttp_request_set_on_complete_cb(req, on_reply_sent, NULL);
	return 0;
}

void http_conn_on_close(struct evhttp_connection *evcon, http_conn_closed_fn fn, void *arg)
{
	struct conn *k = lookup(evcon);
	if (!k) {
		/* Only requests of tracked connections reach a handler. */
		gw_log(GW_LOG_ERROR, "http: close subscription on an untracked connection");
		return;
	}
	k->closed = fn;
	k->closed_arg = fn ? arg : NULL;
}
