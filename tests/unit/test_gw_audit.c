/* The audit file: records chain across reopen, every kind of tampering is
 * found at the right record, a failed write leaves a verifiable file and an
 * unhealthy audit until a write succeeds, a file that cannot continue its
 * chain is refused, and `cellgate audit verify` exits as documented. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "audit_cli.h"

static char dir[256];
static char path[300];

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/cg-audit-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/audit.log", dir);
	return 0;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const uint8_t code_sum[32] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7};

static struct audit_job sample_job(uint64_t id)
{
	struct audit_job j;
	memset(&j, 0, sizeof(j));
	j.who.tenant = "acme";
	j.who.key_id = "k1";
	j.who.client = "127.0.0.1:5555";
	j.who.transport = "http";
	j.who.session = NULL;
	j.execution_id = id;
	j.language = "python";
	j.profile = "python";
	j.code_sha256 = code_sum;
	j.code_bytes = 17;
	j.code = "print('hello')\n";
	j.requested.wall_ms = 5000;
	j.requested.memory_bytes = 1ull << 28;
	j.applied.wall_ms = 5000;
	j.applied.cpu_ms = 10000;
	j.applied.memory_bytes = 1ull << 28;
	j.applied.pids = 64;
	j.applied.tmpfs_bytes = 1ull << 26;
	j.applied.output_bytes = 1ull << 20;
	j.status = "exit";
	j.exit_code = 3;
	j.signal = 0;
	j.wall_ms = 123;
	j.cpu_ms = 45;
	j.memory_peak_bytes = 9876543210ull;
	j.stdout_bytes = 6;
	j.stderr_bytes = 0;
	return j;
}

static struct audit_denial sample_denial(void)
{
	struct audit_denial d;
	memset(&d, 0, sizeof(d));
	d.who.client = "10.0.0.9:40000";
	d.who.transport = "http";
	d.method = "POST";
	d.path = "/mcp";
	d.http_status = 401;
	d.reason = "bad key";
	return d;
}

static struct audit *open_file(const char *p, bool log_code)
{
	struct audit_options o = {.file = p, .journald = 2, .fsync = true, .log_code = log_code};
	char err[256] = "";
	struct audit *a = audit_open(&o, err, sizeof(err));
	if (!a)
		fail_msg("audit_open(%s): %s", p, err);
	return a;
}

/* audit_open is expected to fail; returns its message. */
static void open_fails(const char *p, const char *why_part)
{
	struct audit_options o = {.file = p, .journald = 2};
	char err[256] = "";
	struct audit *a = audit_open(&o, err, sizeof(err));
	if (a) {
		audit_close(a);
		fail_msg("audit_open(%s) accepted a file it must refuse", p);
	}
	if (!strstr(err, why_part))
		fail_msg("audit_open error \"%s\" does not mention \"%s\"", err, why_part);
}

static char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static void spit(const char *p, const char *data, size_t len)
{
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The file's lines (without newlines); returns the count. */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	return n;
}

/* Runs audit_verify_file and returns its exit code; *msg gets its output. */
static int verify(const char *p, char **msg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	int rc = audit_verify_file(p, out);
	assert_int_equal(fclose(out), 0);
	*msg = buf;
	return rc;
}

static void assert_verifies(const char *p, unsigned records)
{
	char *msg = NULL, want[64];
	int rc = verify(p, &msg);
	snprintf(want, sizeof(want), "ok: %u records", records);
	if (rc != 0 || strncmp(msg, want, strlen(want)) != 0)
		fail_msg("verify %s: rc %d, \"%s\", wanted \"%s\"", p, rc, msg, want);
	free(msg);
}

static void assert_broken(const char *p, const char *prefix, const char *why_part)
{
	char *msg = NULL;
	int rc = verify(p, &msg);
	if (rc != 1 || strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, why_part))
		fail_msg("verify: rc %d, \"%s\", wanted \"%s...%s\"", rc, msg, prefix, why_part);
	free(msg);
}

static void sha256_hex(const char *data, size_t len, char out[65])
{
	uint8_t md[32];
	unsigned int n = 0;
	assert_int_equal(EVP_Digest(data, len, md, &n, EVP_sha256(), NULL), 1);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!it)
		fail_msg("missing member %s", k);
	return it;
}

/* Writes start, end, denied: three records. */
static void write_three(struct audit *a, uint64_t id)
{
	struct audit_job j = sample_job(id);
	struct audit_denial d = sample_denial();
	assert_int_equal(audit_job_start(a, &j), 0);
	assert_int_equal(audit_job_end(a, &j), 0);
	assert_int_equal(audit_denied(a, &d), 0);
	assert_true(audit_healthy(a));
}

/* The chain, checked independently of audit_verify_file: seq counts from 1
 * and prev is the SHA-256 of the previous line (64 zeros first). */
static void assert_chain(const char *p, size_t want_records)
{
	char *text = slurp(p, NULL), *lines[64];
	size_t n = split_lines(text, lines, 64);
	assert_int_equal(n, want_records);
	char prev[65];
	memset(prev, '0', 64);
	prev[64] = '\0';
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_Parse(lines[i]);
		assert_non_null(o);
		assert_int_equal((uint64_t)get(o, "seq")->valuedouble, i + 1);
		assert_string_equal(get(o, "prev")->valuestring, prev);
		cJSON_Delete(o);
		sha256_hex(lines[i], strlen(lines[i]), prev);
	}
	free(text);
}

static void test_chain_across_reopen(void **state)
{
	(void)state;
	struct audit *a = open_file(path, false);
	write_three(a, 1);
	audit_close(a);
	assert_verifies(path, 3);

	a = open_file(path, false);
	write_three(a, 2);
	audit_close(a);
	assert_verifies(path, 6);
	assert_chain(path, 6);

	/* The head verify prints is the last line's hash. */
	char *text = slurp(path, NULL), *lines[8], head[65], *msg = NULL;
	assert_int_equal(split_lines(text, lines, 8), 6);
	sha256_hex(lines[5], strlen(lines[5]), head);
	assert_int_equal(verify(path, &msg), 0);
	assert_non_null(strstr(msg, head));
	free(msg);
	free(text);

	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_record_fields(void **state)
{
	(void)state;
	struct audit *a = open_file(path, false);
	write_three(a, 0xabc);
	audit_close(a);

	char *text = slurp(path, NULL), *lines[4];
	assert_int_equal(split_lines(text, lines, 4), 3);

	/* Field order: seq, prev, time, event first. */
	cJSON *start = cJSON_Parse(lines[0]);
	assert_non_null(start);
	const char *order[] = {"seq",	   "prev",    "time",	     "event",	   "tenant",
			       "key_id",   "client",  "transport",   "session",	   "execution_id",
			       "language", "profile", "code_sha256", "code_bytes", "requested"};
	const cJSON *it = start->child;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++, it = it->next) {
		assert_non_null(it);
		assert_string_equal(it->string, order[i]);
	}
	assert_null(it); /* no code without log_code */
	assert_string_equal(get(start, "event")->valuestring, "job.start");
	const char *t = get(start, "time")->valuestring;
	assert_int_equal(strlen(t), 24); /* 2025-01-02T03:04:05.678Z */
	assert_true(t[4] == '-' && t[10] == 'T' && t[19] == '.' && t[23] == 'Z');
	assert_true(cJSON_IsNull(get(start, "session")));
	assert_string_equal(get(start, "execution_id")->valuestring, "0000000000000abc");
	assert_string_equal(get(start, "code_sha256")->valuestring,
			    "deadbeef01020304050607000000000000000000000000000000000000000000");
	assert_int_equal(get(start, "code_bytes")->valueint, 17);
	const cJSON *req = get(start, "requested");
	assert_int_equal(cJSON_GetArraySize(req), 2); /* zero fields are left out */
	assert_int_equal(get(req, "wall_ms")->valuedouble, 5000);
	assert_int_equal(get(req, "memory_bytes")->valuedouble, 1ull << 28);
	assert_null(cJSON_GetObjectItem(start, "applied"));

	cJSON *end = cJSON_Parse(lines[1]);
	assert_non_null(end);
	assert_string_equal(get(end, "event")->valuestring, "job.end");
	assert_int_equal(cJSON_GetArraySize(get(end, "applied")), 6);
	assert_string_equal(get(end, "status")->valuestring, "exit");
	assert_int_equal(get(end, "exit_code")->valueint, 3);
	assert_int_equal(get(end, "signal")->valueint, 0);
	assert_int_equal(get(end, "wall_ms")->valueint, 123);
	assert_int_equal(get(end, "cpu_ms")->valueint, 45);
	assert_true(get(end, "memory_peak_bytes")->valuedouble == 9876543210.0);
	assert_int_equal(get(end, "stdout_bytes")->valueint, 6);
	assert_int_equal(get(end, "stderr_bytes")->valueint, 0);
	/* Large integers are written exactly, not in exponent form. */
	assert_non_null(strstr(lines[1], "\"memory_peak_bytes\":9876543210,"));

	cJSON *den = cJSON_Parse(lines[2]);
	assert_non_null(den);
	assert_string_equal(get(den, "event")->valuestring, "denied");
	assert_true(cJSON_IsNull(get(den, "tenant")));
	assert_true(cJSON_IsNull(get(den, "key_id")));
	assert_string_equal(get(den, "method")->valuestring, "POST");
	assert_string_equal(get(den, "path")->valuestring, "/mcp");
	assert_int_equal(get(den, "http_status")->valueint, 401);
	assert_string_equal(get(den, "reason")->valuestring, "bad key");
	assert_null(cJSON_GetObjectItem(den, "execution_id"));

	/* No record has anything that could hold a key: key_id is the only
	 * member whose name mentions "key". */
	cJSON *all[] = {start, end, den};
	for (size_t i = 0; i < 3; i++) {
		assert_null(cJSON_GetObjectItemCaseSensitive(all[i], "key"));
		for (const cJSON *m = all[i]->child; m; m = m->next)
			if (strstr(m->string, "key"))
				assert_string_equal(m->string, "key_id");
	}
	cJSON_Delete(start);
	cJSON_Delete(end);
	cJSON_Delete(den);
	free(text);
}

/* Caller strings are cut to a bound (and made valid UTF-8), so a record
 * stays small whatever a client sends as a path or session id. */
static void test_long_fields(void **state)
{
	(void)state;
	size_t n = 100000;
	char *junk = malloc(n + 1);
	assert_non_null(junk);
	memset(junk, 0x01, n); /* escapes to six bytes each */
	junk[n] = '\0';
	struct audit_denial d = sample_denial();
	d.path = junk;
	d.method = junk;
	d.who.session = junk;
	d.reason = "\xff\xfe bad";
	struct audit *a = open_file(path, false);
	assert_int_equal(audit_denied(a, &d), 0);
	audit_close(a);
	free(junk);

	size_t len = 0;
	char *text = slurp(path, &len);
	assert_true(len < (64u << 10));
	cJSON *o = cJSON_Parse(text);
	assert_non_null(o);
	assert_int_equal(strlen(get(o, "path")->valuestring), 512);
	assert_string_equal(get(o, "reason")->valuestring, "\xef\xbf\xbd\xef\xbf\xbd bad");
	cJSON_Delete(o);
	free(text);
	assert_verifies(path, 1);
}

static void test_log_code(void **state)
{
	(void)state;
	struct audit *a = open_file(path, true);
	struct audit_job j = sample_job(7);
	assert_int_equal(audit_job_start(a, &j), 0);
	assert_int_equal(audit_job_end(a, &j), 0);

	/* Code whose JSON form is twice its size ("\n" escapes) is cut so the
	 * record stays bounded, and says so. */
	size_t big = 900u << 10;
	char *code = malloc(big + 1);
	assert_non_null(code);
	memset(code, '\n', big);
	code[big] = '\0';
	j.code = code;
	j.code_bytes = big;
	assert_int_equal(audit_job_start(a, &j), 0);
	free(code);
	audit_close(a);

	size_t len = 0;
	char *text = slurp(path, &len), *lines[4];
	assert_int_equal(split_lines(text, lines, 4), 3);
	cJSON *s = cJSON_Parse(lines[0]);
	assert_non_null(s);
	assert_string_equal(get(s, "code")->valuestring, "print('hello')\n");
	assert_null(cJSON_GetObjectItem(s, "code_truncated"));
	cJSON_Delete(s);
	cJSON *e = cJSON_Parse(lines[1]);
	assert_null(cJSON_GetObjectItem(e, "code")); /* end records never carry code */
	cJSON_Delete(e);
	cJSON *b = cJSON_Parse(lines[2]);
	assert_non_null(b);
	assert_true(cJSON_IsTrue(get(b, "code_truncated")));
	size_t kept = strlen(get(b, "code")->valuestring);
	assert_true(kept > 0 && kept <= (1u << 19)); /* 1 MiB of JSON = 512 Ki "\n" */
	assert_true(len < (2u << 20));
	cJSON_Delete(b);
	free(text);

	assert_verifies(path, 3);
	a = open_file(path, false); /* the big last line still continues the chain */
	assert_int_equal(audit_job_end(a, &j), 0);
	audit_close(a);
	assert_verifies(path, 4);
}

/* A file of 4 records (start, end, denied, start) and its lines. */
static char *four_records(char **lines)
{
	struct audit *a = open_file(path, false);
	write_three(a, 9);
	struct audit_job j = sample_job(10);
	assert_int_equal(audit_job_start(a, &j), 0);
	audit_close(a);
	assert_verifies(path, 4);
	char *text = slurp(path, NULL);
	assert_int_equal(split_lines(text, lines, 8), 4);
	return text;
}

static void write_lines(char **lines, const int *order, size_t n, const char *tail)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[order[i]]);
	if (tail)
		fputs(tail, f);
	assert_int_equal(fclose(f), 0);
	spit(path, buf, len);
	free(buf);
}

static void test_tamper_modify(void **state)
{
	(void)state;
	char *lines[8];
	char *text = four_records(lines);
	/* Record 2 (job.end) says the job ended well. */
	char *st = strstr(lines[1], "\"status\":\"exit\"");
	assert_non_null(st);
	memcpy(st, "\"status\":\"ok\"  ", 15);
	const int order[] = {0, 1, 2, 3};
	write_lines(lines, order, 4, NULL);
	assert_broken(path, "broken at record 3 (line 3):", "record 2 was modified");
	free(text);
}

static void test_tamper_modify_first_and_last(void **state)
{
	(void)state;
	char *lines[8], *msg = NULL;
	char *text = four_records(lines);
	assert_int_equal(verify(path, &msg), 0);
	char *head_before = strdup(strstr(msg, "head "));
	free(msg);

	/* The last record has no successor to vouch for it: verify passes,
	 * but the head changes (journald's CELLGATE_AUDIT_HASH catches it). */
	char *t = strstr(lines[3], "acme");
	assert_non_null(t);
	t[0] = 'X';
	const int order[] = {0, 1, 2, 3};
	write_lines(lines, order, 4, NULL);
	assert_int_equal(verify(path, &msg), 0);
	assert_string_not_equal(strstr(msg, "head "), head_before);
	free(msg);
	free(head_before);
	t[0] = 'a';

	t = strstr(lines[0], "acme");
	t[0] = 'X';
	write_lines(lines, order, 4, NULL);
	assert_broken(path, "broken at record 2 (line 2):", "record 1 was modified");
	free(text);
}

static void test_tamper_delete(void **state)
{
	(void)state;
	char *lines[8];
	char *text = four_records(lines);
	const int order[] = {0, 2, 3};
	write_lines(lines, order, 3, NULL);
	assert_broken(path, "broken at record 2 (line 2):", "seq is 3, expected 2");

	const int first_gone[] = {1, 2, 3};
	write_lines(lines, first_gone, 3, NULL);
	assert_broken(path, "broken at record 1 (line 1):", "seq is 2, expected 1");
	free(text);
}

static void test_tamper_swap(void **state)
{
	(void)state;
	char *lines[8];
	char *text = four_records(lines);
	const int order[] = {0, 2, 1, 3};
	write_lines(lines, order, 4, NULL);
	assert_broken(path, "broken at record 2 (line 2):", "seq is 3, expected 2");
	free(text);
}

static void test_tamper_truncate(void **state)
{
	(void)state;
	char *lines[8];
	char *text = four_records(lines);
	char half[64];
	snprintf(half, sizeof(half), "%.40s", lines[3]);
	const int order[] = {0, 1, 2};
	write_lines(lines, order, 3, half);
	assert_broken(path, "broken at record 4 (line 4):", "no newline");
	open_fails(path, "no newline");

	/* Cut inside the line but keeping a newline: not JSON. */
	char cut[80];
	snprintf(cut, sizeof(cut), "%.40s\n", lines[3]);
	write_lines(lines, order, 3, cut);
	assert_broken(path, "broken at record 4 (line 4):", "not a JSON object");
	free(text);
}

static void test_tamper_inserted_and_garbage(void **state)
{
	(void)state;
	char *lines[8];
	char *text = four_records(lines);
	lines[4] = (char *)"{\"seq\":3,\"prev\":"
			   "\"0000000000000000000000000000000000000000000000000000000000000000\"}";
	const int order[] = {0, 1, 4, 2, 3};
	write_lines(lines, order, 5, NULL);
	assert_broken(path, "broken at record 3 (line 3):", "SHA-256 of record 2");

	lines[4] = (char *)"";
	write_lines(lines, order, 5, NULL);
	assert_broken(path, "broken at record 3 (line 3):", "empty line");

	lines[4] = (char *)"[1,2,3]";
	write_lines(lines, order, 5, NULL);
	assert_broken(path, "broken at record 3 (line 3):", "not a JSON object");
	free(text);
}

static void test_verify_edges(void **state)
{
	(void)state;
	char *msg = NULL;
	spit(path, "", 0);
	assert_int_equal(verify(path, &msg), 0);
	assert_string_equal(msg, "ok: 0 records\n");
	free(msg);

	char missing[320];
	snprintf(missing, sizeof(missing), "%s/nope", dir);
	assert_int_equal(verify(missing, &msg), 2);
	free(msg);
	assert_int_equal(verify(dir, &msg), 2);
	free(msg);

	/* A line past the 2 MiB bound is reported, not read without end. */
	size_t n = (2u << 20) + 100;
	char *big = malloc(n);
	assert_non_null(big);
	memset(big, 'x', n);
	big[n - 1] = '\n';
	spit(path, big, n);
	free(big);
	assert_broken(path, "broken at record 1 (line 1):", "longer than");
	open_fails(path, "longer than");

	/* First record whose prev is not zero. */
	spit(path,
	     "{\"seq\":1,\"prev\":"
	     "\"1111111111111111111111111111111111111111111111111111111111111111\"}\n",
	     84);
	assert_broken(path, "broken at record 1 (line 1):", "not zero");
}

static void test_open_refuses(void **state)
{
	(void)state;
	spit(path, "this is not json\n", 17);
	open_fails(path, "cannot continue the chain");

	spit(path, "{\"seq\":1}\n", 10);
	open_fails(path, "prev");

	/* A valid file followed by an empty line. */
	const char *rec =
	    "{\"seq\":1,\"prev\":"
	    "\"0000000000000000000000000000000000000000000000000000000000000000\"}\n\n";
	spit(path, rec, strlen(rec));
	open_fails(path, "empty line");

	/* Not a regular file, or reached through a symlink. */
	open_fails(dir, "");
	char fifo[320], link[320];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	open_fails(fifo, ""); /* and does not block */
	spit(path, rec, strlen(rec) - 1);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	open_fails(link, "");

	/* journald outside the allowed modes. */
	struct audit_options o = {.file = NULL, .journald = 3};
	char err[128];
	assert_null(audit_open(&o, err, sizeof(err)));
	assert_null(audit_open(NULL, err, sizeof(err)));
}

static void test_no_sinks(void **state)
{
	(void)state;
	struct audit_options o = {.file = "", .journald = 2};
	char err[128];
	struct audit *a = audit_open(&o, err, sizeof(err));
	assert_non_null(a);
	struct audit_job j = sample_job(1);
	assert_int_equal(audit_job_start(a, &j), 0);
	assert_true(audit_healthy(a));
	assert_int_equal(audit_job_start(NULL, &j), -EINVAL);
	assert_int_equal(audit_job_end(a, NULL), -EINVAL);
	assert_int_equal(audit_denied(a, NULL), -EINVAL);
	assert_false(audit_healthy(NULL));
	audit_close(a);
	audit_close(NULL);
}

/* journald=1 without a journald: refused at open, not at the first job. */
static void test_journald_required_without_journald(void **state)
{
	(void)state;
	if (access("/run/systemd/journal/socket", F_OK) == 0) {
		print_message("journald is running here; nothing to check\n");
		skip();
	}
	struct audit_options o = {.file = path, .journald = 1};
	char err[256] = "";
	assert_null(audit_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "journald"));
}

struct limit_guard {
	struct rlimit saved;
	void (*old_handler)(int);
};

/* Lets writes reach only `bytes` bytes of any file: write(2) then returns
 * EFBIG (or a short count) instead of raising SIGXFSZ.  Nothing may print
 * while the limit is on: stdout may itself be a file past it. */
static void limit_files(struct limit_guard *g, rlim_t bytes)
{
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &g->saved), 0);
	g->old_handler = signal(SIGXFSZ, SIG_IGN);
	assert_true(g->old_handler != SIG_ERR);
	struct rlimit low = {.rlim_cur = bytes, .rlim_max = g->saved.rlim_max};
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
}

static void unlimit_files(struct limit_guard *g)
{
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &g->saved), 0);
	signal(SIGXFSZ, g->old_handler);
}

static off_t file_size(const char *p)
{
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	return st.st_size;
}

static void test_failed_write(void **state)
{
	(void)state;
	struct audit *a = open_file(path, false);
	write_three(a, 1);
	off_t size = file_size(path);
	struct audit_job j = sample_job(2);
	struct audit_denial d = sample_denial();
	struct limit_guard g;

	/* No room at all: write(2) fails with EFBIG. */
	limit_files(&g, (rlim_t)size);
	int rc_none = audit_job_start(a, &j);
	bool healthy_none = audit_healthy(a);
	int rc_again = audit_denied(a, &d);
	/* Room for part of a record: a short write, which must be cut off. */
	struct rlimit part = {.rlim_cur = (rlim_t)size + 20, .rlim_max = g.saved.rlim_max};
	int set = setrlimit(RLIMIT_FSIZE, &part);
	int rc_short = audit_job_start(a, &j);
	bool healthy_short = audit_healthy(a);
	unlimit_files(&g);

	assert_int_equal(set, 0);
	assert_int_equal(rc_none, -EFBIG);
	assert_false(healthy_none);
	assert_int_equal(rc_again, -EFBIG);
	assert_true(rc_short < 0);
	assert_false(healthy_short);
	assert_int_equal(file_size(path), size);
	assert_verifies(path, 3);
	assert_false(audit_healthy(a)); /* checking writes nothing and heals nothing */

	/* Room again: the next record succeeds, continues the chain, heals. */
	assert_int_equal(audit_job_start(a, &j), 0);
	assert_true(audit_healthy(a));
	assert_int_equal(audit_job_end(a, &j), 0);
	audit_close(a);
	assert_verifies(path, 5);
	assert_chain(path, 5);
}

static void test_failed_file_replaced(void **state)
{
	(void)state;
	struct audit *a = open_file(path, false);
	write_three(a, 1);
	struct audit_job j = sample_job(2);
	struct limit_guard g;
	limit_files(&g, (rlim_t)file_size(path));
	int rc = audit_job_start(a, &j);
	unlimit_files(&g);
	assert_int_equal(rc, -EFBIG);

	/* Someone moves another file into place: records written to our
	 * descriptor would go nowhere anyone looks, so it never recovers. */
	char other[320];
	snprintf(other, sizeof(other), "%s/other", dir);
	spit(other, "", 0);
	assert_int_equal(rename(other, path), 0);
	assert_false(audit_healthy(a));
	assert_int_equal(audit_job_start(a, &j), -ESTALE);
	assert_false(audit_healthy(a));
	audit_close(a);

	/* Removed entirely. */
	assert_int_equal(unlink(path), 0);
	a = open_file(path, false);
	write_three(a, 3);
	limit_files(&g, (rlim_t)file_size(path));
	rc = audit_job_start(a, &j);
	unlimit_files(&g);
	assert_int_equal(rc, -EFBIG);
	assert_int_equal(unlink(path), 0);
	assert_false(audit_healthy(a));
	assert_int_equal(audit_job_start(a, &j), -ENOENT);
	audit_close(a);
}

/* copytruncate-style rotation: the chain restarts in the emptied file
 * instead of continuing at a seq the file no longer has. */
static void test_truncated_outside(void **state)
{
	(void)state;
	struct audit *a = open_file(path, false);
	write_three(a, 1);
	assert_int_equal(truncate(path, 0), 0);
	struct audit_job j = sample_job(2);
	assert_int_equal(audit_job_start(a, &j), 0);
	assert_int_equal(audit_job_end(a, &j), 0);
	audit_close(a);
	assert_verifies(path, 2);
	assert_chain(path, 2);
}

/* `cellgate audit verify FILE` exit codes.  Its output goes to stdout. */
static void test_cli(void **state)
{
	(void)state;
	struct audit *a = open_file(path, false);
	write_three(a, 1);
	audit_close(a);

	char *ok_args[] = {"audit", "verify", path, NULL};
	assert_int_equal(audit_cli(3, ok_args), 0);
	char *usage1[] = {"audit", NULL};
	assert_int_equal(audit_cli(1, usage1), 2);
	char *usage2[] = {"audit", "check", path, NULL};
	assert_int_equal(audit_cli(3, usage2), 2);
	char *usage3[] = {"audit", "verify", path, path, NULL};
	assert_int_equal(audit_cli(4, usage3), 2);
	char missing[320];
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	char *io_args[] = {"audit", "verify", missing, NULL};
	assert_int_equal(audit_cli(3, io_args), 2);

	char *lines[8];
	char *text = slurp(path, NULL);
	assert_int_equal(split_lines(text, lines, 8), 3);
	const int order[] = {0, 2};
	write_lines(lines, order, 2, NULL);
	assert_int_equal(audit_cli(3, ok_args), 1);
	free(text);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_chain_across_reopen),
	    T(test_record_fields),
	    T(test_long_fields),
	    T(test_log_code),
	    T(test_tamper_modify),
	    T(test_tamper_modify_first_and_last),
	    T(test_tamper_delete),
	    T(test_tamper_swap),
	    T(test_tamper_truncate),
	    T(test_tamper_inserted_and_garbage),
	    T(test_verify_edges),
	    T(test_open_refuses),
	    T(test_no_sinks),
	    T(test_journald_required_without_journald),
	    T(test_failed_write),
	    T(test_failed_file_replaced),
	    T(test_truncated_outside),
	    T(test_cli),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
