/* MCP over stdio: one JSON-RPC message per line on stdin and stdout; nothing
 * but MCP messages ever goes to stdout.  Lines longer than
 * MCP_MAX_MESSAGE_BYTES are discarded whole and answered with an error. */
#ifndef CELLGATE_TRANSPORT_STDIO_H
#define CELLGATE_TRANSPORT_STDIO_H

#include "exec_backend.h"
#include "mcp.h"

struct event_base;

/* Serve until stdin closes or SIGTERM/SIGINT; running jobs are killed on the
 * way out.  Returns a process exit code. */
int stdio_serve(struct event_base *base, const struct mcp_config *cfg,
		struct exec_backend *backend);

#endif
