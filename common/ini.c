/* The INI line walker (ini.h). */
#include "ini.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "conf_value.h"

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

/* One line, NUL-terminated in a buffer we may cut up. */
static int ini_line(char *raw, bool *in_section, const struct ini_handler *h, void *ctx, char *why,
		    size_t whylen)
{
	char *line = trim(raw), *eq, *key, *val;
	size_t n;

	if (line[0] == '\0' || line[0] == '#' || line[0] == ';')
		return 0;
	for (const char *c = line; *c; c++) {
		if ((*c > 0 && *c < 0x20 && *c != '\t') || *c == 0x7f) {
			conf_set_err(why, whylen, "contains a control character");
			return -EINVAL;
		}
	}
	n = strlen(line);
	if (line[0] == '[') {
		if (line[n - 1] != ']') {
			conf_set_err(why, whylen, "malformed section header");
			return -EINVAL;
		}
		line[n - 1] = '\0';
		*in_section = true;
		return h->section(ctx, trim(line + 1), why, whylen);
	}
	eq = strchr(line, '=');
	if (!eq) {
		conf_set_err(why, whylen, "malformed line (expected 'key = value')");
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (key[0] == '\0') {
		conf_set_err(why, whylen, "malformed line (empty key)");
		return -EINVAL;
	}
	for (const char *c = key; *c; c++) {
		if (!key_char(*c)) {
			conf_set_err(why, whylen, "malformed key (use a-z, 0-9, '_')");
			return -EINVAL;
		}
	}
	if (!*in_section) {
		conf_set_err(why, whylen, "key '%s': outside of any section", key);
		return -EINVAL;
	}
	return h->key(ctx, key, val, why, whylen);
}

/* "NAME:LINE: what" or "line LINE: what". */
static void located(char *err, size_t errlen, const char *name, unsigned lineno, const char *what)
{
	if (name)
		conf_set_err(err, errlen, "%s:%u: %s", name, lineno, what);
	else
		conf_set_err(err, errlen, "line %u: %s", lineno, what);
}

int ini_parse(const char *text, size_t len, size_t max_bytes, const char *name,
	      const struct ini_handler *h, void *ctx, char *err, size_t errlen)
{
	const char *nul;
	bool in_section = false;
	unsigned lineno = 0;
	size_t pos = 0;

	if (!h || !h->section || !h->key || (!text && len)) {
		if (name)
			conf_set_err(err, errlen, "%s: nothing to parse", name);
		else
			conf_set_err(err, errlen, "nothing to parse");
		return -EINVAL;
	}
	if (len > max_bytes) {
		if (name)
			conf_set_err(err, errlen, "%s: larger than %zu bytes", name, max_bytes);
		else
			conf_set_err(err, errlen, "text is larger than %zu bytes", max_bytes);
		return -EINVAL;
	}
	/* A NUL would silently end a line early, so refuse the text before any
	 * callback has acted on it. */
	nul = len ? memchr(text, '\0', len) : NULL;
	if (nul) {
		unsigned l = 1;

		for (const char *c = text; c < nul; c++)
			l += *c == '\n';
		located(err, errlen, name, l, "contains a NUL byte");
		return -EINVAL;
	}
	while (pos < len) {
		char line[INI_LINE_MAX + 1];
		char why[INI_WHY_MAX];
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;

		lineno++;
		if (n > INI_LINE_MAX) {
			conf_set_err(why, sizeof(why), "longer than %u characters", INI_LINE_MAX);
			located(err, errlen, name, lineno, why);
			return -EINVAL;
		}
		memcpy(line, start, n);
		line[n] = '\0';
		why[0] = '\0';
		if (ini_line(line, &in_section, h, ctx, why, sizeof(why)) < 0) {
			located(err, errlen, name, lineno, why[0] ? why : "invalid line");
			return -EINVAL;
		}
		pos += n + (nl ? 1 : 0);
	}
	return 0;
}
