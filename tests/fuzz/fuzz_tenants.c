/* libFuzzer target for the tenants file parser, through tenants_parse
 * (the text tenants_load reads after its file checks), then the limits a
 * parsed tenant gets against a jailer's profile table.
 *
 * Properties checked, beyond ASan/UBSan and leaks:
 *  - the result is 0 or -1 and the message is NUL-terminated; a failure
 *    says why and hands back an empty table;
 *  - every parsed tenant is well formed: a valid unique name, 1-8
 *    languages, at most 16 keys whose ids are their hashes' first 12 hex
 *    digits, no key hash twice in the file, admission values in range;
 *  - tenants_find finds each tenant; the limits computed for each
 *    allowed profile never exceed the jailer's maximum or the tenant's
 *    ceiling, defaults stay within maxima, and a RUN built from them asks
 *    for nothing above the maximum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "tenants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_tenants: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static struct ipc_hello_ok hello;

static void set_profile(struct ipc_profile *p, const char *name, const char *language, bool network)
{
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->language, sizeof(p->language), "%s", language);
	snprintf(p->interpreter, sizeof(p->interpreter), "/usr/bin/%s", language);
	p->defaults = (struct ipc_limits){10000, 10000, 256u << 20, 64, 64u << 20, 1u << 20};
	p->maximum = (struct ipc_limits){60000, 60000, 1u << 30, 256, 256u << 20, 8u << 20};
	p->network = network;
}

static void init_hello(void)
{
	if (hello.nprofiles)
		return;
	set_profile(&hello.profiles[0], "python", "python", false);
	set_profile(&hello.profiles[1], "javascript", "javascript", false);
	set_profile(&hello.profiles[2], "python-net", "python", true);
	set_profile(&hello.profiles[3], "ruby", "ruby", false);
	hello.profiles[3].maximum.wall_ms = 0; /* a jailer maximum left unset */
	hello.nprofiles = 4;
}

static bool valid_name(const char *s)
{
	size_t n = strnlen(s, TENANT_NAME_MAX + 1);
	if (n == 0 || n > TENANT_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* a <= b where b is set (0 = no bound). */
static void check_within(const struct ipc_limits *a, const struct ipc_limits *b, const char *what)
{
	const uint64_t x[] = {a->wall_ms, a->cpu_ms,	  a->memory_bytes,
			      a->pids,	  a->tmpfs_bytes, a->output_bytes};
	const uint64_t y[] = {b->wall_ms, b->cpu_ms,	  b->memory_bytes,
			      b->pids,	  b->tmpfs_bytes, b->output_bytes};
	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (y[i] != 0 && x[i] > y[i])
			fail(what, NULL);
}

static void check_keys(const struct tenant_table *tt)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < tt->n; i++) {
		const struct tenant *t = &tt->t[i];
		for (unsigned k = 0; k < t->nkeys; k++) {
			char id[TENANT_KEY_ID_LEN + 1];
			for (unsigned d = 0; d < TENANT_KEY_ID_LEN; d++)
				id[d] = hex[(t->keys[k].hash[d / 2] >> (d % 2 ? 0 : 4)) & 15];
			id[TENANT_KEY_ID_LEN] = '\0';
			if (strcmp(id, t->keys[k].id) != 0)
				fail("a key id is not its hash's prefix", t->name);
			for (size_t j = i; j < tt->n; j++)
				for (unsigned l = (j == i ? k + 1 : 0); l < tt->t[j].nkeys; l++)
					if (memcmp(t->keys[k].hash, tt->t[j].keys[l].hash, 32) == 0)
						fail("a key hash is listed twice", t->name);
		}
	}
}

static void check_tenant(const struct tenant_table *tt, const struct tenant *t)
{
	if (!valid_name(t->name))
		fail("a tenant name is not [a-z0-9_-]{1,63}", t->name);
	if (tenants_find(tt, t->name) != t)
		fail("a tenant is not found by its name (or the name is not unique)", t->name);
	if (t->nkeys > TENANT_MAX_KEYS || t->nlanguages == 0 ||
	    t->nlanguages > TENANT_MAX_LANGUAGES)
		fail("key or language count out of range", t->name);
	if (t->max_concurrent_jobs < 1 || !(t->rate_per_s > 0) || t->burst < 1)
		fail("admission values out of range", t->name);

	struct tenant_limits tl;
	tenant_limits_for(t, &hello, &tl);
	if (strcmp(tl.name, t->name) != 0 || tl.network != t->network)
		fail("tenant_limits_for lost the name or the network flag", t->name);
	for (unsigned i = 0; i < tl.nprofiles; i++) {
		struct profile_limits pl;
		struct ipc_limits req;
		if (limits_for_profile(&hello, &tl, tl.profiles[i].profile, &pl) != 0)
			fail("an allowed profile has no limits", tl.profiles[i].profile);
		if (pl.profile->network && !t->network)
			fail("a tenant without network gets a network profile", t->name);
		check_within(&pl.maximum, &pl.profile->maximum, "a maximum above the jailer's");
		check_within(&pl.maximum, &t->ceiling, "a maximum above the tenant's ceiling");
		check_within(&pl.defaults, &pl.maximum, "a default above the maximum");
		limits_request(&pl, &req);
		check_within(&req, &pl.maximum, "a RUN asks for more than the maximum");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tenant_table tt;
	char err[512];

	init_hello();
	memset(err, 'x', sizeof(err));
	int r = tenants_parse((const char *)data, size, "fuzz.conf", &tt, err, sizeof(err));
	if (!memchr(err, '\0', sizeof(err)))
		fail("the message is not NUL-terminated", NULL);
	if (r != 0) {
		if (r != -1)
			fail("tenants_parse returned neither 0 nor -1", NULL);
		if (err[0] == '\0')
			fail("a refused file comes without a reason", NULL);
		if (tt.n != 0 || tt.t != NULL)
			fail("a refused file leaves a table behind", err);
		return 0;
	}
	if (tt.n > TENANT_MAX_TENANTS)
		fail("more tenants than allowed", NULL);
	for (size_t i = 0; i < tt.n; i++)
		check_tenant(&tt, &tt.t[i]);
	check_keys(&tt);
	/* Whatever key the input presents, a match names one of its keys. */
	const char *key_id;
	const struct tenant *who =
	    tenants_authenticate(&tt, (const char *)data, size < 64 ? size : 64, &key_id);
	if (who) {
		bool found = false;
		for (unsigned k = 0; k < who->nkeys; k++)
			found = found || key_id == who->keys[k].id;
		if (!found)
			fail("an authenticated key has no id of its tenant", who->name);
	}
	tenants_free(&tt);
	return 0;
}
