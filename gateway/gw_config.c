/* The gateway's configuration file (gw_config.h, example etc/cellgate.conf)
 * and the INI plumbing it shares with the tenants file: the same dialect
 * and value syntax as the jailer's policy, so one set of habits covers
 * every file an operator edits. */
#include "gw_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHY_MAX 512u

void gw_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- value parsers ---- */

static int parse_digits(const char *s, uint64_t *v, const char **end, char *why, size_t whylen)
{
	uint64_t x = 0;
	const char *q = s;

	if (*q < '0' || *q > '9') {
		gw_set_err(why, whylen, "'%s' is not a non-negative integer", s);
		return -EINVAL;
	}
	for (; *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');

		if (x > (UINT64_MAX - d) / 10) {
			gw_set_err(why, whylen, "'%s' is out of range", s);
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
		gw_set_err(why, whylen, "'%s' is out of range", s);
		return -EINVAL;
	}
	*v *= mult;
	return 0;
}

int gw_parse_count(const char *s, uint64_t *v, char *why, size_t whylen)
{
	const char *end;
	int r = parse_digits(s, v, &end, why, whylen);

	if (r < 0)
		return r;
	if (*end) {
		gw_set_err(why, whylen, "'%s' has trailing junk '%s'", s, end);
		return -EINVAL;
	}
	return 0;
}

int gw_parse_size(const char *s, uint64_t *v, char *why, size_t whylen)
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
	gw_set_err(why, whylen, "'%s' has an unknown suffix '%s' (use K, M or G)", s, end);
	return -EINVAL;
}

int gw_parse_time_ms(const char *s, uint64_t *v, char *why, size_t whylen)
{
	const char *end;
	int r = parse_digits(s, v, &end, why, whylen);

	if (r < 0)
		return r;
	if (!*end || strcmp(end, "ms") == 0)
		return 0;
	if (strcmp(end, "s") == 0)
		return scale(v, 1000, s, why, whylen);
	gw_set_err(why, whylen, "'%s' has an unknown suffix '%s' (use ms or s)", s, end);
	return -EINVAL;
}

int gw_parse_bool(const char *s, bool *b, char *why, size_t whylen)
{
	if (strcmp(s, "yes") == 0 || strcmp(s, "true") == 0) {
		*b = true;
		return 0;
	}
	if (strcmp(s, "no") == 0 || strcmp(s, "false") == 0) {
		*b = false;
		return 0;
	}
	gw_set_err(why, whylen, "'%s' is not yes, no, true or false", s);
	return -EINVAL;
}

/* ---- the INI walker ---- */

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

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static int ini_line(char *raw, bool *in_section, const struct gw_ini_ops *ops, void *ctx, char *why,
		    size_t whylen)
{
	char *line = trim(raw), *eq, *key, *val;
	size_t n;

	if (line[0] == '\0' || line[0] == '#' || line[0] == ';')
		return 0;
	for (const char *c = line; *c; c++) {
		if ((*c > 0 && *c < 0x20 && *c != '\t') || *c == 0x7f) {
			gw_set_err(why, whylen, "contains a control character");
			return -EINVAL;
		}
	}
	n = strlen(line);
	if (line[0] == '[') {
		if (line[n - 1] != ']') {
			gw_set_err(why, whylen, "malformed section header");
			return -EINVAL;
		}
		line[n - 1] = '\0';
		*in_section = true;
		return ops->section(ctx, trim(line + 1), why, whylen);
	}
	eq = strchr(line, '=');
	if (!eq) {
		gw_set_err(why, whylen, "malformed line (expected 'key = value')");
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (key[0] == '\0') {
		gw_set_err(why, whylen, "malformed line (empty key)");
		return -EINVAL;
	}
	for (const char *c = key; *c; c++) {
		if (!key_char(*c)) {
			gw_set_err(why, whylen, "malformed key (use a-z, 0-9, '_')");
			return -EINVAL;
		}
	}
	if (!*in_section) {
		gw_set_err(why, whylen, "key '%s': outside of any section", key);
		return -EINVAL;
	}
	return ops->key(ctx, key, val, why, whylen);
}

int gw_ini_parse(const char *text, size_t len, size_t max_bytes, const char *name,
		 const struct gw_ini_ops *ops, void *ctx, char *err, size_t errlen)
{
	const char *nul;
	bool in_section = false;
	unsigned lineno = 0;
	size_t pos = 0;

	if (!name)
		name = "(config)";
	if (!ops || (!text && len)) {
		gw_set_err(err, errlen, "%s: nothing to parse", name);
		return -EINVAL;
	}
	if (len > max_bytes) {
		gw_set_err(err, errlen, "%s: larger than %zu bytes", name, max_bytes);
		return -EINVAL;
	}
	nul = len ? memchr(text, '\0', len) : NULL;
	if (nul) {
		unsigned l = 1;

		for (const char *c = text; c < nul; c++)
			l += *c == '\n';
		gw_set_err(err, errlen, "%s:%u: contains a NUL byte", name, l);
		return -EINVAL;
	}
	while (pos < len) {
		char line[GW_INI_LINE_MAX + 1];
		char why[WHY_MAX];
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;

		lineno++;
		if (n > GW_INI_LINE_MAX) {
			gw_set_err(err, errlen, "%s:%u: longer than %u characters", name, lineno,
				   GW_INI_LINE_MAX);
			return -EINVAL;
		}
		memcpy(line, start, n);
		line[n] = '\0';
		why[0] = '\0';
		if (ini_line(line, &in_section, ops, ctx, why, sizeof(why)) < 0) {
			gw_set_err(err, errlen, "%s:%u: %s", name, lineno,
				   why[0] ? why : "invalid line");
			return -EINVAL;
		}
		pos += n + (nl ? 1 : 0);
	}
	return 0;
}

int gw_read_config_file(const char *path, size_t max_bytes, unsigned forbidden_mode, char **buf,
			size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t cap, got = 0;
	char *b = NULL;
	int fd, r;

	if (!path || !buf || !len || max_bytes == 0)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO planted at the path must not hang the open. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP)
			gw_set_err(err, errlen, "%s: is a symbolic link; refusing it", path);
		else
			gw_set_err(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		gw_set_err(err, errlen, "%s: fstat: %s", path, strerror(-r));
		goto out;
	}
	r = -EPERM;
	if (!S_ISREG(st.st_mode)) {
		gw_set_err(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & forbidden_mode) {
		gw_set_err(err, errlen, "%s: writable by %s (mode %04o)", path,
			   (forbidden_mode & S_IWGRP) ? "group or others" : "others",
			   (unsigned)(st.st_mode & 07777));
		goto out;
	}
	/* One byte more than allowed tells "exactly at the limit" from "over". */
	cap = max_bytes + 1;
	b = malloc(cap + 1);
	if (!b) {
		r = -ENOMEM;
		gw_set_err(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (got < cap) {
		ssize_t n = read(fd, b + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			gw_set_err(err, errlen, "%s: read: %s", path, strerror(-r));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > max_bytes) {
		r = -EFBIG;
		gw_set_err(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
		goto out;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	b = NULL;
	r = 0;
out:
	free(b);
	close(fd);
	return r;
}

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

typedef int (*cfg_fn)(struct gw_config *c, const char *val, char *why, size_t whylen);

struct cfg_key {
	const char *name;
	enum section sec;
	bool repeatable;
	bool may_be_empty;
	cfg_fn fn;
};

static int copy_str(char *dst, size_t cap, const char *src, char *why, size_t whylen)
{
	size_t n = strlen(src);

	if (n >= cap) {
		gw_set_err(why, whylen, "longer than %zu characters", cap - 1);
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
		gw_set_err(why, whylen,
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
		gw_set_err(why, whylen, "'%s' is not an absolute path", val);
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

static int k_tenants(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return set_path(c->tenants, sizeof(c->tenants), val, why, whylen);
}

static int k_jailer_socket(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return set_path(c->jailer_socket, sizeof(c->jailer_socket), val, why, whylen);
}

static int k_jailer(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return set_path(c->jailer, sizeof(c->jailer), val, why, whylen);
}

static int k_stdio_tenant(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	size_t n = strlen(val);

	/* Same rule as a [tenant NAME] section: [a-z0-9_-], 1..63. */
	if (n >= sizeof(c->stdio_tenant)) {
		gw_set_err(why, whylen, "longer than %zu characters", sizeof(c->stdio_tenant) - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		char ch = val[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
		      ch == '-')) {
			gw_set_err(why, whylen, "'%s' is not a tenant name of [a-z0-9_-]", val);
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
		gw_set_err(why, whylen,
			   "'%s' is not an origin 'http[s]://HOST[:PORT]' (no path, no "
			   "trailing '/')",
			   val);
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->norigins; i++) {
		if (strcmp(c->allowed_origins[i], o) == 0) {
			gw_set_err(why, whylen, "'%s' is listed twice", val);
			return -EINVAL;
		}
	}
	if (c->norigins >= GW_MAX_ORIGINS) {
		gw_set_err(why, whylen, "more than %u entries", GW_MAX_ORIGINS);
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
		gw_set_err(why, whylen,
			   "'%s' is not a host name, IPv4 or [IPv6] address without port", val);
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->nhosts; i++) {
		if (strcmp(c->allowed_hosts[i], h) == 0) {
			gw_set_err(why, whylen, "'%s' is listed twice", val);
			return -EINVAL;
		}
	}
	if (c->nhosts >= GW_MAX_HOSTS) {
		gw_set_err(why, whylen, "more than %u entries", GW_MAX_HOSTS);
		return -EINVAL;
	}
	memcpy(c->allowed_hosts[c->nhosts++], h, sizeof(h));
	return 0;
}

enum value_kind { VK_COUNT, VK_SIZE, VK_TIME_MS };

/* Parse val as `kind` and check min <= v <= max (bytes for sizes, ms for
 * times). */
static int ranged(const char *val, enum value_kind kind, uint64_t min, uint64_t max, uint64_t *out,
		  char *why, size_t whylen)
{
	uint64_t v;
	int r;

	if (kind == VK_SIZE)
		r = gw_parse_size(val, &v, why, whylen);
	else if (kind == VK_TIME_MS)
		r = gw_parse_time_ms(val, &v, why, whylen);
	else
		r = gw_parse_count(val, &v, why, whylen);
	if (r < 0)
		return r;
	if (v < min || v > max) {
		const char *unit = kind == VK_SIZE ? " bytes" : kind == VK_TIME_MS ? " ms" : "";

		gw_set_err(why, whylen, "'%s' is outside %llu..%llu%s", val,
			   (unsigned long long)min, (unsigned long long)max, unit);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int k_max_connections(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_COUNT, 1, 1000000, &v, why, whylen);

	if (r == 0)
		c->max_connections = (unsigned)v;
	return r;
}

static int k_max_body(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_SIZE, 1u << 10, 64u << 20, &v, why, whylen);

	if (r == 0)
		c->max_body_bytes = (size_t)v;
	return r;
}

static int k_header_timeout(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_TIME_MS, 100, 600000, &v, why, whylen);

	if (r == 0)
		c->header_timeout_ms = (unsigned)v;
	return r;
}

static int k_body_timeout(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_TIME_MS, 100, 3600000, &v, why, whylen);

	if (r == 0)
		c->body_timeout_ms = (unsigned)v;
	return r;
}

static int k_max_sessions(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_COUNT, 1, 100000, &v, why, whylen);

	if (r == 0)
		c->max_sessions_per_tenant = (unsigned)v;
	return r;
}

/* A time stored in whole seconds: "90s", "90000ms" or "90000"; 1500ms is
 * refused rather than rounded, so the file says what the gateway does. */
static int seconds(const char *val, uint64_t min_s, uint64_t max_s, unsigned *out, char *why,
		   size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_TIME_MS, min_s * 1000, max_s * 1000, &v, why, whylen);

	if (r < 0)
		return r;
	if (v % 1000 != 0) {
		gw_set_err(why, whylen, "'%s' is not a whole number of seconds", val);
		return -EINVAL;
	}
	*out = (unsigned)(v / 1000);
	return 0;
}

static int k_session_idle_timeout(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return seconds(val, 1, 7 * 86400, &c->session_idle_timeout_s, why, whylen);
}

static int k_sse_keepalive(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return seconds(val, 1, 300, &c->sse_keepalive_s, why, whylen);
}

static int k_max_stream_buffer(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_SIZE, 64u << 10, 1u << 30, &v, why, whylen);

	if (r == 0)
		c->max_stream_buffer_bytes = (size_t)v;
	return r;
}

static int k_progress_interval(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_TIME_MS, 100, 60000, &v, why, whylen);

	if (r == 0)
		c->progress_interval_ms = (unsigned)v;
	return r;
}

static int k_progress_message(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	uint64_t v;
	int r = ranged(val, VK_SIZE, 0, 64u << 10, &v, why, whylen);

	if (r == 0)
		c->progress_message_bytes = (size_t)v;
	return r;
}

static int k_audit_file(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return set_path(c->audit_file, sizeof(c->audit_file), val, why, whylen);
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
		gw_set_err(why, whylen, "'%s' is not auto, yes or no", val);
		return -EINVAL;
	}
	return 0;
}

static int k_fsync(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return gw_parse_bool(val, &c->audit_fsync, why, whylen);
}

static int k_log_code(struct gw_config *c, const char *val, char *why, size_t whylen)
{
	return gw_parse_bool(val, &c->audit_log_code, why, whylen);
}

static const struct cfg_key cfg_keys[] = {
    {"listen", SEC_GATEWAY, false, false, k_listen},
    {"metrics_listen", SEC_GATEWAY, false, true, k_metrics_listen},
    {"tenants", SEC_GATEWAY, false, false, k_tenants},
    {"jailer_socket", SEC_GATEWAY, false, true, k_jailer_socket},
    {"jailer", SEC_GATEWAY, false, true, k_jailer},
    {"stdio_tenant", SEC_GATEWAY, false, true, k_stdio_tenant},
    {"allowed_origin", SEC_GATEWAY, true, false, k_allowed_origin},
    {"allowed_host", SEC_GATEWAY, true, false, k_allowed_host},
    {"max_connections", SEC_LIMITS, false, false, k_max_connections},
    {"max_body", SEC_LIMITS, false, false, k_max_body},
    {"header_timeout", SEC_LIMITS, false, false, k_header_timeout},
    {"body_timeout", SEC_LIMITS, false, false, k_body_timeout},
    {"max_sessions_per_tenant", SEC_LIMITS, false, false, k_max_sessions},
    {"session_idle_timeout", SEC_LIMITS, false, false, k_session_idle_timeout},
    {"sse_keepalive", SEC_LIMITS, false, false, k_sse_keepalive},
    {"max_stream_buffer", SEC_LIMITS, false, false, k_max_stream_buffer},
    {"progress_interval", SEC_LIMITS, false, false, k_progress_interval},
    {"progress_message", SEC_LIMITS, false, false, k_progress_message},
    {"file", SEC_AUDIT, false, true, k_audit_file},
    {"journald", SEC_AUDIT, false, false, k_journald},
    {"fsync", SEC_AUDIT, false, false, k_fsync},
    {"log_code", SEC_AUDIT, false, false, k_log_code},
};
#define NCFG_KEYS (sizeof(cfg_keys) / sizeof(cfg_keys[0]))

static int cfg_section(void *ctx, const char *inner, char *why, size_t whylen)
{
	struct cfg_state *st = ctx;

	for (int i = 0; i < SEC_COUNT; i++) {
		if (strcmp(inner, section_names[i]) != 0)
			continue;
		if (st->done[i]) {
			gw_set_err(why, whylen, "section [%s]: appears twice", inner);
			return -EINVAL;
		}
		st->done[i] = true;
		st->sec = i;
		st->seen = 0;
		return 0;
	}
	gw_set_err(why, whylen, "section [%.64s]: unknown section (use gateway, limits, audit)",
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
		gw_set_err(why, whylen, "key '%s': unknown key in [%s]", key,
			   section_names[st->sec]);
		return -EINVAL;
	}
	if (!cfg_keys[i].repeatable) {
		if (st->seen & (1ull << i)) {
			gw_set_err(why, whylen,
				   "key '%s': set twice (only allowed_origin and allowed_host "
				   "may repeat)",
				   key);
			return -EINVAL;
		}
		st->seen |= 1ull << i;
	}
	if (val[0] == '\0' && !cfg_keys[i].may_be_empty) {
		gw_set_err(why, whylen, "key '%s': empty value", key);
		return -EINVAL;
	}
	inner[0] = '\0';
	if (cfg_keys[i].fn(st->c, val, inner, sizeof(inner)) < 0) {
		gw_set_err(why, whylen, "key '%s': %s", key, inner[0] ? inner : "invalid value");
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
	static const struct gw_ini_ops ops = {cfg_section, cfg_key};
	struct gw_config *work;
	struct cfg_state st = {.sec = -1};
	int r;

	if (!c)
		return -1;
	gw_set_err(err, errlen, "%s", "");
	/* Work on a copy so a bad file leaves the caller's settings intact. */
	work = malloc(sizeof(*work));
	if (!work) {
		gw_set_err(err, errlen, "%s: out of memory", name ? name : "(config)");
		return -1;
	}
	memcpy(work, c, sizeof(*work));
	st.c = work;
	r = gw_ini_parse(text, len, GW_CONFIG_MAX_BYTES, name, &ops, &st, err, errlen);
	if (r == 0)
		memcpy(c, work, sizeof(*c));
	free(work);
	return r < 0 ? -1 : 0;
}

int gw_config_load(const char *path, bool must_exist, struct gw_config *c, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int r;

	if (!path || !c)
		return -1;
	/* The gateway runs unprivileged, so ownership says nothing; a file
	 * anyone may rewrite would still hand its settings to anyone. */
	r = gw_read_config_file(path, GW_CONFIG_MAX_BYTES, S_IWOTH, &buf, &len, err, errlen);
	if (r == -ENOENT && !must_exist) {
		gw_set_err(err, errlen, "%s", "");
		return 0;
	}
	if (r < 0)
		return -1;
	r = gw_config_parse(buf, len, path, c, err, errlen);
	free(buf);
	return r;
}
