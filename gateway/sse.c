/* See sse.h. */
#include "sse.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_conn.h"
#include "http_reply.h"
#include "log.h"
#include "metrics.h"

/* A stream whose client reads nothing still has this long for a write to
 * make progress before the connection is dropped. */
#define SSE_WRITE_TIMEOUT_S 60

struct sse_stream {
	struct evhttp_request *req;
	struct evhttp_connection *evcon;
	struct event *keepalive;
	size_t max_unsent;
	sse_closed_fn closed;
	void *arg;
	struct evbuffer *scratch;
	bool dropping; /* we are freeing the connection ourselves */
};

static void stream_free(struct sse_stream *s)
{
	if (s->keepalive)
		event_free(s->keepalive);
	if (s->scratch)
		evbuffer_free(s->scratch);
	metrics_sse_streams_add(-1);
	free(s);
}

static void on_close(void *arg)
{
	struct sse_stream *s = arg;
	/* A client that went away: evhttp 2.1 has detached the unfinished
	 * request from the dying connection and left it to us; ending it
	 * frees it.  When we free the connection ourselves (drop), evhttp
	 * frees the request with it. */
	if (!s->dropping && s->req)
		evhttp_send_reply_end(s->req);
	s->req = NULL;
	s->evcon = NULL;
	if (s->closed)
		s->closed(s, s->arg);
	stream_free(s);
}

/* Drop a client that does not read: end the connection; evhttp then
 * calls on_close. */
static void drop(struct sse_stream *s)
{
	struct evhttp_connection *evcon = s->evcon;
	gw_log(GW_LOG_INFO, "sse: dropping a stream whose client does not read");
	s->dropping = true;
	/* on_close runs from evhttp_connection_free and frees s */
	evhttp_connection_free(evcon);
}

static int flush(struct sse_stream *s)
{
	if (!s->req)
		return -1;
	struct bufferevent *bev = evhttp_connection_get_bufferevent(s->evcon);
	if (evbuffer_get_length(bufferevent_get_output(bev)) + evbuffer_get_length(s->scratch) >
	    s->max_unsent) {
		evbuffer_drain(s->scratch, evbuffer_get_length(s->scratch));
		drop(s);
		return -1;
	}
	evhttp_send_reply_chunk(s->req, s->scratch);
	return 0;
}

static void on_keepalive(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sse_send_raw(arg, ": keep-alive\n\n");
}

struct sse_stream *sse_start(struct evhttp_request *req, struct event_base *base,
			     unsigned keepalive_s, size_t max_unsent, sse_closed_fn closed,
			     void *arg)
{
	struct sse_stream *s = calloc(1, sizeof(*s));
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	if (!s || !evcon)
		goto fail;
	s->scratch = evbuffer_new();
	s->keepalive = event_new(base, -1, EV_PERSIST, on_keepalive, s);
	if (!s->scratch || !s->keepalive)
		goto fail;
	struct timeval ka = {.tv_sec = keepalive_s ? keepalive_s : 15};
	if (event_add(s->keepalive, &ka) < 0)
		goto fail;
	s->req = req;
	s->evcon = evcon;
	s->max_unsent = max_unsent;
	s->closed = closed;
	s->arg = arg;
	metrics_sse_streams_add(1);
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	evhttp_add_header(h, "Content-Type", "text/event-stream");
	evhttp_add_header(h, "Cache-Control", "no-cache, no-transform");
	evhttp_add_header(h, "X-Accel-Buffering", "no");
	metrics_http_request(http_method_name(req), 200);
	evhttp_send_reply_start(req, 200, "OK");
	/* A stream is quiet for as long as it likes: no read timeout; a
	 * write that makes no progress still ends it. */
	struct timeval wt = {.tv_sec = SSE_WRITE_TIMEOUT_S};
	bufferevent_set_timeouts(evhttp_connection_get_bufferevent(evcon), NULL, &wt);
	http_conn_on_close(evcon, on_close, s);
	return s;
fail:
	if (s) {
		if (s->keepalive)
			event_free(s->keepalive);
		if (s->scratch)
			evbuffer_free(s->scratch);
		free(s);
	}
	http_respond(req, 500, NULL, NULL, 0);
	return NULL;
}

int sse_send(struct sse_stream *s, const char *id, const char *event, const char *data,
	     size_t len)
{
	if (!s->req)
		return -1;
	int rc = 0;
	if (id)
		rc |= evbuffer_add_printf(s->scratch, "id: %s\n", id) < 0;
	if (event)
		rc |= evbuffer_add_printf(s->scratch, "event: %s\n", event) < 0;
	rc |= evbuffer_add(s->scratch, "data: ", 6);
	rc |= evbuffer_add(s->scratch, data, len);
	rc |= evbuffer_add(s->scratch, "\n\n", 2);
	if (rc) {
		gw_log(GW_LOG_ERROR, "sse: out of memory");
		evbuffer_drain(s->scratch, evbuffer_get_length(s->scratch));
		drop(s);
		return -1;
	}
	return flush(s);
}

int sse_send_raw(struct sse_stream *s, const char *text)
{
	if (!s->req)
		return -1;
	if (evbuffer_add(s->scratch, text, strlen(text)) < 0) {
		drop(s);
		return -1;
	}
	return flush(s);
}

void sse_end(struct sse_stream *s)
{
	if (s->req) {
		http_conn_on_close(s->evcon, NULL, NULL);
		evhttp_send_reply_end(s->req);
	}
	stream_free(s);
}
