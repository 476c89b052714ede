/* The tool table and the contract between the MCP dispatch (mcp.c) and a
 * tool handler.  Adding a tool: write its file (a `const struct tool_def`
 * and its handler) and add one line to the table in tools.c.
 */
#ifndef CELLGATE_TOOLS_H
#define CELLGATE_TOOLS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "exec_backend.h"
#include "mcp.h"
#include "mcp_version.h"

/* One tools/call in flight.  mcp.c creates it and hands it to the
 * handler; the handler finishes it exactly once with tool_call_finish,
 * either before returning or later (from a backend callback). */
struct tool_call {
	/* Set by mcp.c; read-only for the handler. */
	const struct mcp_config *cfg;
	struct exec_backend *backend;
	enum mcp_version version;
	unsigned jobs_running; /* executions running in this session, this call excluded */
	bool cancelled;	       /* the client cancelled: finish with NULL, nothing is sent */

	/* Set by the handler when it waits. */
	void *job; /* backend handle: mcp.c cancels or abandons it; clear it in `done` */
	/* For waits that are not a backend job: mcp.c calls this when the
	 * call is cancelled or abandoned, then frees the call; the handler
	 * must drop every reference to it and must not finish it. */
	void (*detach)(struct tool_call *call);
	/* Called after mcp.c abandoned `job` (the session is going away);
	 * the handler drops its state; the call is then freed. */
	void (*abandoned)(struct tool_call *call);
	void *state; /* the handler's own */
};

typedef void (*tool_handler_fn)(struct tool_call *call, const cJSON *arguments);

struct tool_annotations {
	bool read_only;
	bool destructive;
	bool idempotent;
	bool open_world;
};

struct tool_def {
	const char *name; /* public interface: never rename */
	const char *title;
	const char *description;
	const char *input_schema;  /* JSON Schema text */
	const char *output_schema; /* JSON Schema text, NULL when none */
	struct tool_annotations annotations;
	tool_handler_fn handler; /* `arguments` is an object (absent = {}) */
};

const struct tool_def *tools_find(const char *name);

/* The `tools` array of a tools/list result, shaped for revision v (title
 * from 2025-06-18, annotations from 2025-03-26, outputSchema from
 * 2025-06-18).  NULL on allocation failure. */
cJSON *tools_list_json(enum mcp_version v);

/* The whole tools/list result, {"tools":[...]}, printed (unformatted),
 * built once per revision and kept for the life of the process; NULL on
 * allocation failure. */
const char *tools_list_result_text(enum mcp_version v);

/* Finish a call (implemented in mcp.c): `result` is a CallToolResult,
 * ownership taken; it is sent as the reply unless the call was cancelled.
 * NULL while not cancelled sends an internal error.  `call` is freed. */
void tool_call_finish(struct tool_call *call, cJSON *result);

/* Whether the caller asked for progress (params._meta.progressToken). */
bool tool_call_has_progress(const struct tool_call *call);
/* Send notifications/progress for the call (implemented in mcp.c).  Does
 * nothing without a progress token, after cancellation, or unless
 * `progress` is larger than the last value sent.  total <= 0: omitted;
 * message NULL: omitted. */
void tool_call_progress(struct tool_call *call, double progress, double total,
			const char *message);

/* get_sandbox_info caches interpreter versions per backend for the life of
 * the process; drop the cache of a backend that is going away. */
void tool_sandbox_info_forget(struct exec_backend *backend);

#endif
