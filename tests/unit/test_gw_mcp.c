/* The MCP session over a scripted backend: lifecycle and negotiation,
 * every JSON-RPC error shape, tools/list per revision, the empty resource
 * and prompt catalogs, tools/call with argument validation, completion,
 * cancellation and batches, and
 * get_sandbox_info with its version probes.  Replies are collected from
 * the send callback and parsed back with cJSON. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "exec_backend.h"
#include "mcp.h"
#include "tools.h"

/* ---- scripted backend ---- */

#define MAX_FAKE_JOBS 32

struct fake_job {
	char profile[IPC_MAX_NAME + 1];
	char *code;
	char *stdin_data; /* NULL when none */
	struct ipc_limits limits;
	job_done_fn done;
	void *arg;
	bool cancelled, abandoned, completed;
};

struct fake_backend {
	struct exec_backend b;
	struct ipc_hello_ok hello;
	struct fake_job jobs[MAX_FAKE_JOBS];
	size_t njobs;
	bool fail_start;
};

static const struct ipc_hello_ok *fake_profiles(struct exec_backend *b)
{
	struct fake_backend *fb = b->impl;
	return &fb->hello;
}

static void *fake_start(struct exec_backend *b, const struct job_request *req, job_done_fn done,
			void *arg)
{
	struct fake_backend *fb = b->impl;
	if (fb->fail_start)
		return NULL;
	assert_true(fb->njobs < MAX_FAKE_JOBS);
	struct fake_job *j = &fb->jobs[fb->njobs++];
	memset(j, 0, sizeof(*j));
	snprintf(j->profile, sizeof(j->profile), "%s", req->profile);
	j->code = strndup(req->code, req->code_len);
	j->stdin_data = req->stdin_data ? strndup(req->stdin_data, req->stdin_len) : NULL;
	j->limits = req->limits;
	j->done = done;
	j->arg = arg;
	return j;
}

static void fake_cancel(struct exec_backend *b, void *handle)
{
	(void)b;
	((struct fake_job *)handle)->cancelled = true;
}

static void fake_abandon(struct exec_backend *b, void *handle)
{
	(void)b;
	((struct fake_job *)handle)->abandoned = true;
}

static void set_profile(struct ipc_profile *p, const char *name, const char *interp)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->name, name);
	strcpy(p->language, name);
	strcpy(p->interpreter, interp);
	p->defaults = (struct ipc_limits){10000, 10000, 256u << 20, 64, 64u << 20, 1u << 20};
	p->maximum = (struct ipc_limits){60000, 60000, 1u << 30, 256, 256u << 20, 8u << 20};
}

/* Complete job i as the jailer would. */
static void complete_job(struct fake_backend *fb, size_t i, uint32_t status, int32_t exit_code,
			 const char *out)
{
	struct fake_job *j = &fb->jobs[i];
	struct job_outcome o;

	assert_true(i < fb->njobs);
	assert_false(j->completed);
	assert_false(j->abandoned);
	memset(&o, 0, sizeof(o));
	o.job_id = 0x100 + i;
	o.result.status = status;
	o.result.exit_code = exit_code;
	o.result.wall_ms = 15;
	o.result.cpu_user_ms = 5;
	o.result.cpu_sys_ms = 2;
	o.result.memory_peak_bytes = 4096;
	o.limits = (struct ipc_limits){10000, 10000, 256u << 20, 64, 64u << 20, 1u << 20};
	o.stdout_data = out;
	o.stdout_len = strlen(out);
	o.stderr_data = "";
	j->completed = true;
	j->done(&o, j->arg);
}

/* ---- fixture ---- */

#define MAX_SENT 64

struct fixture {
	struct fake_backend fb;
	struct tenant_limits tenant;
	struct mcp_config cfg;
	struct mcp_session *s;
	char *sent[MAX_SENT];
	size_t nsent;
	size_t taken; /* replies already consumed */
};

static void collect(const char *json, size_t len, enum mcp_send_kind kind, void *ctx, void *arg)
{
	struct fixture *f = arg;
	assert_null(ctx); /* mcp_session_handle passes no context */
	if (kind == MCP_SEND_NONE) {
		assert_null(json);
		return;
	}
	assert_true(f->nsent < MAX_SENT);
	assert_int_equal(strlen(json), len); /* no NUL inside, no trailing junk */
	assert_null(memchr(json, '\n', len));
	f->sent[f->nsent++] = strndup(json, len);
}

static void reset_tenant(struct fixture *f)
{
	memset(&f->tenant, 0, sizeof(f->tenant));
	strcpy(f->tenant.name, "local");
	for (uint32_t i = 0; i < f->fb.hello.nprofiles; i++) {
		strcpy(f->tenant.profiles[i].profile, f->fb.hello.profiles[i].name);
		f->tenant.profiles[i].maximum = f->fb.hello.profiles[i].maximum;
	}
	f->tenant.nprofiles = f->fb.hello.nprofiles;
}

static void new_session(struct fixture *f)
{
	if (f->s)
		mcp_session_free(f->s);
	f->s = mcp_session_new(&f->cfg, &f->fb.b, collect, f);
	assert_non_null(f->s);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->fb.b = (struct exec_backend){.profiles = fake_profiles,
					.start = fake_start,
					.cancel = fake_cancel,
					.abandon = fake_abandon,
					.impl = &f->fb};
	f->fb.hello.nprofiles = 2;
	set_profile(&f->fb.hello.profiles[0], "python", "/usr/bin/python3");
	set_profile(&f->fb.hello.profiles[1], "javascript", "/usr/bin/node");
	reset_tenant(f);
	f->cfg = (struct mcp_config){.server_name = "cellgate",
				     .server_version = "9.9.9",
				     .max_concurrent_jobs = 4,
				     .tenant = &f->tenant};
	new_session(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	mcp_session_free(f->s);
	tool_sandbox_info_forget(&f->fb.b);
	for (size_t i = 0; i < f->nsent; i++)
		free(f->sent[i]);
	for (size_t i = 0; i < f->fb.njobs; i++) {
		free(f->fb.jobs[i].code);
		free(f->fb.jobs[i].stdin_data);
	}
	free(f);
	return 0;
}

static void sendf(struct fixture *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sendf(struct fixture *f, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	mcp_session_handle(f->s, msg, (size_t)n);
	free(msg);
}

static void send_raw(struct fixture *f, const char *msg, size_t len)
{
	mcp_session_handle(f->s, msg, len);
}

/* The one reply sent since the last call, parsed. */
static cJSON *reply(struct fixture *f)
{
	if (f->nsent != f->taken + 1)
		fail_msg("expected one reply, got %zu", f->nsent - f->taken);
	cJSON *r = cJSON_Parse(f->sent[f->taken++]);
	assert_non_null(r);
	return r;
}

static void no_reply(struct fixture *f)
{
	if (f->nsent != f->taken)
		fail_msg("unexpected reply: %s", f->sent[f->taken]);
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!it)
		fail_msg("missing member %s", key);
	return it;
}

static bool has(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

enum id_expect { ID_ABSENT, ID_NULL };

/* Error reply with `code` and integer id `id` (>= 0), or the id written as
 * `style` when id < 0. */
static void expect_error(struct fixture *f, int code, int id, enum id_expect style,
			 const char *message)
{
	cJSON *r = reply(f);
	assert_string_equal(get(r, "jsonrpc")->valuestring, "2.0");
	assert_false(has(r, "result"));
	const cJSON *err = get(r, "error");
	assert_int_equal(get(err, "code")->valueint, code);
	assert_true(cJSON_IsString(get(err, "message")));
	if (message)
		assert_string_equal(get(err, "message")->valuestring, message);
	if (id >= 0)
		assert_int_equal(get(r, "id")->valueint, id);
	else if (style == ID_NULL)
		assert_true(cJSON_IsNull(get(r, "id")));
	else
		assert_false(has(r, "id"));
	cJSON_Delete(r);
}

/* The result of the reply to integer id `id`. */
static cJSON *expect_result(struct fixture *f, int id)
{
	cJSON *r = reply(f);
	if (has(r, "error"))
		fail_msg("error reply: %s", f->sent[f->taken - 1]);
	assert_int_equal(get(r, "id")->valueint, id);
	return r;
}

static void initialize(struct fixture *f, const char *version)
{
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
	      "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
	      "\"version\":\"1\"}}}",
	      version);
	cJSON *r = expect_result(f, 0);
	cJSON_Delete(r);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	no_reply(f);
}

static void call_execute(struct fixture *f, int id, const char *args)
{
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
	      "\"name\":\"execute\",\"arguments\":%s}}",
	      id, args);
}

/* ---- lifecycle ---- */

static void test_initialize_each_version(void **state)
{
	struct fixture *f = *state;
	static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
					       "2024-11-05"};
	for (size_t i = 0; i < 4; i++) {
		new_session(f);
		sendf(f,
		      "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{"
		      "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{}}}",
		      versions[i]);
		cJSON *r = reply(f);
		assert_string_equal(get(r, "id")->valuestring, "init");
		const cJSON *res = get(r, "result");
		assert_string_equal(get(res, "protocolVersion")->valuestring, versions[i]);
		const cJSON *caps = get(res, "capabilities");
		assert_true(cJSON_IsFalse(get(get(caps, "tools"), "listChanged")));
		assert_true(cJSON_IsObject(get(caps, "logging")));
		/* Declared with no sub-capability: no subscribe, no listChanged. */
		assert_true(cJSON_IsObject(get(caps, "resources")));
		assert_int_equal(cJSON_GetArraySize(get(caps, "resources")), 0);
		assert_true(cJSON_IsObject(get(caps, "prompts")));
		assert_int_equal(cJSON_GetArraySize(get(caps, "prompts")), 0);
		assert_false(has(caps, "completions"));
		assert_int_equal(cJSON_GetArraySize(caps), 4);
		const cJSON *info = get(res, "serverInfo");
		assert_string_equal(get(info, "name")->valuestring, "cellgate");
		assert_string_equal(get(info, "version")->valuestring, "9.9.9");
		bool titled = i < 2;
		assert_int_equal(has(info, "title"), titled);
		if (titled)
			assert_string_equal(get(info, "title")->valuestring, "cellgate");
		assert_true(strlen(get(res, "instructions")->valuestring) > 50);
		cJSON_Delete(r);
	}
}

static void test_initialize_unsupported_version(void **state)
{
	struct fixture *f = *state;
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
		 "\"protocolVersion\":\"2099-01-01\",\"capabilities\":{}}}");
	cJSON *r = expect_result(f, 1);
	assert_string_equal(get(get(r, "result"), "protocolVersion")->valuestring, "2025-11-25");
	cJSON_Delete(r);
}

static void test_initialize_bad_params(void **state)
{
	struct fixture *f = *state;
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}");
	expect_error(f, -32602, 1, ID_NULL, NULL);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{"
		 "\"protocolVersion\":20250618}}");
	expect_error(f, -32602, 2, ID_NULL, "params.protocolVersion must be a string");
	/* The session is still new: a good initialize works. */
	initialize(f, "2025-06-18");
}

static void test_double_initialize(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"initialize\",\"params\":{"
		 "\"protocolVersion\":\"2025-11-25\"}}");
	expect_error(f, -32600, 9, ID_NULL, NULL);
}

static void test_requests_before_initialize(void **state)
{
	struct fixture *f = *state;
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	expect_error(f, -32600, 1, ID_NULL, "session not initialized");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"execute\",\"arguments\":{\"code\":\"1\"}}}");
	expect_error(f, -32600, 2, ID_NULL, "session not initialized");
	assert_int_equal(f->fb.njobs, 0);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such\"}");
	expect_error(f, -32600, 3, ID_NULL, "session not initialized");
	/* ping is allowed before initialize. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
	cJSON *r = expect_result(f, 4);
	assert_int_equal(cJSON_GetArraySize(get(r, "result")), 0);
	cJSON_Delete(r);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	no_reply(f);
}

static void test_ping(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
	cJSON *r = reply(f);
	assert_string_equal(get(r, "id")->valuestring, "p");
	assert_true(cJSON_IsObject(get(r, "result")));
	assert_int_equal(cJSON_GetArraySize(get(r, "result")), 0);
	cJSON_Delete(r);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":[]}");
	expect_error(f, -32602, 5, ID_NULL, "params must be an object");
}

/* ---- JSON-RPC errors ---- */

static void test_parse_error_id_by_version(void **state)
{
	struct fixture *f = *state;
	/* Before negotiation and up to 2025-06-18: "id": null. */
	sendf(f, "{\"jsonrpc\":");
	expect_error(f, -32700, -1, ID_NULL, NULL);
	initialize(f, "2025-06-18");
	sendf(f, "not json");
	expect_error(f, -32700, -1, ID_NULL, NULL);

	/* 2025-11-25: the id is omitted. */
	new_session(f);
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"");
	expect_error(f, -32700, -1, ID_ABSENT, NULL);
}

static void test_invalid_utf8_is_parse_error(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	static const char msg[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{"
				  "\"x\":\"\xC3\x28\"}}";
	send_raw(f, msg, sizeof(msg) - 1);
	expect_error(f, -32700, -1, ID_ABSENT, "parse error: message is not valid UTF-8");
}

static void test_invalid_requests(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-06-18");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}");
	expect_error(f, -32600, -1, ID_NULL, NULL);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}");
	expect_error(f, -32600, -1, ID_NULL, NULL);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}");
	expect_error(f, -32600, -1, ID_NULL, NULL);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3}");
	expect_error(f, -32600, 3, ID_NULL, "invalid request: method must be a string");
	sendf(f, "{\"jsonrpc\":\"1.0\",\"id\":4,\"method\":\"ping\"}");
	expect_error(f, -32600, 4, ID_NULL, "invalid request: jsonrpc must be \"2.0\"");
	sendf(f, "{\"id\":5,\"method\":\"ping\"}");
	expect_error(f, -32600, 5, ID_NULL, NULL);
	sendf(f, "[1]"); /* batches are not part of 2025-06-18 */
	expect_error(f, -32600, -1, ID_NULL, NULL);
	sendf(f, "42");
	expect_error(f, -32600, -1, ID_NULL, NULL);

	new_session(f);
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":false,\"method\":\"ping\"}");
	expect_error(f, -32600, -1, ID_ABSENT, NULL);
}

static void test_unknown_method(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/delete\"}");
	expect_error(f, -32601, 7, ID_NULL, "method not found: tools/delete");
	/* A notification is never answered, known or not. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\",\"params\":{}}");
	no_reply(f);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
	no_reply(f);
}

static void test_client_responses_ignored(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"x\"}}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}");
	no_reply(f);
}

static void test_oversized_message(void **state)
{
	struct fixture *f = *state;
	mcp_session_reject_oversized(f->s);
	expect_error(f, -32600, -1, ID_NULL, NULL);
	initialize(f, "2025-11-25");
	mcp_session_reject_oversized(f->s);
	expect_error(f, -32600, -1, ID_ABSENT, NULL);
}

/* ---- tools/list ---- */

static const cJSON *find_tool(const cJSON *tools, const char *name)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, tools)
	{
		if (strcmp(get(t, "name")->valuestring, name) == 0)
			return t;
	}
	fail_msg("tool %s not listed", name);
	return NULL;
}

static cJSON *list_tools(struct fixture *f, const char *version)
{
	new_session(f);
	initialize(f, version);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
	return expect_result(f, 2);
}

static void test_tools_list_per_version(void **state)
{
	struct fixture *f = *state;
	static const char *const versions[] = {"2024-11-05", "2025-03-26", "2025-06-18",
					       "2025-11-25"};
	for (size_t v = 0; v < 4; v++) {
		cJSON *r = list_tools(f, versions[v]);
		const cJSON *res = get(r, "result");
		assert_false(has(res, "nextCursor"));
		const cJSON *tools = get(res, "tools");
		assert_int_equal(cJSON_GetArraySize(tools), 2);
		const cJSON *ex = find_tool(tools, "execute");
		const cJSON *info = find_tool(tools, "get_sandbox_info");

		assert_string_equal(get(get(ex, "inputSchema"), "type")->valuestring, "object");
		const cJSON *req = get(get(ex, "inputSchema"), "required");
		assert_string_equal(cJSON_GetArrayItem(req, 0)->valuestring, "code");
		assert_true(strlen(get(ex, "description")->valuestring) > 20);

		cJSON *want = cJSON_Parse("{\"type\":\"object\",\"additionalProperties\":false}");
		assert_true(cJSON_Compare(get(info, "inputSchema"), want, 1));
		cJSON_Delete(want);

		bool modern = v >= 2, annotated = v >= 1;
		assert_int_equal(has(ex, "outputSchema"), modern);
		assert_int_equal(has(info, "outputSchema"), modern);
		assert_int_equal(has(ex, "title"), modern);
		assert_int_equal(has(ex, "annotations"), annotated);
		if (modern) {
			const cJSON *os = get(ex, "outputSchema");
			assert_string_equal(get(os, "type")->valuestring, "object");
			assert_int_equal(cJSON_GetArraySize(get(os, "required")), 11);
		}
		if (annotated) {
			const cJSON *a = get(ex, "annotations");
			assert_true(cJSON_IsFalse(get(a, "readOnlyHint")));
			assert_true(cJSON_IsFalse(get(a, "destructiveHint")));
			assert_true(cJSON_IsFalse(get(a, "idempotentHint")));
			assert_true(cJSON_IsFalse(get(a, "openWorldHint")));
			assert_true(cJSON_IsTrue(get(get(info, "annotations"), "readOnlyHint")));
		}
		cJSON_Delete(r);
	}
}

static void test_tools_list_cursor(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{"
		 "\"cursor\":\"abc\"}}");
	expect_error(f, -32602, 3, ID_NULL, "invalid cursor");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{"
		 "\"cursor\":1}}");
	expect_error(f, -32602, 4, ID_NULL, "params.cursor must be a string");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{}}");
	cJSON_Delete(expect_result(f, 5));
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":[]}");
	expect_error(f, -32602, 6, ID_NULL, NULL);
}

/* ---- resources and prompts: declared, empty ---- */

/* A list method answers {member: []} and nothing else (no nextCursor). */
static void expect_empty_list(struct fixture *f, int id, const char *member)
{
	cJSON *r = expect_result(f, id);
	const cJSON *res = get(r, "result");
	assert_int_equal(cJSON_GetArraySize(res), 1);
	assert_true(cJSON_IsArray(get(res, member)));
	assert_int_equal(cJSON_GetArraySize(get(res, member)), 0);
	cJSON_Delete(r);
}

/* An error reply to integer id `id` with `code`, `message` and data
 * {key: value}. */
static void expect_error_data(struct fixture *f, int id, int code, const char *message,
			      const char *key, const char *value)
{
	cJSON *r = reply(f);
	assert_false(has(r, "result"));
	assert_int_equal(get(r, "id")->valueint, id);
	const cJSON *err = get(r, "error");
	assert_int_equal(get(err, "code")->valueint, code);
	assert_string_equal(get(err, "message")->valuestring, message);
	const cJSON *data = get(err, "data");
	assert_int_equal(cJSON_GetArraySize(data), 1);
	assert_string_equal(get(data, key)->valuestring, value);
	cJSON_Delete(r);
}

static const struct {
	const char *method;
	const char *member;
} empty_lists[] = {
    {"resources/list", "resources"},
    {"resources/templates/list", "resourceTemplates"},
    {"prompts/list", "prompts"},
};

static void test_empty_lists(void **state)
{
	struct fixture *f = *state;
	static const char *const versions[] = {"2024-11-05", "2025-03-26", "2025-06-18",
					       "2025-11-25"};
	for (size_t v = 0; v < 4; v++) {
		new_session(f);
		initialize(f, versions[v]);
		for (int i = 0; i < 3; i++) {
			sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\"}", 10 + i,
			      empty_lists[i].method);
			expect_empty_list(f, 10 + i, empty_lists[i].member);
			sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{}}",
			      20 + i, empty_lists[i].method);
			expect_empty_list(f, 20 + i, empty_lists[i].member);
			/* _meta and unknown params are not errors. */
			sendf(f,
			      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{"
			      "\"_meta\":{\"progressToken\":1},\"x\":true}}",
			      30 + i, empty_lists[i].method);
			expect_empty_list(f, 30 + i, empty_lists[i].member);
		}
	}
}

static void test_empty_lists_cursor(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	for (int i = 0; i < 3; i++) {
		const char *m = empty_lists[i].method;
		sendf(f,
		      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{"
		      "\"cursor\":\"abc\"}}",
		      m);
		expect_error(f, -32602, 1, ID_NULL, "invalid cursor");
		/* Even the empty string: we never minted one. */
		sendf(f,
		      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"%s\",\"params\":{"
		      "\"cursor\":\"\"}}",
		      m);
		expect_error(f, -32602, 2, ID_NULL, "invalid cursor");
		sendf(f,
		      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"%s\",\"params\":{"
		      "\"cursor\":1}}",
		      m);
		expect_error(f, -32602, 3, ID_NULL, "params.cursor must be a string");
		sendf(f,
		      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"%s\",\"params\":{"
		      "\"cursor\":null}}",
		      m);
		expect_error(f, -32602, 4, ID_NULL, "params.cursor must be a string");
		sendf(f,
		      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"%s\",\"params\":{"
		      "\"cursor\":\"a\",\"cursor\":\"b\"}}",
		      m);
		expect_error(f, -32602, 5, ID_NULL, "params.cursor is given more than once");
		sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"%s\",\"params\":[]}", m);
		expect_error(f, -32602, 6, ID_NULL, "params must be an object");
		/* The session is unharmed. */
		sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"%s\"}", m);
		expect_empty_list(f, 7, empty_lists[i].member);
	}
}

static void test_resources_read_not_found(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":\"test://static-text\"}}");
	expect_error_data(f, 1, -32602, "Resource not found", "uri", "test://static-text");
	/* The uri comes back exactly, escapes and all. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":\"file:///tmp/a \\\"b\\\"/\\u00e9\"}}");
	expect_error_data(f, 2, -32602, "Resource not found", "uri",
			  "file:///tmp/a \"b\"/\xc3\xa9");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":\"\"}}");
	expect_error_data(f, 3, -32602, "Resource not found", "uri", "");

	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\"}");
	expect_error(f, -32602, 4, ID_NULL, "resources/read requires params.uri");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":{}}");
	expect_error(f, -32602, 5, ID_NULL, "resources/read requires params.uri");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":42}}");
	expect_error(f, -32602, 6, ID_NULL, "params.uri must be a string");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":null}}");
	expect_error(f, -32602, 7, ID_NULL, "params.uri must be a string");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":\"a\",\"uri\":\"b\"}}");
	expect_error(f, -32602, 8, ID_NULL, "params.uri is given more than once");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\","
		 "\"params\":[\"test://x\"]}");
	expect_error(f, -32602, 9, ID_NULL, "params must be an object");
	/* A uri cJSON would cut at the NUL is refused before dispatch. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":\"test://a\\u0000b\"}}");
	expect_error(f, -32602, 10, ID_NULL, "strings containing \\u0000 are not supported");
}

static void test_resources_read_long_uri(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-06-18");
	/* Far past any echo limit on names in messages: data still holds the
	 * whole uri (it is no larger than the request). */
	size_t n = 100000;
	char *uri = malloc(n + 1);
	assert_non_null(uri);
	memset(uri, 'u', n);
	memcpy(uri, "test://", 7);
	uri[n] = '\0';
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{"
	      "\"uri\":\"%s\"}}",
	      uri);
	expect_error_data(f, 1, -32602, "Resource not found", "uri", uri);
	free(uri);
}

static void test_prompts_get_not_found(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{"
		 "\"name\":\"test_simple_prompt\"}}");
	expect_error_data(f, 1, -32602, "Prompt not found", "name", "test_simple_prompt");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":{"
		 "\"name\":\"test_prompt_with_arguments\",\"arguments\":{\"arg1\":\"a\"}}}");
	expect_error_data(f, 2, -32602, "Prompt not found", "name", "test_prompt_with_arguments");

	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\"}");
	expect_error(f, -32602, 3, ID_NULL, "prompts/get requires params.name");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":{"
		 "\"arguments\":{}}}");
	expect_error(f, -32602, 4, ID_NULL, "prompts/get requires params.name");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{"
		 "\"name\":[\"x\"]}}");
	expect_error(f, -32602, 5, ID_NULL, "params.name must be a string");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/get\",\"params\":[\"x\"]}");
	expect_error(f, -32602, 6, ID_NULL, "params must be an object");

	/* 2025-11-25 omits unreadable ids, but these ids are fine: echoed. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"prompts/get\",\"params\":{"
		 "\"name\":\"p\"}}");
	cJSON *r = reply(f);
	assert_string_equal(get(r, "id")->valuestring, "s");
	assert_string_equal(get(get(get(r, "error"), "data"), "name")->valuestring, "p");
	cJSON_Delete(r);
}

static void test_undeclared_resource_methods(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	/* Subscriptions and completion are not declared: method not found,
	 * even with well-formed params. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\",\"params\":{"
		 "\"uri\":\"test://watched-resource\"}}");
	expect_error(f, -32601, 1, ID_NULL, "method not found: resources/subscribe");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/unsubscribe\",\"params\":{"
		 "\"uri\":\"test://watched-resource\"}}");
	expect_error(f, -32601, 2, ID_NULL, "method not found: resources/unsubscribe");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"completion/complete\",\"params\":{"
		 "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"test_prompt_with_arguments\"},"
		 "\"argument\":{\"name\":\"arg1\",\"value\":\"t\"}}}");
	expect_error(f, -32601, 3, ID_NULL, "method not found: completion/complete");
	/* Near misses of the catalog methods are not them. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/templates\"}");
	expect_error(f, -32601, 4, ID_NULL, "method not found: resources/templates");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"Prompts/list\"}");
	expect_error(f, -32601, 5, ID_NULL, "method not found: Prompts/list");
}

static void test_catalogs_follow_lifecycle(void **state)
{
	struct fixture *f = *state;
	static const char *const requests[] = {
	    "\"method\":\"resources/list\"",
	    "\"method\":\"resources/templates/list\"",
	    "\"method\":\"prompts/list\"",
	    "\"method\":\"resources/read\",\"params\":{\"uri\":\"test://x\"}",
	    "\"method\":\"prompts/get\",\"params\":{\"name\":\"x\"}",
	};
	/* Before initialize: refused like tools/list. */
	for (int i = 0; i < 5; i++) {
		sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":%d,%s}", i + 1, requests[i]);
		expect_error(f, -32600, i + 1, ID_NULL, "session not initialized");
	}
	/* Between the initialize reply and notifications/initialized:
	 * answered, as tools/list is. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
		 "\"protocolVersion\":\"2025-06-18\"}}");
	cJSON_Delete(expect_result(f, 0));
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
	cJSON_Delete(expect_result(f, 2));
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3,%s}", requests[0]);
	expect_empty_list(f, 3, "resources");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,%s}", requests[4]);
	expect_error_data(f, 4, -32602, "Prompt not found", "name", "x");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	no_reply(f);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":5,%s}", requests[2]);
	expect_empty_list(f, 5, "prompts");
	/* As notifications they are never answered. */
	sendf(f, "{\"jsonrpc\":\"2.0\",%s}", requests[0]);
	sendf(f, "{\"jsonrpc\":\"2.0\",%s}", requests[3]);
	no_reply(f);
}

/* ---- tools/call: execute ---- */

static void test_execute_happy_path(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	call_execute(f, 10, "{\"code\":\"print('hi')\"}");
	no_reply(f);
	assert_int_equal(mcp_session_pending(f->s), 1);
	assert_int_equal(f->fb.njobs, 1);
	struct fake_job *j = &f->fb.jobs[0];
	assert_string_equal(j->profile, "python");
	assert_string_equal(j->code, "print('hi')");
	assert_null(j->stdin_data);
	/* Tenant ceilings equal the jailer's: every limit is the default. */
	assert_int_equal(j->limits.wall_ms, 0);
	assert_int_equal(j->limits.memory_bytes, 0);

	complete_job(&f->fb, 0, IPC_ST_OK, 0, "hi\n");
	cJSON *r = expect_result(f, 10);
	const cJSON *res = get(r, "result");
	assert_true(cJSON_IsFalse(get(res, "isError")));
	const cJSON *sc = get(res, "structuredContent");
	assert_string_equal(get(sc, "status")->valuestring, "ok");
	assert_int_equal(get(sc, "exit_code")->valueint, 0);
	assert_string_equal(get(sc, "stdout")->valuestring, "hi\n");
	assert_int_equal(get(sc, "cpu_ms")->valueint, 7);
	assert_string_equal(get(sc, "execution_id")->valuestring, "0000000000000100");
	const cJSON *content = get(res, "content");
	assert_int_equal(cJSON_GetArraySize(content), 1);
	cJSON *text = cJSON_Parse(get(cJSON_GetArrayItem(content, 0), "text")->valuestring);
	assert_true(cJSON_Compare(text, sc, 1));
	cJSON_Delete(text);
	cJSON_Delete(r);
	assert_int_equal(mcp_session_pending(f->s), 0);
}

static void test_execute_failure_is_tool_error(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2024-11-05");
	call_execute(f, 11, "{\"code\":\"raise SystemExit(2)\"}");
	complete_job(&f->fb, 0, IPC_ST_EXIT, 2, "");
	cJSON *r = expect_result(f, 11);
	const cJSON *res = get(r, "result");
	assert_true(cJSON_IsTrue(get(res, "isError")));
	/* 2024-11-05 has no structuredContent; the JSON text carries it. */
	assert_false(has(res, "structuredContent"));
	cJSON *text =
	    cJSON_Parse(get(cJSON_GetArrayItem(get(res, "content"), 0), "text")->valuestring);
	assert_int_equal(get(text, "exit_code")->valueint, 2);
	cJSON_Delete(text);
	cJSON_Delete(r);
}

static void test_execute_arguments_forwarded(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	call_execute(f, 1,
		     "{\"code\":\"console.log(1)\",\"language\":\"javascript\","
		     "\"timeout_s\":2.5,\"stdin\":\"in put\\n\"}");
	call_execute(f, 2, "{\"code\":\"x\",\"timeout_s\":0.0001}");
	call_execute(f, 3, "{\"code\":\"x\",\"timeout_s\":60,\"stdin\":\"\"}");
	no_reply(f);
	assert_int_equal(f->fb.njobs, 3);
	assert_string_equal(f->fb.jobs[0].profile, "javascript");
	assert_int_equal(f->fb.jobs[0].limits.wall_ms, 2500);
	assert_string_equal(f->fb.jobs[0].stdin_data, "in put\n");
	assert_string_equal(f->fb.jobs[1].profile, "python");
	assert_int_equal(f->fb.jobs[1].limits.wall_ms, 1);
	assert_int_equal(f->fb.jobs[2].limits.wall_ms, 60000);
	assert_null(f->fb.jobs[2].stdin_data);
}

static void expect_tool_error(struct fixture *f, int id, const char *message)
{
	cJSON *r = expect_result(f, id);
	const cJSON *res = get(r, "result");
	assert_true(cJSON_IsTrue(get(res, "isError")));
	const cJSON *content = get(res, "content");
	assert_int_equal(cJSON_GetArraySize(content), 1);
	const cJSON *block = cJSON_GetArrayItem(content, 0);
	assert_string_equal(get(block, "type")->valuestring, "text");
	if (message)
		assert_string_equal(get(block, "text")->valuestring, message);
	else
		assert_non_null(strstr(get(block, "text")->valuestring, "NUL"));
	cJSON_Delete(r);
}

static void test_nul_escape_refused(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	/* A NUL in a tool argument is a bad argument: a tool error the model
	 * can act on, and nothing runs. */
	call_execute(f, 3, "{\"code\":\"print(1)\\u0000import os\"}");
	expect_tool_error(f, 3, NULL);
	assert_int_equal(f->fb.njobs, 0);
	/* Elsewhere it is an invalid request. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"logging/setLevel\","
		 "\"params\":{\"level\":\"info\\u0000\"}}");
	expect_error(f, -32602, 4, ID_NULL, NULL);
}

static void test_execute_argument_errors(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *args;
		const char *message;
	} cases[] = {
	    {"{}", "code is required: pass the program source as a string"},
	    {"{\"code\":5}", "code must be a string"},
	    {"{\"code\":null}", "code must be a string"},
	    {"{\"code\":\"\"}", "code must not be empty"},
	    {"{\"code\":\"x\",\"language\":\"ruby\"}",
	     "language must be \"python\" or \"javascript\""},
	    {"{\"code\":\"x\",\"language\":\"Python\"}",
	     "language must be \"python\" or \"javascript\""},
	    {"{\"code\":\"x\",\"language\":1}", "language must be \"python\" or \"javascript\""},
	    {"{\"code\":\"x\",\"timeout_s\":\"10\"}", "timeout_s must be a number of seconds"},
	    {"{\"code\":\"x\",\"timeout_s\":true}", "timeout_s must be a number of seconds"},
	    {"{\"code\":\"x\",\"timeout_s\":0}", "timeout_s must be greater than 0"},
	    {"{\"code\":\"x\",\"timeout_s\":-5}", "timeout_s must be greater than 0"},
	    {"{\"code\":\"x\",\"timeout_s\":60.5}",
	     "timeout_s must be at most 60 (this tenant's limit)"},
	    {"{\"code\":\"x\",\"timeout_s\":1e300}",
	     "timeout_s must be at most 60 (this tenant's limit)"},
	    {"{\"code\":\"x\",\"stdin\":[]}", "stdin must be a string"},
	    {"{\"code\":\"x\",\"files\":[]}",
	     "unknown argument \"files\"; execute accepts code, language, timeout_s and stdin"},
	    {"{\"code\":\"x\",\"Code\":\"y\"}",
	     "unknown argument \"Code\"; execute accepts code, language, timeout_s and stdin"},
	    {"{\"code\":\"x\",\"code\":\"y\"}", "argument \"code\" is given more than once"},
	};
	initialize(f, "2025-11-25");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		call_execute(f, (int)i, cases[i].args);
		expect_tool_error(f, (int)i, cases[i].message);
	}
	/* Absent arguments are {}. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":100,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"execute\"}}");
	expect_tool_error(f, 100, "code is required: pass the program source as a string");
	assert_int_equal(f->fb.njobs, 0);
	assert_int_equal(mcp_session_pending(f->s), 0);
}

static void test_execute_size_limits(void **state)
{
	struct fixture *f = *state;
	size_t n = IPC_MAX_CODE_BYTES + 1;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memset(big, 'a', n);
	big[n] = '\0';
	initialize(f, "2025-11-25");
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
	      "\"name\":\"execute\",\"arguments\":{\"code\":\"%s\"}}}",
	      big);
	expect_tool_error(f, 1, "code is 1048577 bytes; the limit is 1048576 bytes");
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
	      "\"name\":\"execute\",\"arguments\":{\"code\":\"x\",\"stdin\":\"%s\"}}}",
	      big);
	expect_tool_error(f, 2, "stdin is 1048577 bytes; the limit is 1048576 bytes");
	/* Exactly at the limit is fine. */
	big[n - 1] = '\0';
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
	      "\"name\":\"execute\",\"arguments\":{\"code\":\"%s\"}}}",
	      big);
	no_reply(f);
	assert_int_equal(f->fb.njobs, 1);
	assert_int_equal(strlen(f->fb.jobs[0].code), IPC_MAX_CODE_BYTES);
	free(big);
}

static void test_execute_language_not_available(void **state)
{
	struct fixture *f = *state;
	f->tenant.nprofiles = 1; /* python only */
	initialize(f, "2025-11-25");
	call_execute(f, 1, "{\"code\":\"x\",\"language\":\"javascript\"}");
	expect_tool_error(f, 1, "language \"javascript\" is not available here; available: python");
	/* The jailer lacking a profile counts the same. */
	reset_tenant(f);
	f->fb.hello.nprofiles = 1;
	call_execute(f, 2, "{\"code\":\"x\",\"language\":\"javascript\"}");
	expect_tool_error(f, 2, "language \"javascript\" is not available here; available: python");
	f->fb.hello.nprofiles = 0;
	call_execute(f, 3, "{\"code\":\"x\"}");
	expect_tool_error(f, 3, "language \"python\" is not available here; available: none");
	assert_int_equal(f->fb.njobs, 0);
}

static void test_execute_tenant_ceilings(void **state)
{
	struct fixture *f = *state;
	/* Below the jailer's default: the ceiling goes into the request. */
	f->tenant.profiles[0].maximum.wall_ms = 5000;
	f->tenant.profiles[0].maximum.memory_bytes = 128u << 20;
	/* Above the jailer's maximum: the jailer's maximum rules. */
	f->tenant.profiles[0].maximum.pids = 100000;
	initialize(f, "2025-11-25");
	call_execute(f, 1, "{\"code\":\"x\",\"timeout_s\":5.5}");
	expect_tool_error(f, 1, "timeout_s must be at most 5 (this tenant's limit)");
	call_execute(f, 2, "{\"code\":\"x\"}");
	assert_int_equal(f->fb.njobs, 1);
	assert_int_equal(f->fb.jobs[0].limits.wall_ms, 5000);
	assert_int_equal(f->fb.jobs[0].limits.memory_bytes, 128u << 20);
	assert_int_equal(f->fb.jobs[0].limits.cpu_ms, 0);
	assert_int_equal(f->fb.jobs[0].limits.pids, 0);
	f->tenant.profiles[0].maximum.wall_ms = 1500;
	call_execute(f, 3, "{\"code\":\"x\",\"timeout_s\":1.6}");
	expect_tool_error(f, 3, "timeout_s must be at most 1.5 (this tenant's limit)");
	call_execute(f, 4, "{\"code\":\"x\",\"timeout_s\":1.5}");
	assert_int_equal(f->fb.jobs[1].limits.wall_ms, 1500);
}

static void test_execute_concurrency_limit(void **state)
{
	struct fixture *f = *state;
	f->cfg.max_concurrent_jobs = 2;
	new_session(f);
	initialize(f, "2025-11-25");
	call_execute(f, 1, "{\"code\":\"a\"}");
	call_execute(f, 2, "{\"code\":\"b\"}");
	no_reply(f);
	call_execute(f, 3, "{\"code\":\"c\"}");
	expect_tool_error(f, 3, "too many executions running (limit 2); wait for one to finish");
	assert_int_equal(f->fb.njobs, 2);
	complete_job(&f->fb, 0, IPC_ST_OK, 0, "");
	cJSON_Delete(expect_result(f, 1));
	call_execute(f, 4, "{\"code\":\"d\"}");
	no_reply(f);
	assert_int_equal(f->fb.njobs, 3);
}

static void test_execute_start_failure(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	f->fb.fail_start = true;
	call_execute(f, 1, "{\"code\":\"x\"}");
	expect_tool_error(f, 1, "the execution could not be started (internal error); try again");
	assert_int_equal(mcp_session_pending(f->s), 0);
}

static void test_tools_call_protocol_errors(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"nope\",\"arguments\":{}}}");
	expect_error(f, -32602, 1, ID_NULL, "unknown tool: nope");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
		 "\"arguments\":{}}}");
	expect_error(f, -32602, 2, ID_NULL, "tools/call requires params.name");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\"}");
	expect_error(f, -32602, 3, ID_NULL, "tools/call requires params.name");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":7}}");
	expect_error(f, -32602, 4, ID_NULL, "params.name must be a string");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"execute\",\"arguments\":[\"print(1)\"]}}");
	expect_error(f, -32602, 5, ID_NULL, "params.arguments must be an object");
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":[\"execute\"]}");
	expect_error(f, -32602, 6, ID_NULL, "params must be an object");
	assert_int_equal(f->fb.njobs, 0);
}

/* ---- cancellation and in-flight ids ---- */

static void test_cancel_running_call(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	call_execute(f, 5, "{\"code\":\"while True: pass\"}");
	assert_int_equal(mcp_session_pending(f->s), 1);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":5,\"reason\":\"user gave up\"}}");
	no_reply(f);
	assert_true(f->fb.jobs[0].cancelled);
	assert_int_equal(mcp_session_pending(f->s), 0);
	/* The job reports later; nothing is sent for it, ever. */
	complete_job(&f->fb, 0, IPC_ST_CANCELLED, -1, "");
	no_reply(f);
	/* The id is free again. */
	call_execute(f, 5, "{\"code\":\"1\"}");
	no_reply(f);
	assert_int_equal(f->fb.njobs, 2);
}

static void test_cancel_matches_id_type(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":\"5\",\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"execute\",\"arguments\":{\"code\":\"x\"}}}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":5}}");
	assert_false(f->fb.jobs[0].cancelled);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":\"5\"}}");
	assert_true(f->fb.jobs[0].cancelled);
	no_reply(f);
}

static void test_cancel_unknown_ignored(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	call_execute(f, 1, "{\"code\":\"x\"}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":99}}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":null}}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}");
	/* initialize (id 0) was answered long ago: nothing to cancel. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":0}}");
	no_reply(f);
	assert_false(f->fb.jobs[0].cancelled);
	complete_job(&f->fb, 0, IPC_ST_OK, 0, "");
	cJSON_Delete(expect_result(f, 1));
	/* Cancelling a finished request is ignored too. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":1}}");
	no_reply(f);
}

static void test_duplicate_in_flight_id(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	call_execute(f, 8, "{\"code\":\"x\"}");
	call_execute(f, 8, "{\"code\":\"y\"}");
	expect_error(f, -32600, 8, ID_NULL, NULL);
	assert_int_equal(f->fb.njobs, 1);
	complete_job(&f->fb, 0, IPC_ST_OK, 0, "");
	cJSON_Delete(expect_result(f, 8));
	call_execute(f, 8, "{\"code\":\"z\"}");
	no_reply(f);
	assert_int_equal(f->fb.njobs, 2);
}

static void test_free_abandons_running_jobs(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	call_execute(f, 1, "{\"code\":\"x\"}");
	call_execute(f, 2, "{\"code\":\"y\"}");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":2}}");
	mcp_session_free(f->s);
	f->s = NULL;
	assert_true(f->fb.jobs[0].abandoned);
	assert_true(f->fb.jobs[1].abandoned);
	no_reply(f);
	new_session(f);
}

/* ---- batches ---- */

static cJSON *batch_reply(struct fixture *f)
{
	cJSON *r = reply(f);
	assert_true(cJSON_IsArray(r));
	return r;
}

static const cJSON *by_id(const cJSON *arr, int id)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, arr)
	{
		const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
		if (cJSON_IsNumber(mid) && mid->valueint == id)
			return m;
	}
	fail_msg("no reply with id %d", id);
	return NULL;
}

static void test_batch_2025_03_26(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-03-26");
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
		 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"},"
		 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"},"
		 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"},"
		 "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}},"
		 "7]");
	cJSON *r = batch_reply(f);
	assert_int_equal(cJSON_GetArraySize(r), 4);
	assert_true(cJSON_IsObject(get(by_id(r, 1), "result")));
	assert_true(cJSON_IsArray(get(get(by_id(r, 2), "result"), "tools")));
	assert_int_equal(get(get(by_id(r, 3), "error"), "code")->valueint, -32601);
	/* The element that is not an object: -32600 with id null. */
	bool found = false;
	const cJSON *m;
	cJSON_ArrayForEach(m, r)
	{
		if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(m, "id")))
			continue;
		assert_int_equal(get(get(m, "error"), "code")->valueint, -32600);
		found = true;
	}
	assert_true(found);
	cJSON_Delete(r);

	/* Only notifications: no reply at all. */
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/a\"},"
		 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/b\"}]");
	no_reply(f);

	sendf(f, "[]");
	expect_error(f, -32600, -1, ID_NULL, "invalid request: empty batch");
}

static void test_batch_waits_for_tool_calls(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-03-26");
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"execute\",\"arguments\":{\"code\":\"a\"}}},"
		 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
		 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"execute\",\"arguments\":{\"code\":\"b\"}}},"
		 "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"execute\",\"arguments\":{}}}]");
	no_reply(f);
	assert_int_equal(f->fb.njobs, 2);
	complete_job(&f->fb, 1, IPC_ST_OK, 0, "b");
	no_reply(f);
	/* A cancelled element is left out of the array. */
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":1}}");
	no_reply(f);
	complete_job(&f->fb, 0, IPC_ST_CANCELLED, -1, "");
	cJSON *r = batch_reply(f);
	assert_int_equal(cJSON_GetArraySize(r), 3);
	assert_true(cJSON_IsObject(get(by_id(r, 2), "result")));
	/* 2025-03-26 has no structuredContent: the JSON is in the text. */
	const cJSON *res3 = get(by_id(r, 3), "result");
	assert_false(has(res3, "structuredContent"));
	cJSON *sc =
	    cJSON_Parse(get(cJSON_GetArrayItem(get(res3, "content"), 0), "text")->valuestring);
	assert_string_equal(get(sc, "stdout")->valuestring, "b");
	cJSON_Delete(sc);
	assert_true(cJSON_IsTrue(get(get(by_id(r, 4), "result"), "isError")));
	cJSON_Delete(r);
}

static void test_batch_refused_outside_2025_03_26(void **state)
{
	struct fixture *f = *state;
	/* Before initialize. */
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	expect_error(f, -32600, -1, ID_NULL, NULL);
	initialize(f, "2025-06-18");
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	expect_error(f, -32600, -1, ID_NULL, NULL);
	new_session(f);
	initialize(f, "2025-11-25");
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	expect_error(f, -32600, -1, ID_ABSENT, NULL);
	new_session(f);
	initialize(f, "2024-11-05");
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	expect_error(f, -32600, -1, ID_NULL, NULL);
}

static void test_catalogs_in_batch(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-03-26");
	sendf(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"},"
		 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":{"
		 "\"name\":\"n\"}},"
		 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/templates/list\","
		 "\"params\":{\"cursor\":\"c\"}},"
		 "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{"
		 "\"uri\":\"test://u\"}},"
		 "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/subscribe\",\"params\":{"
		 "\"uri\":\"test://u\"}}]");
	cJSON *r = batch_reply(f);
	assert_int_equal(cJSON_GetArraySize(r), 5);
	assert_int_equal(cJSON_GetArraySize(get(get(by_id(r, 1), "result"), "resources")), 0);
	const cJSON *e2 = get(by_id(r, 2), "error");
	assert_int_equal(get(e2, "code")->valueint, -32602);
	assert_string_equal(get(get(e2, "data"), "name")->valuestring, "n");
	assert_string_equal(get(get(by_id(r, 3), "error"), "message")->valuestring,
			    "invalid cursor");
	const cJSON *e4 = get(by_id(r, 4), "error");
	assert_string_equal(get(e4, "message")->valuestring, "Resource not found");
	assert_string_equal(get(get(e4, "data"), "uri")->valuestring, "test://u");
	assert_int_equal(get(get(by_id(r, 5), "error"), "code")->valueint, -32601);
	cJSON_Delete(r);
}

/* ---- logging/setLevel ---- */

static void test_set_level(void **state)
{
	struct fixture *f = *state;
	static const char *const levels[] = {"debug", "info",	  "notice", "warning",
					     "error", "critical", "alert",  "emergency"};
	initialize(f, "2025-11-25");
	for (int i = 0; i < 8; i++) {
		sendf(f,
		      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"logging/setLevel\","
		      "\"params\":{\"level\":\"%s\"}}",
		      i, levels[i]);
		cJSON *r = expect_result(f, i);
		assert_int_equal(cJSON_GetArraySize(get(r, "result")), 0);
		cJSON_Delete(r);
	}
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"logging/setLevel\","
		 "\"params\":{\"level\":\"verbose\"}}");
	expect_error(f, -32602, 20, ID_NULL, NULL);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"logging/setLevel\",\"params\":{}}");
	expect_error(f, -32602, 21, ID_NULL, NULL);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"logging/setLevel\","
		 "\"params\":{\"level\":3}}");
	expect_error(f, -32602, 22, ID_NULL, NULL);
}

/* ---- get_sandbox_info ---- */

static void call_info(struct fixture *f, int id)
{
	sendf(f,
	      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
	      "\"name\":\"get_sandbox_info\",\"arguments\":{}}}",
	      id);
}

static void test_sandbox_info_probes_once(void **state)
{
	struct fixture *f = *state;
	f->tenant.profiles[0].maximum.wall_ms = 30000;
	initialize(f, "2025-11-25");
	call_info(f, 1);
	no_reply(f);
	assert_int_equal(f->fb.njobs, 2);
	assert_string_equal(f->fb.jobs[0].profile, "python");
	assert_string_equal(f->fb.jobs[0].code, "import sys;print(sys.version.split()[0])");
	assert_string_equal(f->fb.jobs[1].profile, "javascript");
	assert_string_equal(f->fb.jobs[1].code, "console.log(process.versions.node)");
	/* A second caller waits on the same probes. */
	call_info(f, 2);
	no_reply(f);
	assert_int_equal(f->fb.njobs, 2);

	complete_job(&f->fb, 0, IPC_ST_OK, 0, "3.11.2\n");
	no_reply(f);
	complete_job(&f->fb, 1, IPC_ST_EXIT, 1, "");
	assert_int_equal(f->nsent - f->taken, 2);
	for (int i = 0; i < 2; i++) {
		cJSON *r = cJSON_Parse(f->sent[f->taken++]);
		const cJSON *res = get(r, "result");
		assert_true(cJSON_IsFalse(get(res, "isError")));
		const cJSON *sc = get(res, "structuredContent");
		const cJSON *langs = get(sc, "languages");
		assert_int_equal(cJSON_GetArraySize(langs), 2);
		const cJSON *py = cJSON_GetArrayItem(langs, 0);
		assert_string_equal(get(py, "language")->valuestring, "python");
		assert_string_equal(get(py, "profile")->valuestring, "python");
		assert_string_equal(get(py, "interpreter")->valuestring, "/usr/bin/python3");
		assert_string_equal(get(py, "version")->valuestring, "3.11.2");
		/* A failed probe reads "unknown". */
		assert_string_equal(get(cJSON_GetArrayItem(langs, 1), "version")->valuestring,
				    "unknown");
		const cJSON *pl = get(get(sc, "limits"), "python");
		assert_int_equal(get(get(pl, "default"), "wall_ms")->valueint, 10000);
		assert_int_equal(get(get(pl, "maximum"), "wall_ms")->valueint, 30000);
		assert_int_equal(get(get(pl, "maximum"), "pids")->valueint, 256);
		assert_int_equal(
		    get(get(get(get(sc, "limits"), "javascript"), "maximum"), "wall_ms")->valueint,
		    60000);
		assert_true(cJSON_IsFalse(get(sc, "network")));
		assert_string_equal(get(sc, "tenant")->valuestring, "local");
		cJSON *text = cJSON_Parse(
		    get(cJSON_GetArrayItem(get(res, "content"), 0), "text")->valuestring);
		assert_true(cJSON_Compare(text, sc, 1));
		cJSON_Delete(text);
		cJSON_Delete(r);
	}

	/* Cached: a new session gets it at once, with no new probe. */
	new_session(f);
	initialize(f, "2025-11-25");
	call_info(f, 3);
	cJSON *r = expect_result(f, 3);
	assert_int_equal(f->fb.njobs, 2);
	cJSON_Delete(r);
}

static void test_sandbox_info_tenant_view(void **state)
{
	struct fixture *f = *state;
	f->tenant.nprofiles = 1;
	f->tenant.network = true;
	f->fb.hello.profiles[0].network = 1;
	strcpy(f->tenant.name, "acme");
	initialize(f, "2024-11-05");
	call_info(f, 1);
	assert_int_equal(f->fb.njobs, 1); /* javascript is not this tenant's */
	complete_job(&f->fb, 0, IPC_ST_OK, 0, "3.12.1");
	cJSON *r = expect_result(f, 1);
	const cJSON *res = get(r, "result");
	assert_false(has(res, "structuredContent"));
	cJSON *sc =
	    cJSON_Parse(get(cJSON_GetArrayItem(get(res, "content"), 0), "text")->valuestring);
	assert_int_equal(cJSON_GetArraySize(get(sc, "languages")), 1);
	assert_false(has(get(sc, "limits"), "javascript"));
	assert_true(cJSON_IsTrue(get(sc, "network")));
	assert_string_equal(get(sc, "tenant")->valuestring, "acme");
	cJSON_Delete(sc);
	cJSON_Delete(r);
}

static void test_sandbox_info_bad_probe_output(void **state)
{
	struct fixture *f = *state;
	f->tenant.nprofiles = 1;
	initialize(f, "2025-11-25");
	call_info(f, 1);
	complete_job(&f->fb, 0, IPC_ST_OK, 0, "3.11 <script>\n");
	cJSON *r = expect_result(f, 1);
	const cJSON *langs = get(get(get(r, "result"), "structuredContent"), "languages");
	assert_string_equal(get(cJSON_GetArrayItem(langs, 0), "version")->valuestring, "unknown");
	cJSON_Delete(r);
}

static void test_sandbox_info_cancel_and_free_while_waiting(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	call_info(f, 1);
	call_info(f, 2);
	sendf(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		 "\"requestId\":1}}");
	assert_int_equal(mcp_session_pending(f->s), 1);
	mcp_session_free(f->s);
	f->s = NULL;
	/* Probes are shared and not abandoned; they finish into the cache. */
	assert_false(f->fb.jobs[0].abandoned);
	complete_job(&f->fb, 0, IPC_ST_OK, 0, "3.11.2");
	complete_job(&f->fb, 1, IPC_ST_OK, 0, "20.11.0");
	no_reply(f);
	new_session(f);
	initialize(f, "2025-11-25");
	call_info(f, 3);
	cJSON *r = expect_result(f, 3);
	const cJSON *langs = get(get(get(r, "result"), "structuredContent"), "languages");
	assert_string_equal(get(cJSON_GetArrayItem(langs, 1), "version")->valuestring, "20.11.0");
	cJSON_Delete(r);
}

static void test_sandbox_info_rejects_arguments(void **state)
{
	struct fixture *f = *state;
	initialize(f, "2025-11-25");
	sendf(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"get_sandbox_info\",\"arguments\":{\"verbose\":true}}}");
	expect_tool_error(f, 1, "get_sandbox_info takes no arguments");
	assert_int_equal(f->fb.njobs, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_initialize_each_version),
	    T(test_initialize_unsupported_version),
	    T(test_initialize_bad_params),
	    T(test_double_initialize),
	    T(test_requests_before_initialize),
	    T(test_ping),
	    T(test_parse_error_id_by_version),
	    T(test_invalid_utf8_is_parse_error),
	    T(test_invalid_requests),
	    T(test_unknown_method),
	    T(test_client_responses_ignored),
	    T(test_nul_escape_refused),
	    T(test_oversized_message),
	    T(test_tools_list_per_version),
	    T(test_tools_list_cursor),
	    T(test_empty_lists),
	    T(test_empty_lists_cursor),
	    T(test_resources_read_not_found),
	    T(test_resources_read_long_uri),
	    T(test_prompts_get_not_found),
	    T(test_undeclared_resource_methods),
	    T(test_catalogs_follow_lifecycle),
	    T(test_catalogs_in_batch),
	    T(test_execute_happy_path),
	    T(test_execute_failure_is_tool_error),
	    T(test_execute_arguments_forwarded),
	    T(test_execute_argument_errors),
	    T(test_execute_size_limits),
	    T(test_execute_language_not_available),
	    T(test_execute_tenant_ceilings),
	    T(test_execute_concurrency_limit),
	    T(test_execute_start_failure),
	    T(test_tools_call_protocol_errors),
	    T(test_cancel_running_call),
	    T(test_cancel_matches_id_type),
	    T(test_cancel_unknown_ignored),
	    T(test_duplicate_in_flight_id),
	    T(test_free_abandons_running_jobs),
	    T(test_batch_2025_03_26),
	    T(test_batch_waits_for_tool_calls),
	    T(test_batch_refused_outside_2025_03_26),
	    T(test_set_level),
	    T(test_sandbox_info_probes_once),
	    T(test_sandbox_info_tenant_view),
	    T(test_sandbox_info_bad_probe_output),
	    T(test_sandbox_info_cancel_and_free_while_waiting),
	    T(test_sandbox_info_rejects_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
