/* Strict JSON syntax check and member lookup (see json_check.h). */
#include "json_check.h"

#include <errno.h>
#include <string.h>

struct scanner {
	const unsigned char *p;
	size_t len;
	size_t pos;
	struct json_check_info *info;
	const char *why;
};

static int fail(struct scanner *sc, const char *why)
{
	sc->why = why;
	return -EINVAL;
}

static void skip_ws(struct scanner *sc)
{
	while (sc->pos < sc->len) {
		unsigned char c = sc->p[sc->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return;
		sc->pos++;
	}
}

static int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads the 4 hex digits after "\u"; sc->pos is at the first digit. */
static int read_hex4(struct scanner *sc, unsigned *cp)
{
	unsigned v = 0;

	if (sc->len - sc->pos < 4)
		return fail(sc, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		int h = hex_value(sc->p[sc->pos + (size_t)i]);
		if (h < 0)
			return fail(sc, "bad \\u escape");
		v = v << 4 | (unsigned)h;
	}
	sc->pos += 4;
	*cp = v;
	return 0;
}

/* sc->pos is at the opening quote. */
static int scan_string(struct scanner *sc)
{
	sc->pos++;
	while (sc->pos < sc->len) {
		unsigned char c = sc->p[sc->pos++];
		if (c == '"')
			return 0;
		if (c < 0x20)
			return fail(sc, "control character in string");
		if (c != '\\')
			continue;
		if (sc->pos >= sc->len)
			break;
		c = sc->p[sc->pos++];
		if (strchr("\"\\/bfnrt", c) && c != '\0')
			continue;
		if (c != 'u')
			return fail(sc, "bad escape in string");
		unsigned cp;
		int r = read_hex4(sc, &cp);
		if (r < 0)
			return r;
		if (cp == 0)
			sc->info->nul_escape = true;
		if (cp >= 0xDC00 && cp <= 0xDFFF)
			return fail(sc, "unpaired surrogate escape in string");
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			unsigned low;
			if (sc->len - sc->pos < 2 || sc->p[sc->pos] != '\\' ||
			    sc->p[sc->pos + 1] != 'u')
				return fail(sc, "unpaired surrogate escape in string");
			sc->pos += 2;
			r = read_hex4(sc, &low);
			if (r < 0)
				return r;
			if (low < 0xDC00 || low > 0xDFFF)
				return fail(sc, "unpaired surrogate escape in string");
		}
	}
	return fail(sc, "unterminated string");
}

static bool at_digit(const struct scanner *sc)
{
	return sc->pos < sc->len && sc->p[sc->pos] >= '0' && sc->p[sc->pos] <= '9';
}

static int scan_number(struct scanner *sc)
{
	if (sc->p[sc->pos] == '-')
		sc->pos++;
	if (!at_digit(sc))
		return fail(sc, "bad number");
	if (sc->p[sc->pos] == '0') {
		sc->pos++;
	} else {
		while (at_digit(sc))
			sc->pos++;
	}
	if (sc->pos < sc->len && sc->p[sc->pos] == '.') {
		sc->pos++;
		if (!at_digit(sc))
			return fail(sc, "bad number");
		while (at_digit(sc))
			sc->pos++;
	}
	if (sc->pos < sc->len && (sc->p[sc->pos] == 'e' || sc->p[sc->pos] == 'E')) {
		sc->pos++;
		if (sc->pos < sc->len && (sc->p[sc->pos] == '+' || sc->p[sc->pos] == '-'))
			sc->pos++;
		if (!at_digit(sc))
			return fail(sc, "bad number");
		while (at_digit(sc))
			sc->pos++;
	}
	return 0;
}

static int scan_literal(struct scanner *sc, const char *word)
{
	size_t n = strlen(word);

	if (sc->len - sc->pos < n || memcmp(sc->p + sc->pos, word, n) != 0)
		return fail(sc, "unexpected character");
	sc->pos += n;
	return 0;
}

/* A scalar value at sc->pos (not '{' or '['). */
static int scan_scalar(struct scanner *sc)
{
	switch (sc->p[sc->pos]) {
	case '"':
		return scan_string(sc);
	case 't':
		return scan_literal(sc, "true");
	case 'f':
		return scan_literal(sc, "false");
	case 'n':
		return scan_literal(sc, "null");
	default:
		if (sc->p[sc->pos] == '-' || (sc->p[sc->pos] >= '0' && sc->p[sc->pos] <= '9'))
			return scan_number(sc);
		return fail(sc, "unexpected character");
	}
}

/* After '{' or ',' inside an object: whitespace, a key, whitespace, ':'. */
static int scan_key(struct scanner *sc)
{
	skip_ws(sc);
	if (sc->pos >= sc->len || sc->p[sc->pos] != '"')
		return fail(sc, "expected a member name");
	int r = scan_string(sc);
	if (r < 0)
		return r;
	skip_ws(sc);
	if (sc->pos >= sc->len || sc->p[sc->pos] != ':')
		return fail(sc, "expected ':'");
	sc->pos++;
	return 0;
}

int json_check(const char *buf, size_t len, struct json_check_info *info, const char **why)
{
	/* The open containers, innermost last: '{' or '['.  Iterative so a
	 * deep message cannot exhaust the stack. */
	unsigned char stack[JSON_CHECK_MAX_DEPTH];
	size_t depth = 0;
	struct scanner sc = {.p = (const unsigned char *)buf, .len = len, .info = info};
	int r;

	info->nul_escape = false;
	*why = NULL;
	for (;;) {
		/* Expect a value. */
		skip_ws(&sc);
		if (sc.pos >= sc.len) {
			r = fail(&sc, depth ? "unexpected end of input" : "empty message");
			goto out;
		}
		unsigned char c = sc.p[sc.pos];
		if (c == '{' || c == '[') {
			if (depth >= JSON_CHECK_MAX_DEPTH) {
				r = fail(&sc, "nesting too deep");
				goto out;
			}
			stack[depth++] = c;
			sc.pos++;
			skip_ws(&sc);
			if (sc.pos < sc.len && sc.p[sc.pos] == (c == '{' ? '}' : ']')) {
				sc.pos++;
				depth--;
			} else {
				if (c == '{' && (r = scan_key(&sc)) < 0)
					goto out;
				continue;
			}
		} else if ((r = scan_scalar(&sc)) < 0) {
			goto out;
		}

		/* After a value: close containers or move to the next element. */
		for (;;) {
			skip_ws(&sc);
			if (depth == 0) {
				r = sc.pos == sc.len ? 0 : fail(&sc, "trailing characters");
				goto out;
			}
			if (sc.pos >= sc.len) {
				r = fail(&sc, "unexpected end of input");
				goto out;
			}
			unsigned char open = stack[depth - 1];
			c = sc.p[sc.pos++];
			if (c == ',') {
				if (open == '{' && (r = scan_key(&sc)) < 0)
					goto out;
				break;
			}
			if (c != (open == '{' ? '}' : ']')) {
				r = fail(&sc, open == '{' ? "expected ',' or '}'"
							  : "expected ',' or ']'");
				goto out;
			}
			depth--;
		}
	}
out:
	*why = sc.why;
	return r;
}

int json_member(const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *found = NULL;

	*out = NULL;
	for (const cJSON *it = obj ? obj->child : NULL; it; it = it->next) {
		if (!it->string || strcmp(it->string, key) != 0)
			continue;
		if (found)
			return -EEXIST;
		found = it;
		*out = it;
	}
	return found ? 0 : -ENOENT;
}
