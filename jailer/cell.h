/* The cell: what runs in the child after clone(), in DESIGN §4's order, each
 * step fatal.  It ends as a tiny init (PID 1 of the job's pid namespace)
 * that forks the interpreter, reports its wait status to the supervisor and
 * reaps orphans; when the interpreter exits, init exits and the kernel kills
 * whatever is left in the namespace. */
#ifndef CELLGATE_CELL_H
#define CELLGATE_CELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>
#include <linux/filter.h>

#include "ipc.h"
#include "policy.h"

/* Fixed places inside the cell. */
#define CELL_CODE_DIR "/code"
#define CELL_WORK_DIR "/tmp"

struct cell_spec {
	const struct policy *pol;
	const struct policy_profile *prof;
	struct ipc_limits lim;
	int sync_rd;   /* one byte from the supervisor: maps written, go */
	int err_wr;    /* a setup failure is reported here as text */
	int status_wr; /* init writes the interpreter's wait status (int) here */
	int stdin_fd;  /* sealed memfd or /dev/null */
	int stdout_fd; /* pipe write ends */
	int stderr_fd;
	int code_fd; /* sealed memfd */
	size_t code_size;
	size_t nreq_env; /* request environment, already checked against policy */
	const char (*req_env)[IPC_MAX_ENV_LEN + 1];
	bool new_netns;
	const struct sock_fprog *seccomp; /* compiled once by the jailer */
};

/* Never returns. Exit codes of the cell process itself carry no meaning:
 * the supervisor learns results from err_wr and status_wr. */
noreturn void cell_main(const struct cell_spec *spec);

#endif
