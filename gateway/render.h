/* Rendering tool results as MCP CallToolResult objects: the outcome of one
 * execution, structured results in general, and argument errors.
 */
#ifndef CELLGATE_RENDER_H
#define CELLGATE_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp_version.h"

/* JSON Schema (text) of the structuredContent render_outcome produces:
 * every field required, exit_code and signal integer or null. */
extern const char render_outcome_schema[];

/* CallToolResult for a finished or refused execution:
 *   content[0]: text, the serialized structuredContent;
 *   content[1]: text explaining the stop, only when isError;
 *   structuredContent: when v >= 2025-06-18;
 *   isError: status != ok.
 * NULL on allocation failure. */
/* The status a caller sees: the jailer's status name, "internal" when the
 * job was rejected. */
const char *render_status_name(const struct job_outcome *out);

cJSON *render_outcome(const struct job_outcome *out, enum mcp_version v);

/* CallToolResult carrying `structured` (ownership taken): its serialized
 * JSON as the first text block, `note` (may be NULL) as a second one,
 * structuredContent when v >= 2025-06-18.  NULL on allocation failure. */
cJSON *render_structured(cJSON *structured, bool is_error, const char *note, enum mcp_version v);

/* CallToolResult {content:[one text block], isError:true}: a tool error a
 * model can act on.  NULL on allocation failure. */
cJSON *render_tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A JSON string value for bytes from outside the gateway (program output,
 * jailer text): invalid UTF-8 replaced by U+FFFD, NUL kept (as \u0000).
 * Returned as a cJSON raw item holding the quoted, escaped string. */
cJSON *render_bytes(const char *data, size_t len);

/* The same for a NUL-terminated string. */
cJSON *render_string(const char *s);

#endif
