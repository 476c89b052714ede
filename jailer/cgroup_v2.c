/* Job cgroups on cgroup v2: a delegated parent with the jailer itself in a
 * "jailer" leaf (no-internal-process rule), one child cgroup per job with
 * memory.max, memory.swap.max=0, memory.oom.group=1, pids.max and cpu.max,
 * entered with CLONE_INTO_CGROUP, killed with cgroup.kill. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"

#define JOB_PATH_MAX (CG_MAX_PATH + 72)
#define LEAF_NAME "jailer"
#define MOVE_ROUNDS 8
#define EMPTY_WAIT_MS 500
#define CPU_MAX "100000 100000" /* one CPU: quota and period in us */

static void sleep_1ms(void)
{
	struct timespec ts = {0, 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int job_path(char *out, const struct cg_job *job)
{
	return cg_path(out, JOB_PATH_MAX, job->root->v2_dir, job->name);
}

struct move_ctx {
	char leaf[JOB_PATH_MAX];
	int err;
};

static int move_one(pid_t pid, void *ctx)
{
	struct move_ctx *mc = ctx;
	char val[16];
	int r;

	snprintf(val, sizeof(val), "%d", (int)pid);
	r = cg_write_file(mc->leaf, "cgroup.procs", val);
	/* A process that exited meanwhile is not an error. */
	if (r < 0 && r != -ESRCH && !mc->err)
		mc->err = r;
	return 0;
}

static int count_one(pid_t pid, void *ctx)
{
	(void)pid;
	(void)ctx;
	return 0;
}

/* The no-internal-process rule: a cgroup with controllers enabled for its
 * children may hold no process, so whatever is in the parent (the jailer
 * itself) moves to a leaf first. */
static int empty_parent(const char *dir, char *err, size_t errlen)
{
	struct move_ctx mc = {.err = 0};
	int r = cg_path(mc.leaf, sizeof(mc.leaf), dir, LEAF_NAME);

	if (r < 0)
		return r;
	for (int round = 0; round < MOVE_ROUNDS; round++) {
		size_t count = 0;

		r = cg_for_each_proc(dir, count_one, NULL, &count);
		if (r == -ENOENT && round == 0) {
			snprintf(err, errlen, "%s: no cgroup.procs: not a cgroup", dir);
			return r;
		}
		if (r < 0) {
			snprintf(err, errlen, "%s/cgroup.procs: %s", dir, strerror(-r));
			return r;
		}
		if (count == 0)
			return 0;
		if (mkdir(mc.leaf, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			snprintf(err, errlen, "mkdir %s: %s", mc.leaf, strerror(-r));
			return r;
		}
		mc.err = 0;
		r = cg_for_each_proc(dir, move_one, &mc, &count);
		if (r == 0 && mc.err)
			r = mc.err;
		if (r < 0) {
			snprintf(err, errlen, "moving processes of %s to %s: %s", dir, mc.leaf,
				 strerror(-r));
			return r;
		}
	}
	snprintf(err, errlen, "%s: processes remain after moving them to %s", dir, mc.leaf);
	return -EBUSY;
}

int cg_v2_prepare_parent(const char *dir, char *err, size_t errlen)
{
	char buf[512];
	int r;

	if (err && errlen)
		err[0] = '\0';
	if (!dir || strlen(dir) >= CG_MAX_PATH)
		return -EINVAL;
	r = empty_parent(dir, err, errlen);
	if (r < 0)
		return r;
	/* The kernel rejects the whole write if one controller is missing,
	 * so cpu (optional) is retried apart from memory and pids (required). */
	r = cg_write_file(dir, "cgroup.subtree_control", "+memory +pids +cpu");
	if (r < 0) {
		r = cg_write_file(dir, "cgroup.subtree_control", "+memory +pids");
		if (r < 0) {
			snprintf(err, errlen,
				 "%s/cgroup.subtree_control: cannot enable memory and "
				 "pids: %s",
				 dir, strerror(-r));
			return r;
		}
		(void)cg_write_file(dir, "cgroup.subtree_control", "+cpu");
	}
	r = cg_read_file(dir, "cgroup.subtree_control", buf, sizeof(buf));
	if (r < 0) {
		snprintf(err, errlen, "%s/cgroup.subtree_control: %s", dir, strerror(-r));
		return r;
	}
	if (!cg_list_has_controller(buf, "memory") || !cg_list_has_controller(buf, "pids")) {
		snprintf(err, errlen, "%s/cgroup.subtree_control: memory or pids not enabled", dir);
		return -EIO;
	}
	return 0;
}

int cg_v2_root_init(struct cg_root *root, const char *fs_root, const char *override, char *err,
		    size_t errlen)
{
	char own[CG_MAX_PATH];
	struct statfs sf;
	int n, r;

	if (override[0]) {
		if (override[0] != '/' || strstr(override, "..") || strstr(override, "//")) {
			snprintf(err, errlen,
				 "cgroup_root '%s': for cgroup v2 it must be an "
				 "absolute path without '..' or '//'",
				 override);
			return -EINVAL;
		}
		n = snprintf(root->v2_dir, sizeof(root->v2_dir), "%s", override);
	} else {
		r = cg_own_cgroup(NULL, own, sizeof(own));
		if (r < 0) {
			snprintf(err, errlen, "/proc/self/cgroup: no cgroup2 line: %s",
				 strerror(-r));
			return r;
		}
		/* A restarted jailer may still sit in the leaf it moved into. */
		size_t len = strlen(own);
		if (len > strlen("/" LEAF_NAME) &&
		    strcmp(own + len - strlen("/" LEAF_NAME), "/" LEAF_NAME) == 0)
			own[len - strlen("/" LEAF_NAME)] = '\0';
		if (strcmp(own, "/") == 0) {
			snprintf(err, errlen,
				 "the jailer runs in the root cgroup and never uses it: "
				 "run it in a unit with Delegate=yes or set "
				 "cgroup_root");
			return -EPERM;
		}
		n = snprintf(root->v2_dir, sizeof(root->v2_dir), "%s%s", fs_root, own);
	}
	if (n < 0 || (size_t)n >= sizeof(root->v2_dir)) {
		snprintf(err, errlen, "cgroup v2 path too long");
		return -ENAMETOOLONG;
	}
	if (statfs(root->v2_dir, &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err, errlen, "%s: not a directory in a cgroup2 mount", root->v2_dir);
		return -ENOTDIR;
	}
	r = cg_v2_prepare_parent(root->v2_dir, err, errlen);
	if (r < 0)
		return r;
	root->version = CG_V2;
	return 0;
}

static int write_limits(const char *dir, const struct ipc_limits *lim, char *err, size_t errlen)
{
	char val[32];
	int r;

	snprintf(val, sizeof(val), "%llu", (unsigned long long)cg_memory_in_pages(lim->memory_bytes));
	r = cg_set_limit(dir, "memory.max", val, err, errlen);
	if (r < 0)
		return r;
	if (cg_file_exists(dir, "memory.swap.max")) {
		r = cg_set_limit(dir, "memory.swap.max", "0", err, errlen);
		if (r < 0)
			return r;
	} else if (cg_host_has_swap()) {
		snprintf(err, errlen,
			 "%s: memory.swap.max is missing (swap accounting off) but the "
			 "host has swap: the job could swap",
			 dir);
		return -EOPNOTSUPP;
	}
	/* One OOM kill takes the whole job, never a lone helper process. */
	r = cg_set_limit(dir, "memory.oom.group", "1", err, errlen);
	if (r < 0)
		return r;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)lim->pids);
	r = cg_set_limit(dir, "pids.max", val, err, errlen);
	if (r < 0)
		return r;
	/* cpu is optional in the parent (cg_v2_prepare_parent): without it the
	 * CPU-time limit still holds through cpu.stat, only the quota is lost. */
	if (cg_file_exists(dir, "cpu.max"))
		r = cg_set_limit(dir, "cpu.max", CPU_MAX, err, errlen);
	return r;
}

int cg_v2_job_create(struct cg_job *job, const struct ipc_limits *lim, char *err, size_t errlen)
{
	char dir[JOB_PATH_MAX];
	int r = job_path(dir, job);

	if (r < 0) {
		snprintf(err, errlen, "job %s: cgroup path too long", job->name);
		return r;
	}
	r = cg_mkdir_job(dir);
	if (r < 0) {
		/* EEXIST: not ours to remove; the sweep handles stale ones. */
		snprintf(err, errlen, "mkdir %s: %s", dir, strerror(-r));
		return r;
	}
	r = write_limits(dir, lim, err, errlen);
	if (r == 0) {
		job->v2_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (job->v2_fd < 0) {
			r = -errno;
			snprintf(err, errlen, "open %s: %s", dir, strerror(-r));
		}
	}
	if (r < 0)
		(void)cg_rmdir_job(dir);
	return r;
}

/* Already there when it was cloned with CLONE_INTO_CGROUP: moving it again
 * would take the global threadgroup rwsem for nothing. */
static bool already_in(const struct cg_job *job, pid_t pid)
{
	char pdir[32], buf[8192], path[CG_MAX_PATH];
	size_t plen, nlen = strlen(job->name);

	snprintf(pdir, sizeof(pdir), "/proc/%d", (int)pid);
	if (cg_read_file(pdir, "cgroup", buf, sizeof(buf)) < 0 ||
	    cg_parse_proc_cgroup(buf, NULL, path, sizeof(path)) < 0)
		return false;
	plen = strlen(path);
	return plen > nlen && path[plen - nlen - 1] == '/' &&
	       strcmp(path + plen - nlen, job->name) == 0;
}

int cg_v2_job_attach(struct cg_job *job, pid_t pid)
{
	char dir[JOB_PATH_MAX], val[16];
	int r = job_path(dir, job);

	if (r < 0)
		return r;
	if (already_in(job, pid))
		return 0;
	snprintf(val, sizeof(val), "%d", (int)pid);
	return cg_write_file(dir, "cgroup.procs", val);
}

int cg_v2_job_cpu_ns(const struct cg_job *job, uint64_t *ns)
{
	char dir[JOB_PATH_MAX];
	uint64_t usec;
	int r = job_path(dir, job);

	if (r < 0)
		return r;
	r = cg_read_keyed(dir, "cpu.stat", "usage_usec", &usec);
	if (r < 0)
		return r;
	*ns = usec > UINT64_MAX / 1000 ? UINT64_MAX : usec * 1000;
	return 0;
}

int cg_v2_job_oom_fired(const struct cg_job *job, bool *fired)
{
	char dir[JOB_PATH_MAX];
	uint64_t kills = 0, group = 0;
	int r = job_path(dir, job);

	if (r < 0)
		return r;
	r = cg_read_keyed(dir, "memory.events", "oom_kill", &kills);
	if (r < 0)
		return r;
	/* oom_group_kill is newer (6.x); its absence is not an error. */
	r = cg_read_keyed(dir, "memory.events", "oom_group_kill", &group);
	if (r < 0 && r != -ENODATA)
		return r;
	*fired = kills > 0 || group > 0;
	return 0;
}

int cg_v2_job_kill(struct cg_job *job)
{
	char dir[JOB_PATH_MAX];
	const char *dirs[1] = {dir};
	struct stat st;
	int r = job_path(dir, job);

	if (r < 0)
		return r;
	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (cg_file_exists(dir, "cgroup.kill"))
		return cg_write_file(dir, "cgroup.kill", "1");
	/* Kernels before 5.14: kill pid by pid until empty. */
	return cg_kill_until_empty(dirs, 1);
}

int cg_v2_job_metrics(const struct cg_job *job, struct cg_metrics *m)
{
	char dir[JOB_PATH_MAX];
	uint64_t user = 0, sys = 0;
	int r, first = 0;

	r = job_path(dir, job);
	if (r < 0)
		return r;
	/* memory.peak is 5.19+; memory.current is the best we have before. */
	r = cg_read_u64(dir, "memory.peak", &m->memory_peak_bytes);
	if (r == -ENOENT)
		r = cg_read_u64(dir, "memory.current", &m->memory_peak_bytes);
	first = r;
	r = cg_v2_job_cpu_ns(job, &m->cpu_total_ns);
	first = first ? first : r;
	r = cg_read_keyed(dir, "cpu.stat", "user_usec", &user);
	if (r == 0)
		r = cg_read_keyed(dir, "cpu.stat", "system_usec", &sys);
	first = first ? first : r;
	m->cpu_user_ms = user / 1000;
	m->cpu_sys_ms = sys / 1000;
	r = cg_v2_job_oom_fired(job, &m->oom_killed);
	return first ? first : r;
}

int cg_v2_job_destroy(struct cg_job *job)
{
	char dir[JOB_PATH_MAX];
	struct stat st;
	int r;

	if (job->v2_fd >= 0) {
		close(job->v2_fd);
		job->v2_fd = -1;
	}
	r = job_path(dir, job);
	if (r < 0)
		return r;
	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	(void)cg_v2_job_kill(job); /* a failure shows up as EBUSY below */
	/* cgroup.kill is asynchronous: wait (bounded) for the last exit. */
	for (int i = 0; i < EMPTY_WAIT_MS; i++) {
		uint64_t populated = 0;

		r = cg_read_keyed(dir, "cgroup.events", "populated", &populated);
		if (r < 0 || populated == 0)
			break;
		sleep_1ms();
	}
	return cg_rmdir_job(dir);
}
