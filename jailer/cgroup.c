/* Job cgroups, shared part: version detection, the file helpers both
 * backends use, the stale-cgroup sweep, and dispatch of cg_job_* to the
 * backend chosen at start (cgroup_v1.c, cgroup_v2.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"

#define FILE_PATH_MAX (CG_MAX_PATH + 128)
#define KEYED_BUF 8192
#define KILL_ROUNDS 200
#define RMDIR_TRIES 100
#define SWEEP_BATCH 256

static struct cg_test_hooks hooks;
static bool plain_files;

void cg_set_test_hooks(const struct cg_test_hooks *h)
{
	memset(&hooks, 0, sizeof(hooks));
	plain_files = h != NULL;
	if (h)
		hooks = *h;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int cg_path(char *out, size_t cap, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	return 0;
}

bool cg_file_exists(const char *dir, const char *file)
{
	char path[FILE_PATH_MAX];
	struct stat st;

	if (cg_path(path, sizeof(path), dir, file) < 0)
		return false;
	return lstat(path, &st) == 0;
}

int cg_write_file(const char *dir, const char *file, const char *value)
{
	char path[FILE_PATH_MAX];
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
	size_t len = strlen(value);
	ssize_t n;
	int fd, r;

	r = cg_path(path, sizeof(path), dir, file);
	if (r < 0)
		return r;
	if (plain_files)
		flags |= O_CREAT | O_TRUNC;
	fd = open(path, flags, 0644);
	if (fd < 0)
		return -errno;
	/* A cgroup file takes the whole value in one write; a short write
	 * would have applied something else. */
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int cg_read_file(const char *dir, const char *file, char *buf, size_t cap)
{
	char path[FILE_PATH_MAX];
	size_t got = 0;
	int fd, r;

	if (!buf || cap == 0)
		return -EINVAL;
	buf[0] = '\0';
	r = cg_path(path, sizeof(path), dir, file);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		char extra;
		ssize_t n;

		if (got < cap - 1)
			n = read(fd, buf + got, cap - 1 - got);
		else
			n = read(fd, &extra, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0) {
			r = (int)got;
			break;
		}
		if (got >= cap - 1) {
			r = -EFBIG;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return r;
}

static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

static int parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (strcmp(s, "max") == 0) {
		*v = UINT64_MAX;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	if (*s)
		return -EINVAL;
	*v = x;
	return 0;
}

int cg_read_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[64];
	int r = cg_read_file(dir, file, buf, sizeof(buf));

	if (r < 0)
		return r;
	trim_end(buf);
	return parse_u64(buf, v);
}

int cg_read_keyed(const char *dir, const char *file, const char *key, uint64_t *v)
{
	char buf[KEYED_BUF];
	size_t klen = strlen(key);
	char *line, *save = NULL;
	int r = cg_read_file(dir, file, buf, sizeof(buf));

	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
			trim_end(line);
			return parse_u64(line + klen + 1, v);
		}
	}
	return -ENODATA;
}

int cg_write_verify(const char *dir, const char *file, const char *value, const char *expect)
{
	char buf[256], want[256];
	int r = cg_write_file(dir, file, value);

	if (r < 0)
		return r;
	r = cg_read_file(dir, file, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (snprintf(want, sizeof(want), "%s", expect ? expect : value) >= (int)sizeof(want))
		return -ENAMETOOLONG;
	trim_end(buf);
	trim_end(want);
	return strcmp(buf, want) == 0 ? 0 : -EIO;
}

int cg_parse_proc_cgroup(const char *text, const char *controller, char *out, size_t cap)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;

		if (c2) {
			const char *ctrls = c1 + 1, *path = c2 + 1;
			size_t clen = (size_t)(c2 - ctrls), plen = len - (size_t)(path - line);
			bool match = false;

			if (!controller) {
				match = c1 - line == 1 && line[0] == '0' && clen == 0;
			} else {
				size_t want = strlen(controller);

				for (const char *t = ctrls; t < c2;) {
					const char *comma = memchr(t, ',', (size_t)(c2 - t));
					size_t tlen =
					    comma ? (size_t)(comma - t) : (size_t)(c2 - t);

					if (tlen == want && memcmp(t, controller, want) == 0)
						match = true;
					t += tlen + 1;
				}
			}
			if (match) {
				if (plen == 0 || path[0] != '/')
					return -EINVAL;
				if (plen >= cap)
					return -ENAMETOOLONG;
				memcpy(out, path, plen);
				out[plen] = '\0';
				return 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

bool cg_host_has_swap(void)
{
	char buf[4096];
	const char *nl;
	int r = cg_read_file("/proc", "swaps", buf, sizeof(buf));

	/* Unknown counts as "swap on": the caller then fails closed. */
	if (r < 0)
		return true;
	nl = strchr(buf, '\n'); /* skip the header line */
	if (!nl)
		return false;
	for (nl++; *nl; nl++)
		if (*nl != '\n' && *nl != ' ')
			return true;
	return false;
}

static int parse_pid(const char *s, size_t n, pid_t *pid)
{
	uint64_t v = 0;

	if (n == 0 || n > 10)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EIO;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v == 0 || v > 0x7fffffff)
		return -EIO;
	*pid = (pid_t)v;
	return 0;
}

/* Streams dir/cgroup.procs (any length) and calls fn for each pid. */
static int for_each_proc(const char *dir, int (*fn)(pid_t, void *), void *ctx, size_t *count)
{
	char path[FILE_PATH_MAX], buf[4096];
	size_t have = 0;
	int fd, r = 0;

	*count = 0;
	r = cg_path(path, sizeof(path), dir, "cgroup.procs");
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		size_t start = 0;
		bool eof = n == 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		have += (size_t)n;
		for (size_t i = 0; i < have && r == 0; i++) {
			if (buf[i] != '\n' && !(eof && i == have - 1))
				continue;
			size_t end = buf[i] == '\n' ? i : i + 1;
			pid_t pid;

			if (end > start) {
				r = parse_pid(buf + start, end - start, &pid);
				if (r == 0) {
					(*count)++;
					r = fn(pid, ctx);
				}
			}
			start = i + 1;
		}
		if (r < 0 || eof)
			break;
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == sizeof(buf)) {
			r = -EIO;
			break;
		}
	}
	close(fd);
	return r;
}

static int kill_one(pid_t pid, void *ctx)
{
	(void)ctx;
	/* Never signal ourselves or init, whatever the file says. */
	if (pid <= 1 || pid == getpid())
		return 0;
	if (kill(pid, SIGKILL) < 0 && errno != ESRCH)
		return -errno;
	return 0;
}

int cg_kill_procs(const char *dir, size_t *found)
{
	return for_each_proc(dir, kill_one, NULL, found);
}

int cg_kill_until_empty(const char *const dirs[], size_t n)
{
	for (int round = 0; round < KILL_ROUNDS; round++) {
		size_t total = 0;

		for (size_t i = 0; i < n; i++) {
			size_t found = 0;
			int r = cg_kill_procs(dirs[i], &found);

			if (r == -ENOENT)
				continue; /* that cgroup is already gone */
			if (r < 0)
				return r;
			total += found;
		}
		if (total == 0)
			return 0;
		sleep_ms(1);
	}
	return -EBUSY;
}

int cg_for_each_proc(const char *dir, int (*fn)(pid_t pid, void *ctx), void *ctx, size_t *count)
{
	size_t dummy;

	return for_each_proc(dir, fn, ctx, count ? count : &dummy);
}

int cg_mkdir_job(const char *dir)
{
	if (mkdir(dir, 0755) < 0)
		return -errno;
	if (hooks.after_mkdir)
		hooks.after_mkdir(dir);
	return 0;
}

/* Test mode only: a scratch "cgroup" holds real files that must go first. */
static void remove_contents(int dfd, int depth)
{
	DIR *d;
	struct dirent *e;

	if (depth > 3)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno != EISDIR)
			continue;
		int sub =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (sub >= 0)
			remove_contents(sub, depth + 1);
		(void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

int cg_rmdir_job(const char *dir)
{
	if (plain_files) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0)
			remove_contents(fd, 0);
	}
	for (int i = 0; i < RMDIR_TRIES; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		sleep_ms(1);
	}
	return -EBUSY;
}

bool cg_valid_job_name(const char *name)
{
	size_t plen = strlen(CG_JOB_PREFIX), n;

	if (!name)
		return false;
	n = strnlen(name, 64);
	if (n >= 64 || n <= plen || strncmp(name, CG_JOB_PREFIX, plen) != 0)
		return false;
	for (size_t i = plen; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* ---- detection ---- */

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '+';
		bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';

		if (start && end)
			return true;
	}
	return false;
}

static bool v2_usable(const char *fs_root)
{
	struct statfs sf;
	char buf[1024];

	if (statfs(fs_root, &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC)
		return false;
	if (cg_read_file(fs_root, "cgroup.controllers", buf, sizeof(buf)) < 0)
		return false;
	return has_word(buf, "memory") && has_word(buf, "pids");
}

static bool v1_usable(const char *fs_root)
{
	char path[FILE_PATH_MAX];
	struct statfs sf;

	if (cg_path(path, sizeof(path), fs_root, "memory") < 0)
		return false;
	return statfs(path, &sf) == 0 && sf.f_type == CGROUP_SUPER_MAGIC;
}

bool cg_list_has_controller(const char *list, const char *controller)
{
	return has_word(list, controller);
}

int cg_own_cgroup(const char *controller, char *out, size_t cap)
{
	char buf[8192];
	int r = cg_read_file("/proc/self", "cgroup", buf, sizeof(buf));

	if (r < 0)
		return r;
	return cg_parse_proc_cgroup(buf, controller, out, cap);
}

int cg_root_init(struct cg_root *root, enum cgroup_mode mode, const char *fs_root,
		 const char *override, char *err, size_t errlen)
{
	bool v2, v1;

	if (err && errlen)
		err[0] = '\0';
	if (!root || !fs_root)
		return -EINVAL;
	memset(root, 0, sizeof(*root));
	if (!override)
		override = "";
	v2 = v2_usable(fs_root);
	v1 = !v2 && v1_usable(fs_root);
	switch (mode) {
	case CGROUP_AUTO:
		if (v2)
			return cg_v2_root_init(root, fs_root, override, err, errlen);
		if (v1)
			return cg_v1_root_init(root, fs_root, override, err, errlen);
		snprintf(err, errlen,
			 "%s: neither cgroup2 with the memory and pids controllers "
			 "nor a cgroup v1 memory hierarchy",
			 fs_root);
		return -EOPNOTSUPP;
	case CGROUP_V2:
		if (v2)
			return cg_v2_root_init(root, fs_root, override, err, errlen);
		snprintf(err, errlen,
			 "%s: not a cgroup2 mount with the memory and pids controllers", fs_root);
		return -EOPNOTSUPP;
	case CGROUP_V1:
		if (v1_usable(fs_root))
			return cg_v1_root_init(root, fs_root, override, err, errlen);
		snprintf(err, errlen, "%s/memory: not a cgroup v1 memory hierarchy", fs_root);
		return -EOPNOTSUPP;
	}
	snprintf(err, errlen, "unknown cgroup mode %d", (int)mode);
	return -EINVAL;
}

/* ---- sweep ---- */

static int collect_jobs(const char *dir, char (*names)[64], size_t cap, size_t *n)
{
	struct dirent *e;
	DIR *d;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	*n = 0;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (*n < cap && (e = readdir(d))) {
		struct stat st;

		if (!cg_valid_job_name(e->d_name))
			continue;
		if (e->d_type != DT_DIR &&
		    (e->d_type != DT_UNKNOWN ||
		     fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     !S_ISDIR(st.st_mode)))
			continue;
		memcpy(names[*n], e->d_name, strlen(e->d_name) + 1);
		(*n)++;
	}
	closedir(d);
	return 0;
}

int cg_sweep_stale(const struct cg_root *root)
{
	const char *dirs[4];
	size_t ndirs;
	char(*names)[64];
	int removed = 0, first_err = 0;

	if (!root)
		return -EINVAL;
	if (root->version == CG_V2) {
		dirs[0] = root->v2_dir;
		ndirs = 1;
	} else if (root->version == CG_V1) {
		ndirs = cg_v1_dirs(root, dirs);
	} else {
		return -EINVAL;
	}
	names = calloc(SWEEP_BATCH, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < ndirs; i++) {
		/* Batches, so a directory of any size is swept without
		 * removing entries under a running readdir. */
		for (int batch = 0; batch < 64; batch++) {
			size_t n = 0, failed = 0;
			int r = collect_jobs(dirs[i], names, SWEEP_BATCH, &n);

			if (r < 0) {
				if (r != -ENOENT && !first_err)
					first_err = r;
				break;
			}
			for (size_t j = 0; j < n; j++) {
				struct cg_job job = {.root = root, .v2_fd = -1};

				memcpy(job.name, names[j], sizeof(job.name));
				r = cg_job_destroy(&job);
				if (r == 0)
					removed++;
				else {
					failed++;
					if (!first_err)
						first_err = r;
				}
			}
			if (n < SWEEP_BATCH || failed)
				break;
		}
	}
	free(names);
	return first_err ? first_err : removed;
}

void cg_root_release(const struct cg_root *root)
{
	const char *dirs[4];
	size_t ndirs;

	/* v1 only: the per-controller "cellgate" parents were made by this
	 * jailer, and a hierarchy the service manager does not manage (a
	 * separate cpuacct, say) would keep them after the jailer is gone.
	 * rmdir removes only an empty directory, so a parent that still
	 * holds a job cgroup stays for the next start's sweep.  A v2 parent
	 * is the jailer's own (delegated) cgroup: its manager removes it. */
	if (!root || root->version != CG_V1)
		return;
	ndirs = cg_v1_dirs(root, dirs);
	for (size_t i = 0; i < ndirs; i++)
		if (rmdir(dirs[i]) < 0 && errno != ENOENT && errno != EBUSY && errno != ENOTEMPTY)
			log_warn("cgroup: rmdir %s: %s", dirs[i], strerror(errno));
}

/* ---- dispatch ---- */

int cg_job_create(struct cg_job *job, const struct cg_root *root, const char *name,
		  const struct ipc_limits *lim, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!job)
		return -EINVAL;
	memset(job, 0, sizeof(*job));
	job->v2_fd = -1;
	if (!root || !lim || !cg_valid_job_name(name)) {
		snprintf(err, errlen, "invalid job cgroup name or arguments");
		return -EINVAL;
	}
	if (lim->memory_bytes == 0 || lim->pids == 0) {
		snprintf(err, errlen, "job %s: memory and pids limits must be set", name);
		return -EINVAL;
	}
	job->root = root;
	memcpy(job->name, name, strlen(name) + 1);
	if (root->version == CG_V2)
		return cg_v2_job_create(job, lim, err, errlen);
	if (root->version == CG_V1)
		return cg_v1_job_create(job, lim, err, errlen);
	snprintf(err, errlen, "cgroup root not initialised");
	return -EINVAL;
}

#define DISPATCH(job, call1, call2)                                                                \
	do {                                                                                       \
		if (!(job) || !(job)->root || !cg_valid_job_name((job)->name))                     \
			return -EINVAL;                                                            \
		if ((job)->root->version == CG_V2)                                                 \
			return call2;                                                              \
		if ((job)->root->version == CG_V1)                                                 \
			return call1;                                                              \
		return -EINVAL;                                                                    \
	} while (0)

int cg_job_attach(struct cg_job *job, pid_t pid)
{
	if (pid <= 0)
		return -EINVAL;
	DISPATCH(job, cg_v1_job_attach(job, pid), cg_v2_job_attach(job, pid));
}

int cg_job_cpu_ns(const struct cg_job *job, uint64_t *ns)
{
	if (!ns)
		return -EINVAL;
	DISPATCH(job, cg_v1_job_cpu_ns(job, ns), cg_v2_job_cpu_ns(job, ns));
}

int cg_job_oom_fired(const struct cg_job *job, bool *fired)
{
	if (!fired)
		return -EINVAL;
	DISPATCH(job, cg_v1_job_oom_fired(job, fired), cg_v2_job_oom_fired(job, fired));
}

int cg_job_kill(struct cg_job *job)
{
	DISPATCH(job, cg_v1_job_kill(job), cg_v2_job_kill(job));
}

int cg_job_metrics(const struct cg_job *job, struct cg_metrics *m)
{
	if (!m)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	DISPATCH(job, cg_v1_job_metrics(job, m), cg_v2_job_metrics(job, m));
}

int cg_job_destroy(struct cg_job *job)
{
	DISPATCH(job, cg_v1_job_destroy(job), cg_v2_job_destroy(job));
}

int cg_set_limit(const char *dir, const char *file, const char *value, char *err, size_t errlen)
{
	int r = cg_write_verify(dir, file, value, NULL);

	if (r < 0)
		snprintf(err, errlen, "%s/%s = %s: %s", dir, file, value,
			 r == -EIO ? "read-back mismatch" : strerror(-r));
	return r;
}

uint64_t cg_memory_in_pages(uint64_t bytes)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t rounded = bytes / page * page;

	return rounded ? rounded : page;
}
