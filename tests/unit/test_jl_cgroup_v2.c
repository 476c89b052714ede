/* Unit tests for the cgroup v2 backend and the shared helpers (cgroup.c),
 * run against a scratch directory of plain files standing in for cgroupfs
 * (cg_set_test_hooks); the hook lays out what the kernel would create. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

static char scratch[64];
static struct cg_root root;
static char err[512];

/* What the fake kernel puts in a new cgroup. */
enum hook_variant { H_NORMAL, H_MEMORY_MAX_DIR, H_NO_KILL, H_NO_CPU, H_NO_SWAP };
static enum hook_variant variant;

static void put(const char *dir, const char *file, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void get(const char *dir, const char *file, char *buf, size_t cap)
{
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static bool exists(const char *dir, const char *file)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return lstat(path, &st) == 0;
}

static void fake_kernel_mkdir(const char *dir)
{
	char path[1024];

	put(dir, "cgroup.procs", "");
	put(dir, "cgroup.events", "populated 0\nfrozen 0\n");
	put(dir, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
	put(dir, "cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
	put(dir, "memory.peak", "0\n");
	if (variant != H_NO_KILL)
		put(dir, "cgroup.kill", "");
	if (variant != H_NO_CPU)
		put(dir, "cpu.max", "max 100000\n");
	if (variant != H_NO_SWAP)
		put(dir, "memory.swap.max", "max\n");
	if (variant == H_MEMORY_MAX_DIR) {
		snprintf(path, sizeof(path), "%s/memory.max", dir);
		assert_int_equal(mkdir(path, 0755), 0);
	}
}

static const struct cg_test_hooks hooks = {.after_mkdir = fake_kernel_mkdir};

static void rm_rf(const char *path)
{
	char cmd[256];

	/* Test cleanup of our own mkdtemp directory only. */
	if (strncmp(path, "/tmp/cellgate-cgv2-", 19) != 0)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/cellgate-cgv2-XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	put(scratch, "cgroup.procs", "");
	put(scratch, "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	memset(&root, 0, sizeof(root));
	root.version = CG_V2;
	snprintf(root.v2_dir, sizeof(root.v2_dir), "%s", scratch);
	variant = H_NORMAL;
	cg_set_test_hooks(&hooks);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cg_set_test_hooks(NULL);
	rm_rf(scratch);
	return 0;
}

static const struct ipc_limits lim64 = {
    .wall_ms = 1000,
    .cpu_ms = 1000,
    .memory_bytes = 64u << 20,
    .pids = 8,
    .tmpfs_bytes = 1 << 20,
    .output_bytes = 1 << 20,
};

static void job_dir(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", scratch, name);
}

/* ---- helpers ---- */

static void test_file_helpers(void **state)
{
	char buf[64], path[256], target[256];
	uint64_t v = 0;

	(void)state;
	assert_int_equal(cg_write_file(scratch, "f", "42\n"), 0);
	assert_int_equal(cg_read_file(scratch, "f", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "42\n");
	assert_int_equal(cg_read_u64(scratch, "f", &v), 0);
	assert_int_equal(v, 42);
	/* read-back compares after trimming the newline */
	assert_int_equal(cg_write_verify(scratch, "f", "42\n", "42"), 0);
	assert_int_equal(cg_write_verify(scratch, "f", "7", NULL), 0);
	assert_int_equal(cg_write_verify(scratch, "f", "100", "200"), -EIO);

	put(scratch, "m", "max\n");
	assert_int_equal(cg_read_u64(scratch, "m", &v), 0);
	assert_true(v == UINT64_MAX);
	put(scratch, "j", "12abc\n");
	assert_int_equal(cg_read_u64(scratch, "j", &v), -EINVAL);
	put(scratch, "o", "99999999999999999999999\n");
	assert_int_equal(cg_read_u64(scratch, "o", &v), -ERANGE);
	assert_int_equal(cg_read_u64(scratch, "absent", &v), -ENOENT);

	put(scratch, "k", "usage_usec 10\nuser_usec 7\nsystem_usec 3\nnr_periods 0\n");
	assert_int_equal(cg_read_keyed(scratch, "k", "user_usec", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(cg_read_keyed(scratch, "k", "usage_usec", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(cg_read_keyed(scratch, "k", "usage", &v), -ENODATA);
	assert_int_equal(cg_read_keyed(scratch, "k", "throttled_usec", &v), -ENODATA);

	/* Bounded reads. */
	put(scratch, "long", "0123456789");
	assert_int_equal(cg_read_file(scratch, "long", buf, 11), 10);
	assert_int_equal(cg_read_file(scratch, "long", buf, 10), -EFBIG);

	/* Never through a symlink. */
	snprintf(target, sizeof(target), "%s/f", scratch);
	snprintf(path, sizeof(path), "%s/link", scratch);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(cg_write_file(scratch, "link", "1"), -ELOOP);
	assert_int_equal(cg_read_file(scratch, "link", buf, sizeof(buf)), -ELOOP);
}

static void test_parse_proc_cgroup(void **state)
{
	static const char v1[] = "12:pids:/user.slice\n"
				 "4:memory:/process_api/abc\n"
				 "3:cpu,cpuacct:/x/y\n"
				 "1:name=systemd:/init.scope\n"
				 "0::/\n";
	static const char v2[] = "0::/system.slice/cellgate-jailer.service/jailer\n";
	char out[128];

	(void)state;
	assert_int_equal(cg_parse_proc_cgroup(v1, "memory", out, sizeof(out)), 0);
	assert_string_equal(out, "/process_api/abc");
	assert_int_equal(cg_parse_proc_cgroup(v1, "pids", out, sizeof(out)), 0);
	assert_string_equal(out, "/user.slice");
	assert_int_equal(cg_parse_proc_cgroup(v1, "cpuacct", out, sizeof(out)), 0);
	assert_string_equal(out, "/x/y");
	assert_int_equal(cg_parse_proc_cgroup(v1, "cpu", out, sizeof(out)), 0);
	assert_string_equal(out, "/x/y");
	assert_int_equal(cg_parse_proc_cgroup(v1, "cpuset", out, sizeof(out)), -ENOENT);
	assert_int_equal(cg_parse_proc_cgroup(v1, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(cg_parse_proc_cgroup(v2, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "/system.slice/cellgate-jailer.service/jailer");
	assert_int_equal(cg_parse_proc_cgroup(v2, NULL, out, 10), -ENAMETOOLONG);
	assert_int_equal(cg_parse_proc_cgroup("4:memory:\n", "memory", out, sizeof(out)), -EINVAL);
}

static void test_root_init_rejects_non_cgroupfs(void **state)
{
	struct cg_root r;

	(void)state;
	assert_int_equal(cg_root_init(&r, CGROUP_V2, scratch, "", err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "cgroup2"));
	assert_int_equal(cg_root_init(&r, CGROUP_V1, scratch, "", err, sizeof(err)), -EOPNOTSUPP);
	assert_int_equal(cg_root_init(&r, CGROUP_AUTO, scratch, "", err, sizeof(err)), -EOPNOTSUPP);
	assert_int_equal(r.version, 0);
}

/* ---- parent preparation ---- */

static void test_prepare_parent(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(cg_v2_prepare_parent(scratch, err, sizeof(err)), 0);
	get(scratch, "cgroup.subtree_control", buf, sizeof(buf));
	assert_string_equal(buf, "+memory +pids +cpu");
	assert_false(exists(scratch, "jailer")); /* nothing to move */
}

static void test_prepare_parent_moves_processes(void **state)
{
	char buf[64], want[32], leaf[256];

	(void)state;
	snprintf(want, sizeof(want), "%d", (int)getpid());
	put(scratch, "cgroup.procs", want);
	/* Plain files never empty the way the kernel does, so the move is
	 * repeated and then refused: a parent that keeps processes is fatal. */
	assert_int_equal(cg_v2_prepare_parent(scratch, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "processes remain"));
	snprintf(leaf, sizeof(leaf), "%s/jailer", scratch);
	get(leaf, "cgroup.procs", buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_false(exists(scratch, "cgroup.subtree_control"));
}

static void test_prepare_parent_not_a_cgroup(void **state)
{
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/nothing", scratch);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(cg_v2_prepare_parent(path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cgroup.procs"));
}

/* ---- jobs ---- */

static void assert_file(const char *dir, const char *file, const char *want)
{
	char buf[128];

	get(dir, file, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("%s/%s is '%s', expected '%s'", dir, file, buf, want);
}

static void test_job_create_writes_limits(void **state)
{
	struct cg_job job;
	char dir[256];
	struct stat st;

	(void)state;
	assert_int_equal(cg_job_create(&job, &root, "job-1f-0", &lim64, err, sizeof(err)), 0);
	job_dir(dir, sizeof(dir), "job-1f-0");
	assert_file(dir, "memory.max", "67108864");
	assert_file(dir, "memory.swap.max", "0");
	assert_file(dir, "memory.oom.group", "1");
	assert_file(dir, "pids.max", "8");
	assert_file(dir, "cpu.max", "100000 100000");
	assert_true(job.v2_fd >= 0);
	assert_int_equal(fstat(job.v2_fd, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_ptr_equal(job.root, &root);
	assert_string_equal(job.name, "job-1f-0");
	assert_int_equal(cg_job_destroy(&job), 0);
	assert_int_equal(job.v2_fd, -1);
	assert_false(exists(scratch, "job-1f-0"));
}

static void test_job_memory_rounded_to_pages(void **state)
{
	struct ipc_limits lim = lim64;
	struct cg_job job;
	char dir[256], want[32];
	long page = sysconf(_SC_PAGESIZE);

	(void)state;
	lim.memory_bytes = 100000000;
	assert_int_equal(cg_job_create(&job, &root, "job-2-0", &lim, err, sizeof(err)), 0);
	job_dir(dir, sizeof(dir), "job-2-0");
	snprintf(want, sizeof(want), "%llu", (unsigned long long)(100000000 / page * page));
	assert_file(dir, "memory.max", want);
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void test_job_create_failure_removes_dir(void **state)
{
	struct cg_job job;

	(void)state;
	variant = H_MEMORY_MAX_DIR;
	assert_int_equal(cg_job_create(&job, &root, "job-3-0", &lim64, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "memory.max"));
	assert_false(exists(scratch, "job-3-0"));
	assert_int_equal(job.v2_fd, -1);
	/* Destroy after a failed create is harmless. */
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void test_job_create_existing_is_not_removed(void **state)
{
	struct cg_job job;
	char dir[256];

	(void)state;
	job_dir(dir, sizeof(dir), "job-4-0");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(cg_job_create(&job, &root, "job-4-0", &lim64, err, sizeof(err)), -EEXIST);
	assert_true(exists(scratch, "job-4-0"));
}

static void test_job_create_rejects_bad_input(void **state)
{
	struct cg_job job;
	struct ipc_limits lim = lim64;

	(void)state;
	assert_int_equal(cg_job_create(&job, &root, "x-1", &lim64, err, sizeof(err)), -EINVAL);
	assert_int_equal(cg_job_create(&job, &root, "job-", &lim64, err, sizeof(err)), -EINVAL);
	assert_int_equal(cg_job_create(&job, &root, "job-../x", &lim64, err, sizeof(err)), -EINVAL);
	assert_int_equal(cg_job_create(&job, &root, "job-a/b", &lim64, err, sizeof(err)), -EINVAL);
	lim.pids = 0;
	assert_int_equal(cg_job_create(&job, &root, "job-5-0", &lim, err, sizeof(err)), -EINVAL);
	lim = lim64;
	lim.memory_bytes = 0;
	assert_int_equal(cg_job_create(&job, &root, "job-5-0", &lim, err, sizeof(err)), -EINVAL);
	assert_false(exists(scratch, "job-5-0"));
}

static void test_job_without_cpu_controller(void **state)
{
	struct cg_job job;
	char dir[256];

	(void)state;
	variant = H_NO_CPU;
	assert_int_equal(cg_job_create(&job, &root, "job-6-0", &lim64, err, sizeof(err)), 0);
	job_dir(dir, sizeof(dir), "job-6-0");
	assert_false(exists(dir, "cpu.max"));
	assert_file(dir, "pids.max", "8");
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void test_job_without_swap_accounting(void **state)
{
	struct cg_job job;
	int r;

	(void)state;
	variant = H_NO_SWAP;
	r = cg_job_create(&job, &root, "job-7-0", &lim64, err, sizeof(err));
	/* Fail closed only when the host could actually swap. */
	if (cg_host_has_swap()) {
		assert_int_equal(r, -EOPNOTSUPP);
		assert_non_null(strstr(err, "memory.swap.max"));
		assert_false(exists(scratch, "job-7-0"));
	} else {
		assert_int_equal(r, 0);
		assert_int_equal(cg_job_destroy(&job), 0);
	}
}

static void test_metrics(void **state)
{
	struct cg_job job;
	struct cg_metrics m;
	char dir[256];
	uint64_t ns = 0;
	bool fired = true;

	(void)state;
	assert_int_equal(cg_job_create(&job, &root, "job-8-0", &lim64, err, sizeof(err)), 0);
	job_dir(dir, sizeof(dir), "job-8-0");
	assert_int_equal(cg_job_oom_fired(&job, &fired), 0);
	assert_false(fired);

	put(dir, "memory.peak", "52428800\n");
	put(dir, "memory.current", "4096\n");
	put(dir, "memory.events", "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n");
	put(dir, "cpu.stat",
	    "usage_usec 2500\nuser_usec 1500\nsystem_usec 1000\n"
	    "nr_periods 3\nnr_throttled 0\nthrottled_usec 0\n");
	assert_int_equal(cg_job_cpu_ns(&job, &ns), 0);
	assert_int_equal(ns, 2500000);
	assert_int_equal(cg_job_oom_fired(&job, &fired), 0);
	assert_true(fired);
	assert_int_equal(cg_job_metrics(&job, &m), 0);
	assert_int_equal(m.memory_peak_bytes, 52428800);
	assert_int_equal(m.cpu_total_ns, 2500000);
	assert_int_equal(m.cpu_user_ms, 1);
	assert_int_equal(m.cpu_sys_ms, 1);
	assert_true(m.oom_killed);

	/* Group kill alone counts; an older kernel without the key is fine. */
	put(dir, "memory.events", "oom 1\noom_kill 0\noom_group_kill 1\n");
	assert_int_equal(cg_job_oom_fired(&job, &fired), 0);
	assert_true(fired);
	put(dir, "memory.events", "oom 0\noom_kill 0\n");
	assert_int_equal(cg_job_oom_fired(&job, &fired), 0);
	assert_false(fired);

	/* Before 5.19 there is no memory.peak: memory.current stands in. */
	char path[300];
	snprintf(path, sizeof(path), "%s/memory.peak", dir);
	assert_int_equal(unlink(path), 0);
	put(dir, "cpu.stat", "usage_usec 7000000\nuser_usec 4000000\nsystem_usec 3000000\n");
	assert_int_equal(cg_job_metrics(&job, &m), 0);
	assert_int_equal(m.memory_peak_bytes, 4096);
	assert_int_equal(m.cpu_user_ms, 4000);
	assert_int_equal(m.cpu_sys_ms, 3000);
	assert_int_equal(m.cpu_total_ns, 7000000000ull);
	assert_false(m.oom_killed);

	/* A malformed file is an error, not a zero. */
	put(dir, "cpu.stat", "usage_usec lots\n");
	assert_int_equal(cg_job_cpu_ns(&job, &ns), -EINVAL);
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void test_kill_writes_cgroup_kill(void **state)
{
	struct cg_job job;
	char dir[256];

	(void)state;
	assert_int_equal(cg_job_create(&job, &root, "job-9-0", &lim64, err, sizeof(err)), 0);
	job_dir(dir, sizeof(dir), "job-9-0");
	assert_file(dir, "cgroup.kill", "");
	assert_int_equal(cg_job_kill(&job), 0);
	assert_file(dir, "cgroup.kill", "1");
	assert_int_equal(cg_job_kill(&job), 0); /* again: harmless */
	assert_int_equal(cg_job_destroy(&job), 0);
	assert_int_equal(cg_job_kill(&job), 0); /* after destroy: nothing to do */
}

static void test_kill_fallback_without_cgroup_kill(void **state)
{
	struct cg_job job;
	char dir[256], pidstr[32];
	int status;
	pid_t child;

	(void)state;
	variant = H_NO_KILL;
	assert_int_equal(cg_job_create(&job, &root, "job-a-0", &lim64, err, sizeof(err)), 0);
	job_dir(dir, sizeof(dir), "job-a-0");
	assert_int_equal(cg_job_kill(&job), 0); /* empty cgroup.procs: done at once */
	assert_false(exists(dir, "cgroup.kill"));

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		for (;;)
			pause();
	}
	snprintf(pidstr, sizeof(pidstr), "%d\n", (int)child);
	put(dir, "cgroup.procs", pidstr);
	/* The plain file never empties, so the loop gives up; the child is
	 * not reaped until then, so its pid cannot be reused meanwhile. */
	assert_int_equal(cg_job_kill(&job), -EBUSY);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	put(dir, "cgroup.procs", "");
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void test_attach_writes_procs(void **state)
{
	struct cg_job job;
	char dir[256], want[32];

	(void)state;
	assert_int_equal(cg_job_create(&job, &root, "job-b-0", &lim64, err, sizeof(err)), 0);
	job_dir(dir, sizeof(dir), "job-b-0");
	assert_int_equal(cg_job_attach(&job, getpid()), 0);
	snprintf(want, sizeof(want), "%d", (int)getpid());
	assert_file(dir, "cgroup.procs", want);
	assert_int_equal(cg_job_attach(&job, 0), -EINVAL);
	put(dir, "cgroup.procs", "");
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void test_destroy_waits_and_is_idempotent(void **state)
{
	struct cg_job job;

	(void)state;
	assert_int_equal(cg_job_create(&job, &root, "job-c-0", &lim64, err, sizeof(err)), 0);
	assert_true(exists(scratch, "job-c-0"));
	assert_int_equal(cg_job_destroy(&job), 0);
	assert_false(exists(scratch, "job-c-0"));
	assert_int_equal(cg_job_destroy(&job), 0);
}

static void test_sweep(void **state)
{
	struct cg_job a, b;
	char path[256];

	(void)state;
	assert_int_equal(cg_job_create(&a, &root, "job-dead-1", &lim64, err, sizeof(err)), 0);
	assert_int_equal(cg_job_create(&b, &root, "job-dead-2", &lim64, err, sizeof(err)), 0);
	close(a.v2_fd);
	close(b.v2_fd);
	snprintf(path, sizeof(path), "%s/jailer", scratch);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/other", scratch);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/job-", scratch);
	assert_int_equal(mkdir(path, 0755), 0);
	put(scratch, "job-file", "not a cgroup");

	assert_int_equal(cg_sweep_stale(&root), 2);
	assert_false(exists(scratch, "job-dead-1"));
	assert_false(exists(scratch, "job-dead-2"));
	assert_true(exists(scratch, "jailer"));
	assert_true(exists(scratch, "other"));
	assert_true(exists(scratch, "job-"));
	assert_true(exists(scratch, "job-file"));
	assert_int_equal(cg_sweep_stale(&root), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_file_helpers),
	    T(test_parse_proc_cgroup),
	    T(test_root_init_rejects_non_cgroupfs),
	    T(test_prepare_parent),
	    T(test_prepare_parent_moves_processes),
	    T(test_prepare_parent_not_a_cgroup),
	    T(test_job_create_writes_limits),
	    T(test_job_memory_rounded_to_pages),
	    T(test_job_create_failure_removes_dir),
	    T(test_job_create_existing_is_not_removed),
	    T(test_job_create_rejects_bad_input),
	    T(test_job_without_cpu_controller),
	    T(test_job_without_swap_accounting),
	    T(test_metrics),
	    T(test_kill_writes_cgroup_kill),
	    T(test_kill_fallback_without_cgroup_kill),
	    T(test_attach_writes_procs),
	    T(test_destroy_waits_and_is_idempotent),
	    T(test_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
