/* See http_server.h. */
#include "http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "http_conn.h"
#include "http_gateway.h"
#include "http_guard.h"
#include "http_headers.h"
#include "http_health.h"
#include "http_reply.h"
#include "http_session.h"
#include "jailer_client.h"
#include "log.h"
#include "metrics.h"
#include "transport_http.h"

struct listener {
	struct http_gateway *gw;
	struct evhttp *http;
	struct http_conns *conns;
	bool metrics; /* serves /metrics without a key (its own address) */
	bool main;    /* serves the MCP endpoints */
};

struct tenant_state *http_gateway_state(struct http_gateway *gw, const struct tenant *t)
{
	return &gw->states[t - gw->tenants->t];
}

static void handle_metrics(struct evhttp_request *req)
{
	size_t len;
	char *text = metrics_render(&len);
	if (!text) {
		http_respond(req, 500, NULL, NULL, 0);
		return;
	}
	http_respond(req, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
	free(text);
}

static void route(struct evhttp_request *req, void *arg)
{
	struct listener *l = arg;
	struct http_gateway *gw = l->gw;
	const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(req);
	const char *path = u ? evhttp_uri_get_path(u) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct http_caller caller;
	struct http_headers hdr;
	const char *transport;

	if (http_conn_request_begin(l->conns, req) < 0) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
		evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", "1");
		http_respond(req, 503, NULL, NULL, 0);
		return;
	}
	if (!path) {
		http_respond(req, 400, NULL, NULL, 0);
		return;
	}
	if (http_headers_scan(req, &hdr) < 0) {
		char msg[96];
		snprintf(msg, sizeof(msg), "bad request: more than one %s header", hdr.duplicate);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
		http_respond_rpc_error(req, 400, -32000, msg);
		return;
	}
	if (strcmp(path, "/healthz") == 0 && (cmd == EVHTTP_REQ_GET || cmd == EVHTTP_REQ_HEAD)) {
		http_health_handle(gw->health, req);
		return;
	}
	if (strcmp(path, "/metrics") == 0 && cmd == EVHTTP_REQ_GET && l->metrics) {
		handle_metrics(req);
		return;
	}
	if (!l->main) {
		http_respond(req, 404, "text/plain", "not found\n", 10);
		return;
	}
	if (strcmp(path, "/mcp") == 0)
		transport = "http";
	else if (strcmp(path, "/sse") == 0 || strcmp(path, "/messages") == 0 ||
		 strcmp(path, "/messages/") == 0)
		transport = "sse";
	else if (strcmp(path, "/metrics") == 0 && cmd == EVHTTP_REQ_GET)
		transport = "metrics"; /* on the main address: a key is needed */
	else {
		http_respond(req, 404, "text/plain", "not found\n", 10);
		return;
	}
	if (http_guard_origin(gw, req, &hdr, transport) < 0)
		return;
	if (cmd == EVHTTP_REQ_OPTIONS) {
		/* A CORS preflight never carries credentials. */
		http_respond(req, 204, NULL, NULL, 0);
		return;
	}
	if (http_guard_auth(gw, req, &hdr, transport, &caller) < 0)
		return;
	if (http_guard_rate(gw, req, transport, &caller) < 0)
		return;
	if (strcmp(transport, "metrics") == 0)
		handle_metrics(req);
	else if (strcmp(path, "/mcp") == 0)
		transport_http_handle(gw, req, &caller);
	else if (strcmp(path, "/sse") == 0)
		transport_sse_get(gw, req, &caller);
	else
		transport_sse_post(gw, req, &caller);
}

static bool is_loopback_host(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return strcmp(host, "localhost") == 0;
}

static int listener_open(struct listener *l, struct http_gateway *gw, const char *addr,
			 bool main, bool metrics)
{
	char host[GW_ADDR_MAX];
	uint16_t port;
	const struct gw_config *cfg = gw->cfg;

	if (gw_parse_listen(addr, host, sizeof(host), &port) < 0) {
		gw_log(GW_LOG_ERROR, "bad listen address \"%s\" (want ADDR:PORT or [V6]:PORT)",
		       addr);
		return -1;
	}
	l->gw = gw;
	l->main = main;
	l->metrics = metrics;
	l->http = evhttp_new(gw->base);
	if (!l->http)
		return -1;
	/* A request, head and body, must arrive within the sum of the two
	 * timeouts (slow clients are dropped; see http_conn.h). */
	l->conns = http_conns_new(gw->base, l->http, cfg->max_connections,
				  cfg->header_timeout_ms + cfg->body_timeout_ms);
	if (!l->conns)
		return -1;
	evhttp_set_max_body_size(l->http, (ev_ssize_t)cfg->max_body_bytes);
	evhttp_set_max_headers_size(l->http, 16384);
	/* libevent 2.1's evhttp has one idle timeout for reading a request
	 * (head or body) and writing a reply; event streams set their own. */
	unsigned idle_ms = cfg->header_timeout_ms < cfg->body_timeout_ms ? cfg->header_timeout_ms
									 : cfg->body_timeout_ms;
	struct timeval tv = {.tv_sec = idle_ms / 1000, .tv_usec = (idle_ms % 1000) * 1000};
	evhttp_set_timeout_tv(l->http, &tv);
	evhttp_set_allowed_methods(l->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE |
						EVHTTP_REQ_OPTIONS | EVHTTP_REQ_HEAD |
						EVHTTP_REQ_PUT | EVHTTP_REQ_PATCH);
	evhttp_set_default_content_type(l->http, NULL);
	evhttp_set_gencb(l->http, route, l);
	if (!evhttp_bind_socket_with_handle(l->http, host, port)) {
		gw_log(GW_LOG_ERROR, "cannot listen on %s: %s", addr, strerror(errno));
		return -1;
	}
	if (main)
		gw->listen_loopback = is_loopback_host(host);
	gw_log(GW_LOG_INFO, "listening on http://%s%s", addr, main ? "/mcp" : "/metrics");
	return 0;
}

static void listener_close(struct listener *l)
{
	if (l->http)
		evhttp_free(l->http);
	http_conns_free(l->conns); /* after evhttp_free: it closes the connections */
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct event_base *base = arg;
	(void)what;
	gw_log(GW_LOG_INFO, "signal %d: shutting down", (int)sig);
	event_base_loopexit(base, NULL);
}

/* Many idle streams need many descriptors: take what the hard limit allows. */
static void raise_nofile(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &r) < 0)
			gw_log(GW_LOG_WARN, "cannot raise the open-file limit: %s", strerror(errno));
	}
}

int http_serve(const char *config_path, const char *listen, const char *jailer_socket,
	       const char *jailer_path)
{
	static struct gw_config cfg;
	struct tenant_table tenants = {0};
	struct http_gateway gw = {0};
	struct listener main_l = {0}, metrics_l = {0};
	struct event *sigterm = NULL, *sigint = NULL;
	char err[512];
	int rc = 1;

	gw_config_defaults(&cfg);
	if (gw_config_load(config_path ? config_path : GW_CONFIG_DEFAULT_PATH, config_path != NULL,
			   &cfg, err, sizeof(err)) < 0) {
		gw_log(GW_LOG_ERROR, "%s", err);
		return 1;
	}
	if (listen)
		snprintf(cfg.listen, sizeof(cfg.listen), "%s", listen);
	if (jailer_socket)
		snprintf(cfg.jailer_socket, sizeof(cfg.jailer_socket), "%s", jailer_socket);
	if (jailer_path)
		snprintf(cfg.jailer, sizeof(cfg.jailer), "%s", jailer_path);
	if (tenants_load(cfg.tenants, &tenants, err, sizeof(err)) < 0) {
		gw_log(GW_LOG_ERROR, "%s", err);
		return 1;
	}
	raise_nofile();
	signal(SIGPIPE, SIG_IGN);
	gw.cfg = &cfg;
	gw.tenants = &tenants;
	gw.base = event_base_new();
	gw.sessions = http_sessions_new();
	gw.health = http_health_new(&gw);
	gw.states = calloc(tenants.n ? tenants.n : 1, sizeof(*gw.states));
	if (!gw.base || !gw.sessions || !gw.health || !gw.states)
		goto out;
	if (cfg.audit_file[0] || cfg.audit_journald != GW_JOURNALD_NO) {
		struct audit_options ao = {
		    .file = cfg.audit_file,
		    .journald = cfg.audit_journald == GW_JOURNALD_AUTO  ? 0
				: cfg.audit_journald == GW_JOURNALD_YES ? 1
									: 2,
		    .fsync = cfg.audit_fsync,
		    .log_code = cfg.audit_log_code,
		};
		gw.audit = audit_open(&ao, err, sizeof(err));
		if (!gw.audit) {
			gw_log(GW_LOG_ERROR, "audit: %s", err);
			goto out;
		}
	}
	gw.jc = jailer_client_connect(gw.base, cfg.jailer_socket[0] ? cfg.jailer_socket : NULL,
				      cfg.jailer[0] ? cfg.jailer : CELLGATE_JAILER_PATH, err,
				      sizeof(err));
	if (!gw.jc) {
		gw_log(GW_LOG_ERROR, "%s", err);
		goto out;
	}
	metrics_set_jailer_up(1);
	exec_backend_jailer(&gw.backend, gw.jc);
	uint64_t now = ratelimit_now_ns();
	for (size_t i = 0; i < tenants.n; i++) {
		struct tenant_state *ts = &gw.states[i];
		const struct tenant *t = &tenants.t[i];
		ts->tenant = t;
		tenant_limits_for(t, jailer_client_profiles(gw.jc), &ts->limits);
		token_bucket_init(&ts->usage.requests, t->rate_per_s, t->burst, now);
		cpu_quota_init(&ts->usage.cpu, t->cpu_seconds_per_hour * 1000);
		ts->usage.max_jobs = t->max_concurrent_jobs;
	}
	if (listener_open(&main_l, &gw, cfg.listen, true, cfg.metrics_listen[0] == '\0') < 0)
		goto out;
	if (cfg.metrics_listen[0] && listener_open(&metrics_l, &gw, cfg.metrics_listen, false,
						   true) < 0)
		goto out;
	sigterm = evsignal_new(gw.base, SIGTERM, on_signal, gw.base);
	sigint = evsignal_new(gw.base, SIGINT, on_signal, gw.base);
	if (!sigterm || !sigint || evsignal_add(sigterm, NULL) < 0 || evsignal_add(sigint, NULL) < 0)
		goto out;
	gw_log(GW_LOG_INFO, "ready: %zu tenant(s)", tenants.n);
	if (event_base_dispatch(gw.base) < 0)
		goto out;
	rc = 0;
out:
	/* Sessions first: their jobs are killed and their end records
	 * written while the jailer connection and the audit log still exist. */
	if (gw.sessions)
		http_sessions_free(gw.sessions);
	http_health_free(gw.health); /* answers what waits, before the connections go */
	listener_close(&main_l);
	listener_close(&metrics_l);
	if (sigterm)
		event_free(sigterm);
	if (sigint)
		event_free(sigint);
	if (gw.jc)
		jailer_client_free(gw.jc);
	if (gw.audit)
		audit_close(gw.audit);
	free(gw.states);
	tenants_free(&tenants);
	if (gw.base)
		event_base_free(gw.base);
	return rc;
}
