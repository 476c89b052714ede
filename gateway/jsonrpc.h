/* JSON-RPC 2.0 framing for MCP: parse one raw message, classify each
 * element (request, notification, response, or invalid), build result and
 * error responses, serialize them on one line.
 */
#ifndef CELLGATE_JSONRPC_H
#define CELLGATE_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define JSONRPC_PARSE_ERROR (-32700)
#define JSONRPC_INVALID_REQUEST (-32600)
#define JSONRPC_METHOD_NOT_FOUND (-32601)
#define JSONRPC_INVALID_PARAMS (-32602)
#define JSONRPC_INTERNAL_ERROR (-32603)

/* Integer ids are accepted up to 2^53-1 in magnitude: cJSON holds numbers
 * as doubles, and a larger id could not be echoed back exactly. */
#define JSONRPC_MAX_INT_ID 9007199254740991.0

struct jsonrpc_input {
	cJSON *root; /* caller frees with cJSON_Delete */
	/* A string in the message holds \u0000 (see json_check.h). */
	bool nul_escape;
};

/* Parse one raw message: valid UTF-8, strict JSON (json_check), then cJSON.
 * Returns 0, or JSONRPC_PARSE_ERROR with *why a static description and
 * in->root NULL.  Any JSON value is returned; classification comes next. */
int jsonrpc_parse(const char *data, size_t len, struct jsonrpc_input *in, const char **why);

enum jsonrpc_kind {
	JSONRPC_REQUEST,
	JSONRPC_NOTIFICATION,
	JSONRPC_RESPONSE, /* a result or error object from the peer */
	JSONRPC_INVALID,  /* answer -32600 with `id` (NULL when unreadable) */
};

struct jsonrpc_msg {
	enum jsonrpc_kind kind;
	const cJSON *id;     /* REQUEST; INVALID when the id itself was fine */
	const char *method;  /* REQUEST, NOTIFICATION */
	const cJSON *params; /* object or array; NULL when absent */
	const char *error;   /* INVALID: what is wrong, static text */
};

/* Classify one message (a top-level value or one batch element).  Pointers
 * in *m point into `item`. */
void jsonrpc_classify(const cJSON *item, struct jsonrpc_msg *m);

/* A string, or an integer within JSONRPC_MAX_INT_ID (1.0 counts as 1, as in
 * JSON Schema); never null, bool, fraction or container. */
bool jsonrpc_id_valid(const cJSON *id);
/* Same type and value (string 1 and integer 1 differ). */
bool jsonrpc_id_equal(const cJSON *a, const cJSON *b);

/* How an error response carries an id that could not be read: "id": null
 * (JSON-RPC 2.0, MCP up to 2025-06-18) or no id member (MCP 2025-11-25+). */
enum jsonrpc_id_style {
	JSONRPC_ID_NULL,
	JSONRPC_ID_OMIT,
};

/* {"jsonrpc":"2.0","id":id,"result":result}.  Takes ownership of `result`
 * in every case; NULL on allocation failure. */
cJSON *jsonrpc_make_result(const cJSON *id, cJSON *result);

/* {"jsonrpc":"2.0","id":id,"error":{"code":code,"message":message}}; when
 * id is NULL it is written as `style` says.  NULL on allocation failure. */
cJSON *jsonrpc_make_error(const cJSON *id, int code, const char *message,
			  enum jsonrpc_id_style style);

/* Serialize without any newline (stdio frames by line).  Returns a string
 * to free with cJSON_free, or NULL on allocation failure. */
char *jsonrpc_serialize(const cJSON *msg, size_t *len);

/* The serialized {"jsonrpc":"2.0","id":id,"result":<result_json>} around a
 * result that is already printed JSON, without building a tree: for large
 * replies served over and over (tools/list).  Same bytes as
 * jsonrpc_serialize(jsonrpc_make_result(id, parsed result)); free with
 * cJSON_free; NULL on allocation failure. */
char *jsonrpc_serialize_printed_result(const cJSON *id, const char *result_json, size_t *len);

#endif
