/* See http_server.h. */
#include "http_server.h"

#include <errno.h>
#include <malloc.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "http_gateway.h"
#include "http_health.h"
#include "http_listener.h"
#include "http_session.h"
#include "jailer_client.h"
#include "log.h"
#include "metrics.h"
#include "sd_service.h"

struct tenant_state *http_gateway_state(struct http_gateway *gw, const struct tenant *t)
{
	return &gw->states[t - gw->tenants->t];
}

/* Every request flips the connection's read and write interest (evhttp
 * reads, then writes the reply, then reads again); with the changelist,
 * libevent hands epoll only the net change once per loop iteration
 * instead of a DEL and an ADD per flip.  Its documented caveat (fds
 * dup()ed into the base) does not apply: each connection has its own. */
static struct event_base *http_event_base_new(void)
{
	struct event_config *c = event_config_new();
	if (!c)
		return NULL;
	if (event_config_set_flag(c, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST) < 0) {
		event_config_free(c);
		return NULL;
	}
	struct event_base *base = event_base_new_with_config(c);
	event_config_free(c);
	return base;
}

/* One listener at a configured "ADDR:PORT" / "[V6]:PORT". */
static int listen_at(struct http_listener *l, struct http_gateway *gw, const char *addr,
		     bool main, bool metrics)
{
	char host[GW_ADDR_MAX];
	uint16_t port;

	if (gw_parse_listen(addr, host, sizeof(host), &port) < 0) {
		gw_log(GW_LOG_ERROR, "bad listen address \"%s\" (want ADDR:PORT or [V6]:PORT)",
		       addr);
		return -1;
	}
	return http_listener_open(l, gw, host, port, main, metrics);
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
	struct http_listener main_l = {0}, metrics_l = {0};
	struct event *sigterm = NULL, *sigint = NULL;
	struct sd_service *sd = NULL;
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
	gw.base = http_event_base_new();
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
	/* The main address faces clients: /metrics there needs a key.  Only a
	 * separate metrics_listen (for a scraper on a private address) serves
	 * it without one. */
	if (listen_at(&main_l, &gw, cfg.listen, true, false) < 0)
		goto out;
	if (cfg.metrics_listen[0] && listen_at(&metrics_l, &gw, cfg.metrics_listen, false,
						   true) < 0)
		goto out;
	sigterm = evsignal_new(gw.base, SIGTERM, on_signal, gw.base);
	sigint = evsignal_new(gw.base, SIGINT, on_signal, gw.base);
	if (!sigterm || !sigint || evsignal_add(sigterm, NULL) < 0 || evsignal_add(sigint, NULL) < 0)
		goto out;
	gw_log(GW_LOG_INFO, "ready: %zu tenant(s)", tenants.n);
	char status[GW_ADDR_MAX + 96];
	snprintf(status, sizeof(status), "serving %zu tenant(s) on %s", tenants.n, cfg.listen);
	sd = sd_service_ready(gw.base, status);
	if (event_base_dispatch(gw.base) < 0)
		goto out;
	rc = 0;
out:
	sd_service_stopping(sd);
	/* Sessions first: their jobs are killed and their end records
	 * written while the jailer connection and the audit log still exist. */
	if (gw.sessions)
		http_sessions_free(gw.sessions);
	http_health_free(gw.health); /* answers what waits, before the connections go */
	http_listener_close(&main_l);
	http_listener_close(&metrics_l);
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
	sd_service_free(sd);
	if (gw.base)
		event_base_free(gw.base);
	return rc;
}
