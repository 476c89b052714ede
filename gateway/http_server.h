/* `cellgate --listen ADDR:PORT`: the evhttp listeners and the router that
 * sends each request through the guards to its transport, plus /healthz
 * and /metrics.
 */
#ifndef CELLGATE_HTTP_SERVER_H
#define CELLGATE_HTTP_SERVER_H

#include "gw_config.h"

/* Serve until SIGTERM or SIGINT.  config_path: --config (NULL = the
 * default path, which may be absent); listen: --listen (NULL = the
 * config's).  Returns the process exit code. */
int http_serve(const char *config_path, const char *listen, const char *jailer_socket,
	       const char *jailer_path);

#endif
