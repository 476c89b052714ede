/* MCP session (see mcp.h): lifecycle and version negotiation, dispatch of
 * requests and notifications, tools/call bookkeeping (in-flight ids,
 * cancellation, batches of the 2025-03-26 revision), and the resources and
 * prompts capabilities, declared with nothing in them.
 *
 * Replies leave only through the session's send function; nothing here
 * writes to stdout.
 */
#include "mcp.h"
#include "render.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "jsonrpc.h"
#include "mcp_version.h"
#include "tools.h"

#ifndef CELLGATE_VERSION
#define CELLGATE_VERSION "0.0.0"
#endif

/* Elements in one batch; a larger batch is refused whole. */
#define MCP_MAX_BATCH 64u
/* tools/call requests awaiting a reply in one session (executions are
 * further limited by max_concurrent_jobs). */
#define MCP_MAX_PENDING_CALLS 256u
/* Longest method or tool name echoed back in an error message. */
#define MCP_MAX_ECHOED_NAME 128u

static const char instructions[] =
    "cellgate runs Python and JavaScript in an isolated sandbox. Call execute with code (and "
    "optionally language, timeout_s and stdin): each call runs in a fresh sandbox that keeps "
    "no state between calls, has no network unless get_sandbox_info says otherwise, and is "
    "limited in time, memory, processes and output size. The result holds stdout, stderr, "
    "the exit status and resource use; isError is true unless the program exited with code 0. "
    "Call get_sandbox_info for the languages, interpreter versions and limits.";

static const char *const log_levels[] = {"debug", "info",     "notice", "warning",
					 "error", "critical", "alert",	"emergency"};

enum session_state {
	SESSION_NEW,	      /* waiting for initialize */
	SESSION_INITIALIZING, /* initialize answered, notifications/initialized not seen */
	SESSION_READY,
};

/* The replies of one 2025-03-26 batch, sent as one array once every
 * element is answered. */
struct mcp_batch {
	cJSON *replies;
	void *ctx;
	unsigned outstanding; /* tools/call elements not finished yet */
	bool dispatching;     /* elements are still being handled */
};

struct mcp_call {
	struct tool_call tc;
	struct mcp_session *s;
	cJSON *id;
	cJSON *progress_token;	 /* params._meta.progressToken, NULL when absent */
	double progress;	 /* last progress value sent */
	void *ctx;		 /* the transport's context of the request */
	struct mcp_batch *batch; /* NULL: reply on its own */
	struct mcp_call *prev, *next;
};

struct mcp_session {
	struct mcp_config cfg;
	struct exec_backend *backend;
	mcp_send_fn send;
	void *send_arg;
	enum session_state state;
	enum mcp_version version;
	/* The request being handled had a \u0000 in a string, which cJSON
	 * cuts short: tools/call answers with a tool error, the rest -32602. */
	bool nul_in_request;
	void *ctx;	  /* context of the message being handled */
	size_t log_level; /* index into log_levels; kept, we emit no log messages */
	struct mcp_call *calls;
	size_t ncalls;
	bool closing; /* mcp_session_free running: send nothing */
};

static struct mcp_call *call_of(struct tool_call *tc)
{
	return (struct mcp_call *)((char *)tc - offsetof(struct mcp_call, tc));
}

static enum jsonrpc_id_style id_style(const struct mcp_session *s)
{
	return s->version >= MCP_2025_11_25 ? JSONRPC_ID_OMIT : JSONRPC_ID_NULL;
}

/* Serialize and send `msg` (taken).  Returns false when it could not be
 * serialized (no memory). */
static bool send_json(struct mcp_session *s, cJSON *msg, enum mcp_send_kind kind, void *ctx)
{
	size_t len;
	char *text = jsonrpc_serialize(msg, &len);

	cJSON_Delete(msg);
	if (!text)
		return false;
	s->send(text, len, kind, ctx, s->send_arg);
	cJSON_free(text);
	return true;
}

/* Deliver one reply (taken; NULL means building it failed) for request
 * `id`: into the batch, or out at once. */
static void deliver(struct mcp_session *s, struct mcp_batch *batch, void *ctx, const cJSON *id,
		    cJSON *reply)
{
	if (s->closing) {
		cJSON_Delete(reply);
		return;
	}
	if (!reply)
		reply = jsonrpc_make_error(id, JSONRPC_INTERNAL_ERROR,
					   "internal error: out of memory", id_style(s));
	if (batch) {
		if (reply && cJSON_AddItemToArray(batch->replies, reply))
			return;
		cJSON_Delete(reply);
	} else if (reply && send_json(s, reply, MCP_SEND_FINAL, ctx)) {
		return;
	} else {
		/* The reply was too large to serialize; say so instead. */
		reply = jsonrpc_make_error(id, JSONRPC_INTERNAL_ERROR,
					   "internal error: out of memory", id_style(s));
		if (reply && send_json(s, reply, MCP_SEND_FINAL, ctx))
			return;
	}
	fprintf(stderr, "cellgate: mcp: out of memory, a reply was lost\n");
	if (!batch)
		s->send(NULL, 0, MCP_SEND_NONE, ctx, s->send_arg);
}

static void reply_error(struct mcp_session *s, struct mcp_batch *batch, const cJSON *id, int code,
			const char *message)
{
	deliver(s, batch, s->ctx, id, jsonrpc_make_error(id, code, message, id_style(s)));
}

static void reply_result(struct mcp_session *s, struct mcp_batch *batch, const cJSON *id,
			 cJSON *result)
{
	deliver(s, batch, s->ctx, id, jsonrpc_make_result(id, result));
}

/* An error whose `data` is {key: value} (value duplicated), for the client
 * to tell which of its names was not found. */
static void reply_error_data(struct mcp_session *s, struct mcp_batch *batch, const cJSON *id,
			     int code, const char *message, const char *key, const cJSON *value)
{
	cJSON *reply = jsonrpc_make_error(id, code, message, id_style(s));
	cJSON *err = reply ? cJSON_GetObjectItemCaseSensitive(reply, "error") : NULL;
	cJSON *data = err ? cJSON_AddObjectToObject(err, "data") : NULL;
	cJSON *v = data ? cJSON_Duplicate(value, 0) : NULL;

	if (!v || !cJSON_AddItemToObject(data, key, v)) {
		cJSON_Delete(v);
		cJSON_Delete(reply);
		reply = NULL; /* deliver answers with an internal error */
	}
	deliver(s, batch, s->ctx, id, reply);
}

/* Send the batch's array once nothing in it is pending, and free it. */
static void batch_settle(struct mcp_session *s, struct mcp_batch *batch)
{
	if (batch->dispatching || batch->outstanding > 0)
		return;
	if (!s->closing && cJSON_GetArraySize(batch->replies) > 0) {
		if (!send_json(s, batch->replies, MCP_SEND_FINAL, batch->ctx)) {
			fprintf(stderr, "cellgate: mcp: out of memory, a batch reply was lost\n");
			s->send(NULL, 0, MCP_SEND_NONE, batch->ctx, s->send_arg);
		}
	} else {
		cJSON_Delete(batch->replies);
		/* Every element was a notification or got cancelled. */
		if (!s->closing)
			s->send(NULL, 0, MCP_SEND_NONE, batch->ctx, s->send_arg);
	}
	free(batch);
}

static void call_release(struct mcp_call *c)
{
	struct mcp_session *s = c->s;
	struct mcp_batch *batch = c->batch;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->ncalls--;
	cJSON_Delete(c->id);
	cJSON_Delete(c->progress_token);
	free(c);
	if (batch) {
		batch->outstanding--;
		batch_settle(s, batch);
	}
}

void tool_call_finish(struct tool_call *tc, cJSON *result)
{
	struct mcp_call *c = call_of(tc);
	struct mcp_session *s = c->s;

	if (tc->cancelled || s->closing) {
		cJSON_Delete(result);
		if (!s->closing && !c->batch)
			s->send(NULL, 0, MCP_SEND_NONE, c->ctx, s->send_arg);
	} else {
		deliver(s, c->batch, c->ctx, c->id,
			result ? jsonrpc_make_result(c->id, result) : NULL);
	}
	call_release(c);
}

bool tool_call_has_progress(const struct tool_call *tc)
{
	return call_of((struct tool_call *)tc)->progress_token != NULL;
}

void tool_call_progress(struct tool_call *tc, double progress, double total, const char *message)
{
	struct mcp_call *c = call_of(tc);
	struct mcp_session *s = c->s;

	/* Progress must increase and must stop once the call is over. */
	if (!c->progress_token || tc->cancelled || s->closing || !(progress > c->progress))
		return;
	cJSON *n = cJSON_CreateObject();
	cJSON *params = n ? cJSON_CreateObject() : NULL;
	cJSON *tok = cJSON_Duplicate(c->progress_token, 0);
	bool ok = params && tok && cJSON_AddStringToObject(n, "jsonrpc", "2.0") &&
		  cJSON_AddStringToObject(n, "method", "notifications/progress");
	if (ok && cJSON_AddItemToObject(params, "progressToken", tok))
		tok = NULL;
	else
		ok = false;
	ok = ok && cJSON_AddNumberToObject(params, "progress", progress);
	if (ok && total > 0)
		ok = cJSON_AddNumberToObject(params, "total", total) != NULL;
	if (ok && message)
		ok = cJSON_AddStringToObject(params, "message", message) != NULL;
	if (ok && cJSON_AddItemToObject(n, "params", params))
		params = NULL;
	else
		ok = false;
	cJSON_Delete(tok);
	cJSON_Delete(params);
	if (!ok) {
		cJSON_Delete(n);
		return;
	}
	c->progress = progress;
	send_json(s, n, MCP_SEND_RELATED, c->ctx);
}

/* Member `key` of params: 0 found, -ENOENT absent; a duplicate key or a
 * params that is not an object is answered here with -32602 (returns
 * -EINVAL, the caller stops). */
static int get_param(struct mcp_session *s, struct mcp_batch *batch, const struct jsonrpc_msg *m,
		     const char *key, const cJSON **out)
{
	char msg[128];

	*out = NULL;
	if (!m->params)
		return -ENOENT;
	int r = json_member(m->params, key, out);
	if (r == -EEXIST) {
		snprintf(msg, sizeof(msg), "params.%s is given more than once", key);
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS, msg);
		return -EINVAL;
	}
	return r;
}

static cJSON *initialize_result(const struct mcp_session *s, enum mcp_version v)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *caps = r ? cJSON_CreateObject() : NULL;
	cJSON *tools = caps ? cJSON_AddObjectToObject(caps, "tools") : NULL;
	cJSON *info = r ? cJSON_CreateObject() : NULL;
	/* resources and prompts are declared, with no subscribe and no
	 * listChanged, because many clients list them whatever we declare;
	 * their catalogs are empty (see catalogs below). */
	bool ok = tools && info && cJSON_AddFalseToObject(tools, "listChanged") &&
		  cJSON_AddObjectToObject(caps, "logging") &&
		  cJSON_AddObjectToObject(caps, "resources") &&
		  cJSON_AddObjectToObject(caps, "prompts");

	ok = ok && cJSON_AddStringToObject(info, "name",
					   s->cfg.server_name ? s->cfg.server_name : "cellgate");
	ok = ok && cJSON_AddStringToObject(info, "version",
					   s->cfg.server_version ? s->cfg.server_version
								 : CELLGATE_VERSION);
	if (ok && v >= MCP_2025_06_18)
		ok = cJSON_AddStringToObject(info, "title", "cellgate") != NULL;
	ok = ok && cJSON_AddStringToObject(r, "protocolVersion", mcp_version_string(v));
	if (ok && cJSON_AddItemToObject(r, "capabilities", caps)) {
		caps = NULL;
		if (cJSON_AddItemToObject(r, "serverInfo", info))
			info = NULL;
		else
			ok = false;
	} else {
		ok = false;
	}
	ok = ok && cJSON_AddStringToObject(r, "instructions", instructions);
	cJSON_Delete(caps);
	cJSON_Delete(info);
	if (!ok) {
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}

static void do_initialize(struct mcp_session *s, const struct jsonrpc_msg *m,
			  struct mcp_batch *batch)
{
	const cJSON *pv;

	if (s->state != SESSION_NEW) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_REQUEST,
			    "invalid request: the session is already initialized");
		return;
	}
	if (!cJSON_IsObject(m->params)) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS,
			    "initialize requires params with protocolVersion");
		return;
	}
	int r = get_param(s, batch, m, "protocolVersion", &pv);
	if (r == -EINVAL)
		return;
	if (!cJSON_IsString(pv)) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS,
			    "params.protocolVersion must be a string");
		return;
	}
	/* Echo a revision we speak, else offer our latest; a client that
	 * cannot use it disconnects (lifecycle: version negotiation). */
	enum mcp_version v = mcp_version_from_string(pv->valuestring);
	if (v == MCP_VERSION_NONE)
		v = MCP_VERSION_LATEST;
	cJSON *result = initialize_result(s, v);
	if (!result) {
		reply_error(s, batch, m->id, JSONRPC_INTERNAL_ERROR,
			    "internal error: out of memory");
		return;
	}
	s->version = v;
	s->state = SESSION_INITIALIZING;
	reply_result(s, batch, m->id, result);
}

static void do_ping(struct mcp_session *s, const struct jsonrpc_msg *m, struct mcp_batch *batch)
{
	reply_result(s, batch, m->id, cJSON_CreateObject());
}

/* Answer a list request that carries params.cursor; true when answered.
 * One page holds every item of each list and we never hand out a cursor,
 * so any cursor is one we did not mint. */
static bool cursor_refused(struct mcp_session *s, const struct jsonrpc_msg *m,
			   struct mcp_batch *batch)
{
	const cJSON *cursor;

	int r = get_param(s, batch, m, "cursor", &cursor);
	if (r == -EINVAL)
		return true;
	if (r == 0) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS,
			    cJSON_IsString(cursor) ? "invalid cursor"
						   : "params.cursor must be a string");
		return true;
	}
	return false;
}

/* tools/list is the one large reply clients ask for again and again; out
 * of a batch its reply is assembled from the cached printed result instead
 * of a tree that would be printed anew each time. */
static void do_tools_list(struct mcp_session *s, const struct jsonrpc_msg *m,
			  struct mcp_batch *batch)
{
	if (cursor_refused(s, m, batch))
		return;
	const char *result = tools_list_result_text(s->version);
	if (result && !batch) {
		if (s->closing)
			return;
		size_t len;
		char *text = jsonrpc_serialize_printed_result(m->id, result, &len);
		if (text) {
			s->send(text, len, MCP_SEND_FINAL, s->ctx, s->send_arg);
			cJSON_free(text);
			return;
		}
	}
	cJSON *raw = result ? cJSON_CreateRaw(result) : NULL;
	if (!raw) {
		reply_error(s, batch, m->id, JSONRPC_INTERNAL_ERROR, "internal error: out of memory");
		return;
	}
	reply_result(s, batch, m->id, raw);
}

static unsigned jobs_running(const struct mcp_session *s)
{
	unsigned n = 0;

	for (const struct mcp_call *c = s->calls; c; c = c->next)
		if (c->tc.job)
			n++;
	return n;
}

static bool call_in_flight(const struct mcp_session *s, const cJSON *id)
{
	for (const struct mcp_call *c = s->calls; c; c = c->next)
		if (!c->tc.cancelled && jsonrpc_id_equal(c->id, id))
			return true;
	return false;
}

static void do_tools_call(struct mcp_session *s, const struct jsonrpc_msg *m,
			  struct mcp_batch *batch)
{
	const cJSON *name, *args;
	char msg[MCP_MAX_ECHOED_NAME + 64];

	int r = get_param(s, batch, m, "name", &name);
	if (r == -EINVAL)
		return;
	if (!cJSON_IsString(name)) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS,
			    r == 0 ? "params.name must be a string"
				   : "tools/call requires params.name");
		return;
	}
	const struct tool_def *def = tools_find(name->valuestring);
	if (!def) {
		if (strlen(name->valuestring) > MCP_MAX_ECHOED_NAME)
			snprintf(msg, sizeof(msg), "unknown tool (a name longer than %u bytes)",
				 MCP_MAX_ECHOED_NAME);
		else
			snprintf(msg, sizeof(msg), "unknown tool: %s", name->valuestring);
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS, msg);
		return;
	}
	r = get_param(s, batch, m, "arguments", &args);
	if (r == -EINVAL)
		return;
	if (r == 0 && !cJSON_IsObject(args)) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS,
			    "params.arguments must be an object");
		return;
	}
	if (s->nul_in_request) {
		/* A bad argument, not a bad request: tell the model what to fix
		 * rather than running code or input cut short at the NUL. */
		cJSON *res = render_tool_error(
		    "arguments must not contain NUL characters (\\u0000); remove them from "
		    "code and stdin (Python and JavaScript source cannot contain NUL; send "
		    "binary input another way)");
		if (res)
			reply_result(s, batch, m->id, res);
		else
			reply_error(s, batch, m->id, JSONRPC_INTERNAL_ERROR,
				    "internal error: out of memory");
		return;
	}
	if (call_in_flight(s, m->id)) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_REQUEST,
			    "invalid request: a request with this id is still running");
		return;
	}
	if (s->ncalls >= MCP_MAX_PENDING_CALLS) {
		reply_error(s, batch, m->id, JSONRPC_INTERNAL_ERROR,
			    "too many requests in flight; wait for replies first");
		return;
	}

	const cJSON *meta = NULL, *token = NULL;
	r = get_param(s, batch, m, "_meta", &meta);
	if (r == -EINVAL)
		return;
	if (cJSON_IsObject(meta) && json_member(meta, "progressToken", &token) == 0 &&
	    !jsonrpc_id_valid(token)) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS,
			    "params._meta.progressToken must be a string or an integer");
		return;
	}

	cJSON *empty = NULL;
	if (!args)
		args = empty = cJSON_CreateObject();
	struct mcp_call *c = calloc(1, sizeof(*c));
	cJSON *id = cJSON_Duplicate(m->id, 0);
	cJSON *ptok = token ? cJSON_Duplicate(token, 0) : NULL;
	if (!args || !c || !id || (token && !ptok)) {
		cJSON_Delete(empty);
		cJSON_Delete(id);
		cJSON_Delete(ptok);
		free(c);
		reply_error(s, batch, m->id, JSONRPC_INTERNAL_ERROR,
			    "internal error: out of memory");
		return;
	}
	c->tc.cfg = &s->cfg;
	c->tc.backend = s->backend;
	c->tc.version = s->version;
	c->tc.jobs_running = jobs_running(s);
	c->s = s;
	c->id = id;
	c->progress_token = ptok;
	c->ctx = s->ctx;
	c->batch = batch;
	c->next = s->calls;
	if (s->calls)
		s->calls->prev = c;
	s->calls = c;
	s->ncalls++;
	if (batch)
		batch->outstanding++;
	/* The handler may finish (and free) the call before it returns. */
	def->handler(&c->tc, args);
	cJSON_Delete(empty);
}

static void do_set_level(struct mcp_session *s, const struct jsonrpc_msg *m,
			 struct mcp_batch *batch)
{
	const cJSON *level;

	int r = get_param(s, batch, m, "level", &level);
	if (r == -EINVAL)
		return;
	for (size_t i = 0; cJSON_IsString(level) && i < sizeof(log_levels) / sizeof(log_levels[0]);
	     i++) {
		if (strcmp(level->valuestring, log_levels[i]) == 0) {
			s->log_level = i;
			reply_result(s, batch, m->id, cJSON_CreateObject());
			return;
		}
	}
	reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS,
		    "params.level must be one of debug, info, notice, warning, error, critical, "
		    "alert, emergency");
}

typedef void (*method_fn)(struct mcp_session *s, const struct jsonrpc_msg *m,
			  struct mcp_batch *batch);

static const struct {
	const char *method;
	method_fn fn;
} methods[] = {
    {"ping", do_ping},
    {"tools/list", do_tools_list},
    {"tools/call", do_tools_call},
    {"logging/setLevel", do_set_level},
};

/* Resources and prompts: we serve none, so every list is empty and every
 * lookup misses.  Subscriptions and completion are not declared and stay
 * "method not found". */
struct catalog {
	const char *method;
	const char *member;    /* list: the result's array; lookup: the param naming the item */
	const char *not_found; /* lookup: the error message; NULL for a list */
};

static const struct catalog catalogs[] = {
    {"resources/list", "resources", NULL},
    {"resources/templates/list", "resourceTemplates", NULL},
    {"prompts/list", "prompts", NULL},
    /* SEP-2164: an unknown resource is -32602 with the uri in data. */
    {"resources/read", "uri", "Resource not found"},
    {"prompts/get", "name", "Prompt not found"},
};

static void do_catalog(struct mcp_session *s, const struct jsonrpc_msg *m, struct mcp_batch *batch,
		       const struct catalog *c)
{
	const cJSON *want;
	char msg[96];

	if (!c->not_found) {
		if (cursor_refused(s, m, batch))
			return;
		cJSON *result = cJSON_CreateObject();
		if (result && !cJSON_AddArrayToObject(result, c->member)) {
			cJSON_Delete(result);
			result = NULL;
		}
		/* NULL: deliver answers with an internal error. */
		deliver(s, batch, s->ctx, m->id,
			result ? jsonrpc_make_result(m->id, result) : NULL);
		return;
	}
	int r = get_param(s, batch, m, c->member, &want);
	if (r == -EINVAL)
		return;
	if (!cJSON_IsString(want)) {
		if (r == 0)
			snprintf(msg, sizeof(msg), "params.%s must be a string", c->member);
		else
			snprintf(msg, sizeof(msg), "%s requires params.%s", c->method, c->member);
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS, msg);
		return;
	}
	/* The name comes back whole in data: it came in this same message,
	 * so the reply is no larger than the request. */
	reply_error_data(s, batch, m->id, JSONRPC_INVALID_PARAMS, c->not_found, c->member, want);
}

static void handle_request(struct mcp_session *s, const struct jsonrpc_msg *m,
			   struct mcp_batch *batch)
{
	char msg[MCP_MAX_ECHOED_NAME + 64];

	if (strcmp(m->method, "initialize") == 0) {
		do_initialize(s, m, batch);
		return;
	}
	if (s->state == SESSION_NEW && strcmp(m->method, "ping") != 0) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_REQUEST, "session not initialized");
		return;
	}
	method_fn fn = NULL;
	const struct catalog *cat = NULL;
	for (size_t i = 0; !fn && i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(m->method, methods[i].method) == 0)
			fn = methods[i].fn;
	for (size_t i = 0; !fn && !cat && i < sizeof(catalogs) / sizeof(catalogs[0]); i++)
		if (strcmp(m->method, catalogs[i].method) == 0)
			cat = &catalogs[i];
	if (!fn && !cat) {
		if (strlen(m->method) > MCP_MAX_ECHOED_NAME)
			snprintf(msg, sizeof(msg), "method not found");
		else
			snprintf(msg, sizeof(msg), "method not found: %s", m->method);
		reply_error(s, batch, m->id, JSONRPC_METHOD_NOT_FOUND, msg);
		return;
	}
	if (m->params && !cJSON_IsObject(m->params)) {
		reply_error(s, batch, m->id, JSONRPC_INVALID_PARAMS, "params must be an object");
		return;
	}
	if (fn)
		fn(s, m, batch);
	else
		do_catalog(s, m, batch, cat);
}

static void cancel_call(struct mcp_session *s, const cJSON *request_id)
{
	for (struct mcp_call *c = s->calls; c; c = c->next) {
		if (c->tc.cancelled || !jsonrpc_id_equal(c->id, request_id))
			continue;
		c->tc.cancelled = true;
		if (c->tc.job) {
			/* The job still reports once; the handler then finishes
			 * the call and nothing is sent. */
			s->backend->cancel(s->backend, c->tc.job);
		} else {
			if (c->tc.detach)
				c->tc.detach(&c->tc);
			if (!c->batch)
				s->send(NULL, 0, MCP_SEND_NONE, c->ctx, s->send_arg);
			call_release(c);
		}
		return;
	}
}

static void handle_notification(struct mcp_session *s, const struct jsonrpc_msg *m)
{
	const cJSON *request_id;

	if (strcmp(m->method, "notifications/initialized") == 0) {
		if (s->state == SESSION_INITIALIZING)
			s->state = SESSION_READY;
		return;
	}
	if (strcmp(m->method, "notifications/cancelled") == 0) {
		/* Invalid cancellations are ignored (cancellation utility);
		 * initialize is answered at once, so it is never in flight. */
		if (!cJSON_IsObject(m->params) ||
		    json_member(m->params, "requestId", &request_id) != 0 ||
		    !jsonrpc_id_valid(request_id))
			return;
		cancel_call(s, request_id);
	}
	/* Any other notification needs nothing from us. */
}

static void handle_one(struct mcp_session *s, const cJSON *item, bool nul_escape,
		       struct mcp_batch *batch)
{
	struct jsonrpc_msg m;

	jsonrpc_classify(item, &m);
	switch (m.kind) {
	case JSONRPC_RESPONSE:
		return; /* we send no requests; a response is never answered */
	case JSONRPC_INVALID:
		reply_error(s, batch, m.id, JSONRPC_INVALID_REQUEST, m.error);
		return;
	case JSONRPC_NOTIFICATION:
		handle_notification(s, &m);
		return;
	case JSONRPC_REQUEST:
		if (nul_escape && strcmp(m.method, "tools/call") != 0) {
			/* cJSON would hand us the string cut at the NUL. */
			reply_error(s, batch, m.id, JSONRPC_INVALID_PARAMS,
				    "strings containing \\u0000 are not supported");
			return;
		}
		s->nul_in_request = nul_escape;
		handle_request(s, &m, batch);
		s->nul_in_request = false;
		return;
	}
}

static void handle_batch(struct mcp_session *s, const struct jsonrpc_input *in)
{
	char msg[128];
	int n = cJSON_GetArraySize(in->root);

	/* Only 2025-03-26 has batches; before initialize no revision is
	 * agreed, and initialize itself must not be batched. */
	if (s->version != MCP_2025_03_26) {
		reply_error(s, NULL, NULL, JSONRPC_INVALID_REQUEST,
			    "invalid request: JSON-RPC batches are only accepted with protocol "
			    "version 2025-03-26");
		return;
	}
	if (n == 0) {
		reply_error(s, NULL, NULL, JSONRPC_INVALID_REQUEST, "invalid request: empty batch");
		return;
	}
	if ((unsigned)n > MCP_MAX_BATCH) {
		snprintf(msg, sizeof(msg), "invalid request: a batch holds at most %u messages",
			 MCP_MAX_BATCH);
		reply_error(s, NULL, NULL, JSONRPC_INVALID_REQUEST, msg);
		return;
	}
	struct mcp_batch *batch = calloc(1, sizeof(*batch));
	cJSON *replies = cJSON_CreateArray();
	if (!batch || !replies) {
		free(batch);
		cJSON_Delete(replies);
		reply_error(s, NULL, NULL, JSONRPC_INTERNAL_ERROR, "internal error: out of memory");
		return;
	}
	batch->replies = replies;
	batch->ctx = s->ctx;
	batch->dispatching = true;
	for (const cJSON *item = in->root->child; item; item = item->next)
		handle_one(s, item, in->nul_escape, batch);
	batch->dispatching = false;
	batch_settle(s, batch);
}

struct mcp_session *mcp_session_new(const struct mcp_config *cfg, struct exec_backend *backend,
				    mcp_send_fn send, void *send_arg)
{
	if (!cfg || !backend || !send)
		return NULL;
	struct mcp_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->backend = backend;
	s->send = send;
	s->send_arg = send_arg;
	s->state = SESSION_NEW;
	s->version = MCP_VERSION_NONE;
	return s;
}

void mcp_session_reject_oversized(struct mcp_session *s)
{
	char msg[128];

	if (s->closing)
		return;
	snprintf(msg, sizeof(msg), "invalid request: a message holds at most %u bytes",
		 MCP_MAX_MESSAGE_BYTES);
	reply_error(s, NULL, NULL, JSONRPC_INVALID_REQUEST, msg);
}

void mcp_session_handle_parsed(struct mcp_session *s, const struct jsonrpc_input *in, void *ctx)
{
	if (s->closing)
		return;
	s->ctx = ctx;
	if (cJSON_IsArray(in->root))
		handle_batch(s, in);
	else
		handle_one(s, in->root, in->nul_escape, NULL);
	s->ctx = NULL;
}

void mcp_session_handle(struct mcp_session *s, const char *data, size_t len)
{
	struct jsonrpc_input in;
	const char *why;
	char msg[160];

	if (s->closing)
		return;
	if (len > MCP_MAX_MESSAGE_BYTES) {
		mcp_session_reject_oversized(s);
		return;
	}
	if (jsonrpc_parse(data, len, &in, &why) != 0) {
		snprintf(msg, sizeof(msg), "parse error: %s", why ? why : "invalid JSON");
		reply_error(s, NULL, NULL, JSONRPC_PARSE_ERROR, msg);
		return;
	}
	mcp_session_handle_parsed(s, &in, NULL);
	cJSON_Delete(in.root);
}

int mcp_session_version(const struct mcp_session *s)
{
	return s->state == SESSION_NEW ? MCP_VERSION_NONE : (int)s->version;
}

bool mcp_session_initialized(const struct mcp_session *s)
{
	return s->state != SESSION_NEW;
}

size_t mcp_session_pending(const struct mcp_session *s)
{
	size_t n = 0;

	for (const struct mcp_call *c = s->calls; c; c = c->next)
		if (!c->tc.cancelled)
			n++;
	return n;
}

void mcp_session_free(struct mcp_session *s)
{
	if (!s)
		return;
	s->closing = true;
	while (s->calls) {
		struct mcp_call *c = s->calls;
		if (c->tc.job) {
			void *job = c->tc.job;
			c->tc.job = NULL;
			s->backend->abandon(s->backend, job);
			if (c->tc.abandoned)
				c->tc.abandoned(&c->tc);
		} else if (c->tc.detach) {
			c->tc.detach(&c->tc);
		}
		call_release(c);
	}
	free(s);
}
