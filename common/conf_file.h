/* Reading a configuration file whole, refusing the files an attacker could
 * have planted or rewritten: a symlink, anything but a regular file, a file
 * with forbidden mode bits (e.g. writable by others), a file too large, and
 * optionally a file with the wrong owner. */
#ifndef CELLGATE_CONF_FILE_H
#define CELLGATE_CONF_FILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct conf_file_rules {
	size_t max_bytes;      /* a larger file is refused (-EFBIG); must be > 0 */
	mode_t forbidden_mode; /* any of these mode bits set: refused (-EPERM) */
	/* Optional, called after the file-type check and before the mode
	 * check: 0 to accept the owner in *st, or a negative errno with the
	 * reason (starting with the path) in err. */
	int (*check_owner)(const struct stat *st, const char *path, void *ctx, char *err,
			   size_t errlen);
	void *owner_ctx;
};

/* Open `path` without following a symlink or blocking on a FIFO, check it
 * against *rules, and read it whole: *buf is malloc'd and NUL-terminated,
 * *len excludes the NUL.  Returns 0 or -errno (-ELOOP symlink, -EPERM type,
 * owner or mode, -EFBIG size, -ENOENT and other open errors untouched), with
 * "PATH: reason" in err. */
int conf_read_file(const char *path, const struct conf_file_rules *rules, char **buf, size_t *len,
		   char *err, size_t errlen);

#endif
