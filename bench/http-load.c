/* http-load: a small HTTP/1.1 load client for bench/http-bench.sh.
 *
 * One thread, one epoll set, N keep-alive connections.  Closed loop by
 * default: each connection sends its next request as soon as the previous
 * response has been read completely.  With --rate R it is open loop: request
 * i is due at start + i/R and goes out on whichever connection is idle
 * then; its latency is measured from that due time, not from the moment a
 * connection became free, so a stalled server shows up in the latency
 * figures instead of silently lowering the request rate (coordinated
 * omission).
 *
 * Responses are framed by Content-Length, by chunked transfer coding (an
 * event stream ends with the server's last chunk) or, without either, by
 * the server closing the connection.  Bodies are read and thrown away.
 *
 * If the request body contains the text {{id}}, every request replaces it
 * with a fresh number, so JSON-RPC ids are never reused within a session.
 *
 * Output, one line of JSON on stdout:
 *   {"requests":N,"errors":N,"non2xx":N,"rps":X,"p50_ms":X,"p90_ms":X,
 *    "p99_ms":X,"max_ms":X}
 * requests counts complete responses (any status) finished after the
 * warm-up (rps is requests / duration); the latency figures cover those of
 * them that were also issued (or, open loop, due) after the warm-up.
 * errors counts requests lost to connect failures, resets, malformed
 * responses and timeouts; non2xx is the subset of requests whose status was
 * not 2xx.  Details of errors go to stderr.
 *
 * Build: cc -std=c17 -O2 -Wall -Wextra -o build/bench/http-load bench/http-load.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
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

#define IN_CAP 16384 /* per connection; a response head must fit */
#define MAX_CONNS 50000
#define MAX_BODY (64u << 20)
#define MAX_HEADERS 64
#define ID_MARK "{{id}}"
#define SWEEP_NS 50000000ull  /* timeouts and delayed reconnects: every 50 ms */
#define RETRY_NS 100000000ull /* reconnect delay after repeated failures */
#define NS 1000000000ull

enum err_kind { E_CONNECT, E_RESET, E_PARSE, E_TIMEOUT, E_CLOSED, E_KINDS };
static const char *const err_names[E_KINDS] = {"connect", "reset", "malformed", "timeout",
					       "closed_early"};

enum cstate {
	C_DOWN,	      /* no socket; reconnect at retry_at */
	C_CONNECTING, /* waiting for the TCP handshake */
	C_IDLE,	      /* connected, no request (open loop only) */
	C_BUSY,	      /* request written or being written, response being read */
};

enum pstate { P_HEAD, P_LENGTH, P_CHUNK_SIZE, P_CHUNK_DATA, P_CHUNK_CRLF, P_TRAILER, P_EOF };

struct conn {
	int fd;
	enum cstate st;
	bool want_out;	   /* EPOLLOUT registered */
	bool in_stack;	   /* listed in the idle stack (entries may be stale) */
	unsigned failures; /* consecutive, for the reconnect delay */
	uint64_t retry_at;
	uint64_t t_due;	 /* latency origin: due time (open loop) or send time */
	uint64_t t_sent; /* for the request timeout */
	/* outgoing request */
	const char *out;
	size_t out_len, out_off;
	char *own; /* per-connection request buffer when the body has {{id}} */
	/* response parser */
	enum pstate ps;
	bool close_after;
	int status;
	uint64_t remaining;
	size_t in_len;
	char in[IN_CAP];
};

static struct {
	/* options */
	const char *url;
	unsigned nconns;
	double duration, warmup, rate, timeout;
	const char *method;
	const char *headers[MAX_HEADERS];
	unsigned nheaders;
	char *body;
	size_t body_len;
	/* target */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char hostport[300];
	char path[2048];
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
	struct conn **idle;
	size_t nidle;
	uint64_t t_start, t_measure, t_end;
	uint64_t next_due; /* open loop */
	uint64_t interval_ns;
	/* results */
	uint64_t requests, errors, non2xx;
	uint64_t samples; /* latencies in hist */
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

static void die(const char *fmt, ...)
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

/* http://HOST[:PORT][/PATH]; HOST may be [v6]. */
static void parse_url(const char *url)
{
	const char *p, *auth_end, *host_end, *port = NULL;
	char host[256], portbuf[8];
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
	size_t hl;
	int rc;

	if (strncmp(url, "http://", 7) != 0)
		die("--url: only http:// URLs");
	p = url + 7;
	auth_end = p + strcspn(p, "/?");
	if (auth_end == p || (size_t)(auth_end - p) >= sizeof(g.hostport))
		die("--url: bad host");
	memcpy(g.hostport, p, (size_t)(auth_end - p));
	g.hostport[auth_end - p] = '\0';
	if (*p == '[') {
		host_end = memchr(p, ']', (size_t)(auth_end - p));
		if (!host_end)
			die("--url: unterminated [");
		p++;
		if (host_end + 1 < auth_end && host_end[1] == ':')
			port = host_end + 2;
	} else {
		host_end = memchr(p, ':', (size_t)(auth_end - p));
		if (host_end)
			port = host_end + 1;
		else
			host_end = auth_end;
	}
	hl = (size_t)(host_end - p);
	if (hl == 0 || hl >= sizeof(host))
		die("--url: bad host");
	memcpy(host, p, hl);
	host[hl] = '\0';
	if (!port) {
		port = "80";
	} else {
		size_t pl = (size_t)(auth_end - port);

		if (pl == 0 || pl >= sizeof(portbuf))
			die("--url: bad port");
		memcpy(portbuf, port, pl);
		portbuf[pl] = '\0';
		port = portbuf;
	}
	if (*auth_end == '\0')
		strcpy(g.path, "/");
	else if (*auth_end == '?')
		snprintf(g.path, sizeof(g.path), "/%s", auth_end);
	else if (strlen(auth_end) < sizeof(g.path))
		strcpy(g.path, auth_end);
	else
		die("--url: path too long");
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		die("%s: %s", host, gai_strerror(rc));
	memcpy(&g.addr, res->ai_addr, res->ai_addrlen);
	g.addrlen = res->ai_addrlen;
	freeaddrinfo(res);
}

/* Builds the request once; with {{id}} only the head is shared. */
static void build_request(void)
{
	size_t cap = strlen(g.method) + strlen(g.path) + strlen(g.hostport) + 64, len;
	bool has_body = g.body != NULL;
	bool user_host = false;
	char *h;

	for (unsigned i = 0; i < g.nheaders; i++) {
		cap += strlen(g.headers[i]) + 2;
		user_host |= strncasecmp(g.headers[i], "host:", 5) == 0;
	}
	h = xmalloc(cap + 32);
	len = (size_t)snprintf(h, cap, "%s %s HTTP/1.1\r\n", g.method, g.path);
	if (!user_host)
		len += (size_t)snprintf(h + len, cap - len, "Host: %s\r\n", g.hostport);
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
		len += (size_t)sprintf(g.req + len, "%zu", g.body_len);
	memcpy(g.req + len, "\r\n", 2);
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
static void dispatch(uint64_t now);

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

static void push_idle(struct conn *c)
{
	c->st = C_IDLE;
	if (!c->in_stack) {
		g.idle[g.nidle++] = c;
		c->in_stack = true;
	}
}

static void start_request(struct conn *c, uint64_t due, uint64_t now);

/* Connected and ready for a request. */
static void conn_ready(struct conn *c, uint64_t now)
{
	set_events(c, false);
	if (g.rate > 0) {
		push_idle(c);
		dispatch(now);
	} else {
		start_request(c, now, now);
	}
}

static void conn_open(struct conn *c, uint64_t now)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
	int one = 1;

	c->fd = socket(g.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		die("socket: %s (raise ulimit -n?)", strerror(errno));
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
		die("setsockopt TCP_NODELAY: %s", strerror(errno));
	c->in_len = 0;
	c->t_sent = now; /* the connect counts against the timeout */
	if (connect(c->fd, (struct sockaddr *)&g.addr, g.addrlen) != 0 && errno != EINPROGRESS) {
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

static void start_request(struct conn *c, uint64_t due, uint64_t now)
{
	fill_request(c);
	c->out_off = 0;
	c->t_due = due;
	c->t_sent = now;
	c->st = C_BUSY;
	c->ps = P_HEAD;
	c->close_after = false;
	c->status = 0;
	try_write(c, now);
}

/* Open loop: hand every request that is due to an idle connection. */
static void dispatch(uint64_t now)
{
	struct itimerspec its = {0};

	while (g.next_due <= now && g.nidle > 0) {
		struct conn *c = g.idle[--g.nidle];

		c->in_stack = false;
		if (c->st != C_IDLE)
			continue; /* stale entry */
		start_request(c, g.next_due, now);
		g.next_due += g.interval_ns;
	}
	/* Wake up for the next due request only if someone can send it. */
	if (g.nidle > 0) {
		its.it_value.tv_sec = (time_t)(g.next_due / NS);
		its.it_value.tv_nsec = (long)(g.next_due % NS);
	}
	if (timerfd_settime(g.tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
		die("timerfd_settime: %s", strerror(errno));
}

static void response_done(struct conn *c, uint64_t now)
{
	if (measuring(now)) {
		uint64_t lat = now > c->t_due ? now - c->t_due : 0;

		g.requests++;
		if (c->status < 200 || c->status > 299)
			g.non2xx++;
		/* Latency only of requests issued after the warm-up: a request the
		 * server sat on during the warm-up says nothing of steady state. */
		if (c->t_due >= g.t_measure) {
			g.samples++;
			hist[bucket_of(lat / 1000)]++;
			if (lat > g.max_ns)
				g.max_ns = lat;
		}
	}
	c->failures = 0;
	/* Anything after the response was not asked for. */
	c->in_len = 0;
	if (c->close_after) {
		conn_close(c);
		conn_open(c, now);
		return;
	}
	if (g.rate > 0) {
		push_idle(c);
		dispatch(now);
	} else {
		start_request(c, now, now);
	}
}

/* ---- response parsing ---- */

static const char *find_crlf(const char *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (p[i] == '\r' && p[i + 1] == '\n')
			return p + i;
	return NULL;
}

/* Does the comma-separated header value contain the token? */
static bool has_token(const char *v, size_t len, const char *token)
{
	size_t tl = strlen(token);

	for (size_t i = 0; i + tl <= len; i++) {
		if (strncasecmp(v + i, token, tl) != 0)
			continue;
		if ((i == 0 || v[i - 1] == ',' || v[i - 1] == ' ') &&
		    (i + tl == len || v[i + tl] == ',' || v[i + tl] == ' ' || v[i + tl] == ';'))
			return true;
	}
	return false;
}

/* Parses the head in c->in[0..end); returns bytes consumed or -1. */
static int parse_head(struct conn *c, const char *end)
{
	const char *p = c->in, *line_end = find_crlf(p, (size_t)(end - p) + 2);
	bool have_length = false, chunked = false, http10;
	uint64_t length = 0;
	char *num_end;
	long status;

	if (!line_end || line_end - p < 12 || strncmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ')
		return -1;
	http10 = p[7] == '0';
	status = strtol(p + 9, &num_end, 10);
	if (num_end != p + 12 || status < 100 || status > 599)
		return -1;
	c->status = (int)status;
	c->close_after = http10;
	for (p = line_end + 2; p < end; p = line_end + 2) {
		const char *colon, *v;
		size_t vlen;

		line_end = find_crlf(p, (size_t)(end - p) + 2);
		colon = memchr(p, ':', (size_t)(line_end - p));
		if (!colon)
			return -1;
		for (v = colon + 1; v < line_end && (*v == ' ' || *v == '\t'); v++)
			;
		vlen = (size_t)(line_end - v);
		while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
			vlen--;
		if ((size_t)(colon - p) == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
			char tmp[24];

			if (vlen == 0 || vlen >= sizeof(tmp))
				return -1;
			memcpy(tmp, v, vlen);
			tmp[vlen] = '\0';
			errno = 0;
			length = strtoull(tmp, &num_end, 10);
			if (errno || *num_end || tmp[0] == '-')
				return -1;
			have_length = true;
		} else if ((size_t)(colon - p) == 17 &&
			   strncasecmp(p, "Transfer-Encoding", 17) == 0) {
			chunked = has_token(v, vlen, "chunked");
		} else if ((size_t)(colon - p) == 10 && strncasecmp(p, "Connection", 10) == 0) {
			if (has_token(v, vlen, "close"))
				c->close_after = true;
			else if (has_token(v, vlen, "keep-alive"))
				c->close_after = false;
		}
	}
	if (c->status < 200) {
		c->ps = P_HEAD; /* an interim response; the real one follows */
	} else if (c->status == 204 || c->status == 304 || strcmp(g.method, "HEAD") == 0) {
		c->ps = P_LENGTH;
		c->remaining = 0;
	} else if (chunked) {
		c->ps = P_CHUNK_SIZE;
	} else if (have_length) {
		c->ps = P_LENGTH;
		c->remaining = length;
	} else {
		c->ps = P_EOF;
		c->close_after = true;
	}
	return (int)(end + 4 - c->in);
}

/* Consumes what c->in holds; 1 when a response is complete, 0 for more,
 * -1 on a malformed response. */
static int parse(struct conn *c)
{
	size_t off = 0;
	int done = 0;

	while (!done && off < c->in_len) {
		const char *p = c->in + off, *eol;
		size_t avail = c->in_len - off;

		switch (c->ps) {
		case P_HEAD: {
			const char *end = memmem(p, avail, "\r\n\r\n", 4);
			int used;

			if (!end)
				goto need_more;
			if (off > 0) {
				/* keep the head at the start of the buffer for parse_head */
				memmove(c->in, p, avail);
				c->in_len = avail;
				off = 0;
				end = c->in + (end - p);
			}
			used = parse_head(c, end);
			if (used < 0)
				return -1;
			off += (size_t)used;
			if (c->ps == P_LENGTH && c->remaining == 0)
				done = 1;
			break;
		}
		case P_LENGTH: {
			uint64_t n = avail < c->remaining ? avail : c->remaining;

			off += (size_t)n;
			c->remaining -= n;
			done = c->remaining == 0;
			break;
		}
		case P_EOF:
			off = c->in_len; /* the body ends when the server closes */
			break;
		case P_CHUNK_SIZE: {
			char *num_end;

			eol = find_crlf(p, avail);
			if (!eol)
				goto need_more;
			if (!isxdigit((unsigned char)*p))
				return -1;
			errno = 0;
			c->remaining = strtoull(p, &num_end, 16);
			if (errno || (num_end != eol && *num_end != ';' && *num_end != ' '))
				return -1;
			off += (size_t)(eol - p) + 2;
			c->ps = c->remaining == 0 ? P_TRAILER : P_CHUNK_DATA;
			break;
		}
		case P_CHUNK_DATA: {
			uint64_t n = avail < c->remaining ? avail : c->remaining;

			off += (size_t)n;
			c->remaining -= n;
			if (c->remaining == 0)
				c->ps = P_CHUNK_CRLF;
			break;
		}
		case P_CHUNK_CRLF:
			if (avail < 2)
				goto need_more;
			if (p[0] != '\r' || p[1] != '\n')
				return -1;
			off += 2;
			c->ps = P_CHUNK_SIZE;
			break;
		case P_TRAILER:
			eol = find_crlf(p, avail);
			if (!eol)
				goto need_more;
			off += (size_t)(eol - p) + 2;
			done = eol == p; /* the empty line ends the message */
			break;
		}
	}
need_more:
	/* A head or a chunk-size line that fills the buffer will never end. */
	if (!done && off == 0 && c->in_len == IN_CAP)
		return -1;
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return done;
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
		if (c->st == C_BUSY && c->ps == P_EOF) {
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
	      "Closed loop unless --rate R (requests/s over all connections).  {{id}} in the\n"
	      "body becomes a fresh number per request.  Prints one line of JSON.\n",
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
	uint64_t now, next_sweep;
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
	parse_url(g.url);
	build_request();
	raise_nofile(g.nconns + 32);
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die("signal: %s", strerror(errno));

	g.conns = calloc(g.nconns, sizeof(*g.conns));
	g.idle = calloc(g.nconns, sizeof(*g.idle));
	if (!g.conns || !g.idle)
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
		g.interval_ns = (uint64_t)(1e9 / g.rate);
		if (g.interval_ns == 0)
			g.interval_ns = 1;
	}

	now = now_ns();
	g.t_start = now;
	g.t_measure = now + (uint64_t)(g.warmup * 1e9);
	g.t_end = g.t_measure + (uint64_t)(g.duration * 1e9);
	g.next_due = now;
	next_sweep = now + SWEEP_NS;
	for (unsigned i = 0; i < g.nconns; i++) {
		g.conns[i].fd = -1;
		conn_open(&g.conns[i], now);
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
				uint64_t expirations;

				/* timerfd: drain it, then send what is due */
				if (read(g.tfd, &expirations, sizeof(expirations)) < 0 &&
				    errno != EAGAIN)
					die("read timerfd: %s", strerror(errno));
				dispatch(now);
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
	printf("{\"requests\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"non2xx\":%" PRIu64
	       ",\"rps\":%.1f,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}\n",
	       g.requests, g.errors, g.non2xx, (double)g.requests / measured, percentile_ms(0.50),
	       percentile_ms(0.90), percentile_ms(0.99), (double)g.max_ns / 1e6);
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
