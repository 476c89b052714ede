/* Job cgroups: one cgroup per job, limits written and read back (fail
 * closed), the whole cgroup killed on every exit path, metrics read at the
 * end, removed afterwards.  Two backends behind one interface:
 *   cgroup_v2.c  - a delegated cgroup2 subtree (memory, pids, cpu)
 *   cgroup_v1.c  - the memory, pids, cpu and cpuacct v1 hierarchies
 * cgroup.c holds detection and the shared file helpers.
 */
#ifndef CELLGATE_CGROUP_H
#define CELLGATE_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc.h"
#include "policy.h"

#define CG_MAX_PATH 512
#define CG_JOB_PREFIX "job-"

enum cg_version { CG_V1 = 1, CG_V2 = 2 };

/* Where this jailer's job cgroups live, decided once at start. */
struct cg_root {
	enum cg_version version;
	/* v2: the parent directory of job cgroups. */
	char v2_dir[CG_MAX_PATH];
	/* v1: the parent directory of job cgroups in each hierarchy. */
	char v1_memory[CG_MAX_PATH];
	char v1_pids[CG_MAX_PATH];
	char v1_cpu[CG_MAX_PATH];
	char v1_cpuacct[CG_MAX_PATH];
};

struct cg_job {
	const struct cg_root *root;
	char name[64]; /* "job-<hex id>-<slot>" */
	/* v2: O_PATH|O_DIRECTORY fd of the job cgroup for CLONE_INTO_CGROUP. */
	int v2_fd;
	uint64_t cpu_base_ns; /* v1: cpuacct usage at creation (normally 0) */
};

struct cg_metrics {
	uint64_t memory_peak_bytes;
	uint64_t cpu_user_ms;
	uint64_t cpu_sys_ms;
	uint64_t cpu_total_ns;
	bool oom_killed;
};

/* Detect the version and set up the parent directories.
 *  - v2: `override` (policy cgroup_root) or the jailer's own cgroup from
 *    /proc/self/cgroup; the jailer moves itself into a "jailer" leaf of it
 *    (no-internal-process rule) and enables +memory +pids +cpu in
 *    cgroup.subtree_control.  It never writes to the host's root cgroup.
 *  - v1: "<mount>/<own cgroup of that controller>/cellgate" per controller, or
 *    "<mount>/<override>" when override is a relative name.
 * `fs_root` is "/sys/fs/cgroup" in production; tests pass a scratch dir.
 * Returns 0 or -errno with a message in err. */
int cg_root_init(struct cg_root *root, enum cgroup_mode mode, const char *fs_root,
		 const char *override, char *err, size_t errlen);

/* v2 only, used by cg_root_init and by tests with a scratch tree: prepare
 * `dir` as the parent of job cgroups (subtree_control, no process inside). */
int cg_v2_prepare_parent(const char *dir, char *err, size_t errlen);

/* Remove job cgroups left behind by a crash: kill whatever is in them, then
 * rmdir.  Returns the number removed or -errno. */
int cg_sweep_stale(const struct cg_root *root);

/* At a clean exit: remove the v1 parent directories this jailer made,
 * those that are empty (best effort; v2 needs nothing). */
void cg_root_release(const struct cg_root *root);

/* Create the job cgroup and write the limits, reading each back.
 * memory.max / limit_in_bytes = lim->memory_bytes, no swap, OOM group kill
 * (v2), pids.max = lim->pids, cpu: a quota of `cpu_cores` CPUs (1 by default).
 * On any failure the partly created cgroup is removed. */
int cg_job_create(struct cg_job *job, const struct cg_root *root, const char *name,
		  const struct ipc_limits *lim, char *err, size_t errlen);

/* v1: move `pid` into every hierarchy of the job.  v2: no-op when the child
 * was created with CLONE_INTO_CGROUP (job->v2_fd); otherwise writes
 * cgroup.procs. */
int cg_job_attach(struct cg_job *job, pid_t pid);

/* CPU time used so far in ns (for the CPU-time limit). */
int cg_job_cpu_ns(const struct cg_job *job, uint64_t *ns);

/* Has the OOM killer fired in this job so far? */
int cg_job_oom_fired(const struct cg_job *job, bool *fired);

/* Kill every process in the job: v2 cgroup.kill; v1 SIGKILL to each pid in
 * cgroup.procs, repeated until empty (the pid namespace makes this final).
 * Safe to call more than once. */
int cg_job_kill(struct cg_job *job);

/* Read the final metrics (call after the job is dead). */
int cg_job_metrics(const struct cg_job *job, struct cg_metrics *m);

/* Remove the job cgroup (waits briefly for it to empty).  Idempotent. */
int cg_job_destroy(struct cg_job *job);

/* Shared file helpers (cgroup.c), exposed for the backends and tests. */
int cg_write_file(const char *dir, const char *file, const char *value);
/* Write then read back; the read-back must equal `expect` (or `value` when
 * expect is NULL) after trimming the newline. */
int cg_write_verify(const char *dir, const char *file, const char *value, const char *expect);
int cg_read_file(const char *dir, const char *file, char *buf, size_t cap);
int cg_read_u64(const char *dir, const char *file, uint64_t *v);
/* cg_write_verify with a message "dir/file = value: why" in err. */
int cg_set_limit(const char *dir, const char *file, const char *value, char *err, size_t errlen);
/* The kernel keeps memory limits in whole pages: the value it will read
 * back for `bytes` (at least one page). */
uint64_t cg_memory_in_pages(uint64_t bytes);
/* Read "key value" lines (cpu.stat, memory.events, memory.stat). */
int cg_read_keyed(const char *dir, const char *file, const char *key, uint64_t *v);

/* ---- Added declarations ---- */

/* Note on cg_root_init: on success `err` is either empty or holds a note worth
 * logging (v1 without swap accounting, accepted because the host has no swap).
 * cg_job_create rounds memory_bytes down to whole pages (what the kernel keeps),
 * never below one page. */

/* (cgroup_v1.c) v1 only, best effort, once at start when policy v1_favordynmods is set:
 * flip the kernel's per-threadgroup rwsem switch (perf-anchors §0) by
 * mounting and unmounting a throwaway named v1 hierarchy with
 * "favordynmods" inside a private mount namespace (a forked child).  The
 * switch is host-wide and, on >= 6.18, one-way.  Returns 0 or -errno with a
 * message in err; callers log a failure and go on. */
int cg_v1_enable_favordynmods(char *err, size_t errlen);

/* Find this process's cgroup path in /proc/self/cgroup-formatted `text`:
 * controller NULL -> the v2 line "0::/path"; else the v1 line whose
 * controller list contains `controller` exactly.  Returns 0 or -ENOENT. */
int cg_parse_proc_cgroup(const char *text, const char *controller, char *out, size_t cap);

/* Tests only: run the backends against a scratch directory of plain files.
 * With hooks set, cgroup files are created and truncated on write, removing
 * a job directory first removes the files in it, and after_mkdir (if not
 * NULL) is called on each new job directory so a test can lay out what the
 * kernel would (cgroup.kill, cgroup.events, cpu.max, ...).  NULL restores
 * production behaviour. */
struct cg_test_hooks {
	void (*after_mkdir)(const char *dir);
};
void cg_set_test_hooks(const struct cg_test_hooks *hooks);

/* Shared by the backends (cgroup.c). */
int cg_path(char *out, size_t cap, const char *dir, const char *name);
bool cg_file_exists(const char *dir, const char *file);
bool cg_host_has_swap(void);
/* SIGKILL every pid listed in dir/cgroup.procs; *found = how many were
 * listed (the caller itself and pid 1 are never signalled).  0 or -errno. */
int cg_kill_procs(const char *dir, size_t *found);
/* cg_kill_procs on every dir, repeated with 1 ms pauses until all are empty
 * (missing dirs count as empty); -EBUSY after ~200 rounds. */
int cg_kill_until_empty(const char *const dirs[], size_t n);
/* Call fn for each pid in dir/cgroup.procs (streamed, any length); a
 * negative return from fn stops and is returned.  *count may be NULL. */
int cg_for_each_proc(const char *dir, int (*fn)(pid_t pid, void *ctx), void *ctx, size_t *count);
/* Is `controller` a word of a cgroup.controllers/subtree_control list? */
bool cg_list_has_controller(const char *list, const char *controller);
/* This process's cgroup path (see cg_parse_proc_cgroup). */
int cg_own_cgroup(const char *controller, char *out, size_t cap);
/* mkdir for a new job cgroup (calls the test hook); rmdir that retries
 * EBUSY briefly and treats ENOENT as done. */
int cg_mkdir_job(const char *dir);
int cg_rmdir_job(const char *dir);
/* Reject job names that are not CG_JOB_PREFIX + [A-Za-z0-9_-] (< 64). */
bool cg_valid_job_name(const char *name);

/* Backends: cgroup.c dispatches cg_job_* on root->version. */
int cg_v1_root_init(struct cg_root *root, const char *fs_root, const char *override, char *err,
		    size_t errlen);
int cg_v2_root_init(struct cg_root *root, const char *fs_root, const char *override, char *err,
		    size_t errlen);
int cg_v1_job_create(struct cg_job *job, const struct ipc_limits *lim, char *err, size_t errlen);
int cg_v2_job_create(struct cg_job *job, const struct ipc_limits *lim, char *err, size_t errlen);
int cg_v1_job_attach(struct cg_job *job, pid_t pid);
int cg_v2_job_attach(struct cg_job *job, pid_t pid);
int cg_v1_job_cpu_ns(const struct cg_job *job, uint64_t *ns);
int cg_v2_job_cpu_ns(const struct cg_job *job, uint64_t *ns);
int cg_v1_job_oom_fired(const struct cg_job *job, bool *fired);
int cg_v2_job_oom_fired(const struct cg_job *job, bool *fired);
int cg_v1_job_kill(struct cg_job *job);
int cg_v2_job_kill(struct cg_job *job);
int cg_v1_job_metrics(const struct cg_job *job, struct cg_metrics *m);
int cg_v2_job_metrics(const struct cg_job *job, struct cg_metrics *m);
int cg_v1_job_destroy(struct cg_job *job);
int cg_v2_job_destroy(struct cg_job *job);
/* Parent directories of job cgroups in each v1 hierarchy, one per distinct
 * hierarchy (cpu and cpuacct may be one mount).  Returns the count. */
size_t cg_v1_dirs(const struct cg_root *root, const char *dirs[4]);

#endif
