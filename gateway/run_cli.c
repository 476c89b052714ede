#include "run_cli.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jailer_client.h"
#include "job.h"
#include "log.h"

struct run_state {
	struct event_base *base;
	int exit_code;
};

static int read_all(const char *path, char **out, size_t *len)
{
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = IPC_MAX_CODE_BYTES + 1, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			free(buf);
			return -EFBIG;
		}
	}
	if (fd != STDIN_FILENO)
		close(fd);
	*out = buf;
	*len = n;
	return 0;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static int exit_code_for(const struct job_outcome *o)
{
	const struct ipc_result *r = &o->result;
	switch (r->status) {
	case IPC_ST_OK:
	case IPC_ST_EXIT:
		return r->exit_code;
	case IPC_ST_SIGNAL:
	case IPC_ST_SECCOMP:
		return 128 + r->signal;
	case IPC_ST_TIMEOUT:
		return 124;
	case IPC_ST_INTERNAL:
		return 70;
	default:
		return 125;
	}
}

static void on_done(const struct job_outcome *o, void *arg)
{
	struct run_state *st = arg;
	write_all(STDOUT_FILENO, o->stdout_data, o->stdout_len);
	write_all(STDERR_FILENO, o->stderr_data, o->stderr_len);
	const struct ipc_result *r = &o->result;
	char extra[IPC_MAX_MESSAGE + 64] = "";
	if (r->status == IPC_ST_EXIT || r->status == IPC_ST_OK)
		snprintf(extra, sizeof(extra), " exit=%d", r->exit_code);
	else if (r->signal)
		snprintf(extra, sizeof(extra), " signal=%d", r->signal);
	fprintf(stderr,
		"cellgate: status=%s%s wall=%llums cpu=%llums memory=%.1fMiB%s%s%s%s\n",
		ipc_status_name(r->status), extra, (unsigned long long)r->wall_ms,
		(unsigned long long)(r->cpu_user_ms + r->cpu_sys_ms),
		(double)r->memory_peak_bytes / (1024.0 * 1024.0),
		o->stdout_truncated ? " stdout_truncated" : "",
		o->stderr_truncated ? " stderr_truncated" : "", r->message[0] ? " message=" : "",
		r->message);
	st->exit_code = exit_code_for(o);
	event_base_loopexit(st->base, NULL);
}

int run_cli(const struct run_options *opt)
{
	char *code = NULL;
	size_t len = 0;
	int rc = read_all(opt->file, &code, &len);
	if (rc < 0) {
		fprintf(stderr, "cellgate run: %s: %s\n", opt->file,
			rc == -EFBIG ? "larger than the 1 MiB code limit" : strerror(-rc));
		return 2;
	}
	struct event_base *base = event_base_new();
	if (!base)
		return 70;
	char err[512];
	struct jailer_client *jc =
		jailer_client_connect(base, opt->jailer_socket, opt->jailer_path, err, sizeof(err));
	if (!jc) {
		fprintf(stderr, "cellgate run: %s\n", err);
		free(code);
		event_base_free(base);
		return 70;
	}
	const char *lang = opt->language ? opt->language : "python";
	const struct ipc_profile *prof = jailer_client_find_profile(jc, lang);
	if (!prof) {
		fprintf(stderr, "cellgate run: the jailer has no profile for language '%s'\n", lang);
		jailer_client_free(jc);
		event_base_free(base);
		free(code);
		return 2;
	}
	struct job_request req = {.profile = lang, .code = code, .code_len = len};
	if (opt->timeout_s > 0) {
		double ms = ceil(opt->timeout_s * 1000.0);
		if (ms > (double)prof->maximum.wall_ms) {
			fprintf(stderr, "cellgate run: --timeout must be at most %llu s\n",
				(unsigned long long)(prof->maximum.wall_ms / 1000));
			jailer_client_free(jc);
			event_base_free(base);
			free(code);
			return 2;
		}
		req.limits.wall_ms = (uint64_t)ms;
	}
	struct run_state st = {.base = base, .exit_code = 70};
	if (!job_start(jc, &req, on_done, &st)) {
		fprintf(stderr, "cellgate run: cannot prepare the job\n");
	} else {
		event_base_dispatch(base);
	}
	free(code);
	jailer_client_free(jc);
	event_base_free(base);
	return st.exit_code;
}
