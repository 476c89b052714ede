/* Unit tests for jailer/policy.c: defaults, the INI parser and every
 * rejection, limit resolution, environment and peer checks, file loading. */
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

#include "policy.h"

#define STARTER 4242u

static struct policy *P; /* struct policy is large: keep it off the stack */
static struct policy *P2;
static char err[1024];

static int group_setup(void **state)
{
	(void)state;
	P = calloc(1, sizeof(*P));
	P2 = calloc(1, sizeof(*P2));
	return P && P2 ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	free(P);
	free(P2);
	return 0;
}

static int parse(const char *text)
{
	err[0] = '\0';
	return policy_parse(text, strlen(text), STARTER, P, err, sizeof(err));
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' does not contain '%s'", hay, needle);
}

/* ---- defaults ---- */

static void test_defaults_valid(void **state)
{
	(void)state;
	policy_defaults(P, STARTER);
	assert_int_equal(policy_validate(P, err, sizeof(err)), 0);
	assert_int_equal(P->nallow_uids, 1);
	assert_int_equal(P->allow_uids[0], STARTER);
	assert_int_equal(P->nallow_gids, 0);
	assert_int_equal(P->uid_base, 2000000000u);
	assert_int_equal(P->gid_base, 2000000000u);
	assert_int_equal(P->uid_count, 256);
	assert_int_equal(P->max_jobs, 64);
	assert_int_equal(P->sandbox_uid, 1000);
	assert_int_equal(P->sandbox_gid, 1000);
	assert_string_equal(P->hostname, "cellgate");
	assert_int_equal(P->cgroup, CGROUP_AUTO);
	assert_string_equal(P->cgroup_root, "");
	assert_true(P->v1_favordynmods);
	assert_int_equal(P->nprofiles, 2);

	const struct policy_profile *py = policy_find_profile(P, "python");
	const struct policy_profile *js = policy_find_profile(P, "javascript");
	assert_non_null(py);
	assert_non_null(js);
	assert_string_equal(py->language, "python");
	assert_string_equal(py->interpreter, "/usr/bin/python3");
	assert_int_equal(py->nargs, 4);
	assert_string_equal(py->args[0], "-I");
	assert_string_equal(py->args[1], "-B");
	assert_string_equal(py->args[2], "-u");
	assert_string_equal(py->args[3], "{code}");
	assert_string_equal(py->code_name, "main.py");
	assert_int_equal(py->nenv, 4);
	assert_string_equal(py->env[3], "PYTHONDONTWRITEBYTECODE=1");
	assert_int_equal(py->nenv_allow, 0);
	assert_int_equal(py->nro_paths, 6);
	assert_string_equal(py->ro_paths[0], "/usr");
	assert_string_equal(py->ro_paths[5], "/etc/alternatives");
	assert_int_equal(py->defaults.wall_ms, 10000);
	assert_int_equal(py->defaults.cpu_ms, 10000);
	assert_int_equal(py->defaults.memory_bytes, 256u << 20);
	assert_int_equal(py->defaults.pids, 64);
	assert_int_equal(py->defaults.tmpfs_bytes, 64u << 20);
	assert_int_equal(py->defaults.output_bytes, 1u << 20);
	assert_int_equal(py->maximum.wall_ms, 60000);
	assert_int_equal(py->maximum.cpu_ms, 60000);
	assert_int_equal(py->maximum.memory_bytes, 1u << 30);
	assert_int_equal(py->maximum.pids, 256);
	assert_int_equal(py->maximum.tmpfs_bytes, 256u << 20);
	assert_int_equal(py->maximum.output_bytes, 8u << 20);
	assert_false(py->network);

	assert_string_equal(js->language, "javascript");
	assert_string_equal(js->interpreter, "/usr/bin/node");
	assert_int_equal(js->nargs, 1);
	assert_string_equal(js->args[0], "{code}");
	assert_string_equal(js->code_name, "main.js");
	assert_int_equal(js->nenv, 3);
	assert_string_equal(js->env[0], "PATH=/usr/bin:/bin");
	assert_string_equal(js->env[1], "HOME=/tmp");
	assert_string_equal(js->env[2], "LANG=C.UTF-8");
	assert_memory_equal(&js->maximum, &py->maximum, sizeof(py->maximum));
	assert_false(js->network);
}

static void test_empty_text_gives_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse("# nothing\n\n  ; also nothing\n"), 0);
	policy_defaults(P2, STARTER);
	assert_memory_equal(P, P2, sizeof(*P));
}

/* etc/jailer.conf from the source tree, wherever the test is started. */
static char *read_example(size_t *len)
{
	char exe[4096], path[4096 + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *candidates[3] = {"etc/jailer.conf", "../etc/jailer.conf", path};
	FILE *f = NULL;
	char *buf;

	path[0] = '\0';
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strstr(exe, "/build/tests/");
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/etc/jailer.conf", exe);
		}
	}
	for (int i = 0; i < 3 && !f; i++)
		if (candidates[i][0])
			f = fopen(candidates[i], "r");
	if (!f)
		return NULL;
	buf = calloc(1, POLICY_MAX_FILE_BYTES + 1);
	*len = buf ? fread(buf, 1, POLICY_MAX_FILE_BYTES, f) : 0;
	fclose(f);
	return buf;
}

static void test_example_file_equals_defaults(void **state)
{
	size_t len = 0;
	char *text = read_example(&len);

	(void)state;
	assert_non_null(text);
	assert_true(len > 1000);
	assert_int_equal(policy_parse(text, len, STARTER, P, err, sizeof(err)), 0);
	policy_defaults(P2, STARTER);
	assert_memory_equal(P, P2, sizeof(*P));
	free(text);
}

/* ---- accepted syntax ---- */

static void test_units_and_overrides(void **state)
{
	(void)state;
	assert_int_equal(parse("[global]\n"
			       "  uid_count = 16  \r\n"
			       "max_jobs=8\n"
			       "hostname = box-1.example\n"
			       "cgroup = v2\n"
			       "cgroup_root = /sys/fs/cgroup/cellgate.slice\n"
			       "v1_favordynmods = false\n"
			       "[profile python]\n"
			       "default_wall_ms = 1500ms\n"
			       "max_wall_ms = 2s\n"
			       "default_cpu_ms = 1500\n"
			       "default_memory = 512K\n"
			       "max_memory = 2G\n"
			       "default_tmpfs = 1048576\n"
			       "max_output = 3m\n"
			       "network = yes\n"
			       "env_allow = TZ\n"
			       "env_allow = MY_VAR\n"),
			 0);
	assert_int_equal(P->uid_count, 16);
	assert_int_equal(P->max_jobs, 8);
	assert_string_equal(P->hostname, "box-1.example");
	assert_int_equal(P->cgroup, CGROUP_V2);
	assert_string_equal(P->cgroup_root, "/sys/fs/cgroup/cellgate.slice");
	assert_false(P->v1_favordynmods);
	/* Only the named profile exists now. */
	assert_int_equal(P->nprofiles, 1);
	assert_null(policy_find_profile(P, "javascript"));
	const struct policy_profile *py = policy_find_profile(P, "python");
	assert_non_null(py);
	assert_int_equal(py->defaults.wall_ms, 1500);
	assert_int_equal(py->maximum.wall_ms, 2000);
	assert_int_equal(py->defaults.cpu_ms, 1500);
	assert_int_equal(py->defaults.memory_bytes, 512u * 1024);
	assert_int_equal(py->maximum.memory_bytes, 2ull << 30);
	assert_int_equal(py->defaults.tmpfs_bytes, 1048576);
	assert_int_equal(py->maximum.output_bytes, 3u << 20);
	assert_true(py->network);
	/* Untouched keys keep the built-in values. */
	assert_string_equal(py->interpreter, "/usr/bin/python3");
	assert_int_equal(py->nargs, 4);
	assert_int_equal(py->maximum.pids, 256);
	assert_int_equal(py->nenv_allow, 2);
	assert_string_equal(py->env_allow[1], "MY_VAR");
}

static void test_lists_replace_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse("[profile javascript]\n"
			       "arg = --max-old-space-size=128\n"
			       "arg = {code}\n"
			       "ro_path = /usr\n"
			       "ro_path = /lib\n"
			       "env = LANG=C\n"
			       "[profile python]\n"),
			 0);
	assert_int_equal(P->nprofiles, 2);
	assert_string_equal(P->profiles[0].name, "javascript");
	const struct policy_profile *js = &P->profiles[0];
	assert_int_equal(js->nargs, 2);
	assert_string_equal(js->args[0], "--max-old-space-size=128");
	assert_int_equal(js->nro_paths, 2);
	assert_string_equal(js->ro_paths[1], "/lib");
	assert_int_equal(js->nenv, 1);
	assert_string_equal(js->env[0], "LANG=C");
	/* Replaced lists leave no stale bytes behind. */
	assert_string_equal(js->ro_paths[2], "");
	assert_string_equal(js->args[2], "");
	/* A bare section keeps the built-in profile. */
	assert_int_equal(P->profiles[1].nargs, 4);
}

static void test_new_profile(void **state)
{
	(void)state;
	assert_int_equal(parse("[profile ruby]\n"
			       "language = ruby\n"
			       "interpreter = /usr/bin/ruby\n"
			       "code_name = main.rb\n"),
			 0);
	assert_int_equal(P->nprofiles, 1);
	const struct policy_profile *rb = policy_find_profile(P, "ruby");
	assert_non_null(rb);
	assert_string_equal(rb->language, "ruby");
	assert_int_equal(rb->nargs, 1);
	assert_string_equal(rb->args[0], "{code}");
	assert_int_equal(rb->nro_paths, 6);
	assert_int_equal(rb->nenv, 3);
	assert_int_equal(rb->defaults.memory_bytes, 256u << 20);
	assert_int_equal(rb->maximum.pids, 256);
	assert_false(rb->network);
}

static void test_allow_ids_by_name(void **state)
{
	(void)state;
	assert_int_equal(parse("[global]\nallow_uid = root\nallow_uid = 1234\nallow_gid = root\n"),
			 0);
	assert_int_equal(P->nallow_uids, 2);
	assert_int_equal(P->allow_uids[0], 0);
	assert_int_equal(P->allow_uids[1], 1234);
	assert_int_equal(P->nallow_gids, 1);
	assert_int_equal(P->allow_gids[0], 0);
	/* The starter-only default was replaced. */
	assert_false(policy_peer_allowed(P, STARTER, STARTER, NULL, 0));
}

/* ---- rejections: every one names the line (or profile) and the key ---- */

struct reject {
	const char *text;
	const char *where; /* "line N" or "profile 'p'" or "global" */
	const char *key;   /* "key 'k'" or another required fragment */
};

static const struct reject rejects[] = {
    /* structure */
    {"[foo]\n", "line 1", "unknown section"},
    {"[global]\n[global]\n", "line 2", "twice"},
    {"[profile python]\n[profile python]\n", "line 2", "twice"},
    {"[profile Py]\n", "line 1", "name"},
    {"[global\n", "line 1", "malformed"},
    {"[global]\njust some text\n", "line 2", "malformed"},
    {"[global]\n= 5\n", "line 2", "malformed"},
    {"[global]\nUID_count = 5\n", "line 2", "malformed key"},
    {"uid_count = 5\n", "line 1", "key 'uid_count'"},
    {"[global]\nbogus = 1\n", "line 2", "key 'bogus'"},
    {"[profile python]\nuid_count = 1\n", "line 2", "key 'uid_count'"},
    {"[profile python]\nwall_ms = 5\n", "line 2", "key 'wall_ms'"},
    {"[global]\nmax_wall_ms = 5\n", "line 2", "key 'max_wall_ms'"},
    {"[global]\nhostname = \n", "line 2", "key 'hostname'"},
    {"[global]\nhostname = a\x01"
     "b\n",
     "line 2", "control"},
    /* duplicates */
    {"[global]\nuid_count = 10\nuid_count = 20\n", "line 3", "key 'uid_count'"},
    {"[profile python]\nmax_memory = 1G\nmax_memory = 1G\n", "line 3", "key 'max_memory'"},
    {"[profile python]\ninterpreter = /usr/bin/python3\ninterpreter = /usr/bin/python3\n", "line 3",
     "key 'interpreter'"},
    {"[profile python]\nenv_allow = TZ\nenv_allow = TZ\n", "line 3", "key 'env_allow'"},
    {"[profile python]\nro_path = /usr\nro_path = /usr\n", "line 3", "key 'ro_path'"},
    {"[profile python]\nenv = A=1\nenv = A=2\n", "line 3", "key 'env'"},
    /* numbers */
    {"[global]\nuid_count = -1\n", "line 2", "key 'uid_count'"},
    {"[global]\nuid_count = 99999999999999999999999\n", "line 2", "key 'uid_count'"},
    {"[global]\nuid_count = 4294967296\n", "line 2", "key 'uid_count'"},
    {"[global]\nuid_count = 12abc\n", "line 2", "key 'uid_count'"},
    {"[global]\nuid_count = 0\n", "line 2", "key 'uid_count'"},
    {"[global]\nmax_jobs = 0\n", "line 2", "key 'max_jobs'"},
    {"[global]\nuid_count = 8\nmax_jobs = 5\n", "global", "key 'max_jobs'"},
    {"[profile python]\ndefault_memory = 12X\n", "line 2", "key 'default_memory'"},
    {"[profile python]\ndefault_memory = 12KB\n", "line 2", "key 'default_memory'"},
    {"[profile python]\ndefault_memory = -5M\n", "line 2", "key 'default_memory'"},
    {"[profile python]\nmax_memory = 17179869184G\n", "line 2", "key 'max_memory'"},
    {"[profile python]\nmax_memory = 2T\n", "line 2", "key 'max_memory'"},
    {"[profile python]\nmax_memory = 2048G\n", "line 2", "key 'max_memory'"},
    {"[profile python]\ndefault_wall_ms = 10min\n", "line 2", "key 'default_wall_ms'"},
    {"[profile python]\ndefault_wall_ms = 10 s\n", "line 2", "key 'default_wall_ms'"},
    {"[profile python]\nmax_cpu_ms = 18446744073709551615s\n", "line 2", "key 'max_cpu_ms'"},
    {"[profile python]\nmax_pids = 5000000\n", "line 2", "key 'max_pids'"},
    {"[profile python]\ndefault_pids = 1.5\n", "line 2", "key 'default_pids'"},
    /* zero limits */
    {"[profile python]\ndefault_pids = 0\n", "line 2", "key 'default_pids'"},
    {"[profile python]\nmax_wall_ms = 0s\n", "line 2", "key 'max_wall_ms'"},
    {"[profile python]\ndefault_output = 0K\n", "line 2", "key 'default_output'"},
    /* default > max, per field */
    {"[profile python]\ndefault_memory = 2G\n", "profile 'python'", "key 'default_memory'"},
    {"[profile python]\ndefault_wall_ms = 61s\n", "profile 'python'", "key 'default_wall_ms'"},
    {"[profile python]\ndefault_cpu_ms = 60001\n", "profile 'python'", "key 'default_cpu_ms'"},
    {"[profile python]\ndefault_pids = 257\n", "profile 'python'", "key 'default_pids'"},
    {"[profile python]\nmax_tmpfs = 1M\n", "profile 'python'", "key 'default_tmpfs'"},
    {"[profile python]\nmax_output = 512K\n", "profile 'python'", "key 'default_output'"},
    /* id ranges */
    {"[global]\nuid_base = 1000\n", "line 2", "key 'uid_base'"},
    {"[global]\nuid_base = 65535\n", "line 2", "key 'uid_base'"},
    {"[global]\ngid_base = 0\n", "line 2", "key 'gid_base'"},
    {"[global]\nuid_base = 4294967000\nuid_count = 1000\nmax_jobs = 10\n", "global",
     "key 'uid_base'"},
    {"[global]\ngid_base = 4294967295\n", "line 2", "key 'gid_base'"},
    {"[global]\ngid_base = 4294967200\n", "global", "key 'gid_base'"},
    {"[global]\nsandbox_uid = 0\n", "line 2", "key 'sandbox_uid'"},
    {"[global]\nsandbox_gid = nobody\n", "line 2", "key 'sandbox_gid'"},
    {"[global]\nallow_uid = no_such_user_cellgate_test\n", "line 2", "key 'allow_uid'"},
    {"[global]\nallow_gid = no_such_group_cellgate_test\n", "line 2", "key 'allow_gid'"},
    {"[global]\nallow_uid = 4294967295\n", "line 2", "key 'allow_uid'"},
    /* enumerations and names */
    {"[global]\ncgroup = v3\n", "line 2", "key 'cgroup'"},
    {"[global]\nv1_favordynmods = maybe\n", "line 2", "key 'v1_favordynmods'"},
    {"[profile python]\nnetwork = 1\n", "line 2", "key 'network'"},
    {"[global]\nhostname = cell_gate\n", "line 2", "key 'hostname'"},
    {"[global]\nhostname = a b\n", "line 2", "key 'hostname'"},
    {"[profile python]\nlanguage = Python\n", "line 2", "key 'language'"},
    {"[profile python]\ncode_name = ../main.py\n", "line 2", "key 'code_name'"},
    {"[profile python]\ncode_name = .hidden\n", "line 2", "key 'code_name'"},
    {"[global]\ncgroup = v1\ncgroup_root = /abs\n", "global", "key 'cgroup_root'"},
    {"[global]\ncgroup = v2\ncgroup_root = rel\n", "global", "key 'cgroup_root'"},
    {"[global]\ncgroup_root = a/../b\n", "line 2", "key 'cgroup_root'"},
    /* paths */
    {"[profile python]\ninterpreter = usr/bin/python3\n", "line 2", "key 'interpreter'"},
    {"[profile python]\ninterpreter = /usr/../usr/bin/python3\n", "line 2", "key 'interpreter'"},
    {"[profile python]\ninterpreter = /usr//bin/python3\n", "line 2", "key 'interpreter'"},
    {"[profile python]\ninterpreter = /usr/bin/py\tthon3\n", "line 2", "key 'interpreter'"},
    {"[profile python]\ninterpreter = /usr/bin/py\xc3\xa9\n", "line 2", "key 'interpreter'"},
    {"[profile python]\ninterpreter = /opt/python3\n", "profile 'python'", "key 'interpreter'"},
    {"[profile python]\nro_path = /usrx\ninterpreter = /usr/bin/python3\n", "profile 'python'",
     "key 'interpreter'"},
    {"[profile python]\nro_path = /\n", "line 2", "key 'ro_path'"},
    {"[profile python]\nro_path = /usr/\n", "line 2", "key 'ro_path'"},
    {"[profile python]\nro_path = lib\n", "line 2", "key 'ro_path'"},
    {"[profile python]\nro_path = /a/..\n", "line 2", "key 'ro_path'"},
    /* environment */
    {"[profile python]\nenv = NOEQUALS\n", "line 2", "key 'env'"},
    {"[profile python]\nenv = =value\n", "line 2", "key 'env'"},
    {"[profile python]\nenv = 1A=x\n", "line 2", "key 'env'"},
    {"[profile python]\nenv_allow = PATH\n", "line 2", "key 'env_allow'"},
    {"[profile python]\nenv_allow = HOME\n", "line 2", "key 'env_allow'"},
    {"[profile python]\nenv_allow = LD_PRELOAD\n", "line 2", "key 'env_allow'"},
    {"[profile python]\nenv_allow = LD_LIBRARY_PATH\n", "line 2", "key 'env_allow'"},
    {"[profile python]\nenv_allow = PYTHONPATH\n", "line 2", "key 'env_allow'"},
    {"[profile python]\nenv_allow = PYTHONSTARTUP\n", "line 2", "key 'env_allow'"},
    {"[profile javascript]\nenv_allow = NODE_OPTIONS\n", "line 2", "key 'env_allow'"},
    {"[profile python]\nenv_allow = A=B\n", "line 2", "key 'env_allow'"},
    /* new profiles need language, interpreter and code_name */
    {"[profile ruby]\nlanguage = ruby\ncode_name = main.rb\n", "profile 'ruby'",
     "key 'interpreter'"},
    {"[profile ruby]\ninterpreter = /usr/bin/ruby\ncode_name = main.rb\n", "profile 'ruby'",
     "key 'language'"},
    {"[profile ruby]\nlanguage = ruby\ninterpreter = /usr/bin/ruby\n", "profile 'ruby'",
     "key 'code_name'"},
};

static void test_rejections(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
		int r = parse(rejects[i].text);

		if (r != -EINVAL)
			fail_msg("case %zu accepted (%d): %s", i, r, rejects[i].text);
		if (!strstr(err, rejects[i].where) || !strstr(err, rejects[i].key))
			fail_msg("case %zu: error '%s' lacks '%s' / '%s'", i, err, rejects[i].where,
				 rejects[i].key);
		/* A failed parse leaves nothing usable. */
		assert_int_equal(P->nprofiles, 0);
		assert_false(policy_peer_allowed(P, STARTER, STARTER, NULL, 0));
	}
}

/* head, then n lines "<pre><i><post>". */
static void build_repeated(char *buf, size_t cap, const char *head, const char *pre,
			   const char *post, int n)
{
	size_t off = (size_t)snprintf(buf, cap, "%s", head);

	for (int i = 0; i < n && off < cap; i++)
		off += (size_t)snprintf(buf + off, cap - off, "%s%d%s", pre, i, post);
	assert_true(off < cap);
}

static void test_too_many_entries(void **state)
{
	static char buf[65536];

	(void)state;
	/* Limits exactly reached are fine. */
	build_repeated(buf, sizeof(buf), "[profile python]\n", "arg = a", "\n", POLICY_MAX_ARGS);
	assert_int_equal(parse(buf), 0);
	build_repeated(buf, sizeof(buf), "[profile python]\n", "arg = a", "\n",
		       POLICY_MAX_ARGS + 1);
	assert_int_equal(parse(buf), -EINVAL);
	assert_contains(err, "line 18: key 'arg'");

	build_repeated(buf, sizeof(buf), "[profile python]\n", "ro_path = /usr/p", "\n",
		       POLICY_MAX_RO_PATHS + 1);
	assert_int_equal(parse(buf), -EINVAL);
	assert_contains(err, "line 34: key 'ro_path'");

	build_repeated(buf, sizeof(buf), "[profile python]\n", "env = V", "=1\n", IPC_MAX_ENV + 1);
	assert_int_equal(parse(buf), -EINVAL);
	assert_contains(err, "line 34: key 'env'");

	build_repeated(buf, sizeof(buf), "[profile python]\n", "env_allow = V", "\n",
		       IPC_MAX_ENV + 1);
	assert_int_equal(parse(buf), -EINVAL);
	assert_contains(err, "line 34: key 'env_allow'");

	build_repeated(buf, sizeof(buf), "[global]\n", "allow_uid = ", "\n",
		       POLICY_MAX_ALLOWED_IDS + 1);
	assert_int_equal(parse(buf), -EINVAL);
	assert_contains(err, "line 18: key 'allow_uid'");

	build_repeated(buf, sizeof(buf), "", "[profile p",
		       "]\nlanguage = x\ninterpreter = /usr/bin/x\ncode_name = x\n",
		       IPC_MAX_PROFILES + 1);
	assert_int_equal(parse(buf), -EINVAL);
	assert_contains(err, "line 65");
	assert_contains(err, "profile p16");
}

static void test_nul_and_size_and_line_length(void **state)
{
	static const char with_nul[] = "[global]\nuid_count = 1\0"
				       "6\n";
	char *big;

	(void)state;
	assert_int_equal(policy_parse(with_nul, sizeof(with_nul) - 1, STARTER, P, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "line 2");
	assert_contains(err, "NUL");

	big = malloc(POLICY_MAX_FILE_BYTES + 2);
	assert_non_null(big);
	memset(big, '#', POLICY_MAX_FILE_BYTES + 1);
	big[POLICY_MAX_FILE_BYTES + 1] = '\0';
	for (size_t i = 100; i < POLICY_MAX_FILE_BYTES; i += 100)
		big[i] = '\n';
	assert_int_equal(policy_parse(big, POLICY_MAX_FILE_BYTES, STARTER, P, err, sizeof(err)), 0);
	assert_int_equal(policy_parse(big, POLICY_MAX_FILE_BYTES + 1, STARTER, P, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "larger than");

	/* 4096 characters per line are allowed, 4097 are not. */
	memset(big, '#', 4097);
	big[4096] = '\n';
	assert_int_equal(policy_parse(big, 4097, STARTER, P, err, sizeof(err)), 0);
	memset(big, '#', 4097);
	big[4097] = '\n';
	assert_int_equal(policy_parse(big, 4098, STARTER, P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "line 1");
	free(big);
}

/* The policy's messages in full where the INI walker (common/ini.c, shared
 * with the gateway) writes them: "line N: ...", no file name, and the
 * walk stops at the first bad line. */
static void test_walker_messages(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"language = x\n[profile python]\n", "line 1: key 'language': outside of any section"},
	    {"[global]\n\n[global\n", "line 3: malformed section header"},
	    {"[global]\nuid_count\n", "line 2: malformed line (expected 'key = value')"},
	    {"[global]\n = 5\n", "line 2: malformed line (empty key)"},
	    {"[global]\nUid_count = 5\n", "line 2: malformed key (use a-z, 0-9, '_')"},
	    {"[global]\nhostname = a\002b\n", "line 2: contains a control character"},
	    {"[global]\nhostname =\n", "line 2: key 'hostname': empty value"},
	    {"[global]\nuid_count = 5x\n", "line 2: key 'uid_count': '5x' has trailing junk 'x'"},
	    {"[global]\nbogus = 1\n", "line 2: key 'bogus': unknown key in [global]"},
	    {"[profile python]\nmax_memory = 1T\n",
	     "line 2: key 'max_memory': '1T' has an unknown suffix 'T' (use K, M or G)"},
	    {"[profile python]\ndefault_wall_ms = 1m\n",
	     "line 2: key 'default_wall_ms': '1m' has an unknown suffix 'm' (use ms or s)"},
	    {"[profile python]\nnetwork = on\n",
	     "line 2: key 'network': 'on' is not yes, no, true or false"},
	    {"[ profiles ]\n", "line 1: section [profiles]: unknown section"},
	    {"[global]\n[profile Py]\n",
	     "line 2: section [profile Py]: name is not 1-64 characters of [a-z0-9_-]"},
	};
	static const char with_nul[] = "[global]\n\nuid_count = 1\0\n";
	char *big;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (parse(cases[i].text) != -EINVAL)
			fail_msg("case %zu accepted: %s", i, cases[i].text);
		assert_string_equal(err, cases[i].msg);
	}
	assert_int_equal(policy_parse(with_nul, sizeof(with_nul) - 1, STARTER, P, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "line 3: contains a NUL byte");

	big = malloc(POLICY_MAX_FILE_BYTES + 1);
	assert_non_null(big);
	memset(big, '#', POLICY_MAX_FILE_BYTES + 1);
	big[4097] = '\n';
	assert_int_equal(policy_parse(big, 4098, STARTER, P, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "line 1: longer than 4096 characters");
	assert_int_equal(policy_parse(big, POLICY_MAX_FILE_BYTES + 1, STARTER, P, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "policy text is larger than 262144 bytes");
	free(big);
}

/* ---- policy_validate on hand-built policies ---- */

static void test_validate_direct(void **state)
{
	(void)state;
	policy_defaults(P, STARTER);
	P->nprofiles = 0;
	assert_int_equal(policy_validate(P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "no profiles");

	policy_defaults(P, STARTER);
	P->profiles[1] = P->profiles[0];
	assert_int_equal(policy_validate(P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "profile 'python'");

	policy_defaults(P, STARTER);
	P->uid_count = 0;
	assert_int_equal(policy_validate(P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "key 'uid_count'");

	policy_defaults(P, STARTER);
	P->uid_base = 100;
	assert_int_equal(policy_validate(P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "key 'uid_base'");

	policy_defaults(P, STARTER);
	(void)snprintf(P->profiles[0].env_allow[0], sizeof(P->profiles[0].env_allow[0]),
		       "LD_AUDIT");
	P->profiles[0].nenv_allow = 1;
	assert_int_equal(policy_validate(P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "profile 'python': key 'env_allow'");

	policy_defaults(P, STARTER);
	P->profiles[1].maximum.tmpfs_bytes = 0;
	assert_int_equal(policy_validate(P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "profile 'javascript': key 'max_tmpfs'");

	policy_defaults(P, STARTER);
	memset(P->hostname, 'a', sizeof(P->hostname)); /* unterminated */
	assert_int_equal(policy_validate(P, err, sizeof(err)), -EINVAL);
	assert_contains(err, "key 'hostname'");
}

/* ---- effective limits ---- */

struct field {
	const char *name;
	size_t off;
};

static const struct field fields[] = {
    {"wall_ms", offsetof(struct ipc_limits, wall_ms)},
    {"cpu_ms", offsetof(struct ipc_limits, cpu_ms)},
    {"memory", offsetof(struct ipc_limits, memory_bytes)},
    {"pids", offsetof(struct ipc_limits, pids)},
    {"tmpfs", offsetof(struct ipc_limits, tmpfs_bytes)},
    {"output", offsetof(struct ipc_limits, output_bytes)},
};

static uint64_t *fld(struct ipc_limits *l, size_t i)
{
	return (uint64_t *)(void *)((char *)l + fields[i].off);
}

static void test_effective_limits(void **state)
{
	struct ipc_limits req, out, maxl;
	const struct policy_profile *py;

	(void)state;
	policy_defaults(P, STARTER);
	py = policy_find_profile(P, "python");
	memset(&req, 0, sizeof(req));
	assert_int_equal(policy_effective_limits(py, &req, &out, err, sizeof(err)), 0);
	assert_memory_equal(&out, &py->defaults, sizeof(out));

	req.memory_bytes = 100 << 20;
	assert_int_equal(policy_effective_limits(py, &req, &out, err, sizeof(err)), 0);
	assert_int_equal(out.memory_bytes, 100 << 20);
	assert_int_equal(out.wall_ms, py->defaults.wall_ms);

	maxl = py->maximum;
	assert_int_equal(policy_effective_limits(py, &maxl, &out, err, sizeof(err)), 0);
	assert_memory_equal(&out, &py->maximum, sizeof(out));

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char want[128];

		memset(&req, 0, sizeof(req));
		*fld(&req, i) = *fld(&maxl, i) + 1;
		memset(&out, 0xab, sizeof(out));
		assert_int_equal(policy_effective_limits(py, &req, &out, err, sizeof(err)), -E2BIG);
		snprintf(want, sizeof(want), "%s %llu exceeds the profile maximum %llu",
			 fields[i].name, (unsigned long long)*fld(&maxl, i) + 1,
			 (unsigned long long)*fld(&maxl, i));
		assert_string_equal(err, want);
		assert_int_equal(*fld(&out, i), 0xababababababababull); /* untouched */
	}
	req.memory_bytes = 2ull << 30;
	assert_int_equal(policy_effective_limits(py, &req, &out, err, sizeof(err)), -E2BIG);
	assert_string_equal(err, "memory 2147483648 exceeds the profile maximum 1073741824");
}

/* ---- environment entries ---- */

static void test_env_allowed(void **state)
{
	struct policy_profile *py;
	char longv[IPC_MAX_ENV_LEN + 2];

	(void)state;
	assert_int_equal(parse("[profile python]\nenv_allow = TZ\nenv_allow = MY_VAR\n"), 0);
	py = &P->profiles[0];
	assert_true(policy_env_allowed(py, "TZ=UTC"));
	assert_true(policy_env_allowed(py, "MY_VAR="));
	assert_true(policy_env_allowed(py, "MY_VAR=a=b c"));
	assert_false(policy_env_allowed(py, "TZ"));
	assert_false(policy_env_allowed(py, "TZX=UTC"));
	assert_false(policy_env_allowed(py, "T=UTC"));
	assert_false(policy_env_allowed(py, "tz=UTC"));
	assert_false(policy_env_allowed(py, "=UTC"));
	assert_false(policy_env_allowed(py, "PATH=/tmp"));
	assert_false(policy_env_allowed(py, NULL));

	memset(longv, 'x', sizeof(longv));
	memcpy(longv, "TZ=", 3);
	longv[IPC_MAX_ENV_LEN] = '\0'; /* exactly the limit */
	assert_true(policy_env_allowed(py, longv));
	longv[IPC_MAX_ENV_LEN] = 'x';
	longv[IPC_MAX_ENV_LEN + 1] = '\0';
	assert_false(policy_env_allowed(py, longv));

	/* Dangerous names stay refused even when a hand-built policy lists them. */
	snprintf(py->env_allow[2], sizeof(py->env_allow[2]), "LD_PRELOAD");
	py->nenv_allow = 3;
	assert_false(policy_env_allowed(py, "LD_PRELOAD=/tmp/x.so"));

	policy_defaults(P, STARTER);
	assert_false(policy_env_allowed(&P->profiles[0], "TZ=UTC"));
}

/* ---- peers ---- */

static void test_peer_allowed(void **state)
{
	(void)state;
	policy_defaults(P, STARTER);
	assert_true(policy_peer_allowed(P, STARTER, 1, NULL, 0));
	assert_false(policy_peer_allowed(P, STARTER + 1, STARTER, NULL, 0));
	assert_false(policy_peer_allowed(P, 0, 0, NULL, 0));

	assert_int_equal(parse("[global]\nallow_uid = 1001\nallow_uid = 1002\n"), 0);
	assert_true(policy_peer_allowed(P, 1001, 5, NULL, 0));
	assert_true(policy_peer_allowed(P, 1002, 5, NULL, 0));
	assert_false(policy_peer_allowed(P, 1003, 1001, NULL, 0));
	assert_false(policy_peer_allowed(P, STARTER, 5, NULL, 0));

	assert_int_equal(parse("[global]\nallow_gid = 500\n"), 0);
	assert_true(policy_peer_allowed(P, 77, 500, NULL, 0));
	assert_false(policy_peer_allowed(P, 500, 77, NULL, 0));
	assert_false(policy_peer_allowed(P, STARTER, 77, NULL, 0));

	/* A member of an allowed group whose primary group is another. */
	const gid_t groups[] = {24, 500, 27};
	assert_true(policy_peer_allowed(P, 77, 77, groups, 3));
	assert_false(policy_peer_allowed(P, 77, 77, groups, 1));
	const gid_t others[] = {24, 501};
	assert_false(policy_peer_allowed(P, 77, 77, others, 2));
}

/* ---- HELLO_OK and lookup ---- */

static void test_to_hello_and_find(void **state)
{
	struct ipc_hello_ok *h = calloc(1, sizeof(*h));

	(void)state;
	assert_non_null(h);
	policy_defaults(P, STARTER);
	P->profiles[1].network = true;
	policy_to_hello(P, h);
	assert_int_equal(h->nprofiles, 2);
	assert_string_equal(h->profiles[0].name, "python");
	assert_string_equal(h->profiles[0].language, "python");
	assert_string_equal(h->profiles[0].interpreter, "/usr/bin/python3");
	assert_memory_equal(&h->profiles[0].defaults, &P->profiles[0].defaults,
			    sizeof(struct ipc_limits));
	assert_memory_equal(&h->profiles[0].maximum, &P->profiles[0].maximum,
			    sizeof(struct ipc_limits));
	assert_int_equal(h->profiles[0].network, 0);
	assert_string_equal(h->profiles[1].name, "javascript");
	assert_string_equal(h->profiles[1].interpreter, "/usr/bin/node");
	assert_int_equal(h->profiles[1].network, 1);
	free(h);

	assert_null(policy_find_profile(P, "ruby"));
	assert_null(policy_find_profile(P, ""));
	assert_null(policy_find_profile(P, NULL));
	assert_ptr_equal(policy_find_profile(P, "javascript"), &P->profiles[1]);
}

/* ---- loading files ---- */

static char tmpdir[64];

static int load_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cellgate-policy-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int load_teardown(void **state)
{
	static const char *const names[] = {"ok.conf",	"gw.conf",   "ow.conf", "link.conf",
					    "big.conf", "user.conf", "dir",	"fifo"};
	char path[256];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		if (unlink(path) < 0)
			(void)rmdir(path);
	}
	return rmdir(tmpdir);
}

static const char *write_file(const char *name, const char *text, size_t len, mode_t mode)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

static void test_load(void **state)
{
	static const char text[] = "[global]\nmax_jobs = 3\n";
	char path[256], target[256];
	char *big;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.conf", tmpdir);
	assert_int_equal(policy_load(path, true, STARTER, P, err, sizeof(err)), -ENOENT);

	const char *ok = write_file("ok.conf", text, sizeof(text) - 1, 0644);
	snprintf(target, sizeof(target), "%s", ok);
	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(policy_load(ok, true, STARTER, P, err, sizeof(err)), 0);
	assert_int_equal(P->max_jobs, 3);

	assert_int_equal(policy_load(write_file("gw.conf", text, sizeof(text) - 1, 0664), true,
				     STARTER, P, err, sizeof(err)),
			 -EPERM);
	assert_contains(err, "writable by group or others");
	assert_int_equal(policy_load(write_file("ow.conf", text, sizeof(text) - 1, 0646), false,
				     STARTER, P, err, sizeof(err)),
			 -EPERM);

	snprintf(path, sizeof(path), "%s/link.conf", tmpdir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(policy_load(path, true, STARTER, P, err, sizeof(err)), -ELOOP);
	assert_contains(err, "symbolic link");

	snprintf(path, sizeof(path), "%s/dir", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(policy_load(path, true, STARTER, P, err, sizeof(err)), -EPERM);
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(policy_load(path, true, STARTER, P, err, sizeof(err)), -EPERM);

	/* Owned by the starter: only when root ownership is not required. */
	const char *user = write_file("user.conf", text, sizeof(text) - 1, 0644);
	assert_int_equal(chown(user, STARTER, STARTER), 0);
	assert_int_equal(policy_load(user, true, STARTER, P, err, sizeof(err)), -EPERM);
	assert_contains(err, "owned by uid 4242");
	assert_int_equal(policy_load(user, false, STARTER, P, err, sizeof(err)), 0);
	assert_int_equal(policy_load(user, false, STARTER + 1, P, err, sizeof(err)), -EPERM);

	big = malloc(POLICY_MAX_FILE_BYTES + 1);
	assert_non_null(big);
	memset(big, '\n', POLICY_MAX_FILE_BYTES + 1);
	assert_int_equal(policy_load(write_file("big.conf", big, POLICY_MAX_FILE_BYTES + 1, 0644),
				     true, STARTER, P, err, sizeof(err)),
			 -EFBIG);
	free(big);

	/* A parse error is reported as such. */
	assert_int_equal(policy_load(write_file("ok.conf", "[nope]\n", 7, 0644), true, STARTER, P,
				     err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "line 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_valid),
	    cmocka_unit_test(test_empty_text_gives_defaults),
	    cmocka_unit_test(test_example_file_equals_defaults),
	    cmocka_unit_test(test_units_and_overrides),
	    cmocka_unit_test(test_lists_replace_defaults),
	    cmocka_unit_test(test_new_profile),
	    cmocka_unit_test(test_allow_ids_by_name),
	    cmocka_unit_test(test_rejections),
	    cmocka_unit_test(test_too_many_entries),
	    cmocka_unit_test(test_nul_and_size_and_line_length),
	    cmocka_unit_test(test_walker_messages),
	    cmocka_unit_test(test_validate_direct),
	    cmocka_unit_test(test_effective_limits),
	    cmocka_unit_test(test_env_allowed),
	    cmocka_unit_test(test_peer_allowed),
	    cmocka_unit_test(test_to_hello_and_find),
	    cmocka_unit_test_setup_teardown(test_load, load_setup, load_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
