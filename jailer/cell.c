#include "cell.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cell_fs.h"
#include "proctitle.h"
#include "seccomp_policy.h"

/* Fixed fd numbers once the cell has rearranged its descriptors. */
enum { FD_STATUS = 3, FD_ERR = 4 };

static int err_fd = -1;

/* Report a failed step to the supervisor and die.  The message names the
 * step; the supervisor turns it into an `internal` result. */
static noreturn void cell_fail(const char *step, int err)
{
	char msg[IPC_MAX_MESSAGE];
	int n = snprintf(msg, sizeof(msg), "%s: %s", step, strerror(err < 0 ? -err : err));
	if (n > 0 && err_fd >= 0) {
		ssize_t w = write(err_fd, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
		(void)w;
	}
	_exit(126);
}

#define MUST(step, expr)                                                                   \
	do {                                                                               \
		if ((expr) < 0)                                                            \
			cell_fail((step), errno);                                          \
	} while (0)

/* Place the fds we keep at 0..4 without clobbering one with another: first
 * lift every source above the target range, then move it down. */
static void arrange_fds(const struct cell_spec *s, int *code_fd)
{
	int src[6] = {s->stdin_fd, s->stdout_fd, s->stderr_fd, s->status_wr, s->err_wr,
		      s->code_fd};
	int high[6];
	for (int i = 0; i < 6; i++) {
		high[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 64);
		if (high[i] < 0)
			cell_fail("dup fds", errno);
	}
	for (int i = 0; i < 5; i++)
		if (dup3(high[i], i, i >= FD_STATUS ? O_CLOEXEC : 0) < 0)
			cell_fail("arrange fds", errno);
	err_fd = FD_ERR;
	*code_fd = high[5];
	/* Everything else (the gateway connection, the listening socket, the
	 * supervisor's ends) goes now; the code memfd stays until copied. */
	for (int i = 0; i < 5; i++)
		close(high[i]);
}

static void close_all_but_stdio_and_reports(void)
{
	if (syscall(SYS_close_range, FD_ERR + 1, ~0U, 0) < 0)
		cell_fail("close_range", errno);
}

static void wait_for_release(int sync_rd)
{
	char b;
	ssize_t n;
	do
		n = read(sync_rd, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(125); /* the supervisor gave up on us: nothing to report */
	close(sync_rd);
}

/* Become root of our own user namespace (the supervisor mapped inside uid 0
 * to an unprivileged outside uid), so files we create in the cell's tmpfs
 * have a mapped owner. */
static void become_ns_root(void)
{
	MUST("setresgid 0", setresgid(0, 0, 0));
	MUST("setresuid 0", setresuid(0, 0, 0));
}

static void loopback_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	MUST("socket for loopback", s);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	MUST("get loopback flags", ioctl(s, SIOCGIFFLAGS, &ifr));
	ifr.ifr_flags |= IFF_UP;
	MUST("loopback up", ioctl(s, SIOCSIFFLAGS, &ifr));
	close(s);
}

static void set_rlimit(int res, rlim_t soft, rlim_t hard, const char *name)
{
	struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};
	if (setrlimit(res, &rl) < 0)
		cell_fail(name, errno);
}

static void apply_rlimits(const struct cell_spec *s)
{
	rlim_t cpu_s = (rlim_t)((s->lim.cpu_ms + 999) / 1000);
	set_rlimit(RLIMIT_CORE, 0, 0, "rlimit core");
	/* Backstop only: the supervisor enforces CPU time on the whole cgroup
	 * with ms precision; this catches a single runaway process if it could
	 * not. */
	set_rlimit(RLIMIT_CPU, cpu_s + 1, cpu_s + 2, "rlimit cpu");
	set_rlimit(RLIMIT_FSIZE, s->lim.tmpfs_bytes, s->lim.tmpfs_bytes, "rlimit fsize");
	set_rlimit(RLIMIT_NOFILE, 1024, 1024, "rlimit nofile");
	set_rlimit(RLIMIT_NPROC, s->lim.pids, s->lim.pids, "rlimit nproc");
	set_rlimit(RLIMIT_MEMLOCK, 64 * 1024, 64 * 1024, "rlimit memlock");
	set_rlimit(RLIMIT_MSGQUEUE, 0, 0, "rlimit msgqueue");
	set_rlimit(RLIMIT_RTPRIO, 0, 0, "rlimit rtprio");
	set_rlimit(RLIMIT_NICE, 0, 0, "rlimit nice");
}

/* Drop to the sandbox uid/gid and shed every capability set.  The bounding
 * set needs CAP_SETPCAP to clear, so it goes first while we still hold it;
 * the uid change then empties permitted and effective; we verify all five
 * sets afterwards rather than trusting the sequence. */
static void drop_privileges(const struct cell_spec *s)
{
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SETUID) < 0 ||
	    capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SETGID) < 0)
		cell_fail("capng_update", EINVAL);
	if (capng_apply(CAPNG_SELECT_ALL) < 0)
		cell_fail("clear capability bounding set", EPERM);
	uid_t uid = s->pol->sandbox_uid;
	gid_t gid = s->pol->sandbox_gid;
	MUST("setresgid sandbox", setresgid(gid, gid, gid));
	MUST("setresuid sandbox", setresuid(uid, uid, uid));
	uid_t r, e, sv;
	gid_t gr, ge, gs;
	if (getresuid(&r, &e, &sv) < 0 || r != uid || e != uid || sv != uid)
		cell_fail("verify uid", EPERM);
	if (getresgid(&gr, &ge, &gs) < 0 || gr != gid || ge != gid || gs != gid)
		cell_fail("verify gid", EPERM);
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		cell_fail("clear capabilities", EPERM);
	capng_get_caps_process();
	if (capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE)
		cell_fail("verify capabilities", EPERM);
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++) {
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 0)
			cell_fail("verify bounding set", EPERM);
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) > 0)
			cell_fail("verify ambient set", EPERM);
	}
}

static void build_exec(const struct cell_spec *s, char **argv, size_t argv_cap, char **envp,
		       size_t env_cap, char *code_path, size_t code_cap)
{
	const struct policy_profile *prof = s->prof;
	snprintf(code_path, code_cap, CELL_CODE_DIR "/%s", prof->code_name);
	size_t a = 0;
	argv[a++] = (char *)prof->interpreter;
	for (size_t i = 0; i < prof->nargs && a + 1 < argv_cap; i++)
		argv[a++] = strcmp(prof->args[i], "{code}") == 0 ? code_path
								 : (char *)prof->args[i];
	argv[a] = NULL;
	size_t e = 0;
	for (size_t i = 0; i < prof->nenv && e + 1 < env_cap; i++)
		envp[e++] = (char *)prof->env[i];
	for (size_t i = 0; i < s->nreq_env && e + 1 < env_cap; i++)
		envp[e++] = (char *)s->req_env[i];
	envp[e] = NULL;
}

/* PID 1 of the job: fork the interpreter, reap everything, report the
 * interpreter's status.  Signals from inside the namespace cannot reach us
 * (init without handlers), and we are not dumpable, so the job can neither
 * stop nor read us. */
static noreturn void run_init(const struct cell_spec *s)
{
	char *argv[POLICY_MAX_ARGS + 2];
	char *envp[2 * IPC_MAX_ENV + 1];
	char code_path[IPC_MAX_PATH + 16];
	build_exec(s, argv, sizeof(argv) / sizeof(argv[0]), envp, sizeof(envp) / sizeof(envp[0]),
		   code_path, sizeof(code_path));

	/* vfork: init is a copy of the whole jailer and the child only execs,
	 * so sharing memory until exec saves copying it (~0.15 ms a job).  The
	 * child calls nothing but prctl, execve and, on failure, write/_exit. */
	pid_t child = vfork();
	if (child < 0)
		cell_fail("fork interpreter", errno);
	if (child == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
			cell_fail("pdeathsig", errno);
		execve(argv[0], argv, envp);
		cell_fail(argv[0], errno);
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		cell_fail("set non-dumpable", errno);
	close(FD_ERR);
	/* Init has nothing to say on the job's streams; holding them would
	 * delay the gateway's EOF until the namespaces are torn down. */
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			_exit(124); /* ECHILD without our child: cannot happen */
		}
		if (p == child) {
			ssize_t w;
			do
				w = write(FD_STATUS, &st, sizeof(st));
			while (w < 0 && errno == EINTR);
			_exit(0);
		}
	}
}

noreturn void cell_main(const struct cell_spec *s)
{
	err_fd = s->err_wr;
	/* Before anything of the job can run and read /proc/1/cmdline. */
	proctitle_set("cellgate-init");
	wait_for_release(s->sync_rd);
	become_ns_root();
	/* The cgroup namespace is rooted at the job's cgroup, which we are in
	 * only now (v1 attaches after clone), so it is created here. */
	MUST("unshare cgroup namespace", unshare(CLONE_NEWCGROUP));

	int code_fd;
	arrange_fds(s, &code_fd);
	struct cell_spec local = *s;
	local.code_fd = code_fd;

	char what[128] = "";
	int rc = cell_fs_build(&local, what, sizeof(what));
	if (rc < 0)
		cell_fail(what, rc);
	close(code_fd);

	if (s->new_netns)
		loopback_up();
	MUST("sethostname", sethostname(s->pol->hostname, strlen(s->pol->hostname)));
	MUST("chdir work dir", chdir(CELL_WORK_DIR));
	MUST("setsid", setsid());
	apply_rlimits(s);
	drop_privileges(s);
	/* Set after the credential change, which would reset it. */
	MUST("pdeathsig", prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0));
	MUST("no_new_privs", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		cell_fail("verify no_new_privs", EPERM);
	close_all_but_stdio_and_reports();
	rc = seccomp_policy_install(s->seccomp);
	if (rc < 0)
		cell_fail("seccomp", rc);
	run_init(s);
}
