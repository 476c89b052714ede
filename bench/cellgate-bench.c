/* cellgate-bench: what does the sandbox cost over running the interpreter
 * bare, and what does MCP add on top of the jailer?
 *
 * Three paths run `print(1)`, interleaved round by round (A B C A B C ...)
 * so that drift in the machine's state hits all of them alike:
 *   bare    posix_spawn /usr/bin/python3 -c 'print(1)', stdout to a pipe,
 *           read to EOF, waitpid;
 *   jailer  this program talks ipc-proto to `cellgate-jailer --listen`:
 *           sealed memfd, RUN, RUN_OK, read stdout/stderr to EOF, RESULT;
 *   mcp     one `tools/call execute` line to `cellgate --stdio` (connected
 *           to the same jailer), timed from write to the response line.
 * With --node, `console.log(1)` runs bare and through the jailer as well.
 * When /usr/bin/bwrap exists, bubblewrap (the anchor's command line) runs
 * print(1) in the same rounds, for the side-by-side comparison.
 *
 * It prints figures and never judges them: exit 1 only when a run fails
 * functionally (wrong output, refused job, dead child), 0 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc.h"

#define PYTHON "/usr/bin/python3"
#define NODE "/usr/bin/node"
#define IO_TIMEOUT_MS 60000 /* one run never legitimately takes this long */
#define START_TIMEOUT_MS 10000
#define MAX_LINE (8u << 20) /* above the gateway's 4 MiB message cap */
#define MAX_CAPTURE 4096u   /* print(1) writes two bytes */

static char *const child_env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", NULL};

/* Everything that must be torn down on any exit path. */
static struct {
	char dir[64];
	char sock_path[128];
	char jailer_log[128];
	char gateway_log[128];
	pid_t jailer_pid;
	pid_t gateway_pid;
	int jailer_sock;
	int gw_in;  /* the gateway's stdin (we write) */
	int gw_out; /* the gateway's stdout (we read) */
} g = {.jailer_pid = -1, .gateway_pid = -1, .jailer_sock = -1, .gw_in = -1, .gw_out = -1};

static double now_ms(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		abort();
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- teardown ---- */

static void stop_child(pid_t *pid, int sig)
{
	if (*pid <= 0)
		return;
	kill(*pid, sig);
	for (int i = 0; i < 200; i++) { /* up to 2 s, then SIGKILL */
		pid_t r = waitpid(*pid, NULL, WNOHANG);
		if (r == *pid || (r < 0 && errno != EINTR)) {
			*pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(*pid, SIGKILL);
	while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
		;
	*pid = -1;
}

static void dump_log(const char *what, const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(buf))
		lseek(fd, size - (off_t)sizeof(buf), SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0) {
		fprintf(stderr, "---- last lines of the %s log ----\n", what);
		fwrite(buf, 1, (size_t)n, stderr);
		if (buf[n - 1] != '\n')
			fputc('\n', stderr);
	}
}

static void cleanup(bool show_logs)
{
	if (g.gw_in >= 0) /* EOF on stdin: the gateway's orderly exit */
		close(g.gw_in);
	g.gw_in = -1;
	stop_child(&g.gateway_pid, SIGTERM);
	if (g.gw_out >= 0)
		close(g.gw_out);
	g.gw_out = -1;
	if (g.jailer_sock >= 0)
		close(g.jailer_sock);
	g.jailer_sock = -1;
	stop_child(&g.jailer_pid, SIGTERM);
	if (!g.dir[0])
		return;
	if (show_logs) {
		dump_log("cellgate-jailer", g.jailer_log);
		dump_log("cellgate", g.gateway_log);
	}
	unlink(g.sock_path);
	unlink(g.jailer_log);
	unlink(g.gateway_log);
	rmdir(g.dir);
	g.dir[0] = '\0';
}

__attribute__((noreturn, format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("cellgate-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cleanup(true);
	exit(1);
}

/* ---- processes and fds ---- */

/* Start argv[0] with stdin/stdout/stderr from the given fds (-1: /dev/null),
 * the fixed child environment, default signal dispositions. */
static pid_t spawn(char *const argv[], int in_fd, int out_fd, int err_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, def;
	int fds[3] = {in_fd, out_fd, err_fd};
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa) != 0 || posix_spawnattr_init(&attr) != 0)
		fail("posix_spawn init failed");
	for (int i = 0; i < 3; i++) {
		int rc = fds[i] >= 0 ? posix_spawn_file_actions_adddup2(&fa, fds[i], i)
				     : posix_spawn_file_actions_addopen(
					   &fa, i, "/dev/null", i == 0 ? O_RDONLY : O_WRONLY, 0);
		if (rc != 0)
			fail("posix_spawn_file_actions: %s", strerror(rc));
	}
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE); /* ignored here, default for children */
	if (posix_spawnattr_setsigmask(&attr, &none) != 0 ||
	    posix_spawnattr_setsigdefault(&attr, &def) != 0 ||
	    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) != 0)
		fail("posix_spawnattr failed");
	int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, child_env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0)
		fail("cannot start %s: %s", argv[0], strerror(rc));
	return pid;
}

static void write_all(int fd, const char *p, size_t len, const char *what)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail("write to %s: %s", what, n < 0 ? strerror(errno) : "short write");
		p += n;
		len -= (size_t)n;
	}
}

static void wait_readable(int fd, const char *what)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n;
	do
		n = poll(&p, 1, IO_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		fail("poll on %s: %s", what, strerror(errno));
	if (n == 0)
		fail("no answer from %s within %d ms", what, IO_TIMEOUT_MS);
}

struct capture {
	char data[MAX_CAPTURE];
	size_t len;
};

/* Read up to two fds to EOF at the same time (a child blocked on a full
 * stderr pipe would otherwise never close stdout).  fd -1 is skipped; cap
 * may be NULL to discard. */
static void drain(int fd_a, struct capture *cap_a, int fd_b, struct capture *cap_b,
		  const char *what)
{
	struct pollfd p[2] = {{.fd = fd_a, .events = POLLIN}, {.fd = fd_b, .events = POLLIN}};
	struct capture *caps[2] = {cap_a, cap_b};
	char buf[4096];
	double deadline = now_ms() + IO_TIMEOUT_MS;

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		int left = (int)(deadline - now_ms());
		if (left <= 0)
			fail("%s: output not closed within %d ms", what, IO_TIMEOUT_MS);
		int n = poll(p, 2, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("poll on %s output: %s", what, strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			ssize_t r = read(p[i].fd, buf, sizeof(buf));
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r < 0)
				fail("read %s output: %s", what, strerror(errno));
			if (r == 0) {
				p[i].fd = -1;
				continue;
			}
			struct capture *c = caps[i];
			if (c) {
				size_t room = sizeof(c->data) - c->len;
				size_t take = (size_t)r < room ? (size_t)r : room;
				memcpy(c->data + c->len, buf, take);
				c->len += take;
			}
		}
	}
}

static void expect_output(const struct capture *c, const char *want, const char *what)
{
	if (c->len != strlen(want) || memcmp(c->data, want, c->len) != 0)
		fail("%s: stdout was \"%.*s\", expected \"%s\"", what, (int)c->len, c->data, want);
}

/* ---- (a) bare ---- */

static double run_argv(char *const argv[], const char *want, const char *what)
{
	struct capture out = {.len = 0};
	int p[2], status;

	double t0 = now_ms();
	if (pipe2(p, O_CLOEXEC) < 0)
		fail("pipe: %s", strerror(errno));
	pid_t pid = spawn(argv, -1, p[1], STDERR_FILENO);
	close(p[1]);
	drain(p[0], &out, -1, NULL, what);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			fail("waitpid: %s", strerror(errno));
	double t1 = now_ms();

	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("%s: exited with status 0x%x", what, (unsigned)status);
	expect_output(&out, want, what);
	return t1 - t0;
}

static double run_bare(const char *interp, const char *flag, const char *code, const char *want,
		       const char *what)
{
	char *argv[] = {(char *)interp, (char *)flag, (char *)code, NULL};
	return run_argv(argv, want, what);
}

/* The reference the issue measures us against: bubblewrap with every
 * namespace and a minimal tree, as in shared/reference/perf-anchors.md §2.
 * It sets no cgroup, rlimit or seccomp limits, so it does less than a cell. */
#define BWRAP "/usr/bin/bwrap"
static double run_bwrap(const char *what)
{
	char *argv[] = {BWRAP, "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
			"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
			"--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
			"--tmpfs", "/tmp", "--", PYTHON, "-c", "print(1)", NULL};
	return run_argv(argv, "1\n", what);
}

/* ---- (b) jailer direct ---- */

static struct ipc_msg msg_out, msg_in, msg_result; /* ~33 KiB each: not on the stack */

static void recv_msg(int fd, struct ipc_msg *m, const char *what)
{
	int derr = 0;
	wait_readable(fd, what);
	int rc = ipc_recv(fd, m, &derr);
	if (rc == -EBADMSG)
		fail("%s: undecodable message: %s", what, ipc_decode_strerror(derr));
	if (rc < 0)
		fail("%s: %s", what, strerror(-rc));
}

static void start_jailer(const char *build, bool need_js)
{
	char path[4096];
	snprintf(g.dir, sizeof(g.dir), "/tmp/cellgate-bench.XXXXXX");
	if (!mkdtemp(g.dir)) {
		g.dir[0] = '\0';
		fail("mkdtemp: %s", strerror(errno));
	}
	snprintf(g.sock_path, sizeof(g.sock_path), "%s/jailer.sock", g.dir);
	snprintf(g.jailer_log, sizeof(g.jailer_log), "%s/jailer.log", g.dir);
	snprintf(g.gateway_log, sizeof(g.gateway_log), "%s/gateway.log", g.dir);
	if ((size_t)snprintf(path, sizeof(path), "%s/cellgate-jailer", build) >= sizeof(path))
		fail("--build path too long");

	int log = open(g.jailer_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log < 0)
		fail("%s: %s", g.jailer_log, strerror(errno));
	char *argv[] = {path, "--listen", g.sock_path, NULL};
	g.jailer_pid = spawn(argv, -1, log, log);
	close(log);

	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(g.sock_path) >= sizeof(sa.sun_path))
		fail("socket path too long");
	strcpy(sa.sun_path, g.sock_path);
	double deadline = now_ms() + START_TIMEOUT_MS;
	for (;;) {
		int status;
		if (waitpid(g.jailer_pid, &status, WNOHANG) == g.jailer_pid) {
			g.jailer_pid = -1;
			fail("cellgate-jailer exited during start-up (status 0x%x)",
			     (unsigned)status);
		}
		int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (s < 0)
			fail("socket: %s", strerror(errno));
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			g.jailer_sock = s;
			break;
		}
		int e = errno;
		close(s);
		if (e != ENOENT && e != ECONNREFUSED)
			fail("connect %s: %s", g.sock_path, strerror(e));
		if (now_ms() > deadline)
			fail("cellgate-jailer did not listen on %s within %d ms", g.sock_path,
			     START_TIMEOUT_MS);
		usleep(5000);
	}

	memset(&msg_out, 0, sizeof(msg_out));
	msg_out.type = IPC_HELLO;
	int rc = ipc_send(g.jailer_sock, &msg_out);
	if (rc < 0)
		fail("send HELLO: %s", strerror(-rc));
	recv_msg(g.jailer_sock, &msg_in, "cellgate-jailer (HELLO)");
	if (msg_in.type == IPC_ERROR)
		fail("jailer answered HELLO with an error: %s", msg_in.u.error.message);
	if (msg_in.type != IPC_HELLO_OK)
		fail("jailer answered HELLO with message type %u", msg_in.type);
	bool py = false, js = false;
	for (uint32_t i = 0; i < msg_in.u.hello_ok.nprofiles; i++) {
		py |= strcmp(msg_in.u.hello_ok.profiles[i].name, "python") == 0;
		js |= strcmp(msg_in.u.hello_ok.profiles[i].name, "javascript") == 0;
	}
	if (!py || (need_js && !js))
		fail("jailer offers no \"%s\" profile", !py ? "python" : "javascript");
}

static double run_jailer(const char *profile, const char *code, const char *want, const char *what)
{
	static uint64_t job_id;
	struct capture out = {.len = 0};
	int rc;

	double t0 = now_ms();
	int code_fd = ipc_memfd_sealed("bench-code", code, strlen(code));
	if (code_fd < 0)
		fail("memfd: %s", strerror(-code_fd));
	memset(&msg_out, 0, sizeof(msg_out));
	msg_out.type = IPC_RUN;
	msg_out.u.run.job_id = ++job_id;
	snprintf(msg_out.u.run.profile, sizeof(msg_out.u.run.profile), "%s", profile);
	msg_out.u.run.code_fd = code_fd;
	msg_out.u.run.stdin_fd = -1;
	rc = ipc_send(g.jailer_sock, &msg_out);
	close(code_fd);
	if (rc < 0)
		fail("%s: send RUN: %s", what, strerror(-rc));

	recv_msg(g.jailer_sock, &msg_in, what);
	if (msg_in.type == IPC_RUN_ERR)
		fail("%s: jailer refused the job: %s: %s", what,
		     ipc_run_err_name(msg_in.u.run_err.reason), msg_in.u.run_err.message);
	if (msg_in.type != IPC_RUN_OK) {
		ipc_close_fds(&msg_in);
		fail("%s: expected RUN_OK, got message type %u", what, msg_in.type);
	}
	if (msg_in.u.run_ok.job_id != job_id)
		fail("%s: RUN_OK for job %" PRIu64 ", expected %" PRIu64, what,
		     msg_in.u.run_ok.job_id, job_id);
	drain(msg_in.u.run_ok.stdout_fd, &out, msg_in.u.run_ok.stderr_fd, NULL, what);
	recv_msg(msg_in.u.run_ok.control_fd, &msg_result, what);
	ipc_close_fds(&msg_in);
	double t1 = now_ms();

	if (msg_result.type != IPC_RESULT)
		fail("%s: expected RESULT on the control socket, got type %u", what,
		     msg_result.type);
	if (msg_result.u.result.status != IPC_ST_OK)
		fail("%s: status %s (exit %d, signal %d): %s", what,
		     ipc_status_name(msg_result.u.result.status), msg_result.u.result.exit_code,
		     msg_result.u.result.signal, msg_result.u.result.message);
	expect_output(&out, want, what);
	return t1 - t0;
}

/* ---- (c) MCP over stdio ---- */

static struct {
	char *buf;
	size_t len, cap;
} rd;

/* Return the next line from the gateway's stdout (NUL-terminated, without
 * the newline), valid until the next call. */
static char *read_line(void)
{
	static size_t consumed;
	if (consumed) {
		memmove(rd.buf, rd.buf + consumed, rd.len - consumed);
		rd.len -= consumed;
		consumed = 0;
	}
	for (;;) {
		char *nl = rd.len ? memchr(rd.buf, '\n', rd.len) : NULL;
		if (nl) {
			*nl = '\0';
			consumed = (size_t)(nl - rd.buf) + 1;
			return rd.buf;
		}
		if (rd.len + 65536 > rd.cap) {
			if (rd.cap >= MAX_LINE)
				fail("cellgate sent a line longer than %u bytes", MAX_LINE);
			size_t ncap = rd.cap ? rd.cap * 2 : 1u << 17;
			char *nb = realloc(rd.buf, ncap);
			if (!nb)
				fail("out of memory");
			rd.buf = nb;
			rd.cap = ncap;
		}
		wait_readable(g.gw_out, "cellgate --stdio");
		ssize_t n = read(g.gw_out, rd.buf + rd.len, rd.cap - rd.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("read from cellgate: %s", strerror(errno));
		if (n == 0)
			fail("cellgate closed its stdout");
		rd.len += (size_t)n;
	}
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* Find `"key"` followed by a colon; return what follows the colon.  Enough
 * for the flat, known-shaped lines this program checks; not a JSON parser. */
static const char *find_key(const char *line, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = line; (p = strchr(p, '"')); p++) {
		if (strncmp(p + 1, key, klen) == 0 && p[1 + klen] == '"') {
			const char *v = skip_ws(p + 2 + klen);
			if (*v == ':')
				return skip_ws(v + 1);
		}
	}
	return NULL;
}

static bool line_has_id(const char *line, unsigned long id)
{
	const char *v = find_key(line, "id");
	if (!v || *v < '0' || *v > '9')
		return false;
	char *end;
	unsigned long got = strtoul(v, &end, 10);
	return got == id && (*end < '0' || *end > '9');
}

/* Read lines until the response to `id`; other lines (notifications, log
 * messages) are skipped. */
static char *read_response(unsigned long id)
{
	for (;;) {
		char *line = read_line();
		if (line_has_id(line, id))
			return line;
	}
}

static void start_gateway(const char *build)
{
	char path[4096];
	int in[2], out[2];
	if ((size_t)snprintf(path, sizeof(path), "%s/cellgate", build) >= sizeof(path))
		fail("--build path too long");
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		fail("pipe: %s", strerror(errno));
	int log = open(g.gateway_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log < 0)
		fail("%s: %s", g.gateway_log, strerror(errno));
	char *argv[] = {path, "--stdio", "--jailer-socket", g.sock_path, NULL};
	g.gateway_pid = spawn(argv, in[0], out[1], log);
	close(log);
	close(in[0]);
	close(out[1]);
	g.gw_in = in[1];
	g.gw_out = out[0];

	static const char init[] =
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
	    "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
	    "\"clientInfo\":{\"name\":\"cellgate-bench\",\"version\":\"1\"}}}\n";
	static const char initialized[] =
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
	write_all(g.gw_in, init, sizeof(init) - 1, "cellgate");
	char *line = read_response(0);
	if (!find_key(line, "result") || find_key(line, "error"))
		fail("initialize failed: %.300s", line);
	write_all(g.gw_in, initialized, sizeof(initialized) - 1, "cellgate");
}

static double run_mcp(const char *code, const char *what)
{
	static unsigned long id;
	char req[512];
	int n = snprintf(req, sizeof(req),
			 "{\"jsonrpc\":\"2.0\",\"id\":%lu,\"method\":\"tools/call\",\"params\":{"
			 "\"name\":\"execute\",\"arguments\":{\"code\":\"%s\"}}}\n",
			 ++id, code);
	if (n < 0 || (size_t)n >= sizeof(req))
		fail("request too long");

	double t0 = now_ms();
	write_all(g.gw_in, req, (size_t)n, "cellgate");
	char *line = read_response(id);
	double t1 = now_ms();

	const char *status = find_key(line, "status");
	if (find_key(line, "error") || !status || strncmp(status, "\"ok\"", 4) != 0)
		fail("%s: tools/call did not succeed: %.400s", what, line);
	return t1 - t0;
}

/* ---- statistics and report ---- */

struct series {
	const char *name;
	double *ms;
	size_t n;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted series. */
static double pct(const struct series *s, double p)
{
	size_t rank = (size_t)((p / 100.0) * (double)s->n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	return s->ms[rank - 1];
}

static double mean(const struct series *s)
{
	double sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += s->ms[i];
	return s->n ? sum / (double)s->n : 0;
}

static void print_row(struct series *s)
{
	qsort(s->ms, s->n, sizeof(double), cmp_double);
	double m = mean(s);
	printf("%-18s %6zu %9.3f %9.3f %9.3f %9.1f\n", s->name, s->n, pct(s, 50), pct(s, 99), m,
	       m > 0 ? 1000.0 / m : 0);
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [--build DIR] [--rounds N] [--warmup N] [--node] [--bare-only]\n"
		"  --build DIR   where cellgate and cellgate-jailer were built (default: build)\n"
		"  --rounds N    measured rounds, each runs every path once (default: 200)\n"
		"  --warmup N    unmeasured rounds first (default: 5)\n"
		"  --node        also time console.log(1): bare node and the javascript profile\n"
		"  --bare-only   only the bare interpreter paths (no jailer, no gateway)\n",
		argv0);
}

static long parse_count(const char *s, const char *opt, long min)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > 1000000)
		fail("%s: expected an integer in [%ld, 1000000], got \"%s\"", opt, min, s);
	return v;
}

enum path { P_BARE, P_BWRAP, P_JAILER, P_MCP, P_NODE_BARE, P_NODE_JAILER, P_COUNT };

int main(int argc, char **argv)
{
	const char *build = "build";
	long rounds = 200, warmup = 5;
	bool node = false, bare_only = false;
	static const struct option opts[] = {
	    {"build", required_argument, NULL, 'b'},
	    {"rounds", required_argument, NULL, 'r'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"node", no_argument, NULL, 'n'},
	    {"bare-only", no_argument, NULL, 'B'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			build = optarg;
			break;
		case 'r':
			rounds = parse_count(optarg, "--rounds", 1);
			break;
		case 'w':
			warmup = parse_count(optarg, "--warmup", 0);
			break;
		case 'n':
			node = true;
			break;
		case 'B':
			bare_only = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 1;
		}
	}
	if (optind != argc) {
		usage(stderr, argv[0]);
		return 1;
	}
	/* A dead gateway must be an error message, not a silent SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);

	bool on[P_COUNT] = {
	    [P_BARE] = true,
	    [P_BWRAP] = access(BWRAP, X_OK) == 0,
	    [P_JAILER] = !bare_only,
	    [P_MCP] = !bare_only,
	    [P_NODE_BARE] = node,
	    [P_NODE_JAILER] = node && !bare_only,
	};
	static const char *const names[P_COUNT] = {
	    [P_BARE] = "python bare",	     [P_BWRAP] = "python bwrap",
	    [P_JAILER] = "python jailer",
	    [P_MCP] = "python mcp-stdio",    [P_NODE_BARE] = "node bare",
	    [P_NODE_JAILER] = "node jailer",
	};
	struct series s[P_COUNT];
	for (int p = 0; p < P_COUNT; p++) {
		s[p].name = names[p];
		s[p].n = 0;
		s[p].ms = calloc((size_t)rounds, sizeof(double));
		if (!s[p].ms)
			fail("out of memory");
	}

	if (!bare_only) {
		start_jailer(build, node);
		start_gateway(build);
	}

	for (long r = 0; r < warmup + rounds; r++) {
		double t[P_COUNT];
		if (on[P_BARE])
			t[P_BARE] = run_bare(PYTHON, "-c", "print(1)", "1\n", names[P_BARE]);
		if (on[P_BWRAP])
			t[P_BWRAP] = run_bwrap(names[P_BWRAP]);
		if (on[P_JAILER])
			t[P_JAILER] = run_jailer("python", "print(1)\n", "1\n", names[P_JAILER]);
		if (on[P_MCP])
			t[P_MCP] = run_mcp("print(1)", names[P_MCP]);
		if (on[P_NODE_BARE])
			t[P_NODE_BARE] =
			    run_bare(NODE, "-e", "console.log(1)", "1\n", names[P_NODE_BARE]);
		if (on[P_NODE_JAILER])
			t[P_NODE_JAILER] = run_jailer("javascript", "console.log(1)\n", "1\n",
						      names[P_NODE_JAILER]);
		if (r < warmup)
			continue;
		for (int p = 0; p < P_COUNT; p++)
			if (on[p])
				s[p].ms[s[p].n++] = t[p];
	}
	cleanup(false);

	printf("cellgate-bench: %ld rounds after %ld warm-up, paths interleaved; times in ms, "
	       "percentiles nearest-rank\n",
	       rounds, warmup);
	printf("%-18s %6s %9s %9s %9s %9s\n", "path", "runs", "p50", "p99", "mean", "runs/s");
	for (int p = 0; p < P_COUNT; p++)
		if (on[p])
			print_row(&s[p]);

	double bare = pct(&s[P_BARE], 50);
	if (on[P_JAILER]) {
		double jl = pct(&s[P_JAILER], 50), mcp = pct(&s[P_MCP], 50);
		printf("ratio jailer/bare p50 = %.2f\n", jl / bare);
		printf("ratio mcp/bare p50 = %.2f\n", mcp / bare);
		printf("ratio mcp/jailer p50 = %.2f\n", mcp / jl);
		printf("jailer_minus_bare_p50_ms = %.2f\n", jl - bare);
		printf("mcp_minus_jailer_p50_ms = %.2f\n", mcp - jl);
		if (on[P_BWRAP])
			printf("ratio jailer/bwrap p50 = %.2f\n", jl / pct(&s[P_BWRAP], 50));
	}
	if (on[P_BWRAP])
		printf("ratio bwrap/bare p50 = %.2f\n", pct(&s[P_BWRAP], 50) / bare);
	if (on[P_NODE_JAILER])
		printf("ratio node_jailer/node_bare p50 = %.2f\n",
		       pct(&s[P_NODE_JAILER], 50) / pct(&s[P_NODE_BARE], 50));
	for (int p = 0; p < P_COUNT; p++)
		free(s[p].ms);
	return 0;
}
