/* render_outcome: CallToolResult for every status, the text block mirrors
 * structuredContent exactly, program output is repaired UTF-8, the schema
 * matches what is rendered. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ipc.h"
#include "render.h"

static struct job_outcome base_outcome(uint32_t status)
{
	struct job_outcome o;
	memset(&o, 0, sizeof(o));
	o.job_id = 0x1a2b3c;
	o.result.status = status;
	o.result.exit_code = -1;
	o.result.wall_ms = 120;
	o.result.cpu_user_ms = 30;
	o.result.cpu_sys_ms = 12;
	o.result.memory_peak_bytes = 10485760;
	o.limits.wall_ms = 10000;
	o.limits.cpu_ms = 20000;
	o.limits.memory_bytes = 256u << 20;
	o.limits.output_bytes = 1u << 20;
	o.stdout_data = "hello\n";
	o.stdout_len = 6;
	o.stderr_data = "";
	o.stderr_len = 0;
	return o;
}

/* Render, serialize, parse back: what a client would see. */
static cJSON *rendered(const struct job_outcome *o, enum mcp_version v)
{
	cJSON *r = render_outcome(o, v);
	assert_non_null(r);
	char *text = cJSON_PrintUnformatted(r);
	assert_non_null(text);
	assert_null(strchr(text, '\n'));
	cJSON_Delete(r);
	cJSON *back = cJSON_Parse(text);
	assert_non_null(back);
	cJSON_free(text);
	return back;
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!it)
		fail_msg("missing member %s", key);
	return it;
}

static const cJSON *sc_of(const cJSON *result)
{
	return get(result, "structuredContent");
}

static const char *text_block(const cJSON *result, int i)
{
	const cJSON *block = cJSON_GetArrayItem(get(result, "content"), i);
	assert_non_null(block);
	assert_string_equal(get(block, "type")->valuestring, "text");
	return get(block, "text")->valuestring;
}

/* The first text block is exactly the structuredContent. */
static void assert_text_mirrors(const cJSON *result)
{
	cJSON *parsed = cJSON_Parse(text_block(result, 0));
	assert_non_null(parsed);
	assert_true(cJSON_Compare(parsed, sc_of(result), 1));
	cJSON_Delete(parsed);
}

static void test_ok_outcome(void **state)
{
	(void)state;
	struct job_outcome o = base_outcome(IPC_ST_OK);
	o.result.exit_code = 0;
	cJSON *r = rendered(&o, MCP_2025_11_25);
	const cJSON *sc = sc_of(r);

	assert_true(cJSON_IsFalse(get(r, "isError")));
	assert_int_equal(cJSON_GetArraySize(get(r, "content")), 1);
	assert_string_equal(get(sc, "status")->valuestring, "ok");
	assert_true(cJSON_IsNumber(get(sc, "exit_code")));
	assert_int_equal(get(sc, "exit_code")->valueint, 0);
	assert_true(cJSON_IsNull(get(sc, "signal")));
	assert_string_equal(get(sc, "stdout")->valuestring, "hello\n");
	assert_string_equal(get(sc, "stderr")->valuestring, "");
	assert_true(cJSON_IsFalse(get(sc, "stdout_truncated")));
	assert_true(cJSON_IsFalse(get(sc, "stderr_truncated")));
	assert_int_equal(get(sc, "wall_ms")->valueint, 120);
	assert_int_equal(get(sc, "cpu_ms")->valueint, 42);
	assert_true(get(sc, "memory_peak_bytes")->valuedouble == 10485760.0);
	assert_string_equal(get(sc, "execution_id")->valuestring, "00000000001a2b3c");
	assert_int_equal(cJSON_GetArraySize(sc), 11);
	assert_text_mirrors(r);
	cJSON_Delete(r);
}

static void test_execution_id_full_width(void **state)
{
	(void)state;
	struct job_outcome o = base_outcome(IPC_ST_OK);
	o.result.exit_code = 0;
	o.job_id = UINT64_C(0xFEDCBA9876543210);
	cJSON *r = rendered(&o, MCP_2025_06_18);
	assert_string_equal(get(sc_of(r), "execution_id")->valuestring, "fedcba9876543210");
	cJSON_Delete(r);
}

static void test_exit_outcome(void **state)
{
	(void)state;
	struct job_outcome o = base_outcome(IPC_ST_EXIT);
	o.result.exit_code = 3;
	o.stderr_data = "Traceback\n";
	o.stderr_len = 10;
	cJSON *r = rendered(&o, MCP_2025_11_25);

	assert_true(cJSON_IsTrue(get(r, "isError")));
	assert_string_equal(get(sc_of(r), "status")->valuestring, "exit");
	assert_int_equal(get(sc_of(r), "exit_code")->valueint, 3);
	assert_true(cJSON_IsNull(get(sc_of(r), "signal")));
	assert_int_equal(cJSON_GetArraySize(get(r, "content")), 2);
	assert_string_equal(text_block(r, 1), "The program exited with code 3.");
	assert_text_mirrors(r);
	cJSON_Delete(r);
}

static void test_signal_outcome_has_null_exit_code(void **state)
{
	(void)state;
	struct job_outcome o = base_outcome(IPC_ST_SIGNAL);
	o.result.signal = SIGSEGV;
	cJSON *r = rendered(&o, MCP_2025_11_25);

	assert_true(cJSON_IsTrue(get(r, "isError")));
	assert_string_equal(get(sc_of(r), "status")->valuestring, "signal");
	assert_true(cJSON_IsNull(get(sc_of(r), "exit_code")));
	assert_int_equal(get(sc_of(r), "signal")->valueint, SIGSEGV);
	assert_string_equal(text_block(r, 1), "The program was killed by signal 11 (SIGSEGV).");
	cJSON_Delete(r);
}

struct status_case {
	uint32_t status;
	const char *name;
	int32_t signal;
	const char *note;
};

static void test_every_failure_status(void **state)
{
	(void)state;
	static const struct status_case cases[] = {
	    {IPC_ST_TIMEOUT, "timeout", SIGKILL,
	     "Execution stopped: wall-clock limit of 10000 ms reached."},
	    {IPC_ST_MEMORY, "memory", SIGKILL,
	     "Execution stopped: memory limit of 256 MiB reached."},
	    {IPC_ST_OUTPUT_LIMIT, "output_limit", SIGKILL,
	     "Execution stopped: output passed the limit of 1 MiB per stream; the rest was "
	     "discarded."},
	    {IPC_ST_SECCOMP, "seccomp", SIGSYS,
	     "Execution stopped: the program made a system call the sandbox does not allow."},
	    {IPC_ST_CANCELLED, "cancelled", SIGKILL, "Execution was cancelled before it finished."},
	    {IPC_ST_INTERNAL, "internal", 0,
	     "The sandbox failed and the code may not have run: cgroup setup failed"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct job_outcome o = base_outcome(cases[i].status);
		o.result.signal = cases[i].signal;
		strcpy(o.result.message, "cgroup setup failed");
		cJSON *r = rendered(&o, MCP_2025_11_25);
		const cJSON *sc = sc_of(r);
		assert_true(cJSON_IsTrue(get(r, "isError")));
		assert_string_equal(get(sc, "status")->valuestring, cases[i].name);
		assert_true(cJSON_IsNull(get(sc, "exit_code")));
		if (cases[i].signal)
			assert_int_equal(get(sc, "signal")->valueint, cases[i].signal);
		else
			assert_true(cJSON_IsNull(get(sc, "signal")));
		assert_int_equal(cJSON_GetArraySize(get(r, "content")), 2);
		assert_string_equal(text_block(r, 1), cases[i].note);
		assert_text_mirrors(r);
		cJSON_Delete(r);
	}
}

static void test_cpu_timeout_note(void **state)
{
	(void)state;
	struct job_outcome o = base_outcome(IPC_ST_TIMEOUT);
	o.limits.cpu_ms = 40;
	cJSON *r = rendered(&o, MCP_2025_11_25);
	assert_string_equal(text_block(r, 1),
			    "Execution stopped: CPU time limit of 40 ms reached.");
	cJSON_Delete(r);
}

static void test_truncation_flags(void **state)
{
	(void)state;
	struct job_outcome o = base_outcome(IPC_ST_OUTPUT_LIMIT);
	o.stdout_truncated = true;
	cJSON *r = rendered(&o, MCP_2025_11_25);
	assert_true(cJSON_IsTrue(get(sc_of(r), "stdout_truncated")));
	assert_true(cJSON_IsFalse(get(sc_of(r), "stderr_truncated")));
	cJSON_Delete(r);

	o.stdout_truncated = false;
	o.stderr_truncated = true;
	r = rendered(&o, MCP_2025_11_25);
	assert_true(cJSON_IsFalse(get(sc_of(r), "stdout_truncated")));
	assert_true(cJSON_IsTrue(get(sc_of(r), "stderr_truncated")));
	cJSON_Delete(r);
}

static void test_rejected_outcome(void **state)
{
	(void)state;
	struct job_outcome o;
	memset(&o, 0, sizeof(o));
	o.job_id = 7;
	o.rejected = true;
	o.reject_reason = IPC_ERR_LIMIT;
	o.result.status = IPC_ST_INTERNAL;
	strcpy(o.result.message, "wall_ms above the profile maximum");
	cJSON *r = rendered(&o, MCP_2025_11_25);
	const cJSON *sc = sc_of(r);

	assert_true(cJSON_IsTrue(get(r, "isError")));
	assert_string_equal(get(sc, "status")->valuestring, "internal");
	assert_true(cJSON_IsNull(get(sc, "exit_code")));
	assert_true(cJSON_IsNull(get(sc, "signal")));
	assert_string_equal(get(sc, "stdout")->valuestring, "");
	assert_string_equal(get(sc, "execution_id")->valuestring, "0000000000000007");
	assert_string_equal(text_block(r, 1),
			    "The sandbox refused the job: wall_ms above the profile maximum");
	cJSON_Delete(r);

	/* Jailer unreachable: reason 0. */
	o.reject_reason = 0;
	strcpy(o.result.message, "connection to the jailer lost");
	r = rendered(&o, MCP_2025_11_25);
	assert_string_equal(text_block(r, 1),
			    "The sandbox could not be reached: connection to the jailer lost");
	cJSON_Delete(r);

	/* No message: the reason's name stands in. */
	o.reject_reason = IPC_ERR_BUSY;
	o.result.message[0] = '\0';
	r = rendered(&o, MCP_2025_11_25);
	assert_string_equal(text_block(r, 1), "The sandbox refused the job: busy");
	cJSON_Delete(r);
}

static void test_output_sanitized(void **state)
{
	(void)state;
	static const char out[] = "ok \xFF bad \xC0\x80 cut \xE2\x82";
	static const char err[] = "nul\0inside \"quoted\" \x01\x1f\ttab";
	struct job_outcome o = base_outcome(IPC_ST_OK);
	o.result.exit_code = 0;
	o.stdout_data = out;
	o.stdout_len = sizeof(out) - 1;
	o.stderr_data = err;
	o.stderr_len = sizeof(err) - 1;

	cJSON *r = render_outcome(&o, MCP_2025_11_25);
	char *text = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	/* NUL and control characters travel as escapes. */
	assert_non_null(strstr(text, "nul\\u0000inside \\\"quoted\\\" \\u0001\\u001f\\ttab"));
	cJSON *back = cJSON_Parse(text);
	cJSON_free(text);
	assert_non_null(back);
	assert_string_equal(get(sc_of(back), "stdout")->valuestring,
			    "ok \xEF\xBF\xBD bad \xEF\xBF\xBD\xEF\xBF\xBD cut \xEF\xBF\xBD");
	assert_text_mirrors(back);
	cJSON_Delete(back);
}

static void test_old_versions_get_text_only(void **state)
{
	(void)state;
	struct job_outcome o = base_outcome(IPC_ST_EXIT);
	o.result.exit_code = 1;
	cJSON *modern = rendered(&o, MCP_2025_06_18);
	for (enum mcp_version v = MCP_2024_11_05; v <= MCP_2025_03_26; v++) {
		cJSON *r = rendered(&o, v);
		assert_null(cJSON_GetObjectItemCaseSensitive(r, "structuredContent"));
		assert_true(cJSON_IsTrue(get(r, "isError")));
		/* Same JSON text as the structured version carries. */
		cJSON *parsed = cJSON_Parse(text_block(r, 0));
		assert_true(cJSON_Compare(parsed, sc_of(modern), 1));
		cJSON_Delete(parsed);
		assert_string_equal(text_block(r, 1), "The program exited with code 1.");
		cJSON_Delete(r);
	}
	cJSON_Delete(modern);
}

static void test_schema_matches_rendering(void **state)
{
	(void)state;
	cJSON *schema = cJSON_Parse(render_outcome_schema);
	assert_non_null(schema);
	const cJSON *props = get(schema, "properties");
	const cJSON *required = get(schema, "required");
	struct job_outcome o = base_outcome(IPC_ST_OK);
	o.result.exit_code = 0;
	cJSON *r = rendered(&o, MCP_2025_11_25);
	const cJSON *sc = sc_of(r);

	assert_int_equal(cJSON_GetArraySize(props), cJSON_GetArraySize(sc));
	assert_int_equal(cJSON_GetArraySize(required), cJSON_GetArraySize(sc));
	const cJSON *field;
	cJSON_ArrayForEach(field, sc)
	{
		assert_non_null(cJSON_GetObjectItemCaseSensitive(props, field->string));
		bool listed = false;
		const cJSON *req;
		cJSON_ArrayForEach(req, required)
		{
			listed |= strcmp(req->valuestring, field->string) == 0;
		}
		assert_true(listed);
	}
	/* Every status name the renderer can produce is in the enum. */
	const cJSON *status_enum = get(get(props, "status"), "enum");
	for (uint32_t st = 0; st <= IPC_ST_MAX; st++) {
		bool found = false;
		const cJSON *e;
		cJSON_ArrayForEach(e, status_enum)
		{
			found |= strcmp(e->valuestring, ipc_status_name(st)) == 0;
		}
		assert_true(found);
	}
	assert_false(cJSON_IsTrue(get(schema, "additionalProperties")));
	cJSON_Delete(r);
	cJSON_Delete(schema);
}

static void test_tool_error(void **state)
{
	(void)state;
	cJSON *r = render_tool_error("code must be a string (got %d)", 5);
	assert_non_null(r);
	assert_true(cJSON_IsTrue(get(r, "isError")));
	assert_int_equal(cJSON_GetArraySize(get(r, "content")), 1);
	assert_string_equal(text_block(r, 0), "code must be a string (got 5)");
	assert_null(cJSON_GetObjectItemCaseSensitive(r, "structuredContent"));
	cJSON_Delete(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ok_outcome),
	    cmocka_unit_test(test_execution_id_full_width),
	    cmocka_unit_test(test_exit_outcome),
	    cmocka_unit_test(test_signal_outcome_has_null_exit_code),
	    cmocka_unit_test(test_every_failure_status),
	    cmocka_unit_test(test_cpu_timeout_note),
	    cmocka_unit_test(test_truncation_flags),
	    cmocka_unit_test(test_rejected_outcome),
	    cmocka_unit_test(test_output_sanitized),
	    cmocka_unit_test(test_old_versions_get_text_only),
	    cmocka_unit_test(test_schema_matches_rendering),
	    cmocka_unit_test(test_tool_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
