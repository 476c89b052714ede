/* One supervisor per job, forked by the jailer's main loop: validates the RUN
 * against the policy, creates the job cgroup, clones the cell, writes its
 * uid/gid maps, hands the output fds to the gateway (RUN_OK), then waits on
 * a pidfd, a wall-clock timerfd and the control socket, kills the whole
 * cgroup on every exit path, and sends exactly one RESULT. */
#ifndef CELLGATE_SUPERVISOR_H
#define CELLGATE_SUPERVISOR_H

#include <stdnoreturn.h>

#include "cgroup.h"
#include "ipc.h"
#include "policy.h"

struct supervisor_args {
	const struct policy *pol;
	const struct cg_root *cg;
	int conn_fd;         /* the gateway connection RUN came on */
	struct ipc_run *run; /* decoded; owns code_fd / stdin_fd */
	unsigned slot;       /* job slot: outside ids and cgroup name */
	const struct sock_fprog *seccomp;
};

/* The job cgroup's name for a job id and slot (the main loop uses it to
 * sweep after a supervisor that died). */
void supervisor_cgroup_name(char *buf, size_t cap, uint64_t job_id, unsigned slot);

noreturn void supervisor_main(const struct supervisor_args *a);

#endif
