/* The audit's journald sink against a real systemd-journald.
 *
 * The test process moves into a private mount namespace, puts tmpfs over
 * /run (and /var/log/journal), starts its own systemd-journald there and
 * reads the entries back with `journalctl -D /run/log/journal -o json`.
 * Nothing outside the namespace sees any of it.  Without root, without
 * permission to unshare, or without systemd-journald the tests skip and
 * say why.
 */
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
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define JOURNAL_DIR "/run/log/journal"

static const char *const journald_paths[] = {"/lib/systemd/systemd-journald",
					     "/usr/lib/systemd/systemd-journald"};
static const char *journald_bin;
static pid_t journald_pid = -1;
static char skip_reason[256];
static char dir[256];
static char path[300];

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int start_journald(void)
{
	/* A socket left by a previous instance must not count as "ready". */
	if (unlink(JOURNAL_SOCKET) < 0 && errno != ENOENT)
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Dies with the test, and logs its own chatter to nowhere
		 * (not the host's kernel log). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		setenv("SYSTEMD_LOG_TARGET", "console", 1);
		execl(journald_bin, journald_bin, (char *)NULL);
		_exit(127);
	}
	journald_pid = pid;
	for (int i = 0; i < 200; i++) {
		if (access(JOURNAL_SOCKET, F_OK) == 0)
			return 0;
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			journald_pid = -1;
			return -ECHILD;
		}
		sleep_ms(50);
	}
	return -ETIMEDOUT;
}

static void stop_journald(void)
{
	if (journald_pid <= 0)
		return;
	kill(journald_pid, SIGTERM);
	int st;
	for (int i = 0; i < 100; i++) {
		if (waitpid(journald_pid, &st, WNOHANG) == journald_pid) {
			journald_pid = -1;
			return;
		}
		sleep_ms(50);
	}
	kill(journald_pid, SIGKILL);
	waitpid(journald_pid, &st, 0);
	journald_pid = -1;
}

static int tmpfs(const char *where)
{
	return mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
}

static int group_setup(void **state)
{
	(void)state;
	struct stat st;
	for (size_t i = 0; i < sizeof(journald_paths) / sizeof(journald_paths[0]); i++)
		if (access(journald_paths[i], X_OK) == 0)
			journald_bin = journald_paths[i];
	if (!journald_bin) {
		snprintf(skip_reason, sizeof(skip_reason), "systemd-journald is not installed");
		return 0;
	}
	if (system("command -v journalctl >/dev/null 2>&1") != 0) {
		snprintf(skip_reason, sizeof(skip_reason), "journalctl is not installed");
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(skip_reason, sizeof(skip_reason), "needs root (mounts a private /run)");
		return 0;
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(skip_reason, sizeof(skip_reason),
			 "cannot make a private mount namespace: %s", strerror(errno));
		return 0;
	}
	/* A private /run holds journald's sockets and runtime journal; a
	 * persistent journal directory, if any, is covered too. */
	if (tmpfs("/run") < 0 || mkdir("/run/systemd", 0755) < 0 ||
	    mkdir("/run/systemd/journal", 0755) < 0 || mkdir("/run/log", 0755) < 0 ||
	    (stat("/var/log/journal", &st) == 0 && tmpfs("/var/log/journal") < 0)) {
		snprintf(skip_reason, sizeof(skip_reason), "cannot mount a private /run: %s",
			 strerror(errno));
		return 0;
	}
	int r = start_journald();
	if (r < 0) {
		snprintf(skip_reason, sizeof(skip_reason), "%s did not start: %s", journald_bin,
			 strerror(-r));
		return 0;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	stop_journald();
	return 0;
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/cg-auditj-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
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

static void skip_unless_journald(void)
{
	if (skip_reason[0]) {
		print_message("skipped: %s\n", skip_reason);
		skip();
	}
}

static const uint8_t code_sum[32] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

static struct audit_job sample_job(uint64_t id)
{
	struct audit_job j;
	memset(&j, 0, sizeof(j));
	j.who.tenant = "acme";
	j.who.key_id = "k-7";
	j.who.client = "192.0.2.1:4242";
	j.who.transport = "http";
	j.execution_id = id;
	j.language = "python";
	j.profile = "python";
	j.code_sha256 = code_sum;
	j.code_bytes = 42;
	j.code = "print(1)\n";
	j.requested.wall_ms = 3000;
	j.applied.wall_ms = 3000;
	j.status = "timeout";
	j.exit_code = -1;
	j.signal = 9;
	j.wall_ms = 3001;
	j.cpu_ms = 2999;
	j.memory_peak_bytes = 1234567;
	return j;
}

/* The cellgate entries journald holds, as parsed JSON objects (up to max);
 * waits up to 10 s for `want` of them. */
static size_t read_entries(cJSON **out, size_t max, size_t want)
{
	size_t n = 0;
	for (int attempt = 0; attempt < 100; attempt++) {
		for (size_t i = 0; i < n; i++)
			cJSON_Delete(out[i]);
		n = 0;
		FILE *p = popen("journalctl -D " JOURNAL_DIR " -o json --no-pager "
				"SYSLOG_IDENTIFIER=cellgate 2>/dev/null",
				"r");
		assert_non_null(p);
		char line[65536];
		while (fgets(line, sizeof(line), p))
			if (n < max && (out[n] = cJSON_Parse(line)) != NULL)
				n++;
		pclose(p);
		if (n >= want)
			break;
		sleep_ms(100);
	}
	return n;
}

static const char *field(const cJSON *e, const char *name)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(e, name);
	if (!cJSON_IsString(it))
		fail_msg("journal entry has no string field %s", name);
	return it->valuestring;
}

static const cJSON *by_seq(cJSON **entries, size_t n, const char *seq)
{
	for (size_t i = 0; i < n; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(entries[i], "CELLGATE_AUDIT_SEQ");
		if (cJSON_IsString(s) && strcmp(s->valuestring, seq) == 0)
			return entries[i];
	}
	fail_msg("no journal entry with CELLGATE_AUDIT_SEQ=%s", seq);
	return NULL;
}

static void sha256_hex(const char *data, size_t len, char out[65])
{
	uint8_t md[32];
	unsigned int n = 0;
	assert_int_equal(EVP_Digest(data, len, md, &n, EVP_sha256(), NULL), 1);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* The file's lines' hashes, in order. */
static size_t line_hashes(char hashes[][65], size_t max)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[65536];
	size_t n = 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		assert_true(len > 0 && line[len - 1] == '\n');
		sha256_hex(line, len - 1, hashes[n++]);
	}
	fclose(f);
	return n;
}

static void test_fields_and_anchor(void **state)
{
	(void)state;
	skip_unless_journald();
	struct audit_options o = {.file = path, .journald = 1};
	char err[256];
	struct audit *a = audit_open(&o, err, sizeof(err));
	if (!a)
		fail_msg("audit_open: %s", err);
	struct audit_job j = sample_job(0x5eed);
	struct audit_denial d;
	memset(&d, 0, sizeof(d));
	d.who.client = "198.51.100.7:999";
	d.who.transport = "sse";
	d.method = "GET";
	d.path = "/sse";
	d.http_status = 429;
	d.reason = "rate";
	assert_int_equal(audit_job_start(a, &j), 0);
	assert_int_equal(audit_job_end(a, &j), 0);
	assert_int_equal(audit_denied(a, &d), 0);
	assert_true(audit_healthy(a));
	audit_close(a);

	char hashes[4][65];
	assert_int_equal(line_hashes(hashes, 4), 3);
	cJSON *e[16];
	size_t n = read_entries(e, 16, 3);
	assert_int_equal(n, 3);

	const cJSON *start = by_seq(e, n, "1");
	assert_string_equal(field(start, "CELLGATE_EVENT"), "job.start");
	assert_string_equal(field(start, "CELLGATE_AUDIT_HASH"), hashes[0]);
	assert_string_equal(field(start, "PRIORITY"), "6");
	assert_string_equal(field(start, "CELLGATE_TENANT"), "acme");
	assert_string_equal(field(start, "CELLGATE_KEY_ID"), "k-7");
	assert_string_equal(field(start, "CELLGATE_CLIENT"), "192.0.2.1:4242");
	assert_string_equal(field(start, "CELLGATE_TRANSPORT"), "http");
	assert_null(cJSON_GetObjectItem(start, "CELLGATE_SESSION")); /* NULL: left out */
	assert_string_equal(field(start, "CELLGATE_EXECUTION_ID"), "0000000000005eed");
	assert_string_equal(field(start, "CELLGATE_LANGUAGE"), "python");
	assert_string_equal(field(start, "CELLGATE_CODE_SHA256"),
			    "0123456789abcdef000000000000000000000000000000000000000000000000");
	assert_string_equal(field(start, "CELLGATE_CODE_BYTES"), "42");
	assert_null(cJSON_GetObjectItem(start, "CELLGATE_STATUS"));

	const cJSON *end = by_seq(e, n, "2");
	assert_string_equal(field(end, "CELLGATE_EVENT"), "job.end");
	assert_string_equal(field(end, "CELLGATE_AUDIT_HASH"), hashes[1]);
	assert_string_equal(field(end, "CELLGATE_STATUS"), "timeout");
	assert_string_equal(field(end, "CELLGATE_EXIT_CODE"), "-1");
	assert_string_equal(field(end, "CELLGATE_WALL_MS"), "3001");
	assert_string_equal(field(end, "CELLGATE_CPU_MS"), "2999");
	assert_string_equal(field(end, "CELLGATE_MEMORY_PEAK_BYTES"), "1234567");
	const char *msg = field(end, "MESSAGE");
	assert_non_null(strstr(msg, "job.end"));
	assert_non_null(strstr(msg, "tenant=acme"));
	assert_non_null(strstr(msg, "status=timeout"));

	const cJSON *den = by_seq(e, n, "3");
	assert_string_equal(field(den, "CELLGATE_EVENT"), "denied");
	assert_string_equal(field(den, "CELLGATE_AUDIT_HASH"), hashes[2]);
	assert_string_equal(field(den, "CELLGATE_HTTP_STATUS"), "429");
	assert_string_equal(field(den, "CELLGATE_REASON"), "rate");
	assert_string_equal(field(den, "CELLGATE_CLIENT"), "198.51.100.7:999");
	assert_string_equal(field(den, "CELLGATE_TRANSPORT"), "sse");
	assert_null(cJSON_GetObjectItem(den, "CELLGATE_TENANT"));
	assert_null(cJSON_GetObjectItem(den, "CELLGATE_EXECUTION_ID"));

	/* No field could carry a key: of CELLGATE_* names only KEY_ID says "KEY". */
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(field(e[i], "SYSLOG_IDENTIFIER"), "cellgate");
		for (const cJSON *m = e[i]->child; m; m = m->next)
			if (strncmp(m->string, "CELLGATE_", 9) == 0 && strstr(m->string, "KEY"))
				assert_string_equal(m->string, "CELLGATE_KEY_ID");
		cJSON_Delete(e[i]);
	}
}

/* required: a journald that stops listening makes the audit unhealthy and
 * the write an error; auto: the same is only logged.  A restarted journald
 * heals on the next record. */
static void test_required_and_auto(void **state)
{
	(void)state;
	skip_unless_journald();
	struct audit_options req = {.file = NULL, .journald = 1};
	struct audit_options aut = {.file = NULL, .journald = 0};
	char err[256];
	struct audit *r = audit_open(&req, err, sizeof(err));
	struct audit *au = audit_open(&aut, err, sizeof(err));
	assert_non_null(r);
	assert_non_null(au);
	struct audit_job j = sample_job(1);
	assert_int_equal(audit_job_start(r, &j), 0);
	assert_true(audit_healthy(r));

	stop_journald();
	int rc_required = audit_job_start(r, &j);
	int rc_auto = audit_job_start(au, &j);
	assert_true(rc_required < 0);
	assert_false(audit_healthy(r));
	assert_int_equal(rc_auto, 0);
	assert_true(audit_healthy(au));

	int s = start_journald();
	if (s < 0)
		fail_msg("journald did not restart: %s", strerror(-s));
	assert_false(audit_healthy(r)); /* only a record heals it */
	assert_int_equal(audit_job_end(r, &j), 0);
	assert_true(audit_healthy(r));
	audit_close(r);
	audit_close(au);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_fields_and_anchor),
	    T(test_required_and_auto),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
