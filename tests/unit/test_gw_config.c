/* gw_config: defaults, every key, every rejection, listen addresses, the
 * file checks and the example etc/cellgate.conf (run from the repo root). */
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

#include "gw_config.h"

static struct gw_config C, D;
static char err[1024];

static int parse(const char *text)
{
	return gw_config_parse(text, strlen(text), "t.conf", &C, err, sizeof(err));
}

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		if (!strstr((hay), (needle)))                                                      \
			fail_msg("'%s' does not contain '%s'", (hay), (needle));                   \
	} while (0)

static void test_defaults(void **state)
{
	(void)state;
	gw_config_defaults(&C);
	assert_string_equal(C.listen, "127.0.0.1:8000");
	assert_string_equal(C.metrics_listen, "");
	assert_string_equal(C.tenants, "/etc/cellgate/tenants.conf");
	assert_string_equal(C.jailer_socket, "");
	assert_string_equal(C.jailer, "");
	assert_string_equal(C.stdio_tenant, "");
	assert_int_equal(C.norigins, 0);
	assert_int_equal(C.nhosts, 0);
	assert_int_equal(C.max_connections, 1024);
	assert_int_equal(C.max_body_bytes, 4u << 20);
	assert_int_equal(C.header_timeout_ms, 10000);
	assert_int_equal(C.body_timeout_ms, 30000);
	assert_int_equal(C.max_sessions_per_tenant, 64);
	assert_int_equal(C.session_idle_timeout_s, 1800);
	assert_int_equal(C.sse_keepalive_s, 15);
	assert_int_equal(C.max_stream_buffer_bytes, 8u << 20);
	assert_int_equal(C.progress_interval_ms, 1000);
	assert_int_equal(C.progress_message_bytes, 4096);
	assert_string_equal(C.audit_file, "");
	assert_int_equal(C.audit_journald, GW_JOURNALD_AUTO);
	assert_false(C.audit_fsync);
	assert_false(C.audit_log_code);

	/* Comments and blank lines change nothing. */
	assert_int_equal(parse("# c\n\n ; c\n[gateway]\n# c\n"), 0);
	gw_config_defaults(&D);
	assert_memory_equal(&C, &D, sizeof(C));
}

static void test_every_key(void **state)
{
	static const char text[] = "[gateway]\n"
				   "listen = [::1]:9000\n"
				   "metrics_listen = 127.0.0.1:9100\n"
				   "tenants = /srv/cg/tenants.conf\n"
				   "jailer_socket = /run/cellgate/jailer.sock\n"
				   "jailer = /opt/cg/sbin/cellgate-jailer\n"
				   "stdio_tenant = local_dev-1\n"
				   "allowed_origin = https://Console.Example.com\n"
				   "allowed_origin = http://localhost:3000\n"
				   "allowed_origin = http://[::1]:8080\n"
				   "allowed_host = MCP.example.com\n"
				   "allowed_host = [::1]\n"
				   "\t[limits]  \n"
				   "max_connections = 10\n"
				   "max_body = 1K\n"
				   "header_timeout = 2s\n"
				   "body_timeout = 1500ms\n"
				   "max_sessions_per_tenant = 3\n"
				   "session_idle_timeout = 90000\n"
				   "sse_keepalive = 5s\n"
				   "max_stream_buffer = 1G\n"
				   "progress_interval = 250\n"
				   "progress_message = 0\n"
				   "[audit]\n"
				   "file = /var/log/cellgate/audit.jsonl\n"
				   "journald = no\n"
				   "fsync = yes\n"
				   "log_code = true\n";

	(void)state;
	gw_config_defaults(&C);
	assert_int_equal(gw_config_parse(text, sizeof(text) - 1, "t.conf", &C, err, sizeof(err)),
			 0);
	assert_string_equal(C.listen, "[::1]:9000");
	assert_string_equal(C.metrics_listen, "127.0.0.1:9100");
	assert_string_equal(C.tenants, "/srv/cg/tenants.conf");
	assert_string_equal(C.jailer_socket, "/run/cellgate/jailer.sock");
	assert_string_equal(C.jailer, "/opt/cg/sbin/cellgate-jailer");
	assert_string_equal(C.stdio_tenant, "local_dev-1");
	assert_int_equal(C.norigins, 3);
	assert_string_equal(C.allowed_origins[0], "https://console.example.com");
	assert_string_equal(C.allowed_origins[1], "http://localhost:3000");
	assert_string_equal(C.allowed_origins[2], "http://[::1]:8080");
	assert_int_equal(C.nhosts, 2);
	assert_string_equal(C.allowed_hosts[0], "mcp.example.com");
	assert_string_equal(C.allowed_hosts[1], "[::1]");
	assert_int_equal(C.max_connections, 10);
	assert_int_equal(C.max_body_bytes, 1024);
	assert_int_equal(C.header_timeout_ms, 2000);
	assert_int_equal(C.body_timeout_ms, 1500);
	assert_int_equal(C.max_sessions_per_tenant, 3);
	assert_int_equal(C.session_idle_timeout_s, 90);
	assert_int_equal(C.sse_keepalive_s, 5);
	assert_int_equal(C.max_stream_buffer_bytes, 1u << 30);
	assert_int_equal(C.progress_interval_ms, 250);
	assert_int_equal(C.progress_message_bytes, 0);
	assert_string_equal(C.audit_file, "/var/log/cellgate/audit.jsonl");
	assert_int_equal(C.audit_journald, GW_JOURNALD_NO);
	assert_true(C.audit_fsync);
	assert_true(C.audit_log_code);

	/* Empty values reset the keys whose default is empty. */
	assert_int_equal(parse("[gateway]\nmetrics_listen =\njailer_socket=\njailer =\n"
			       "stdio_tenant =\n[audit]\nfile =\njournald = yes\n"),
			 0);
	assert_string_equal(C.metrics_listen, "");
	assert_string_equal(C.jailer_socket, "");
	assert_string_equal(C.jailer, "");
	assert_string_equal(C.stdio_tenant, "");
	assert_string_equal(C.audit_file, "");
	assert_int_equal(C.audit_journald, GW_JOURNALD_YES);
	/* Parsing goes over what is already there: untouched keys keep it. */
	assert_int_equal(C.max_connections, 10);
	assert_string_equal(C.listen, "[::1]:9000");
}

static const struct {
	const char *text;
	const char *msg;
} rejections[] = {
    {"[nope]\n", "t.conf:1: section [nope]: unknown section"},
    {"[gateway]\n[gateway]\n", "t.conf:2: section [gateway]: appears twice"},
    {"[gateway\n", "t.conf:1: malformed section header"},
    {"listen = 1.2.3.4:80\n", "t.conf:1: key 'listen': outside of any section"},
    {"[gateway]\nlisten\n", "t.conf:2: malformed line"},
    {"[gateway]\n= x\n", "empty key"},
    {"[gateway]\nListen = 1.2.3.4:80\n", "malformed key"},
    {"[gateway]\nbogus = 1\n", "t.conf:2: key 'bogus': unknown key in [gateway]"},
    {"[limits]\nlisten = 1.2.3.4:80\n", "unknown key in [limits]"},
    {"[audit]\nmax_body = 4M\n", "unknown key in [audit]"},
    {"[gateway]\nlisten = 1.2.3.4:80\nlisten = 1.2.3.4:81\n", "t.conf:3: key 'listen': set twice"},
    {"[gateway]\nlisten =\n", "key 'listen': empty value"},
    {"[gateway]\ntenants =\n", "key 'tenants': empty value"},
    {"[gateway]\nlisten = 1.2.3.4\n", "key 'listen': '1.2.3.4' is not ADDR:PORT"},
    {"[gateway]\nlisten = 1.2.3.4:0\n", "is not ADDR:PORT"},
    {"[gateway]\nmetrics_listen = ::1:80\n", "is not ADDR:PORT"},
    {"[gateway]\ntenants = etc/tenants.conf\n", "is not an absolute path"},
    {"[gateway]\njailer = sbin/jailer\n", "is not an absolute path"},
    {"[gateway]\njailer_socket = x.sock\n", "is not an absolute path"},
    {"[gateway]\nstdio_tenant = Local\n", "not a tenant name"},
    {"[gateway]\nstdio_tenant = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
     "longer than 63"},
    {"[gateway]\nallowed_origin = example.com\n", "is not an origin"},
    {"[gateway]\nallowed_origin = ftp://example.com\n", "is not an origin"},
    {"[gateway]\nallowed_origin = https://example.com/\n", "is not an origin"},
    {"[gateway]\nallowed_origin = https://example.com/app\n", "is not an origin"},
    {"[gateway]\nallowed_origin = https://example.com:0\n", "is not an origin"},
    {"[gateway]\nallowed_origin = https://\n", "is not an origin"},
    {"[gateway]\nallowed_origin = https://a.b\nallowed_origin = HTTPS://A.B\n",
     "t.conf:3: key 'allowed_origin': 'HTTPS://A.B' is listed twice"},
    {"[gateway]\nallowed_host = a.example:80\n", "is not a host name"},
    {"[gateway]\nallowed_host = [zz]\n", "is not a host name"},
    {"[gateway]\nallowed_host = a\nallowed_host = a\n", "listed twice"},
    {"[limits]\nmax_connections = 0\n", "'0' is outside 1..1000000"},
    {"[limits]\nmax_connections = 1000001\n", "is outside"},
    {"[limits]\nmax_connections = -1\n", "is not a non-negative integer"},
    {"[limits]\nmax_connections = 10x\n", "trailing junk"},
    {"[limits]\nmax_connections = 99999999999999999999999\n", "out of range"},
    {"[limits]\nmax_body = 1023\n", "'1023' is outside 1024..67108864 bytes"},
    {"[limits]\nmax_body = 65M\n", "is outside"},
    {"[limits]\nmax_body = 4T\n", "unknown suffix"},
    {"[limits]\nheader_timeout = 99ms\n", "is outside 100..600000 ms"},
    {"[limits]\nheader_timeout = 1m\n", "unknown suffix"},
    {"[limits]\nbody_timeout = 3601s\n", "is outside"},
    {"[limits]\nmax_sessions_per_tenant = 0\n", "is outside"},
    {"[limits]\nsession_idle_timeout = 1500ms\n", "not a whole number of seconds"},
    {"[limits]\nsession_idle_timeout = 0s\n", "is outside"},
    {"[limits]\nsse_keepalive = 301s\n", "is outside"},
    {"[limits]\nmax_stream_buffer = 63K\n", "is outside"},
    {"[limits]\nprogress_interval = 61s\n", "is outside"},
    {"[limits]\nprogress_message = 65537\n", "is outside"},
    {"[audit]\njournald = maybe\n", "is not auto, yes or no"},
    {"[audit]\nfsync = 1\n", "is not yes, no, true or false"},
    {"[audit]\nlog_code = on\n", "is not yes, no"},
    {"[audit]\nfile = audit.log\n", "is not an absolute path"},
    {"[gateway]\nlisten = 1.2.3.4:80\x01\n", "control character"},
};

static void test_rejections(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rejections) / sizeof(rejections[0]); i++) {
		gw_config_defaults(&C);
		err[0] = '\0';
		if (parse(rejections[i].text) != -1)
			fail_msg("accepted: %s", rejections[i].text);
		assert_contains(err, rejections[i].msg);
		assert_contains(err, "t.conf:");
		/* A bad file leaves the settings as they were. */
		gw_config_defaults(&D);
		assert_memory_equal(&C, &D, sizeof(C));
	}
}

/* Every number in the key table at both ends of its range (stored whole,
 * in the field it names) and one step outside each end. */
static void test_number_bounds(void **state)
{
	static const struct {
		const char *sec, *key;
		const char *lo, *hi, *below, *above;
		size_t off;
		bool is_size_t;
		unsigned long long want_lo, want_hi;
	} cases[] = {
	    {"limits", "max_connections", "1", "1000000", "0", "1000001",
	     offsetof(struct gw_config, max_connections), false, 1, 1000000},
	    {"limits", "max_body", "1K", "64M", "1023", "67108865",
	     offsetof(struct gw_config, max_body_bytes), true, 1024, 64u << 20},
	    {"limits", "header_timeout", "100ms", "600s", "99", "600001",
	     offsetof(struct gw_config, header_timeout_ms), false, 100, 600000},
	    {"limits", "body_timeout", "100", "3600s", "99ms", "3600001",
	     offsetof(struct gw_config, body_timeout_ms), false, 100, 3600000},
	    {"limits", "max_sessions_per_tenant", "1", "100000", "0", "100001",
	     offsetof(struct gw_config, max_sessions_per_tenant), false, 1, 100000},
	    {"limits", "session_idle_timeout", "1s", "604800s", "0s", "604801s",
	     offsetof(struct gw_config, session_idle_timeout_s), false, 1, 604800},
	    {"limits", "sse_keepalive", "1000ms", "300000", "999", "301s",
	     offsetof(struct gw_config, sse_keepalive_s), false, 1, 300},
	    {"limits", "max_stream_buffer", "64K", "1G", "65535", "1073741825",
	     offsetof(struct gw_config, max_stream_buffer_bytes), true, 64u << 10, 1u << 30},
	    {"limits", "progress_interval", "100", "60s", "99", "60001",
	     offsetof(struct gw_config, progress_interval_ms), false, 100, 60000},
	    {"limits", "progress_message", "0", "64K", NULL, "65537",
	     offsetof(struct gw_config, progress_message_bytes), true, 0, 64u << 10},
	};
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *vals[2] = {cases[i].lo, cases[i].hi};
		const unsigned long long want[2] = {cases[i].want_lo, cases[i].want_hi};
		const char *outside[2] = {cases[i].below, cases[i].above};

		for (int j = 0; j < 2; j++) {
			const char *field = (const char *)&C + cases[i].off;
			unsigned long long got;

			snprintf(text, sizeof(text), "[%s]\n%s = %s\n", cases[i].sec, cases[i].key,
				 vals[j]);
			gw_config_defaults(&C);
			if (parse(text) != 0)
				fail_msg("%s refused: %s", text, err);
			if (cases[i].is_size_t) {
				size_t v;

				memcpy(&v, field, sizeof(v));
				got = v;
			} else {
				unsigned v;

				memcpy(&v, field, sizeof(v));
				got = v;
			}
			if (got != want[j])
				fail_msg("%s stored %llu, want %llu", text, got, want[j]);
			if (!outside[j])
				continue;
			snprintf(text, sizeof(text), "[%s]\n%s = %s\n", cases[i].sec, cases[i].key,
				 outside[j]);
			if (parse(text) != -1)
				fail_msg("accepted: %s", text);
			assert_contains(err, "is outside");
		}
	}
}

static void test_lists_full(void **state)
{
	char text[4096];
	size_t n;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "[gateway]\n");
	for (unsigned i = 0; i < GW_MAX_ORIGINS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "allowed_origin = https://h%u.example\nallowed_host = h%u\n",
				      i, i);
	gw_config_defaults(&C);
	assert_int_equal(parse(text), 0);
	assert_int_equal(C.norigins, GW_MAX_ORIGINS);
	assert_int_equal(C.nhosts, GW_MAX_HOSTS);
	assert_string_equal(C.allowed_origins[GW_MAX_ORIGINS - 1], "https://h15.example");

	snprintf(text + n, sizeof(text) - n, "allowed_origin = https://one-more.example\n");
	gw_config_defaults(&C);
	assert_int_equal(parse(text), -1);
	assert_contains(err, "more than 16 entries");
	snprintf(text + n, sizeof(text) - n, "allowed_host = one-more\n");
	assert_int_equal(parse(text), -1);
	assert_contains(err, "more than 16 entries");
}

static void test_text_limits(void **state)
{
	char *big;
	size_t n = GW_CONFIG_MAX_BYTES + 1;

	(void)state;
	gw_config_defaults(&C);
	assert_int_equal(gw_config_parse("[gateway]\n\0x", 12, "t.conf", &C, err, sizeof(err)), -1);
	assert_contains(err, "t.conf:2: contains a NUL byte");

	big = malloc(n + 1);
	assert_non_null(big);
	memset(big, '\n', n);
	assert_int_equal(gw_config_parse(big, n, "t.conf", &C, err, sizeof(err)), -1);
	assert_contains(err, "larger than");
	/* Exactly at the limit is fine. */
	assert_int_equal(gw_config_parse(big, n - 1, "t.conf", &C, err, sizeof(err)), 0);

	/* A line one over GW_INI_LINE_MAX. */
	memset(big, '#', GW_INI_LINE_MAX + 1);
	big[GW_INI_LINE_MAX + 1] = '\n';
	assert_int_equal(gw_config_parse(big, GW_INI_LINE_MAX + 2, "t.conf", &C, err, sizeof(err)),
			 -1);
	assert_contains(err, "t.conf:1: longer than 4096");
	assert_int_equal(
	    gw_config_parse(big + 1, GW_INI_LINE_MAX + 1, "t.conf", &C, err, sizeof(err)), 0);
	free(big);
}

static void test_listen(void **state)
{
	static const struct {
		const char *in, *host;
		unsigned port;
	} good[] = {
	    {"127.0.0.1:8000", "127.0.0.1", 8000},
	    {"0.0.0.0:1", "0.0.0.0", 1},
	    {"localhost:65535", "localhost", 65535},
	    {"[::1]:8080", "::1", 8080},
	    {"[::]:443", "::", 443},
	    {"[2001:db8::17]:00080", "2001:db8::17", 80},
	    {"[::ffff:192.0.2.1]:9", "::ffff:192.0.2.1", 9},
	};
	static const char *const bad[] = {
	    "",
	    "127.0.0.1",
	    "127.0.0.1:",
	    ":8000",
	    "127.0.0.1:0",
	    "127.0.0.1:65536",
	    "127.0.0.1:100000",
	    "127.0.0.1:-1",
	    "127.0.0.1:+80",
	    "127.0.0.1:80x",
	    "127.0.0.1: 80",
	    "::1:8000",
	    "[::1]8000",
	    "[::1]:",
	    "[::1:8000",
	    "[]:8000",
	    "[zz::1]:80",
	    "[127.0.0.1]:80",
	    "host name:80",
	    "-host:80",
	    "ho/st:80",
	};
	char host[64];
	uint16_t port;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		port = 0;
		if (gw_parse_listen(good[i].in, host, sizeof(host), &port) != 0)
			fail_msg("refused %s", good[i].in);
		assert_string_equal(host, good[i].host);
		assert_int_equal(port, good[i].port);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gw_parse_listen(bad[i], host, sizeof(host), &port) != -1)
			fail_msg("accepted '%s'", bad[i]);
	/* The host must fit the caller's buffer. */
	assert_int_equal(gw_parse_listen("127.0.0.1:80", host, 9, &port), -1);
	assert_int_equal(gw_parse_listen("127.0.0.1:80", host, 10, &port), 0);
	assert_int_equal(gw_parse_listen(NULL, host, sizeof(host), &port), -1);
}

/* ---- files ---- */

static char tmpdir[64];

static int files_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cellgate-gwconf-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int files_teardown(void **state)
{
	static const char *const names[] = {"ok.conf",	"ow.conf",  "gw.conf", "link.conf",
					    "big.conf", "bad.conf", "dir",     "fifo"};
	char path[256];

	(void)state;
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
	static const char text[] = "[limits]\nmax_connections = 7\n";
	char path[256], target[256];
	char *big;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.conf", tmpdir);
	gw_config_defaults(&C);
	assert_int_equal(gw_config_load(path, false, &C, err, sizeof(err)), 0);
	gw_config_defaults(&D);
	assert_memory_equal(&C, &D, sizeof(C));
	assert_int_equal(gw_config_load(path, true, &C, err, sizeof(err)), -1);
	assert_contains(err, "No such file");

	snprintf(target, sizeof(target), "%s", write_file("ok.conf", text, sizeof(text) - 1, 0644));
	assert_int_equal(gw_config_load(target, true, &C, err, sizeof(err)), 0);
	assert_int_equal(C.max_connections, 7);

	/* Group-writable is the operator's business; world-writable is not. */
	gw_config_defaults(&C);
	assert_int_equal(gw_config_load(write_file("gw.conf", text, sizeof(text) - 1, 0664), true,
					&C, err, sizeof(err)),
			 0);
	assert_int_equal(C.max_connections, 7);
	gw_config_defaults(&C);
	assert_int_equal(gw_config_load(write_file("ow.conf", text, sizeof(text) - 1, 0646), false,
					&C, err, sizeof(err)),
			 -1);
	assert_contains(err, "writable by others");
	assert_int_equal(C.max_connections, 1024);

	snprintf(path, sizeof(path), "%s/link.conf", tmpdir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(gw_config_load(path, false, &C, err, sizeof(err)), -1);
	assert_contains(err, "symbolic link");

	snprintf(path, sizeof(path), "%s/dir", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(gw_config_load(path, true, &C, err, sizeof(err)), -1);
	assert_contains(err, "not a regular file");
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(gw_config_load(path, true, &C, err, sizeof(err)), -1);
	assert_contains(err, "not a regular file");

	big = malloc(GW_CONFIG_MAX_BYTES + 1);
	assert_non_null(big);
	memset(big, '\n', GW_CONFIG_MAX_BYTES + 1);
	assert_int_equal(gw_config_load(write_file("big.conf", big, GW_CONFIG_MAX_BYTES + 1, 0644),
					true, &C, err, sizeof(err)),
			 -1);
	assert_contains(err, "larger than 262144 bytes");
	assert_int_equal(gw_config_load(write_file("big.conf", big, GW_CONFIG_MAX_BYTES, 0644),
					true, &C, err, sizeof(err)),
			 0);
	free(big);

	/* Parse errors name the file and the line. */
	const char *bad = write_file("bad.conf", "[limits]\n\nmax_body = 1\n", 23, 0644);
	assert_int_equal(gw_config_load(bad, true, &C, err, sizeof(err)), -1);
	assert_contains(err, bad);
	assert_contains(err, ":3: key 'max_body'");
}

/* etc/cellgate.conf sets exactly the defaults. */
static void test_example_file(void **state)
{
	static const char path[] = "etc/cellgate.conf";
	struct stat st;

	(void)state;
	assert_int_equal(stat(path, &st), 0);
	if (st.st_mode & S_IWOTH)
		fail_msg("%s is world-writable in this checkout", path);
	gw_config_defaults(&C);
	if (gw_config_load(path, true, &C, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	gw_config_defaults(&D);
	assert_memory_equal(&C, &D, sizeof(C));

	/* The commented-out examples in it are valid lines too. */
	assert_int_equal(parse("[gateway]\nallowed_origin = https://console.example.com\n"
			       "allowed_host = mcp.example.com\n"),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_every_key),
	    cmocka_unit_test(test_rejections),
	    cmocka_unit_test(test_number_bounds),
	    cmocka_unit_test(test_lists_full),
	    cmocka_unit_test(test_text_limits),
	    cmocka_unit_test(test_listen),
	    cmocka_unit_test_setup_teardown(test_load, files_setup, files_teardown),
	    cmocka_unit_test(test_example_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
