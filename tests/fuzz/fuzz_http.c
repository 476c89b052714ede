/* libFuzzer target for the HTTP front of the gateway: raw bytes written
 * into a real evhttp server on 127.0.0.1 (an ephemeral port, in this
 * process), with the gateway's own connection accounting (http_conn.c),
 * header scan, Host/Origin/key/rate guards, Streamable HTTP and legacy
 * HTTP+SSE transports, sessions, SSE streams, job admission, the audit log
 * (a scratch file, code included) and the MCP layer behind them, over the
 * fake backend of fuzz_backend.h.
 *
 * The listener and router are the gateway's own (http_listener.c); there
 * is no jailer client, so /healthz answers 503 at once.
 *
 * Input: the bytes, split at "\n====\n" into up to MAX_CONNS pieces; each
 * piece is sent on a connection of its own, opened after the previous
 * piece has been served as far as it goes (a piece may hold several
 * pipelined requests; connections stay open until the end, so an SSE
 * stream opened early receives what later requests cause).
 *
 * Fixtures an input can use:
 *   Authorization: Bearer KEY_ALPHA  tenant alpha: both languages, network,
 *                                    generous limits
 *   Authorization: Bearer KEY_BETA   tenant beta: python only, 5 s, one
 *                                    job, one session, 8 requests, 3 CPU
 *                                    seconds an hour (a job takes 2+)
 *   Host: 127.0.0.1:8000 (loopback) or mcp.example (allowed_hosts)
 *   Origin: https://app.example (allowed_origins) or http://localhost:N
 *   Mcp-Session-Id / sessionId: the n-th session of an input is n as a
 *   byte repeated 16 times in hex ("0101...01", then "0202...02"): this
 *   file replaces getrandom(2) with a counter while an input runs.
 *
 * Properties checked, beyond ASan/UBSan and leaks: whatever a connection
 * receives starts as an HTTP response (evhttp echoes the request's
 * version, so not necessarily HTTP/1.x); once every client has gone and
 * the sessions are ended, every connection is closed and every job has
 * completed or been abandoned; the backend sees only requests the jailer
 * would accept (fuzz_backend.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "fuzz_backend.h"
#include "http_conn.h"
#include "http_gateway.h"
#include "http_health.h"
#include "http_listener.h"
#include "http_reply.h"
#include "http_session.h"
#include "log.h"
#include "metrics.h"
#include "ratelimit.h"
#include "tenants.h"
#include "tools.h"
#include "transport_http.h"

#define KEY_ALPHA "cgk_fuzzalphaAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define KEY_BETA "cgk_fuzzbetaBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
#define CONN_SEP "\n====\n"
#define MAX_CONNS 8
/* One pump ends after IDLE_ROUNDS rounds in which nothing happened, or
 * after PUMP_NS however busy (a job that reports progress never idles). */
#define IDLE_ROUNDS 3
#define PUMP_NS 10000000ull
/* Loop rounds allowed for the server to notice clients that left. */
#define CLOSE_ROUNDS 1000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_http: %s\n", what);
	abort();
}

static void fail_errno(const char *what)
{
	fprintf(stderr, "fuzz_http: %s: %s\n", what, strerror(errno));
	abort();
}

/* ---- deterministic session ids ---- */

static bool fake_random;
static uint8_t random_calls;

/* Session ids come from getrandom(2); while an input runs, the n-th call
 * fills its buffer with the byte n, so inputs can name their sessions. */
ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	if (!fake_random)
		return syscall(SYS_getrandom, buf, len, flags);
	memset(buf, ++random_calls, len);
	return (ssize_t)len;
}

/* ---- the gateway, once per process ---- */

static struct {
	struct event_base *base;
	struct gw_config cfg;
	struct tenant_table tenants;
	struct tenant_state states[2];
	struct http_gateway gw;
	struct fuzz_backend fb;
	struct http_listener l;
	uint16_t port;
	char audit_path[512];
	bool verbose;
} G;

static void key_line(char *out, size_t size, const char *key)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t h[32];
	char text[65];

	tenant_sha256(key, strlen(key), h);
	for (size_t i = 0; i < sizeof(h); i++) {
		text[2 * i] = hex[h[i] >> 4];
		text[2 * i + 1] = hex[h[i] & 15];
	}
	text[64] = '\0';
	snprintf(out, size, "key = sha256:%s\n", text);
}

static void load_tenants(void)
{
	char alpha[96], beta[96], text[1024], err[256];

	key_line(alpha, sizeof(alpha), KEY_ALPHA);
	key_line(beta, sizeof(beta), KEY_BETA);
	int n = snprintf(text, sizeof(text),
			 "[tenant alpha]\n%slanguages = python javascript\nnetwork = yes\n"
			 "max_concurrent_jobs = 4\nrate = 1000000\nburst = 1000000\n"
			 "[tenant beta]\n%slanguages = python\nmax_timeout = 5s\nmax_output = 64K\n"
			 "max_concurrent_jobs = 1\nrate = 0.001\nburst = 8\n"
			 "cpu_seconds_per_hour = 3\nmax_sessions = 1\n",
			 alpha, beta);
	if (tenants_parse(text, (size_t)n, "fuzz-tenants", &G.tenants, err, sizeof(err)) < 0 ||
	    G.tenants.n != 2) {
		fprintf(stderr, "%s\n", err);
		fail("the fixture's tenants do not parse");
	}
}

static void open_listener(void)
{
	/* The gateway's own listener and router, on a port of the kernel's
	 * choosing; /healthz has no jailer client here and answers 503. */
	G.gw.health = http_health_new(&G.gw);
	if (!G.gw.health || http_listener_open(&G.l, &G.gw, "127.0.0.1", 0, true, false) < 0)
		fail("http_listener_open");
	G.port = G.l.port;
}

static void remove_audit_file(void)
{
	unlink(G.audit_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct gw_config *cfg = &G.cfg;
	(void)argc;
	(void)argv;

	G.verbose = getenv("FUZZ_VERBOSE") != NULL;
	gw_log_set_level(G.verbose ? GW_LOG_DEBUG : GW_LOG_ERROR);
	G.base = event_base_new();
	if (!G.base)
		fail("event_base_new");
	gw_config_defaults(cfg);
	cfg->nhosts = 1;
	snprintf(cfg->allowed_hosts[0], sizeof(cfg->allowed_hosts[0]), "mcp.example");
	cfg->norigins = 1;
	snprintf(cfg->allowed_origins[0], sizeof(cfg->allowed_origins[0]), "https://app.example");
	cfg->max_connections = MAX_CONNS - 2; /* the last connections get 503 */
	cfg->max_body_bytes = 16384;
	cfg->max_sessions_per_tenant = 4;
	cfg->max_stream_buffer_bytes = 4096; /* small, so replay storage drops events */
	cfg->progress_interval_ms = 3;
	cfg->progress_message_bytes = 64;
	cfg->audit_log_code = true;
	load_tenants();
	fuzz_backend_init(&G.fb);

	G.gw.base = G.base;
	G.gw.cfg = cfg;
	G.gw.tenants = &G.tenants;
	G.gw.states = G.states;
	G.gw.backend = G.fb.b;
	G.gw.backend.impl = &G.fb;
		for (size_t i = 0; i < G.tenants.n; i++) {
		G.states[i].tenant = &G.tenants.t[i];
		tenant_limits_for(&G.tenants.t[i], &G.fb.hello, &G.states[i].limits);
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(G.audit_path, sizeof(G.audit_path), "%s/cellgate-fuzz-audit-%d.jsonl",
		 tmp && tmp[0] == '/' && strlen(tmp) < 400 ? tmp : "/tmp", (int)getpid());
	if (atexit(remove_audit_file) != 0)
		fail_errno("atexit");
	open_listener();
	return 0;
}

/* ---- one input ---- */

struct client {
	int fd;
	size_t got; /* bytes received */
	char head[8];
	bool eof;
};

static struct client clients[MAX_CONNS];
static size_t nclients;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Read what the server sent; true when anything came. */
static bool drain(void)
{
	static char buf[65536];
	bool any = false;

	for (size_t i = 0; i < nclients; i++) {
		struct client *c = &clients[i];
		while (!c->eof) {
			ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (n <= 0) {
				c->eof = true; /* closed or reset by the server */
				break;
			}
			if (G.verbose)
				fprintf(stderr, "[conn %zu] <<<\n%.*s\n", i, (int)n, buf);
			for (size_t k = 0; k < (size_t)n && c->got + k < sizeof(c->head); k++)
				c->head[c->got + k] = buf[k];
			c->got += (size_t)n;
			any = true;
			if (c->got >= 5 && memcmp(c->head, "HTTP/", 5) != 0)
				fail("a connection got bytes that do not start an HTTP response");
		}
	}
	return any;
}

/* Run the loop and the backend until nothing moves any more. */
static void pump(void)
{
	uint64_t start = now_ns();
	for (int idle = 0; idle < IDLE_ROUNDS || fuzz_backend_pending(&G.fb);) {
		if (event_base_loop(G.base, EVLOOP_NONBLOCK) < 0)
			fail("event_base_loop");
		bool busy = fuzz_backend_run(&G.fb) > 0;
		busy = drain() || busy;
		busy = busy || event_base_get_num_events(G.base, EVENT_BASE_COUNT_ACTIVE) > 0;
		idle = busy ? 0 : idle + 1;
		if (now_ns() - start > PUMP_NS)
			break;
	}
}

/* libFuzzer's timeout alarm may interrupt a connect, which then goes on
 * in the background: wait for it.  0 or an errno value. */
static int wait_connected(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	int r, err;
	socklen_t elen = sizeof(err);

	do
		r = poll(&pfd, 1, 1000);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		return r < 0 ? errno : ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		return errno;
	return err;
}

static void send_piece(const char *p, size_t len)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(G.port)};
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail_errno("socket");
	/* Closing sends a reset: no TIME_WAIT left behind by the thousands. */
	struct linger lg = {.l_onoff = 1, .l_linger = 0};
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0)
		fail_errno("SO_LINGER");
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		int err = errno == EINTR ? wait_connected(fd) : errno;
		if (err) {
			errno = err;
			fail_errno("connect to the server");
		}
	}
	clients[nclients++] = (struct client){.fd = fd};
	pump(); /* accepted and attached before any byte arrives */
	for (int tries = 0; len > 0 && tries < 64; tries++) {
		ssize_t n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			break; /* the server closed the connection */
		}
		pump();
	}
}

static void begin_input(void)
{
	char err[256];
	uint64_t now = ratelimit_now_ns();

	random_calls = 0;
	fake_random = true;
	nclients = 0;
	G.gw.sessions = http_sessions_new();
	if (!G.gw.sessions)
		fail("http_sessions_new");
	for (size_t i = 0; i < G.tenants.n; i++) {
		struct tenant_state *ts = &G.states[i];
		const struct tenant *t = ts->tenant;
		memset(&ts->usage, 0, sizeof(ts->usage));
		token_bucket_init(&ts->usage.requests, t->rate_per_s, t->burst, now);
		cpu_quota_init(&ts->usage.cpu, t->cpu_seconds_per_hour * 1000);
		ts->usage.max_jobs = t->max_concurrent_jobs;
	}
	if (truncate(G.audit_path, 0) < 0 && errno != ENOENT)
		fail_errno("cannot empty the audit file");
	struct audit_options ao = {.file = G.audit_path, .journald = 2, .log_code = true};
	G.gw.audit = audit_open(&ao, err, sizeof(err));
	if (!G.gw.audit) {
		fprintf(stderr, "%s\n", err);
		fail("audit_open");
	}
}

/* Let the server notice closed clients. */
static void settle(void)
{
	for (int i = 0; i < CLOSE_ROUNDS && http_conns_open(G.l.conns) > 0; i++) {
		if (event_base_loop(G.base, EVLOOP_NONBLOCK) < 0)
			fail("event_base_loop");
		fuzz_backend_run(&G.fb);
	}
}

static void end_input(void)
{
	for (size_t i = 0; i < nclients; i++)
		if (close(clients[i].fd) < 0 && errno != EINTR)
			fail_errno("close");
	nclients = 0;
	settle();
	/* A connection whose request waits for a job stays until the job
	 * ends: with libevent 2.1.12 evhttp does not notice the client leave
	 * while a request is pending.  Ending the sessions answers those. */
	http_sessions_free(G.gw.sessions);
	G.gw.sessions = NULL;
	settle();
	if (http_conns_open(G.l.conns) != 0)
		fail("connections stay open after every client and session has gone");
	/* get_sandbox_info probes outlive sessions: let them finish. */
	fuzz_backend_run(&G.fb);
	if (fuzz_backend_live(&G.fb) != 0)
		fail("a job was neither completed nor abandoned");
	tool_sandbox_info_forget(&G.gw.backend);
	audit_close(G.gw.audit);
	G.gw.audit = NULL;
	fake_random = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	begin_input();
	while (p < end && nclients < MAX_CONNS) {
		const char *sep = memmem(p, (size_t)(end - p), CONN_SEP, sizeof(CONN_SEP) - 1);
		size_t len = sep ? (size_t)(sep - p) : (size_t)(end - p);
		send_piece(p, len);
		pump();
		p += len + (sep ? sizeof(CONN_SEP) - 1 : 0);
	}
	end_input();
	return 0;
}
