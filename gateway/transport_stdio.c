#include "transport_stdio.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* Stop reading requests while this much output waits for the client: a
 * client that never reads cannot make us buffer without bound. */
#define OUTPUT_HIGH_WATER (32u * 1024u * 1024u)
/* On the way out, how long replies already queued may take to drain before
 * we exit anyway: a client that stopped reading cannot keep us alive. */
#define SHUTDOWN_DRAIN_MS 2000

struct stdio_transport {
	struct event_base *base;
	struct bufferevent *in, *out;
	struct mcp_session *session;
	bool discarding; /* inside an over-long line */
	bool closing;
	struct event *sigterm, *sigint;
};

static void send_line(const char *json, size_t len, enum mcp_send_kind kind, void *ctx, void *arg)
{
	struct stdio_transport *t = arg;
	(void)ctx;
	if (kind == MCP_SEND_NONE)
		return; /* a cancelled request: nothing goes out */
	if (t->closing && !t->out)
		return;
	struct evbuffer *o = bufferevent_get_output(t->out);
	if (evbuffer_add(o, json, len) < 0 || evbuffer_add(o, "\n", 1) < 0)
		gw_log(GW_LOG_ERROR, "stdout buffer: out of memory");
	if (evbuffer_get_length(o) > OUTPUT_HIGH_WATER)
		bufferevent_disable(t->in, EV_READ);
}

static void on_out_drained(struct bufferevent *bev, void *arg)
{
	struct stdio_transport *t = arg;
	(void)bev;
	if (t->closing) {
		event_base_loopexit(t->base, NULL);
		return;
	}
	bufferevent_enable(t->in, EV_READ);
}

static void shutdown_transport(struct stdio_transport *t)
{
	if (t->closing)
		return;
	t->closing = true;
	if (t->session) {
		mcp_session_free(t->session); /* kills running jobs; no more replies */
		t->session = NULL;
	}
	bufferevent_disable(t->in, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(t->out)) == 0) {
		event_base_loopexit(t->base, NULL);
		return;
	}
	struct timeval grace = {.tv_sec = SHUTDOWN_DRAIN_MS / 1000,
				.tv_usec = (SHUTDOWN_DRAIN_MS % 1000) * 1000};
	event_base_loopexit(t->base, &grace);
}

static void too_long(struct stdio_transport *t)
{
	mcp_session_reject_oversized(t->session);
}

static void on_input(struct bufferevent *bev, void *arg)
{
	struct stdio_transport *t = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	while (!t->closing) {
		struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
		if (eol.pos < 0) {
			size_t pending = evbuffer_get_length(in);
			if (pending > MCP_MAX_MESSAGE_BYTES) {
				if (!t->discarding)
					too_long(t);
				t->discarding = true;
				evbuffer_drain(in, pending);
			}
			return;
		}
		size_t len = (size_t)eol.pos;
		if (t->discarding) {
			evbuffer_drain(in, len + 1);
			t->discarding = false;
			continue;
		}
		if (len > MCP_MAX_MESSAGE_BYTES) {
			evbuffer_drain(in, len + 1);
			too_long(t);
			continue;
		}
		char *line = (char *)evbuffer_pullup(in, (ev_ssize_t)len + 1);
		if (!line) {
			gw_log(GW_LOG_ERROR, "stdin: out of memory");
			shutdown_transport(t);
			return;
		}
		size_t n = len;
		if (n > 0 && line[n - 1] == '\r')
			n--;
		if (n > 0)
			mcp_session_handle(t->session, line, n);
		evbuffer_drain(in, len + 1);
	}
}

static void on_in_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		shutdown_transport(arg);
}

static void on_out_event(struct bufferevent *bev, short what, void *arg)
{
	struct stdio_transport *t = arg;
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		/* The client stopped reading: nothing we say can arrive. */
		shutdown_transport(t);
		event_base_loopexit(t->base, NULL);
	}
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	gw_log(GW_LOG_INFO, "signal %d: shutting down", (int)sig);
	shutdown_transport(arg);
}

int stdio_serve(struct event_base *base, const struct mcp_config *cfg,
		struct exec_backend *backend)
{
	struct stdio_transport t = {.base = base};
	signal(SIGPIPE, SIG_IGN);
	if (evutil_make_socket_nonblocking(STDIN_FILENO) < 0 ||
	    evutil_make_socket_nonblocking(STDOUT_FILENO) < 0) {
		gw_log(GW_LOG_ERROR, "cannot make stdio non-blocking: %s", strerror(errno));
		return 1;
	}
	t.in = bufferevent_socket_new(base, STDIN_FILENO, 0);
	t.out = bufferevent_socket_new(base, STDOUT_FILENO, 0);
	if (!t.in || !t.out)
		return 1;
	t.session = mcp_session_new(cfg, backend, send_line, &t);
	if (!t.session)
		return 1;
	bufferevent_setcb(t.in, on_input, NULL, on_in_event, &t);
	bufferevent_setcb(t.out, NULL, on_out_drained, on_out_event, &t);
	bufferevent_setwatermark(t.out, EV_WRITE, 0, 0);
	bufferevent_enable(t.in, EV_READ);
	bufferevent_enable(t.out, EV_WRITE);
	t.sigterm = evsignal_new(base, SIGTERM, on_signal, &t);
	t.sigint = evsignal_new(base, SIGINT, on_signal, &t);
	if (!t.sigterm || !t.sigint || evsignal_add(t.sigterm, NULL) < 0 ||
	    evsignal_add(t.sigint, NULL) < 0)
		return 1;
	event_base_dispatch(base);
	shutdown_transport(&t);
	event_free(t.sigterm);
	event_free(t.sigint);
	bufferevent_free(t.in);
	bufferevent_free(t.out);
	return 0;
}
