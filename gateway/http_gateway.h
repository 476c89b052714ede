/* The state of `cellgate --listen`: one per process, shared by the HTTP
 * transports (Streamable HTTP at /mcp, legacy HTTP+SSE at /sse and
 * /messages), the health and metrics endpoints, and the per-tenant
 * bookkeeping.  Everything runs in the one event loop.
 */
#ifndef CELLGATE_HTTP_GATEWAY_H
#define CELLGATE_HTTP_GATEWAY_H

#include <stdbool.h>
#include <stdint.h>

#include "audit.h"
#include "exec_backend.h"
#include "gw_config.h"
#include "ratelimit.h"
#include "tenants.h"

struct event_base;
struct evhttp;
struct evhttp_request;
struct http_headers;
struct http_health;
struct http_session_table;
struct jailer_client;

/* Runtime state of one tenant of the tenants file (same index). */
struct tenant_state {
	const struct tenant *tenant;
	struct tenant_limits limits; /* what it may run, given the jailer's profiles */
	struct tenant_usage usage;
};

struct http_gateway {
	struct event_base *base;
	const struct gw_config *cfg;
	struct tenant_table *tenants;
	struct tenant_state *states; /* tenants->n entries */
	struct audit *audit;
	struct jailer_client *jc;
	struct exec_backend backend;
	struct http_session_table *sessions;
	bool listen_loopback; /* the main listener is bound to a loopback address */
	struct http_health *health; /* /healthz */
};

/* Who is making a request, once authenticated. */
struct http_caller {
	const struct http_headers *hdr; /* the request's headers, scanned once */
	struct tenant_state *ts;
	const char *key_id;
	char client[64]; /* "ip:port" */
};

struct tenant_state *http_gateway_state(struct http_gateway *gw, const struct tenant *t);

#endif
