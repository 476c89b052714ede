/* See http_conn.h. */
#include "http_conn.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "metrics.h"

struct conn {
	struct http_conns *owner;
	struct bufferevent *bev; /* the filter evhttp uses */
	struct event *deadline;
	struct event *flush; /* see on_output */
	int fd; /* -1 until known */
	bool over_limit;
	bool seen_request;
};

struct http_conns {
	struct event_base *base;
	unsigned max, open;
	struct timeval first_request;
	/* fd -> conn, so a request (which knows its bufferevent, hence its
	 * fd) finds its connection in O(1); grows as fds grow. */
	struct conn **by_fd;
	size_t nby_fd;
};

static void conn_register(struct conn *c)
{
	struct http_conns *o = c->owner;
	if (c->fd >= 0)
		return;
	int fd = bufferevent_getfd(c->bev);
	if (fd < 0)
		return;
	if ((size_t)fd >= o->nby_fd) {
		size_t n = o->nby_fd ? o->nby_fd : 1024;
		while (n <= (size_t)fd)
			n *= 2;
		struct conn **t = realloc(o->by_fd, n * sizeof(*t));
		if (!t)
			return; /* the deadline still applies; nothing else breaks */
		memset(t + o->nby_fd, 0, (n - o->nby_fd) * sizeof(*t));
		o->by_fd = t;
		o->nby_fd = n;
	}
	o->by_fd[fd] = c;
	c->fd = fd;
}

static const char busy_reply[] = "HTTP/1.1 503 Service Unavailable\r\n"
				 "Retry-After: 1\r\n"
				 "Content-Type: text/plain\r\n"
				 "Content-Length: 41\r\n"
				 "Connection: close\r\n\r\n"
				 "too many connections; retry in a second\r\n";

/* Over the cap, or no complete request in time: end the connection.
 * Shutting the socket down makes evhttp see EOF and free it (and us). */
static void on_deadline(evutil_socket_t unused, short what, void *arg)
{
	struct conn *c = arg;
	(void)unused;
	(void)what;
	if (c->seen_request && !c->over_limit)
		return;
	int fd = bufferevent_getfd(c->bev);
	if (fd < 0)
		return;
	if (c->over_limit) {
		/* Best effort, non-blocking: the socket buffer of a fresh
		 * connection has room for this. */
		ssize_t n = send(fd, busy_reply, sizeof(busy_reply) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		(void)n;
	} else {
		gw_log(GW_LOG_DEBUG, "http: dropping a connection that sent no complete request in "
				     "time");
	}
	if (shutdown(fd, SHUT_RDWR) < 0 && errno != ENOTCONN)
		gw_log(GW_LOG_WARN, "http: shutdown: %s", strerror(errno));
}

/* Pass-through: data moves unchanged. Registers the fd on first use. */
static enum bufferevent_filter_result pass_in(struct evbuffer *src, struct evbuffer *dst,
					      ev_ssize_t limit, enum bufferevent_flush_mode mode,
					      void *arg)
{
	struct conn *c = arg;
	(void)mode;
	conn_register(c);
	if (c->over_limit)
		return BEV_ERROR; /* never parse a request we will not serve */
	size_t n = evbuffer_get_length(src);
	if (limit >= 0 && (size_t)limit < n)
		n = (size_t)limit;
	if (n && evbuffer_remove_buffer(src, dst, n) < 0)
		return BEV_ERROR;
	return BEV_OK;
}

static enum bufferevent_filter_result pass_out(struct evbuffer *src, struct evbuffer *dst,
					       ev_ssize_t limit, enum bufferevent_flush_mode mode,
					       void *arg)
{
	(void)arg;
	(void)mode;
	size_t n = evbuffer_get_length(src);
	if (limit >= 0 && (size_t)limit < n)
		n = (size_t)limit;
	if (n && evbuffer_remove_buffer(src, dst, n) < 0)
		return BEV_ERROR;
	return BEV_OK;
}

/* libevent 2.1's filter does not move output that was queued while
 * writing was disabled once writing is enabled again, and evhttp queues a
 * response before it enables writing.  So every time output is queued,
 * flush once from the loop, after evhttp has finished its call. */
static void on_flush(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	(void)fd;
	(void)what;
	bufferevent_flush(c->bev, EV_WRITE, BEV_NORMAL);
}

static void on_output(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
	struct conn *c = arg;
	(void)buf;
	if (info->n_added > 0)
		event_active(c->flush, EV_TIMEOUT, 1);
}

static void conn_free(void *arg)
{
	struct conn *c = arg;
	struct http_conns *o = c->owner;
	if (c->flush)
		event_free(c->flush);
	if (c->fd >= 0 && (size_t)c->fd < o->nby_fd && o->by_fd[c->fd] == c)
		o->by_fd[c->fd] = NULL;
	if (c->deadline)
		event_free(c->deadline);
	o->open--;
	metrics_connections_add(-1);
	free(c);
}

static struct bufferevent *new_connection(struct event_base *base, void *arg)
{
	struct http_conns *o = arg;
	struct conn *c = calloc(1, sizeof(*c));
	struct bufferevent *sock = NULL;

	if (!c)
		return NULL; /* evhttp makes a plain one: uncounted but working */
	c->owner = o;
	c->fd = -1;
	c->over_limit = o->open >= o->max;
	sock = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	c->deadline = event_new(base, -1, 0, on_deadline, c);
	if (!sock || !c->deadline)
		goto fail;
	c->flush = event_new(base, -1, 0, on_flush, c);
	if (!c->flush)
		goto fail;
	c->bev = bufferevent_filter_new(sock, pass_in, pass_out, BEV_OPT_CLOSE_ON_FREE, conn_free, c);
	if (!c->bev)
		goto fail;
	o->open++; /* from here conn_free undoes it */
	metrics_connections_add(1);
	if (!evbuffer_add_cb(bufferevent_get_output(c->bev), on_output, c)) {
		bufferevent_free(c->bev); /* frees sock and calls conn_free */
		return NULL;
	}
	struct timeval now = {0, 0};
	/* Over the cap: refused as soon as evhttp has given it its fd. */
	if (event_add(c->deadline, c->over_limit ? &now : &o->first_request) < 0)
		gw_log(GW_LOG_WARN, "http: cannot arm a connection deadline");
	return c->bev;
fail:
	if (sock)
		bufferevent_free(sock);
	if (c->deadline)
		event_free(c->deadline);
	if (c->flush)
		event_free(c->flush);
	free(c);
	return NULL;
}

struct http_conns *http_conns_new(struct event_base *base, struct evhttp *http,
				  unsigned max_connections, unsigned first_request_ms)
{
	struct http_conns *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->base = base;
	o->max = max_connections;
	o->first_request.tv_sec = first_request_ms / 1000;
	o->first_request.tv_usec = (first_request_ms % 1000) * 1000;
	evhttp_set_bevcb(http, new_connection, o);
	return o;
}

void http_conns_request_seen(struct http_conns *o, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	int fd = bev ? bufferevent_getfd(bev) : -1;
	if (fd < 0 || (size_t)fd >= o->nby_fd || !o->by_fd[fd])
		return;
	struct conn *c = o->by_fd[fd];
	if (c->bev != bev || c->seen_request)
		return;
	c->seen_request = true;
	event_del(c->deadline);
}

unsigned http_conns_open(const struct http_conns *o)
{
	return o->open;
}

void http_conns_free(struct http_conns *o)
{
	if (!o)
		return;
	free(o->by_fd);
	free(o);
}
