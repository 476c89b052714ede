/* See http_session.h. */
#include "http_session.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "http_conn.h"
#include "http_reply.h"
#include "job_watch.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp_version.h"
#include "metrics.h"
#include "sse.h"

/* Finished SSE exchanges kept per session for Last-Event-ID replay. */
#define KEEP_DONE_EXCHANGES 8

struct sse_event {
	struct sse_event *next;
	uint64_t seq;
	size_t len;
	char data[];
};

struct http_exchange {
	struct http_session *s;
	struct http_exchange *prev, *next;
	/* JSON mode: waiting for the reply.  Stays set when the client goes
	 * away: evhttp 2.1 then detaches the request and answering it frees
	 * it. */
	struct evhttp_request *req;
	bool client_gone;
	bool sse;
	bool done;
	struct sse_stream *stream; /* SSE mode: the live stream, NULL when none */
	uint64_t stream_no;
	uint64_t next_seq;
	struct sse_event *events, *tail;
	size_t bytes;
	bool session_header; /* the reply carries Mcp-Session-Id (initialize) */
};

struct http_session_table {
	struct http_session **buckets;
	size_t nbuckets, count;
};

/* The observer state lives next to the session it watches. */
struct session_box {
	struct http_session s;
	struct job_watch watch;
};

static uint64_t hash_id(const char *id)
{
	uint64_t h = 1469598103934665603ull;
	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ull;
	return h;
}

struct http_session_table *http_sessions_new(void)
{
	struct http_session_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->nbuckets = 1024;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	if (!t->buckets) {
		free(t);
		return NULL;
	}
	return t;
}

size_t http_sessions_count(const struct http_session_table *t)
{
	return t->count;
}

static void table_grow(struct http_session_table *t)
{
	size_t n = t->nbuckets * 2;
	struct http_session **b = calloc(n, sizeof(*b));
	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct http_session *s = t->buckets[i], *next;
		for (; s; s = next) {
			next = s->hnext;
			size_t k = hash_id(s->id) & (n - 1);
			s->hnext = b[k];
			b[k] = s;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
}

static void table_add(struct http_session_table *t, struct http_session *s)
{
	if (t->count >= t->nbuckets * 2)
		table_grow(t);
	size_t k = hash_id(s->id) & (t->nbuckets - 1);
	s->hnext = t->buckets[k];
	t->buckets[k] = s;
	t->count++;
}

static void table_remove(struct http_session_table *t, struct http_session *s)
{
	struct http_session **pp = &t->buckets[hash_id(s->id) & (t->nbuckets - 1)];
	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == s) {
			*pp = s->hnext;
			t->count--;
			return;
		}
	}
}

/* ---- exchanges ---- */

static void exchange_unlink_free(struct http_exchange *x)
{
	struct http_session *s = x->s;
	if (x->prev)
		x->prev->next = x->next;
	else
		s->exchanges = x->next;
	if (x->next)
		x->next->prev = x->prev;
	for (struct sse_event *e = x->events, *n; e; e = n) {
		n = e->next;
		free(e);
	}
	if (x->req) {
		/* Never left unanswered: that would leak it (and hang a live
		 * client). */
		struct evhttp_request *req = x->req;
		struct evhttp_connection *evcon = evhttp_request_get_connection(req);
		if (evcon)
			http_conn_on_close(evcon, NULL, NULL);
		x->req = NULL;
		http_respond_rpc_error(req, 500, JSONRPC_INTERNAL_ERROR, "no reply");
	}
	free(x);
}

/* Keep at most KEEP_DONE_EXCHANGES finished exchanges (the oldest go). */
static void prune_done(struct http_session *s)
{
	unsigned n = 0;
	struct http_exchange *x = s->exchanges, *next;
	for (; x; x = next) {
		next = x->next;
		if (x->done && !x->stream && !x->req && ++n > KEEP_DONE_EXCHANGES)
			exchange_unlink_free(x);
	}
}

static void exchange_req_closed(void *arg)
{
	struct http_exchange *x = arg;
	x->client_gone = true;
}

static void exchange_stream_closed(struct sse_stream *st, void *arg)
{
	struct http_exchange *x = arg;
	(void)st;
	x->stream = NULL;
	/* Disconnection is not cancellation: the job runs on and its events
	 * stay for a GET with Last-Event-ID. */
}

/* Remember an event for replay, within the session's byte budget (the
 * oldest non-final events go first). */
static void store_event(struct http_exchange *x, uint64_t seq, const char *json, size_t len)
{
	size_t budget = x->s->gw->cfg->max_stream_buffer_bytes;
	struct sse_event *e = malloc(sizeof(*e) + len);
	if (!e)
		return;
	e->next = NULL;
	e->seq = seq;
	e->len = len;
	memcpy(e->data, json, len);
	if (x->tail)
		x->tail->next = e;
	else
		x->events = e;
	x->tail = e;
	x->bytes += len;
	while (x->bytes > budget && x->events != x->tail) {
		struct sse_event *old = x->events;
		x->events = old->next;
		x->bytes -= old->len;
		free(old);
	}
}

static void event_id(const struct http_exchange *x, uint64_t seq, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 "-%" PRIu64, x->stream_no, seq);
}

static void exchange_send_event(struct http_exchange *x, const char *json, size_t len)
{
	char id[48];
	uint64_t seq = ++x->next_seq;
	event_id(x, seq, id, sizeof(id));
	store_event(x, seq, json, len);
	if (x->stream)
		sse_send(x->stream, id, "message", json, len); /* on -1 x->stream is NULL */
}

static void exchange_finish_sse(struct http_exchange *x)
{
	x->done = true;
	if (x->stream) {
		struct sse_stream *st = x->stream;
		x->stream = NULL;
		sse_end(st);
	}
	prune_done(x->s);
}

static void reply_json(struct http_exchange *x, int status, const char *json, size_t len)
{
	struct evhttp_request *req = x->req;
	if (!req)
		return;
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	if (evcon)
		http_conn_on_close(evcon, NULL, NULL);
	x->req = NULL;
	if (x->session_header && mcp_session_initialized(x->s->mcp))
		evhttp_add_header(evhttp_request_get_output_headers(req), "Mcp-Session-Id",
				  x->s->id);
	http_respond(req, status, json ? "application/json" : NULL, json, len);
}

/* ---- the MCP send function ---- */

static void session_send(const char *json, size_t len, enum mcp_send_kind kind, void *ctx,
			 void *arg)
{
	struct http_session *s = arg;
	struct http_exchange *x = ctx;

	if (s->kind == HTTP_SESSION_LEGACY_SSE) {
		if (kind != MCP_SEND_NONE && s->stream)
			sse_send(s->stream, NULL, "message", json, len);
		return;
	}
	if (!x) {
		gw_log(GW_LOG_DEBUG, "http: a message with no request to answer was dropped");
		return;
	}
	if (x->sse) {
		if (kind != MCP_SEND_NONE)
			exchange_send_event(x, json, len);
		if (kind != MCP_SEND_RELATED)
			exchange_finish_sse(x);
		return;
	}
	/* JSON mode: notifications cannot travel (the client chose no
	 * stream); the reply is the response body. */
	if (kind == MCP_SEND_RELATED)
		return;
	if (kind == MCP_SEND_FINAL)
		reply_json(x, 200, json, len);
	else
		reply_json(x, 202, NULL, 0); /* cancelled: no reply will come */
	exchange_unlink_free(x);
}

/* ---- sessions ---- */

static void on_idle(evutil_socket_t fd, short what, void *arg);

static void arm_idle(struct http_session *s)
{
	struct timeval tv = {.tv_sec = s->gw->cfg->session_idle_timeout_s};
	if (event_add(s->idle, &tv) < 0)
		gw_log(GW_LOG_WARN, "http: cannot arm a session's idle timer");
}

static bool session_busy(struct http_session *s)
{
	if (s->stream || mcp_session_pending(s->mcp) > 0)
		return true;
	for (struct http_exchange *x = s->exchanges; x; x = x->next)
		if (x->stream || (x->req && !x->client_gone))
			return true;
	return false;
}

static void on_idle(evutil_socket_t fd, short what, void *arg)
{
	struct http_session *s = arg;
	(void)fd;
	(void)what;
	uint64_t idle_ns = (uint64_t)s->gw->cfg->session_idle_timeout_s * 1000000000ull;
	uint64_t now = ratelimit_now_ns();
	if (session_busy(s) || now - s->last_used_ns < idle_ns) {
		arm_idle(s);
		return;
	}
	gw_log(GW_LOG_INFO, "http: session of tenant %s expired after %u s idle",
	       s->ts->tenant->name, s->gw->cfg->session_idle_timeout_s);
	http_session_destroy(s);
}

void http_session_touch(struct http_session *s)
{
	s->last_used_ns = ratelimit_now_ns();
}

int http_session_create(struct http_gateway *gw, const struct http_caller *caller,
			enum http_session_kind kind, struct http_session **out)
{
	struct tenant_usage *u = &caller->ts->usage;
	unsigned max = caller->ts->tenant->max_sessions ? caller->ts->tenant->max_sessions
							 : gw->cfg->max_sessions_per_tenant;
	if (u->sessions >= max)
		return -EUSERS;
	struct session_box *box = calloc(1, sizeof(*box));
	if (!box)
		return -ENOMEM;
	struct http_session *s = &box->s;
	uint8_t rnd[HTTP_SESSION_ID_LEN / 2];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		free(box);
		return -EIO;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(s->id + 2 * i, 3, "%02x", rnd[i]);
	s->kind = kind;
	s->gw = gw;
	s->ts = caller->ts;
	snprintf(s->key_id, sizeof(s->key_id), "%s", caller->key_id ? caller->key_id : "");
	snprintf(s->client, sizeof(s->client), "%s", caller->client);
	s->next_stream_no = 1; /* 0 is the standalone GET stream */

	struct job_watch *w = &box->watch;
	w->audit = gw->audit;
	w->ts = caller->ts;
	w->tenant = caller->ts->tenant->name;
	snprintf(w->key_id, sizeof(w->key_id), "%s", s->key_id);
	snprintf(w->client, sizeof(w->client), "%s", s->client);
	w->transport = kind == HTTP_SESSION_LEGACY_SSE ? "sse" : "http";
	snprintf(w->session, sizeof(w->session), "%s", s->id);
	w->log_code = gw->cfg->audit_log_code;
	job_watch_observer(w, &s->observer);

	s->mcfg = (struct mcp_config){
	    .server_name = "cellgate",
	    .server_version = CELLGATE_VERSION,
	    .max_concurrent_jobs = caller->ts->tenant->max_concurrent_jobs,
	    .tenant = &caller->ts->limits,
	    .observer = &s->observer,
	    .base = gw->base,
	    .progress_interval_ms = gw->cfg->progress_interval_ms,
	    .progress_message_bytes = gw->cfg->progress_message_bytes,
	};
	s->mcp = mcp_session_new(&s->mcfg, &gw->backend, session_send, s);
	s->idle = event_new(gw->base, -1, 0, on_idle, s);
	if (!s->mcp || !s->idle) {
		if (s->mcp)
			mcp_session_free(s->mcp);
		if (s->idle)
			event_free(s->idle);
		free(box);
		return -ENOMEM;
	}
	http_session_touch(s);
	arm_idle(s);
	table_add(gw->sessions, s);
	u->sessions++;
	metrics_sessions_add(1);
	*out = s;
	return 0;
}

struct http_session *http_session_find(struct http_gateway *gw, const char *id,
				       const struct http_caller *caller)
{
	struct http_session_table *t = gw->sessions;
	if (strlen(id) != HTTP_SESSION_ID_LEN)
		return NULL;
	for (struct http_session *s = t->buckets[hash_id(id) & (t->nbuckets - 1)]; s;
	     s = s->hnext)
		if (strcmp(s->id, id) == 0)
			return s->ts == caller->ts && !s->closing ? s : NULL;
	return NULL;
}

void http_session_destroy(struct http_session *s)
{
	if (s->closing)
		return;
	s->closing = true;
	table_remove(s->gw->sessions, s);
	/* Jobs first: their end records still name this session. */
	mcp_session_free(s->mcp);
	s->mcp = NULL;
	while (s->exchanges) {
		struct http_exchange *x = s->exchanges;
		if (x->stream) {
			struct sse_stream *st = x->stream;
			x->stream = NULL;
			sse_end(st);
		}
		if (x->req) {
			struct evhttp_request *req = x->req;
			struct evhttp_connection *evcon = evhttp_request_get_connection(req);
			if (evcon)
				http_conn_on_close(evcon, NULL, NULL);
			x->req = NULL;
			http_respond_rpc_error(req, 404, -32001, "session terminated");
		}
		exchange_unlink_free(x);
	}
	if (s->stream) {
		struct sse_stream *st = s->stream;
		s->stream = NULL;
		sse_end(st);
	}
	event_free(s->idle);
	s->ts->usage.sessions--;
	metrics_sessions_add(-1);
	free((struct session_box *)s);
}

void http_sessions_free(struct http_session_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nbuckets; i++)
		while (t->buckets[i])
			http_session_destroy(t->buckets[i]);
	free(t->buckets);
	free(t);
}

void http_session_dispatch(struct http_session *s, struct evhttp_request *req,
			   const struct jsonrpc_input *in, unsigned nreplies, bool sse)
{
	http_session_touch(s);
	if (s->kind == HTTP_SESSION_LEGACY_SSE || nreplies == 0) {
		mcp_session_handle_parsed(s->mcp, in, NULL);
		return;
	}
	struct http_exchange *x = calloc(1, sizeof(*x));
	if (!x) {
		http_respond_rpc_error(req, 500, JSONRPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	x->s = s;
	x->sse = sse;
	x->stream_no = s->next_stream_no++;
	x->next = s->exchanges;
	if (s->exchanges)
		s->exchanges->prev = x;
	s->exchanges = x;
	x->session_header = !mcp_session_initialized(s->mcp);
	if (sse) {
		if (x->session_header)
			evhttp_add_header(evhttp_request_get_output_headers(req), "Mcp-Session-Id",
					  s->id);
		x->stream = sse_start(req, s->gw->base, s->gw->cfg->sse_keepalive_s,
				      s->gw->cfg->max_stream_buffer_bytes, exchange_stream_closed, x);
		if (!x->stream) {
			exchange_unlink_free(x);
			return;
		}
		/* 2025-11-25: an event id with empty data first, so the client
		 * can resume even if the connection drops before any reply
		 * (older clients choke on the empty data). */
		if (mcp_session_version(s->mcp) >= MCP_2025_11_25) {
			char id[48];
			event_id(x, 0, id, sizeof(id));
			sse_send(x->stream, id, NULL, "", 0);
		}
	} else {
		x->req = req;
		struct evhttp_connection *evcon = evhttp_request_get_connection(req);
		if (evcon)
			http_conn_on_close(evcon, exchange_req_closed, x);
	}
	/* x may be gone when this returns (a synchronous reply). */
	mcp_session_handle_parsed(s->mcp, in, x);
}

static int parse_event_id(const char *v, uint64_t *stream_no, uint64_t *seq)
{
	char *end;
	errno = 0;
	unsigned long long a = strtoull(v, &end, 10);
	if (errno || end == v || *end != '-')
		return -EINVAL;
	const char *p = end + 1;
	unsigned long long b = strtoull(p, &end, 10);
	if (errno || end == p || *end)
		return -EINVAL;
	*stream_no = a;
	*seq = b;
	return 0;
}

int http_session_resume(struct http_session *s, struct evhttp_request *req,
			const char *last_event_id)
{
	uint64_t no, seq;
	if (parse_event_id(last_event_id, &no, &seq) < 0)
		return -ENOENT;
	struct http_exchange *x = s->exchanges;
	while (x && (!x->sse || x->stream_no != no))
		x = x->next;
	if (!x)
		return -ENOENT;
	if (x->stream)
		return -EBUSY;
	http_session_touch(s);
	x->stream = sse_start(req, s->gw->base, s->gw->cfg->sse_keepalive_s,
			      s->gw->cfg->max_stream_buffer_bytes, exchange_stream_closed, x);
	if (!x->stream)
		return 0; /* answered 500 */
	char id[48];
	for (struct sse_event *e = x->events; e && x->stream; e = e->next) {
		if (e->seq <= seq)
			continue;
		event_id(x, e->seq, id, sizeof(id));
		sse_send(x->stream, id, "message", e->data, e->len);
	}
	if (x->done && x->stream) {
		struct sse_stream *st = x->stream;
		x->stream = NULL;
		sse_end(st);
	}
	return 0;
}

static void standalone_closed(struct sse_stream *st, void *arg)
{
	struct http_session *s = arg;
	(void)st;
	s->stream = NULL;
}

int http_session_open_stream(struct http_session *s, struct evhttp_request *req)
{
	if (s->stream)
		return -EBUSY;
	http_session_touch(s);
	s->stream = sse_start(req, s->gw->base, s->gw->cfg->sse_keepalive_s,
			      s->gw->cfg->max_stream_buffer_bytes, standalone_closed, s);
	return 0;
}

int http_session_precheck(struct http_session *s, unsigned *retry_after_s, const char **reason)
{
	return job_watch_precheck(&((struct session_box *)s)->watch, retry_after_s, reason);
}
