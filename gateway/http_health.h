/* GET /healthz: whether the jailer answers (a fresh HELLO, at most one
 * probe a second, never blocking the loop) and whether the audit log can
 * be written.  200 {"status":"ok",...} or 503 {"status":"unavailable",...}.
 */
#ifndef CELLGATE_HTTP_HEALTH_H
#define CELLGATE_HTTP_HEALTH_H

struct evhttp_request;
struct http_gateway;
struct http_health;

struct http_health *http_health_new(struct http_gateway *gw);
/* Requests still waiting for a probe are answered 503 first. */
void http_health_free(struct http_health *h);

void http_health_handle(struct http_health *h, struct evhttp_request *req);

#endif
