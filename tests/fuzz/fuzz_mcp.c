/* libFuzzer target for JSON-RPC framing and MCP request handling: the
 * bytes become messages handed to one MCP session (mcp_session_handle, as
 * the stdio transport does with each line), over the fake backend of
 * fuzz_backend.h, so tools/call execute and get_sandbox_info run to their
 * replies.
 *
 * Input: byte 0 sets the session up, the rest is split at '\n' into
 * messages (single messages and 2025-03-26 batches alike); a line of the
 * one byte 0xff stands for a line longer than MCP_MAX_MESSAGE_BYTES, which
 * the stdio transport discards and answers with
 * mcp_session_reject_oversized.  (There is no event loop here: progress
 * notifications are the http target's.)
 *   bits 0-2  (value % 5) 0: the session starts new; 1-4: the harness first
 *             initializes it with 2024-11-05, 2025-03-26, 2025-06-18 or
 *             2025-11-25 and sends notifications/initialized
 *   bit 3     complete due jobs after every message (else only at the end)
 *   bit 4     at the end complete due jobs, then free the session (else
 *             the free abandons every running job)
 *   bit 5     max_concurrent_jobs 1 (else 4)
 *   bit 6     a narrower tenant: python only, wall time at most 5 s
 *   bit 7     then bytes 1-2 (little endian) are k: the k-th cJSON
 *             allocation after the harness's own initialize fails (every
 *             "out of memory" branch of the MCP layer is reachable), and the
 *             messages start at byte 3
 *
 * Properties checked, beyond ASan/UBSan and leaks:
 *  - every message sent is one line of strict JSON (the gateway's own
 *    reader: valid UTF-8, RFC 8259, then cJSON), at most
 *    MCP_MAX_MESSAGE_BYTES, with no NUL inside;
 *  - a final reply is a JSON-RPC response (or a non-empty array of them):
 *    "jsonrpc":"2.0", exactly one of result (an object) and error (integer
 *    code, string message), an id that is absent, null, a string or an
 *    integer; a related message is notifications/progress; "none" carries
 *    no text;
 *  - the backend gets only requests the jailer would accept (fuzz_backend.c);
 *  - once no job is running, no request is left waiting for a reply;
 *  - with an allocation failing, all of the above still holds (a reply may
 *    be missing, never malformed) and nothing leaks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "exec_backend.h"
#include "fuzz_backend.h"
#include "json_check.h"
#include "jsonrpc.h"
#include "mcp.h"
#include "mcp_version.h"
#include "tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *json, size_t len)
{
	fprintf(stderr, "fuzz_mcp: %s\n", what);
	if (json)
		fprintf(stderr, "message: %.*s\n", (int)(len > 2000 ? 2000 : len), json);
	abort();
}

static bool is_version(const cJSON *v)
{
	return cJSON_IsString(v) && strcmp(v->valuestring, "2.0") == 0;
}

static void check_response(const cJSON *r, const char *json, size_t len)
{
	const cJSON *v, *id, *result, *error;

	if (!cJSON_IsObject(r))
		fail("a reply element is not an object", json, len);
	if (json_member(r, "jsonrpc", &v) != 0 || !is_version(v))
		fail("a reply lacks \"jsonrpc\":\"2.0\"", json, len);
	if (json_member(r, "id", &id) == -EEXIST)
		fail("a reply has two ids", json, len);
	if (id && !cJSON_IsNull(id) && !jsonrpc_id_valid(id))
		fail("a reply carries an id a request may not have", json, len);
	int has_result = json_member(r, "result", &result) == 0;
	int has_error = json_member(r, "error", &error) == 0;
	if (has_result == has_error)
		fail("a reply needs exactly one of result and error", json, len);
	if (has_result && !cJSON_IsObject(result))
		fail("a result is not an object", json, len);
	if (has_error) {
		const cJSON *code, *msg;
		if (!cJSON_IsObject(error) || json_member(error, "code", &code) != 0 ||
		    json_member(error, "message", &msg) != 0 || !cJSON_IsNumber(code) ||
		    code->valuedouble != (double)code->valueint || !cJSON_IsString(msg))
			fail("an error lacks an integer code or a string message", json, len);
	}
}

static void check_progress(const cJSON *n, const char *json, size_t len)
{
	const cJSON *v, *method, *params, *token, *progress;

	if (!cJSON_IsObject(n) || json_member(n, "jsonrpc", &v) != 0 || !is_version(v) ||
	    json_member(n, "method", &method) != 0 || !cJSON_IsString(method) ||
	    strcmp(method->valuestring, "notifications/progress") != 0 ||
	    json_member(n, "params", &params) != 0 || !cJSON_IsObject(params) ||
	    json_member(params, "progressToken", &token) != 0 || !jsonrpc_id_valid(token) ||
	    json_member(params, "progress", &progress) != 0 || !cJSON_IsNumber(progress))
		fail("a related message is not a progress notification", json, len);
	if (json_member(n, "id", &v) != -ENOENT)
		fail("a notification carries an id", json, len);
}

/* cJSON allocations fail when the countdown reaches zero (0: never); the
 * harness's own checks allocate with injection off. */
static unsigned long alloc_countdown;
static bool inject;

static void *cjson_malloc(size_t n)
{
	if (inject && alloc_countdown && --alloc_countdown == 0)
		return NULL;
	return malloc(n);
}

static unsigned finals; /* final replies sent so far */
static bool verbose;	/* FUZZ_VERBOSE set: print every message sent */

static void on_send(const char *json, size_t len, enum mcp_send_kind kind, void *ctx, void *arg)
{
	struct jsonrpc_input in;
	const char *why;
	bool was = inject;

	(void)arg;
	inject = false;
	if (ctx)
		fail("mcp_session_handle replies carry a context", NULL, 0);
	if (kind == MCP_SEND_NONE) {
		if (verbose)
			fprintf(stderr, "<- (no reply)\n");
		if (json || len)
			fail("\"no reply\" carries text", NULL, 0);
		inject = was;
		return;
	}
	if (!json)
		fail("a reply without text", NULL, 0);
	if (verbose)
		fprintf(stderr, "%s %.*s\n", kind == MCP_SEND_FINAL ? "<-" : "<~", (int)len, json);
	if (len > MCP_MAX_MESSAGE_BYTES)
		fail("a reply is larger than MCP_MAX_MESSAGE_BYTES", json, 200);
	if (strnlen(json, len + 1) != len)
		fail("a reply's length is wrong or it holds a NUL", json, len);
	if (memchr(json, '\n', len))
		fail("a reply holds a newline (stdio frames by line)", json, len);
	/* The gateway's own reader: valid UTF-8, strict JSON, then cJSON. */
	if (jsonrpc_parse(json, len, &in, &why) != 0)
		fail(why ? why : "a reply is not strict JSON", json, len);
	cJSON *root = in.root;
	if (kind == MCP_SEND_RELATED) {
		check_progress(root, json, len);
		cJSON_Delete(root);
		inject = was;
		return;
	}
	finals++;
	if (cJSON_IsArray(root)) {
		if (!root->child)
			fail("an empty batch reply", json, len);
		for (const cJSON *it = root->child; it; it = it->next)
			check_response(it, json, len);
	} else {
		check_response(root, json, len);
	}
	cJSON_Delete(root);
	inject = was;
}

/* The harness's own initialize: answered at once, with one reply. */
static void initialize(struct mcp_session *s, enum mcp_version v)
{
	char msg[256];
	unsigned before = finals;
	int n = snprintf(msg, sizeof(msg),
			 "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
			 "\"protocolVersion\":\"%s\",\"capabilities\":{},"
			 "\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}",
			 mcp_version_string(v));
	mcp_session_handle(s, msg, (size_t)n);
	static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
	mcp_session_handle(s, done, sizeof(done) - 1);
	if (finals != before + 1 || mcp_session_version(s) != (int)v)
		fail("the harness's initialize was not answered with that version", NULL, 0);
}

static void settle(struct fuzz_backend *fb, struct mcp_session *s)
{
	fuzz_backend_run(fb);
	if (fuzz_backend_live(fb) == 0 && mcp_session_pending(s) != 0)
		fail("no job runs, yet a request still waits for its reply", NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_backend fb;
	static bool hooked;
	struct tenant_limits tenant;

	if (size < 1)
		return 0;
	uint8_t flags = data[0];
	const char *p = (const char *)data + 1;
	const char *end = (const char *)data + size;
	alloc_countdown = 0;
	if (flags & 0x80) {
		if (size < 3)
			return 0;
		alloc_countdown = (unsigned long)data[1] | (unsigned long)data[2] << 8;
		p += 2;
	}
	if (!hooked) {
		cJSON_Hooks hooks = {.malloc_fn = cjson_malloc, .free_fn = free};
		cJSON_InitHooks(&hooks);
		hooked = true;
	}

	verbose = getenv("FUZZ_VERBOSE") != NULL;
	fuzz_backend_init(&fb);
	tenant_limits_from_profiles(&tenant, "local", &fb.hello);
	if (flags & 0x40) {
		tenant.nprofiles = 1; /* python only */
		tenant.profiles[0].maximum.wall_ms = 5000;
		tenant.network = false;
	}
	struct mcp_config cfg = {
	    .server_name = "cellgate",
	    .server_version = "0.0.0-fuzz",
	    .max_concurrent_jobs = (flags & 0x20) ? 1 : 4,
	    .tenant = &tenant,
	};
	struct mcp_session *s = mcp_session_new(&cfg, &fb.b, on_send, NULL);
	if (!s)
		fail("mcp_session_new", NULL, 0);
	unsigned v = (flags & 7u) % 5u;
	if (v)
		initialize(s, (enum mcp_version)v);

	inject = true;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (len == 1 && (uint8_t)p[0] == 0xff)
			mcp_session_reject_oversized(s);
		else
			mcp_session_handle(s, p, len);
		if (flags & 0x08)
			settle(&fb, s);
		p += len + (nl ? 1 : 0);
	}
	if (flags & 0x10)
		settle(&fb, s);
	inject = false;
	mcp_session_free(s);
	/* Probes of get_sandbox_info outlive sessions; finish them, then
	 * nothing may be left running (every job completed or abandoned). */
	fuzz_backend_run(&fb);
	if (fuzz_backend_live(&fb) != 0)
		fail("a job was neither completed nor abandoned", NULL, 0);
	tool_sandbox_info_forget(&fb.b);
	return 0;
}
