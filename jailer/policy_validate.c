/* Policy consistency: policy_validate, and the per-entry checks the parser
 * shares with it so that a parsed file and a hand-built policy are held to
 * the same rules. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "policy.h"
#include "policy_internal.h"

static bool str_bounded(const char *s, size_t cap)
{
	return strnlen(s, cap) < cap;
}

static bool path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* ---- entry checks, shared with the parser ---- */

/* Absolute for v2, a relative name for v1; the mode may come later in the
 * file, so the combination is checked by policy_validate. */
bool pol_check_cgroup_root(const char *s, char *why, size_t whylen)
{
	size_t n = strnlen(s, IPC_MAX_PATH + 1);

	if (n == 0)
		return true;
	if (n > IPC_MAX_PATH) {
		pol_set_err(why, whylen, "longer than %u characters", IPC_MAX_PATH);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!pol_is_printable(s[i]) || s[i] == ' ') {
			pol_set_err(why, whylen, "contains a space or a non-printable character");
			return false;
		}
	}
	if (strstr(s, "..") || strstr(s, "//") || s[n - 1] == '/') {
		pol_set_err(why, whylen, "'%s' contains '..' or '//' or ends with '/'", s);
		return false;
	}
	return true;
}

bool pol_check_ro_path(const struct policy_profile *pr, size_t upto, const char *val, char *why,
		       size_t whylen)
{
	if (!pol_check_path(val, why, whylen))
		return false;
	if (strcmp(val, "/") == 0) {
		pol_set_err(why, whylen, "the host's root directory may not be bound");
		return false;
	}
	for (size_t i = 0; i < upto; i++) {
		if (strcmp(pr->ro_paths[i], val) == 0) {
			pol_set_err(why, whylen, "'%s' is listed twice", val);
			return false;
		}
	}
	return true;
}

bool pol_check_env_entry(const struct policy_profile *pr, size_t upto, const char *val, char *why,
			 size_t whylen)
{
	const char *eq = strchr(val, '=');
	size_t n;

	if (strnlen(val, IPC_MAX_ENV_LEN + 1) > IPC_MAX_ENV_LEN) {
		pol_set_err(why, whylen, "longer than %u characters", IPC_MAX_ENV_LEN);
		return false;
	}
	if (!eq) {
		pol_set_err(why, whylen, "'%s' is not KEY=VALUE", val);
		return false;
	}
	n = (size_t)(eq - val);
	if (!pol_valid_env_name(val, n)) {
		pol_set_err(why, whylen, "'%.*s' is not a variable name", (int)n, val);
		return false;
	}
	for (size_t i = 0; i < upto; i++) {
		if (strncmp(pr->env[i], val, n + 1) == 0) {
			pol_set_err(why, whylen, "variable '%.*s' is set twice", (int)n, val);
			return false;
		}
	}
	return true;
}

bool pol_check_env_allow(const struct policy_profile *pr, size_t upto, const char *val, char *why,
			 size_t whylen)
{
	size_t n = strnlen(val, IPC_MAX_NAME + 1);

	if (!pol_valid_env_name(val, n)) {
		pol_set_err(why, whylen, "'%s' is not a variable name", val);
		return false;
	}
	if (pol_env_name_dangerous(val, n)) {
		pol_set_err(why, whylen, "'%s' may not be set by a request", val);
		return false;
	}
	for (size_t i = 0; i < upto; i++) {
		if (strcmp(pr->env_allow[i], val) == 0) {
			pol_set_err(why, whylen, "'%s' is listed twice", val);
			return false;
		}
	}
	return true;
}

bool pol_check_limit_value(const struct limit_field *f, uint64_t v, char *why, size_t whylen)
{
	if (v == 0) {
		pol_set_err(why, whylen, "must not be zero");
		return false;
	}
	if (v > f->cap) {
		pol_set_err(why, whylen, "%llu exceeds the hard ceiling %llu",
			    (unsigned long long)v, (unsigned long long)f->cap);
		return false;
	}
	return true;
}

/* ---- validation ---- */

static int validate_limits(const struct policy_profile *pr, char *err, size_t errlen)
{
	char why[128];

	for (size_t i = 0; i < pol_nlimits; i++) {
		const struct limit_field *f = &pol_limit_fields[i];
		uint64_t d = pol_limit_get(&pr->defaults, f), m = pol_limit_get(&pr->maximum, f);

		if (!pol_check_limit_value(f, d, why, sizeof(why))) {
			pol_set_err(err, errlen, "profile '%s': key 'default_%s': %s", pr->name,
				    f->name, why);
			return -EINVAL;
		}
		if (!pol_check_limit_value(f, m, why, sizeof(why))) {
			pol_set_err(err, errlen, "profile '%s': key 'max_%s': %s", pr->name,
				    f->name, why);
			return -EINVAL;
		}
		if (d > m) {
			pol_set_err(err, errlen,
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
		pol_set_err(err, errlen,
			    "profile '%s': too many arg, ro_path, env or env_allow entries",
			    pr->name);
		return -EINVAL;
	}
	for (size_t i = 0; i < pr->nargs; i++) {
		if (!str_bounded(pr->args[i], sizeof(pr->args[i])) || pr->args[i][0] == '\0') {
			pol_set_err(err, errlen,
				    "profile '%s': key 'arg': entry %zu is empty or too long",
				    pr->name, i + 1);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < pr->nro_paths; i++) {
		if (!str_bounded(pr->ro_paths[i], sizeof(pr->ro_paths[i])) ||
		    !pol_check_ro_path(pr, i, pr->ro_paths[i], why, sizeof(why))) {
			pol_set_err(err, errlen, "profile '%s': key 'ro_path': %s", pr->name, why);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < pr->nenv; i++) {
		if (!str_bounded(pr->env[i], sizeof(pr->env[i])) ||
		    !pol_check_env_entry(pr, i, pr->env[i], why, sizeof(why))) {
			pol_set_err(err, errlen, "profile '%s': key 'env': %s", pr->name, why);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < pr->nenv_allow; i++) {
		if (!str_bounded(pr->env_allow[i], sizeof(pr->env_allow[i])) ||
		    !pol_check_env_allow(pr, i, pr->env_allow[i], why, sizeof(why))) {
			pol_set_err(err, errlen, "profile '%s': key 'env_allow': %s", pr->name,
				    why);
			return -EINVAL;
		}
	}
	return 0;
}

static int validate_profile(const struct policy_profile *pr, char *err, size_t errlen)
{
	char why[IPC_MAX_MESSAGE];
	bool under = false;

	if (!str_bounded(pr->name, sizeof(pr->name)) || !pol_valid_simple_name(pr->name)) {
		pol_set_err(err, errlen, "profile name is not 1-%u characters of [a-z0-9_-]",
			    IPC_MAX_NAME);
		return -EINVAL;
	}
	if (!str_bounded(pr->language, sizeof(pr->language)) ||
	    !pol_valid_simple_name(pr->language)) {
		pol_set_err(err, errlen, "profile '%s': key 'language': %s", pr->name,
			    pr->language[0] ? "not 1-64 characters of [a-z0-9_-]"
					    : "missing (required for a new profile)");
		return -EINVAL;
	}
	if (!str_bounded(pr->interpreter, sizeof(pr->interpreter)) ||
	    !pol_check_path(pr->interpreter, why, sizeof(why))) {
		pol_set_err(err, errlen, "profile '%s': key 'interpreter': %s", pr->name,
			    pr->interpreter[0] ? why : "missing (required for a new profile)");
		return -EINVAL;
	}
	if (!str_bounded(pr->code_name, sizeof(pr->code_name)) ||
	    !pol_valid_code_name(pr->code_name)) {
		pol_set_err(err, errlen, "profile '%s': key 'code_name': %s", pr->name,
			    pr->code_name[0] ? "not a plain file name of [A-Za-z0-9._-]"
					     : "missing (required for a new profile)");
		return -EINVAL;
	}
	if (validate_lists(pr, err, errlen) < 0)
		return -EINVAL;
	for (size_t i = 0; i < pr->nro_paths && !under; i++)
		under = path_is_under(pr->interpreter, pr->ro_paths[i]);
	if (!under) {
		pol_set_err(err, errlen,
			    "profile '%s': key 'interpreter': '%s' is not under any ro_path",
			    pr->name, pr->interpreter);
		return -EINVAL;
	}
	return validate_limits(pr, err, errlen);
}

static int validate_id_range(const char *key, uint64_t base, uint64_t count, char *err,
			     size_t errlen)
{
	if (base < MIN_JOB_ID) {
		pol_set_err(err, errlen,
			    "global: key '%s': %llu is below %llu: job ids would collide "
			    "with system ids",
			    key, (unsigned long long)base, MIN_JOB_ID);
		return -EINVAL;
	}
	if (base + count - 1 > MAX_ID) {
		pol_set_err(err, errlen,
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
		pol_set_err(err, errlen, "global: key 'allow_uid': more than %u entries",
			    POLICY_MAX_ALLOWED_IDS);
		return -EINVAL;
	}
	if (p->uid_count == 0) {
		pol_set_err(err, errlen, "global: key 'uid_count': must not be zero");
		return -EINVAL;
	}
	if (validate_id_range("uid_base", p->uid_base, p->uid_count, err, errlen) < 0 ||
	    validate_id_range("gid_base", p->gid_base, p->uid_count, err, errlen) < 0)
		return -EINVAL;
	/* Each slot uses two outside ids: the cell's setup root and the
	 * sandboxed program. */
	if (p->max_jobs == 0 || p->max_jobs > p->uid_count / 2) {
		pol_set_err(err, errlen,
			    "global: key 'max_jobs': %u is not between 1 and uid_count/2 (%u)",
			    p->max_jobs, p->uid_count / 2);
		return -EINVAL;
	}
	if (p->sandbox_uid == 0 || (uint64_t)p->sandbox_uid > MAX_ID) {
		pol_set_err(err, errlen, "global: key 'sandbox_uid': must be between 1 and %llu",
			    MAX_ID);
		return -EINVAL;
	}
	if (p->sandbox_gid == 0 || (uint64_t)p->sandbox_gid > MAX_ID) {
		pol_set_err(err, errlen, "global: key 'sandbox_gid': must be between 1 and %llu",
			    MAX_ID);
		return -EINVAL;
	}
	if (!str_bounded(p->hostname, sizeof(p->hostname)) || !pol_valid_hostname(p->hostname)) {
		pol_set_err(err, errlen,
			    "global: key 'hostname': not 1-%u characters of [a-zA-Z0-9-.]",
			    IPC_MAX_NAME);
		return -EINVAL;
	}
	if (p->cgroup != CGROUP_AUTO && p->cgroup != CGROUP_V1 && p->cgroup != CGROUP_V2) {
		pol_set_err(err, errlen, "global: key 'cgroup': not auto, v1 or v2");
		return -EINVAL;
	}
	if (!str_bounded(p->cgroup_root, sizeof(p->cgroup_root)) ||
	    !pol_check_cgroup_root(p->cgroup_root, why, sizeof(why))) {
		pol_set_err(err, errlen, "global: key 'cgroup_root': %s", why);
		return -EINVAL;
	}
	if (p->cgroup_root[0] && ((p->cgroup == CGROUP_V1 && p->cgroup_root[0] == '/') ||
				  (p->cgroup == CGROUP_V2 && p->cgroup_root[0] != '/'))) {
		pol_set_err(err, errlen, "global: key 'cgroup_root': must be %s for cgroup = %s",
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
		pol_set_err(err, errlen, "no profiles defined");
		return -EINVAL;
	}
	if (p->nprofiles > IPC_MAX_PROFILES) {
		pol_set_err(err, errlen, "more than %u profiles", IPC_MAX_PROFILES);
		return -EINVAL;
	}
	for (size_t i = 0; i < p->nprofiles; i++) {
		if (validate_profile(&p->profiles[i], err, errlen) < 0)
			return -EINVAL;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(p->profiles[i].name, p->profiles[j].name) == 0) {
				pol_set_err(err, errlen, "profile '%s': defined twice",
					    p->profiles[i].name);
				return -EINVAL;
			}
		}
	}
	return 0;
}
