/* The jailer's policy: the root-owned INI file that is the only thing the
 * jailer trusts.  See etc/jailer.conf for the documented example.
 *
 * Format: `[global]` and one `[profile NAME]` section per profile; `key =
 * value` lines; `#` or `;` start a comment line; blank lines ignored; keys
 * may repeat only where documented (`ro_path`, `env`, `env_allow`, `arg`).
 * Sizes take an optional K/M/G suffix (powers of 1024), times take ms/s.
 */
#ifndef CELLGATE_POLICY_H
#define CELLGATE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc.h"

#define POLICY_DEFAULT_PATH "/etc/cellgate/jailer.conf"
#define POLICY_MAX_RO_PATHS 32
#define POLICY_MAX_ARGS 16
#define POLICY_MAX_FILE_BYTES (256u * 1024u)
#define POLICY_MAX_ALLOWED_IDS 16

enum cgroup_mode { CGROUP_AUTO = 0, CGROUP_V1, CGROUP_V2 };

struct policy_profile {
	char name[IPC_MAX_NAME + 1];
	char language[IPC_MAX_NAME + 1];
	char interpreter[IPC_MAX_PATH + 1]; /* absolute path inside the cell */
	/* argv after argv[0]; the literal "{code}" is replaced by the code path */
	size_t nargs;
	char args[POLICY_MAX_ARGS][IPC_MAX_PATH + 1];
	char code_name[IPC_MAX_NAME + 1]; /* file name of the code in /code, e.g. main.py */
	/* Read-only host paths bound into the cell at the same place. */
	size_t nro_paths;
	char ro_paths[POLICY_MAX_RO_PATHS][IPC_MAX_PATH + 1];
	/* Fixed environment of the interpreter, "KEY=VALUE". */
	size_t nenv;
	char env[IPC_MAX_ENV][IPC_MAX_ENV_LEN + 1];
	/* Names of variables a RUN request may add (never PATH, LD_*, ...). */
	size_t nenv_allow;
	char env_allow[IPC_MAX_ENV][IPC_MAX_NAME + 1];
	struct ipc_limits defaults;
	struct ipc_limits maximum;
	bool network;
};

struct policy {
	/* Peers allowed to connect (SO_PEERCRED): a uid in allow_uids OR a gid
	 * in allow_gids.  Empty lists mean: only the uid that started the jailer. */
	size_t nallow_uids, nallow_gids;
	uid_t allow_uids[POLICY_MAX_ALLOWED_IDS];
	gid_t allow_gids[POLICY_MAX_ALLOWED_IDS];
	/* Outside uid/gid range: job slot i maps the cell's setup root to
	 * uid_base + 2i and the sandboxed program to uid_base + 2i + 1 (same
	 * for gids), so no two concurrent jobs share an outside id. */
	uid_t uid_base;
	gid_t gid_base;
	uint32_t uid_count; /* size of both ranges */
	uint32_t max_jobs;  /* concurrent jobs, <= uid_count / 2 */
	/* Inside the cell. */
	uid_t sandbox_uid;
	gid_t sandbox_gid;
	char hostname[IPC_MAX_NAME + 1];
	enum cgroup_mode cgroup;
	/* Where job cgroups go: empty = derived from the jailer's own cgroup.
	 * For v2 an absolute path of a directory in a cgroup2 fs (or, in tests, a
	 * scratch directory); for v1 a name under each controller's mount. */
	char cgroup_root[IPC_MAX_PATH + 1];
	bool v1_favordynmods; /* see perf-anchors §0; README explains */
	size_t nprofiles;
	struct policy_profile profiles[IPC_MAX_PROFILES];
};

/* The safe built-in default: profiles python and javascript with the limits
 * of the issue (10 s wall, 256 MiB, no swap, 64 pids, 1 MiB per stream,
 * 64 MiB tmpfs, no network).  `starter_uid` is the only allowed peer. */
void policy_defaults(struct policy *p, uid_t starter_uid);

/* Parse INI text into *p, starting from policy_defaults().  On error returns
 * -EINVAL and writes "line N: key 'k': what is wrong" into err. */
int policy_parse(const char *text, size_t len, uid_t starter_uid, struct policy *p, char *err,
		 size_t errlen);

/* Read and parse a file.  The file must be a regular file owned by root (or
 * by the starter, when require_root_owned is false) and not writable by
 * group or others.  -ENOENT is returned untouched so callers can fall back
 * to the default. */
int policy_load(const char *path, bool require_root_owned, uid_t starter_uid, struct policy *p,
		char *err, size_t errlen);

/* Check consistency (defaults <= maxima, ranges non-empty, paths absolute,
 * interpreter under some ro_path, ...).  Called by policy_parse; exposed
 * for tests.  Same error contract. */
int policy_validate(const struct policy *p, char *err, size_t errlen);

const struct policy_profile *policy_find_profile(const struct policy *p, const char *name);

/* Resolve a RUN's requested limits against a profile: zero fields take the
 * default; any field above the maximum fails with -E2BIG and names the
 * field in err.  Writes the effective limits to *out. */
int policy_effective_limits(const struct policy_profile *prof, const struct ipc_limits *req,
			    struct ipc_limits *out, char *err, size_t errlen);

/* May a peer with these credentials use the jailer?  Its uid must be an
 * allow_uid, or its primary gid or one of its `ngroups` supplementary
 * `groups` an allow_gid. */
bool policy_peer_allowed(const struct policy *p, uid_t uid, gid_t gid, const gid_t *groups,
			 size_t ngroups);

/* Is "KEY=VALUE" allowed as a request environment entry for this profile? */
bool policy_env_allowed(const struct policy_profile *prof, const char *entry);

/* Fill a HELLO_OK from the policy. */
void policy_to_hello(const struct policy *p, struct ipc_hello_ok *out);

#endif
