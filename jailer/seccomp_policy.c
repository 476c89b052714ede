#include "seccomp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Calls a code runner never needs.  EPERM reads as "not allowed here" to
 * programs that probe (e.g. Python's os.unshare), which is the honest answer. */
static const char *const denied_eperm[] = {
	/* mounts and root changes */
	"mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick",
	"move_mount", "open_tree", "mount_setattr",
	/* namespaces: entering or creating */
	"unshare", "setns",
	/* debugging other processes, and reading their memory */
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	/* kernel attack surface with a long CVE history */
	"bpf", "perf_event_open", "userfaultfd",
	/* keyrings are not namespaced: they would let jobs talk to each other */
	"keyctl", "add_key", "request_key",
	/* watches on the shared read-only binds would show a job (and the
	 * host's) opens and reads of those files to another job */
	"inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
	/* modules, kexec, reboot, swap, accounting, quotas, kernel log */
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog",
	/* file handles bypass the mount namespace (the "shocker" escape) */
	"open_by_handle_at", "name_to_handle_at",
	/* clocks are global to the host */
	"clock_settime", "clock_adjtime", "settimeofday", "adjtimex",
	/* raw hardware and legacy oddities */
	"iopl", "ioperm", "vhangup", "uselib", "lookup_dcookie", "nfsservctl", "_sysctl",
	"sysfs", "ustat",
};

/* io_uring can create sockets and open files without passing the filters
 * on socket()/open(), and clone3 takes its flags in memory seccomp cannot
 * read: answer ENOSYS so libc and runtimes fall back to the checked calls. */
static const char *const denied_enosys[] = {
	"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register",
};

static int deny_names(scmp_filter_ctx ctx, const char *const *names, size_t n, int err)
{
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not a syscall on this architecture */
		int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int deny_clone_namespaces(scmp_filter_ctx ctx)
{
	static const unsigned long ns_flags[] = {
		CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
		CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP, CLONE_NEWTIME,
	};
	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					  SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The kernel compares ioctl request numbers as 32-bit values: compare only
 * the low 32 bits, or setting high bits walks past the rule (CVE-2019-10063). */
static int deny_tty_injection(scmp_filter_ctx ctx)
{
	static const unsigned long cmds[] = {TIOCSTI, TIOCLINUX};
	for (size_t i = 0; i < 2; i++) {
		int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
					  SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, cmds[i]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Locks and change notifications live on inodes, and the read-only binds
 * and /dev's nodes are the same inodes in every cell and on the host:
 *  - dnotify (F_NOTIFY) on a shared directory would signal one job each
 *    time another job, or the host, reads or writes there: refused, like
 *    inotify;
 *  - a lease (F_SETLEASE) breaks on other openers: refused;
 *  - record locks and flock would let one job hold what another waits
 *    for, a channel and a denial of service between jobs.  Refusing them
 *    (isolate's choice) breaks SQLite on the job's own /tmp files, so they
 *    succeed without taking a lock.  Within one job, locks do not exclude.
 *    F_GETLK stays real: it can only ever see the host's locks.
 * fcntl's command is compared on its low 32 bits, as the kernel reads it. */
static int isolate_inode_locks(scmp_filter_ctx ctx)
{
	static const struct {
		unsigned long cmd;
		int err;
	} cmds[] = {
	    {F_NOTIFY, EPERM},	 {F_SETLEASE, EPERM},  {F_SETLK, 0},
	    {F_SETLKW, 0},	 {F_OFD_SETLK, 0},     {F_OFD_SETLKW, 0},
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(cmds[i].err), SCMP_SYS(fcntl), 1,
					  SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, cmds[i].cmd));
		if (rc < 0)
			return rc;
	}
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(flock), 0);
}

/* Only AF_UNIX, AF_INET and AF_INET6: no netlink, packet, vsock (host-wide
 * scope), bluetooth, ...  Families 0 and 3..9 sit between the allowed ones. */
static int restrict_socket_families(scmp_filter_ctx ctx)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
				  SCMP_A0(SCMP_CMP_GT, AF_INET6));
	if (rc < 0)
		return rc;
	for (int fam = 0; fam < AF_INET6; fam++) {
		if (fam == AF_UNIX || fam == AF_INET)
			continue;
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* libseccomp 2.5 can only export to an fd: go through a memfd. */
static int export_program(scmp_filter_ctx ctx, struct sock_fprog *out)
{
	int fd = memfd_create("cellgate-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = seccomp_export_bpf(ctx, fd);
	off_t size = rc < 0 ? 0 : lseek(fd, 0, SEEK_END);
	if (rc >= 0 && (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
			size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS))
		rc = -EINVAL;
	struct sock_filter *insns = rc < 0 ? NULL : malloc((size_t)size);
	if (rc >= 0 && !insns)
		rc = -ENOMEM;
	if (rc >= 0 && pread(fd, insns, (size_t)size, 0) != size)
		rc = -EIO;
	close(fd);
	if (rc < 0) {
		free(insns);
		return rc;
	}
	out->filter = insns;
	out->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	return 0;
}

int seccomp_policy_install(const struct sock_fprog *prog)
{
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return -EPERM;
	if (!prog->filter || prog->len == 0)
		return -EINVAL;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) < 0)
		return -errno;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != SECCOMP_MODE_FILTER)
		return -EPERM;
	return 0;
}

int seccomp_policy_compile(struct sock_fprog *out)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	int rc;
	/* seccomp_init adds only the native arch; a syscall from any other ABI
	 * (i386 via int 0x80, x32) hits the bad-arch action: kill the process. */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0)
		goto out;
	if ((rc = deny_names(ctx, denied_eperm, sizeof(denied_eperm) / sizeof(denied_eperm[0]),
			     EPERM)) < 0)
		goto out;
	if ((rc = deny_names(ctx, denied_enosys,
			     sizeof(denied_enosys) / sizeof(denied_enosys[0]), ENOSYS)) < 0)
		goto out;
	if ((rc = deny_clone_namespaces(ctx)) < 0)
		goto out;
	if ((rc = deny_tty_injection(ctx)) < 0)
		goto out;
	if ((rc = isolate_inode_locks(ctx)) < 0)
		goto out;
	if ((rc = restrict_socket_families(ctx)) < 0)
		goto out;
	rc = export_program(ctx, out);
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}
