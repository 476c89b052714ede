/* The tenants file (tenants.h, example etc/tenants.conf): parsing, API key
 * hashing, generation and constant-time lookup, and a tenant's view of the
 * jailer's profiles. */
#include "tenants.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "conf_file.h"
#include "conf_value.h"
#include "ini.h"
#include "log.h"
#include "sha256.h"

#define HASH_PREFIX "sha256:"
#define HASH_PREFIX_LEN 7
/* Ceilings in the same ranges the jailer accepts for its own maxima. */
#define CAP_TIME_MS (86400ull * 1000)
#define CAP_SIZE_BYTES (1ull << 40)
#define CAP_PIDS 4194304ull
#define MIN_RATE 0.001
#define MAX_RATE 1000000.0
#define MAX_BURST 1000000ull
#define MAX_JOBS 65536ull
#define MAX_CPU_SECONDS 1000000000ull
#define MAX_SESSIONS 1000000ull
/* Open-addressing set of every key hash in the file: 2x the most keys a
 * file may hold, a power of two. */
#define HASHSET_SLOTS (2u * TENANT_MAX_TENANTS * TENANT_MAX_KEYS)

static const char hexdigits[] = "0123456789abcdef";

void tenant_sha256(const void *data, size_t len, uint8_t out[32])
{
	/* Without SHA-256 no key can be checked; refusing to run is the only
	 * safe answer (and libcrypto's built-in provider does not fail). */
	if (sha256_digest(data, len, out) < 0) {
		gw_log(GW_LOG_ERROR, "libcrypto: SHA-256 failed");
		abort();
	}
}

static void hex_encode(const uint8_t *in, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hexdigits[in[i] >> 4];
		out[2 * i + 1] = hexdigits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static bool valid_tenant_name(const char *s)
{
	size_t n = strnlen(s, TENANT_NAME_MAX + 1);

	if (n == 0 || n > TENANT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* ---- parsing ---- */

struct tparse {
	struct tenant *t; /* growing array */
	size_t n, cap;
	struct tenant *cur;
	uint32_t seen;	   /* non-repeatable keys already set in this section */
	uint32_t *hashset; /* 0 = empty, else 1 + (tenant index << 4 | key index) */
};

typedef int (*tkey_fn)(struct tparse *st, const char *val, char *why, size_t whylen);

static const uint8_t *set_hash(const struct tparse *st, uint32_t ref)
{
	uint32_t v = ref - 1;

	return st->t[v >> 4].keys[v & 15].hash;
}

/* Adds the current tenant's newest key to the set; false if it is there. */
static bool hashset_add(struct tparse *st, const uint8_t hash[32], uint32_t ref)
{
	uint64_t h;
	size_t slot;

	/* The hashes are SHA-256 values: their first bytes are already a
	 * uniformly spread index. */
	memcpy(&h, hash, sizeof(h));
	for (slot = h & (HASHSET_SLOTS - 1);; slot = (slot + 1) & (HASHSET_SLOTS - 1)) {
		if (st->hashset[slot] == 0) {
			st->hashset[slot] = ref;
			return true;
		}
		if (memcmp(set_hash(st, st->hashset[slot]), hash, 32) == 0)
			return false;
	}
}

static int k_key(struct tparse *st, const char *val, char *why, size_t whylen)
{
	struct tenant *t = st->cur;
	struct tenant_key *k;
	uint32_t ref;

	if (strncmp(val, HASH_PREFIX, HASH_PREFIX_LEN) != 0 ||
	    strlen(val) != HASH_PREFIX_LEN + 64) {
		conf_set_err(why, whylen,
			     "not 'sha256:' and 64 lowercase hex digits (make one with "
			     "`cellgate key new`)");
		return -EINVAL;
	}
	if (t->nkeys >= TENANT_MAX_KEYS) {
		conf_set_err(why, whylen, "more than %u keys", TENANT_MAX_KEYS);
		return -EINVAL;
	}
	k = &t->keys[t->nkeys];
	for (size_t i = 0; i < 32; i++) {
		int hi = hex_value(val[HASH_PREFIX_LEN + 2 * i]);
		int lo = hex_value(val[HASH_PREFIX_LEN + 2 * i + 1]);

		if (hi < 0 || lo < 0) {
			conf_set_err(why, whylen, "the hash is not 64 lowercase hex digits");
			return -EINVAL;
		}
		k->hash[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(k->id, val + HASH_PREFIX_LEN, TENANT_KEY_ID_LEN);
	k->id[TENANT_KEY_ID_LEN] = '\0';
	ref = 1 + (uint32_t)(((size_t)(t - st->t) << 4) | t->nkeys);
	if (!hashset_add(st, k->hash, ref)) {
		conf_set_err(why, whylen,
			     "key %s is listed twice (keys must be unique in the file)", k->id);
		memset(k, 0, sizeof(*k));
		return -EINVAL;
	}
	t->nkeys++;
	return 0;
}

static bool lang_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int k_languages(struct tparse *st, const char *val, char *why, size_t whylen)
{
	struct tenant *t = st->cur;
	const char *p = val;

	while (*p) {
		const char *w;
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		for (w = p; *p && *p != ' ' && *p != '\t'; p++)
			;
		n = (size_t)(p - w);
		for (size_t i = 0; i < n; i++) {
			if (!lang_char(w[i])) {
				conf_set_err(why, whylen,
					     "'%.*s' is not a language name of [a-z0-9_-]", (int)n,
					     w);
				return -EINVAL;
			}
		}
		if (n > IPC_MAX_NAME) {
			conf_set_err(why, whylen, "a language name is longer than %u characters",
				     IPC_MAX_NAME);
			return -EINVAL;
		}
		for (unsigned i = 0; i < t->nlanguages; i++) {
			if (strlen(t->languages[i]) == n && memcmp(t->languages[i], w, n) == 0) {
				conf_set_err(why, whylen, "'%.*s' is listed twice", (int)n, w);
				return -EINVAL;
			}
		}
		if (t->nlanguages >= TENANT_MAX_LANGUAGES) {
			conf_set_err(why, whylen, "more than %u languages", TENANT_MAX_LANGUAGES);
			return -EINVAL;
		}
		memcpy(t->languages[t->nlanguages], w, n);
		t->languages[t->nlanguages][n] = '\0';
		t->nlanguages++;
	}
	return 0;
}

/* Requests per second as a plain decimal ("10", "0.5"): no exponent, no
 * locale, at most 9 decimals. */
static int k_rate(struct tparse *st, const char *val, char *why, size_t whylen)
{
	uint64_t ip = 0, fp = 0, div = 1;
	const char *q = val;
	double v;

	if (*q < '0' || *q > '9')
		goto bad;
	for (; *q >= '0' && *q <= '9'; q++) {
		if (ip > (uint64_t)MAX_RATE)
			goto range;
		ip = ip * 10 + (uint64_t)(*q - '0');
	}
	if (*q == '.') {
		q++;
		if (*q < '0' || *q > '9')
			goto bad;
		for (; *q >= '0' && *q <= '9'; q++) {
			if (div >= 1000000000ull)
				goto bad;
			fp = fp * 10 + (uint64_t)(*q - '0');
			div *= 10;
		}
	}
	if (*q)
		goto bad;
	v = (double)ip + (double)fp / (double)div;
	if (v < MIN_RATE || v > MAX_RATE)
		goto range;
	st->cur->rate_per_s = v;
	return 0;
bad:
	conf_set_err(why, whylen, "'%s' is not a decimal number like 10 or 0.5", val);
	return -EINVAL;
range:
	conf_set_err(why, whylen, "'%s' is outside 0.001..1000000 requests per second", val);
	return -EINVAL;
}

/* How a key's value is parsed and where in struct tenant it goes. */
enum tkey_kind {
	TK_NUMBER,  /* a number of `unit` within min..max */
	TK_CEILING, /* a number of `unit`, non-zero and at most max */
	TK_BOOL,    /* yes/no into a bool */
	TK_CODE,    /* anything else: `fn` parses and stores */
};

struct tkey {
	const char *name;
	enum tkey_kind kind;
	enum conf_kind unit; /* numbers only */
	size_t off, size;    /* the field in struct tenant (not TK_CODE) */
	uint64_t min, max;   /* numbers only; a ceiling's max is its cap */
	bool repeatable;
	tkey_fn fn; /* TK_CODE only */
};

/* clang-format off */
#define FIELD(f) .off = offsetof(struct tenant, f), .size = sizeof(((struct tenant *)0)->f)
#define NUMBER(key, u, f, lo, hi) \
	{.name = key, .kind = TK_NUMBER, .unit = u, FIELD(f), .min = lo, .max = hi}
#define CEILING(key, u, f, cap) \
	{.name = key, .kind = TK_CEILING, .unit = u, FIELD(ceiling.f), .max = cap}
#define FLAG(key, f) {.name = key, .kind = TK_BOOL, FIELD(f)}
#define CODE(key, handler, repeat) \
	{.name = key, .kind = TK_CODE, .repeatable = repeat, .fn = handler}
/* clang-format on */

static const struct tkey tenant_keys[] = {
    CODE("key", k_key, true),
    CODE("languages", k_languages, false),
    CEILING("max_timeout", CONF_DURATION_MS, wall_ms, CAP_TIME_MS),
    CEILING("max_cpu", CONF_DURATION_MS, cpu_ms, CAP_TIME_MS),
    CEILING("max_memory", CONF_SIZE, memory_bytes, CAP_SIZE_BYTES),
    CEILING("max_pids", CONF_COUNT, pids, CAP_PIDS),
    CEILING("max_tmpfs", CONF_SIZE, tmpfs_bytes, CAP_SIZE_BYTES),
    CEILING("max_output", CONF_SIZE, output_bytes, CAP_SIZE_BYTES),
    FLAG("network", network),
    NUMBER("max_concurrent_jobs", CONF_COUNT, max_concurrent_jobs, 1, MAX_JOBS),
    CODE("rate", k_rate, false),
    NUMBER("burst", CONF_COUNT, burst, 1, MAX_BURST),
    NUMBER("cpu_seconds_per_hour", CONF_COUNT, cpu_seconds_per_hour, 0, MAX_CPU_SECONDS),
    NUMBER("max_sessions", CONF_COUNT, max_sessions, 0, MAX_SESSIONS),
};
#undef FIELD
#undef NUMBER
#undef CEILING
#undef FLAG
#undef CODE
#define NTENANT_KEYS (sizeof(tenant_keys) / sizeof(tenant_keys[0]))
/* tparse.seen has one bit per row. */
_Static_assert(NTENANT_KEYS <= 32, "too many keys for tparse.seen");

/* A ceiling: non-zero (leave the key out for "the jailer's maximum") and
 * within the jailer's own caps.  Its own words rather than conf_value.h's
 * "outside 1..CAP": 0 has a meaning an operator may have guessed wrong. */
static int ceiling(const struct tkey *k, const char *val, uint64_t *out, char *why, size_t whylen)
{
	uint64_t v;
	int r = conf_parse_number(k->unit, val, 0, UINT64_MAX, &v, why, whylen);

	if (r < 0)
		return r;
	if (v == 0) {
		conf_set_err(why, whylen, "must not be 0 (leave the key out for no ceiling)");
		return -EINVAL;
	}
	if (v > k->max) {
		conf_set_err(why, whylen, "'%s' is above %llu%s", val, (unsigned long long)k->max,
			     k->unit == CONF_DURATION_MS ? " ms"
			     : k->unit == CONF_SIZE	 ? " bytes"
							 : "");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int set_key(const struct tkey *k, struct tparse *st, const char *val, char *why,
		   size_t whylen)
{
	char *field = (char *)st->cur + k->off;
	uint64_t v;
	int r = -EINVAL;

	/* No default: -Wswitch names a new kind left out here. */
	switch (k->kind) {
	case TK_NUMBER:
		r = conf_parse_number(k->unit, val, k->min, k->max, &v, why, whylen);
		break;
	case TK_CEILING:
		r = ceiling(k, val, &v, why, whylen);
		break;
	case TK_BOOL:
		return conf_parse_bool(val, (bool *)field, why, whylen);
	case TK_CODE:
		return k->fn(st, val, why, whylen);
	}
	if (r < 0)
		return r;
	conf_store_uint(field, k->size, k->max, v);
	return 0;
}

static void tenant_defaults(struct tenant *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->name, name, strlen(name) + 1);
	t->network = false;
	t->max_concurrent_jobs = 4;
	t->rate_per_s = 10.0;
	t->burst = 20;
	t->cpu_seconds_per_hour = 0;
	t->max_sessions = 0;
}

static int t_section(void *ctx, const char *inner, char *why, size_t whylen)
{
	struct tparse *st = ctx;
	const char *name;

	if (strncmp(inner, "tenant", 6) != 0 || (inner[6] != ' ' && inner[6] != '\t')) {
		conf_set_err(why, whylen, "section [%.64s]: unknown section (use [tenant NAME])",
			     inner);
		return -EINVAL;
	}
	name = inner + 7;
	while (*name == ' ' || *name == '\t')
		name++;
	if (!valid_tenant_name(name)) {
		conf_set_err(why, whylen,
			     "section [tenant %.64s]: name is not 1-%u characters of [a-z0-9_-]",
			     name, TENANT_NAME_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < st->n; i++) {
		if (strcmp(st->t[i].name, name) == 0) {
			conf_set_err(why, whylen, "section [tenant %s]: appears twice", name);
			return -EINVAL;
		}
	}
	if (st->n >= TENANT_MAX_TENANTS) {
		conf_set_err(why, whylen, "more than %u tenants", TENANT_MAX_TENANTS);
		return -EINVAL;
	}
	if (st->n == st->cap) {
		size_t ncap = st->cap ? 2 * st->cap : 8;
		struct tenant *nt;

		if (ncap > TENANT_MAX_TENANTS)
			ncap = TENANT_MAX_TENANTS;
		nt = realloc(st->t, ncap * sizeof(*nt));
		if (!nt) {
			conf_set_err(why, whylen, "out of memory");
			return -ENOMEM;
		}
		st->t = nt;
		st->cap = ncap;
	}
	st->cur = &st->t[st->n++];
	tenant_defaults(st->cur, name);
	st->seen = 0;
	return 0;
}

static int t_key(void *ctx, const char *key, const char *val, char *why, size_t whylen)
{
	struct tparse *st = ctx;
	char inner[INI_WHY_MAX];
	size_t i;

	for (i = 0; i < NTENANT_KEYS; i++)
		if (strcmp(tenant_keys[i].name, key) == 0)
			break;
	if (i == NTENANT_KEYS) {
		conf_set_err(why, whylen, "key '%s': unknown key in [tenant %s]", key,
			     st->cur->name);
		return -EINVAL;
	}
	if (!tenant_keys[i].repeatable) {
		if (st->seen & (1u << i)) {
			conf_set_err(why, whylen, "key '%s': set twice (only key may repeat)", key);
			return -EINVAL;
		}
		st->seen |= 1u << i;
	}
	if (val[0] == '\0') {
		conf_set_err(why, whylen, "key '%s': empty value", key);
		return -EINVAL;
	}
	inner[0] = '\0';
	if (set_key(&tenant_keys[i], st, val, inner, sizeof(inner)) < 0) {
		conf_set_err(why, whylen, "key '%s': %s", key, inner[0] ? inner : "invalid value");
		return -EINVAL;
	}
	return 0;
}

int tenants_parse(const char *text, size_t len, const char *name, struct tenant_table *out,
		  char *err, size_t errlen)
{
	static const struct ini_handler ops = {t_section, t_key};
	struct tparse st = {0};
	int r;

	if (!out)
		return -1;
	out->n = 0;
	out->t = NULL;
	if (!name)
		name = "(tenants)";
	conf_set_err(err, errlen, "%s", "");
	st.hashset = calloc(HASHSET_SLOTS, sizeof(*st.hashset));
	if (!st.hashset) {
		conf_set_err(err, errlen, "%s: out of memory", name);
		return -1;
	}
	r = ini_parse(text, len, TENANT_MAX_FILE_BYTES, name, &ops, &st, err, errlen);
	/* Checked after the walk: a tenant that may run nothing is a mistake. */
	for (size_t i = 0; r == 0 && i < st.n; i++) {
		if (st.t[i].nlanguages == 0) {
			conf_set_err(err, errlen, "%s: [tenant %s]: no 'languages' line", name,
				     st.t[i].name);
			r = -EINVAL;
		}
	}
	free(st.hashset);
	if (r < 0) {
		/* The table held key hashes: leave nothing of it behind. */
		if (st.t)
			OPENSSL_cleanse(st.t, st.cap * sizeof(*st.t));
		free(st.t);
		return -1;
	}
	out->n = st.n;
	out->t = st.t;
	return 0;
}

int tenants_load(const char *path, struct tenant_table *out, char *err, size_t errlen)
{
	/* The file decides who may run code: nobody but its owner may write it. */
	static const struct conf_file_rules rules = {
	    .max_bytes = TENANT_MAX_FILE_BYTES,
	    .forbidden_mode = S_IWGRP | S_IWOTH,
	};
	char *buf;
	size_t len;
	int r;

	if (!out)
		return -1;
	out->n = 0;
	out->t = NULL;
	if (!path)
		return -1;
	r = conf_read_file(path, &rules, &buf, &len, err, errlen);
	if (r < 0)
		return -1;
	r = tenants_parse(buf, len, path, out, err, errlen);
	free(buf);
	return r;
}

void tenants_free(struct tenant_table *tt)
{
	if (!tt)
		return;
	if (tt->t)
		OPENSSL_cleanse(tt->t, tt->n * sizeof(*tt->t));
	free(tt->t);
	tt->t = NULL;
	tt->n = 0;
}

const struct tenant *tenants_find(const struct tenant_table *tt, const char *name)
{
	if (!tt || !name)
		return NULL;
	for (size_t i = 0; i < tt->n; i++)
		if (strcmp(tt->t[i].name, name) == 0)
			return &tt->t[i];
	return NULL;
}

/* ---- keys ---- */

const struct tenant *tenants_authenticate(const struct tenant_table *tt, const char *key,
					  size_t len, const char **key_id)
{
	uint8_t h[32];
	size_t hit_t = 0, hit_k = 0; /* hit_t: 1 + tenant index, 0 = no match */
	const struct tenant *t;

	if (key_id)
		*key_id = NULL;
	/* A real key is TENANT_KEY_LEN bytes; anything far longer is refused
	 * before it costs a hash. */
	if (!tt || !key || len == 0 || len > TENANT_KEY_MAX_PRESENTED)
		return NULL;
	tenant_sha256(key, len, h);
	/* Visit every key and select the match with masks, not branches, so
	 * neither the position of the match nor its existence shows in the
	 * time taken. */
	for (size_t i = 0; i < tt->n; i++) {
		t = &tt->t[i];
		for (unsigned k = 0; k < t->nkeys && k < TENANT_MAX_KEYS; k++) {
			size_t eq = (size_t)(CRYPTO_memcmp(h, t->keys[k].hash, sizeof(h)) == 0);
			size_t mask = (size_t)0 - eq;

			hit_t = (hit_t & ~mask) | ((i + 1) & mask);
			hit_k = (hit_k & ~mask) | ((size_t)k & mask);
		}
	}
	OPENSSL_cleanse(h, sizeof(h));
	if (hit_t == 0)
		return NULL;
	t = &tt->t[hit_t - 1];
	if (key_id)
		*key_id = t->keys[hit_k].id;
	return t;
}

static void base64url(const uint8_t *in, size_t n, char *out)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		acc = (acc << 8) | in[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = alphabet[(acc >> bits) & 63];
		}
	}
	if (bits > 0)
		out[o++] = alphabet[(acc << (6 - bits)) & 63];
	out[o] = '\0';
}

int tenant_key_generate(char *key, size_t keysize, char *line, size_t linesize)
{
	uint8_t raw[32], hash[32];
	size_t got = 0;

	if (!key || !line || keysize < TENANT_KEY_LEN + 1 || linesize < TENANT_KEY_LINE_LEN + 1)
		return -EINVAL;
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			OPENSSL_cleanse(raw, sizeof(raw));
			return -e;
		}
		got += (size_t)n;
	}
	memcpy(key, TENANT_KEY_PREFIX, sizeof(TENANT_KEY_PREFIX) - 1);
	base64url(raw, sizeof(raw), key + sizeof(TENANT_KEY_PREFIX) - 1);
	OPENSSL_cleanse(raw, sizeof(raw));
	tenant_sha256(key, TENANT_KEY_LEN, hash);
	memcpy(line, HASH_PREFIX, HASH_PREFIX_LEN);
	hex_encode(hash, sizeof(hash), line + HASH_PREFIX_LEN);
	return 0;
}

/* ---- limits ---- */

static bool allows_language(const struct tenant *t, const char *language)
{
	for (unsigned i = 0; i < t->nlanguages && i < TENANT_MAX_LANGUAGES; i++)
		if (strcmp(t->languages[i], language) == 0)
			return true;
	return false;
}

void tenant_limits_for(const struct tenant *t, const struct ipc_hello_ok *hello,
		       struct tenant_limits *out)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	snprintf(out->name, sizeof(out->name), "%s", t->name);
	out->network = t->network;
	if (!hello)
		return;
	for (uint32_t i = 0; i < hello->nprofiles && i < IPC_MAX_PROFILES; i++) {
		const struct ipc_profile *p = &hello->profiles[i];

		if (!allows_language(t, p->language))
			continue;
		if (p->network && !t->network)
			continue;
		snprintf(out->profiles[out->nprofiles].profile,
			 sizeof(out->profiles[out->nprofiles].profile), "%s", p->name);
		out->profiles[out->nprofiles].maximum = t->ceiling;
		out->nprofiles++;
	}
}
