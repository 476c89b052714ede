/* cellgate-jailer: the privileged helper.  See DESIGN §4 and
 * cellgate-jailer --help.  Three ways in:
 *   systemd socket activation (cellgate-jailer.socket), no arguments;
 *   --fd N: the setuid helper started by the gateway with a socketpair;
 *   --listen PATH: development and tests. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "cgroup.h"
#include "fdutil.h"
#include "log.h"
#include "policy.h"
#include "proctitle.h"
#include "seccomp_policy.h"
#include "server.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cellgate-jailer [--policy FILE] [--listen PATH | --fd N]\n"
		"  (no --listen/--fd: systemd socket activation)\n"
		"  --policy FILE  policy file (default " POLICY_DEFAULT_PATH
		"; built-in defaults when absent)\n"
		"  --listen PATH  listen on a SOCK_SEQPACKET unix socket (development, tests)\n"
		"  --fd N         serve the one connected socket N (setuid helper mode)\n"
		"  --idle-exit S  (socket activation only) exit after S seconds with no\n"
		"                 connection and no job; the socket starts it again\n"
		"  --check        load and validate the policy, print a summary, exit\n");
}

/* Invoked through the setuid bit: the caller controls our environment,
 * arguments and inherited fds.  Trust none of it. */
static void setuid_hardening(void)
{
	/* Not dumpable: the caller must never ptrace or read us. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		fatal("PR_SET_DUMPABLE: %s", strerror(errno));
	if (clearenv() != 0)
		fatal("clearenv failed");
	if (setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1) < 0)
		fatal("setenv failed");
	umask(022);
	/* A caller may start us with 0-2 closed so that our next open() lands
	 * there; pin them to /dev/null first. */
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			fatal("cannot reopen standard descriptors");
	}
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		fatal("--listen: path too long");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fatal("socket: %s", strerror(errno));
	struct stat st;
	/* Replace a stale socket from a previous run, never anything else. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			fatal("--listen %s: exists and is not a socket", path);
		if (unlink(path) < 0)
			fatal("unlink %s: %s", path, strerror(errno));
	}
	mode_t old = umask(0117); /* socket mode 0660 */
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0)
		fatal("bind %s: %s", path, strerror(errno));
	if (listen(fd, 64) < 0)
		fatal("listen: %s", strerror(errno));
	return fd;
}

static void print_summary(const struct policy *p, const struct cg_root *cg)
{
	printf("policy ok: %zu profile(s), max_jobs %u, uids %u..%u, cgroup v%d\n", p->nprofiles,
	       p->max_jobs, (unsigned)p->uid_base, (unsigned)(p->uid_base + p->uid_count - 1),
	       cg ? (int)cg->version : 0);
	for (size_t i = 0; i < p->nprofiles; i++)
		printf("  %s: %s (%s)\n", p->profiles[i].name, p->profiles[i].interpreter,
		       p->profiles[i].language);
}

int main(int argc, char **argv)
{
	/* Decided once, before anything else, from the kernel's view of how we
	 * were started; never re-derived later (bubblewrap CVE-2020-5291). */
	const bool setuid_mode = getuid() != geteuid();
	const uid_t caller = getuid();
	proctitle_init(argc, argv);
	if (setuid_mode)
		setuid_hardening();

	const char *policy_path = NULL, *listen_path = NULL;
	int conn_fd = -1;
	unsigned idle_exit_s = 0;
	bool check = false;
	static const struct option opts[] = {
		{"policy", required_argument, NULL, 'p'}, {"listen", required_argument, NULL, 'l'},
		{"fd", required_argument, NULL, 'f'},     {"check", no_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
		{"idle-exit", required_argument, NULL, 'i'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			policy_path = optarg;
			break;
		case 'l':
			listen_path = optarg;
			break;
		case 'f': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || *end || v < 3 || v > 65535)
				fatal("--fd: expected a descriptor number >= 3");
			conn_fd = (int)v;
			break;
		}
		case 'c':
			check = true;
			break;
		case 'i': {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 || v > 86400)
				fatal("--idle-exit: expected seconds, 1-86400");
			idle_exit_s = (unsigned)v;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("cellgate-jailer %s\n", CELLGATE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (setuid_mode && (policy_path || listen_path || conn_fd < 0 || idle_exit_s))
		fatal("started setuid: only --fd N is accepted, with the installed policy");
	if (listen_path && conn_fd >= 0)
		fatal("--listen and --fd exclude each other");
	/* Exiting when idle is only safe when something starts us again. */
	if (idle_exit_s && (listen_path || conn_fd >= 0))
		fatal("--idle-exit needs socket activation (no --listen, no --fd)");
	if (geteuid() != 0)
		fatal("must run as root (socket-activated service, setuid helper, or sudo)");
	if (setuid_mode && setresuid(0, 0, 0) < 0)
		fatal("setresuid: %s", strerror(errno));

	static struct policy pol;
	char err[512];
	const char *path = policy_path ? policy_path : POLICY_DEFAULT_PATH;
	int rc = policy_load(path, !listen_path || setuid_mode, caller, &pol, err, sizeof(err));
	if (rc == -ENOENT && !policy_path) {
		policy_defaults(&pol, caller);
	} else if (rc < 0) {
		fatal("policy %s: %s", path, err[0] ? err : strerror(-rc));
	}

	static struct cg_root cg;
	err[0] = '\0';
	rc = cg_root_init(&cg, pol.cgroup, "/sys/fs/cgroup", pol.cgroup_root, err, sizeof(err));
	if (rc < 0)
		fatal("cgroups: %s", err);
	if (err[0])
		log_info("cgroups: %s", err);
	if (check) {
		print_summary(&pol, &cg);
		cg_root_release(&cg);
		return 0;
	}
	if (cg.version == CG_V1 && pol.v1_favordynmods) {
		rc = cg_v1_enable_favordynmods(err, sizeof(err));
		if (rc < 0)
			log_warn("favordynmods not enabled (v1 attach may stall after idle gaps): %s",
				 err);
	}
	rc = cg_sweep_stale(&cg);
	if (rc > 0)
		log_info("removed %d stale job cgroup(s)", rc);

	static struct sock_fprog seccomp;
	rc = seccomp_policy_compile(&seccomp);
	if (rc < 0)
		fatal("compiling the seccomp filter: %s", strerror(-rc));
	struct server_config cfg = {
		.pol = &pol, .cg = &cg, .seccomp = &seccomp, .listen_fd = -1, .conn_fd = -1};
	if (conn_fd >= 0) {
		struct ucred cred;
		gid_t groups[PEER_MAX_GROUPS];
		size_t ngroups = 0;
		int type = 0;
		socklen_t tlen = sizeof(type);
		if (getsockopt(conn_fd, SOL_SOCKET, SO_TYPE, &type, &tlen) < 0 ||
		    type != SOCK_SEQPACKET)
			fatal("--fd %d: not a SOCK_SEQPACKET socket", conn_fd);
		if (peer_credentials(conn_fd, &cred, groups, &ngroups) < 0 ||
		    !policy_peer_allowed(&pol, cred.uid, cred.gid, groups, ngroups))
			fatal("--fd %d: peer not allowed by policy", conn_fd);
		int keep[] = {conn_fd};
		if (close_fds_except(keep, 1) < 0)
			fatal("closing inherited descriptors failed");
		cfg.conn_fd = conn_fd;
	} else if (listen_path) {
		cfg.listen_fd = listen_on(listen_path);
	} else {
		int n = sd_listen_fds(1);
		if (n != 1)
			fatal("no socket: give --listen PATH or --fd N, or start via "
			      "cellgate-jailer.socket");
		if (sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_SEQPACKET, 1, NULL, 0) <= 0)
			fatal("the activated socket is not a listening SOCK_SEQPACKET unix socket");
		cfg.listen_fd = SD_LISTEN_FDS_START;
		cfg.idle_exit_s = idle_exit_s;
	}
	log_info("ready (%s, cgroup v%d, %zu profile(s))",
		 conn_fd >= 0 ? "fd" : listen_path ? "listen" : "socket-activated", (int)cg.version,
		 pol.nprofiles);
	/* Type=notify.  Never as the setuid helper (--fd): its environment
	 * is the caller's to choose, and it has been cleared anyway. */
	if (conn_fd < 0) {
		int nrc = sd_notify(0, "READY=1");
		if (nrc < 0)
			log_warn("systemd notification failed: %s", strerror(-nrc));
	}
	rc = server_run(&cfg);
	cg_root_release(&cg);
	return rc;
}
