#include "cell_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cell.h"

/* Where the new root is assembled, inside our private mount namespace only:
 * the host never sees this mount. */
#define NEWROOT "/tmp"

#define STEP(what_, expr_)                                                                 \
	do {                                                                               \
		if ((expr_) < 0) {                                                         \
			int e_ = errno;                                                    \
			snprintf(what, whatlen, "%s", (what_));                            \
			return -e_;                                                        \
		}                                                                          \
	} while (0)

static int path_in_root(char *out, size_t cap, const char *path)
{
	int n = snprintf(out, cap, "%s%s", NEWROOT, path);
	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* mkdir -p below NEWROOT.  Only our own fresh tmpfs is walked, so there is
 * nothing a sandbox could have planted here yet. */
static int mkdir_p(const char *abs_in_root, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(abs_in_root);
	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, abs_in_root, len + 1);
	for (char *p = buf + strlen(NEWROOT) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int write_file(const char *abs_in_root, const char *content, mode_t mode)
{
	int fd = open(abs_in_root, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -1;
	size_t len = strlen(content), off = 0;
	while (off < len) {
		ssize_t w = write(fd, content + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		off += (size_t)w;
	}
	return close(fd);
}

/* Flags a bind must keep when remounted inside a user namespace: the kernel
 * locks them, and a remount that drops one fails with EPERM. */
static unsigned long locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long fl = 0;
	if (statvfs(path, &sv) < 0)
		return 0;
	if (sv.f_flag & ST_NOEXEC)
		fl |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		fl |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		fl |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		fl |= MS_RELATIME;
	return fl;
}

static int bind_ro(const char *src, const char *dst, unsigned long extra)
{
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	unsigned long fl = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | extra |
			   locked_flags(dst);
	return mount(NULL, dst, NULL, fl, NULL);
}

/* One read-only path of the profile.  A host symlink (e.g. Debian's
 * /lib -> usr/lib) becomes the same symlink in the cell, so binds never
 * traverse a link; a missing path is skipped (profiles list /lib64 etc. for
 * portability; the interpreter's own presence is checked at exec). */
static int add_ro_path(const char *path, char *what, size_t whatlen)
{
	char dst[PATH_MAX];
	struct stat st;
	STEP(path, path_in_root(dst, sizeof(dst), path));
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(what, whatlen, "stat %s", path);
		return -errno;
	}
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", dst);
	char *slash = strrchr(parent, '/');
	if (slash && slash > parent + strlen(NEWROOT)) {
		*slash = '\0';
		STEP("mkdir for bind", mkdir_p(parent, 0755));
	}
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		STEP("readlink", n);
		target[n] = '\0';
		STEP("symlink", symlink(target, dst));
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		STEP("mkdir for bind", mkdir_p(dst, 0755));
	} else {
		STEP("create bind target", write_file(dst, "", 0444));
	}
	snprintf(what, whatlen, "bind %s", path);
	if (bind_ro(path, dst, 0) < 0)
		return -errno;
	return 0;
}

static int mount_tmpfs(const char *dst, size_t bytes, const char *mode, unsigned long flags)
{
	char opts[128];
	snprintf(opts, sizeof(opts), "size=%zu,mode=%s,nr_inodes=%zu", bytes, mode,
		 bytes / 1024 < 1024 ? (size_t)1024 : bytes / 1024);
	return mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | flags, opts);
}

static int build_dev(char *what, size_t whatlen)
{
	static const char *const nodes[] = {"null", "zero", "full", "random", "urandom"};
	char p[PATH_MAX];
	STEP("mkdir /dev", mkdir_p(NEWROOT "/dev", 0755));
	STEP("tmpfs /dev", mount_tmpfs(NEWROOT "/dev", 64 * 1024, "0755", MS_NOEXEC));
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		char src[64];
		snprintf(src, sizeof(src), "/dev/%s", nodes[i]);
		snprintf(p, sizeof(p), NEWROOT "/dev/%s", nodes[i]);
		STEP("create /dev node", write_file(p, "", 0666));
		/* nosuid + noexec; device access must stay (no MS_NODEV). */
		snprintf(what, whatlen, "bind %s", src);
		if (mount(src, p, NULL, MS_BIND, NULL) < 0)
			return -errno;
		if (mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NOEXEC, NULL) < 0)
			return -errno;
	}
	STEP("symlink /dev/fd", symlink("/proc/self/fd", NEWROOT "/dev/fd"));
	STEP("symlink /dev/stdin", symlink("/proc/self/fd/0", NEWROOT "/dev/stdin"));
	STEP("symlink /dev/stdout", symlink("/proc/self/fd/1", NEWROOT "/dev/stdout"));
	STEP("symlink /dev/stderr", symlink("/proc/self/fd/2", NEWROOT "/dev/stderr"));
	STEP("mkdir /dev/shm", mkdir_p(NEWROOT "/dev/shm", 01777));
	return 0;
}

static int write_etc(const struct cell_spec *spec, char *what, size_t whatlen)
{
	char buf[512];
	STEP("mkdir /etc", mkdir_p(NEWROOT "/etc", 0755));
	snprintf(buf, sizeof(buf),
		 "root:x:0:0:root:/:/usr/sbin/nologin\n"
		 "sandbox:x:%u:%u:sandbox:" CELL_WORK_DIR ":/usr/sbin/nologin\n"
		 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
		 (unsigned)spec->pol->sandbox_uid, (unsigned)spec->pol->sandbox_gid);
	STEP("write /etc/passwd", write_file(NEWROOT "/etc/passwd", buf, 0444));
	snprintf(buf, sizeof(buf), "root:x:0:\nsandbox:x:%u:\nnogroup:x:65534:\n",
		 (unsigned)spec->pol->sandbox_gid);
	STEP("write /etc/group", write_file(NEWROOT "/etc/group", buf, 0444));
	snprintf(buf, sizeof(buf), "127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t%s\n",
		 spec->pol->hostname);
	STEP("write /etc/hosts", write_file(NEWROOT "/etc/hosts", buf, 0444));
	snprintf(buf, sizeof(buf), "%s\n", spec->pol->hostname);
	STEP("write /etc/hostname", write_file(NEWROOT "/etc/hostname", buf, 0444));
	return 0;
}

/* Copy the sealed code memfd into /code.  The supervisor checked seals and
 * size; we still stop at code_size so a lying fd cannot grow the copy. */
static int write_code(const struct cell_spec *spec, char *what, size_t whatlen)
{
	char p[PATH_MAX];
	STEP("mkdir /code", mkdir_p(NEWROOT CELL_CODE_DIR, 0755));
	snprintf(p, sizeof(p), NEWROOT CELL_CODE_DIR "/%s", spec->prof->code_name);
	int out = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
	STEP("create code file", out);
	size_t left = spec->code_size;
	off_t in_off = 0;
	while (left > 0) {
		/* sendfile, not copy_file_range: the kernel refuses the latter
		 * between different filesystems (memfd -> tmpfs). */
		ssize_t n = sendfile(out, spec->code_fd, &in_off, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(out);
			snprintf(what, whatlen, "copy code");
			return -e;
		}
		left -= (size_t)n;
	}
	STEP("close code file", close(out));
	return 0;
}

int cell_fs_build(const struct cell_spec *spec, char *what, size_t whatlen)
{
	const struct policy_profile *prof = spec->prof;

	/* Nothing we mount may propagate back to the host. */
	STEP("make mounts private", mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	/* The root: small, it only holds mount points, /etc and the code. */
	STEP("tmpfs root",
	     mount_tmpfs(NEWROOT, 2 * 1024 * 1024 + spec->code_size, "0755", 0));

	for (size_t i = 0; i < prof->nro_paths; i++) {
		int rc = add_ro_path(prof->ro_paths[i], what, whatlen);
		if (rc < 0)
			return rc;
	}
	/* A fresh procfs of the job's pid namespace, showing only processes. */
	STEP("mkdir /proc", mkdir_p(NEWROOT "/proc", 0555));
	snprintf(what, whatlen, "mount /proc");
	if (mount("proc", NEWROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "subset=pid") < 0)
		return -errno;

	int rc = build_dev(what, whatlen);
	if (rc < 0)
		return rc;
	STEP("mkdir /tmp", mkdir_p(NEWROOT CELL_WORK_DIR, 01777));
	STEP("tmpfs /tmp", mount_tmpfs(NEWROOT CELL_WORK_DIR, spec->lim.tmpfs_bytes, "1777", 0));
	STEP("tmpfs /dev/shm",
	     mount_tmpfs(NEWROOT "/dev/shm", spec->lim.tmpfs_bytes, "1777", MS_NOEXEC));
	/* /dev's own tmpfs never changes after this. */
	STEP("remount /dev read-only",
	     mount(NULL, NEWROOT "/dev", NULL,
		   MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));

	rc = write_etc(spec, what, whatlen);
	if (rc < 0)
		return rc;
	rc = write_code(spec, what, whatlen);
	if (rc < 0)
		return rc;

	/* Swap roots and detach the host's tree entirely. */
	STEP("chdir new root", chdir(NEWROOT));
	STEP("pivot_root", (int)syscall(SYS_pivot_root, ".", "."));
	STEP("detach old root", umount2(".", MNT_DETACH));
	STEP("chdir /", chdir("/"));
	STEP("remount root read-only",
	     mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		   NULL));
	return 0;
}
