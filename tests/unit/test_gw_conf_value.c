/* common/conf_value: counts, sizes, durations and booleans as every
 * configuration file spells them, their bounds and their messages.  (Named
 * test_gw_* so the Makefile builds it; it tests common/, which the gateway
 * and the jailer both link.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf_value.h"

static char why[256];

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		if (!strstr((hay), (needle)))                                                      \
			fail_msg("'%s' does not contain '%s'", (hay), (needle));                   \
	} while (0)

struct ok_case {
	const char *in;
	uint64_t want;
};

struct bad_case {
	const char *in;
	const char *msg;
};

typedef int (*parse_fn)(const char *s, uint64_t min, uint64_t max, uint64_t *v, char *why,
			size_t whylen);

static void check_ok(parse_fn fn, const char *what, const struct ok_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 12345;

		why[0] = '\0';
		if (fn(c[i].in, 0, UINT64_MAX, &v, why, sizeof(why)) != 0)
			fail_msg("%s '%s' refused: %s", what, c[i].in, why);
		if (v != c[i].want)
			fail_msg("%s '%s' gave %llu, want %llu", what, c[i].in,
				 (unsigned long long)v, (unsigned long long)c[i].want);
	}
}

static void check_bad(parse_fn fn, const char *what, const struct bad_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 12345;

		why[0] = '\0';
		if (fn(c[i].in, 0, UINT64_MAX, &v, why, sizeof(why)) != -EINVAL)
			fail_msg("%s '%s' accepted", what, c[i].in);
		assert_contains(why, c[i].msg);
		/* A refused value leaves the output alone. */
		assert_int_equal(v, 12345);
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_count(void **state)
{
	static const struct ok_case ok[] = {
	    {"0", 0},
	    {"7", 7},
	    {"007", 7},
	    {"1000000", 1000000},
	    {"18446744073709551615", UINT64_MAX},
	};
	static const struct bad_case bad[] = {
	    {"", "'' is not a non-negative integer"},
	    {"-1", "'-1' is not a non-negative integer"},
	    {"+1", "is not a non-negative integer"},
	    {" 1", "is not a non-negative integer"},
	    {"x", "is not a non-negative integer"},
	    {"1x", "'1x' has trailing junk 'x'"},
	    {"1K", "has trailing junk 'K'"},
	    {"1.5", "has trailing junk '.5'"},
	    {"1 ", "has trailing junk ' '"},
	    {"18446744073709551616", "'18446744073709551616' is out of range"},
	    {"99999999999999999999999", "is out of range"},
	};

	(void)state;
	check_ok(conf_parse_count, "count", ok, N(ok));
	check_bad(conf_parse_count, "count", bad, N(bad));
}

static void test_size(void **state)
{
	static const struct ok_case ok[] = {
	    {"0", 0},
	    {"512", 512},
	    {"0K", 0},
	    {"1K", 1024},
	    {"1k", 1024},
	    {"4M", 4u << 20},
	    {"4m", 4u << 20},
	    {"1G", 1u << 30},
	    {"2g", 2ull << 30},
	    /* The largest G that fits in 64 bits. */
	    {"17179869183G", 17179869183ull << 30},
	};
	static const struct bad_case bad[] = {
	    {"", "is not a non-negative integer"},
	    {"K", "'K' is not a non-negative integer"},
	    {"-5M", "is not a non-negative integer"},
	    {"1T", "'1T' has an unknown suffix 'T' (use K, M or G)"},
	    {"1KB", "unknown suffix 'KB'"},
	    {"1 K", "unknown suffix ' K'"},
	    {"1s", "unknown suffix 's'"},
	    {"17179869184G", "'17179869184G' is out of range"},
	    {"18014398509481984K", "is out of range"},
	    {"18446744073709551616", "is out of range"},
	};

	(void)state;
	check_ok(conf_parse_size, "size", ok, N(ok));
	check_bad(conf_parse_size, "size", bad, N(bad));
}

static void test_duration(void **state)
{
	static const struct ok_case ok[] = {
	    {"0", 0},
	    {"250", 250},
	    {"250ms", 250},
	    {"0s", 0},
	    {"30s", 30000},
	    {"1000ms", 1000},
	    {"18446744073709551s", 18446744073709551000ull},
	};
	static const struct bad_case bad[] = {
	    {"", "is not a non-negative integer"},
	    {"s", "is not a non-negative integer"},
	    {"1m", "'1m' has an unknown suffix 'm' (use ms or s)"},
	    {"10min", "unknown suffix 'min'"},
	    {"1S", "unknown suffix 'S'"},
	    {"1MS", "unknown suffix 'MS'"},
	    {"10 s", "unknown suffix ' s'"},
	    {"1K", "unknown suffix 'K'"},
	    {"18446744073709552s", "'18446744073709552s' is out of range"},
	};

	(void)state;
	check_ok(conf_parse_duration_ms, "duration", ok, N(ok));
	check_bad(conf_parse_duration_ms, "duration", bad, N(bad));
}

static void test_bounds(void **state)
{
	uint64_t v = 99;

	(void)state;
	/* Inclusive at both ends, in the kind's unit after the suffix. */
	assert_int_equal(conf_parse_count("1", 1, 10, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 1);
	assert_int_equal(conf_parse_count("10", 1, 10, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 10);
	assert_int_equal(conf_parse_count("0", 1, 10, &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'0' is outside 1..10");
	assert_int_equal(conf_parse_count("11", 1, 10, &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'11' is outside 1..10");
	assert_int_equal(v, 10);

	assert_int_equal(conf_parse_size("1K", 1024, 2048, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(conf_parse_size("2K", 1024, 2048, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(conf_parse_size("1023", 1024, 2048, &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'1023' is outside 1024..2048 bytes");
	assert_int_equal(conf_parse_size("3K", 1024, 2048, &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'3K' is outside 1024..2048 bytes");

	assert_int_equal(conf_parse_duration_ms("1s", 1000, 5000, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(conf_parse_duration_ms("5000ms", 1000, 5000, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 5000);
	assert_int_equal(conf_parse_duration_ms("999", 1000, 5000, &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'999' is outside 1000..5000 ms");
	assert_int_equal(conf_parse_duration_ms("6s", 1000, 5000, &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'6s' is outside 1000..5000 ms");
	assert_int_equal(v, 5000);

	/* A syntax error is reported as such, not as a range error. */
	assert_int_equal(conf_parse_count("x", 1, 10, &v, why, sizeof(why)), -EINVAL);
	assert_contains(why, "not a non-negative integer");
}

static void test_number_by_kind(void **state)
{
	static const struct {
		enum conf_kind kind;
		const char *in;
		int rc;
		uint64_t want;
	} cases[] = {
	    {CONF_COUNT, "64", 0, 64},		 {CONF_COUNT, "64K", -EINVAL, 0},
	    {CONF_SIZE, "64K", 0, 65536},	 {CONF_SIZE, "64s", -EINVAL, 0},
	    {CONF_DURATION_MS, "64s", 0, 64000}, {CONF_DURATION_MS, "64K", -EINVAL, 0},
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		v = 0;
		assert_int_equal(conf_parse_number(cases[i].kind, cases[i].in, 0, UINT64_MAX, &v,
						   why, sizeof(why)),
				 cases[i].rc);
		assert_int_equal(v, cases[i].want);
	}
	assert_int_equal(conf_parse_number((enum conf_kind)42, "1", 0, 9, &v, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(conf_parse_number(CONF_COUNT, NULL, 0, 9, &v, why, sizeof(why)), -EINVAL);
	assert_int_equal(conf_parse_number(CONF_COUNT, "1", 0, 9, NULL, why, sizeof(why)), -EINVAL);
	/* No room for a reason is fine. */
	assert_int_equal(conf_parse_count("x", 0, 9, &v, NULL, 0), -EINVAL);
}

static void test_bool(void **state)
{
	static const char *const bad[] = {"", "1", "0", "on", "off", "YES", "True", "yes ", "y"};
	bool b;

	(void)state;
	b = false;
	assert_int_equal(conf_parse_bool("yes", &b, why, sizeof(why)), 0);
	assert_true(b);
	assert_int_equal(conf_parse_bool("no", &b, why, sizeof(why)), 0);
	assert_false(b);
	assert_int_equal(conf_parse_bool("true", &b, why, sizeof(why)), 0);
	assert_true(b);
	assert_int_equal(conf_parse_bool("false", &b, why, sizeof(why)), 0);
	assert_false(b);
	for (size_t i = 0; i < N(bad); i++) {
		char want[64];

		b = true;
		if (conf_parse_bool(bad[i], &b, why, sizeof(why)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(b);
		snprintf(want, sizeof(want), "'%s' is not yes, no, true or false", bad[i]);
		assert_string_equal(why, want);
	}
	assert_int_equal(conf_parse_bool(NULL, &b, why, sizeof(why)), -EINVAL);
	assert_int_equal(conf_parse_bool("yes", NULL, why, sizeof(why)), -EINVAL);
}

static void test_set_err(void **state)
{
	char small[8];

	(void)state;
	conf_set_err(NULL, 10, "x %d", 1);
	memset(small, 'z', sizeof(small));
	conf_set_err(small, 0, "x %d", 1);
	assert_int_equal(small[0], 'z');
	conf_set_err(small, sizeof(small), "%s", "0123456789");
	assert_string_equal(small, "0123456");
	/* A long value in a reason is cut at the buffer, still terminated. */
	assert_int_equal(
	    conf_parse_size("123456789x", 0, UINT64_MAX, &(uint64_t){0}, small, sizeof(small)),
	    -EINVAL);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_string_equal(small, "'123456");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_count),	   cmocka_unit_test(test_size),
	    cmocka_unit_test(test_duration),	   cmocka_unit_test(test_bounds),
	    cmocka_unit_test(test_number_by_kind), cmocka_unit_test(test_bool),
	    cmocka_unit_test(test_set_err),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
