/* tenants: the file's parser (defaults, every key, every rejection), file
 * checks, API key generation and authentication, a tenant's view of the
 * jailer's profiles, and the example etc/tenants.conf (run from the repo
 * root). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key_cli.h"
#include "tenants.h"

#define H1 "sha256:0000000000000000000000000000000000000000000000000000000000000001"
#define H2 "sha256:00000000000000000000000000000000000000000000000000000000000000a2"

static struct tenant_table T;
static char err[1024];

static int parse(const char *text)
{
	tenants_free(&T);
	return tenants_parse(text, strlen(text), "t.conf", &T, err, sizeof(err));
}

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		if (!strstr((hay), (needle)))                                                      \
			fail_msg("'%s' does not contain '%s'", (hay), (needle));                   \
	} while (0)

static int teardown_table(void **state)
{
	(void)state;
	tenants_free(&T);
	return 0;
}

static void test_defaults(void **state)
{
	const struct tenant *t;

	(void)state;
	assert_int_equal(parse("# nothing\n"), 0);
	assert_int_equal(T.n, 0);
	assert_null(tenants_find(&T, "a"));

	assert_int_equal(parse("[tenant a]\nlanguages = python\n"), 0);
	assert_int_equal(T.n, 1);
	t = tenants_find(&T, "a");
	assert_non_null(t);
	assert_string_equal(t->name, "a");
	assert_int_equal(t->nkeys, 0);
	assert_int_equal(t->nlanguages, 1);
	assert_string_equal(t->languages[0], "python");
	assert_int_equal(t->ceiling.wall_ms, 0);
	assert_int_equal(t->ceiling.cpu_ms, 0);
	assert_int_equal(t->ceiling.memory_bytes, 0);
	assert_int_equal(t->ceiling.pids, 0);
	assert_int_equal(t->ceiling.tmpfs_bytes, 0);
	assert_int_equal(t->ceiling.output_bytes, 0);
	assert_false(t->network);
	assert_int_equal(t->max_concurrent_jobs, 4);
	assert_float_equal(t->rate_per_s, 10.0, 1e-12);
	assert_int_equal(t->burst, 20);
	assert_int_equal(t->cpu_seconds_per_hour, 0);
	assert_int_equal(t->max_sessions, 0);
}

static void test_every_key(void **state)
{
	static const char text[] = "; a comment\n"
				   "[tenant acme-1_x]\n"
				   "  key = " H1 "  \n"
				   "key=" H2 "\n"
				   "languages = python\t javascript  ruby\n"
				   "max_timeout = 30s\n"
				   "max_cpu = 1500ms\n"
				   "max_memory = 512M\n"
				   "max_pids = 128\n"
				   "max_tmpfs = 2G\n"
				   "max_output = 64K\n"
				   "network = yes\n"
				   "max_concurrent_jobs = 9\n"
				   "rate = 0.25\n"
				   "burst = 3\n"
				   "cpu_seconds_per_hour = 600\n"
				   "max_sessions = 5\n"
				   "[ tenant   other ]\n"
				   "languages = javascript\n";
	const struct tenant *t;

	(void)state;
	assert_int_equal(parse(text), 0);
	assert_int_equal(T.n, 2);
	t = tenants_find(&T, "acme-1_x");
	assert_ptr_equal(t, &T.t[0]);
	assert_int_equal(t->nkeys, 2);
	assert_int_equal(t->keys[0].hash[31], 0x01);
	assert_int_equal(t->keys[0].hash[0], 0);
	assert_int_equal(t->keys[1].hash[31], 0xa2);
	assert_string_equal(t->keys[0].id, "000000000000");
	assert_int_equal(t->nlanguages, 3);
	assert_string_equal(t->languages[0], "python");
	assert_string_equal(t->languages[1], "javascript");
	assert_string_equal(t->languages[2], "ruby");
	assert_int_equal(t->ceiling.wall_ms, 30000);
	assert_int_equal(t->ceiling.cpu_ms, 1500);
	assert_int_equal(t->ceiling.memory_bytes, 512u << 20);
	assert_int_equal(t->ceiling.pids, 128);
	assert_int_equal(t->ceiling.tmpfs_bytes, 2ull << 30);
	assert_int_equal(t->ceiling.output_bytes, 64u << 10);
	assert_true(t->network);
	assert_int_equal(t->max_concurrent_jobs, 9);
	assert_float_equal(t->rate_per_s, 0.25, 1e-12);
	assert_int_equal(t->burst, 3);
	assert_int_equal(t->cpu_seconds_per_hour, 600);
	assert_int_equal(t->max_sessions, 5);

	t = tenants_find(&T, "other");
	assert_ptr_equal(t, &T.t[1]);
	assert_int_equal(t->nlanguages, 1);
	assert_false(t->network);
	assert_null(tenants_find(&T, "acme"));
	assert_null(tenants_find(&T, NULL));
	assert_null(tenants_find(NULL, "other"));

	assert_int_equal(parse("[tenant r]\nlanguages = python\nrate = 1000000\n"), 0);
	assert_float_equal(T.t[0].rate_per_s, 1e6, 1e-6);
	assert_int_equal(parse("[tenant r]\nlanguages = python\nrate = 0.001\nnetwork = no\n"), 0);
	assert_float_equal(T.t[0].rate_per_s, 0.001, 1e-12);
}

static const struct {
	const char *text;
	const char *msg;
} rejections[] = {
    {"[tenants a]\n", "t.conf:1: section [tenants a]: unknown section"},
    {"[global]\n", "unknown section"},
    {"[tenant]\n", "unknown section"},
    {"[tenant A]\n", "t.conf:1: section [tenant A]: name is not 1-63"},
    {"[tenant a b]\n", "name is not"},
    {"[tenant aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", "name is not"},
    {"[tenant a\n", "malformed section header"},
    {"languages = python\n", "t.conf:1: key 'languages': outside of any section"},
    {"[tenant a]\nlanguages = python\n[tenant b]\nlanguages = python\n[tenant a]\n",
     "t.conf:5: section [tenant a]: appears twice"},
    {"[tenant a]\nlanguages = python\nbogus = 1\n", "t.conf:3: key 'bogus': unknown key"},
    {"[tenant a]\nlanguages = python\nmax_wall_ms = 1\n", "unknown key"},
    {"[tenant a]\nlanguages = python\nlanguages = python\n",
     "t.conf:3: key 'languages': set twice"},
    {"[tenant a]\nlanguages = python\nrate = 1\nrate = 2\n", "set twice"},
    {"[tenant a]\nlanguages =\n", "key 'languages': empty value"},
    {"[tenant a]\nkey =\n", "key 'key': empty value"},
    {"[tenant a]\n", "t.conf: [tenant a]: no 'languages' line"},
    {"[tenant a]\nlanguages = python\n[tenant b]\nmax_pids = 3\n", "[tenant b]: no 'languages'"},
    {"[tenant a]\nlanguages = python python\n", "'python' is listed twice"},
    {"[tenant a]\nlanguages = Python\n", "is not a language name"},
    {"[tenant a]\nlanguages = python,javascript\n", "is not a language name"},
    {"[tenant a]\nlanguages = a b c d e f g h i\n", "more than 8 languages"},
    {"[tenant a]\nlanguages = "
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
     "longer than 64"},
    /* key hashes */
    {"[tenant a]\nlanguages = python\nkey = "
     "0000000000000000000000000000000000000000000000000000000000000001\n",
     "t.conf:3: key 'key': not 'sha256:'"},
    {"[tenant a]\nlanguages = python\nkey = sha1:0000000000000000000000000000000000000001\n",
     "not 'sha256:'"},
    {"[tenant a]\nlanguages = python\nkey = "
     "sha256:000000000000000000000000000000000000000000000000000000000000001\n",
     "not 'sha256:'"},
    {"[tenant a]\nlanguages = python\nkey = "
     "sha256:00000000000000000000000000000000000000000000000000000000000000011\n",
     "not 'sha256:'"},
    {"[tenant a]\nlanguages = python\nkey = "
     "sha256:00000000000000000000000000000000000000000000000000000000000000A2\n",
     "the hash is not 64 lowercase hex"},
    {"[tenant a]\nlanguages = python\nkey = "
     "sha256:g000000000000000000000000000000000000000000000000000000000000001\n",
     "the hash is not 64 lowercase hex"},
    {"[tenant a]\nlanguages = python\nkey = "
     "SHA256:0000000000000000000000000000000000000000000000000000000000000001\n",
     "not 'sha256:'"},
    {"[tenant a]\nlanguages = python\nkey = " H1 "\nkey = " H1 "\n",
     "t.conf:4: key 'key': key 000000000000 is listed twice"},
    {"[tenant a]\nlanguages = python\nkey = " H1 "\n[tenant b]\nlanguages = python\nkey = " H2
     "\nkey = " H1 "\n",
     "t.conf:7: key 'key': key 000000000000 is listed twice"},
    /* ceilings */
    {"[tenant a]\nlanguages = python\nmax_timeout = 0\n", "must not be 0"},
    {"[tenant a]\nlanguages = python\nmax_timeout = 5m\n", "unknown suffix"},
    {"[tenant a]\nlanguages = python\nmax_timeout = 86401s\n", "is above 86400000 ms"},
    {"[tenant a]\nlanguages = python\nmax_cpu = -1\n", "not a non-negative integer"},
    {"[tenant a]\nlanguages = python\nmax_memory = 1T\n", "unknown suffix"},
    {"[tenant a]\nlanguages = python\nmax_memory = 1025G\n", "is above"},
    {"[tenant a]\nlanguages = python\nmax_memory = 0M\n", "must not be 0"},
    {"[tenant a]\nlanguages = python\nmax_pids = 4194305\n", "is above 4194304"},
    {"[tenant a]\nlanguages = python\nmax_pids = 10K\n", "trailing junk"},
    {"[tenant a]\nlanguages = python\nmax_tmpfs = 0\n", "must not be 0"},
    {"[tenant a]\nlanguages = python\nmax_output = 99999999999999999999G\n", "out of range"},
    /* admission */
    {"[tenant a]\nlanguages = python\nnetwork = maybe\n", "is not yes, no"},
    {"[tenant a]\nlanguages = python\nmax_concurrent_jobs = 0\n", "'0' is outside 1..65536"},
    {"[tenant a]\nlanguages = python\nmax_concurrent_jobs = 65537\n", "is outside"},
    {"[tenant a]\nlanguages = python\nrate = 0\n", "is outside 0.001..1000000"},
    {"[tenant a]\nlanguages = python\nrate = 0.0009\n", "is outside"},
    {"[tenant a]\nlanguages = python\nrate = 1000000.5\n", "is outside"},
    {"[tenant a]\nlanguages = python\nrate = 1e3\n", "is not a decimal number"},
    {"[tenant a]\nlanguages = python\nrate = .5\n", "is not a decimal number"},
    {"[tenant a]\nlanguages = python\nrate = 5.\n", "is not a decimal number"},
    {"[tenant a]\nlanguages = python\nrate = -1\n", "is not a decimal number"},
    {"[tenant a]\nlanguages = python\nrate = 1,5\n", "is not a decimal number"},
    {"[tenant a]\nlanguages = python\nrate = 0.0000000001\n", "is not a decimal number"},
    {"[tenant a]\nlanguages = python\nburst = 0\n", "is outside 1..1000000"},
    {"[tenant a]\nlanguages = python\nburst = 2.5\n", "trailing junk"},
    {"[tenant a]\nlanguages = python\ncpu_seconds_per_hour = 1000000001\n", "is outside"},
    {"[tenant a]\nlanguages = python\nmax_sessions = 1000001\n", "is outside"},
    {"[tenant a]\nlanguages = python\nmax_sessions = x\n", "not a non-negative integer"},
    {"[tenant a]\nlanguages = python\x7f\n", "control character"},
};

static void test_rejections(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rejections) / sizeof(rejections[0]); i++) {
		err[0] = '\0';
		if (parse(rejections[i].text) != -1)
			fail_msg("accepted: %s", rejections[i].text);
		assert_contains(err, rejections[i].msg);
		assert_contains(err, "t.conf");
		/* Nothing usable is left behind. */
		assert_int_equal(T.n, 0);
		assert_null(T.t);
	}
}

/* Each numeric key at both ends of its range lands in its own field, and one
 * step past an end is refused with the whole message, so a row of the key
 * table with another key's bounds, unit or field cannot pass. */
static void test_key_edges(void **state)
{
	static const char lo[] = "[tenant a]\nlanguages = python\n"
				 "max_timeout = 1\nmax_cpu = 1ms\nmax_memory = 1\nmax_pids = 1\n"
				 "max_tmpfs = 1\nmax_output = 1\nnetwork = false\n"
				 "max_concurrent_jobs = 1\nburst = 1\ncpu_seconds_per_hour = 0\n"
				 "max_sessions = 0\n";
	static const char hi[] = "[tenant a]\nlanguages = python\n"
				 "max_timeout = 86400s\nmax_cpu = 86400000\nmax_memory = 1024G\n"
				 "max_pids = 4194304\nmax_tmpfs = 1099511627776\n"
				 "max_output = 1048576M\nnetwork = true\n"
				 "max_concurrent_jobs = 65536\nburst = 1000000\n"
				 "cpu_seconds_per_hour = 1000000000\nmax_sessions = 1000000\n";
	static const struct {
		const char *line;
		const char *msg;
	} past[] = {
	    {"max_timeout = 86400001", "'86400001' is above 86400000 ms"},
	    {"max_cpu = 86401s", "'86401s' is above 86400000 ms"},
	    {"max_cpu = 0ms", "must not be 0 (leave the key out for no ceiling)"},
	    {"max_memory = 1025G", "'1025G' is above 1099511627776 bytes"},
	    {"max_pids = 4194305", "'4194305' is above 4194304"},
	    {"max_pids = 0", "must not be 0 (leave the key out for no ceiling)"},
	    {"max_tmpfs = 1099511627777", "'1099511627777' is above 1099511627776 bytes"},
	    {"max_output = 1048577M", "'1048577M' is above 1099511627776 bytes"},
	    {"network = 1", "'1' is not yes, no, true or false"},
	    {"max_concurrent_jobs = 65537", "'65537' is outside 1..65536"},
	    {"burst = 1000001", "'1000001' is outside 1..1000000"},
	    {"burst = 0", "'0' is outside 1..1000000"},
	    {"cpu_seconds_per_hour = 1000000001", "'1000000001' is outside 0..1000000000"},
	    {"max_sessions = 1000001", "'1000001' is outside 0..1000000"},
	};
	const struct tenant *t;
	char text[256], want[256];

	(void)state;
	assert_int_equal(parse(lo), 0);
	t = &T.t[0];
	assert_int_equal(t->ceiling.wall_ms, 1);
	assert_int_equal(t->ceiling.cpu_ms, 1);
	assert_int_equal(t->ceiling.memory_bytes, 1);
	assert_int_equal(t->ceiling.pids, 1);
	assert_int_equal(t->ceiling.tmpfs_bytes, 1);
	assert_int_equal(t->ceiling.output_bytes, 1);
	assert_false(t->network);
	assert_int_equal(t->max_concurrent_jobs, 1);
	assert_int_equal(t->burst, 1);
	assert_int_equal(t->cpu_seconds_per_hour, 0);
	assert_int_equal(t->max_sessions, 0);

	assert_int_equal(parse(hi), 0);
	t = &T.t[0];
	assert_int_equal(t->ceiling.wall_ms, 86400000);
	assert_int_equal(t->ceiling.cpu_ms, 86400000);
	assert_int_equal(t->ceiling.memory_bytes, 1ull << 40);
	assert_int_equal(t->ceiling.pids, 4194304);
	assert_int_equal(t->ceiling.tmpfs_bytes, 1ull << 40);
	assert_int_equal(t->ceiling.output_bytes, 1ull << 40);
	assert_true(t->network);
	assert_int_equal(t->max_concurrent_jobs, 65536);
	assert_int_equal(t->burst, 1000000);
	assert_int_equal(t->cpu_seconds_per_hour, 1000000000);
	assert_int_equal(t->max_sessions, 1000000);

	for (size_t i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		size_t keylen = strcspn(past[i].line, " ");

		snprintf(text, sizeof(text), "[tenant a]\nlanguages = python\n%s\n", past[i].line);
		snprintf(want, sizeof(want), "t.conf:3: key '%.*s': %s", (int)keylen, past[i].line,
			 past[i].msg);
		assert_int_equal(parse(text), -1);
		assert_string_equal(err, want);
		assert_int_equal(T.n, 0);
	}
}

static void test_too_many(void **state)
{
	char *text;
	size_t cap = 2u << 20, n = 0;

	(void)state;
	text = malloc(cap);
	assert_non_null(text);

	/* TENANT_MAX_KEYS keys are fine, one more is not. */
	n = (size_t)snprintf(text, cap, "[tenant a]\nlanguages = python\n");
	for (unsigned i = 0; i < TENANT_MAX_KEYS; i++)
		n += (size_t)snprintf(text + n, cap - n, "key = sha256:%064x\n", i + 1);
	assert_int_equal(parse(text), 0);
	assert_int_equal(T.t[0].nkeys, TENANT_MAX_KEYS);
	snprintf(text + n, cap - n, "key = sha256:%064x\n", 999);
	assert_int_equal(parse(text), -1);
	assert_contains(err, "t.conf:19: key 'key': more than 16 keys");

	/* TENANT_MAX_TENANTS tenants (each with a key) are fine, one more is
	 * not; the duplicate check spans them all. */
	n = 0;
	for (unsigned i = 0; i < TENANT_MAX_TENANTS; i++)
		n += (size_t)snprintf(text + n, cap - n,
				      "[tenant t%u]\nlanguages = python\nkey = sha256:%064x\n", i,
				      i + 1);
	assert_int_equal(parse(text), 0);
	assert_int_equal(T.n, TENANT_MAX_TENANTS);
	assert_string_equal(tenants_find(&T, "t1023")->name, "t1023");
	assert_int_equal(tenants_find(&T, "t1023")->keys[0].hash[31], 1024 & 0xff);
	snprintf(text + n, cap - n, "[tenant late]\nlanguages = python\n");
	assert_int_equal(parse(text), -1);
	assert_contains(err, "more than 1024 tenants");
	snprintf(text + n, cap - n, "[tenant t0]\n");
	assert_int_equal(parse(text), -1);
	assert_contains(err, "appears twice");

	/* The last tenant repeats the first tenant's key. */
	n = 0;
	for (unsigned i = 0; i < TENANT_MAX_TENANTS; i++)
		n += (size_t)snprintf(text + n, cap - n,
				      "[tenant t%u]\nlanguages = python\nkey = sha256:%064x\n", i,
				      i == TENANT_MAX_TENANTS - 1 ? 1 : i + 1);
	assert_int_equal(parse(text), -1);
	assert_contains(err, "is listed twice");
	free(text);
}

static void test_text_limits(void **state)
{
	char *big;
	size_t n = TENANT_MAX_FILE_BYTES + 1;

	(void)state;
	tenants_free(&T);
	assert_int_equal(tenants_parse("[tenant a]\n\0", 12, "t.conf", &T, err, sizeof(err)), -1);
	assert_contains(err, "t.conf:2: contains a NUL byte");
	big = malloc(n);
	assert_non_null(big);
	memset(big, '\n', n);
	assert_int_equal(tenants_parse(big, n, "t.conf", &T, err, sizeof(err)), -1);
	assert_contains(err, "larger than");
	assert_int_equal(tenants_parse(big, n - 1, "t.conf", &T, err, sizeof(err)), 0);
	free(big);
}

/* ---- keys ---- */

static bool b64url_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

static void test_generate(void **state)
{
	char k1[TENANT_KEY_LEN + 1], k2[TENANT_KEY_LEN + 1];
	char l1[TENANT_KEY_LINE_LEN + 1], l2[TENANT_KEY_LINE_LEN + 1];
	char small[TENANT_KEY_LEN];
	uint8_t h[32];
	char hex[65];

	(void)state;
	assert_int_equal(tenant_key_generate(k1, sizeof(k1), l1, sizeof(l1)), 0);
	assert_int_equal(tenant_key_generate(k2, sizeof(k2), l2, sizeof(l2)), 0);
	assert_int_equal(strlen(k1), TENANT_KEY_LEN);
	assert_int_equal(strncmp(k1, TENANT_KEY_PREFIX, 4), 0);
	for (size_t i = 4; i < TENANT_KEY_LEN; i++)
		assert_true(b64url_char(k1[i]));
	/* 32 bytes = 256 bits in 43 characters: the last carries 4 bits, so
	 * its low two bits are zero (A, E, I, ... in the alphabet). */
	assert_non_null(strchr("AEIMQUYcgkosw048", k1[TENANT_KEY_LEN - 1]));
	assert_string_not_equal(k1, k2);
	assert_string_not_equal(l1, l2);

	/* The line is sha256 of the key's bytes. */
	assert_int_equal(strlen(l1), TENANT_KEY_LINE_LEN);
	tenant_sha256(k1, strlen(k1), h);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", h[i]);
	assert_int_equal(strncmp(l1, "sha256:", 7), 0);
	assert_string_equal(l1 + 7, hex);

	assert_int_equal(tenant_key_generate(small, sizeof(small), l1, sizeof(l1)), -EINVAL);
	assert_int_equal(tenant_key_generate(k1, sizeof(k1), l1, TENANT_KEY_LINE_LEN), -EINVAL);
}

static void test_sha256_known_answer(void **state)
{
	/* FIPS 180-2 example "abc". */
	static const uint8_t abc[32] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
					0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
					0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
					0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
	uint8_t h[32];

	(void)state;
	tenant_sha256("abc", 3, h);
	assert_memory_equal(h, abc, 32);
}

static void test_authenticate(void **state)
{
	char ka[TENANT_KEY_LEN + 1], kb[TENANT_KEY_LEN + 1], kb2[TENANT_KEY_LEN + 1];
	char la[TENANT_KEY_LINE_LEN + 1], lb[TENANT_KEY_LINE_LEN + 1];
	char lb2[TENANT_KEY_LINE_LEN + 1];
	char text[1024], wrong[TENANT_KEY_LEN + 1];
	const struct tenant *t;
	const char *id = "unset";

	(void)state;
	assert_int_equal(tenant_key_generate(ka, sizeof(ka), la, sizeof(la)), 0);
	assert_int_equal(tenant_key_generate(kb, sizeof(kb), lb, sizeof(lb)), 0);
	assert_int_equal(tenant_key_generate(kb2, sizeof(kb2), lb2, sizeof(lb2)), 0);
	snprintf(text, sizeof(text),
		 "[tenant alpha]\nlanguages = python\nkey = %s\n"
		 "[tenant beta]\nlanguages = python\nkey = %s\nkey = %s\n"
		 "[tenant local]\nlanguages = python\n",
		 la, lb, lb2);
	assert_int_equal(parse(text), 0);

	t = tenants_authenticate(&T, ka, strlen(ka), &id);
	assert_ptr_equal(t, tenants_find(&T, "alpha"));
	assert_int_equal(strlen(id), TENANT_KEY_ID_LEN);
	assert_int_equal(strncmp(id, la + 7, TENANT_KEY_ID_LEN), 0);

	/* The other tenant's keys, either of them, name that tenant. */
	t = tenants_authenticate(&T, kb2, strlen(kb2), &id);
	assert_ptr_equal(t, tenants_find(&T, "beta"));
	assert_int_equal(strncmp(id, lb2 + 7, TENANT_KEY_ID_LEN), 0);
	t = tenants_authenticate(&T, kb, strlen(kb), &id);
	assert_ptr_equal(t, tenants_find(&T, "beta"));
	assert_int_equal(strncmp(id, lb + 7, TENANT_KEY_ID_LEN), 0);
	assert_ptr_equal(t->keys[0].id, id);

	/* One character off, a prefix, a key with a trailing newline. */
	memcpy(wrong, ka, sizeof(wrong));
	wrong[10] = wrong[10] == 'A' ? 'B' : 'A';
	id = "unset";
	assert_null(tenants_authenticate(&T, wrong, strlen(wrong), &id));
	assert_null(id);
	assert_null(tenants_authenticate(&T, ka, strlen(ka) - 1, &id));
	snprintf(text, sizeof(text), "%s\n", ka);
	assert_null(tenants_authenticate(&T, text, strlen(text), &id));
	/* The hash line itself is not the key. */
	assert_null(tenants_authenticate(&T, la, strlen(la), &id));
	/* Empty, NULL. */
	assert_null(tenants_authenticate(&T, "", 0, &id));
	assert_null(tenants_authenticate(&T, NULL, 5, &id));
	assert_null(tenants_authenticate(NULL, ka, strlen(ka), &id));
	assert_non_null(tenants_authenticate(&T, ka, strlen(ka), NULL));

	/* The key is len bytes, not a C string. */
	memcpy(text, ka, strlen(ka));
	memcpy(text + strlen(ka), "garbage", 8);
	assert_ptr_equal(tenants_authenticate(&T, text, strlen(ka), &id),
			 tenants_find(&T, "alpha"));
}

/* Presented keys over 256 bytes are refused even when their hash is on
 * file; 256 bytes still work (so the refusal is the length rule). */
static void test_overlong(void **state)
{
	char k256[TENANT_KEY_MAX_PRESENTED], k257[TENANT_KEY_MAX_PRESENTED + 1];
	char text[512];
	uint8_t h256[32], h257[32];
	char x256[65], x257[65];
	const char *id;

	(void)state;
	memset(k256, 'k', sizeof(k256));
	memset(k257, 'k', sizeof(k257));
	tenant_sha256(k256, sizeof(k256), h256);
	tenant_sha256(k257, sizeof(k257), h257);
	for (int i = 0; i < 32; i++) {
		snprintf(x256 + 2 * i, 3, "%02x", h256[i]);
		snprintf(x257 + 2 * i, 3, "%02x", h257[i]);
	}
	snprintf(text, sizeof(text),
		 "[tenant long]\nlanguages = python\nkey = sha256:%s\nkey = sha256:%s\n", x256,
		 x257);
	assert_int_equal(parse(text), 0);
	assert_ptr_equal(tenants_authenticate(&T, k256, sizeof(k256), &id), &T.t[0]);
	assert_null(tenants_authenticate(&T, k257, sizeof(k257), &id));
	assert_null(tenants_authenticate(&T, k257, 4096, &id));
}

static void test_round_trip_many(void **state)
{
	enum { N = 40 };
	static char keys[N][TENANT_KEY_LEN + 1];
	char line[TENANT_KEY_LINE_LEN + 1];
	char *text = malloc(N * 160);
	size_t n = 0;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < N; i++) {
		assert_int_equal(tenant_key_generate(keys[i], sizeof(keys[i]), line, sizeof(line)),
				 0);
		if (i % 4 == 0)
			n += (size_t)sprintf(text + n, "[tenant t%d]\nlanguages = python\n", i / 4);
		n += (size_t)sprintf(text + n, "key = %s\n", line);
	}
	assert_int_equal(tenants_parse(text, n, "t.conf", &T, err, sizeof(err)), 0);
	for (int i = 0; i < N; i++) {
		char name[16];
		const char *id;
		const struct tenant *t = tenants_authenticate(&T, keys[i], TENANT_KEY_LEN, &id);

		snprintf(name, sizeof(name), "t%d", i / 4);
		assert_non_null(t);
		assert_string_equal(t->name, name);
		assert_ptr_equal(id, t->keys[i % 4].id);
	}
	free(text);
}

/* ---- `cellgate key new` ---- */

/* Runs key_cli with stdout in a file and stderr discarded; returns the exit
 * status and the output in out. */
static int run_key_cli(char **argv, int argc, char *out, size_t outsize)
{
	char path[] = "/tmp/cellgate-keycli-XXXXXX";
	int fd = mkstemp(path), saved_out, saved_err, devnull, rc;
	ssize_t n;

	assert_true(fd >= 0);
	assert_int_equal(unlink(path), 0);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_true(saved_out >= 0 && saved_err >= 0 && devnull >= 0);
	assert_true(dup2(fd, STDOUT_FILENO) >= 0);
	assert_true(dup2(devnull, STDERR_FILENO) >= 0);
	rc = key_cli(argc, argv);
	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(saved_out, STDOUT_FILENO) >= 0);
	assert_true(dup2(saved_err, STDERR_FILENO) >= 0);
	close(saved_out);
	close(saved_err);
	close(devnull);
	n = pread(fd, out, outsize - 1, 0);
	assert_true(n >= 0);
	out[n] = '\0';
	close(fd);
	return rc;
}

static void test_key_cli(void **state)
{
	char out[512], key[128], line[128], text[512];
	char a0[] = "key", a1[] = "new", a2[] = "--tenant", a3[] = "team-7_b";
	char bad_name[] = "Team", eq[] = "--tenant=ok", junk[] = "--force", other[] = "old";
	const char *id;

	(void)state;
	char *argv[] = {a0, a1, a2, a3, NULL};
	assert_int_equal(run_key_cli(argv, 4, out, sizeof(out)), 0);
	/* Exactly: key, blank line, comment, key line. */
	assert_int_equal(sscanf(out, "%127[^\n]\n", key), 1);
	assert_int_equal(strlen(key), TENANT_KEY_LEN);
	assert_int_equal(strncmp(key, "cgk_", 4), 0);
	static const char mid[] = "\n\n# add to [tenant team-7_b] in the tenants file:\nkey = ";
	const char *rest = out + strlen(key);
	assert_int_equal(strncmp(rest, mid, sizeof(mid) - 1), 0);
	rest += sizeof(mid) - 1;
	assert_int_equal(sscanf(rest, "%127[^\n]", line), 1);
	assert_int_equal(strlen(line), TENANT_KEY_LINE_LEN);
	assert_string_equal(rest + strlen(line), "\n");

	/* The printed line authenticates the printed key. */
	snprintf(text, sizeof(text), "[tenant team-7_b]\nlanguages = python\nkey = %s\n", line);
	assert_int_equal(parse(text), 0);
	assert_ptr_equal(tenants_authenticate(&T, key, strlen(key), &id), &T.t[0]);
	assert_int_equal(strncmp(id, line + 7, TENANT_KEY_ID_LEN), 0);

	char *argv_eq[] = {a0, a1, eq, NULL};
	assert_int_equal(run_key_cli(argv_eq, 3, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "# add to [tenant ok] in the tenants file:\n"));

	/* Usage errors: exit 2, nothing on stdout. */
	char *u1[] = {a0, NULL};
	char *u2[] = {a0, other, a2, a3, NULL};
	char *u3[] = {a0, a1, NULL};
	char *u4[] = {a0, a1, a2, NULL};
	char *u5[] = {a0, a1, a2, bad_name, NULL};
	char *u6[] = {a0, a1, a2, a3, junk, NULL};
	char *u7[] = {a0, a1, a2, a3, eq, NULL};
	struct {
		char **argv;
		int argc;
	} usage[] = {{u1, 1}, {u2, 4}, {u3, 2}, {u4, 3}, {u5, 4}, {u6, 5}, {u7, 5}};
	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		assert_int_equal(run_key_cli(usage[i].argv, usage[i].argc, out, sizeof(out)), 2);
		assert_string_equal(out, "");
	}
}

/* ---- limits ---- */

static void add_profile(struct ipc_hello_ok *h, const char *name, const char *lang, int net)
{
	struct ipc_profile *p = &h->profiles[h->nprofiles++];

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->language, sizeof(p->language), "%s", lang);
	p->maximum.wall_ms = 60000;
	p->maximum.memory_bytes = 1u << 30;
	p->network = (uint8_t)net;
}

static void test_limits_for(void **state)
{
	struct ipc_hello_ok hello;
	struct tenant_limits tl;
	const struct tenant *t;

	(void)state;
	memset(&hello, 0, sizeof(hello));
	add_profile(&hello, "python", "python", 0);
	add_profile(&hello, "javascript", "javascript", 0);
	add_profile(&hello, "python-net", "python", 1);
	add_profile(&hello, "ruby", "ruby", 0);
	add_profile(&hello, "py2", "python", 0);
	assert_int_equal(parse("[tenant closed]\nlanguages = python\nmax_timeout = 5s\n"
			       "max_memory = 128M\nmax_output = 1K\n"
			       "[tenant open]\nlanguages = python javascript\nnetwork = yes\n"
			       "[tenant none]\nlanguages = cobol\nnetwork = yes\n"),
			 0);

	t = tenants_find(&T, "closed");
	memset(&tl, 0xff, sizeof(tl));
	tenant_limits_for(t, &hello, &tl);
	assert_string_equal(tl.name, "closed");
	assert_false(tl.network);
	assert_int_equal(tl.nprofiles, 2);
	assert_string_equal(tl.profiles[0].profile, "python");
	assert_string_equal(tl.profiles[1].profile, "py2");
	for (unsigned i = 0; i < tl.nprofiles; i++) {
		assert_int_equal(tl.profiles[i].maximum.wall_ms, 5000);
		assert_int_equal(tl.profiles[i].maximum.memory_bytes, 128u << 20);
		assert_int_equal(tl.profiles[i].maximum.output_bytes, 1024);
		assert_int_equal(tl.profiles[i].maximum.cpu_ms, 0);
		assert_int_equal(tl.profiles[i].maximum.pids, 0);
		assert_int_equal(tl.profiles[i].maximum.tmpfs_bytes, 0);
	}

	t = tenants_find(&T, "open");
	tenant_limits_for(t, &hello, &tl);
	assert_true(tl.network);
	assert_int_equal(tl.nprofiles, 4);
	assert_string_equal(tl.profiles[0].profile, "python");
	assert_string_equal(tl.profiles[1].profile, "javascript");
	assert_string_equal(tl.profiles[2].profile, "python-net");
	assert_string_equal(tl.profiles[3].profile, "py2");
	assert_int_equal(tl.profiles[2].maximum.wall_ms, 0);

	t = tenants_find(&T, "none");
	tenant_limits_for(t, &hello, &tl);
	assert_int_equal(tl.nprofiles, 0);
	assert_true(tl.network);

	/* No HELLO_OK yet: nothing to run. */
	tenant_limits_for(tenants_find(&T, "open"), NULL, &tl);
	assert_string_equal(tl.name, "open");
	assert_int_equal(tl.nprofiles, 0);
}

/* ---- files ---- */

static char tmpdir[64];

static int files_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cellgate-tenants-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int files_teardown(void **state)
{
	static const char *const names[] = {"ok.conf",	"gw.conf",  "ow.conf", "link.conf",
					    "big.conf", "bad.conf", "dir"};
	char path[256];

	(void)state;
	tenants_free(&T);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		if (unlink(path) < 0)
			(void)rmdir(path);
	}
	return rmdir(tmpdir);
}

static const char *write_file(const char *name, const char *text, size_t len, mode_t mode)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

static void test_load(void **state)
{
	static const char text[] = "[tenant a]\nlanguages = python\nkey = " H1 "\n";
	char path[256], target[256];
	char *big;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.conf", tmpdir);
	assert_int_equal(tenants_load(path, &T, err, sizeof(err)), -1);
	assert_contains(err, "No such file");

	snprintf(target, sizeof(target), "%s", write_file("ok.conf", text, sizeof(text) - 1, 0600));
	assert_int_equal(tenants_load(target, &T, err, sizeof(err)), 0);
	assert_int_equal(T.n, 1);
	assert_int_equal(T.t[0].nkeys, 1);
	tenants_free(&T);
	assert_int_equal(T.n, 0);
	assert_null(T.t);
	tenants_free(&T); /* twice is harmless */

	assert_int_equal(
	    tenants_load(write_file("gw.conf", text, sizeof(text) - 1, 0660), &T, err, sizeof(err)),
	    -1);
	assert_contains(err, "writable by group or others");
	assert_int_equal(
	    tenants_load(write_file("ow.conf", text, sizeof(text) - 1, 0602), &T, err, sizeof(err)),
	    -1);
	assert_contains(err, "writable by group or others");

	snprintf(path, sizeof(path), "%s/link.conf", tmpdir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(tenants_load(path, &T, err, sizeof(err)), -1);
	assert_contains(err, "symbolic link");

	snprintf(path, sizeof(path), "%s/dir", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(tenants_load(path, &T, err, sizeof(err)), -1);
	assert_contains(err, "not a regular file");

	big = malloc(TENANT_MAX_FILE_BYTES + 1);
	assert_non_null(big);
	memset(big, '\n', TENANT_MAX_FILE_BYTES + 1);
	assert_int_equal(tenants_load(write_file("big.conf", big, TENANT_MAX_FILE_BYTES + 1, 0644),
				      &T, err, sizeof(err)),
			 -1);
	assert_contains(err, "larger than 1048576 bytes");
	free(big);

	const char *bad =
	    write_file("bad.conf", "\n[tenant x]\nlanguages = python\nrate = 0\n", 40, 0644);
	assert_int_equal(tenants_load(bad, &T, err, sizeof(err)), -1);
	assert_contains(err, bad);
	assert_contains(err, ":4: key 'rate'");
	assert_int_equal(T.n, 0);
}

static void test_example_file(void **state)
{
	static const char path[] = "etc/tenants.conf";
	const struct tenant *t;
	struct stat st;

	(void)state;
	assert_int_equal(stat(path, &st), 0);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		fail_msg("%s is writable by group or others in this checkout", path);
	if (tenants_load(path, &T, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(T.n, 2);

	t = tenants_find(&T, "dev");
	assert_non_null(t);
	assert_int_equal(t->nkeys, 1);
	assert_int_equal(t->nlanguages, 2);
	assert_int_equal(t->max_concurrent_jobs, 4);

	t = tenants_find(&T, "acme");
	assert_non_null(t);
	assert_int_equal(t->nkeys, 2);
	assert_int_equal(t->nlanguages, 1);
	assert_string_equal(t->languages[0], "python");
	assert_false(t->network);
	assert_int_equal(t->ceiling.wall_ms, 30000);
	assert_int_equal(t->ceiling.cpu_ms, 20000);
	assert_int_equal(t->ceiling.memory_bytes, 512u << 20);
	assert_int_equal(t->ceiling.pids, 128);
	assert_int_equal(t->ceiling.tmpfs_bytes, 128u << 20);
	assert_int_equal(t->ceiling.output_bytes, 2u << 20);
	assert_int_equal(t->max_concurrent_jobs, 8);
	assert_float_equal(t->rate_per_s, 2.5, 1e-12);
	assert_int_equal(t->burst, 10);
	assert_int_equal(t->cpu_seconds_per_hour, 600);
	assert_int_equal(t->max_sessions, 16);
	/* Nobody holds the example keys: a fresh key opens nothing. */
	char k[TENANT_KEY_LEN + 1], l[TENANT_KEY_LINE_LEN + 1];
	assert_int_equal(tenant_key_generate(k, sizeof(k), l, sizeof(l)), 0);
	assert_null(tenants_authenticate(&T, k, strlen(k), NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_defaults, teardown_table),
	    cmocka_unit_test_teardown(test_every_key, teardown_table),
	    cmocka_unit_test_teardown(test_rejections, teardown_table),
	    cmocka_unit_test_teardown(test_key_edges, teardown_table),
	    cmocka_unit_test_teardown(test_too_many, teardown_table),
	    cmocka_unit_test_teardown(test_text_limits, teardown_table),
	    cmocka_unit_test(test_generate),
	    cmocka_unit_test(test_sha256_known_answer),
	    cmocka_unit_test_teardown(test_authenticate, teardown_table),
	    cmocka_unit_test_teardown(test_overlong, teardown_table),
	    cmocka_unit_test_teardown(test_round_trip_many, teardown_table),
	    cmocka_unit_test_teardown(test_key_cli, teardown_table),
	    cmocka_unit_test_teardown(test_limits_for, teardown_table),
	    cmocka_unit_test_setup_teardown(test_load, files_setup, files_teardown),
	    cmocka_unit_test_teardown(test_example_file, teardown_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
