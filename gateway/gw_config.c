/* The gateway's configuration file (gw_config.h, example etc/cellgate.conf):
 * a table of keys over common/'s INI walker and value parsers, the same
 * dialect and value syntax as the tenants file and the jailer's policy, so
 * one set of habits covers every file an operator edits. */
#include "gw_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf_file.h"
#include "conf_value.h"
#include "ini.h"

/* Room for a key handler's reason (the INI walker's own is INI_WHY_MAX). */
#define WHY_MAX 512u

_Static_assert(GW_INI_LINE_MAX == INI_LINE_MAX, "gw_config.h restates common/ini.h's line limit");

/* ---- listen addresses ---- */

static bool host_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.';
}

/* A DNS name or IPv4 literal: 1-253 of [A-Za-z0-9.-], not starting with
 * '-' or '.'. */
static bool valid_host_name(const char *s, size_t n)
{
	if (n == 0 || n > 253 || s[0] == '-' || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!host_name_char(s[i]))
			return false;
	return true;
}

static bool valid_ipv6(const char *s, size_t n)
{
	char tmp[INET6_ADDRSTRLEN + 1];
	struct in6_addr a;

	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return inet_pton(AF_INET6, tmp, &a) == 1;
}

/* 1..65535, decimal, no sign, at most 5 digits. */
static int parse_port(const char *s, uint16_t *port)
{
	unsigned v = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

int gw_parse_listen(const char *s, char *host, size_t hostsize, uint16_t *port)
{
	const char *h, *colon;
	size_t hn;
	uint16_t p;

	if (!s || !host || hostsize == 0 || !port)
		return -1;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -1;
		h = s + 1;
		hn = (size_t)(close - h);
		if (!valid_ipv6(h, hn))
			return -1;
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -1;
		h = s;
		hn = (size_t)(colon - s);
		/* An unbracketed IPv6 address would be ambiguous with the port. */
		if (!valid_host_name(h, hn))
			return -1;
	}
	if (parse_port(colon + 1, &p) < 0 || hn >= hostsize)
		return -1;
	memcpy(host, h, hn);
	host[hn] = '\0';
	*port = p;
	return 0;
}

/* ---- the configuration file ---- */

enum section { SEC_GATEWAY, SEC_LIMITS, SEC_AUDIT, SEC_COUNT };
static const char *const section_names[SEC_COUNT] = {"gateway", "limits", "audit"};

struct cfg_state {
	struct gw_config *c;
	int sec; /* enum section, or -1 before the first header */
	bool done[SEC_COUNT];
	uint64_t seen; /* non-repeatable keys already set in this section */
};

/* How a key's value is parsed and where it goes.  Numbers land in an
 * unsigned integer field of 4 or 8 bytes after a min..max check. */
enum cfg_kind {
	CK_COUNT,   /* a count */
	CK_SIZE,    /* bytes, K/M/G suffix */
	CK_MS,	    /* a duration in milliseconds */
	CK_SECONDS, /* a duration stored in whole seconds; min, max in seconds */
	CK_BOOL,    /* yes/no into a bool */
	CK_PATH,    /* "" or an absolute path into a char array */
	CK_CODE,    /* anything else: `fn` parses and stores */
};

typedef int (*cfg_fn)(struct gw_config *c, const char *val, char *why, size_t whylen);

struct cfg_key {
	const char *name;
	enum section sec;
	enum cfg_kind kind;
	size_t off, size;  /* the field in struct gw_config (not CK_CODE) */
	uint64_t min, max; /* numbers only */
	bool repeatable;
	bool may_be_empty;
	cfg_fn fn; /* CK_CODE only */
};

static int copy_str(char *dst, size_t cap, const char *src, char *why, size_t whylen)
{
	size_t n = strlen(src);

	if (n >= cap) {
		conf_set_err(why, whylen, "longer than %zu characters", cap - 1);
		return -EINVAL;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

static int set_listen(char *dst, const char *val, char *why, size_t whylen)
{
	char host[GW_ADDR_MAX];
	uint16_t port;

	if (gw_parse_listen(val, host, sizeof(host), &port) < 0) {
		conf_set_err(why, whylen,
			     "'%s' is not ADDR:PORT or [IPV6]:PORT with a port of 1-65535", val);
		return -EINVAL;
	}
	return copy_str(dst, GW_ADDR_MAX, val, why, whylen);
}

/* "" (the built-in default) or an absolute path; the INI walker already
 * refused control characters. */
static int set_path(char *dst, size_t cap, const char *val, char *why, size_t whylen)
{
	if (val[0] != '\0' && val[0] != '/') {
		conf_set_err(why, whylen, "'%s' is not an absolute path", val);
		return -EINVAL;
	}
	return copy_str(dst, cap, val, why, whylen);
}

static int k_listen(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return set_listen(c->listen, val, why, whylen);
}

static int k_metrics_listen(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	if (val[0] == '\0') {
		c->metrics_listen[0] = '\0';
		return 0;
	}
	return set_listen(c->metrics_listen, val, why, whylen);
}

static int k_stdio_tenant(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	size_t n = strlen(val);

	/* Same rule as a [tenant NAME] section: [a-z0-9_-], 1..63. */
	if (n >= sizeof(c->stdio_tenant)) {
		conf_set_err(why, whylen, "longer than %zu characters",
			     sizeof(c->stdio_tenant) - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		char ch = val[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
		      ch == '-')) {
			conf_set_err(why, whylen, "'%s' is not a tenant name of [a-z0-9_-]", val);
			return -EINVAL;
		}
	}
	memcpy(c->stdio_tenant, val, n + 1);
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* host or [v6], then optionally :port; the text after "scheme://". */
static bool valid_authority(const char *s)
{
	const char *end, *colon;
	uint16_t port;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || !valid_ipv6(s + 1, (size_t)(end - s - 1)))
			return false;
		end++;
	} else {
		colon = strchr(s, ':');
		end = colon ? colon : s + strlen(s);
		if (!valid_host_name(s, (size_t)(end - s)))
			return false;
	}
	if (*end == '\0')
		return true;
	return *end == ':' && parse_port(end + 1, &port) == 0;
}

static int k_allowed_origin(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	char o[GW_ORIGIN_MAX];
	const char *rest;

	if (copy_str(o, sizeof(o), val, why, whylen) < 0)
		return -EINVAL;
	/* Browsers send scheme and host in lower case; store them so. */
	lower(o);
	if (strncmp(o, "http://", 7) == 0)
		rest = o + 7;
	else if (strncmp(o, "https://", 8) == 0)
		rest = o + 8;
	else
		rest = NULL;
	if (!rest || !valid_authority(rest)) {
		conf_set_err(why, whylen,
			     "'%s' is not an origin 'http[s]://HOST[:PORT]' (no path, no "
			     "trailing '/')",
			     val);
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->norigins; i++) {
		if (strcmp(c->allowed_origins[i], o) == 0) {
			conf_set_err(why, whylen, "'%s' is listed twice", val);
			return -EINVAL;
		}
	}
	if (c->norigins >= GW_MAX_ORIGINS) {
		conf_set_err(why, whylen, "more than %u entries", GW_MAX_ORIGINS);
		return -EINVAL;
	}
	memcpy(c->allowed_origins[c->norigins++], o, sizeof(o));
	return 0;
}

static int k_allowed_host(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	char h[GW_ORIGIN_MAX];
	size_t n = strlen(val);
	bool ok;

	if (copy_str(h, sizeof(h), val, why, whylen) < 0)
		return -EINVAL;
	lower(h);
	if (n >= 2 && h[0] == '[' && h[n - 1] == ']')
		ok = valid_ipv6(h + 1, n - 2);
	else
		ok = valid_host_name(h, n);
	if (!ok) {
		conf_set_err(why, whylen,
			     "'%s' is not a host name, IPv4 or [IPv6] address without port", val);
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->nhosts; i++) {
		if (strcmp(c->allowed_hosts[i], h) == 0) {
			conf_set_err(why, whylen, "'%s' is listed twice", val);
			return -EINVAL;
		}
	}
	if (c->nhosts >= GW_MAX_HOSTS) {
		conf_set_err(why, whylen, "more than %u entries", GW_MAX_HOSTS);
		return -EINVAL;
	}
	memcpy(c->allowed_hosts[c->nhosts++], h, sizeof(h));
	return 0;
}

static int k_journald(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	if (strcmp(val, "auto") == 0)
		c->audit_journald = GW_JOURNALD_AUTO;
	else if (strcmp(val, "yes") == 0 || strcmp(val, "true") == 0)
		c->audit_journald = GW_JOURNALD_YES;
	else if (strcmp(val, "no") == 0 || strcmp(val, "false") == 0)
		c->audit_journald = GW_JOURNALD_NO;
	else {
		conf_set_err(why, whylen, "'%s' is not auto, yes or no", val);
		return -EINVAL;
	}
	return 0;
}

/* The table: one row per key.  NUMBER rows name the field and its bounds
 * (bytes for sizes, ms for CK_MS, seconds for CK_SECONDS). */
/* clang-format off */
#define FIELD(f) .off = offsetof(struct gw_config, f), .size = sizeof(((struct gw_config *)0)->f)
#define NUMBER(key, section, k, f, lo, hi) \
	{.name = key, .sec = section, .kind = k, FIELD(f), .min = lo, .max = hi}
#define FLAG(key, section, f) \
	{.name = key, .sec = section, .kind = CK_BOOL, FIELD(f)}
#define PATH(key, section, f, empty_ok) \
	{.name = key, .sec = section, .kind = CK_PATH, FIELD(f), .may_be_empty = empty_ok}
#define CODE(key, section, handler, repeat, empty_ok) \
	{.name = key, .sec = section, .kind = CK_CODE, .repeatable = repeat, \
	 .may_be_empty = empty_ok, .fn = handler}
/* clang-format on */

static const struct cfg_key cfg_keys[] = {
    CODE("listen", SEC_GATEWAY, k_listen, false, false),
    CODE("metrics_listen", SEC_GATEWAY, k_metrics_listen, false, true),
    PATH("tenants", SEC_GATEWAY, tenants, false),
    PATH("jailer_socket", SEC_GATEWAY, jailer_socket, true),
    PATH("jailer", SEC_GATEWAY, jailer, true),
    CODE("stdio_tenant", SEC_GATEWAY, k_stdio_tenant, false, true),
    CODE("allowed_origin", SEC_GATEWAY, k_allowed_origin, true, false),
    CODE("allowed_host", SEC_GATEWAY, k_allowed_host, true, false),
    NUMBER("max_connections", SEC_LIMITS, CK_COUNT, max_connections, 1, 1000000),
    NUMBER("max_body", SEC_LIMITS, CK_SIZE, max_body_bytes, 1u << 10, 64u << 20),
    NUMBER("header_timeout", SEC_LIMITS, CK_MS, header_timeout_ms, 100, 600000),
    NUMBER("body_timeout", SEC_LIMITS, CK_MS, body_timeout_ms, 100, 3600000),
    NUMBER("max_sessions_per_tenant", SEC_LIMITS, CK_COUNT, max_sessions_per_tenant, 1, 100000),
    NUMBER("session_idle_timeout", SEC_LIMITS, CK_SECONDS, session_idle_timeout_s, 1, 7 * 86400),
    NUMBER("sse_keepalive", SEC_LIMITS, CK_SECONDS, sse_keepalive_s, 1, 300),
    NUMBER("max_stream_buffer", SEC_LIMITS, CK_SIZE, max_stream_buffer_bytes, 64u << 10, 1u << 30),
    NUMBER("progress_interval", SEC_LIMITS, CK_MS, progress_interval_ms, 100, 60000),
    NUMBER("progress_message", SEC_LIMITS, CK_SIZE, progress_message_bytes, 0, 64u << 10),
    PATH("file", SEC_AUDIT, audit_file, true),
    CODE("journald", SEC_AUDIT, k_journald, false, false),
    FLAG("fsync", SEC_AUDIT, audit_fsync),
    FLAG("log_code", SEC_AUDIT, audit_log_code),
};
#undef FIELD
#undef NUMBER
#undef FLAG
#undef PATH
#undef CODE
#define NCFG_KEYS (sizeof(cfg_keys) / sizeof(cfg_keys[0]))
/* cfg_state.seen has one bit per row. */
_Static_assert(NCFG_KEYS <= 64, "too many keys for cfg_state.seen");

/* A time stored in whole seconds: "90s", "90000ms" or "90000"; 1500ms is
 * refused rather than rounded, so the file says what the gateway does. */
static int whole_seconds(const char *val, uint64_t min_s, uint64_t max_s, uint64_t *out, char *why,
			 size_t whylen)
{
	uint64_t ms;
	int r = conf_parse_duration_ms(val, min_s * 1000, max_s * 1000, &ms, why, whylen);

	if (r < 0)
		return r;
	if (ms % 1000 != 0) {
		conf_set_err(why, whylen, "'%s' is not a whole number of seconds", val);
		return -EINVAL;
	}
	*out = ms / 1000;
	return 0;
}

static int set_key(const struct cfg_key *k, struct gw_config *c, const char *val, char *why,
		   size_t whylen)
{
	char *field = (char *)c + k->off;
	uint64_t v;
	int r = -EINVAL;

	/* No default: -Wswitch names a new kind left out here. */
	switch (k->kind) {
	case CK_COUNT:
		r = conf_parse_count(val, k->min, k->max, &v, why, whylen);
		break;
	case CK_SIZE:
		r = conf_parse_size(val, k->min, k->max, &v, why, whylen);
		break;
	case CK_MS:
		r = conf_parse_duration_ms(val, k->min, k->max, &v, why, whylen);
		break;
	case CK_SECONDS:
		r = whole_seconds(val, k->min, k->max, &v, why, whylen);
		break;
	case CK_BOOL:
		return conf_parse_bool(val, (bool *)field, why, whylen);
	case CK_PATH:
		return set_path(field, k->size, val, why, whylen);
	case CK_CODE:
		return k->fn(c, val, why, whylen);
	}
	if (r < 0)
		return r;
	conf_store_uint(field, k->size, k->max, v);
	return 0;
}

static int cfg_section(void *ctx, const char *inner, char *why, size_t whylen)
{
	struct cfg_state *st = ctx;

	for (int i = 0; i < SEC_COUNT; i++) {
		if (strcmp(inner, section_names[i]) != 0)
			continue;
		if (st->done[i]) {
			conf_set_err(why, whylen, "section [%s]: appears twice", inner);
			return -EINVAL;
		}
		st->done[i] = true;
		st->sec = i;
		st->seen = 0;
		return 0;
	}
	conf_set_err(why, whylen, "section [%.64s]: unknown section (use gateway, limits, audit)",
		     inner);
	return -EINVAL;
}

static int cfg_key(void *ctx, const char *key, const char *val, char *why, size_t whylen)
{
	struct cfg_state *st = ctx;
	char inner[WHY_MAX];
	size_t i;

	for (i = 0; i < NCFG_KEYS; i++)
		if ((int)cfg_keys[i].sec == st->sec && strcmp(cfg_keys[i].name, key) == 0)
			break;
	if (i == NCFG_KEYS) {
		conf_set_err(why, whylen, "key '%s': unknown key in [%s]", key,
			     section_names[st->sec]);
		return -EINVAL;
	}
	if (!cfg_keys[i].repeatable) {
		if (st->seen & (1ull << i)) {
			conf_set_err(why, whylen,
				     "key '%s': set twice (only allowed_origin and allowed_host "
				     "may repeat)",
				     key);
			return -EINVAL;
		}
		st->seen |= 1ull << i;
	}
	if (val[0] == '\0' && !cfg_keys[i].may_be_empty) {
		conf_set_err(why, whylen, "key '%s': empty value", key);
		return -EINVAL;
	}
	inner[0] = '\0';
	if (set_key(&cfg_keys[i], st->c, val, inner, sizeof(inner)) < 0) {
		conf_set_err(why, whylen, "key '%s': %s", key, inner[0] ? inner : "invalid value");
		return -EINVAL;
	}
	return 0;
}

void gw_config_defaults(struct gw_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->listen, sizeof(c->listen), "%s", "127.0.0.1:8000");
	snprintf(c->tenants, sizeof(c->tenants), "%s", "/etc/cellgate/tenants.conf");
	c->max_connections = 1024;
	c->max_body_bytes = 4u << 20;
	c->header_timeout_ms = 10000;
	c->body_timeout_ms = 30000;
	c->max_sessions_per_tenant = 64;
	c->session_idle_timeout_s = 1800;
	c->sse_keepalive_s = 15;
	c->max_stream_buffer_bytes = 8u << 20;
	c->progress_interval_ms = 1000;
	c->progress_message_bytes = 4096;
	c->audit_journald = GW_JOURNALD_AUTO;
	c->audit_fsync = false;
	c->audit_log_code = false;
}

int gw_config_parse(const char *text, size_t len, const char *name, struct gw_config *c, char *err,
		    size_t errlen)
{
	static const struct ini_handler ops = {cfg_section, cfg_key};
	struct gw_config *work;
	struct cfg_state st = {.sec = -1};
	int r;

	if (!c)
		return -1;
	conf_set_err(err, errlen, "%s", "");
	/* Work on a copy so a bad file leaves the caller's settings intact. */
	work = malloc(sizeof(*work));
	if (!work) {
		conf_set_err(err, errlen, "%s: out of memory", name ? name : "(config)");
		return -1;
	}
	memcpy(work, c, sizeof(*work));
	st.c = work;
	r = ini_parse(text, len, GW_CONFIG_MAX_BYTES, name ? name : "(config)", &ops, &st, err,
		      errlen);
	if (r == 0)
		memcpy(c, work, sizeof(*c));
	free(work);
	return r < 0 ? -1 : 0;
}

int gw_config_load(const char *path, bool must_exist, struct gw_config *c, char *err, size_t errlen)
{
	/* The gateway runs unprivileged, so ownership says nothing; a file
	 * anyone may rewrite would still hand its settings to anyone. */
	static const struct conf_file_rules rules = {
	    .max_bytes = GW_CONFIG_MAX_BYTES,
	    .forbidden_mode = S_IWOTH,
	};
	char *buf;
	size_t len;
	int r;

	if (!path || !c)
		return -1;
	r = conf_read_file(path, &rules, &buf, &len, err, errlen);
	if (r == -ENOENT && !must_exist) {
		conf_set_err(err, errlen, "%s", "");
		return 0;
	}
	if (r < 0)
		return -1;
	r = gw_config_parse(buf, len, path, c, err, errlen);
	free(buf);
	return r;
}
