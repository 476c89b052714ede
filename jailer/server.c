#include "server.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <systemd/sd-daemon.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdutil.h"
#include "ipc.h"
#include "log.h"
#include "supervisor.h"

#define MAX_CONNS 64
#define SEND_TIMEOUT_MS 2000

struct slot {
	bool used;
	pid_t pid;
	uint64_t job_id;
};

struct server {
	const struct server_config *cfg;
	int ep, sigfd, listen_fd;
	int conns[MAX_CONNS];
	size_t nconns;
	struct slot *slots;
	size_t nslots, running;
	bool stopping;
};

static int ep_add(int ep, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void conn_close(struct server *sv, int fd)
{
	epoll_ctl(sv->ep, EPOLL_CTL_DEL, fd, NULL);
	close_draining(fd);
	for (size_t i = 0; i < sv->nconns; i++) {
		if (sv->conns[i] == fd) {
			sv->conns[i] = sv->conns[--sv->nconns];
			break;
		}
	}
}

static bool is_conn(const struct server *sv, int fd)
{
	for (size_t i = 0; i < sv->nconns; i++)
		if (sv->conns[i] == fd)
			return true;
	return false;
}

static void send_error(int fd, uint32_t code, const char *text)
{
	struct ipc_msg m = {.type = IPC_ERROR};
	m.u.error.code = code;
	m.u.error.peer_version = IPC_VERSION;
	snprintf(m.u.error.message, sizeof(m.u.error.message), "%s", text);
	int rc = ipc_send_wait(fd, &m, SEND_TIMEOUT_MS);
	if (rc < 0)
		log_errno(rc, "sending error to gateway");
}

static void accept_conn(struct server *sv)
{
	int fd = accept4(sv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			log_errno(-errno, "accept");
		return;
	}
	struct ucred cred = {.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
	gid_t groups[PEER_MAX_GROUPS];
	size_t ngroups = 0;
	if (peer_credentials(fd, &cred, groups, &ngroups) < 0 ||
	    !policy_peer_allowed(sv->cfg->pol, cred.uid, cred.gid, groups, ngroups)) {
		log_warn("refused connection from uid %u gid %u pid %d", (unsigned)cred.uid,
			 (unsigned)cred.gid, (int)cred.pid);
		send_error(fd, IPC_E_DENIED, "this user may not use the jailer");
		close_draining(fd);
		return;
	}
	if (sv->nconns == MAX_CONNS || ep_add(sv->ep, fd) < 0) {
		send_error(fd, IPC_E_PROTOCOL, "too many gateway connections");
		close_draining(fd);
		return;
	}
	sv->conns[sv->nconns++] = fd;
}

static void answer_hello(struct server *sv, int fd)
{
	struct ipc_msg m = {.type = IPC_HELLO_OK};
	policy_to_hello(sv->cfg->pol, &m.u.hello_ok);
	int rc = ipc_send_wait(fd, &m, SEND_TIMEOUT_MS);
	if (rc < 0) {
		log_errno(rc, "sending HELLO_OK");
		conn_close(sv, fd);
	}
}

static void refuse_run(int fd, uint64_t job_id, uint32_t reason, const char *text)
{
	struct ipc_msg m = {.type = IPC_RUN_ERR};
	m.u.run_err.job_id = job_id;
	m.u.run_err.reason = reason;
	snprintf(m.u.run_err.message, sizeof(m.u.run_err.message), "%s", text);
	int rc = ipc_send_wait(fd, &m, SEND_TIMEOUT_MS);
	if (rc < 0)
		log_errno(rc, "sending RUN_ERR");
}

static void start_job(struct server *sv, int fd, struct ipc_msg *m)
{
	struct ipc_run *run = &m->u.run;
	size_t slot = sv->nslots;
	for (size_t i = 0; i < sv->nslots; i++) {
		if (!sv->slots[i].used) {
			slot = i;
			break;
		}
	}
	if (sv->stopping || slot == sv->nslots) {
		refuse_run(fd, run->job_id, IPC_ERR_BUSY,
			   sv->stopping ? "the jailer is shutting down" : "no free job slot");
		ipc_close_fds(m);
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		log_errno(-errno, "fork supervisor");
		refuse_run(fd, run->job_id, IPC_ERR_INTERNAL, "the jailer could not fork");
		ipc_close_fds(m);
		return;
	}
	if (pid == 0) {
		int keep[] = {fd, run->code_fd, run->stdin_fd};
		if (close_fds_except(keep, 3) < 0)
			_exit(1);
		struct supervisor_args args = {
			.pol = sv->cfg->pol,
			.cg = sv->cfg->cg,
			.conn_fd = fd,
			.run = run,
			.slot = (unsigned)slot,
			.seccomp = sv->cfg->seccomp,
		};
		supervisor_main(&args);
	}
	sv->slots[slot] = (struct slot){.used = true, .pid = pid, .job_id = run->job_id};
	sv->running++;
	ipc_close_fds(m);
}

static void handle_conn(struct server *sv, int fd)
{
	/* The message struct is large (profiles, environment): keep it off the
	 * stack of a loop that recurses nowhere but still should stay small. */
	static struct ipc_msg m;
	int derr = 0;
	int rc = ipc_recv(fd, &m, &derr);
	if (rc == -EAGAIN || rc == -EINTR)
		return;
	if (rc == -EBADMSG && derr == IPC_DEC_VERSION) {
		char text[128];
		snprintf(text, sizeof(text), "the jailer speaks ipc version %u, the peer sent %u",
			 IPC_VERSION, (unsigned)m.version);
		send_error(fd, IPC_E_VERSION, text);
		conn_close(sv, fd);
		return;
	}
	if (rc < 0) {
		if (rc != -ECONNRESET) {
			log_errno(rc, "bad message from gateway (%s)",
				  derr ? ipc_decode_strerror(derr) : "i/o");
			send_error(fd, IPC_E_PROTOCOL, "malformed message");
		}
		conn_close(sv, fd);
		return;
	}
	switch (m.type) {
	case IPC_HELLO:
		answer_hello(sv, fd);
		break;
	case IPC_RUN:
		start_job(sv, fd, &m);
		break;
	default:
		ipc_close_fds(&m);
		send_error(fd, IPC_E_PROTOCOL, "unexpected message type");
		conn_close(sv, fd);
	}
}

/* A supervisor that died abnormally may have left its cell and cgroup:
 * remove both (the cell dies with its pid namespace when the cgroup is
 * killed). */
static void sweep_after(struct server *sv, size_t slot)
{
	struct cg_job job;
	memset(&job, 0, sizeof(job));
	job.root = sv->cfg->cg;
	job.v2_fd = -1;
	supervisor_cgroup_name(job.name, sizeof(job.name), sv->slots[slot].job_id,
			       (unsigned)slot);
	int rc = cg_job_destroy(&job);
	if (rc < 0 && rc != -ENOENT)
		log_errno(rc, "sweeping cgroup %s", job.name);
}

static void reap(struct server *sv)
{
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid <= 0)
			return;
		for (size_t i = 0; i < sv->nslots; i++) {
			if (!sv->slots[i].used || sv->slots[i].pid != pid)
				continue;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				log_warn("supervisor of job %016" PRIx64
					 " ended abnormally (wait status %d): sweeping its cgroup",
					 sv->slots[i].job_id, st);
				sweep_after(sv, i);
			}
			sv->slots[i].used = false;
			sv->running--;
			break;
		}
	}
}

static void handle_signal(struct server *sv)
{
	struct signalfd_siginfo si;
	ssize_t n = read(sv->sigfd, &si, sizeof(si));
	if (n != (ssize_t)sizeof(si))
		return;
	if (si.ssi_signo == SIGCHLD) {
		reap(sv);
		return;
	}
	log_info("signal %u: finishing running jobs, accepting no more", si.ssi_signo);
	if (!sv->stopping && sv->listen_fd >= 0)
		(void)sd_notify(0, "STOPPING=1"); /* not as the setuid helper (no listen_fd) */
	sv->stopping = true;
	if (sv->listen_fd >= 0) {
		epoll_ctl(sv->ep, EPOLL_CTL_DEL, sv->listen_fd, NULL);
		close(sv->listen_fd);
		sv->listen_fd = -1;
	}
}

int server_run(const struct server_config *cfg)
{
	struct server sv = {.cfg = cfg, .listen_fd = cfg->listen_fd};
	sv.nslots = cfg->pol->max_jobs;
	sv.slots = calloc(sv.nslots, sizeof(*sv.slots));
	if (!sv.slots)
		fatal("out of memory");
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		fatal("sigprocmask: %s", strerror(errno));
	sv.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	sv.ep = epoll_create1(EPOLL_CLOEXEC);
	if (sv.sigfd < 0 || sv.ep < 0 || ep_add(sv.ep, sv.sigfd) < 0)
		fatal("event setup: %s", strerror(errno));
	if (sv.listen_fd >= 0 && ep_add(sv.ep, sv.listen_fd) < 0)
		fatal("epoll listen: %s", strerror(errno));
	bool single = cfg->conn_fd >= 0;
	if (single) {
		if (ep_add(sv.ep, cfg->conn_fd) < 0)
			fatal("epoll conn: %s", strerror(errno));
		sv.conns[sv.nconns++] = cfg->conn_fd;
	}
	for (;;) {
		if ((sv.stopping || (single && sv.nconns == 0)) && sv.running == 0)
			break;
		struct epoll_event evs[16];
		/* Idle: no connection and no job.  The socket stays with systemd,
		 * which starts us again on the next connection. */
		bool idle = cfg->idle_exit_s && sv.nconns == 0 && sv.running == 0 && !sv.stopping;
		int n = epoll_wait(sv.ep, evs, 16, idle ? (int)cfg->idle_exit_s * 1000 : -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fatal("epoll_wait: %s", strerror(errno));
		}
		if (n == 0 && idle) {
			log_info("idle for %u s: exiting until the socket is used again",
				 cfg->idle_exit_s);
			(void)sd_notify(0, "STOPPING=1");
			break;
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			if (fd == sv.sigfd)
				handle_signal(&sv);
			else if (fd == sv.listen_fd)
				accept_conn(&sv);
			else if (is_conn(&sv, fd))
				handle_conn(&sv, fd);
		}
	}
	free(sv.slots);
	close(sv.ep);
	close(sv.sigfd);
	return 0;
}
