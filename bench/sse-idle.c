/* sse-idle: hold many idle server-sent-event streams open, to measure what
 * each one costs the server (bench/http-bench.sh reads the server's VmRSS
 * while they are held).
 *
 * Opens --connections N TCP connections (at most --parallel handshakes in
 * flight, so the server's listen backlog is never flooded), sends a GET
 * with the given headers on each, and counts a stream as established when
 * the response head says 200 and Content-Type text/event-stream.  Events
 * the server sends afterwards are read and discarded.  Once every
 * connection is established or has failed (or --connect-timeout passed),
 * it optionally creates --ready-file, holds the streams for --hold seconds
 * and prints one line of JSON:
 *   {"connections":N,"established":N,"failed":N,"dropped":N,"open_at_end":N,
 *    "establish_s":X,"rss_kb_before":N,"rss_kb_held":N}
 * (the rss fields only with --pid PID: the server's VmRSS before the first
 * connect and at the end of the hold).  dropped counts streams the server
 * closed during the hold.  It raises its own RLIMIT_NOFILE as far as the
 * hard limit allows.  Responses are read by bench/http_wire.c.
 *
 * Build: cc -std=c17 -O2 -Wall -Wextra -o build/bench/sse-idle \
 *          bench/sse-idle.c bench/http_wire.c
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
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
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "http_wire.h"

#define MAX_CONNS 60000
#define MAX_HEADERS 64
#define HEAD_CAP 8192 /* a response head must fit */
#define NS 1000000000ull

enum sstate { S_NEW, S_CONNECTING, S_HEAD, S_OPEN, S_FAILED, S_CLOSED };

struct stream {
	int fd;
	enum sstate st;
	size_t out_off;
	char *head; /* only while the response head is awaited */
	size_t head_len;
	struct http_wire rd; /* the body's framing is followed only to notice its end */
};

enum fail_kind { F_CONNECT, F_STATUS, F_TYPE, F_CLOSED, F_TIMEOUT, F_MALFORMED, F_KINDS };
static const char *const fail_names[F_KINDS] = {"connect",	"status",  "content_type",
						"closed_early", "timeout", "malformed"};

static struct {
	unsigned n, parallel;
	double hold, connect_timeout;
	const char *url, *ready_file;
	const char *headers[MAX_HEADERS];
	unsigned nheaders;
	long pid;
	struct http_url target; /* --url, parsed */
	char *req;
	size_t req_len;
	int ep;
	struct stream *s;
	unsigned next, in_handshake, established, failed, dropped;
	uint64_t fail_by_kind[F_KINDS];
	char first_failure[256];
} g;

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("sse-idle: ", stderr);
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

static void parse_url(const char *url)
{
	char err[300];
	if (http_url_parse(url, &g.target, err, sizeof(err)) < 0)
		die("--url: %s", err);
}

static void build_request(void)
{
	size_t cap = strlen(g.target.path) + strlen(g.target.hostport) + 128, len;
	bool user_accept = false;

	for (unsigned i = 0; i < g.nheaders; i++) {
		cap += strlen(g.headers[i]) + 2;
		user_accept |= strncasecmp(g.headers[i], "accept:", 7) == 0;
	}
	g.req = malloc(cap);
	if (!g.req)
		die("out of memory");
	len = (size_t)snprintf(g.req, cap, "GET %s HTTP/1.1\r\nHost: %s\r\n", g.target.path,
			       g.target.hostport);
	if (!user_accept)
		len += (size_t)snprintf(g.req + len, cap - len, "Accept: text/event-stream\r\n");
	for (unsigned i = 0; i < g.nheaders; i++)
		len += (size_t)snprintf(g.req + len, cap - len, "%s\r\n", g.headers[i]);
	len += (size_t)snprintf(g.req + len, cap - len, "\r\n");
	g.req_len = len;
}

/* VmRSS of a process in KiB, or -1. */
static long read_rss_kb(long pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (fclose(f) != 0)
		return -1;
	return kb;
}

static void raise_nofile(unsigned need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur >= need)
		return;
	/* Raising the hard limit works for root only; try it, then settle. */
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		struct rlimit want = {need, need};

		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			return;
	}
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("setrlimit: %s", strerror(errno));
	if (rl.rlim_cur < need)
		fprintf(stderr, "sse-idle: RLIMIT_NOFILE hard limit %ju < %u: fewer streams\n",
			(uintmax_t)rl.rlim_max, need);
}

static void stream_end(struct stream *s, enum sstate st)
{
	if (s->st == S_CONNECTING || s->st == S_HEAD)
		g.in_handshake--;
	free(s->head);
	s->head = NULL;
	if (s->fd >= 0 && close(s->fd) != 0 && errno != EINTR)
		die("close: %s", strerror(errno));
	s->fd = -1;
	s->st = st;
}

static void stream_fail(struct stream *s, enum fail_kind kind, const char *detail)
{
	g.failed++;
	g.fail_by_kind[kind]++;
	if (!g.first_failure[0])
		snprintf(g.first_failure, sizeof(g.first_failure), "%s: %s", fail_names[kind],
			 detail);
	stream_end(s, S_FAILED);
}

static void stream_start(struct stream *s)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = s};

	s->fd = socket(g.target.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		/* Out of descriptors is this machine's limit, not the server's. */
		if (errno == EMFILE || errno == ENFILE)
			die("socket: %s after %u streams", strerror(errno), g.next);
		die("socket: %s", strerror(errno));
	}
	g.in_handshake++;
	s->st = S_CONNECTING;
	if (connect(s->fd, (struct sockaddr *)&g.target.addr, g.target.addrlen) != 0 &&
	    errno != EINPROGRESS) {
		stream_fail(s, F_CONNECT, strerror(errno));
		return;
	}
	if (epoll_ctl(g.ep, EPOLL_CTL_ADD, s->fd, &ev) != 0)
		die("epoll_ctl: %s", strerror(errno));
}

static void stream_write(struct stream *s)
{
	while (s->out_off < g.req_len) {
		ssize_t n = send(s->fd, g.req + s->out_off, g.req_len - s->out_off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			stream_fail(s, F_CONNECT, strerror(errno));
			return;
		}
		s->out_off += (size_t)n;
	}
	{
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = s};

		if (epoll_ctl(g.ep, EPOLL_CTL_MOD, s->fd, &ev) != 0)
			die("epoll_ctl: %s", strerror(errno));
	}
}

/* The response head has been read: is it a 200 event stream? */
static void check_head(struct stream *s)
{
	char detail[64];

	if (s->rd.status != 200) {
		snprintf(detail, sizeof(detail), "HTTP %d", s->rd.status);
		stream_fail(s, F_STATUS, detail);
		return;
	}
	if (!s->rd.event_stream) {
		stream_fail(s, F_TYPE, "not text/event-stream");
		return;
	}
	g.in_handshake--;
	g.established++;
	s->st = S_OPEN;
}

/* The server ended an open stream. */
static void stream_ended(struct stream *s, bool holding, const char *why)
{
	g.established--;
	if (!holding) {
		stream_fail(s, F_CLOSED, why);
		return;
	}
	g.dropped++;
	stream_end(s, S_CLOSED);
}

static void stream_read(struct stream *s, bool holding)
{
	char scratch[4096];
	size_t used, more;
	ssize_t n;
	int rc;

	if (s->st == S_HEAD) {
		n = recv(s->fd, s->head + s->head_len, HEAD_CAP - s->head_len, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			stream_fail(s, F_CLOSED,
				    n < 0 ? strerror(errno) : "closed before the head");
			return;
		}
		s->head_len += (size_t)n;
		rc = http_wire_feed(&s->rd, s->head, s->head_len, &used);
		if (rc == HTTP_WIRE_ERROR) {
			stream_fail(s, F_MALFORMED, "malformed or too large response head");
			return;
		}
		if (rc == HTTP_WIRE_MORE) {
			/* Interim responses are done with; the head is still to come. */
			memmove(s->head, s->head + used, s->head_len - used);
			s->head_len -= used;
			return;
		}
		check_head(s);
		if (s->st != S_OPEN)
			return;
		/* The first events may have come with the head. */
		rc = http_wire_feed(&s->rd, s->head + used, s->head_len - used, &more);
		if (rc != HTTP_WIRE_MORE)
			stream_ended(s, holding, "stream ended right after the head");
		free(s->head);
		s->head = NULL;
		return;
	}
	/* An open stream: the events themselves are not interesting. */
	n = recv(s->fd, scratch, sizeof(scratch), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0)
		stream_ended(s, holding, n < 0 ? strerror(errno) : "connection closed");
	else if (http_wire_feed(&s->rd, scratch, (size_t)n, &used) != HTTP_WIRE_MORE)
		stream_ended(s, holding, "the server ended the stream");
}

static void on_event(struct stream *s, uint32_t events, bool holding)
{
	if (s->st == S_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			die("getsockopt: %s", strerror(errno));
		if (err) {
			stream_fail(s, F_CONNECT, strerror(err));
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		s->head = malloc(HEAD_CAP);
		if (!s->head)
			die("out of memory");
		s->head_len = 0;
		http_wire_init(&s->rd, HEAD_CAP, false);
		s->st = S_HEAD;
		stream_write(s);
		return;
	}
	if (s->st == S_HEAD && s->out_off < g.req_len && (events & EPOLLOUT)) {
		stream_write(s);
		if (s->st != S_HEAD)
			return;
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		stream_read(s, holding);
}

/* Runs the event loop until `until`; while establishing, starts new
 * connections as handshakes finish and stops once none is left. */
static void run(uint64_t until, bool holding)
{
	struct epoll_event evs[512];

	for (;;) {
		uint64_t now = now_ns();
		int n, timeout_ms;

		if (!holding) {
			while (g.next < g.n && g.in_handshake < g.parallel)
				stream_start(&g.s[g.next++]);
			if (g.next == g.n && g.in_handshake == 0)
				return;
		}
		if (now >= until)
			return;
		timeout_ms = (int)((until - now + 999999) / 1000000);
		if (timeout_ms > 1000)
			timeout_ms = 1000;
		n = epoll_wait(g.ep, evs, (int)(sizeof(evs) / sizeof(evs[0])), timeout_ms);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			on_event(evs[i].data.ptr, evs[i].events, holding);
	}
}

static void usage(void)
{
	fputs("usage: sse-idle --url http://HOST:PORT/PATH [--connections N] [--hold S]\n"
	      "  [--header 'K: V']... [--parallel P] [--connect-timeout S]\n"
	      "  [--ready-file PATH] [--pid PID]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"url", required_argument, NULL, 'u'},
	    {"connections", required_argument, NULL, 'c'},
	    {"hold", required_argument, NULL, 'd'},
	    {"header", required_argument, NULL, 'H'},
	    {"parallel", required_argument, NULL, 'p'},
	    {"connect-timeout", required_argument, NULL, 't'},
	    {"ready-file", required_argument, NULL, 'r'},
	    {"pid", required_argument, NULL, 'P'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t t0, t_est;
	long rss_before = -1, rss_held = -1;
	unsigned open_at_end = 0;
	int opt;

	g.n = 10000;
	g.parallel = 256;
	g.hold = 10;
	g.connect_timeout = 60;
	while ((opt = getopt_long(argc, argv, "u:c:d:H:p:t:r:P:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'u':
			g.url = optarg;
			break;
		case 'c':
			g.n = (unsigned)parse_num("--connections", optarg, 1, MAX_CONNS);
			break;
		case 'd':
			g.hold = parse_num("--hold", optarg, 0, 86400);
			break;
		case 'H':
			if (g.nheaders == MAX_HEADERS)
				die("at most %d --header", MAX_HEADERS);
			if (!strchr(optarg, ':') || strpbrk(optarg, "\r\n"))
				die("--header: want 'Name: value' on one line");
			g.headers[g.nheaders++] = optarg;
			break;
		case 'p':
			g.parallel = (unsigned)parse_num("--parallel", optarg, 1, MAX_CONNS);
			break;
		case 't':
			g.connect_timeout = parse_num("--connect-timeout", optarg, 0.1, 86400);
			break;
		case 'r':
			g.ready_file = optarg;
			break;
		case 'P':
			g.pid = (long)parse_num("--pid", optarg, 1, 1 << 30);
			break;
		default:
			usage();
		}
	}
	if (!g.url || optind != argc)
		usage();
	parse_url(g.url);
	build_request();
	raise_nofile(g.n + 64);
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die("signal: %s", strerror(errno));
	g.s = calloc(g.n, sizeof(*g.s));
	if (!g.s)
		die("out of memory");
	for (unsigned i = 0; i < g.n; i++)
		g.s[i].fd = -1;
	g.ep = epoll_create1(EPOLL_CLOEXEC);
	if (g.ep < 0)
		die("epoll_create1: %s", strerror(errno));
	if (g.pid)
		rss_before = read_rss_kb(g.pid);

	t0 = now_ns();
	run(t0 + (uint64_t)(g.connect_timeout * 1e9), false);
	t_est = now_ns();
	for (unsigned i = 0; i < g.n; i++) {
		if (g.s[i].st == S_CONNECTING || g.s[i].st == S_HEAD)
			stream_fail(&g.s[i], F_TIMEOUT, "no response head in --connect-timeout");
		else if (g.s[i].st == S_NEW) {
			g.fail_by_kind[F_TIMEOUT]++; /* never started */
			g.failed++;
		}
	}
	fprintf(stderr, "sse-idle: %u of %u streams open after %.2f s, holding %.0f s\n",
		g.established, g.n, (double)(t_est - t0) / 1e9, g.hold);
	if (g.ready_file) {
		int fd = open(g.ready_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || close(fd) != 0)
			die("%s: %s", g.ready_file, strerror(errno));
	}
	run(now_ns() + (uint64_t)(g.hold * 1e9), true);
	if (g.pid)
		rss_held = read_rss_kb(g.pid);
	for (unsigned i = 0; i < g.n; i++)
		open_at_end += g.s[i].st == S_OPEN;

	printf("{\"connections\":%u,\"established\":%u,\"failed\":%u,\"dropped\":%u,"
	       "\"open_at_end\":%u,\"establish_s\":%.3f",
	       g.n, g.established + g.dropped, g.failed, g.dropped, open_at_end,
	       (double)(t_est - t0) / 1e9);
	if (g.pid)
		printf(",\"rss_kb_before\":%ld,\"rss_kb_held\":%ld", rss_before, rss_held);
	printf("}\n");
	if (g.failed) {
		fprintf(stderr, "sse-idle: failures:");
		for (int k = 0; k < F_KINDS; k++)
			if (g.fail_by_kind[k])
				fprintf(stderr, " %s=%" PRIu64, fail_names[k], g.fail_by_kind[k]);
		fprintf(stderr, "; first: %s\n", g.first_failure);
	}
	if (fflush(stdout) != 0)
		die("stdout: %s", strerror(errno));
	return 0;
}
