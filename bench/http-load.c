/* http-load: a small HTTP/1.1 load client for bench/http-bench.sh.
 *
 * One thread, one epoll set, N keep-alive connections.  Closed loop by
 * default: each connection sends its next request as soon as the previous
 * response has been read completely.
 *
 * With --rate R it is open loop: every connection keeps its own fixed
 * schedule of R/N requests a second, the connections staggered so that
 * together they send one request every 1/R s (connection i's k-th request
 * is due at start + (i + k*N)/R).  A request's latency is measured from
 * its due time, not from when it was sent: when the server stalls, the
 * connection is still busy when its next request comes due, that request
 * goes out late, and the wait shows in its latency instead of silently
 * lowering the request rate (coordinated omission).  Requests are never
 * dropped from the schedule: a connection that fell behind sends its
 * overdue requests back to back until it has caught up.
 *
 * Responses are read by bench/http_wire.c (Content-Length, chunked, or
 * until the server closes); bodies are thrown away.
 *
 * If the request body contains the text {{id}}, every request replaces it
 * with a fresh number, so JSON-RPC ids are never reused within a session.
 *
 * Output, one line of JSON on stdout:
 *   {"requests":N,"errors":N,"non2xx":N,"rps":X,"p50_ms":X,"p90_ms":X,
 *    "p99_ms":X,"p999_ms":X,"max_ms":X}
 * and, open loop, also
 *   "rate":X,"scheduled":N,"behind":N,"unsent":N
 * requests counts complete responses (any status) finished after the
 * warm-up (rps is requests / duration); the latency figures cover those of
 * them that were also issued (or, open loop, due) after the warm-up.
 * errors counts requests lost to connect failures, resets, malformed
 * responses and timeouts; non2xx is the subset of requests whose status was
 * not 2xx.  scheduled counts the requests due after the warm-up; behind
 * those of them that fell behind schedule: their connection was still busy
 * (or reconnecting) when they came due, so they went out late, or (unsent)
 * not at all before the end.  Open loop, the latency figures also count
 * every request due after the warm-up and unanswered at the end, with its
 * age then (a lower bound), so a backlog cannot hide.  Details of errors
 * go to stderr.
 *
 * Build: cc -std=c17 -O2 -Wall -Wextra -o build/bench/http-load \
 *          bench/http-load.c bench/http_wire.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "http_wire.h"

#define IN_CAP 16384 /* per connection; a response head must fit */
#define MAX_CONNS 50000
#define MAX_BODY (64u << 20)
#define MAX_HEADERS 64
#define ID_MARK "{{id}}"
#define SWEEP_NS 50000000ull  /* timeouts and delayed reconnects: every 50 ms */
#define RETRY_NS 100000000ull /* reconnect delay after repeated failures */
#define NS 1000000000ull
#define LAG_NS 1000000ull /* an on-schedule send this late means the client is overloaded */

enum err_kind { E_CONNECT, E_RESET, E_PARSE, E_TIMEOUT, E_CLOSED, E_KINDS };
static const char *const err_names[E_KINDS] = {"connect", "reset", "malformed", "timeout",
					       "closed_early"};

enum cstate {
	C_DOWN,	      /* no socket; reconnect at retry_at */
	C_CONNECTING, /* waiting for the TCP handshake */
	C_IDLE,	      /* connected, no request (open loop only) */
	C_BUSY,	      /* request written or being written, response being read */
};

struct conn {
	int fd;
	enum cstate st;
	bool want_out;	   /* EPOLLOUT registered */
	bool in_heap;	   /* waiting in the timer heap (open loop; may be stale) */
	unsigned idx;	   /* position in the stagger (open loop) */
	unsigned failures; /* consecutive, for the reconnect delay */
	size_t heap_at;
	uint64_t retry_at;
	uint64_t t_due;	 /* latency origin: due time (open loop) or send time */
	uint64_t t_sent; /* for the request timeout */
	/* open loop: this connection's schedule */
	uint64_t seq;	   /* index of its next request not yet sent */
	uint64_t next_due; /* when that request is due */
	/* outgoing request */
	const char *out;
	size_t out_len, out_off;
	char *own; /* per-connection request buffer when the body has {{id}} */
	/* incoming response */
	struct http_wire rd;
	size_t in_len;
	char in[IN_CAP];
};

static struct {
	/* options */
	const char *url;
	unsigned nconns;
	double duration, warmup, rate, timeout;
	const char *method;
	bool head_method; /* HEAD: responses have no body */
	const char *headers[MAX_HEADERS];
	unsigned nheaders;
	char *body;
	size_t body_len;
	/* target */
	struct http_url target; /* --url, parsed */
	/* request template: head ends with "Content-Length: " when there is an id */
	char *req; /* the whole request when the body has no {{id}} */
	size_t req_len;
	char *head; /* everything before the Content-Length value */
	size_t head_len;
	size_t id_at; /* offset of {{id}} in body, or SIZE_MAX */
	size_t own_cap;
	uint64_t next_id;
	/* run */
	int ep, tfd;
	struct conn *conns;
	struct conn **heap; /* open loop: idle connections by next_due */
	size_t nheap;
	uint64_t armed_at; /* the timerfd's expiry, 0 when disarmed */
	uint64_t t_start, t_measure, t_end;
	/* results */
	uint64_t requests, errors, non2xx;
	uint64_t late;	     /* open loop: sent after their due time (due in the window) */
	uint64_t client_lag; /* open loop: sent on schedule but over LAG_NS late */
	uint64_t samples;    /* latencies in hist */
	uint64_t err_by_kind[E_KINDS];
	uint64_t max_ns;
	char first_error[256];
} g;

/* ---- latency histogram: 1 us resolution below 2 ms, then 1/1024 relative ---- */

#define SUB_BITS 10
#define SUB (1u << SUB_BITS)
#define NBUCKETS (2 * SUB + 54 * SUB)
static uint64_t hist[NBUCKETS];

static size_t bucket_of(uint64_t us)
{
	unsigned e;

	if (us < 2 * SUB)
		return (size_t)us;
	e = (unsigned)(63 - __builtin_clzll(us)) - SUB_BITS; /* >= 1 */
	return 2 * SUB + (size_t)(e - 1) * SUB + (size_t)((us >> e) - SUB);
}

/* The middle of a bucket, in microseconds. */
static double bucket_value(size_t b)
{
	unsigned e;
	uint64_t lo;

	if (b < 2 * SUB)
		return (double)b;
	e = (unsigned)((b - 2 * SUB) / SUB) + 1;
	lo = ((uint64_t)((b - 2 * SUB) % SUB) + SUB) << e;
	return (double)lo + (double)(1ull << e) / 2.0;
}

static void record_latency(uint64_t ns)
{
	g.samples++;
	hist[bucket_of(ns / 1000)]++;
	if (ns > g.max_ns)
		g.max_ns = ns;
}

static double percentile_ms(double p)
{
	uint64_t rank, cum = 0;

	if (g.samples == 0)
		return 0;
	/* The smallest value with at least p of the samples at or below it. */
	rank = (uint64_t)(p * (double)g.samples + 0.999999);
	if (rank < 1)
		rank = 1;
	for (size_t b = 0; b < NBUCKETS; b++) {
		cum += hist[b];
		if (cum >= rank) {
			double v = bucket_value(b) / 1000.0, max = (double)g.max_ns / 1e6;
			return v < max ? v : max;
		}
	}
	return (double)g.max_ns / 1e6;
}

/* ---- helpers ---- */

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("http-load: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		die("clock_gettime: %s", strerror(errno));
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static bool measuring(uint64_t now)
{
	return now >= g.t_measure && now < g.t_end;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		die("out of memory");
	return p;
}

static double parse_num(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		die("%s: '%s' is not a number in [%g, %g]", opt, s, min, max);
	return v;
}

static void read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t off = 0;

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0)
		die("%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_BODY)
		die("%s: not a regular file of at most %u bytes", path, MAX_BODY);
	*buf = xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("%s: %s", path, n < 0 ? strerror(errno) : "short read");
		off += (size_t)n;
	}
	(*buf)[off] = '\0';
	*len = off;
	if (close(fd) != 0)
		die("%s: %s", path, strerror(errno));
}

static void parse_url(const char *url)
{
	char err[300];
	if (http_url_parse(url, &g.target, err, sizeof(err)) < 0)
		die("--url: %s", err);
}

/* Builds the request once; with {{id}} only the head is shared. */
static void build_request(void)
{
	size_t cap = strlen(g.method) + strlen(g.target.path) + strlen(g.target.hostport) + 64, len;
	bool has_body = g.body != NULL;
	bool user_host = false;
	char *h;

	for (unsigned i = 0; i < g.nheaders; i++) {
		cap += strlen(g.headers[i]) + 2;
		user_host |= strncasecmp(g.headers[i], "host:", 5) == 0;
	}
	h = xmalloc(cap + 32);
	len = (size_t)snprintf(h, cap, "%s %s HTTP/1.1\r\n", g.method, g.target.path);
	if (!user_host)
		len += (size_t)snprintf(h + len, cap - len, "Host: %s\r\n", g.target.hostport);
	for (unsigned i = 0; i < g.nheaders; i++)
		len += (size_t)snprintf(h + len, cap - len, "%s\r\n", g.headers[i]);
	g.id_at = SIZE_MAX;
	if (has_body) {
		char *mark = memmem(g.body, g.body_len, ID_MARK, strlen(ID_MARK));

		len += (size_t)snprintf(h + len, cap - len, "Content-Length: ");
		if (mark)
			g.id_at = (size_t)(mark - g.body);
	}
	g.head = h;
	g.head_len = len;
	if (g.id_at != SIZE_MAX) {
		/* head + length + CRLFCRLF + body with a 20-digit id */
		g.own_cap = g.head_len + 24 + 4 + g.body_len + 24;
		return;
	}
	g.req = xmalloc(len + 32 + g.body_len);
	memcpy(g.req, h, len);
	if (has_body)
		len += (size_t)sprintf(g.req + len, "%zu\r\n", g.body_len);
	memcpy(g.req + len, "\r\n", 2); /* the empty line that ends the head */
	len += 2;
	if (has_body) {
		memcpy(g.req + len, g.body, g.body_len);
		len += g.body_len;
	}
	g.req_len = len;
}

static void fill_request(struct conn *c)
{
	char idbuf[24];
	size_t idlen, blen, len;

	if (g.id_at == SIZE_MAX) {
		c->out = g.req;
		c->out_len = g.req_len;
		return;
	}
	if (!c->own)
		c->own = xmalloc(g.own_cap);
	idlen = (size_t)snprintf(idbuf, sizeof(idbuf), "%" PRIu64, ++g.next_id);
	blen = g.body_len - strlen(ID_MARK) + idlen;
	memcpy(c->own, g.head, g.head_len);
	len = g.head_len;
	len += (size_t)sprintf(c->own + len, "%zu\r\n\r\n", blen);
	memcpy(c->own + len, g.body, g.id_at);
	len += g.id_at;
	memcpy(c->own + len, idbuf, idlen);
	len += idlen;
	memcpy(c->own + len, g.body + g.id_at + strlen(ID_MARK),
	       g.body_len - g.id_at - strlen(ID_MARK));
	len += g.body_len - g.id_at - strlen(ID_MARK);
	c->out = c->own;
	c->out_len = len;
}

/* ---- connections ---- */

static void set_events(struct conn *c, bool out)
{
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0u), .data.ptr = c};

	if (out == c->want_out)
		return;
	if (epoll_ctl(g.ep, EPOLL_CTL_MOD, c->fd, &ev) != 0)
		die("epoll_ctl: %s", strerror(errno));
	c->want_out = out;
}

static void conn_open(struct conn *c, uint64_t now);
static void heap_remove(struct conn *c);

static void note_error(enum err_kind kind, const char *detail, uint64_t now)
{
	if (!measuring(now))
		return;
	g.errors++;
	g.err_by_kind[kind]++;
	if (!g.first_error[0])
		snprintf(g.first_error, sizeof(g.first_error), "%s: %s", err_names[kind], detail);
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0 && close(c->fd) != 0 && errno != EINTR)
		die("close: %s", strerror(errno));
	if (c->in_heap)
		heap_remove(c); /* the reconnect puts it back on schedule */
	c->fd = -1;
	c->st = C_DOWN;
	c->want_out = false;
	c->in_len = 0;
}

/* The request on c is lost: count it, drop the connection, reconnect
 * (after a pause once failures repeat, so a dead server is not spun on). */
static void conn_fail(struct conn *c, enum err_kind kind, const char *detail, uint64_t now)
{
	note_error(kind, detail, now);
	conn_close(c);
	c->failures++;
	if (c->failures > 1) {
		c->retry_at = now + RETRY_NS;
		return;
	}
	conn_open(c, now);
}

static void conn_open(struct conn *c, uint64_t now)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
	int one = 1;

	c->fd = socket(g.target.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		die("socket: %s (raise ulimit -n?)", strerror(errno));
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
		die("setsockopt TCP_NODELAY: %s", strerror(errno));
	c->in_len = 0;
	c->t_sent = now; /* the connect counts against the timeout */
	if (connect(c->fd, (struct sockaddr *)&g.target.addr, g.target.addrlen) != 0 &&
	    errno != EINPROGRESS) {
		char msg[128];

		snprintf(msg, sizeof(msg), "connect: %s", strerror(errno));
		conn_fail(c, E_CONNECT, msg, now);
		return;
	}
	c->st = C_CONNECTING;
	if (epoll_ctl(g.ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
		die("epoll_ctl: %s", strerror(errno));
	c->want_out = true;
}

static void try_write(struct conn *c, uint64_t now)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				set_events(c, true);
				return;
			}
			conn_fail(c, E_RESET, strerror(errno), now);
			return;
		}
		c->out_off += (size_t)n;
	}
	set_events(c, false);
}

/* ---- open loop: every connection's schedule; idle ones wait in a min-heap ---- */

/* When request k of connection c is due: connections staggered by 1/rate,
 * each one's requests nconns/rate apart.  Computed from k, not summed, so
 * rounding never drifts. */
static uint64_t due_of(const struct conn *c, uint64_t k)
{
	double at = ((double)c->idx + (double)k * (double)g.nconns) * 1e9 / g.rate;

	return g.t_start + (uint64_t)at;
}

/* The first k whose due time is at or after t. */
static uint64_t first_due_from(const struct conn *c, uint64_t t)
{
	double x;
	uint64_t k;

	if (t <= g.t_start)
		return 0;
	x = ((double)(t - g.t_start) * g.rate / 1e9 - (double)c->idx) / (double)g.nconns;
	k = x > 0 ? (uint64_t)x : 0;
	/* The estimate may be off by one either way. */
	while (k > 0 && due_of(c, k - 1) >= t)
		k--;
	while (due_of(c, k) < t)
		k++;
	return k;
}

static void heap_set(size_t i, struct conn *c)
{
	g.heap[i] = c;
	c->heap_at = i;
}

static void heap_up(size_t i)
{
	struct conn *c = g.heap[i];

	while (i > 0 && g.heap[(i - 1) / 2]->next_due > c->next_due) {
		heap_set(i, g.heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(i, c);
}

static void heap_down(size_t i)
{
	struct conn *c = g.heap[i];

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint64_t best = c->next_due;

		if (l < g.nheap && g.heap[l]->next_due < best)
			m = l, best = g.heap[l]->next_due;
		if (l + 1 < g.nheap && g.heap[l + 1]->next_due < best)
			m = l + 1;
		if (m == i)
			break;
		heap_set(i, g.heap[m]);
		i = m;
	}
	heap_set(i, c);
}

static void heap_push(struct conn *c)
{
	c->in_heap = true;
	heap_set(g.nheap++, c);
	heap_up(c->heap_at);
}

static void heap_remove(struct conn *c)
{
	size_t i = c->heap_at;
	struct conn *last = g.heap[--g.nheap];

	c->in_heap = false;
	if (last == c)
		return;
	heap_set(i, last);
	heap_up(i);
	heap_down(last->heap_at);
}

/* Arms the timerfd for the earliest waiting connection (or disarms it). */
static void arm_timer(void)
{
	uint64_t at = g.nheap > 0 ? g.heap[0]->next_due : 0;
	struct itimerspec its = {0};

	if (at == g.armed_at)
		return;
	its.it_value.tv_sec = (time_t)(at / NS);
	its.it_value.tv_nsec = (long)(at % NS);
	if (timerfd_settime(g.tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
		die("timerfd_settime: %s", strerror(errno));
	g.armed_at = at;
}

static void start_request(struct conn *c, uint64_t now)
{
	fill_request(c);
	c->out_off = 0;
	if (g.rate > 0) {
		c->t_due = c->next_due;
		c->next_due = due_of(c, ++c->seq);
	} else {
		c->t_due = now;
	}
	c->t_sent = now;
	c->st = C_BUSY;
	http_wire_init(&c->rd, IN_CAP, g.head_method);
	try_write(c, now);
}

/* Open loop: c is connected and idle.  A request whose time has come went
 * due while c was busy or reconnecting: it is behind schedule and goes out
 * at once; otherwise c waits for its time. */
static void schedule(struct conn *c, uint64_t now)
{
	c->st = C_IDLE;
	if (c->next_due <= now) {
		if (measuring(c->next_due))
			g.late++;
		start_request(c, now);
		return;
	}
	heap_push(c);
	arm_timer();
}

/* The timerfd fired: send every request whose time has come. */
static void on_timer(uint64_t now)
{
	uint64_t expirations;

	if (read(g.tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		die("read timerfd: %s", strerror(errno));
	g.armed_at = 0; /* a one-shot timer, spent */
	while (g.nheap > 0 && g.heap[0]->next_due <= now) {
		struct conn *c = g.heap[0];

		heap_remove(c);
		/* On time for the server, but not for this client. */
		if (now - c->next_due > LAG_NS && measuring(c->next_due))
			g.client_lag++;
		start_request(c, now);
	}
	arm_timer();
}

/* At the end: counts the requests due after the warm-up, and those of them
 * never sent.  Every such request still unanswered (never sent, or sent and
 * waiting) enters the latencies with its age at the end, a lower bound of
 * its latency: a server that fell behind must not look fast because only
 * the requests it did answer were timed. */
static void finish_schedule(uint64_t *scheduled, uint64_t *unsent)
{
	*scheduled = *unsent = 0;
	for (unsigned i = 0; i < g.nconns; i++) {
		const struct conn *c = &g.conns[i];
		uint64_t lo = first_due_from(c, g.t_measure), hi = first_due_from(c, g.t_end);
		uint64_t from = c->seq > lo ? c->seq : lo;

		*scheduled += hi - lo;
		for (uint64_t k = from; k < hi; k++) {
			(*unsent)++;
			record_latency(g.t_end - due_of(c, k));
		}
		if (c->st == C_BUSY && c->t_due >= g.t_measure && c->t_due < g.t_end)
			record_latency(g.t_end - c->t_due);
	}
}

/* ---- requests and responses ---- */

/* Connected and ready for a request. */
static void conn_ready(struct conn *c, uint64_t now)
{
	set_events(c, false);
	if (g.rate > 0)
		schedule(c, now);
	else
		start_request(c, now);
}

static void response_done(struct conn *c, uint64_t now)
{
	if (measuring(now)) {
		uint64_t lat = now > c->t_due ? now - c->t_due : 0;

		g.requests++;
		if (c->rd.status < 200 || c->rd.status > 299)
			g.non2xx++;
		/* Latency only of requests issued after the warm-up: a request the
		 * server sat on during the warm-up says nothing of steady state. */
		if (c->t_due >= g.t_measure)
			record_latency(lat);
	}
	c->failures = 0;
	/* Anything after the response was not asked for. */
	c->in_len = 0;
	if (c->rd.close_after) {
		conn_close(c);
		conn_open(c, now);
		return;
	}
	if (g.rate > 0)
		schedule(c, now);
	else
		start_request(c, now);
}

/* Feeds what c->in holds to the response reader; 1 when the response is
 * complete, 0 for more, -1 on a malformed response. */
static int parse(struct conn *c)
{
	size_t off = 0, used;
	int rc;

	do {
		rc = http_wire_feed(&c->rd, c->in + off, c->in_len - off, &used);
		off += used;
	} while (rc == HTTP_WIRE_HEAD);
	if (rc == HTTP_WIRE_ERROR)
		return -1;
	/* An unfinished head stays at the start of the buffer, to be extended. */
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return rc == HTTP_WIRE_DONE;
}

static void on_readable(struct conn *c, uint64_t now)
{
	ssize_t n;
	int rc;

	n = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len, 0);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		if (c->st == C_IDLE) {
			conn_close(c);
			conn_open(c, now);
			return;
		}
		conn_fail(c, E_RESET, strerror(errno), now);
		return;
	}
	if (n == 0) {
		if (c->st == C_BUSY && http_wire_ends_at_close(&c->rd)) {
			response_done(c, now); /* reconnects: close_after is set */
		} else if (c->st == C_IDLE) {
			/* the server retired an idle keep-alive connection */
			conn_close(c);
			conn_open(c, now);
		} else {
			conn_fail(c, E_CLOSED, "server closed the connection mid-response", now);
		}
		return;
	}
	if (c->st != C_BUSY) {
		conn_fail(c, E_PARSE, "bytes without a request", now);
		return;
	}
	c->in_len += (size_t)n;
	rc = parse(c);
	if (rc < 0)
		conn_fail(c, E_PARSE, "malformed response", now);
	else if (rc > 0)
		response_done(c, now);
}

static void on_event(struct conn *c, uint32_t events, uint64_t now)
{
	if (c->st == C_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			die("getsockopt: %s", strerror(errno));
		if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
			char msg[128];

			snprintf(msg, sizeof(msg), "connect: %s", strerror(err ? err : ECONNRESET));
			conn_fail(c, E_CONNECT, msg, now);
			return;
		}
		if (events & EPOLLOUT)
			conn_ready(c, now);
		return;
	}
	if ((events & EPOLLOUT) && c->st == C_BUSY && c->out_off < c->out_len) {
		try_write(c, now);
		if (c->st != C_BUSY)
			return;
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		on_readable(c, now);
}

static void sweep(uint64_t now)
{
	uint64_t limit = (uint64_t)(g.timeout * 1e9);

	for (unsigned i = 0; i < g.nconns; i++) {
		struct conn *c = &g.conns[i];

		if (c->st == C_DOWN && now >= c->retry_at)
			conn_open(c, now);
		else if ((c->st == C_BUSY || c->st == C_CONNECTING) && now - c->t_sent > limit)
			conn_fail(c, E_TIMEOUT, "no complete response within --timeout", now);
	}
}

static void raise_nofile(unsigned need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("setrlimit: %s", strerror(errno));
}

static void usage(void)
{
	fputs("usage: http-load --url http://HOST:PORT/PATH [--connections N] [--duration S]\n"
	      "  [--warmup S] [--rate R] [--header 'K: V']... [--body FILE | --body-string S]\n"
	      "  [--method M] [--timeout S]\n"
	      "Closed loop unless --rate R: open loop at R requests/s over all connections,\n"
	      "each connection on its own fixed schedule, latency from the scheduled time.\n"
	      "{{id}} in the body becomes a fresh number per request.  Prints one line of\n"
	      "JSON.\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"url", required_argument, NULL, 'u'},
	    {"connections", required_argument, NULL, 'c'},
	    {"duration", required_argument, NULL, 'd'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"rate", required_argument, NULL, 'r'},
	    {"header", required_argument, NULL, 'H'},
	    {"body", required_argument, NULL, 'b'},
	    {"body-string", required_argument, NULL, 's'},
	    {"method", required_argument, NULL, 'm'},
	    {"timeout", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct epoll_event evs[256];
	uint64_t now, next_sweep, scheduled = 0, unsent = 0;
	double measured;
	int opt;

	g.nconns = 1;
	g.duration = 10;
	g.timeout = 30;
	while ((opt = getopt_long(argc, argv, "u:c:d:w:r:H:b:s:m:t:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'u':
			g.url = optarg;
			break;
		case 'c':
			g.nconns = (unsigned)parse_num("--connections", optarg, 1, MAX_CONNS);
			break;
		case 'd':
			g.duration = parse_num("--duration", optarg, 0.01, 86400);
			break;
		case 'w':
			g.warmup = parse_num("--warmup", optarg, 0, 86400);
			break;
		case 'r':
			g.rate = parse_num("--rate", optarg, 0.001, 1e8);
			break;
		case 'H':
			if (g.nheaders == MAX_HEADERS)
				die("at most %d --header", MAX_HEADERS);
			if (!strchr(optarg, ':') || strpbrk(optarg, "\r\n"))
				die("--header: want 'Name: value' on one line");
			g.headers[g.nheaders++] = optarg;
			break;
		case 'b':
			free(g.body);
			read_file(optarg, &g.body, &g.body_len);
			break;
		case 's':
			free(g.body);
			g.body_len = strlen(optarg);
			g.body = xmalloc(g.body_len + 1);
			memcpy(g.body, optarg, g.body_len + 1);
			break;
		case 'm':
			g.method = optarg;
			break;
		case 't':
			g.timeout = parse_num("--timeout", optarg, 0.001, 86400);
			break;
		default:
			usage();
		}
	}
	if (!g.url || optind != argc)
		usage();
	if (!g.method)
		g.method = g.body ? "POST" : "GET";
	g.head_method = strcmp(g.method, "HEAD") == 0;
	parse_url(g.url);
	build_request();
	raise_nofile(g.nconns + 32);
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die("signal: %s", strerror(errno));

	g.conns = calloc(g.nconns, sizeof(*g.conns));
	g.heap = calloc(g.nconns, sizeof(*g.heap));
	if (!g.conns || !g.heap)
		die("out of memory");
	g.ep = epoll_create1(EPOLL_CLOEXEC);
	if (g.ep < 0)
		die("epoll_create1: %s", strerror(errno));
	g.tfd = -1;
	if (g.rate > 0) {
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};

		g.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (g.tfd < 0)
			die("timerfd_create: %s", strerror(errno));
		if (epoll_ctl(g.ep, EPOLL_CTL_ADD, g.tfd, &ev) != 0)
			die("epoll_ctl: %s", strerror(errno));
	}

	now = now_ns();
	g.t_start = now;
	g.t_measure = now + (uint64_t)(g.warmup * 1e9);
	g.t_end = g.t_measure + (uint64_t)(g.duration * 1e9);
	next_sweep = now + SWEEP_NS;
	for (unsigned i = 0; i < g.nconns; i++) {
		struct conn *c = &g.conns[i];

		c->fd = -1;
		c->idx = i;
		if (g.rate > 0)
			c->next_due = due_of(c, 0);
		conn_open(c, now);
	}

	while ((now = now_ns()) < g.t_end) {
		uint64_t wake = g.t_end < next_sweep ? g.t_end : next_sweep;
		int timeout_ms = (int)((wake - now + 999999) / 1000000), n;

		n = epoll_wait(g.ep, evs, (int)(sizeof(evs) / sizeof(evs[0])), timeout_ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait: %s", strerror(errno));
		}
		now = now_ns();
		for (int i = 0; i < n; i++) {
			if (!evs[i].data.ptr) {
				on_timer(now);
				continue;
			}
			on_event(evs[i].data.ptr, evs[i].events, now);
		}
		if (now >= next_sweep) {
			sweep(now);
			next_sweep = now + SWEEP_NS;
		}
	}

	measured = g.duration;
	if (g.rate > 0)
		finish_schedule(&scheduled, &unsent); /* before the percentiles: it adds to them */
	printf("{\"requests\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"non2xx\":%" PRIu64
	       ",\"rps\":%.1f,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f"
	       ",\"max_ms\":%.3f",
	       g.requests, g.errors, g.non2xx, (double)g.requests / measured, percentile_ms(0.50),
	       percentile_ms(0.90), percentile_ms(0.99), percentile_ms(0.999),
	       (double)g.max_ns / 1e6);
	if (g.rate > 0) {
		printf(",\"rate\":%.1f,\"scheduled\":%" PRIu64 ",\"behind\":%" PRIu64
		       ",\"unsent\":%" PRIu64,
		       g.rate, scheduled, g.late + unsent, unsent);
	}
	printf("}\n");
	if (g.client_lag)
		fprintf(stderr,
			"http-load: %" PRIu64 " requests went out over %.0f ms after their time"
			" although their connection was free: this client was busy or"
			" descheduled, and its delay is part of their latency\n",
			g.client_lag, (double)LAG_NS / 1e6);
	if (g.errors) {
		fprintf(stderr, "http-load: errors:");
		for (int k = 0; k < E_KINDS; k++)
			if (g.err_by_kind[k])
				fprintf(stderr, " %s=%" PRIu64, err_names[k], g.err_by_kind[k]);
		fprintf(stderr, "; first: %s\n", g.first_error);
	}
	if (fflush(stdout) != 0)
		die("stdout: %s", strerror(errno));
	return 0;
}
