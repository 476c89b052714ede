/* Unit tests for the cgroup v1 backend on the real v1 hierarchies of the
 * machine: limits on disk, attach, an OOM kill, the pids limit, CPU
 * accounting, kill, destroy and the stale sweep.  Skipped (not failed) when
 * not root or when there is no v1 memory hierarchy.  Everything it creates
 * lives under /sys/fs/cgroup/<controller>/cellgate-unittest-<pid> and is
 * removed in the group teardown, whatever happened. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"

#define FS_ROOT "/sys/fs/cgroup"
#define MAX_CHILDREN 16

static bool available;
static int init_rc;
static char override[64];
static struct cg_root root;
static char err[512];
static pid_t children[MAX_CHILDREN];
static size_t nchildren;

static const char *const ctrls[] = {"memory", "pids", "cpu", "cpuacct"};

static void reap_all(void)
{
	for (size_t i = 0; i < nchildren; i++) {
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			(void)waitpid(children[i], NULL, 0);
			children[i] = 0;
		}
	}
	nchildren = 0;
	/* Grandchildren reparented to us (we are a subreaper). */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static int group_setup(void **state)
{
	struct statfs sf;

	(void)state;
	available = geteuid() == 0 && statfs(FS_ROOT "/memory", &sf) == 0 &&
		    sf.f_type == CGROUP_SUPER_MAGIC;
	if (!available)
		return 0;
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	snprintf(override, sizeof(override), "cellgate-unittest-%d", (int)getpid());
	init_rc = cg_root_init(&root, CGROUP_V1, FS_ROOT, override, err, sizeof(err));
	if (init_rc < 0)
		fprintf(stderr, "cg_root_init: %s\n", err);
	return 0;
}

static int group_teardown(void **state)
{
	char path[256];

	(void)state;
	if (!available)
		return 0;
	reap_all();
	if (root.version == CG_V1 && cg_sweep_stale(&root) < 0)
		fprintf(stderr, "teardown: sweep failed\n");
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), FS_ROOT "/%s/%s", ctrls[i], override);
		if (rmdir(path) < 0 && errno != ENOENT)
			fprintf(stderr, "teardown: rmdir %s: %s\n", path, strerror(errno));
	}
	return 0;
}

static void require_v1(void)
{
	if (!available)
		skip();
	assert_int_equal(init_rc, 0);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void job_dir(char *out, size_t cap, const char *ctrl, const char *name)
{
	snprintf(out, cap, FS_ROOT "/%s/%s/%s", ctrl, override, name);
}

static uint64_t read_u64(const char *ctrl, const char *name, const char *file)
{
	char dir[1024];
	uint64_t v = 0;

	job_dir(dir, sizeof(dir), ctrl, name);
	if (cg_read_u64(dir, file, &v) < 0)
		fail_msg("cannot read %s/%s", dir, file);
	return v;
}

struct find {
	pid_t want;
	bool found;
};

static int find_pid(pid_t pid, void *ctx)
{
	struct find *f = ctx;

	f->found |= pid == f->want;
	return 0;
}

static bool in_procs(const char *ctrl, const char *name, pid_t pid)
{
	char dir[1024];
	struct find f = {.want = pid};

	job_dir(dir, sizeof(dir), ctrl, name);
	assert_int_equal(cg_for_each_proc(dir, find_pid, &f, NULL), 0);
	return f.found;
}

static size_t nprocs(const char *ctrl, const char *name)
{
	char dir[1024];
	struct find f = {.want = 0};
	size_t n = 0;

	job_dir(dir, sizeof(dir), ctrl, name);
	assert_int_equal(cg_for_each_proc(dir, find_pid, &f, &n), 0);
	return n;
}

/* A child that blocks on `go` before running `body`; tracked for teardown. */
static pid_t spawn(int go[2], void (*body)(int out), int out)
{
	pid_t pid;

	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(90);
		body(out);
		_exit(0);
	}
	close(go[0]);
	assert_true(nchildren < MAX_CHILDREN);
	children[nchildren++] = pid;
	return pid;
}

static void release(int go[2])
{
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
}

static void forget(pid_t pid)
{
	for (size_t i = 0; i < nchildren; i++)
		if (children[i] == pid)
			children[i] = 0;
}

static const struct ipc_limits lim = {
    .wall_ms = 10000,
    .cpu_ms = 10000,
    .memory_bytes = 64u << 20,
    .pids = 8,
    .tmpfs_bytes = 1 << 20,
    .output_bytes = 1 << 20,
};

/* ---- tests ---- */

static void test_root_init(void **state)
{
	char want[1024];
	struct cg_root r, own;

	(void)state;
	require_v1();
	assert_int_equal(root.version, CG_V1);
	snprintf(want, sizeof(want), FS_ROOT "/memory/%s", override);
	assert_string_equal(root.v1_memory, want);
	snprintf(want, sizeof(want), FS_ROOT "/pids/%s", override);
	assert_string_equal(root.v1_pids, want);
	snprintf(want, sizeof(want), FS_ROOT "/cpu/%s", override);
	assert_string_equal(root.v1_cpu, want);
	snprintf(want, sizeof(want), FS_ROOT "/cpuacct/%s", override);
	assert_string_equal(root.v1_cpuacct, want);
	assert_true(is_dir(root.v1_memory) && is_dir(root.v1_pids) && is_dir(root.v1_cpu) &&
		    is_dir(root.v1_cpuacct));

	/* auto picks v1 on a host whose cgroup2 mount lacks memory and pids */
	assert_int_equal(cg_root_init(&r, CGROUP_AUTO, FS_ROOT, override, err, sizeof(err)), 0);
	assert_int_equal(r.version, CG_V1);
	assert_string_equal(r.v1_memory, root.v1_memory);
	assert_int_equal(cg_root_init(&r, CGROUP_V2, FS_ROOT, override, err, sizeof(err)),
			 -EOPNOTSUPP);

	/* v1 overrides are relative names only */
	assert_int_equal(cg_root_init(&r, CGROUP_V1, FS_ROOT, "/abs", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "relative"));
	assert_int_equal(cg_root_init(&r, CGROUP_V1, FS_ROOT, "a/../b", err, sizeof(err)), -EINVAL);

	/* Derived from our own cgroup: <mount>/<own path>/cellgate.  Other
	 * processes may use those directories: only remove what we created. */
	char ownpath[512], derived[4][1024];
	bool existed[4];
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(cg_own_cgroup(ctrls[i], ownpath, sizeof(ownpath)), 0);
		snprintf(derived[i], sizeof(derived[i]), FS_ROOT "/%s%s/cellgate", ctrls[i],
			 strcmp(ownpath, "/") == 0 ? "" : ownpath);
		existed[i] = is_dir(derived[i]);
	}
	assert_int_equal(cg_root_init(&own, CGROUP_V1, FS_ROOT, NULL, err, sizeof(err)), 0);
	assert_string_equal(own.v1_memory, derived[0]);
	assert_string_equal(own.v1_pids, derived[1]);
	assert_string_equal(own.v1_cpu, derived[2]);
	assert_string_equal(own.v1_cpuacct, derived[3]);
	for (size_t i = 0; i < 4; i++) {
		assert_true(is_dir(derived[i]));
		if (!existed[i])
			(void)rmdir(derived[i]);
	}
}

static void test_limits_on_disk(void **state)
{
	struct cg_job job;
	char dir[1024];
	uint64_t v;

	(void)state;
	require_v1();
	assert_int_equal(cg_job_create(&job, &root, "job-ut-limits", &lim, err, sizeof(err)), 0);
	assert_int_equal(read_u64("memory", "job-ut-limits", "memory.limit_in_bytes"), 64u << 20);
	job_dir(dir, sizeof(dir), "memory", "job-ut-limits");
	if (cg_file_exists(dir, "memory.memsw.limit_in_bytes"))
		assert_int_equal(read_u64("memory", "job-ut-limits", "memory.memsw.limit_in_bytes"),
				 64u << 20);
	assert_int_equal(cg_read_keyed(dir, "memory.oom_control", "oom_kill_disable", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(read_u64("pids", "job-ut-limits", "pids.max"), 8);
	assert_int_equal(read_u64("cpu", "job-ut-limits", "cpu.cfs_period_us"), 100000);
	assert_int_equal(read_u64("cpu", "job-ut-limits", "cpu.cfs_quota_us"), 100000);
	assert_int_equal(job.cpu_base_ns, 0);

	/* Same name again: refused, and the existing job is left alone. */
	struct cg_job dup;
	assert_int_equal(cg_job_create(&dup, &root, "job-ut-limits", &lim, err, sizeof(err)),
			 -EEXIST);
	assert_true(is_dir(dir));

	assert_int_equal(cg_job_kill(&job), 0); /* empty: returns at once */
	assert_int_equal(cg_job_destroy(&job), 0);
	for (size_t i = 0; i < 4; i++) {
		job_dir(dir, sizeof(dir), ctrls[i], "job-ut-limits");
		assert_false(is_dir(dir));
	}
	assert_int_equal(cg_job_destroy(&job), 0); /* idempotent */
}

static void eat_memory(int out)
{
	size_t n = 128u << 20;
	char *p = malloc(n);

	(void)out;
	if (!p)
		_exit(91);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (char)i;
	_exit(0); /* reached only if the limit did not hold */
}

static void test_attach_and_oom(void **state)
{
	struct cg_job job;
	struct cg_metrics m;
	bool fired = true;
	int go[2], status;
	pid_t child;

	(void)state;
	require_v1();
	assert_int_equal(cg_job_create(&job, &root, "job-ut-oom", &lim, err, sizeof(err)), 0);
	assert_int_equal(cg_job_oom_fired(&job, &fired), 0);
	assert_false(fired);

	child = spawn(go, eat_memory, -1);
	assert_int_equal(cg_job_attach(&job, child), 0);
	for (size_t i = 0; i < 4; i++)
		if (!in_procs(ctrls[i], "job-ut-oom", child))
			fail_msg("pid %d not in %s cgroup.procs", (int)child, ctrls[i]);
	release(go);
	assert_int_equal(waitpid(child, &status, 0), child);
	forget(child);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);

	assert_int_equal(cg_job_oom_fired(&job, &fired), 0);
	assert_true(fired);
	assert_int_equal(cg_job_metrics(&job, &m), 0);
	assert_true(m.oom_killed);
	assert_true(m.memory_peak_bytes > (32u << 20));
	assert_true(m.memory_peak_bytes <= (64u << 20));
	assert_int_equal(cg_job_kill(&job), 0);
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void fork_many(int out)
{
	int ok = 0, eagain = 0, other = 0;
	char msg[64];

	for (int i = 0; i < 20; i++) {
		pid_t p = fork();

		if (p == 0) {
			for (;;)
				pause();
		}
		if (p > 0)
			ok++;
		else if (errno == EAGAIN)
			eagain++;
		else
			other++;
	}
	snprintf(msg, sizeof(msg), "%d %d %d\n", ok, eagain, other);
	if (write(out, msg, strlen(msg)) < 0)
		_exit(92);
	for (;;)
		pause();
}

static void test_pids_limit_and_kill(void **state)
{
	struct cg_job job;
	int go[2], res[2], status, ok = -1, eagain = -1, other = -1;
	char buf[64] = "";
	ssize_t n;
	pid_t child;

	(void)state;
	require_v1();
	assert_int_equal(cg_job_create(&job, &root, "job-ut-pids", &lim, err, sizeof(err)), 0);
	assert_int_equal(pipe2(res, O_CLOEXEC), 0);
	child = spawn(go, fork_many, res[1]);
	close(res[1]);
	assert_int_equal(cg_job_attach(&job, child), 0);
	release(go);
	n = read(res[0], buf, sizeof(buf) - 1);
	close(res[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(sscanf(buf, "%d %d %d", &ok, &eagain, &other), 3);
	assert_int_equal(other, 0);
	assert_true(eagain >= 13);
	assert_true(ok <= 7);
	assert_int_equal(ok + eagain, 20);
	assert_int_equal(nprocs("pids", "job-ut-pids"), (size_t)ok + 1);

	/* Kill empties every hierarchy, grandchildren included. */
	assert_int_equal(cg_job_kill(&job), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(nprocs(ctrls[i], "job-ut-pids"), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	forget(child);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	reap_all();
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void burn_cpu(int out)
{
	struct timespec ts;

	(void)out;
	do
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
			_exit(93);
	while (ts.tv_sec == 0 && ts.tv_nsec < 60 * 1000000L);
}

static void test_cpu_accounting(void **state)
{
	struct cg_job job;
	struct cg_metrics m;
	uint64_t ns = 1;
	int go[2], status;
	pid_t child;

	(void)state;
	require_v1();
	assert_int_equal(cg_job_create(&job, &root, "job-ut-cpu", &lim, err, sizeof(err)), 0);
	assert_int_equal(cg_job_cpu_ns(&job, &ns), 0);
	assert_int_equal(ns, 0);
	child = spawn(go, burn_cpu, -1);
	assert_int_equal(cg_job_attach(&job, child), 0);
	release(go);
	assert_int_equal(waitpid(child, &status, 0), child);
	forget(child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(cg_job_cpu_ns(&job, &ns), 0);
	/* The child burned 60 ms of its own CPU time inside the job. */
	assert_true(ns >= 50 * 1000000ull);
	assert_int_equal(cg_job_metrics(&job, &m), 0);
	assert_true(m.cpu_total_ns >= ns);
	assert_true(m.cpu_user_ms + m.cpu_sys_ms >= 40);
	assert_false(m.oom_killed);
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void sleep_forever(int out)
{
	(void)out;
	for (;;)
		pause();
}

static void test_sweep_after_crash(void **state)
{
	struct cg_job a, b;
	char dir[1024];
	int go[2], status;
	pid_t child;

	(void)state;
	require_v1();
	assert_int_equal(cg_job_create(&a, &root, "job-ut-stale-1", &lim, err, sizeof(err)), 0);
	assert_int_equal(cg_job_create(&b, &root, "job-ut-stale-2", &lim, err, sizeof(err)), 0);
	child = spawn(go, sleep_forever, -1);
	assert_int_equal(cg_job_attach(&a, child), 0);
	release(go);
	/* A cgroup not named job-* is never touched. */
	snprintf(dir, sizeof(dir), "%s/keep-me", root.v1_pids);
	assert_int_equal(mkdir(dir, 0755), 0);

	assert_int_equal(cg_sweep_stale(&root), 2);
	assert_int_equal(waitpid(child, &status, 0), child);
	forget(child);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	for (size_t i = 0; i < 4; i++) {
		job_dir(dir, sizeof(dir), ctrls[i], "job-ut-stale-1");
		assert_false(is_dir(dir));
		job_dir(dir, sizeof(dir), ctrls[i], "job-ut-stale-2");
		assert_false(is_dir(dir));
	}
	snprintf(dir, sizeof(dir), "%s/keep-me", root.v1_pids);
	assert_true(is_dir(dir));
	assert_int_equal(rmdir(dir), 0);
}

/* At exit the jailer removes the parents it made, but only empty ones: a
 * parent still holding a job cgroup stays for the next start's sweep. */
static void test_release_removes_empty_parents(void **state)
{
	struct cg_root r;
	char name[64], dir[1024];

	(void)state;
	require_v1();
	snprintf(name, sizeof(name), "cellgate-unittest-release-%d", (int)getpid());
	assert_int_equal(cg_root_init(&r, CGROUP_V1, FS_ROOT, name, err, sizeof(err)), 0);
	snprintf(dir, sizeof(dir), "%s/job-ut-left", r.v1_pids);
	assert_int_equal(mkdir(dir, 0755), 0);
	cg_root_release(&r);
	assert_false(is_dir(r.v1_memory));
	assert_false(is_dir(r.v1_cpu));
	assert_false(is_dir(r.v1_cpuacct));
	assert_true(is_dir(r.v1_pids));
	assert_int_equal(rmdir(dir), 0);
	cg_root_release(&r);
	assert_false(is_dir(r.v1_pids));
	/* Another jailer sharing the parents still creates jobs: the parents
	 * come back. */
	struct cg_job job;
	assert_int_equal(cg_job_create(&job, &r, "job-ut-after-release", &lim, err, sizeof(err)),
			 0);
	assert_true(is_dir(r.v1_memory));
	assert_int_equal(cg_job_destroy(&job), 0);
	cg_root_release(&r);
	assert_false(is_dir(r.v1_memory));
}

static void test_favordynmods(void **state)
{
	(void)state;
	require_v1();
	/* Idempotent: after the first flip the kernel keeps the mode. */
	if (cg_v1_enable_favordynmods(err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(cg_v1_enable_favordynmods(err, sizeof(err)), 0);
	/* The throwaway hierarchy never shows in our mount table. */
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[1024];
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		assert_null(strstr(line, "cellgate_fav"));
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_root_init),
	    cmocka_unit_test(test_limits_on_disk),
	    cmocka_unit_test(test_attach_and_oom),
	    cmocka_unit_test(test_pids_limit_and_kill),
	    cmocka_unit_test(test_cpu_accounting),
	    cmocka_unit_test(test_sweep_after_crash),
	    cmocka_unit_test(test_release_removes_empty_parents),
	    cmocka_unit_test(test_favordynmods),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
