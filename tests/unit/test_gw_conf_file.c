/* common/conf_file: reading a configuration file whole and refusing the
 * ones that could have been planted or rewritten.  (Named test_gw_* so the
 * Makefile builds it; it tests common/, which the gateway and the jailer
 * both link.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf_file.h"

static char tmpdir[64];
static char err[1024];

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		if (!strstr((hay), (needle)))                                                      \
			fail_msg("'%s' does not contain '%s'", (hay), (needle));                   \
	} while (0)

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cellgate-conffile-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const names[] = {"a.conf", "big.conf", "link.conf", "dir", "fifo"};
	char path[256];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		if (unlink(path) < 0)
			(void)rmdir(path);
	}
	return rmdir(tmpdir);
}

static const char *path_of(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static const char *write_file(const char *name, const char *text, size_t len, mode_t mode)
{
	const char *path = path_of(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
	return path;
}

static int read_with(const struct conf_file_rules *rules, const char *path, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 12345;
	err[0] = '\0';
	return conf_read_file(path, rules, buf, len, err, sizeof(err));
}

static void test_reads_whole_file(void **state)
{
	static const char text[] = "[s]\nk = v\n";
	const struct conf_file_rules rules = {.max_bytes = 64, .forbidden_mode = S_IWOTH};
	const char *path = write_file("a.conf", text, sizeof(text) - 1, 0644);
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(read_with(&rules, path, &buf, &len), 0);
	assert_int_equal(len, sizeof(text) - 1);
	assert_memory_equal(buf, text, sizeof(text)); /* with the NUL after it */
	free(buf);

	/* An empty file is an empty text. */
	path = write_file("a.conf", "", 0, 0600);
	assert_int_equal(read_with(&rules, path, &buf, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);
}

static void test_size_limit(void **state)
{
	const struct conf_file_rules rules = {.max_bytes = 100};
	char text[101];
	const char *path;
	char *buf;
	size_t len;

	(void)state;
	memset(text, 'x', sizeof(text));
	path = write_file("big.conf", text, 100, 0644);
	assert_int_equal(read_with(&rules, path, &buf, &len), 0);
	assert_int_equal(len, 100);
	free(buf);
	path = write_file("big.conf", text, 101, 0644);
	assert_int_equal(read_with(&rules, path, &buf, &len), -EFBIG);
	assert_null(buf);
	assert_int_equal(len, 12345);
	assert_contains(err, path);
	assert_contains(err, ": larger than 100 bytes");
}

static void test_refused_files(void **state)
{
	const struct conf_file_rules rules = {.max_bytes = 64, .forbidden_mode = S_IWOTH};
	const struct conf_file_rules strict = {.max_bytes = 64,
					       .forbidden_mode = S_IWGRP | S_IWOTH};
	char target[256];
	const char *path;
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(read_with(&rules, path_of("missing.conf"), &buf, &len), -ENOENT);
	assert_contains(err, "No such file");

	snprintf(target, sizeof(target), "%s", write_file("a.conf", "x", 1, 0664));
	/* Group-writable passes unless the rules forbid it too. */
	assert_int_equal(read_with(&rules, target, &buf, &len), 0);
	free(buf);
	assert_int_equal(read_with(&strict, target, &buf, &len), -EPERM);
	assert_contains(err, "writable by group or others (mode 0664)");
	write_file("a.conf", "x", 1, 0646);
	assert_int_equal(read_with(&rules, target, &buf, &len), -EPERM);
	assert_string_equal(strstr(err, ": "), ": writable by others (mode 0646)");
	assert_null(buf);

	write_file("a.conf", "x", 1, 0644);
	path = path_of("link.conf");
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(read_with(&rules, path, &buf, &len), -ELOOP);
	assert_contains(err, "is a symbolic link; refusing it");

	path = path_of("dir");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(read_with(&rules, path, &buf, &len), -EPERM);
	assert_contains(err, "not a regular file");
	/* A FIFO with no writer must not hang the read. */
	path = path_of("fifo");
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(read_with(&rules, path, &buf, &len), -EPERM);
	assert_contains(err, "not a regular file");
}

struct owner_log {
	unsigned calls;
	uid_t seen_uid;
	int answer;
};

static int judge_owner(const struct stat *st, const char *path, void *ctx, char *e, size_t elen)
{
	struct owner_log *o = ctx;

	o->calls++;
	o->seen_uid = st->st_uid;
	if (o->answer < 0)
		snprintf(e, elen, "%s: owner %u refused", path, (unsigned)st->st_uid);
	return o->answer;
}

static void test_owner_check(void **state)
{
	struct owner_log o = {.answer = 0};
	const struct conf_file_rules rules = {.max_bytes = 64,
					      .forbidden_mode = S_IWOTH,
					      .check_owner = judge_owner,
					      .owner_ctx = &o};
	const char *path = write_file("a.conf", "x", 1, 0644);
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(read_with(&rules, path, &buf, &len), 0);
	free(buf);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.seen_uid, getuid());

	o.answer = -EPERM;
	assert_int_equal(read_with(&rules, path, &buf, &len), -EPERM);
	assert_contains(err, ": owner ");
	assert_contains(err, " refused");
	assert_null(buf);

	/* The owner is judged before the mode: its reason is the one given. */
	write_file("a.conf", "x", 1, 0646);
	assert_int_equal(read_with(&rules, path, &buf, &len), -EPERM);
	assert_contains(err, "refused");
	o.answer = 0;
	assert_int_equal(read_with(&rules, path, &buf, &len), -EPERM);
	assert_contains(err, "writable by others");
	/* And not at all for what is not a regular file. */
	o.calls = 0;
	assert_int_equal(mkdir(path_of("dir"), 0755), 0);
	assert_int_equal(read_with(&rules, path_of("dir"), &buf, &len), -EPERM);
	assert_int_equal(o.calls, 0);
}

static void test_bad_arguments(void **state)
{
	const struct conf_file_rules rules = {.max_bytes = 64};
	const struct conf_file_rules zero = {.max_bytes = 0};
	const char *path = write_file("a.conf", "x", 1, 0644);
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(conf_read_file(NULL, &rules, &buf, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(conf_read_file(path, NULL, &buf, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(conf_read_file(path, &rules, NULL, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(conf_read_file(path, &rules, &buf, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(conf_read_file(path, &zero, &buf, &len, err, sizeof(err)), -EINVAL);
	/* No room for a message is fine. */
	assert_int_equal(conf_read_file(path_of("missing"), &rules, &buf, &len, NULL, 0), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_reads_whole_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_size_limit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_owner_check, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
