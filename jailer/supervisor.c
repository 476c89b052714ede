#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cell.h"
#include "fdutil.h"
#include "log.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

#define CPU_POLL_MS 20
#define SEND_TIMEOUT_MS 5000

/* What ended the job, when it was not the job itself. */
enum verdict { V_NONE = 0, V_TIMEOUT, V_MEMORY, V_CANCELLED, V_OUTPUT_LIMIT, V_INTERNAL, V_GATEWAY_GONE };

struct sup {
	const struct supervisor_args *a;
	const struct policy_profile *prof;
	struct ipc_limits lim;
	struct cg_job cg;
	bool cg_made;
	pid_t pid;
	int pidfd;
	int ctl;       /* our end of the control socketpair */
	int err_rd;    /* setup failures from the cell */
	int status_rd; /* the interpreter's wait status from init */
	bool have_status;
	int status;
	struct timespec started;
	enum verdict verdict;
	char message[IPC_MAX_MESSAGE + 1];
};

void supervisor_cgroup_name(char *buf, size_t cap, uint64_t job_id, unsigned slot)
{
	snprintf(buf, cap, CG_JOB_PREFIX "%016" PRIx64 "-%u", job_id, slot);
}

static uint64_t ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = (int64_t)(now.tv_sec - t0->tv_sec) * 1000 +
		     (now.tv_nsec - t0->tv_nsec) / 1000000;
	return ms < 0 ? 0 : (uint64_t)ms;
}

/* Set when a job cgroup could not be removed on a setup failure: the
 * supervisor then exits non-zero so the main loop sweeps it again. */
static bool cleanup_failed;

static noreturn void refuse(const struct supervisor_args *a, uint32_t reason, const char *msg)
{
	struct ipc_msg m = {.type = IPC_RUN_ERR};
	m.u.run_err.job_id = a->run->job_id;
	m.u.run_err.reason = reason;
	snprintf(m.u.run_err.message, sizeof(m.u.run_err.message), "%s", msg);
	int rc = ipc_send_wait(a->conn_fd, &m, SEND_TIMEOUT_MS);
	if (rc < 0)
		log_errno(rc, "job %016" PRIx64 ": sending RUN_ERR", a->run->job_id);
	_exit(cleanup_failed ? 1 : 0);
}

/* Everything the policy must allow before anything is created. */
static void check_request(struct sup *s, size_t *code_size)
{
	const struct supervisor_args *a = s->a;
	struct ipc_run *run = a->run;
	char err[IPC_MAX_MESSAGE];

	s->prof = policy_find_profile(a->pol, run->profile);
	if (!s->prof) {
		snprintf(err, sizeof(err), "unknown profile '%s'", run->profile);
		refuse(a, IPC_ERR_PROFILE, err);
	}
	if (policy_effective_limits(s->prof, &run->limits, &s->lim, err, sizeof(err)) < 0)
		refuse(a, IPC_ERR_LIMIT, err);
	for (uint32_t i = 0; i < run->nenv; i++)
		if (!policy_env_allowed(s->prof, run->env[i]))
			refuse(a, IPC_ERR_ENV, "environment entry not allowed by policy");
	int rc = ipc_memfd_check(run->code_fd, IPC_MAX_CODE_BYTES, code_size);
	if (rc < 0) {
		snprintf(err, sizeof(err), "code must be a sealed memfd of at most %u bytes: %s",
			 IPC_MAX_CODE_BYTES, strerror(-rc));
		refuse(a, IPC_ERR_CODE, err);
	}
	if (run->stdin_fd >= 0) {
		size_t n;
		rc = ipc_memfd_check(run->stdin_fd, IPC_MAX_STDIN_BYTES, &n);
		if (rc < 0) {
			snprintf(err, sizeof(err),
				 "stdin must be a sealed memfd of at most %u bytes: %s",
				 IPC_MAX_STDIN_BYTES, strerror(-rc));
			refuse(a, IPC_ERR_CODE, err);
		}
	}
}

static int write_proc(pid_t pid, const char *file, const char *text)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t w = write(fd, text, len);
	int e = errno;
	close(fd);
	if (w < 0)
		return -e;
	return (size_t)w == len ? 0 : -EIO;
}

/* Inside uid/gid 0 (the setup identity) and the sandbox ids map to two
 * outside ids owned by this slot alone, so concurrent jobs never share an
 * owner, a signal target or an RLIMIT_NPROC count. */
static int write_id_maps(const struct sup *s)
{
	const struct policy *p = s->a->pol;
	unsigned long ub = (unsigned long)p->uid_base + 2ul * s->a->slot;
	unsigned long gb = (unsigned long)p->gid_base + 2ul * s->a->slot;
	char map[128];
	int rc;
	snprintf(map, sizeof(map), "0 %lu 1\n%u %lu 1\n", ub, (unsigned)p->sandbox_uid, ub + 1);
	if ((rc = write_proc(s->pid, "uid_map", map)) < 0)
		return rc;
	if ((rc = write_proc(s->pid, "setgroups", "deny")) < 0)
		return rc;
	snprintf(map, sizeof(map), "0 %lu 1\n%u %lu 1\n", gb, (unsigned)p->sandbox_gid, gb + 1);
	return write_proc(s->pid, "gid_map", map);
}

static void kill_job(struct sup *s)
{
	if (s->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, s->pidfd, SIGKILL, NULL, 0);
	if (s->cg_made) {
		int rc = cg_job_kill(&s->cg);
		if (rc < 0)
			log_errno(rc, "job %s: killing cgroup", s->cg.name);
	}
}

/* Send the fds to the gateway.  Its copies are the only ones that matter
 * afterwards: ours are closed so EOF means what it says. */
static int send_run_ok(struct sup *s, int out_rd, int errout_rd, int ctl_peer)
{
	struct ipc_msg m = {.type = IPC_RUN_OK};
	m.u.run_ok.job_id = s->a->run->job_id;
	m.u.run_ok.limits = s->lim;
	m.u.run_ok.stdout_fd = out_rd;
	m.u.run_ok.stderr_fd = errout_rd;
	m.u.run_ok.control_fd = ctl_peer;
	return ipc_send_wait(s->a->conn_fd, &m, SEND_TIMEOUT_MS);
}

static void set_verdict(struct sup *s, enum verdict v, const char *msg)
{
	if (s->verdict != V_NONE)
		return;
	s->verdict = v;
	if (msg)
		snprintf(s->message, sizeof(s->message), "%.*s", (int)sizeof(s->message) - 1, msg);
}

static void read_cell_error(struct sup *s, bool *eof)
{
	char buf[IPC_MAX_MESSAGE];
	ssize_t n = read(s->err_rd, buf, sizeof(buf) - 1);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		*eof = true;
		return;
	}
	buf[n] = '\0';
	char msg[IPC_MAX_MESSAGE + 32];
	snprintf(msg, sizeof(msg), "sandbox setup failed: %.400s", buf);
	set_verdict(s, V_INTERNAL, msg);
	log_warn("job %s: %s", s->cg.name, msg);
	*eof = true;
}

static void read_control(struct sup *s, bool *closed)
{
	struct ipc_msg m;
	int derr = 0;
	int rc = ipc_recv(s->ctl, &m, &derr);
	if (rc == -EAGAIN || rc == -EINTR)
		return;
	if (rc < 0 || m.type != IPC_CANCEL) {
		if (rc == 0)
			ipc_close_fds(&m);
		if (rc != -ECONNRESET)
			log_warn("job %s: control socket: %s", s->cg.name,
				 rc == 0 ? "unexpected message type"
				 : rc == -EBADMSG ? ipc_decode_strerror(derr)
						  : strerror(-rc));
		/* The gateway went away (or spoke nonsense): nobody will read
		 * a result, so the job must not outlive it. */
		set_verdict(s, V_GATEWAY_GONE, NULL);
		*closed = true;
		return;
	}
	if (m.u.cancel.reason == IPC_CANCEL_OUTPUT_LIMIT)
		set_verdict(s, V_OUTPUT_LIMIT, NULL);
	else
		set_verdict(s, V_CANCELLED, NULL);
}

static bool cpu_exceeded(struct sup *s)
{
	uint64_t ns;
	if (cg_job_cpu_ns(&s->cg, &ns) < 0)
		return false;
	return ns / 1000000 >= s->lim.cpu_ms;
}

/* An OOM kill anywhere in the job ends the whole job, as memory.oom.group
 * does on v2: a job that lost a process to the OOM killer has not run as
 * written.  On v1 there is no group kill, so the supervisor does it. */
static bool oom_fired(struct sup *s)
{
	bool fired = false;
	return cg_job_oom_fired(&s->cg, &fired) == 0 && fired;
}

static int arm_timer(int fd, uint64_t first_ms, uint64_t interval_ms)
{
	struct itimerspec its = {
		.it_value = {.tv_sec = (time_t)(first_ms / 1000),
			     .tv_nsec = (long)(first_ms % 1000) * 1000000},
		.it_interval = {.tv_sec = (time_t)(interval_ms / 1000),
				.tv_nsec = (long)(interval_ms % 1000) * 1000000},
	};
	return timerfd_settime(fd, 0, &its, NULL);
}

static void read_status(struct sup *s)
{
	ssize_t n;
	do
		n = read(s->status_rd, &s->status, sizeof(s->status));
	while (n < 0 && errno == EINTR);
	s->have_status = n == (ssize_t)sizeof(s->status);
}

/* Wait until the program has ended: its status arrived from init, init
 * exited (killed by the OOM killer or by us), a limit hit, or the gateway
 * went away.  The wall time stops here; namespace teardown is not the
 * program's time and is not waited for on the result's path. */
static void wait_for_end(struct sup *s, uint64_t *wall_ms)
{
	int wall = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	int cpu = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	uint64_t spent = ms_since(&s->started);
	uint64_t left = spent < s->lim.wall_ms ? s->lim.wall_ms - spent : 1;
	if (wall < 0 || cpu < 0 || arm_timer(wall, left, 0) < 0 ||
	    arm_timer(cpu, CPU_POLL_MS, CPU_POLL_MS) < 0) {
		set_verdict(s, V_INTERNAL, "timerfd failed");
		kill_job(s);
	}
	bool err_open = true, ctl_open = true, exited = false, killed = s->verdict != V_NONE;
	*wall_ms = 0;
	while (!exited) {
		struct pollfd p[6] = {
			{.fd = s->pidfd, .events = POLLIN},
			{.fd = wall, .events = POLLIN},
			{.fd = cpu, .events = POLLIN},
			{.fd = ctl_open ? s->ctl : -1, .events = POLLIN},
			{.fd = err_open ? s->err_rd : -1, .events = POLLIN},
			{.fd = killed ? -1 : s->status_rd, .events = POLLIN},
		};
		int n = poll(p, 6, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			set_verdict(s, V_INTERNAL, "poll failed");
			kill_job(s);
			killed = true;
			break;
		}
		if (p[5].revents && !killed) {
			read_status(s);
			exited = true;
			*wall_ms = ms_since(&s->started);
			break;
		}
		if (p[0].revents) {
			exited = true;
			*wall_ms = ms_since(&s->started);
			break;
		}
		if (p[1].revents) {
			uint64_t x;
			if (read(wall, &x, sizeof(x)) > 0)
				set_verdict(s, V_TIMEOUT, NULL);
		}
		if (p[2].revents) {
			uint64_t x;
			if (read(cpu, &x, sizeof(x)) > 0) {
				if (cpu_exceeded(s))
					set_verdict(s, V_TIMEOUT, NULL);
				else if (oom_fired(s))
					set_verdict(s, V_MEMORY, NULL);
			}
		}
		if (p[3].revents)
			read_control(s, &ctl_open);
		if (p[4].revents)
			read_cell_error(s, &err_open);
		if (s->verdict != V_NONE && !killed) {
			*wall_ms = ms_since(&s->started);
			kill_job(s);
			killed = true;
		}
	}
	if (!exited) {
		/* poll failed: wait for init synchronously; it was killed. */
		struct pollfd p = {.fd = s->pidfd, .events = POLLIN};
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		*wall_ms = ms_since(&s->started);
	}
	/* A cell setup error may still be in the pipe when init exits first. */
	if (err_open) {
		int fl = fcntl(s->err_rd, F_GETFL);
		if (fl >= 0 && fcntl(s->err_rd, F_SETFL, fl | O_NONBLOCK) == 0)
			read_cell_error(s, &err_open);
	}
	if (wall >= 0)
		close(wall);
	if (cpu >= 0)
		close(cpu);
}

static void classify(struct sup *s, struct ipc_result *r, const struct cg_metrics *m)
{
	if (!s->have_status && s->verdict == V_NONE) {
		/* init exited: the status may still be in the pipe */
		int fl = fcntl(s->status_rd, F_GETFL);
		if (fl >= 0 && fcntl(s->status_rd, F_SETFL, fl | O_NONBLOCK) == 0)
			read_status(s);
	}
	int st = s->status;
	bool have = s->have_status;
	r->exit_code = -1;
	r->signal = 0;
	r->oom_killed = m->oom_killed;
	switch (s->verdict) {
	case V_TIMEOUT:
		r->status = IPC_ST_TIMEOUT;
		r->signal = SIGKILL;
		return;
	case V_MEMORY:
		r->status = IPC_ST_MEMORY;
		r->signal = SIGKILL;
		return;
	case V_CANCELLED:
		r->status = IPC_ST_CANCELLED;
		r->signal = SIGKILL;
		return;
	case V_OUTPUT_LIMIT:
		r->status = IPC_ST_OUTPUT_LIMIT;
		r->signal = SIGKILL;
		return;
	case V_INTERNAL:
		r->status = IPC_ST_INTERNAL;
		snprintf(r->message, sizeof(r->message), "%s", s->message);
		return;
	case V_NONE:
	case V_GATEWAY_GONE:
		break;
	}
	if (!have) {
		/* init died without a word: with a memory group kill that is the
		 * OOM killer; anything else is our failure. */
		r->status = m->oom_killed ? IPC_ST_MEMORY : IPC_ST_INTERNAL;
		if (!m->oom_killed)
			snprintf(r->message, sizeof(r->message), "the cell ended without a status");
		return;
	}
	if (m->oom_killed) {
		/* The program ended before the poll saw the OOM kill. */
		r->status = IPC_ST_MEMORY;
		r->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		r->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		return;
	}
	if (WIFEXITED(st)) {
		r->exit_code = WEXITSTATUS(st);
		r->status = r->exit_code == 0 ? IPC_ST_OK : IPC_ST_EXIT;
		return;
	}
	r->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (r->signal == SIGSYS)
		r->status = IPC_ST_SECCOMP;
	else if (r->signal == SIGXCPU)
		r->status = IPC_ST_TIMEOUT;
	else
		r->status = IPC_ST_SIGNAL;
}

/* Send the one RESULT.  Everything left of the job is already dying: init
 * was SIGKILLed, and with it the whole pid namespace. */
static void report(struct sup *s, uint64_t wall_ms)
{
	struct cg_metrics m = {0};
	if (s->cg_made) {
		int rc = cg_job_metrics(&s->cg, &m);
		if (rc < 0) {
			log_errno(rc, "job %s: reading metrics", s->cg.name);
			/* Without the accounting we cannot tell an OOM kill from a
			 * clean run: never report one as the other. */
			set_verdict(s, V_INTERNAL, "the jailer could not read the job's "
						   "cgroup accounting (memory, CPU, OOM)");
		}
	}
	struct ipc_msg msg = {.type = IPC_RESULT};
	struct ipc_result *r = &msg.u.result;
	classify(s, r, &m);
	r->wall_ms = wall_ms;
	r->cpu_user_ms = m.cpu_user_ms;
	r->cpu_sys_ms = m.cpu_sys_ms;
	r->memory_peak_bytes = m.memory_peak_bytes;
	if (s->verdict != V_GATEWAY_GONE) {
		int rc = ipc_send_wait(s->ctl, &msg, SEND_TIMEOUT_MS);
		if (rc < 0)
			log_errno(rc, "job %s: sending RESULT", s->cg.name);
	}
	/* A CANCEL may have crossed the program's own exit. */
	close_draining(s->ctl);
}

/* Remove the job cgroup; a failure is remembered for the exit status. */
static void drop_cgroup(struct sup *s)
{
	if (!s->cg_made)
		return;
	int rc = cg_job_destroy(&s->cg);
	if (rc < 0) {
		log_errno(rc, "job %s: removing cgroup", s->cg.name);
		cleanup_failed = true;
	}
	s->cg_made = false;
}

/* After the result: reap init, make sure nothing of the job survives, and
 * remove its cgroup.  This is where the namespaces are torn down.  A failure
 * is returned so the supervisor exits non-zero and the main loop sweeps the
 * cgroup again. */
static int teardown(struct sup *s)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	while (waitid((idtype_t)P_PIDFD, (id_t)s->pidfd, &si, WEXITED) < 0 && errno == EINTR)
		;
	drop_cgroup(s);
	return cleanup_failed ? -EBUSY : 0;
}

static int make_pipe(int fds[2], int flags)
{
	return pipe2(fds, O_CLOEXEC | flags) < 0 ? -errno : 0;
}

noreturn void supervisor_main(const struct supervisor_args *a)
{
	struct sup s = {.a = a, .pidfd = -1, .ctl = -1, .err_rd = -1, .status_rd = -1};
	sigset_t all;
	sigemptyset(&all);
	/* Only the main loop uses signalfd; a supervisor lets SIGTERM kill it,
	 * and the cell's PDEATHSIG plus the main loop's sweep clean up. */
	sigprocmask(SIG_SETMASK, &all, NULL);
	log_set_prefix("cellgate-jailer/job");
	size_t code_size = 0;
	check_request(&s, &code_size);

	char err[IPC_MAX_MESSAGE];
	char name[64];
	supervisor_cgroup_name(name, sizeof(name), a->run->job_id, a->slot);
	int rc = cg_job_create(&s.cg, a->cg, name, &s.lim, err, sizeof(err));
	if (rc < 0) {
		log_warn("job %s: cgroup: %s", name, err);
		refuse(a, IPC_ERR_INTERNAL, "the jailer could not create the job's cgroup");
	}
	s.cg_made = true;

	int out[2], errout[2], sync[2], cellerr[2], status[2], ctl[2];
	if (make_pipe(out, 0) < 0 || make_pipe(errout, 0) < 0 || make_pipe(sync, 0) < 0 ||
	    make_pipe(cellerr, 0) < 0 || make_pipe(status, 0) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) < 0) {
		drop_cgroup(&s);
		refuse(a, IPC_ERR_INTERNAL, "the jailer ran out of file descriptors");
	}
	int stdin_fd = a->run->stdin_fd;
	if (stdin_fd < 0 && (stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		drop_cgroup(&s);
		refuse(a, IPC_ERR_INTERNAL, "cannot open /dev/null");
	}
	/* Supplementary groups are not remapped by the user namespace: root's
	 * would still grant host group access through the read-only binds. */
	if (setgroups(0, NULL) < 0) {
		drop_cgroup(&s);
		refuse(a, IPC_ERR_INTERNAL, "cannot clear supplementary groups");
	}

	struct cell_spec spec = {
		.pol = a->pol,
		.prof = s.prof,
		.lim = s.lim,
		.sync_rd = sync[0],
		.err_wr = cellerr[1],
		.status_wr = status[1],
		.stdin_fd = stdin_fd,
		.stdout_fd = out[1],
		.stderr_fd = errout[1],
		.code_fd = a->run->code_fd,
		.code_size = code_size,
		.nreq_env = a->run->nenv,
		.req_env = (const char(*)[IPC_MAX_ENV_LEN + 1])a->run->env,
		.new_netns = !s.prof->network,
		.seccomp = a->seccomp,
	};
	struct clone_args ca;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
		   CLONE_PIDFD | CLONE_CLEAR_SIGHAND | (spec.new_netns ? CLONE_NEWNET : 0);
	ca.pidfd = (uint64_t)(uintptr_t)&s.pidfd;
	ca.exit_signal = SIGCHLD;
	if (s.cg.v2_fd >= 0) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)s.cg.v2_fd;
	}
	pid_t pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0) {
		log_errno(-errno, "job %s: clone3", name);
		drop_cgroup(&s);
		refuse(a, IPC_ERR_INTERNAL, "the jailer could not create the cell");
	}
	if (pid == 0)
		cell_main(&spec);
	s.pid = pid;
	close(sync[0]);
	close(cellerr[1]);
	close(status[1]);
	close(out[1]);
	close(errout[1]);
	close(stdin_fd);
	close(a->run->code_fd);
	s.err_rd = cellerr[0];
	s.status_rd = status[0];
	s.ctl = ctl[0];

	rc = cg_job_attach(&s.cg, pid);
	if (rc == 0)
		rc = write_id_maps(&s);
	if (rc < 0) {
		log_errno(rc, "job %s: attaching the cell", name);
		kill_job(&s);
		drop_cgroup(&s);
		refuse(a, IPC_ERR_INTERNAL, "the jailer could not place the cell in its cgroup");
	}
	clock_gettime(CLOCK_MONOTONIC, &s.started);
	char go = 1;
	if (write(sync[1], &go, 1) != 1) {
		kill_job(&s);
		drop_cgroup(&s);
		refuse(a, IPC_ERR_INTERNAL, "the cell did not start");
	}
	close(sync[1]);

	rc = send_run_ok(&s, out[0], errout[0], ctl[1]);
	close(out[0]);
	close(errout[0]);
	close(ctl[1]);
	close(a->conn_fd);
	if (rc < 0) {
		log_errno(rc, "job %s: sending RUN_OK", name);
		set_verdict(&s, V_GATEWAY_GONE, NULL);
		kill_job(&s);
	}
	uint64_t wall_ms = 0;
	wait_for_end(&s, &wall_ms);
	/* Whatever ended it, nothing of the job may run on: killing init
	 * takes down its pid namespace as a whole. */
	syscall(SYS_pidfd_send_signal, s.pidfd, SIGKILL, NULL, 0);
	report(&s, wall_ms);
	_exit(teardown(&s) < 0 ? 1 : 0);
}
