/* JSON-RPC framing: strict parsing, classification of every message
 * shape, id rules, response building and one-line serialization. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "jsonrpc.h"

static int parse(const char *text, struct jsonrpc_input *in)
{
	const char *why;
	int r = jsonrpc_parse(text, strlen(text), in, &why);
	if (r != 0) {
		assert_null(in->root);
		assert_non_null(why);
	}
	return r;
}

static void expect_parse_error(const char *text)
{
	struct jsonrpc_input in;
	if (parse(text, &in) != JSONRPC_PARSE_ERROR)
		fail_msg("accepted: %s", text);
}

static void expect_parses(const char *text)
{
	struct jsonrpc_input in;
	if (parse(text, &in) != 0)
		fail_msg("rejected: %s", text);
	cJSON_Delete(in.root);
}

static void test_parse_accepts_json(void **state)
{
	(void)state;
	expect_parses("{}");
	expect_parses("[]");
	expect_parses(" \t\r\n{\"a\" : [1, -0, 0.5, 1e3, 1E-2, -12.5e+7, true, false, null]}\n");
	expect_parses("{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}");
	expect_parses("{\"s\":\"h\xC3\xA9llo\"}");
	expect_parses("5"); /* valid JSON; classification refuses it later */
}

static void test_parse_rejects_bad_json(void **state)
{
	(void)state;
	expect_parse_error("");
	expect_parse_error("   ");
	expect_parse_error("{");
	expect_parse_error("{\"a\":1");
	expect_parse_error("{\"a\":1,}");
	expect_parse_error("[1,]");
	expect_parse_error("{\"a\" 1}");
	expect_parse_error("{a:1}");
	expect_parse_error("{\"a\":1}}");
	expect_parse_error("{\"a\":1} x");
	expect_parse_error("{} {}");
	expect_parse_error("{\"a\":'x'}");
	expect_parse_error("{\"a\":tru}");
	expect_parse_error("{\"a\":nul}");
	/* Numbers cJSON alone would take. */
	expect_parse_error("{\"a\":+1}");
	expect_parse_error("{\"a\":01}");
	expect_parse_error("{\"a\":1.}");
	expect_parse_error("{\"a\":.5}");
	expect_parse_error("{\"a\":1e}");
	expect_parse_error("{\"a\":-}");
	expect_parse_error("{\"a\":0x10}");
	/* Strings. */
	expect_parse_error("{\"a\":\"unterminated}");
	expect_parse_error("{\"a\":\"bad \\x escape\"}");
	expect_parse_error("{\"a\":\"\\u12\"}");
	expect_parse_error("{\"a\":\"\\ud800\"}");	  /* lone high surrogate */
	expect_parse_error("{\"a\":\"\\udc00\"}");	  /* lone low surrogate */
	expect_parse_error("{\"a\":\"\\ud800\\u0041\"}"); /* high + non-low */
	expect_parse_error("{\"a\":\"tab\there\"}");	  /* raw control character */
	expect_parse_error("{\"a\":\"line\nbreak\"}");
}

static void test_parse_rejects_raw_nul(void **state)
{
	(void)state;
	static const char msg[] = "{\"code\":\"print(1)\0evil\"}";
	struct jsonrpc_input in;
	const char *why;
	assert_int_equal(jsonrpc_parse(msg, sizeof(msg) - 1, &in, &why), JSONRPC_PARSE_ERROR);
	assert_null(in.root);
}

static void test_parse_rejects_invalid_utf8(void **state)
{
	(void)state;
	expect_parse_error("{\"a\":\"\xC3\"}");
	expect_parse_error("{\"a\":\"\xC0\x80\"}");
	expect_parse_error("{\"a\":\"\xED\xA0\x80\"}");
	expect_parse_error("{\"a\":\"\xFF\"}");
	expect_parse_error("\xEF\xBB\xBF{}"); /* a byte order mark is not JSON */
}

static void test_parse_depth_limit(void **state)
{
	(void)state;
	char buf[2 * (JSON_CHECK_MAX_DEPTH + 1) + 1];
	size_t n = JSON_CHECK_MAX_DEPTH;

	memset(buf, '[', n);
	memset(buf + n, ']', n);
	buf[2 * n] = '\0';
	expect_parses(buf);

	n = JSON_CHECK_MAX_DEPTH + 1;
	memset(buf, '[', n);
	memset(buf + n, ']', n);
	buf[2 * n] = '\0';
	expect_parse_error(buf);
}

static void test_parse_reports_nul_escape(void **state)
{
	(void)state;
	struct jsonrpc_input in;

	assert_int_equal(parse("{\"a\":\"x\\u0000y\"}", &in), 0);
	assert_true(in.nul_escape);
	cJSON_Delete(in.root);
	assert_int_equal(parse("{\"a\":\"x\\u0001y\"}", &in), 0);
	assert_false(in.nul_escape);
	cJSON_Delete(in.root);
}

static void classify(const char *text, struct jsonrpc_msg *m, cJSON **root)
{
	struct jsonrpc_input in;
	assert_int_equal(parse(text, &in), 0);
	*root = in.root;
	jsonrpc_classify(in.root, m);
}

static void expect_invalid(const char *text, bool id_readable)
{
	struct jsonrpc_msg m;
	cJSON *root;
	classify(text, &m, &root);
	if (m.kind != JSONRPC_INVALID)
		fail_msg("not invalid: %s", text);
	assert_non_null(m.error);
	assert_true(strncmp(m.error, "invalid request", 15) == 0);
	if (id_readable)
		assert_non_null(m.id);
	else
		assert_null(m.id);
	cJSON_Delete(root);
}

static void test_classify_request(void **state)
{
	(void)state;
	struct jsonrpc_msg m;
	cJSON *root;

	classify("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", &m, &root);
	assert_int_equal(m.kind, JSONRPC_REQUEST);
	assert_string_equal(m.method, "ping");
	assert_true(cJSON_IsNumber(m.id));
	assert_int_equal(m.id->valueint, 7);
	assert_null(m.params);
	cJSON_Delete(root);

	classify("{\"method\":\"tools/call\",\"params\":{\"name\":\"x\"},\"id\":\"abc\","
		 "\"jsonrpc\":\"2.0\"}",
		 &m, &root);
	assert_int_equal(m.kind, JSONRPC_REQUEST);
	assert_string_equal(m.id->valuestring, "abc");
	assert_true(cJSON_IsObject(m.params));
	cJSON_Delete(root);

	/* Arrays are valid JSON-RPC params; MCP methods refuse them later. */
	classify("{\"jsonrpc\":\"2.0\",\"id\":-3,\"method\":\"m\",\"params\":[1]}", &m, &root);
	assert_int_equal(m.kind, JSONRPC_REQUEST);
	assert_true(cJSON_IsArray(m.params));
	cJSON_Delete(root);

	/* 1.0 is an integer (JSON Schema), 2^53-1 the largest accepted. */
	classify("{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"m\"}", &m, &root);
	assert_int_equal(m.kind, JSONRPC_REQUEST);
	cJSON_Delete(root);
	classify("{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,\"method\":\"m\"}", &m, &root);
	assert_int_equal(m.kind, JSONRPC_REQUEST);
	cJSON_Delete(root);
}

static void test_classify_notification_and_response(void **state)
{
	(void)state;
	struct jsonrpc_msg m;
	cJSON *root;

	classify("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &m, &root);
	assert_int_equal(m.kind, JSONRPC_NOTIFICATION);
	assert_null(m.id);
	assert_string_equal(m.method, "notifications/initialized");
	cJSON_Delete(root);

	classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", &m, &root);
	assert_int_equal(m.kind, JSONRPC_RESPONSE);
	cJSON_Delete(root);
	classify("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-1,\"message\":\"x\"}}", &m,
		 &root);
	assert_int_equal(m.kind, JSONRPC_RESPONSE);
	cJSON_Delete(root);
}

static void test_classify_invalid(void **state)
{
	(void)state;
	expect_invalid("5", false);
	expect_invalid("\"x\"", false);
	expect_invalid("[]", false);
	expect_invalid("{}", false);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", false);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", false);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", false);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", false);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}", false);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}", false);
	expect_invalid("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", true);
	expect_invalid("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}", true);
	expect_invalid("{\"id\":1,\"method\":\"ping\"}", true);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1}", true);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", true);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":\"x\"}", true);
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":null}", true);
	/* An invalid notification is still answered (JSON-RPC 2.0 examples). */
	expect_invalid("{\"jsonrpc\":\"2.0\",\"method\":1,\"params\":\"bar\"}", false);
	/* Members given twice could be read two ways. */
	expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"b\"}", false);
	/* Member names are case-sensitive (cJSON's own lookup is not). */
	expect_invalid("{\"JSONRPC\":\"2.0\",\"id\":1,\"method\":\"ping\"}", true);
}

static void test_id_equal(void **state)
{
	(void)state;
	cJSON *s1 = cJSON_CreateString("1");
	cJSON *s1b = cJSON_CreateString("1");
	cJSON *n1 = cJSON_CreateNumber(1);
	cJSON *n1b = cJSON_CreateNumber(1.0);
	cJSON *n2 = cJSON_CreateNumber(2);
	cJSON *null = cJSON_CreateNull();

	assert_true(jsonrpc_id_equal(s1, s1b));
	assert_true(jsonrpc_id_equal(n1, n1b));
	assert_false(jsonrpc_id_equal(s1, n1));
	assert_false(jsonrpc_id_equal(n1, n2));
	assert_false(jsonrpc_id_equal(null, null));
	assert_false(jsonrpc_id_valid(null));
	for (cJSON **p = (cJSON *[]){s1, s1b, n1, n1b, n2, null, NULL}; *p; p++)
		cJSON_Delete(*p);
}

static char *serialize(cJSON *msg)
{
	size_t len;
	char *s = jsonrpc_serialize(msg, &len);
	assert_non_null(s);
	assert_int_equal(strlen(s), len);
	assert_null(strchr(s, '\n'));
	cJSON_Delete(msg);
	return s;
}

static void test_build_result(void **state)
{
	(void)state;
	cJSON *id = cJSON_CreateString("req-1");
	cJSON *result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "text", "line1\nline2");
	char *s = serialize(jsonrpc_make_result(id, result));
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"result\":{\"text\":"
			       "\"line1\\nline2\"}}");
	cJSON_free(s);
	cJSON_Delete(id);

	id = cJSON_CreateNumber(42);
	s = serialize(jsonrpc_make_result(id, cJSON_CreateObject()));
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{}}");
	cJSON_free(s);
	cJSON_Delete(id);

	id = cJSON_CreateNumber(9007199254740991.0);
	s = serialize(jsonrpc_make_result(id, cJSON_CreateObject()));
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,\"result\":{}}");
	cJSON_free(s);
	cJSON_Delete(id);
}

/* The printed-result path gives the same bytes as building the tree. */
static void test_serialize_printed_result(void **state)
{
	(void)state;
	static const char result[] = "{\"tools\":[{\"name\":\"x\",\"d\":\"a\\nb\"}]}";
	cJSON *ids[] = {cJSON_CreateString("req-\"1\""), cJSON_CreateNumber(42),
			cJSON_CreateNumber(9007199254740991.0), cJSON_CreateNumber(-3)};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		char *tree = serialize(jsonrpc_make_result(ids[i], cJSON_Parse(result)));
		size_t len = 0;
		char *direct = jsonrpc_serialize_printed_result(ids[i], result, &len);
		assert_non_null(direct);
		assert_string_equal(direct, tree);
		assert_int_equal(len, strlen(tree));
		cJSON_free(direct);
		cJSON_free(tree);
		cJSON_Delete(ids[i]);
	}
}

static void test_build_error_id_styles(void **state)
{
	(void)state;
	char *s = serialize(
	    jsonrpc_make_error(NULL, JSONRPC_PARSE_ERROR, "parse error", JSONRPC_ID_NULL));
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
			       "\"message\":\"parse error\"}}");
	cJSON_free(s);

	s = serialize(
	    jsonrpc_make_error(NULL, JSONRPC_PARSE_ERROR, "parse error", JSONRPC_ID_OMIT));
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,"
			       "\"message\":\"parse error\"}}");
	cJSON_free(s);

	/* A readable id is always echoed. */
	cJSON *id = cJSON_CreateNumber(5);
	s = serialize(jsonrpc_make_error(id, JSONRPC_METHOD_NOT_FOUND, "method not found: x",
					 JSONRPC_ID_OMIT));
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32601,"
			       "\"message\":\"method not found: x\"}}");
	cJSON_free(s);
	cJSON_Delete(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_accepts_json),
	    cmocka_unit_test(test_parse_rejects_bad_json),
	    cmocka_unit_test(test_parse_rejects_raw_nul),
	    cmocka_unit_test(test_parse_rejects_invalid_utf8),
	    cmocka_unit_test(test_parse_depth_limit),
	    cmocka_unit_test(test_parse_reports_nul_escape),
	    cmocka_unit_test(test_classify_request),
	    cmocka_unit_test(test_classify_notification_and_response),
	    cmocka_unit_test(test_classify_invalid),
	    cmocka_unit_test(test_id_equal),
	    cmocka_unit_test(test_build_result),
	    cmocka_unit_test(test_serialize_printed_result),
	    cmocka_unit_test(test_build_error_id_styles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
