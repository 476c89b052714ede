/* See http_health.h. */
#include "http_health.h"

#include <errno.h>
#include <event2/http.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_gateway.h"
#include "http_reply.h"
#include "jailer_client.h"
#include "log.h"
#include "metrics.h"
#include "ratelimit.h"

/* A probe answer is reused for this long. */
#define HEALTH_CACHE_NS 1000000000ull

/* A request waiting for the probe under way. */
struct waiter {
	struct evhttp_request *req;
	struct waiter *next;
};

struct http_health {
	struct http_gateway *gw;
	uint64_t checked_ns; /* 0: never */
	bool jailer_ok;
	bool probing;
	struct waiter *waiting;
};

static void answer(struct http_health *h, struct evhttp_request *req)
{
	struct http_gateway *gw = h->gw;
	bool audit_ok = !gw->audit || audit_healthy(gw->audit);
	bool ok = h->jailer_ok && audit_ok;
	char body[128];
	int n = snprintf(body, sizeof(body), "{\"status\":\"%s\",\"jailer\":\"%s\",\"audit\":\"%s\"}",
			 ok ? "ok" : "unavailable", h->jailer_ok ? "up" : "down",
			 audit_ok ? "ok" : "failing");
	evhttp_add_header(evhttp_request_get_output_headers(req), "Cache-Control", "no-store");
	/* A client that left meanwhile: evhttp frees its request here. */
	http_respond(req, ok ? 200 : 503, "application/json", body, (size_t)n);
}

static void answer_waiting(struct http_health *h)
{
	struct waiter *w = h->waiting;
	h->waiting = NULL;
	while (w) {
		struct waiter *next = w->next;
		answer(h, w->req);
		free(w);
		w = next;
	}
}

static void probed(int rc, void *arg)
{
	struct http_health *h = arg;
	h->probing = false;
	h->jailer_ok = rc == 0;
	h->checked_ns = ratelimit_now_ns();
	metrics_set_jailer_up(h->jailer_ok);
	if (rc < 0)
		gw_log(GW_LOG_WARN, "healthz: the jailer does not answer: %s", strerror(-rc));
	answer_waiting(h);
}

void http_health_handle(struct http_health *h, struct evhttp_request *req)
{
	uint64_t now = ratelimit_now_ns();
	if (h->checked_ns != 0 && now - h->checked_ns <= HEALTH_CACHE_NS) {
		answer(h, req);
		return;
	}
	struct waiter *w = malloc(sizeof(*w));
	if (!w) {
		http_respond(req, 500, NULL, NULL, 0);
		return;
	}
	w->req = req;
	w->next = h->waiting;
	h->waiting = w;
	if (h->probing)
		return;
	/* Without a jailer client (tests that drive the listener alone) the
	 * jailer is down by definition. */
	int rc = h->gw->jc ? jailer_client_probe_start(h->gw->jc, probed, h) : -ENOTCONN;
	if (rc < 0) {
		probed(rc, h); /* answers every waiter, this one included */
		return;
	}
	h->probing = true;
}

struct http_health *http_health_new(struct http_gateway *gw)
{
	struct http_health *h = calloc(1, sizeof(*h));
	if (h)
		h->gw = gw;
	return h;
}

void http_health_free(struct http_health *h)
{
	if (!h)
		return;
	h->jailer_ok = false;
	answer_waiting(h);
	free(h);
}
