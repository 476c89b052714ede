/* The policy file's INI parser: value parsers, the key tables of [global]
 * and [profile NAME], policy_parse and policy_load.  See policy.h for the
 * format and etc/jailer.conf for a documented example. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "policy_internal.h"

#define LINE_MAX_CHARS 4096u
#define PW_BUF_BYTES 16384u

/* ---- value parsers: each returns 0 or -EINVAL with the reason in why ---- */

static int parse_digits(const char *s, uint64_t *v, const char **end, char *why, size_t whylen)
{
	uint64_t x = 0;
	const char *q = s;

	if (*q < '0' || *q > '9') {
		pol_set_err(why, whylen, "'%s' is not a non-negative integer", s);
		return -EINVAL;
	}
	for (; *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');

		if (x > (UINT64_MAX - d) / 10) {
			pol_set_err(why, whylen, "'%s' is out of range", s);
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
		pol_set_err(why, whylen, "'%s' is out of range", s);
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
		pol_set_err(why, whylen, "'%s' has trailing junk '%s'", s, end);
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
	pol_set_err(why, whylen, "'%s' has an unknown suffix '%s' (use K, M or G)", s, end);
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
	pol_set_err(why, whylen, "'%s' has an unknown suffix '%s' (use ms or s)", s, end);
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
	pol_set_err(why, whylen, "'%s' is not yes, no, true or false", s);
	return -EINVAL;
}

static int parse_numeric_id(const char *s, uint32_t *id, char *why, size_t whylen)
{
	uint64_t v;
	int r = parse_count(s, &v, why, whylen);

	if (r < 0)
		return r;
	if (v > MAX_ID) {
		pol_set_err(why, whylen, "'%s' is out of range", s);
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
		pol_set_err(why, whylen, "cannot look up '%s': %s", s, strerror(r));
	else
		pol_set_err(why, whylen, "no such %s '%s'", group ? "group" : "user", s);
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
		pol_set_err(why, whylen, "more than %u entries", POLICY_MAX_ALLOWED_IDS);
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
		pol_set_err(why, whylen, "%s is below %llu: job ids would collide with system ids",
			    val, MIN_JOB_ID);
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
		pol_set_err(why, whylen, "must not be zero");
		return -EINVAL;
	}
	if (v > UINT32_MAX) {
		pol_set_err(why, whylen, "'%s' is out of range", val);
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
		pol_set_err(why, whylen, "must not be 0 (root inside the cell)");
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
	if (!pol_valid_hostname(val)) {
		pol_set_err(why, whylen, "'%s' is not 1-%u characters of [a-zA-Z0-9-.]", val,
			    IPC_MAX_NAME);
		return -EINVAL;
	}
	return pol_copy_str(st->p->hostname, sizeof(st->p->hostname), val);
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
		pol_set_err(why, whylen, "'%s' is not auto, v1 or v2", val);
		return -EINVAL;
	}
	return 0;
}

static int k_cgroup_root(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!pol_check_cgroup_root(val, why, whylen))
		return -EINVAL;
	return pol_copy_str(st->p->cgroup_root, sizeof(st->p->cgroup_root), val);
}

static int k_favordynmods(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return parse_bool(val, &st->p->v1_favordynmods, why, whylen);
}

static int k_language(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!pol_valid_simple_name(val)) {
		pol_set_err(why, whylen, "'%s' is not 1-%u characters of [a-z0-9_-]", val,
			    IPC_MAX_NAME);
		return -EINVAL;
	}
	return pol_copy_str(st->prof->language, sizeof(st->prof->language), val);
}

static int k_interpreter(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!pol_check_path(val, why, whylen))
		return -EINVAL;
	return pol_copy_str(st->prof->interpreter, sizeof(st->prof->interpreter), val);
}

static int k_code_name(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	if (!pol_valid_code_name(val)) {
		pol_set_err(why, whylen, "'%s' is not a plain file name of [A-Za-z0-9._-]", val);
		return -EINVAL;
	}
	return pol_copy_str(st->prof->code_name, sizeof(st->prof->code_name), val);
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
		pol_set_err(why, whylen, "more than %u entries", POLICY_MAX_ARGS);
		return -EINVAL;
	}
	if (strlen(val) > IPC_MAX_PATH) {
		pol_set_err(why, whylen, "longer than %u characters", IPC_MAX_PATH);
		return -EINVAL;
	}
	(void)pol_copy_str(pr->args[pr->nargs], sizeof(pr->args[0]), val);
	pr->nargs++;
	return 0;
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
		pol_set_err(why, whylen, "more than %u entries", POLICY_MAX_RO_PATHS);
		return -EINVAL;
	}
	if (!pol_check_ro_path(pr, pr->nro_paths, val, why, whylen))
		return -EINVAL;
	(void)pol_copy_str(pr->ro_paths[pr->nro_paths], sizeof(pr->ro_paths[0]), val);
	pr->nro_paths++;
	return 0;
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
		pol_set_err(why, whylen, "more than %u entries", IPC_MAX_ENV);
		return -EINVAL;
	}
	if (!pol_check_env_entry(pr, pr->nenv, val, why, whylen))
		return -EINVAL;
	(void)pol_copy_str(pr->env[pr->nenv], sizeof(pr->env[0]), val);
	pr->nenv++;
	return 0;
}

static int k_env_allow(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	struct policy_profile *pr = st->prof;

	if (pr->nenv_allow >= IPC_MAX_ENV) {
		pol_set_err(why, whylen, "more than %u entries", IPC_MAX_ENV);
		return -EINVAL;
	}
	if (!pol_check_env_allow(pr, pr->nenv_allow, val, why, whylen))
		return -EINVAL;
	(void)pol_copy_str(pr->env_allow[pr->nenv_allow], sizeof(pr->env_allow[0]), val);
	pr->nenv_allow++;
	return 0;
}

static int k_network(struct parse_state *st, const char *val, char *why, size_t whylen)
{
	return parse_bool(val, &st->prof->network, why, whylen);
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
	if (!pol_check_limit_value(f, v, why, whylen))
		return -EINVAL;
	*pol_limit_ptr(max ? &st->prof->maximum : &st->prof->defaults, f) = v;
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
		for (size_t j = 0; rest && j < pol_nlimits; j++) {
			if (strcmp(pol_limit_fields[j].name, rest) == 0) {
				lf = &pol_limit_fields[j];
				bit = (unsigned)(NPROFILE_KEYS + 2 * j + (lmax ? 1 : 0));
			}
		}
	}
	if (i == n && !lf) {
		pol_set_err(why, whylen, "unknown key in [%s]",
			    st->sec == SEC_GLOBAL ? "global" : "profile");
		return -EINVAL;
	}
	if (lf || !tab[i].repeatable) {
		if (st->seen & (1ull << bit)) {
			pol_set_err(why, whylen,
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
			pol_set_err(err, errlen, "line %u: section [global]: appears twice",
				    lineno);
			return -EINVAL;
		}
		st->global_done = true;
		st->sec = SEC_GLOBAL;
		st->seen = 0;
		return 0;
	}
	if (strncmp(inner, "profile", 7) != 0 || (inner[7] != ' ' && inner[7] != '\t')) {
		pol_set_err(err, errlen, "line %u: section [%.64s]: unknown section", lineno,
			    inner);
		return -EINVAL;
	}
	name = trim(inner + 7);
	if (!pol_valid_simple_name(name)) {
		pol_set_err(
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
		pol_set_err(err, errlen, "line %u: section [profile %s]: appears twice", lineno,
			    name);
		return -EINVAL;
	}
	if (p->nprofiles >= IPC_MAX_PROFILES) {
		pol_set_err(err, errlen, "line %u: section [profile %s]: more than %u profiles",
			    lineno, name, IPC_MAX_PROFILES);
		return -EINVAL;
	}
	st->prof = &p->profiles[p->nprofiles++];
	if (!pol_profile_builtin(st->prof, name))
		pol_profile_new(st->prof, name);
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
			pol_set_err(err, errlen, "line %u: contains a control character", lineno);
			return -EINVAL;
		}
	}
	n = strlen(line);
	if (line[0] == '[') {
		if (line[n - 1] != ']') {
			pol_set_err(err, errlen, "line %u: malformed section header", lineno);
			return -EINVAL;
		}
		line[n - 1] = '\0';
		return open_section(st, line + 1, lineno, err, errlen);
	}
	eq = strchr(line, '=');
	if (!eq) {
		pol_set_err(err, errlen, "line %u: malformed line (expected 'key = value')",
			    lineno);
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (key[0] == '\0') {
		pol_set_err(err, errlen, "line %u: malformed line (empty key)", lineno);
		return -EINVAL;
	}
	for (const char *c = key; *c; c++) {
		if (!pol_is_lower_alnum(*c) && *c != '_') {
			pol_set_err(err, errlen, "line %u: malformed key (use a-z, 0-9, '_')",
				    lineno);
			return -EINVAL;
		}
	}
	if (st->sec == SEC_NONE) {
		pol_set_err(err, errlen, "line %u: key '%s': outside of any section", lineno, key);
		return -EINVAL;
	}
	if (val[0] == '\0' && strcmp(key, "cgroup_root") != 0) {
		pol_set_err(err, errlen, "line %u: key '%s': empty value", lineno, key);
		return -EINVAL;
	}
	why[0] = '\0';
	r = dispatch_key(st, key, val, why, sizeof(why));
	if (r < 0) {
		pol_set_err(err, errlen, "line %u: key '%s': %s", lineno, key,
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
	pol_set_err(err, errlen, "%s", "");
	policy_defaults(p, starter_uid);
	if (len > POLICY_MAX_FILE_BYTES) {
		pol_set_err(err, errlen, "policy text is larger than %u bytes",
			    POLICY_MAX_FILE_BYTES);
		r = -EINVAL;
		goto out;
	}
	nul = len ? memchr(text, '\0', len) : NULL;
	if (nul) {
		unsigned l = 1;

		for (const char *c = text; c < nul; c++)
			l += *c == '\n';
		pol_set_err(err, errlen, "line %u: contains a NUL byte", l);
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
			pol_set_err(err, errlen, "line %u: longer than %u characters", lineno,
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
			pol_set_err(err, errlen, "%s: is a symbolic link; refusing it", path);
		else
			pol_set_err(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &stbuf) < 0) {
		r = -errno;
		pol_set_err(err, errlen, "%s: fstat: %s", path, strerror(-r));
		goto close;
	}
	r = -EPERM;
	if (!S_ISREG(stbuf.st_mode)) {
		pol_set_err(err, errlen, "%s: not a regular file", path);
		goto close;
	}
	if (stbuf.st_uid != 0 && (require_root_owned || stbuf.st_uid != starter_uid)) {
		pol_set_err(err, errlen, "%s: owned by uid %u, must be owned by root%s", path,
			    (unsigned)stbuf.st_uid,
			    require_root_owned ? "" : " or the starting user");
		goto close;
	}
	if (stbuf.st_mode & (S_IWGRP | S_IWOTH)) {
		pol_set_err(err, errlen, "%s: writable by group or others (mode %04o)", path,
			    (unsigned)(stbuf.st_mode & 07777));
		goto close;
	}
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		pol_set_err(err, errlen, "%s: out of memory", path);
		goto close;
	}
	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			pol_set_err(err, errlen, "%s: read: %s", path, strerror(-r));
			goto free;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > POLICY_MAX_FILE_BYTES) {
		r = -EFBIG;
		pol_set_err(err, errlen, "%s: larger than %u bytes", path, POLICY_MAX_FILE_BYTES);
		goto free;
	}
	r = policy_parse(buf, got, starter_uid, p, err, errlen);
free:
	free(buf);
close:
	close(fd);
	return r;
}
