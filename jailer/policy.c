/* The jailer's policy: the per-request checks (profiles, limits, environment
 * entries, peers) made against it, and the small helpers the other policy_*.c
 * files share (policy_internal.h).  Defaults are in policy_defaults.c, the
 * INI parser in policy_parse.c, consistency checks in policy_validate.c.
 * See policy.h for the format and etc/jailer.conf for a documented example. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "policy_internal.h"

/* Hard ceilings no policy may exceed: they keep arithmetic elsewhere far from
 * overflow and stay within what the kernel accepts for cgroup limits. */
#define CAP_TIME_MS 86400000ull	    /* one day */
#define CAP_SIZE_BYTES (1ull << 40) /* 1 TiB */
#define CAP_PIDS 4194304ull	    /* PID_MAX_LIMIT */

const struct limit_field pol_limit_fields[] = {
    {"wall_ms", offsetof(struct ipc_limits, wall_ms), LK_TIME, CAP_TIME_MS},
    {"cpu_ms", offsetof(struct ipc_limits, cpu_ms), LK_TIME, CAP_TIME_MS},
    {"memory", offsetof(struct ipc_limits, memory_bytes), LK_SIZE, CAP_SIZE_BYTES},
    {"pids", offsetof(struct ipc_limits, pids), LK_COUNT, CAP_PIDS},
    {"tmpfs", offsetof(struct ipc_limits, tmpfs_bytes), LK_SIZE, CAP_SIZE_BYTES},
    {"output", offsetof(struct ipc_limits, output_bytes), LK_SIZE, CAP_SIZE_BYTES},
};
const size_t pol_nlimits = sizeof(pol_limit_fields) / sizeof(pol_limit_fields[0]);

uint64_t *pol_limit_ptr(struct ipc_limits *l, const struct limit_field *f)
{
	return (uint64_t *)(void *)((char *)l + f->off);
}

uint64_t pol_limit_get(const struct ipc_limits *l, const struct limit_field *f)
{
	return *(const uint64_t *)(const void *)((const char *)l + f->off);
}

void pol_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Copy into a fixed array, zero-filling the rest so whole structs compare. */
int pol_copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		return -ENAMETOOLONG;
	memset(dst, 0, cap);
	memcpy(dst, src, n);
	return 0;
}

/* ---- character classes (ASCII only: never locale dependent) ---- */

bool pol_is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return pol_is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

bool pol_is_printable(char c)
{
	return c >= 0x20 && c <= 0x7e;
}

bool pol_valid_simple_name(const char *s)
{
	size_t n = strnlen(s, IPC_MAX_NAME + 1);

	if (n == 0 || n > IPC_MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!pol_is_lower_alnum(s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

bool pol_valid_env_name(const char *s, size_t n)
{
	if (n == 0 || n > IPC_MAX_NAME || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '_')
			return false;
	return true;
}

bool pol_valid_hostname(const char *s)
{
	size_t n = strnlen(s, IPC_MAX_NAME + 1);

	if (n == 0 || n > IPC_MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

bool pol_valid_code_name(const char *s)
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
bool pol_env_name_dangerous(const char *name, size_t n)
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
bool pol_check_path(const char *s, char *why, size_t whylen)
{
	size_t n = strnlen(s, IPC_MAX_PATH + 1);

	if (n == 0) {
		pol_set_err(why, whylen, "missing");
		return false;
	}
	if (n > IPC_MAX_PATH) {
		pol_set_err(why, whylen, "longer than %u characters", IPC_MAX_PATH);
		return false;
	}
	if (s[0] != '/') {
		pol_set_err(why, whylen, "'%s' is not an absolute path", s);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!pol_is_printable(s[i])) {
			pol_set_err(why, whylen, "path contains a non-printable character");
			return false;
		}
	}
	if (strstr(s, "..") || strstr(s, "//")) {
		pol_set_err(why, whylen, "'%s' contains '..' or '//'", s);
		return false;
	}
	if (n > 1 && s[n - 1] == '/') {
		pol_set_err(why, whylen, "'%s' ends with '/'", s);
		return false;
	}
	return true;
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
	for (size_t i = 0; i < pol_nlimits; i++) {
		const struct limit_field *f = &pol_limit_fields[i];
		uint64_t v = pol_limit_get(req, f), m = pol_limit_get(&prof->maximum, f);

		if (v == 0)
			v = pol_limit_get(&prof->defaults, f);
		if (v > m) {
			pol_set_err(err, errlen, "%s %llu exceeds the profile maximum %llu",
				    f->name, (unsigned long long)v, (unsigned long long)m);
			return -E2BIG;
		}
		*pol_limit_ptr(&eff, f) = v;
	}
	*out = eff;
	return 0;
}

static bool gid_allowed(const struct policy *p, gid_t gid)
{
	for (size_t i = 0; i < p->nallow_gids && i < POLICY_MAX_ALLOWED_IDS; i++)
		if (p->allow_gids[i] == gid)
			return true;
	return false;
}

bool policy_peer_allowed(const struct policy *p, uid_t uid, gid_t gid, const gid_t *groups,
			 size_t ngroups)
{
	if (!p)
		return false;
	for (size_t i = 0; i < p->nallow_uids && i < POLICY_MAX_ALLOWED_IDS; i++)
		if (p->allow_uids[i] == uid)
			return true;
	if (gid_allowed(p, gid))
		return true;
	for (size_t i = 0; groups && i < ngroups; i++)
		if (gid_allowed(p, groups[i]))
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
	if (!pol_valid_env_name(entry, n) || pol_env_name_dangerous(entry, n))
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
