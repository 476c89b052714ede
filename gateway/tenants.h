/* Tenants and their API keys: the tenants file (INI, see etc/tenants.conf),
 * key hashing and constant-time lookup, and the per-tenant limits the
 * gateway applies on top of the jailer's profile maxima.
 *
 * Keys are high-entropy random tokens ("cgk_" + 43 base64url characters,
 * 256 bits).  The file stores only "sha256:<64 hex>" of each key; a key's
 * id (for logs, metrics and the audit log) is the first 12 hex digits of
 * that hash - never the key itself.
 */
#ifndef CELLGATE_TENANTS_H
#define CELLGATE_TENANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec_backend.h"
#include "ipc.h"

#define TENANT_NAME_MAX 63	 /* [a-z0-9_-], 1..63 */
#define TENANT_MAX_KEYS 16	 /* per tenant */
#define TENANT_MAX_TENANTS 1024 /* per file */
#define TENANT_MAX_LANGUAGES 8
#define TENANT_KEY_ID_LEN 12 /* hex digits of the hash shown as the key id */
#define TENANT_KEY_PREFIX "cgk_"
#define TENANT_KEY_LEN 47 /* "cgk_" + 43 base64url chars (32 random bytes) */
#define TENANT_KEY_MAX_PRESENTED 256 /* longer keys are refused without hashing */
#define TENANT_MAX_FILE_BYTES (1u << 20)
#define TENANT_KEY_LINE_LEN 71 /* "sha256:" + 64 hex; tenant_key_generate's line */

struct tenant_key {
	uint8_t hash[32];		    /* SHA-256 of the key's bytes */
	char id[TENANT_KEY_ID_LEN + 1];	    /* hex prefix of hash, NUL-terminated */
};

struct tenant {
	char name[TENANT_NAME_MAX + 1];
	unsigned nkeys;
	struct tenant_key keys[TENANT_MAX_KEYS];
	/* Languages this tenant may run ("python", "javascript"; matched
	 * against ipc_profile.language).  Empty list in the file = error. */
	unsigned nlanguages;
	char languages[TENANT_MAX_LANGUAGES][IPC_MAX_NAME + 1];
	/* Ceilings applied to every allowed profile; a 0 field = no ceiling
	 * beyond the jailer's own maximum.  output_bytes is per stream. */
	struct ipc_limits ceiling;
	bool network;		     /* may use profiles that have network */
	unsigned max_concurrent_jobs; /* >= 1 */
	double rate_per_s;	     /* token bucket refill, requests per second, > 0 */
	unsigned burst;		     /* token bucket size, >= 1 */
	uint64_t cpu_seconds_per_hour; /* 0 = unlimited */
	unsigned max_sessions;	     /* 0 = the gateway's default */
};

struct tenant_table {
	size_t n;
	struct tenant *t; /* array of n */
};

/* Parse the tenants file.  Fails closed: unknown keys or sections, bad
 * values, duplicate tenant names, a key hash listed twice (in any tenant),
 * a file that is a symlink, not a regular file, larger than 1 MiB, or
 * writable by group or others -> -1 with a message naming file:line.
 * A tenant with no keys is allowed (the stdio local tenant needs none).
 * Returns 0 on success; free with tenants_free. */
int tenants_load(const char *path, struct tenant_table *out, char *err, size_t errlen);
/* Same from a buffer (used by tests and by tenants_load). `name` is used
 * in messages. */
int tenants_parse(const char *text, size_t len, const char *name, struct tenant_table *out,
		  char *err, size_t errlen);
void tenants_free(struct tenant_table *tt);

const struct tenant *tenants_find(const struct tenant_table *tt, const char *name);

/* Look up the tenant owning `key` (len bytes, not NUL-terminated).  Hashes
 * the key and compares the hash with EVERY stored hash using a
 * constant-time comparison (no early exit on a match), so the time does
 * not depend on which key matched or on how many bytes matched.  Returns
 * the tenant and sets *key_id to the matched key's id, or NULL. */
const struct tenant *tenants_authenticate(const struct tenant_table *tt, const char *key,
					  size_t len, const char **key_id);

/* A fresh key from getrandom(2): writes TENANT_KEY_LEN chars + NUL into
 * key (size >= TENANT_KEY_LEN + 1) and the "sha256:<hex>" line value into
 * line (size >= 72).  Returns 0 or -errno. */
int tenant_key_generate(char *key, size_t keysize, char *line, size_t linesize);

/* SHA-256 helper (libcrypto). */
void tenant_sha256(const void *data, size_t len, uint8_t out[32]);

/* What this tenant may run given the jailer's profiles: each profile whose
 * language the tenant allows (and, if the profile has network, only when
 * the tenant has network) with the tenant's ceilings.  `out->network` is
 * the tenant's network flag. */
void tenant_limits_for(const struct tenant *t, const struct ipc_hello_ok *hello,
		       struct tenant_limits *out);

#endif
