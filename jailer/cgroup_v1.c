/* Job cgroups on cgroup v1: one directory per job in each of the memory,
 * pids, cpu and cpuacct hierarchies; limits written and read back; the job
 * killed pid by pid (cgroup v1 has no cgroup.kill). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

#define JOB_PATH_MAX (CG_MAX_PATH + 72)
#define CFS_PERIOD_US "100000"
#define CFS_QUOTA_US "100000" /* one CPU */

static const char *const controllers[] = {"memory", "pids", "cpu", "cpuacct"};

/* Same directory (co-mounted hierarchies such as cpu,cpuacct) is listed once. */
size_t cg_v1_dirs(const struct cg_root *root, const char *dirs[4])
{
	const char *all[4] = {root->v1_memory, root->v1_pids, root->v1_cpu, root->v1_cpuacct};
	dev_t dev[4];
	ino_t ino[4];
	bool known[4];
	size_t n = 0;

	for (size_t i = 0; i < 4; i++) {
		struct stat st;
		bool have = stat(all[i], &st) == 0, dup = false;

		for (size_t j = 0; j < n && have; j++)
			dup |= known[j] && dev[j] == st.st_dev && ino[j] == st.st_ino;
		if (dup)
			continue;
		dirs[n] = all[i];
		known[n] = have;
		dev[n] = have ? st.st_dev : 0;
		ino[n] = have ? st.st_ino : 0;
		n++;
	}
	return n;
}

static char *parent_for(struct cg_root *root, size_t i)
{
	char *slots[4] = {root->v1_memory, root->v1_pids, root->v1_cpu, root->v1_cpuacct};

	return slots[i];
}

/* mkdir -p of `path`, creating only components below `mount`. */
static int mkdir_below(const char *mount, const char *path)
{
	char buf[CG_MAX_PATH];
	size_t mlen = strlen(mount), n = strlen(path);
	struct stat st;

	if (n >= sizeof(buf) || strncmp(path, mount, mlen) != 0 || path[mlen] != '/')
		return -EINVAL;
	memcpy(buf, path, n + 1);
	for (size_t i = mlen + 1; i <= n; i++) {
		char c = buf[i];

		if (c != '/' && c != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		buf[i] = c;
	}
	if (lstat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static bool valid_override(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || s[0] == '/' || s[n - 1] == '/' || strstr(s, "..") || strstr(s, "//"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return true;
}

int cg_v1_root_init(struct cg_root *root, const char *fs_root, const char *override, char *err,
		    size_t errlen)
{
	if (override[0] && !valid_override(override)) {
		snprintf(err, errlen,
			 "cgroup_root '%s': for cgroup v1 it must be a relative name "
			 "without '..' or '//'",
			 override);
		return -EINVAL;
	}
	for (size_t i = 0; i < 4; i++) {
		char mount[CG_MAX_PATH], own[CG_MAX_PATH], base[CG_MAX_PATH];
		char *dst = parent_for(root, i);
		struct statfs sf;
		struct stat st;
		int n, r;

		n = snprintf(mount, sizeof(mount), "%s/%s", fs_root, controllers[i]);
		if (n < 0 || (size_t)n >= sizeof(mount))
			return -ENAMETOOLONG;
		if (statfs(mount, &sf) < 0 || sf.f_type != CGROUP_SUPER_MAGIC) {
			snprintf(err, errlen,
				 "%s: not a cgroup v1 hierarchy (the %s controller is "
				 "required)",
				 mount, controllers[i]);
			return -EOPNOTSUPP;
		}
		/* base: the existing directory below which we may create. */
		if (override[0]) {
			n = snprintf(base, sizeof(base), "%s", mount);
			if (n >= 0 && (size_t)n < sizeof(base))
				n = snprintf(dst, CG_MAX_PATH, "%s/%s", mount, override);
		} else {
			r = cg_own_cgroup(controllers[i], own, sizeof(own));
			if (r < 0) {
				snprintf(err, errlen, "/proc/self/cgroup: no %s line: %s",
					 controllers[i], strerror(-r));
				return r;
			}
			n = snprintf(base, sizeof(base), "%s%s", mount,
				     strcmp(own, "/") == 0 ? "" : own);
			if (n >= 0 && (size_t)n < sizeof(base))
				n = snprintf(dst, CG_MAX_PATH, "%s/cellgate", base);
		}
		if (n < 0 || n >= CG_MAX_PATH) {
			snprintf(err, errlen, "cgroup path under %s is too long", mount);
			return -ENAMETOOLONG;
		}
		/* Never create our own cgroup: if it is not visible here (another
		 * cgroup namespace), creating it would escape our own limits. */
		if (lstat(base, &st) < 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen,
				 "%s: own cgroup not found in the hierarchy; set "
				 "cgroup_root",
				 base);
			return -ENOENT;
		}
		r = mkdir_below(base, dst);
		if (r < 0) {
			snprintf(err, errlen, "mkdir %s: %s", dst, strerror(-r));
			return r;
		}
	}
	root->version = CG_V1;
	if (!cg_file_exists(root->v1_memory, "memory.memsw.limit_in_bytes") && !cg_host_has_swap())
		snprintf(err, errlen,
			 "note: swap accounting is off (no memory.memsw.*); "
			 "accepted because the host has no swap");
	return 0;
}

static int job_path(char *out, const char *parent, const struct cg_job *job)
{
	return cg_path(out, JOB_PATH_MAX, parent, job->name);
}

/* Fills paths[] with the job directory in each distinct hierarchy. */
static size_t job_dirs(const struct cg_job *job, char paths[4][JOB_PATH_MAX])
{
	const char *parents[4];
	size_t n = cg_v1_dirs(job->root, parents), k = 0;

	for (size_t i = 0; i < n; i++)
		if (job_path(paths[k], parents[i], job) == 0)
			k++;
	return k;
}

static int set_memory(const char *mem, const struct ipc_limits *lim, char *err, size_t errlen)
{
	char val[32];
	uint64_t flag;
	int r;

	snprintf(val, sizeof(val), "%llu",
		 (unsigned long long)cg_memory_in_pages(lim->memory_bytes));
	r = cg_set_limit(mem, "memory.limit_in_bytes", val, err, errlen);
	if (r < 0)
		return r;
	/* memory+swap == memory: the job cannot swap. */
	if (cg_file_exists(mem, "memory.memsw.limit_in_bytes")) {
		r = cg_set_limit(mem, "memory.memsw.limit_in_bytes", val, err, errlen);
		if (r < 0)
			return r;
	} else if (cg_host_has_swap()) {
		snprintf(err, errlen,
			 "%s: memory.memsw.limit_in_bytes is missing (swap accounting "
			 "off) but the host has swap: the job could swap; boot with "
			 "swapaccount=1 or turn swap off",
			 mem);
		return -EOPNOTSUPP;
	}
	/* The OOM killer must stay enabled (the setting is inherited from the
	 * parent): a disabled one would freeze the job instead of ending it. */
	r = cg_read_keyed(mem, "memory.oom_control", "oom_kill_disable", &flag);
	if (r == 0 && flag != 0) {
		r = cg_write_file(mem, "memory.oom_control", "0");
		if (r == 0)
			r = cg_read_keyed(mem, "memory.oom_control", "oom_kill_disable", &flag);
		if (r == 0 && flag != 0)
			r = -EIO;
	}
	if (r < 0)
		snprintf(err, errlen,
			 "%s/memory.oom_control: cannot keep the OOM killer enabled: %s", mem,
			 strerror(-r));
	return r;
}

static void remove_dirs(char paths[4][JOB_PATH_MAX], size_t n)
{
	for (size_t i = 0; i < n; i++)
		(void)cg_rmdir_job(paths[i]);
}

int cg_v1_job_create(struct cg_job *job, const struct ipc_limits *lim, char *err, size_t errlen)
{
	const struct cg_root *root = job->root;
	char paths[4][JOB_PATH_MAX], mem[JOB_PATH_MAX], pids[JOB_PATH_MAX], cpu[JOB_PATH_MAX],
	    acct[JOB_PATH_MAX], val[32];
	size_t n = job_dirs(job, paths), made = 0;
	int r;

	if (n == 0 || job_path(mem, root->v1_memory, job) < 0 ||
	    job_path(pids, root->v1_pids, job) < 0 || job_path(cpu, root->v1_cpu, job) < 0 ||
	    job_path(acct, root->v1_cpuacct, job) < 0) {
		snprintf(err, errlen, "job %s: cgroup path too long", job->name);
		return -ENAMETOOLONG;
	}
	for (; made < n; made++) {
		r = cg_mkdir_job(paths[made]);
		if (r == -ENOENT) {
			/* Another jailer sharing this parent removed it, empty,
			 * at its exit (cg_root_release): make it again. */
			char parent[sizeof(paths[made])];
			char *slash;

			memcpy(parent, paths[made], sizeof(parent));
			parent[sizeof(parent) - 1] = '\0';
			slash = strrchr(parent, '/');
			if (slash && slash != parent) {
				*slash = '\0';
				if (mkdir(parent, 0755) == 0 || errno == EEXIST)
					r = cg_mkdir_job(paths[made]);
			}
		}
		if (r < 0) {
			snprintf(err, errlen, "mkdir %s: %s", paths[made], strerror(-r));
			/* Only remove what this call created: EEXIST is not ours. */
			remove_dirs(paths, made);
			return r;
		}
	}
	r = set_memory(mem, lim, err, errlen);
	if (r < 0)
		goto fail;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)lim->pids);
	r = cg_set_limit(pids, "pids.max", val, err, errlen);
	if (r < 0)
		goto fail;
	r = cg_set_limit(cpu, "cpu.cfs_period_us", CFS_PERIOD_US, err, errlen);
	if (r < 0)
		goto fail;
	r = cg_set_limit(cpu, "cpu.cfs_quota_us", CFS_QUOTA_US, err, errlen);
	if (r < 0)
		goto fail;
	r = cg_read_u64(acct, "cpuacct.usage", &job->cpu_base_ns);
	if (r < 0) {
		snprintf(err, errlen, "%s/cpuacct.usage: %s", acct, strerror(-r));
		goto fail;
	}
	return 0;
fail:
	remove_dirs(paths, n);
	return r;
}

int cg_v1_job_attach(struct cg_job *job, pid_t pid)
{
	char paths[4][JOB_PATH_MAX], val[16];
	size_t n = job_dirs(job, paths);

	if (n == 0)
		return -ENOENT;
	snprintf(val, sizeof(val), "%d", (int)pid);
	/* cgroup.procs, not tasks: the whole thread group moves. */
	for (size_t i = 0; i < n; i++) {
		int r = cg_write_file(paths[i], "cgroup.procs", val);

		if (r < 0)
			return r;
	}
	return 0;
}

int cg_v1_job_cpu_ns(const struct cg_job *job, uint64_t *ns)
{
	char acct[JOB_PATH_MAX];
	uint64_t v;
	int r = job_path(acct, job->root->v1_cpuacct, job);

	if (r < 0)
		return r;
	r = cg_read_u64(acct, "cpuacct.usage", &v);
	if (r < 0)
		return r;
	*ns = v > job->cpu_base_ns ? v - job->cpu_base_ns : 0;
	return 0;
}

int cg_v1_job_oom_fired(const struct cg_job *job, bool *fired)
{
	char mem[JOB_PATH_MAX];
	uint64_t v = 0;
	int r = job_path(mem, job->root->v1_memory, job);

	if (r < 0)
		return r;
	r = cg_read_keyed(mem, "memory.oom_control", "oom_kill", &v);
	if (r < 0)
		return r;
	*fired = v > 0;
	return 0;
}

int cg_v1_job_kill(struct cg_job *job)
{
	char paths[4][JOB_PATH_MAX];
	const char *dirs[4];
	size_t n = job_dirs(job, paths);

	for (size_t i = 0; i < n; i++)
		dirs[i] = paths[i];
	return cg_kill_until_empty(dirs, n);
}

static int read_user_sys(const char *acct, struct cg_metrics *m)
{
	uint64_t user, sys;
	long hz;
	int r;

	if (cg_read_u64(acct, "cpuacct.usage_user", &user) == 0 &&
	    cg_read_u64(acct, "cpuacct.usage_sys", &sys) == 0) {
		m->cpu_user_ms = user / 1000000;
		m->cpu_sys_ms = sys / 1000000;
		return 0;
	}
	/* Older kernels: USER_HZ ticks only. */
	hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		return -EINVAL;
	r = cg_read_keyed(acct, "cpuacct.stat", "user", &user);
	if (r == 0)
		r = cg_read_keyed(acct, "cpuacct.stat", "system", &sys);
	if (r < 0)
		return r;
	m->cpu_user_ms = user * 1000 / (uint64_t)hz;
	m->cpu_sys_ms = sys * 1000 / (uint64_t)hz;
	return 0;
}

int cg_v1_job_metrics(const struct cg_job *job, struct cg_metrics *m)
{
	char mem[JOB_PATH_MAX], acct[JOB_PATH_MAX];
	int r, first = 0;

	if (job_path(mem, job->root->v1_memory, job) < 0 ||
	    job_path(acct, job->root->v1_cpuacct, job) < 0)
		return -ENAMETOOLONG;
	/* Fill what can be read; report the first failure. */
	r = cg_v1_job_cpu_ns(job, &m->cpu_total_ns);
	first = first ? first : r;
	r = read_user_sys(acct, m);
	first = first ? first : r;
	r = cg_read_u64(mem, "memory.max_usage_in_bytes", &m->memory_peak_bytes);
	first = first ? first : r;
	r = cg_v1_job_oom_fired(job, &m->oom_killed);
	first = first ? first : r;
	return first;
}

int cg_v1_job_destroy(struct cg_job *job)
{
	char paths[4][JOB_PATH_MAX];
	size_t n = job_dirs(job, paths);
	int first = 0;

	(void)cg_v1_job_kill(job); /* a failure shows up as EBUSY below */
	for (size_t i = 0; i < n; i++) {
		int r = cg_rmdir_job(paths[i]);

		if (r < 0 && !first)
			first = r;
	}
	return first;
}

/* Why: moving a process into a v1 cgroup takes cgroup_threadgroup_rwsem
 * for writing; when that percpu rwsem has been idle, the writer waits a
 * full RCU grace period, 5-14 ms per job on an interactive path
 * (perf-anchors §0).  Mounting any v1 hierarchy with "favordynmods" makes
 * the kernel switch to a per-threadgroup rwsem that never waits for a grace
 * period.  The switch is host-wide and one-way until reboot; it changes no
 * limit or accounting.  The throwaway mount lives in a private mount
 * namespace of a short-lived child, so it is never visible to the host and
 * disappears even if we die mid-way. */
static int favordynmods_child(void)
{
	char dir[64];

	if (unshare(CLONE_NEWNS) < 0)
		return errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return errno;
	snprintf(dir, sizeof(dir), "/run/cellgate-fav.XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(dir, sizeof(dir), "/tmp/cellgate-fav.XXXXXX");
		if (!mkdtemp(dir))
			return errno;
	}
	int e = 0;
	if (mount("cgroup", dir, "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "none,name=cellgate_fav,favordynmods") < 0)
		e = errno;
	else if (umount2(dir, 0) < 0)
		(void)umount2(dir, MNT_DETACH);
	(void)rmdir(dir);
	return e;
}

int cg_v1_enable_favordynmods(char *err, size_t errlen)
{
	int status, r;
	pid_t pid = fork();

	if (pid < 0) {
		r = -errno;
		snprintf(err, errlen, "favordynmods: fork: %s", strerror(-r));
		return r;
	}
	if (pid == 0)
		_exit(favordynmods_child() & 0xff);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			r = -errno;
			snprintf(err, errlen, "favordynmods: waitpid: %s", strerror(-r));
			return r;
		}
	}
	if (!WIFEXITED(status)) {
		snprintf(err, errlen, "favordynmods: helper died");
		return -ECHILD;
	}
	if (WEXITSTATUS(status) != 0) {
		r = -WEXITSTATUS(status);
		snprintf(err, errlen, "favordynmods: mount of a named v1 hierarchy failed: %s",
			 strerror(-r));
		return r;
	}
	return 0;
}
