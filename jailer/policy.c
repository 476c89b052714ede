/* The jailer's policy: built-in defaults, the INI parser, validation, and the
 * per-request checks (limits, environment entries, peers) made against it.
 * See policy.h for the format and etc/jailer.conf for a documented example. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

#define LINE_MAX_CHARS 4096u
/* Job uids/gids must stay clear of every system and regular user. */
#define MIN_JOB_ID 65536ull
#define MAX_ID 0xFFFFFFFEull /* (uid_t)-1 means "no change" to the kernel */
/* Hard ceilings no policy may exceed: they keep arithmetic elsewhere far from
 * overflow and stay within what the kernel accepts for cgroup limits. */
#define CAP_TIME_MS 86400000ull	    /* one day */
#define CAP_SIZE_BYTES (1ull << 40) /* 1 TiB */
#define CAP_PIDS 4194304ull	    /* PID_MAX_LIMIT */
#define PW_BUF_BYTES 16384u

static const char *const default_ro_paths[] = {
    "/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache", "/etc/alternatives",
};
static const char *const base_env[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"};

enum limit_kind { LK_TIME, LK_SIZE, LK_COUNT };

struct limit_field {
	const char *name;
	size_t off;
	enum limit_kind kind;
	uint64_t cap;
};

static const struct limit_field limit_fields[] = {
    {"wall_ms", offsetof(struct ipc_limits, wall_ms), LK_TIME, CAP_TIME_MS},
    {"cpu_ms", offsetof(struct ipc_limits, cpu_ms), LK_TIME, CAP_TIME_MS},
    {"memory", offsetof(struct ipc_limits, memory_bytes), LK_SIZE, CAP_SIZE_BYTES},
    {"pids", offsetof(struct ipc_limits, pids), LK_COUNT, CAP_PIDS},
    {"tmpfs", offsetof(struct ipc_limits, tmpfs_bytes), LK_SIZE, CAP_SIZE_BYTES},
    {"output", offsetof(struct ipc_limits, output_bytes), LK_SIZE, CAP_SIZE_BYTES},
};
#define NLIMITS (sizeof(limit_fields) / sizeof(limit_fields[0]))

static uint64_t *limit_ptr(struct ipc_limits *l, const struct limit_field *f)
{
	return (uint64_t *)(void *)((char *)l + f->off);
}

static uint64_t limit_get(const struct ipc_limits *l, const struct limit_field *f)
{
	return *(const uint64_t *)(const void *)((const char *)l + f->off);
}

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen, const char *fmt,
							  ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Copy into a fixed array, zero-filling the rest so whole structs compare. */
static int copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		return -ENAMETOOLONG;
	memset(dst, 0, cap);
	memcpy(dst, src, n);
	return 0;
}

static bool str_bounded(const char *s, size_t cap)
{
	return strnlen(s, cap) < cap;
}

/* ---- character classes (ASCII only: never locale dependent) ---- */

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool is_printable(char c)
{
	return c >= 0x20 && c <= 0x7e;
}

static bool valid_simple_name(const char *s)
{
	size_t n = strnlen(s, IPC_MAX_NAME + 1);

	if (n == 0 || n > IPC_MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

static bool valid_env_name(const char *s, size_t n)
{
	if (n == 0 || n > IPC_MAX_NAME || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool valid_hostname(const char *s)
{
	size_t n = strnlen(s, IPC_MAX_NAME + 1);

	if (n == 0 || n > IPC_MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

static bool valid_code_name(const char *s)
{
	size_t n = strnlen(s, IPC_MAX_NAME + 1);

	if (n == 0 || n > IPC_MAX_NAME || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/* Variables that change how the interpreter or the loader starts: a request
 * must never be able to set them, whatever the policy file says. */
static bool env_name_dangerous(const char *name, size_t n)
{
	static const char *const exact[] = {"PATH",	  "HOME",    "NODE_OPTIONS", "NODE_PATH",
					    "GCONV_PATH", "LOCPATH", "BASH_ENV",     "ENV"};
	static const char *const prefix[] = {"LD_", "PYTHON"};

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strlen(exact[i]) == n && memcmp(exact[i], name, n) == 0)
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (n >= strlen(prefix[i]) && memcmp(prefix[i], name, strlen(prefix[i])) == 0)
			return true;
	return false;
}

/* Paths are bound from the host into the cell, so only plain, canonical,
 * absolute ASCII paths are accepted. */
static bool check_path(const char *s, char *why, size_t whylen)
{
	size_t n = strnlen(s, IPC_MAX_PATH + 1);

	if (n == 0) {
		set_err(why, whylen, "missing");
		return false;
	}
	if (n > IPC_MAX_PATH) {
		set_err(why, whylen, "longer than %u characters", IPC_MAX_PATH);
		return false;
	}
	if (s[0] != '/') {
		set_err(why, whylen, "'%s' is not an absolute path", s);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!is_printable(s[i])) {
			set_err(why, whylen, "path contains a non-printable character");
			return false;
		}
	}
	if (strstr(s, "..") || strstr(s, "//")) {
		set_err(why, whylen, "'%s' contains '..' or '//'", s);
		return false;
	}
	if (n > 1 && s[n - 1] == '/') {
		set_err(why, whylen, "'%s' ends with '/'", s);
		return false;
	}
	return true;
}

static bool path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* ---- built-in defaults ---- */

static void profile_base(struct policy_profile *pr, const char *name)
{
	memset(pr, 0, sizeof(*pr));
	(void)copy_str(pr->name, sizeof(pr->name), name);
	pr->nro_paths = sizeof(default_ro_paths) / sizeof(default_ro_paths[0]);
	for (size_t i = 0; i < pr->nro_paths; i++)
		(void)copy_str(pr->ro_paths[i], sizeof(pr->ro_paths[i]), default_ro_paths[i]);
	pr->nenv = sizeof(base_env) / sizeof(base_env[0]);
	for (size_t i = 0; i < pr->nenv; i++)
		(void)copy_str(pr->env[i], sizeof(pr->env[i]), base_env[i]);
	pr->defaults = (struct ipc_limits){
	    .wall_ms = 10000,
	    .cpu_ms = 10000,
	    .memory_bytes = 256ull << 20,
	    .pids = 64,
	    .tmpfs_bytes = 64ull << 20,
	    .output_bytes = 1ull << 20,
	};
	pr->maximum = (struct ipc_limits){
	    .wall_ms = 60000,
	    .cpu_ms = 60000,
	    .memory_bytes = 1ull << 30,
	    .pids = 256,
	    .tmpfs_bytes = 256ull << 20,
	    .output_bytes = 8ull << 20,
	};
	pr->network = false;
}

static void set_args(struct policy_profile *pr, const char *const *args, size_t n)
{
	memset(pr->args, 0, sizeof(pr->args));
	pr->nargs = n;
	for (size_t i = 0; i < n; i++)
		(void)copy_str(pr->args[i], sizeof(pr->args[i]), args[i]);
}

static void profile_python(struct policy_profile *pr)
{
	static const char *const args[] = {"-I", "-B", "-u", "{code}"};

	profile_base(pr, "python");
	(void)copy_str(pr->language, sizeof(pr->language), "python");
	(void)copy_str(pr->interpreter, sizeof(pr->interpreter), "/usr/bin/python3");
	set_args(pr, args, sizeof(args) / sizeof(args[0]));
	(void)copy_str(pr->code_name, sizeof(pr->code_name), "main.py");
	(void)copy_str(pr->env[pr->nenv], sizeof(pr->env[0]), "PYTHONDONTWRITEBYTECODE=1");
	pr->nenv++;
}

static void profile_javascript(struct policy_profile *pr)
{
	static const char *const args[] = {"{code}"};

	profile_base(pr, "javascript");
	(void)copy_str(pr->language, sizeof(pr->language), "javascript");
	(void)copy_str(pr->interpreter, sizeof(pr->interpreter), "/usr/bin/node");
	set_args(pr, args, 1);
	(void)copy_str(pr->code_name, sizeof(pr->code_name), "main.js");
}

/* A profile the file introduces: python's limits and the generic paths and
 * environment; language, interpreter and code_name must come from the file. */
static void profile_new(struct policy_profile *pr, const char *name)
{
	static const char *const args[] = {"{code}"};

	profile_base(pr, name);
	set_args(pr, args, 1);
}

static bool profile_builtin(struct policy_profile *pr, const char *name)
{
	if (strcmp(name, "python") == 0) {
		profile_python(pr);
		return true;
	}
	if (strcmp(name, "javascript") == 0) {
		profile_javascript(pr);
		return true;
	}
	return false;
}

void policy_defaults(struct policy *p, uid_t starter_uid)
{
	memset(p, 0, sizeof(*p));
	p->nallow_uids = 1;
	p->allow_uids[0] = starter_uid;
	p->uid_base = 2000000000u;
	p->gid_base = 2000000000u;
	p->uid_count = 256;
	p->max_jobs = 64;
	p->sandbox_uid = 1000;
	p->sandbox_gid = 1000;
	(void)copy_str(p->hostname, sizeof(p->hostname), "cellgate");
	p->cgroup = CGROUP_AUTO;
	p->v1_favordynmods = true;
	p->nprofiles = 2;
	profile_python(&p->profiles[0]);
	profile_javascript(&p->profiles[1]);
}

/* ---- value parsers: each returns 0 or -EINVAL with the reason in why ---- */

static int parse_digits(const char *s, uint64_t *v, const char **end, char *why, size_t whylen)
{
	uint64_t x = 0;
	const char *q = s;

	if (*q < '0' || *q > '9') {
		set_err(why, whylen, "'%s' is not a non-negative integer", s);
		return -EINVAL;
	}
	for (; *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');

		if (x > (UINT64_MAX - d) / 10) {
			set_err(why, whylen, "'%s' is out of range", s);
			return -EINVAL;
		}
		x = x * 10 + d;
	}
	*v = x;
	*end = q;
	return 0;
}

static int scale(uint64_t *v, uint64_t mult, const char *s, char *why, size_t whylen)
{
	if (*v > UINT64_MAX / mult) {
		set_err(why, whylen, "'%s' is out of range", s);
		return -EINVAL;
	}
	*v *= mult;
	return 0;
}

static int parse_count(const char *s, uint64_t *v, char *why, size_t whylen)
{
	const char *end;
	int r = parse_digits(s, v, &end, why, whylen);

	if (r < 0)
		return r;
	if (*end) {
		set_err(why, whylen, "'%s' has trailing junk '%s'", s, end);
		return -EINVAL;
	}
	return 0;
}

static int parse_size(const char *s, uint64_t *v, char *why, size_t whylen)
{
	const char *end;
	int r = parse_digits(s, v, &end, why, whylen);

	if (r < 0)
		return r;
	if (!*end)
		return 0;
	if (end[1] == '\0') {
		switch (*end) {
		case 'K':
		case 'k':
			return scale(v, 1ull << 10, s, why, whylen);
		case 'M':
		case 'm':
			return scale(v, 1ull << 20, s, why, whylen);
		case 'G':
		case 'g':
			return scale(v, 1ull << 30, s, why, whylen);
		default:
			break;
		}
	}
	set_err(why, whylen, "'%s' has an unknown suffix '%s' (use K, M or G)", s, end);
	return -EINVAL;
}

static int parse_time_ms(const char *s, uint64_t *v, char *why, size_t whylen)
{
	const char *end;
	int r = parse_digits(s, v, &end, why, whylen);

	if (r < 0)
		return r;
	if (!*end || strcmp(end, "ms") == 0)
		return 0;
	if (strcmp(end, "s") == 0)
		return scale(v, 1000, s, why, whylen);
	set_err(why, whylen, "'%s' has an unknown suffix '%s' (use ms or s)", s, end);
	return -EINVAL;
}

static int parse_bool(const char *s, bool *b, char *why, size_t whylen)
{
	if (strcmp(s, "yes") == 0 || strcmp(s, "true") == 0) {
		*b = true;
		return 0;
	}
	if (strcmp(s, "no") == 0 || strcmp(s, "false") == 0) {
		*b = false;
		return 0;
	}
	set_err(why, whylen, "'%s' is not yes, no, true or false", s);
	return -EINVAL;
}

static int parse_numeric_id(const char *s, uint32_t *id, char *why, size_t whylen)
{
	uint64_t v;
	int r = parse_count(s, &v, why, whylen);

	if (r < 0)
		return r;
	if (v > MAX_ID) {
		set_err(why, whylen, "'%s' is out of range", s);
		return -EINVAL;
	}
	*id = (uint32_t)v;
	return 0;
}

/* A numeric id, or a user/group name looked up in the host's databases. */
static int parse_id(const char *s, bool group, uint32_t *id, char *why, size_t whylen)
{
	char buf[PW_BUF_BYTES];
	int r;

	if (s[0] >= '0' && s[0] <= '9')
		return parse_numeric_id(s, id, why, whylen);
	if (group) {
		struct group gr, *res = NULL;

		r = getgrnam_r(s, &gr, buf, sizeof(buf), &res);
		if (r == 0 && res) {
			*id = (uint32_t)gr.gr_gid;
			return 0;
		}
	} else {
		struct passwd pw, *res = NULL;

		r = getpwnam_r(s, &pw, buf, sizeof(buf), &res);
		if (r == 0 && res) {
			*id = (uint32_t)pw.pw_uid;
			return 0;
		}
	}
	if (r != 0)
		set_err(why, whylen, "cannot look up '%s': %s", s, strerror(r));
	else
		set_err(why, whylen, "no such %s '%s'", group ? "group" : "user", s);
	return -EINVAL;
}

/* ---- the parser ---- */

enum section { SEC_NONE, SEC_GLOBAL, SEC_PROFILE };

struct parse_state {
	struct policy *p;
	enum section sec;
	struct policy_profile *prof;
	uint64_t seen; /* non-repeatable keys already set in this section */
	bool global_done;
	bool profiles_replaced;
	bool allow_replaced;
	bool args_replaced, ro_replaced, env_replaced;
};

typedef int (*key_fn)(struct parse_state *st, const char *val, char *why, size_t whylen);

struct key_def {
	const char *name;
	bool repeatable;
	key_fn fn;
};

static int set_allow(struct parse_state *st, const char *val, bool group, char *why, size_t whylen)
{
	struct policy *p = st->p;
	size_t *n = group ? &p->nallow_gids : &p->nallow_uids;
	uint32_t id;
	int r;

	/* The starter-only default is replaced by the file's lists as a whole. */
	if (!st->allow_replaced) {
		p->nallow_uids = p->nallow_gids = 0;
		memset(p->allow_uids, 0, sizeof(p->allow_uids));
		memset(p->allow_gids, 0, sizeof(p->allow_gids));
		st->allow_replaced = true;
	}
	r = parse_id(val, group, &id, why, whylen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < *n; i++)
		if ((group ? (uint32_t)p->allow_gids[i] : (uint32_t)p->allow_uids[i]) == id)
			return 0;
	if (*n >= POLICY_MAX_ALLOWED_IDS) {
		set_err(why, whylen, "more than %u entries", POLICY_MAX_ALLOWED_IDS);
		return -EINVAL;
	}
	if (group)
		p->allow_gids[(*n)++] = (gid_t)id;
	else
		p->allow_uids[(*n)++] = (uid_t)id;
	return 0;
}

static int k_allow_uid(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return set_allow(st, val, false, why, whylen);
}

static int k_allow_gid(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return set_allow(st, val, true, why, whylen);
}

static int parse_id_base(const char *val, uint32_t *out, char *why, size_t whylen)
{
	int r = parse_numeric_id(val, out, why, whylen);

	if (r < 0)
		return r;
	if (*out < MIN_JOB_ID) {
		set_err(why, whylen, "%s is below %llu: job ids would collide with system ids", val,
			MIN_JOB_ID);
		return -EINVAL;
	}
	return 0;
}

static int k_uid_base(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	uint32_t v;
	int r = parse_id_base(val, &v, why, whylen);

	if (r == 0)
		st->p->uid_base = (uid_t)v;
	return r;
}

static int k_gid_base(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	uint32_t v;
	int r = parse_id_base(val, &v, why, whylen);

	if (r == 0)
		st->p->gid_base = (gid_t)v;
	return r;
}

static int parse_positive_u32(const char *val, uint32_t *out, char *why, size_t whylen)
{
	uint64_t v;
	int r = parse_count(val, &v, why, whylen);

	if (r < 0)
		return r;
	if (v == 0) {
		set_err(why, whylen, "must not be zero");
		return -EINVAL;
	}
	if (v > UINT32_MAX) {
		set_err(why, whylen, "'%s' is out of range", val);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

static int k_uid_count(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return parse_positive_u32(val, &st->p->uid_count, why, whylen);
}

static int k_max_jobs(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return parse_positive_u32(val, &st->p->max_jobs, why, whylen);
}

static int parse_sandbox_id(const char *val, uint32_t *out, char *why, size_t whylen)
{
	int r = parse_numeric_id(val, out, why, whylen);

	if (r == 0 && *out == 0) {
		set_err(why, whylen, "must not be 0 (root inside the cell)");
		return -EINVAL;
	}
	return r;
}

static int k_sandbox_uid(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	uint32_t v;
	int r = parse_sandbox_id(val, &v, why, whylen);

	if (r == 0)
		st->p->sandbox_uid = (uid_t)v;
	return r;
}

static int k_sandbox_gid(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	uint32_t v;
	int r = parse_sandbox_id(val, &v, why, whylen);

	if (r == 0)
		st->p->sandbox_gid = (gid_t)v;
	return r;
}

static int k_hostname(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!valid_hostname(val)) {
		set_err(why, whylen, "'%s' is not 1-%u characters of [a-zA-Z0-9-.]", val,
			IPC_MAX_NAME);
		return -EINVAL;
	}
	return copy_str(st->p->hostname, sizeof(st->p->hostname), val);
}

static int k_cgroup(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (strcmp(val, "auto") == 0)
		st->p->cgroup = CGROUP_AUTO;
	else if (strcmp(val, "v1") == 0)
		st->p->cgroup = CGROUP_V1;
	else if (strcmp(val, "v2") == 0)
		st->p->cgroup = CGROUP_V2;
	else {
		set_err(why, whylen, "'%s' is not auto, v1 or v2", val);
		return -EINVAL;
	}
	return 0;
}

/* Absolute for v2, a relative name for v1; the mode may come later in the
 * file, so the combination is checked by policy_validate. */
static bool check_cgroup_root(const char *s, char *why, size_t whylen)
{
	size_t n = strnlen(s, IPC_MAX_PATH + 1);

	if (n == 0)
		return true;
	if (n > IPC_MAX_PATH) {
		set_err(why, whylen, "longer than %u characters", IPC_MAX_PATH);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!is_printable(s[i]) || s[i] == ' ') {
			set_err(why, whylen, "contains a space or a non-printable character");
			return false;
		}
	}
	if (strstr(s, "..") || strstr(s, "//") || s[n - 1] == '/') {
		set_err(why, whylen, "'%s' contains '..' or '//' or ends with '/'", s);
		return false;
	}
	return true;
}

static int k_cgroup_root(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!check_cgroup_root(val, why, whylen))
		return -EINVAL;
	return copy_str(st->p->cgroup_root, sizeof(st->p->cgroup_root), val);
}

static int k_favordynmods(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return parse_bool(val, &st->p->v1_favordynmods, why, whylen);
}

static int k_language(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!valid_simple_name(val)) {
		set_err(why, whylen, "'%s' is not 1-%u characters of [a-z0-9_-]", val,
			IPC_MAX_NAME);
		return -EINVAL;
	}
	return copy_str(st->prof->language, sizeof(st->prof->language), val);
}

static int k_interpreter(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!check_path(val, why, whylen))
		return -EINVAL;
	return copy_str(st->prof->interpreter, sizeof(st->prof->interpreter), val);
}

static int k_code_name(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!valid_code_name(val)) {
		set_err(why, whylen, "'%s' is not a plain file name of [A-Za-z0-9._-]", val);
		return -EINVAL;
	}
	return copy_str(st->prof->code_name, sizeof(st->prof->code_name), val);
}

static int k_arg(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	struct policy_profile *pr = st->prof;

	if (!st->args_replaced) {
		memset(pr->args, 0, sizeof(pr->args));
		pr->nargs = 0;
		st->args_replaced = true;
	}
	if (pr->nargs >= POLICY_MAX_ARGS) {
		set_err(why, whylen, "more than %u entries", POLICY_MAX_ARGS);
		return -EINVAL;
	}
	if (strlen(val) > IPC_MAX_PATH) {
		set_err(why, whylen, "longer than %u characters", IPC_MAX_PATH);
		return -EINVAL;
	}
	(void)copy_str(pr->args[pr->nargs], sizeof(pr->args[0]), val);
	pr->nargs++;
	return 0;
}

static bool check_ro_path(const struct policy_profile *pr, size_t upto, const char *val, char *why,
			  size_t whylen)
{
	if (!check_path(val, why, whylen))
		return false;
	if (strcmp(val, "/") == 0) {
		set_err(why, whylen, "the host's root directory may not be bound");
		return false;
	}
	for (size_t i = 0; i < upto; i++) {
		if (strcmp(pr->ro_paths[i], val) == 0) {
			set_err(why, whylen, "'%s' is listed twice", val);
			return false;
		}
	}
	return true;
}

static int k_ro_path(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	struct policy_profile *pr = st->prof;

	if (!st->ro_replaced) {
		memset(pr->ro_paths, 0, sizeof(pr->ro_paths));
		pr->nro_paths = 0;
		st->ro_replaced = true;
	}
	if (pr->nro_paths >= POLICY_MAX_RO_PATHS) {
		set_err(why, whylen, "more than %u entries", POLICY_MAX_RO_PATHS);
		return -EINVAL;
	}
	if (!check_ro_path(pr, pr->nro_paths, val, why, whylen))
		return -EINVAL;
	(void)copy_str(pr->ro_paths[pr->nro_paths], sizeof(pr->ro_paths[0]), val);
	pr->nro_paths++;
	return 0;
}

static bool check_env_entry(const struct policy_profile *pr, size_t upto, const char *val,
			    char *why, size_t whylen)
{
	const char *eq = strchr(val, '=');
	size_t n;

	if (strnlen(val, IPC_MAX_ENV_LEN + 1) > IPC_MAX_ENV_LEN) {
		set_err(why, whylen, "longer than %u characters", IPC_MAX_ENV_LEN);
		return false;
	}
	if (!eq) {
		set_err(why, whylen, "'%s' is not KEY=VALUE", val);
		return false;
	}
	n = (size_t)(eq - val);
	if (!valid_env_name(val, n)) {
		set_err(why, whylen, "'%.*s' is not a variable name", (int)n, val);
		return false;
	}
	for (size_t i = 0; i < upto; i++) {
		if (strncmp(pr->env[i], val, n + 1) == 0) {
			set_err(why, whylen, "variable '%.*s' is set twice", (int)n, val);
			return false;
		}
	}
	return true;
}

static int k_env(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	struct policy_profile *pr = st->prof;

	if (!st->env_replaced) {
		memset(pr->env, 0, sizeof(pr->env));
		pr->nenv = 0;
		st->env_replaced = true;
	}
	if (pr->nenv >= IPC_MAX_ENV) {
		set_err(why, whylen, "more than %u entries", IPC_MAX_ENV);
		return -EINVAL;
	}
	if (!check_env_entry(pr, pr->nenv, val, why, whylen))
		return -EINVAL;
	(void)copy_str(pr->env[pr->nenv], sizeof(pr->env[0]), val);
	pr->nenv++;
	return 0;
}

static bool check_env_allow(const struct policy_profile *pr, size_t upto, const char *val,
			    char *why, size_t whylen)
{
	size_t n = strnlen(val, IPC_MAX_NAME + 1);

	if (!valid_env_name(val, n)) {
		set_err(why, whylen, "'%s' is not a variable name", val);
		return false;
	}
	if (env_name_dangerous(val, n)) {
		set_err(why, whylen, "'%s' may not be set by a request", val);
		return false;
	}
	for (size_t i = 0; i < upto; i++) {
		if (strcmp(pr->env_allow[i], val) == 0) {
			set_err(why, whylen, "'%s' is listed twice", val);
			return false;
		}
	}
	return true;
}

static int k_env_allow(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	struct policy_profile *pr = st->prof;

	if (pr->nenv_allow >= IPC_MAX_ENV) {
		set_err(why, whylen, "more than %u entries", IPC_MAX_ENV);
		return -EINVAL;
	}
	if (!check_env_allow(pr, pr->nenv_allow, val, why, whylen))
		return -EINVAL;
	(void)copy_str(pr->env_allow[pr->nenv_allow], sizeof(pr->env_allow[0]), val);
	pr->nenv_allow++;
	return 0;
}

static int k_network(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return parse_bool(val, &st->prof->network, why, whylen);
}

static bool check_limit_value(const struct limit_field *f, uint64_t v, char *why, size_t whylen)
{
	if (v == 0) {
		set_err(why, whylen, "must not be zero");
		return false;
	}
	if (v > f->cap) {
		set_err(why, whylen, "%llu exceeds the hard ceiling %llu", (unsigned long long)v,
			(unsigned long long)f->cap);
		return false;
	}
	return true;
}

static int set_limit(struct parse_state *st, const struct limit_field *f, bool max, const char *val,
		     char *why, size_t whylen)
{
	uint64_t v;
	int r;

	switch (f->kind) {
	case LK_TIME:
		r = parse_time_ms(val, &v, why, whylen);
		break;
	case LK_SIZE:
		r = parse_size(val, &v, why, whylen);
		break;
	default:
		r = parse_count(val, &v, why, whylen);
		break;
	}
	if (r < 0)
		return r;
	if (!check_limit_value(f, v, why, whylen))
		return -EINVAL;
	*limit_ptr(max ? &st->prof->maximum : &st->prof->defaults, f) = v;
	return 0;
}

static const struct key_def global_keys[] = {
    {"allow_uid", true, k_allow_uid},	   {"allow_gid", true, k_allow_gid},
    {"uid_base", false, k_uid_base},	   {"gid_base", false, k_gid_base},
    {"uid_count", false, k_uid_count},	   {"max_jobs", false, k_max_jobs},
    {"sandbox_uid", false, k_sandbox_uid}, {"sandbox_gid", false, k_sandbox_gid},
    {"hostname", false, k_hostname},	   {"cgroup", false, k_cgroup},
    {"cgroup_root", false, k_cgroup_root}, {"v1_favordynmods", false, k_favordynmods},
};

static const struct key_def profile_keys[] = {
    {"language", false, k_language},   {"interpreter", false, k_interpreter}, {"arg", true, k_arg},
    {"code_name", false, k_code_name}, {"ro_path", true, k_ro_path},	      {"env", true, k_env},
    {"env_allow", true, k_env_allow},  {"network", false, k_network},
};
#define NGLOBAL_KEYS (sizeof(global_keys) / sizeof(global_keys[0]))
#define NPROFILE_KEYS (sizeof(profile_keys) / sizeof(profile_keys[0]))

/* Finds `key` in the section's table; limit keys get bits after the table. */
static int dispatch_key(struct parse_state *st, const char *key, const char *val, char *why,
			size_t whylen)
{
	const struct key_def *tab = st->sec == SEC_GLOBAL ? global_keys : profile_keys;
	size_t n = st->sec == SEC_GLOBAL ? NGLOBAL_KEYS : NPROFILE_KEYS;
	const struct limit_field *lf = NULL;
	bool lmax = false;
	unsigned bit = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(tab[i].name, key) == 0)
			break;
	if (i < n) {
		bit = (unsigned)i;
	} else if (st->sec == SEC_PROFILE) {
		const char *rest = NULL;

		if (strncmp(key, "default_", 8) == 0)
			rest = key + 8;
		else if (strncmp(key, "max_", 4) == 0) {
			rest = key + 4;
			lmax = true;
		}
		for (size_t j = 0; rest && j < NLIMITS; j++) {
			if (strcmp(limit_fields[j].name, rest) == 0) {
				lf = &limit_fields[j];
				bit = (unsigned)(NPROFILE_KEYS + 2 * j + (lmax ? 1 : 0));
			}
		}
	}
	if (i == n && !lf) {
		set_err(why, whylen, "unknown key in [%s]",
			st->sec == SEC_GLOBAL ? "global" : "profile");
		return -EINVAL;
	}
	if (lf || !tab[i].repeatable) {
		if (st->seen & (1ull << bit)) {
			set_err(why, whylen,
				"set twice (only ro_path, env, env_allow, arg, "
				"allow_uid and allow_gid may repeat)");
			return -EINVAL;
		}
		st->seen |= 1ull << bit;
	}
	if (lf)
		return set_limit(st, lf, lmax, val, why, whylen);
	return tab[i].fn(st, val, why, whylen);
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static int open_section(struct parse_state *st, char *inner, unsigned lineno, char *err,
			size_t errlen)
{
	struct policy *p = st->p;
	char *name;

	inner = trim(inner);
	if (strcmp(inner, "global") == 0) {
		if (st->global_done) {
			set_err(err, errlen, "line %u: section [global]: appears twice", lineno);
			return -EINVAL;
		}
		st->global_done = true;
		st->sec = SEC_GLOBAL;
		st->seen = 0;
		return 0;
	}
	if (strncmp(inner, "profile", 7) != 0 || (inner[7] != ' ' && inner[7] != '\t')) {
		set_err(err, errlen, "line %u: section [%.64s]: unknown section", lineno, inner);
		return -EINVAL;
	}
	name = trim(inner + 7);
	if (!valid_simple_name(name)) {
		set_err(
		    err, errlen,
		    "line %u: section [profile %.64s]: name is not 1-%u characters of [a-z0-9_-]",
		    lineno, name, IPC_MAX_NAME);
		return -EINVAL;
	}
	/* Naming any profile means the file lists exactly the profiles to offer. */
	if (!st->profiles_replaced) {
		memset(p->profiles, 0, sizeof(p->profiles));
		p->nprofiles = 0;
		st->profiles_replaced = true;
	}
	if (policy_find_profile(p, name)) {
		set_err(err, errlen, "line %u: section [profile %s]: appears twice", lineno, name);
		return -EINVAL;
	}
	if (p->nprofiles >= IPC_MAX_PROFILES) {
		set_err(err, errlen, "line %u: section [profile %s]: more than %u profiles", lineno,
			name, IPC_MAX_PROFILES);
		return -EINVAL;
	}
	st->prof = &p->profiles[p->nprofiles++];
	if (!profile_builtin(st->prof, name))
		profile_new(st->prof, name);
	st->sec = SEC_PROFILE;
	st->seen = 0;
	st->args_replaced = st->ro_replaced = st->env_replaced = false;
	return 0;
}

static int parse_line(struct parse_state *st, char *raw, unsigned lineno, char *err, size_t errlen)
{
	char why[IPC_MAX_MESSAGE];
	char *line = trim(raw), *eq, *key, *val;
	size_t n;
	int r;

	if (line[0] == '\0' || line[0] == '#' || line[0] == ';')
		return 0;
	for (const char *c = line; *c; c++) {
		if ((*c > 0 && *c < 0x20 && *c != '\t') || *c == 0x7f) {
			set_err(err, errlen, "line %u: contains a control character", lineno);
			return -EINVAL;
		}
	}
	n = strlen(line);
	if (line[0] == '[') {
		if (line[n - 1] != ']') {
			set_err(err, errlen, "line %u: malformed section header", lineno);
			return -EINVAL;
		}
		line[n - 1] = '\0';
		return open_section(st, line + 1, lineno, err, errlen);
	}
	eq = strchr(line, '=');
	if (!eq) {
		set_err(err, errlen, "line %u: malformed line (expected 'key = value')", lineno);
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (key[0] == '\0') {
		set_err(err, errlen, "line %u: malformed line (empty key)", lineno);
		return -EINVAL;
	}
	for (const char *c = key; *c; c++) {
		if (!is_lower_alnum(*c) && *c != '_') {
			set_err(err, errlen, "line %u: malformed key (use a-z, 0-9, '_')", lineno);
			return -EINVAL;
		}
	}
	if (st->sec == SEC_NONE) {
		set_err(err, errlen, "line %u: key '%s': outside of any section", lineno, key);
		return -EINVAL;
	}
	if (val[0] == '\0' && strcmp(key, "cgroup_root") != 0) {
		set_err(err, errlen, "line %u: key '%s': empty value", lineno, key);
		return -EINVAL;
	}
	why[0] = '\0';
	r = dispatch_key(st, key, val, why, sizeof(why));
	if (r < 0) {
		set_err(err, errlen, "line %u: key '%s': %s", lineno, key,
			why[0] ? why : "invalid value");
		return -EINVAL;
	}
	return 0;
}

int policy_parse(const char *text, size_t len, uid_t starter_uid, struct policy *p, char *err,
		 size_t errlen)
{
	struct parse_state st = {.p = p};
	const char *nul;
	unsigned lineno = 0;
	size_t pos = 0;
	int r = 0;

	if (!p || (!text && len))
		return -EINVAL;
	set_err(err, errlen, "%s", "");
	policy_defaults(p, starter_uid);
	if (len > POLICY_MAX_FILE_BYTES) {
		set_err(err, errlen, "policy text is larger than %u bytes", POLICY_MAX_FILE_BYTES);
		r = -EINVAL;
		goto out;
	}
	nul = len ? memchr(text, '\0', len) : NULL;
	if (nul) {
		unsigned l = 1;

		for (const char *c = text; c < nul; c++)
			l += *c == '\n';
		set_err(err, errlen, "line %u: contains a NUL byte", l);
		r = -EINVAL;
		goto out;
	}
	while (pos < len) {
		char line[LINE_MAX_CHARS + 1];
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;

		lineno++;
		if (n > LINE_MAX_CHARS) {
			set_err(err, errlen, "line %u: longer than %u characters", lineno,
				LINE_MAX_CHARS);
			r = -EINVAL;
			goto out;
		}
		memcpy(line, start, n);
		line[n] = '\0';
		r = parse_line(&st, line, lineno, err, errlen);
		if (r < 0)
			goto out;
		pos += n + (nl ? 1 : 0);
	}
	r = policy_validate(p, err, errlen);
out:
	if (r < 0) {
		/* Leave nothing usable behind: no profiles, no peers. */
		memset(p, 0, sizeof(*p));
		return -EINVAL;
	}
	return 0;
}

int policy_load(const char *path, bool require_root_owned, uid_t starter_uid, struct policy *p,
		char *err, size_t errlen)
{
	struct stat stbuf;
	size_t cap = POLICY_MAX_FILE_BYTES + 1, got = 0;
	char *buf;
	int fd, r;

	if (!path || !p)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO planted at the path must not hang the open. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP)
			set_err(err, errlen, "%s: is a symbolic link; refusing it", path);
		else
			set_err(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &stbuf) < 0) {
		r = -errno;
		set_err(err, errlen, "%s: fstat: %s", path, strerror(-r));
		goto close;
	}
	r = -EPERM;
	if (!S_ISREG(stbuf.st_mode)) {
		set_err(err, errlen, "%s: not a regular file", path);
		goto close;
	}
	if (stbuf.st_uid != 0 && (require_root_owned || stbuf.st_uid != starter_uid)) {
		set_err(err, errlen, "%s: owned by uid %u, must be owned by root%s", path,
			(unsigned)stbuf.st_uid, require_root_owned ? "" : " or the starting user");
		goto close;
	}
	if (stbuf.st_mode & (S_IWGRP | S_IWOTH)) {
		set_err(err, errlen, "%s: writable by group or others (mode %04o)", path,
			(unsigned)(stbuf.st_mode & 07777));
		goto close;
	}
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		set_err(err, errlen, "%s: out of memory", path);
		goto close;
	}
	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			set_err(err, errlen, "%s: read: %s", path, strerror(-r));
			goto free;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > POLICY_MAX_FILE_BYTES) {
		r = -EFBIG;
		set_err(err, errlen, "%s: larger than %u bytes", path, POLICY_MAX_FILE_BYTES);
		goto free;
	}
	r = policy_parse(buf, got, starter_uid, p, err, errlen);
free:
	free(buf);
close:
	close(fd);
	return r;
}

/* ---- validation ---- */

static int validate_limits(const struct policy_profile *pr, char *err, size_t errlen)
{
	char why[128];

	for (size_t i = 0; i < NLIMITS; i++) {
		const struct limit_field *f = &limit_fields[i];
		uint64_t d = limit_get(&pr->defaults, f), m = limit_get(&pr->maximum, f);

		if (!check_limit_value(f, d, why, sizeof(why))) {
			set_err(err, errlen, "profile '%s': key 'default_%s': %s", pr->name,
				f->name, why);
			return -EINVAL;
		}
		if (!check_limit_value(f, m, why, sizeof(why))) {
			set_err(err, errlen, "profile '%s': key 'max_%s': %s", pr->name, f->name,
				why);
			return -EINVAL;
		}
		if (d > m) {
			set_err(err, errlen,
				"profile '%s': key 'default_%s': %llu exceeds max_%s %llu",
				pr->name, f->name, (unsigned long long)d, f->name,
				(unsigned long long)m);
			return -EINVAL;
		}
	}
	return 0;
}

static int validate_lists(const struct policy_profile *pr, char *err, size_t errlen)
{
	char why[IPC_MAX_MESSAGE];

	if (pr->nargs > POLICY_MAX_ARGS || pr->nro_paths > POLICY_MAX_RO_PATHS ||
	    pr->nenv > IPC_MAX_ENV || pr->nenv_allow > IPC_MAX_ENV) {
		set_err(err, errlen,
			"profile '%s': too many arg, ro_path, env or env_allow entries", pr->name);
		return -EINVAL;
	}
	for (size_t i = 0; i < pr->nargs; i++) {
		if (!str_bounded(pr->args[i], sizeof(pr->args[i])) || pr->args[i][0] == '\0') {
			set_err(err, errlen,
				"profile '%s': key 'arg': entry %zu is empty or too long", pr->name,
				i + 1);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < pr->nro_paths; i++) {
		if (!str_bounded(pr->ro_paths[i], sizeof(pr->ro_paths[i])) ||
		    !check_ro_path(pr, i, pr->ro_paths[i], why, sizeof(why))) {
			set_err(err, errlen, "profile '%s': key 'ro_path': %s", pr->name, why);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < pr->nenv; i++) {
		if (!str_bounded(pr->env[i], sizeof(pr->env[i])) ||
		    !check_env_entry(pr, i, pr->env[i], why, sizeof(why))) {
			set_err(err, errlen, "profile '%s': key 'env': %s", pr->name, why);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < pr->nenv_allow; i++) {
		if (!str_bounded(pr->env_allow[i], sizeof(pr->env_allow[i])) ||
		    !check_env_allow(pr, i, pr->env_allow[i], why, sizeof(why))) {
			set_err(err, errlen, "profile '%s': key 'env_allow': %s", pr->name, why);
			return -EINVAL;
		}
	}
	return 0;
}

static int validate_profile(const struct policy_profile *pr, char *err, size_t errlen)
{
	char why[IPC_MAX_MESSAGE];
	bool under = false;

	if (!str_bounded(pr->name, sizeof(pr->name)) || !valid_simple_name(pr->name)) {
		set_err(err, errlen, "profile name is not 1-%u characters of [a-z0-9_-]",
			IPC_MAX_NAME);
		return -EINVAL;
	}
	if (!str_bounded(pr->language, sizeof(pr->language)) || !valid_simple_name(pr->language)) {
		set_err(err, errlen, "profile '%s': key 'language': %s", pr->name,
			pr->language[0] ? "not 1-64 characters of [a-z0-9_-]"
					: "missing (required for a new profile)");
		return -EINVAL;
	}
	if (!str_bounded(pr->interpreter, sizeof(pr->interpreter)) ||
	    !check_path(pr->interpreter, why, sizeof(why))) {
		set_err(err, errlen, "profile '%s': key 'interpreter': %s", pr->name,
			pr->interpreter[0] ? why : "missing (required for a new profile)");
		return -EINVAL;
	}
	if (!str_bounded(pr->code_name, sizeof(pr->code_name)) || !valid_code_name(pr->code_name)) {
		set_err(err, errlen, "profile '%s': key 'code_name': %s", pr->name,
			pr->code_name[0] ? "not a plain file name of [A-Za-z0-9._-]"
					 : "missing (required for a new profile)");
		return -EINVAL;
	}
	if (validate_lists(pr, err, errlen) < 0)
		return -EINVAL;
	for (size_t i = 0; i < pr->nro_paths && !under; i++)
		under = path_is_under(pr->interpreter, pr->ro_paths[i]);
	if (!under) {
		set_err(err, errlen,
			"profile '%s': key 'interpreter': '%s' is not under any ro_path", pr->name,
			pr->interpreter);
		return -EINVAL;
	}
	return validate_limits(pr, err, errlen);
}

static int validate_id_range(const char *key, uint64_t base, uint64_t count, char *err,
			     size_t errlen)
{
	if (base < MIN_JOB_ID) {
		set_err(err, errlen,
			"global: key '%s': %llu is below %llu: job ids would collide "
			"with system ids",
			key, (unsigned long long)base, MIN_JOB_ID);
		return -EINVAL;
	}
	if (base + count - 1 > MAX_ID) {
		set_err(err, errlen,
			"global: key '%s': %llu + uid_count %llu overflows the id range", key,
			(unsigned long long)base, (unsigned long long)count);
		return -EINVAL;
	}
	return 0;
}

static int validate_global(const struct policy *p, char *err, size_t errlen)
{
	char why[IPC_MAX_MESSAGE];

	if (p->nallow_uids > POLICY_MAX_ALLOWED_IDS || p->nallow_gids > POLICY_MAX_ALLOWED_IDS) {
		set_err(err, errlen, "global: key 'allow_uid': more than %u entries",
			POLICY_MAX_ALLOWED_IDS);
		return -EINVAL;
	}
	if (p->uid_count == 0) {
		set_err(err, errlen, "global: key 'uid_count': must not be zero");
		return -EINVAL;
	}
	if (validate_id_range("uid_base", p->uid_base, p->uid_count, err, errlen) < 0 ||
	    validate_id_range("gid_base", p->gid_base, p->uid_count, err, errlen) < 0)
		return -EINVAL;
	/* Each slot uses two outside ids: the cell's setup root and the
	 * sandboxed program. */
	if (p->max_jobs == 0 || p->max_jobs > p->uid_count / 2) {
		set_err(err, errlen,
			"global: key 'max_jobs': %u is not between 1 and uid_count/2 (%u)",
			p->max_jobs, p->uid_count / 2);
		return -EINVAL;
	}
	if (p->sandbox_uid == 0 || (uint64_t)p->sandbox_uid > MAX_ID) {
		set_err(err, errlen, "global: key 'sandbox_uid': must be between 1 and %llu",
			MAX_ID);
		return -EINVAL;
	}
	if (p->sandbox_gid == 0 || (uint64_t)p->sandbox_gid > MAX_ID) {
		set_err(err, errlen, "global: key 'sandbox_gid': must be between 1 and %llu",
			MAX_ID);
		return -EINVAL;
	}
	if (!str_bounded(p->hostname, sizeof(p->hostname)) || !valid_hostname(p->hostname)) {
		set_err(err, errlen, "global: key 'hostname': not 1-%u characters of [a-zA-Z0-9-.]",
			IPC_MAX_NAME);
		return -EINVAL;
	}
	if (p->cgroup != CGROUP_AUTO && p->cgroup != CGROUP_V1 && p->cgroup != CGROUP_V2) {
		set_err(err, errlen, "global: key 'cgroup': not auto, v1 or v2");
		return -EINVAL;
	}
	if (!str_bounded(p->cgroup_root, sizeof(p->cgroup_root)) ||
	    !check_cgroup_root(p->cgroup_root, why, sizeof(why))) {
		set_err(err, errlen, "global: key 'cgroup_root': %s", why);
		return -EINVAL;
	}
	if (p->cgroup_root[0] && ((p->cgroup == CGROUP_V1 && p->cgroup_root[0] == '/') ||
				  (p->cgroup == CGROUP_V2 && p->cgroup_root[0] != '/'))) {
		set_err(err, errlen, "global: key 'cgroup_root': must be %s for cgroup = %s",
			p->cgroup == CGROUP_V1 ? "a relative name" : "an absolute path",
			p->cgroup == CGROUP_V1 ? "v1" : "v2");
		return -EINVAL;
	}
	return 0;
}

int policy_validate(const struct policy *p, char *err, size_t errlen)
{
	if (!p)
		return -EINVAL;
	if (validate_global(p, err, errlen) < 0)
		return -EINVAL;
	if (p->nprofiles == 0) {
		set_err(err, errlen, "no profiles defined");
		return -EINVAL;
	}
	if (p->nprofiles > IPC_MAX_PROFILES) {
		set_err(err, errlen, "more than %u profiles", IPC_MAX_PROFILES);
		return -EINVAL;
	}
	for (size_t i = 0; i < p->nprofiles; i++) {
		if (validate_profile(&p->profiles[i], err, errlen) < 0)
			return -EINVAL;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(p->profiles[i].name, p->profiles[j].name) == 0) {
				set_err(err, errlen, "profile '%s': defined twice",
					p->profiles[i].name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ---- per-request checks ---- */

const struct policy_profile *policy_find_profile(const struct policy *p, const char *name)
{
	if (!p || !name)
		return NULL;
	for (size_t i = 0; i < p->nprofiles && i < IPC_MAX_PROFILES; i++)
		if (strncmp(p->profiles[i].name, name, sizeof(p->profiles[i].name)) == 0 &&
		    strlen(name) < sizeof(p->profiles[i].name))
			return &p->profiles[i];
	return NULL;
}

int policy_effective_limits(const struct policy_profile *prof, const struct ipc_limits *req,
			    struct ipc_limits *out, char *err, size_t errlen)
{
	struct ipc_limits eff;

	if (!prof || !req || !out)
		return -EINVAL;
	for (size_t i = 0; i < NLIMITS; i++) {
		const struct limit_field *f = &limit_fields[i];
		uint64_t v = limit_get(req, f), m = limit_get(&prof->maximum, f);

		if (v == 0)
			v = limit_get(&prof->defaults, f);
		if (v > m) {
			set_err(err, errlen, "%s %llu exceeds the profile maximum %llu", f->name,
				(unsigned long long)v, (unsigned long long)m);
			return -E2BIG;
		}
		*limit_ptr(&eff, f) = v;
	}
	*out = eff;
	return 0;
}

bool policy_peer_allowed(const struct policy *p, uid_t uid, gid_t gid)
{
	if (!p)
		return false;
	for (size_t i = 0; i < p->nallow_uids && i < POLICY_MAX_ALLOWED_IDS; i++)
		if (p->allow_uids[i] == uid)
			return true;
	for (size_t i = 0; i < p->nallow_gids && i < POLICY_MAX_ALLOWED_IDS; i++)
		if (p->allow_gids[i] == gid)
			return true;
	return false;
}

bool policy_env_allowed(const struct policy_profile *prof, const char *entry)
{
	const char *eq;
	size_t len, n;

	if (!prof || !entry)
		return false;
	len = strnlen(entry, IPC_MAX_ENV_LEN + 1);
	if (len > IPC_MAX_ENV_LEN)
		return false;
	eq = memchr(entry, '=', len);
	if (!eq)
		return false;
	n = (size_t)(eq - entry);
	/* Re-check the name even though the policy was validated: a hand-built
	 * policy must not be able to let PATH or LD_* through. */
	if (!valid_env_name(entry, n) || env_name_dangerous(entry, n))
		return false;
	for (size_t i = 0; i < prof->nenv_allow && i < IPC_MAX_ENV; i++)
		if (strnlen(prof->env_allow[i], IPC_MAX_NAME + 1) == n &&
		    memcmp(prof->env_allow[i], entry, n) == 0)
			return true;
	return false;
}

static void copy_bounded(char *dst, size_t cap, const char *src, size_t srccap)
{
	size_t n = strnlen(src, srccap);

	if (n >= cap)
		n = cap - 1;
	memset(dst, 0, cap);
	memcpy(dst, src, n);
}

void policy_to_hello(const struct policy *p, struct ipc_hello_ok *out)
{
	memset(out, 0, sizeof(*out));
	if (!p)
		return;
	for (size_t i = 0; i < p->nprofiles && i < IPC_MAX_PROFILES; i++) {
		const struct policy_profile *pr = &p->profiles[i];
		struct ipc_profile *o = &out->profiles[i];

		copy_bounded(o->name, sizeof(o->name), pr->name, sizeof(pr->name));
		copy_bounded(o->language, sizeof(o->language), pr->language, sizeof(pr->language));
		copy_bounded(o->interpreter, sizeof(o->interpreter), pr->interpreter,
			     sizeof(pr->interpreter));
		o->defaults = pr->defaults;
		o->maximum = pr->maximum;
		o->network = pr->network ? 1 : 0;
		out->nprofiles++;
	}
}
