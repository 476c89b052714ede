/* The policy file's INI parser: the key tables of [global] and
 * [profile NAME], policy_parse and policy_load.  The INI dialect, the value
 * syntax and the safe file read are common/'s, shared with the gateway's
 * files.  See policy.h for the format and etc/jailer.conf for a documented
 * example. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf_file.h"
#include "conf_value.h"
#include "ini.h"
#include "policy.h"
#include "policy_internal.h"

#define PW_BUF_BYTES 16384u

/* ---- values only the policy has (ids, positive counts), on top of
 * common/conf_value.h; each returns 0 or -EINVAL with the reason in why ---- */

/* Any count, no bounds: the callers below word their own range errors. */
static int parse_count(const char *s, uint64_t *v, char *why, size_t whylen)
{
	return conf_parse_count(s, 0, UINT64_MAX, v, why, whylen);
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
	return conf_parse_bool(val, &st->p->v1_favordynmods, why, whylen);
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
	return conf_parse_bool(val, &st->prof->network, why, whylen);
}

static int set_limit(struct parse_state *st, const struct limit_field *f, bool max, const char *val,
		     char *why, size_t whylen)
{
	enum conf_kind kind = f->kind == LK_TIME   ? CONF_DURATION_MS
			      : f->kind == LK_SIZE ? CONF_SIZE
						   : CONF_COUNT;
	uint64_t v;
	/* The limit's own bounds are pol_check_limit_value's, worded there. */
	int r = conf_parse_number(kind, val, 0, UINT64_MAX, &v, why, whylen);

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

static int open_section(void *ctx, const char *inner, char *why, size_t whylen)
{
	struct parse_state *st = ctx;
	struct policy *p = st->p;
	const char *name;

	if (strcmp(inner, "global") == 0) {
		if (st->global_done) {
			pol_set_err(why, whylen, "section [global]: appears twice");
			return -EINVAL;
		}
		st->global_done = true;
		st->sec = SEC_GLOBAL;
		st->seen = 0;
		return 0;
	}
	if (strncmp(inner, "profile", 7) != 0 || (inner[7] != ' ' && inner[7] != '\t')) {
		pol_set_err(why, whylen, "section [%.64s]: unknown section", inner);
		return -EINVAL;
	}
	/* The walker trimmed both ends; the name starts after the blanks. */
	name = inner + 7;
	while (*name == ' ' || *name == '\t')
		name++;
	if (!pol_valid_simple_name(name)) {
		pol_set_err(why, whylen,
			    "section [profile %.64s]: name is not 1-%u characters of [a-z0-9_-]",
			    name, IPC_MAX_NAME);
		return -EINVAL;
	}
	/* Naming any profile means the file lists exactly the profiles to offer. */
	if (!st->profiles_replaced) {
		memset(p->profiles, 0, sizeof(p->profiles));
		p->nprofiles = 0;
		st->profiles_replaced = true;
	}
	if (policy_find_profile(p, name)) {
		pol_set_err(why, whylen, "section [profile %s]: appears twice", name);
		return -EINVAL;
	}
	if (p->nprofiles >= IPC_MAX_PROFILES) {
		pol_set_err(why, whylen, "section [profile %s]: more than %u profiles", name,
			    IPC_MAX_PROFILES);
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

static int on_key(void *ctx, const char *key, const char *val, char *why, size_t whylen)
{
	struct parse_state *st = ctx;
	char inner[IPC_MAX_MESSAGE];

	/* The walker refuses keys before any header; should that ever change,
	 * fail closed here rather than write through a NULL profile. */
	if (st->sec == SEC_NONE)
		return -EINVAL;
	if (val[0] == '\0' && strcmp(key, "cgroup_root") != 0) {
		pol_set_err(why, whylen, "key '%s': empty value", key);
		return -EINVAL;
	}
	inner[0] = '\0';
	if (dispatch_key(st, key, val, inner, sizeof(inner)) < 0) {
		pol_set_err(why, whylen, "key '%s': %s", key, inner[0] ? inner : "invalid value");
		return -EINVAL;
	}
	return 0;
}

int policy_parse(const char *text, size_t len, uid_t starter_uid, struct policy *p, char *err,
		 size_t errlen)
{
	static const struct ini_handler handler = {open_section, on_key};
	struct parse_state st = {.p = p};
	int r;

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
	/* No name: the policy's messages say "line N: ...". */
	r = ini_parse(text, len, POLICY_MAX_FILE_BYTES, NULL, &handler, &st, err, errlen);
	if (r == 0)
		r = policy_validate(p, err, errlen);
out:
	if (r < 0) {
		/* Leave nothing usable behind: no profiles, no peers. */
		memset(p, 0, sizeof(*p));
		return -EINVAL;
	}
	return 0;
}

struct owner_rule {
	bool require_root_owned;
	uid_t starter_uid;
};

/* Root's, or the starter's when the caller allows it: nobody else may
 * decide who runs what as which uid. */
static int check_owner(const struct stat *stbuf, const char *path, void *ctx, char *err,
		       size_t errlen)
{
	const struct owner_rule *o = ctx;

	if (stbuf->st_uid != 0 && (o->require_root_owned || stbuf->st_uid != o->starter_uid)) {
		pol_set_err(err, errlen, "%s: owned by uid %u, must be owned by root%s", path,
			    (unsigned)stbuf->st_uid,
			    o->require_root_owned ? "" : " or the starting user");
		return -EPERM;
	}
	return 0;
}

int policy_load(const char *path, bool require_root_owned, uid_t starter_uid, struct policy *p,
		char *err, size_t errlen)
{
	struct owner_rule owner = {require_root_owned, starter_uid};
	const struct conf_file_rules rules = {
	    .max_bytes = POLICY_MAX_FILE_BYTES,
	    .forbidden_mode = S_IWGRP | S_IWOTH,
	    .check_owner = check_owner,
	    .owner_ctx = &owner,
	};
	char *buf;
	size_t len;
	int r;

	if (!path || !p)
		return -EINVAL;
	r = conf_read_file(path, &rules, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	r = policy_parse(buf, len, starter_uid, p, err, errlen);
	free(buf);
	return r;
}
