/* The jailer's main loop: accepts gateway connections (checked with
 * SO_PEERCRED against the policy), answers HELLO, forks one supervisor per
 * RUN into a free job slot, and reaps supervisors from a signalfd.  It never
 * blocks on a job. */
#ifndef CELLGATE_SERVER_H
#define CELLGATE_SERVER_H

#include <stdbool.h>

#include "cgroup.h"
#include "policy.h"

struct server_config {
	const struct policy *pol;
	const struct cg_root *cg;
	const struct sock_fprog *seccomp;
	int listen_fd; /* a listening SOCK_SEQPACKET socket, or -1 */
	int conn_fd;   /* --fd mode: one already connected socket, or -1 */
	unsigned idle_exit_s; /* socket activation: exit after this long idle (0 never) */
};

/* Runs until SIGTERM/SIGINT (listen mode), until the one connection of
 * --fd mode closes and its jobs are done, or (idle_exit_s) until nothing
 * has been connected or running for that long.  Returns the exit code. */
int server_run(const struct server_config *cfg);

#endif
