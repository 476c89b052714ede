/* See fuzz_backend.h.  Besides answering, the backend checks what the
 * gateway hands it, as the jailer would: a known profile, code within
 * IPC_MAX_CODE_BYTES, stdin within IPC_MAX_STDIN_BYTES, no limit above the
 * profile's maximum.  A request the jailer would refuse is a gateway bug,
 * so it aborts (a crash the fuzzer reports). */
#include "fuzz_backend.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOW_NS 2000000ull

struct fuzz_job {
	struct fuzz_job *prev, *next;
	const struct ipc_profile *profile;
	char *code;
	size_t code_len;
	char *in; /* stdin; NULL when none */
	size_t in_len;
	struct ipc_limits limits;
	job_done_fn done;
	void *arg;
	uint64_t id;
	uint64_t started_ns;
	bool cancelled;
};

static const char py_probe[] = "import sys;print(sys.version";
static const char js_probe[] = "console.log(process.versions.node)";

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_backend: %s\n", what);
	abort();
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		fail("clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool starts(const struct fuzz_job *j, const char *word)
{
	size_t n = strlen(word);
	return j->code_len >= n && memcmp(j->code, word, n) == 0;
}

static const struct ipc_hello_ok *fb_profiles(struct exec_backend *b)
{
	struct fuzz_backend *fb = b->impl;
	return &fb->hello;
}

static const struct ipc_profile *find_profile(const struct fuzz_backend *fb, const char *name)
{
	for (uint32_t i = 0; i < fb->hello.nprofiles; i++)
		if (strcmp(fb->hello.profiles[i].name, name) == 0)
			return &fb->hello.profiles[i];
	return NULL;
}

static void check_limits(const struct ipc_limits *req, const struct ipc_limits *max)
{
	const uint64_t r[] = {req->wall_ms, req->cpu_ms,      req->memory_bytes,
			      req->pids,    req->tmpfs_bytes, req->output_bytes};
	const uint64_t m[] = {max->wall_ms, max->cpu_ms,      max->memory_bytes,
			      max->pids,    max->tmpfs_bytes, max->output_bytes};
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (m[i] != 0 && r[i] > m[i])
			fail("a RUN asks for a limit above the profile maximum");
}

static char *copy_bytes(const char *p, size_t n)
{
	char *c = malloc(n + 1);
	if (!c)
		fail("out of memory");
	memcpy(c, p, n);
	c[n] = '\0';
	return c;
}

static void *fb_start(struct exec_backend *b, const struct job_request *req, job_done_fn done,
		      void *arg)
{
	struct fuzz_backend *fb = b->impl;

	if (!req || !req->profile || !done)
		fail("start without a request, profile or callback");
	const struct ipc_profile *prof = find_profile(fb, req->profile);
	if (!prof)
		fail("a RUN names a profile the jailer does not offer");
	if (!req->code || req->code_len == 0 || req->code_len > IPC_MAX_CODE_BYTES)
		fail("a RUN carries no code or too much");
	if (req->stdin_len > IPC_MAX_STDIN_BYTES || (req->stdin_len && !req->stdin_data))
		fail("a RUN carries too much stdin");
	check_limits(&req->limits, &prof->maximum);

	struct fuzz_job *j = calloc(1, sizeof(*j));
	if (!j)
		fail("out of memory");
	j->profile = prof;
	j->code = copy_bytes(req->code, req->code_len);
	j->code_len = req->code_len;
	if (req->stdin_data) {
		j->in = copy_bytes(req->stdin_data, req->stdin_len);
		j->in_len = req->stdin_len;
	}
	j->limits = req->limits;
	j->done = done;
	j->arg = arg;
	j->id = req->job_id ? req->job_id : ++fb->next_id;
	j->started_ns = now_ns();
	j->next = fb->live;
	if (fb->live)
		fb->live->prev = j;
	fb->live = j;
	fb->nlive++;
	return j;
}

static struct fuzz_job *live_job(struct fuzz_backend *fb, void *handle)
{
	for (struct fuzz_job *j = fb->live; j; j = j->next)
		if (j == handle)
			return j;
	fail("cancel or abandon of a job that is not running");
	return NULL;
}

static void unlink_job(struct fuzz_backend *fb, struct fuzz_job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		fb->live = j->next;
	if (j->next)
		j->next->prev = j->prev;
	fb->nlive--;
}

static void free_job(struct fuzz_job *j)
{
	free(j->code);
	free(j->in);
	free(j);
}

static void fb_cancel(struct exec_backend *b, void *handle)
{
	live_job(b->impl, handle)->cancelled = true;
}

static void fb_abandon(struct exec_backend *b, void *handle)
{
	struct fuzz_backend *fb = b->impl;
	struct fuzz_job *j = live_job(fb, handle);
	unlink_job(fb, j);
	free_job(j);
}

static uint64_t fb_next_id(struct exec_backend *b)
{
	struct fuzz_backend *fb = b->impl;
	return ++fb->next_id;
}

static void fb_peek(struct exec_backend *b, void *handle, const char **out, size_t *out_len,
		    const char **err, size_t *err_len)
{
	struct fuzz_job *j = live_job(b->impl, handle);
	*out = j->code;
	*out_len = j->code_len / 2;
	*err = j->in ? j->in : "";
	*err_len = j->in_len;
}

static void set_profile(struct ipc_profile *p, const char *name, const char *language,
			const char *interpreter, bool network)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->language, sizeof(p->language), "%s", language);
	snprintf(p->interpreter, sizeof(p->interpreter), "%s", interpreter);
	p->defaults = (struct ipc_limits){10000, 10000, 256u << 20, 64, 64u << 20, 1u << 20};
	p->maximum = (struct ipc_limits){60000, 60000, 1u << 30, 256, 256u << 20, 8u << 20};
	p->network = network;
}

void fuzz_backend_init(struct fuzz_backend *fb)
{
	memset(fb, 0, sizeof(*fb));
	fb->b = (struct exec_backend){.profiles = fb_profiles,
				      .start = fb_start,
				      .cancel = fb_cancel,
				      .abandon = fb_abandon,
				      .impl = fb,
				      .next_id = fb_next_id,
				      .peek = fb_peek};
	fb->hello.nprofiles = 3;
	set_profile(&fb->hello.profiles[0], "python", "python", "/usr/bin/python3", false);
	set_profile(&fb->hello.profiles[1], "javascript", "javascript", "/usr/bin/node", false);
	set_profile(&fb->hello.profiles[2], "python-net", "python", "/usr/bin/python3", true);
}

static bool due(const struct fuzz_job *j, uint64_t now)
{
	if (j->cancelled)
		return true;
	if (starts(j, "hang"))
		return false;
	if (starts(j, "slow"))
		return now - j->started_ns >= SLOW_NS;
	return true;
}

static uint64_t pick(uint64_t asked, uint64_t dflt)
{
	return asked ? asked : dflt;
}

/* Fill the outcome of j; *buf (caller frees) holds stdout when it is not
 * the code itself. */
static void outcome(const struct fuzz_job *j, struct job_outcome *o, char **buf)
{
	const struct ipc_limits *d = &j->profile->defaults;
	struct ipc_result *r = &o->result;

	memset(o, 0, sizeof(*o));
	*buf = NULL;
	o->job_id = j->id;
	o->limits = (struct ipc_limits){pick(j->limits.wall_ms, d->wall_ms),
					pick(j->limits.cpu_ms, d->cpu_ms),
					pick(j->limits.memory_bytes, d->memory_bytes),
					pick(j->limits.pids, d->pids),
					pick(j->limits.tmpfs_bytes, d->tmpfs_bytes),
					pick(j->limits.output_bytes, d->output_bytes)};
	r->status = IPC_ST_OK;
	r->wall_ms = 5 + j->code_len % 1000;
	r->cpu_user_ms = 2000 + j->code_len % 3000; /* enough to reach a small CPU quota */
	r->cpu_sys_ms = 1;
	r->memory_peak_bytes = 1u << 20;
	o->stdout_data = j->code;
	o->stdout_len = j->code_len;
	o->stderr_data = j->in ? j->in : "";
	o->stderr_len = j->in_len;

	if (starts(j, py_probe) || starts(j, js_probe)) {
		o->stdout_data = starts(j, py_probe) ? "3.11.2\n" : "20.19.0\n";
		o->stdout_len = strlen(o->stdout_data);
	} else if (j->cancelled) {
		r->status = IPC_ST_CANCELLED;
		r->signal = SIGKILL;
		r->exit_code = -1;
	} else if (starts(j, "exit")) {
		r->status = IPC_ST_EXIT;
		r->exit_code = 3;
	} else if (starts(j, "kill")) {
		r->status = IPC_ST_SIGNAL;
		r->signal = SIGKILL;
		r->exit_code = -1;
	} else if (starts(j, "timeout")) {
		r->status = IPC_ST_TIMEOUT;
		r->wall_ms = o->limits.wall_ms;
	} else if (starts(j, "oom")) {
		r->status = IPC_ST_MEMORY;
		r->memory_peak_bytes = o->limits.memory_bytes;
	} else if (starts(j, "output")) {
		r->status = IPC_ST_OUTPUT_LIMIT;
		o->stdout_truncated = true;
		o->stderr_truncated = j->in_len > 0;
	} else if (starts(j, "seccomp")) {
		r->status = IPC_ST_SECCOMP;
		r->signal = SIGSYS;
	} else if (starts(j, "internal")) {
		r->status = IPC_ST_INTERNAL;
	} else if (starts(j, "reject")) {
		memset(r, 0, sizeof(*r));
		memset(&o->limits, 0, sizeof(o->limits));
		r->status = IPC_ST_INTERNAL;
		o->rejected = true;
		o->reject_reason = IPC_ERR_LIMIT;
		o->stdout_data = o->stderr_data = NULL;
		o->stdout_len = o->stderr_len = 0;
	} else if (starts(j, "binary") || starts(j, "nul")) {
		bool bin = starts(j, "binary");
		*buf = copy_bytes(j->code, j->code_len);
		for (size_t i = 0; i < j->code_len; i++)
			(*buf)[i] = bin ? (char)((unsigned char)(*buf)[i] | 0x80)
					: (i % 4 == 3 ? '\0' : (*buf)[i]);
		o->stdout_data = *buf;
	}
}

size_t fuzz_backend_run(struct fuzz_backend *fb)
{
	size_t n = 0;
	struct fuzz_job *j;

	/* Rescan from the head after every completion: a callback may start or
	 * abandon other jobs. */
	do {
		uint64_t now = now_ns();
		for (j = fb->live; j && !due(j, now); j = j->next)
			;
		if (!j)
			break;
		struct job_outcome o;
		char *buf;
		unlink_job(fb, j);
		outcome(j, &o, &buf);
		j->done(&o, j->arg);
		free(buf);
		free_job(j);
		n++;
	} while (1);
	return n;
}

size_t fuzz_backend_live(const struct fuzz_backend *fb)
{
	return fb->nlive;
}

bool fuzz_backend_pending(const struct fuzz_backend *fb)
{
	for (const struct fuzz_job *j = fb->live; j; j = j->next)
		if (j->cancelled || !starts(j, "hang"))
			return true;
	return false;
}
