/* utf8_valid and utf8_sanitize: well-formed input passes through
 * unchanged; every ill-formed subsequence becomes U+FFFD (one per maximal
 * subpart). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

#define FFFD "\xEF\xBF\xBD"

static void check_sanitize(const char *in, size_t len, const char *want, size_t want_len)
{
	char *out;
	size_t out_len;

	assert_int_equal(utf8_sanitize(in, len, &out, &out_len), 0);
	assert_int_equal(out_len, want_len);
	assert_memory_equal(out, want, want_len);
	assert_int_equal(out[out_len], '\0');
	/* The result is always well-formed. */
	assert_true(utf8_valid(out, out_len));
	free(out);
}

#define SANITIZE(in, want) check_sanitize(in, sizeof(in) - 1, want, sizeof(want) - 1)
#define VALID(s) utf8_valid(s, sizeof(s) - 1)

static void test_valid_accepts_well_formed(void **state)
{
	(void)state;
	assert_true(utf8_valid("", 0));
	assert_true(VALID("plain ascii"));
	assert_true(VALID("a\0b"));		/* NUL is a character */
	assert_true(VALID("\xC2\x80"));		/* U+0080, smallest 2-byte */
	assert_true(VALID("\xDF\xBF"));		/* U+07FF */
	assert_true(VALID("\xE0\xA0\x80"));	/* U+0800, smallest 3-byte */
	assert_true(VALID("\xED\x9F\xBF"));	/* U+D7FF, just below surrogates */
	assert_true(VALID("\xEE\x80\x80"));	/* U+E000, just above */
	assert_true(VALID("\xEF\xBF\xBF"));	/* U+FFFF */
	assert_true(VALID("\xF0\x90\x80\x80")); /* U+10000 */
	assert_true(VALID("\xF4\x8F\xBF\xBF")); /* U+10FFFF, the last */
	assert_true(VALID("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"));
}

static void test_valid_rejects_ill_formed(void **state)
{
	(void)state;
	assert_false(VALID("\x80")); /* lone continuation */
	assert_false(VALID("\xBF"));
	assert_false(VALID("\xC0\x80"));	 /* overlong NUL */
	assert_false(VALID("\xC1\xBF"));	 /* overlong */
	assert_false(VALID("\xE0\x9F\xBF"));	 /* overlong 3-byte */
	assert_false(VALID("\xF0\x8F\xBF\xBF")); /* overlong 4-byte */
	assert_false(VALID("\xED\xA0\x80"));	 /* U+D800 surrogate */
	assert_false(VALID("\xED\xBF\xBF"));	 /* U+DFFF surrogate */
	assert_false(VALID("\xF4\x90\x80\x80")); /* U+110000 */
	assert_false(VALID("\xF5\x80\x80\x80"));
	assert_false(VALID("\xFE"));
	assert_false(VALID("\xFF"));
	assert_false(VALID("abc\xC3")); /* cut at the end */
	assert_false(VALID("abc\xE2\x82"));
	assert_false(VALID("abc\xF0\x9F\x98"));
	assert_false(VALID("\xC3(")); /* second byte not a continuation */
}

static void test_sanitize_passes_valid_through(void **state)
{
	(void)state;
	SANITIZE("", "");
	SANITIZE("hello\n", "hello\n");
	SANITIZE("a\0b", "a\0b");
	SANITIZE("\xF0\x9F\x98\x80 \xE2\x82\xAC", "\xF0\x9F\x98\x80 \xE2\x82\xAC");
}

static void test_sanitize_truncated_tail(void **state)
{
	(void)state;
	/* A stream cut at its cap: the partial character is one U+FFFD. */
	SANITIZE("ok\xF0\x9F\x98", "ok" FFFD);
	SANITIZE("ok\xE2\x82", "ok" FFFD);
	SANITIZE("ok\xC3", "ok" FFFD);
	SANITIZE("\xF0", FFFD);
}

static void test_sanitize_overlong_and_surrogates(void **state)
{
	(void)state;
	/* C0/C1 never start a sequence: each byte is replaced. */
	SANITIZE("\xC0\x80", FFFD FFFD);
	/* E0 80: 80 is outside E0's A0..BF, so E0 alone is the subpart. */
	SANITIZE("\xE0\x80\x80", FFFD FFFD FFFD);
	SANITIZE("\xF0\x80\x80\x80", FFFD FFFD FFFD FFFD);
	/* Encoded surrogates: ED A0 is ill-formed at the second byte. */
	SANITIZE("\xED\xA0\x80", FFFD FFFD FFFD);
	SANITIZE("\xED\xBF\xBFx", FFFD FFFD FFFD "x");
	SANITIZE("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD);
}

static void test_sanitize_mixed(void **state)
{
	(void)state;
	SANITIZE("a\x80"
		 "b",
		 "a" FFFD "b");
	SANITIZE("\xFF\xFE", FFFD FFFD);
	/* An interrupted sequence followed by a good character keeps it. */
	SANITIZE("\xE2\x82\xC3\xA9", FFFD "\xC3\xA9");
	SANITIZE("\xF0\x9F"
		 "A",
		 FFFD "A");
	SANITIZE("x\xC3\xA9\xE9y", "x\xC3\xA9" FFFD "y");
}

static void test_sanitize_worst_case_growth(void **state)
{
	(void)state;
	char in[256];
	char want[256 * 3];
	for (size_t i = 0; i < sizeof(in); i++) {
		in[i] = (char)0xFF;
		memcpy(want + i * 3, FFFD, 3);
	}
	check_sanitize(in, sizeof(in), want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid_accepts_well_formed),
	    cmocka_unit_test(test_valid_rejects_ill_formed),
	    cmocka_unit_test(test_sanitize_passes_valid_through),
	    cmocka_unit_test(test_sanitize_truncated_tail),
	    cmocka_unit_test(test_sanitize_overlong_and_surrogates),
	    cmocka_unit_test(test_sanitize_mixed),
	    cmocka_unit_test(test_sanitize_worst_case_growth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
