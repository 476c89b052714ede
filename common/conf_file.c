/* Reading a configuration file safely (conf_file.h). */
#include "conf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf_value.h"

static int check_stat(const struct stat *st, const char *path, const struct conf_file_rules *rules,
		      char *err, size_t errlen)
{
	int r;

	if (!S_ISREG(st->st_mode)) {
		conf_set_err(err, errlen, "%s: not a regular file", path);
		return -EPERM;
	}
	if (rules->check_owner) {
		r = rules->check_owner(st, path, rules->owner_ctx, err, errlen);
		if (r < 0)
			return r;
	}
	if (st->st_mode & rules->forbidden_mode) {
		conf_set_err(err, errlen, "%s: writable by %s (mode %04o)", path,
			     (rules->forbidden_mode & S_IWGRP) ? "group or others" : "others",
			     (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int conf_read_file(const char *path, const struct conf_file_rules *rules, char **buf, size_t *len,
		   char *err, size_t errlen)
{
	struct stat st;
	size_t cap, got = 0;
	char *b = NULL;
	int fd, r;

	if (!path || !rules || !buf || !len || rules->max_bytes == 0 ||
	    rules->max_bytes >= SIZE_MAX - 1)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO planted at the path must not hang the open. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP)
			conf_set_err(err, errlen, "%s: is a symbolic link; refusing it", path);
		else
			conf_set_err(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		conf_set_err(err, errlen, "%s: fstat: %s", path, strerror(-r));
		goto out;
	}
	r = check_stat(&st, path, rules, err, errlen);
	if (r < 0)
		goto out;
	/* One byte more than allowed tells "exactly at the limit" from "over". */
	cap = rules->max_bytes + 1;
	b = malloc(cap + 1);
	if (!b) {
		r = -ENOMEM;
		conf_set_err(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (got < cap) {
		ssize_t n = read(fd, b + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			conf_set_err(err, errlen, "%s: read: %s", path, strerror(-r));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > rules->max_bytes) {
		r = -EFBIG;
		conf_set_err(err, errlen, "%s: larger than %zu bytes", path, rules->max_bytes);
		goto out;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	b = NULL;
	r = 0;
out:
	free(b);
	close(fd);
	return r;
}
