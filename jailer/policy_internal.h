/* Private to jailer/policy*.c: helpers and tables shared by the policy's
 * defaults, parser, validation and queries.  Nothing else includes this
 * header; the public interface is policy.h. */
#ifndef CELLGATE_POLICY_INTERNAL_H
#define CELLGATE_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* Job uids/gids must stay clear of every system and regular user. */
#define MIN_JOB_ID 65536ull
#define MAX_ID 0xFFFFFFFEull /* (uid_t)-1 means "no change" to the kernel */

enum limit_kind { LK_TIME, LK_SIZE, LK_COUNT };

struct limit_field {
	const char *name;
	size_t off;
	enum limit_kind kind;
	uint64_t cap;
};

/* One entry per struct ipc_limits field; pol_nlimits entries (policy.c). */
extern const struct limit_field pol_limit_fields[];
extern const size_t pol_nlimits;

/* ---- policy.c: small shared helpers ---- */

uint64_t *pol_limit_ptr(struct ipc_limits *l, const struct limit_field *f);
uint64_t pol_limit_get(const struct ipc_limits *l, const struct limit_field *f);
__attribute__((format(printf, 3, 4))) void pol_set_err(char *err, size_t errlen, const char *fmt,
						       ...);
int pol_copy_str(char *dst, size_t cap, const char *src);
/* Character classes and names (ASCII only: never locale dependent). */
bool pol_is_lower_alnum(char c);
bool pol_is_printable(char c);
bool pol_valid_simple_name(const char *s);
bool pol_valid_env_name(const char *s, size_t n);
bool pol_valid_hostname(const char *s);
bool pol_valid_code_name(const char *s);
bool pol_env_name_dangerous(const char *name, size_t n);
bool pol_check_path(const char *s, char *why, size_t whylen);

/* ---- policy_defaults.c ---- */

void pol_profile_new(struct policy_profile *pr, const char *name);
/* Fill *pr with the built-in profile `name`; false if there is none. */
bool pol_profile_builtin(struct policy_profile *pr, const char *name);

/* ---- policy_validate.c: entry checks the parser shares; each returns false
 * with the reason in why ---- */

bool pol_check_cgroup_root(const char *s, char *why, size_t whylen);
bool pol_check_ro_path(const struct policy_profile *pr, size_t upto, const char *val, char *why,
		       size_t whylen);
bool pol_check_env_entry(const struct policy_profile *pr, size_t upto, const char *val, char *why,
			 size_t whylen);
bool pol_check_env_allow(const struct policy_profile *pr, size_t upto, const char *val, char *why,
			 size_t whylen);
bool pol_check_limit_value(const struct limit_field *f, uint64_t v, char *why, size_t whylen);

#endif
