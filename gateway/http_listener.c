/* See http_listener.h. */
#include "http_listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "http_conn.h"
#include "http_gateway.h"
#include "http_guard.h"
#include "http_headers.h"
#include "http_health.h"
#include "http_reply.h"
#include "log.h"
#include "metrics.h"
#include "transport_http.h"

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
	struct http_listener *l = arg;
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

int http_listener_open(struct http_listener *l, struct http_gateway *gw, const char *host,
		       uint16_t port, bool main, bool metrics)
{
	const struct gw_config *cfg = gw->cfg;

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
	struct evhttp_bound_socket *bound = evhttp_bind_socket_with_handle(l->http, host, port);
	if (!bound) {
		gw_log(GW_LOG_ERROR, "cannot listen on %s port %u: %s", host, (unsigned)port,
		       strerror(errno));
		return -1;
	}
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	if (getsockname(evhttp_bound_socket_get_fd(bound), (struct sockaddr *)&ss, &sslen) < 0)
		return -1;
	l->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						 : ((struct sockaddr_in *)&ss)->sin_port);
	if (main)
		gw->listen_loopback = is_loopback_host(host);
	gw_log(GW_LOG_INFO, "listening on http://%s%s%s:%u%s", strchr(host, ':') ? "[" : "", host,
	       strchr(host, ':') ? "]" : "", (unsigned)l->port, main ? "/mcp" : "/metrics");
	return 0;
}

void http_listener_close(struct http_listener *l)
{
	if (l->http)
		evhttp_free(l->http);
	http_conns_free(l->conns); /* after evhttp_free: it closes the connections */
}

