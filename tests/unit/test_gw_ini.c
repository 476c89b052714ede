/* common/ini: the INI walker every configuration file goes through: what
 * reaches the callbacks, what is refused before them, and where errors say
 * they are.  (Named test_gw_* so the Makefile builds it; it tests common/,
 * which the gateway and the jailer both link.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

static char err[1024];

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		if (!strstr((hay), (needle)))                                                      \
			fail_msg("'%s' does not contain '%s'", (hay), (needle));                   \
	} while (0)

/* Every callback appends "[inner]" or "key=<val>" and a newline to log;
 * a section or key named "fail" is refused with the reason "no: NAME", one
 * named "mute" is refused without a reason. */
struct rec {
	char log[2 * INI_LINE_MAX];
	size_t n;
	unsigned calls;
};

__attribute__((format(printf, 2, 3))) static void rec_add(struct rec *r, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(r->log + r->n, sizeof(r->log) - r->n, fmt, ap);
	va_end(ap);
	assert_true(w >= 0 && (size_t)w < sizeof(r->log) - r->n);
	r->n += (size_t)w;
	r->calls++;
}

static int on_section(void *ctx, const char *inner, char *why, size_t whylen)
{
	rec_add(ctx, "[%s]\n", inner);
	if (strcmp(inner, "fail") == 0) {
		snprintf(why, whylen, "no: %s", inner);
		return -EINVAL;
	}
	return strcmp(inner, "mute") == 0 ? -EINVAL : 0;
}

static int on_key(void *ctx, const char *key, const char *val, char *why, size_t whylen)
{
	rec_add(ctx, "%s=<%s>\n", key, val);
	if (strcmp(key, "fail") == 0) {
		snprintf(why, whylen, "no: %s", key);
		return -EINVAL;
	}
	return strcmp(key, "mute") == 0 ? -EINVAL : 0;
}

static const struct ini_handler H = {on_section, on_key};

static int walk(const char *text, const char *name, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	err[0] = '\0';
	return ini_parse(text, strlen(text), 1u << 20, name, &H, r, err, sizeof(err));
}

static void test_callbacks(void **state)
{
	static const char text[] = "# a comment\n"
				   "; another\n"
				   "   # indented comment\n"
				   "\n"
				   "[ one ]\n"
				   "a = 1\n"
				   "b=2\n"
				   "\tc\t=\t 3 \t\n"
				   "d =\n"
				   "e = x = y\n"
				   "f = v # not a comment\n"
				   "g = [not a section]\n"
				   "[]\n"
				   "[two words]\r\n"
				   "h_2 = crlf\r\n"
				   "last = no newline";
	struct rec r;

	(void)state;
	assert_int_equal(walk(text, "t.conf", &r), 0);
	assert_string_equal(r.log, "[one]\n"
				   "a=<1>\n"
				   "b=<2>\n"
				   "c=<3>\n"
				   "d=<>\n"
				   "e=<x = y>\n"
				   "f=<v # not a comment>\n"
				   "g=<[not a section]>\n"
				   "[]\n"
				   "[two words]\n"
				   "h_2=<crlf>\n"
				   "last=<no newline>\n");
	assert_string_equal(err, "");

	/* Nothing at all, or only blanks and comments, is fine. */
	assert_int_equal(walk("", "t.conf", &r), 0);
	assert_int_equal(r.calls, 0);
	assert_int_equal(ini_parse(NULL, 0, 10, "t.conf", &H, &r, err, sizeof(err)), 0);
	assert_int_equal(walk("\n\n  \n#x\n", "t.conf", &r), 0);
	assert_int_equal(r.calls, 0);
}

static const struct {
	const char *text;
	const char *msg; /* with the name "t.conf" */
	unsigned calls;	 /* callbacks before the refusal */
} refusals[] = {
    {"[s]\nk = a\x01b\n", "t.conf:2: contains a control character", 1},
    {"[s]\nk = a\x7f\n", "t.conf:2: contains a control character", 1},
    {"[s]\x1b\n", "t.conf:1: contains a control character", 0},
    {"[s\n", "t.conf:1: malformed section header", 0},
    {"[\n", "t.conf:1: malformed section header", 0},
    {"[s]\njust text\n", "t.conf:2: malformed line (expected 'key = value')", 1},
    {"[s]\n]\n", "t.conf:2: malformed line (expected 'key = value')", 1},
    {"[s]\n = v\n", "t.conf:2: malformed line (empty key)", 1},
    {"[s]\nKey = v\n", "t.conf:2: malformed key (use a-z, 0-9, '_')", 1},
    {"[s]\nmy-key = v\n", "t.conf:2: malformed key (use a-z, 0-9, '_')", 1},
    {"[s]\nmy key = v\n", "t.conf:2: malformed key (use a-z, 0-9, '_')", 1},
    {"k = v\n[s]\n", "t.conf:1: key 'k': outside of any section", 0},
    {"\n\n# c\nk = v\n", "t.conf:4: key 'k': outside of any section", 0},
    /* The callbacks' own refusals, with and without a reason. */
    {"[fail]\nk = v\n", "t.conf:1: no: fail", 1},
    {"[s]\na = 1\nfail = 2\nb = 3\n", "t.conf:3: no: fail", 3},
    {"[s]\nmute = 1\n", "t.conf:2: invalid line", 2},
    {"[mute]\n", "t.conf:1: invalid line", 1},
};

static void test_refusals(void **state)
{
	struct rec r;

	(void)state;
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		if (walk(refusals[i].text, "t.conf", &r) != -EINVAL)
			fail_msg("case %zu accepted", i);
		assert_string_equal(err, refusals[i].msg);
		/* The walk stops at the bad line. */
		if (r.calls != refusals[i].calls)
			fail_msg("case %zu: %u callbacks, want %u", i, r.calls, refusals[i].calls);
	}
}

static void test_locations(void **state)
{
	static const char with_nul[] = "[s]\na = 1\nb\0 = 2\n";
	struct rec r;

	(void)state;
	/* Without a name the location is "line N". */
	assert_int_equal(walk("[s]\n\nfail = 1\n", NULL, &r), -EINVAL);
	assert_string_equal(err, "line 3: no: fail");
	assert_int_equal(walk("[s\n", NULL, &r), -EINVAL);
	assert_string_equal(err, "line 1: malformed section header");
	assert_int_equal(walk("[s]\nfail = 1\n", "/etc/x.conf", &r), -EINVAL);
	assert_string_equal(err, "/etc/x.conf:2: no: fail");

	/* A NUL is found before any callback runs, on its own line. */
	memset(&r, 0, sizeof(r));
	assert_int_equal(
	    ini_parse(with_nul, sizeof(with_nul) - 1, 100, "t.conf", &H, &r, err, sizeof(err)),
	    -EINVAL);
	assert_string_equal(err, "t.conf:3: contains a NUL byte");
	assert_int_equal(r.calls, 0);
	assert_int_equal(ini_parse("\0", 1, 100, NULL, &H, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "line 1: contains a NUL byte");

	/* A message longer than err is cut, still terminated. */
	char small[12];

	memset(&r, 0, sizeof(r));
	assert_int_equal(ini_parse("[s\n", 3, 100, "t.conf", &H, &r, small, sizeof(small)),
			 -EINVAL);
	assert_string_equal(small, "t.conf:1: m");
}

static void test_sizes(void **state)
{
	char *big = malloc(INI_LINE_MAX + 64);
	struct rec r;
	size_t n;

	(void)state;
	assert_non_null(big);
	/* A line of exactly INI_LINE_MAX characters, then one over. */
	n = (size_t)snprintf(big, INI_LINE_MAX + 64, "[s]\nk = ");
	memset(big + n, 'v', INI_LINE_MAX - 4);
	n += INI_LINE_MAX - 4;
	big[n] = '\0';
	assert_int_equal(walk(big, "t.conf", &r), 0);
	assert_int_equal(r.calls, 2);
	big[n] = 'v';
	big[n + 1] = '\n';
	big[n + 2] = '\0';
	assert_int_equal(walk(big, "t.conf", &r), -EINVAL);
	assert_string_equal(err, "t.conf:2: longer than 4096 characters");
	assert_int_equal(r.calls, 1);
	assert_int_equal(walk(big, NULL, &r), -EINVAL);
	assert_string_equal(err, "line 2: longer than 4096 characters");
	free(big);

	/* The whole text: exactly max_bytes is fine, one more is not. */
	memset(&r, 0, sizeof(r));
	assert_int_equal(ini_parse("[s]\nk = v\n", 10, 10, "t.conf", &H, &r, err, sizeof(err)), 0);
	assert_int_equal(ini_parse("[s]\nk = v\n", 10, 9, "t.conf", &H, &r, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf: larger than 9 bytes");
	assert_int_equal(ini_parse("[s]\nk = v\n", 10, 9, NULL, &H, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "text is larger than 9 bytes");
	assert_int_equal(r.calls, 2);
}

static void test_bad_arguments(void **state)
{
	static const struct ini_handler half = {on_section, NULL};
	struct rec r;

	(void)state;
	assert_int_equal(ini_parse(NULL, 3, 10, "t.conf", &H, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf: nothing to parse");
	assert_int_equal(ini_parse("[s]", 3, 10, NULL, NULL, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "nothing to parse");
	assert_int_equal(ini_parse("[s]", 3, 10, NULL, &half, &r, err, sizeof(err)), -EINVAL);
	/* No room for a message is fine. */
	assert_int_equal(ini_parse("[s", 2, 10, NULL, &H, &r, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_callbacks),	  cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_locations),	  cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
