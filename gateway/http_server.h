/* `cellgate --listen ADDR:PORT`: configuration, tenants, audit log and
 * jailer connection, the listeners (http_listener.h), signals, and an
 * orderly shutdown.
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
