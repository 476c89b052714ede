/* One listen address of `cellgate --listen`: its evhttp server, its
 * connection accounting (http_conn) and the router that sends each request
 * through the guards (Host/Origin, key, rate) to its transport: Streamable
 * HTTP at /mcp, legacy HTTP+SSE at /sse and /messages, /healthz and
 * /metrics.
 */
#ifndef CELLGATE_HTTP_LISTENER_H
#define CELLGATE_HTTP_LISTENER_H

#include <stdbool.h>
#include <stdint.h>

struct evhttp;
struct http_conns;
struct http_gateway;

struct http_listener {
	struct http_gateway *gw;
	struct evhttp *http;
	struct http_conns *conns;
	uint16_t port; /* the bound port (useful with port 0) */
	bool metrics;  /* serves /metrics without a key (its own address) */
	bool main;     /* serves the MCP endpoints */
};

/* Listen on host (an IPv4 or IPv6 address, without brackets) and port
 * (0: one the kernel picks, in l->port).  main: the MCP endpoints (and
 * gw->listen_loopback is set from host); metrics: /metrics without a key.
 * -1 after logging why. */
int http_listener_open(struct http_listener *l, struct http_gateway *gw, const char *host,
		       uint16_t port, bool main, bool metrics);
/* Closes every connection of l; safe on a zeroed or half-opened l. */
void http_listener_close(struct http_listener *l);

#endif
