/* UTF-8 validation and repair (see utf8.h). */
#include "utf8.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Decode the sequence at p (n > 0 bytes available).  Returns the number of
 * bytes it spans: the whole character when *ok, else the length of the
 * maximal ill-formed subpart (at least 1), which is what one U+FFFD replaces.
 * The ranges for the second byte exclude overlongs (E0, F0), surrogates (ED)
 * and code points above U+10FFFF (F4). */
static size_t utf8_decode_one(const unsigned char *p, size_t n, bool *ok)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t need;

	*ok = false;
	if (p[0] < 0x80) {
		*ok = true;
		return 1;
	}
	if (p[0] >= 0xC2 && p[0] <= 0xDF) {
		need = 1;
	} else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		need = 2;
		if (p[0] == 0xE0)
			lo = 0xA0;
		else if (p[0] == 0xED)
			hi = 0x9F;
	} else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		need = 3;
		if (p[0] == 0xF0)
			lo = 0x90;
		else if (p[0] == 0xF4)
			hi = 0x8F;
	} else {
		return 1; /* continuation byte, C0, C1 or F5..FF */
	}

	size_t i = 1;
	for (; need > 0; need--, i++) {
		if (i >= n || p[i] < lo || p[i] > hi)
			return i; /* cut short or a bad byte: replace what we saw */
		lo = 0x80;
		hi = 0xBF;
	}
	*ok = true;
	return i;
}

bool utf8_valid(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		bool ok;
		size_t n = utf8_decode_one(p + i, len - i, &ok);
		if (!ok)
			return false;
		i += n;
	}
	return true;
}

int utf8_sanitize(const char *in, size_t len, char **out, size_t *out_len)
{
	static const char replacement[3] = {'\xEF', '\xBF', '\xBD'};
	const unsigned char *p = (const unsigned char *)in;

	*out = NULL;
	*out_len = 0;
	/* Worst case every byte becomes a 3-byte U+FFFD, plus the NUL. */
	if (len > (SIZE_MAX - 1) / 3)
		return -EOVERFLOW;
	char *buf = malloc(len * 3 + 1);
	if (!buf)
		return -ENOMEM;

	size_t i = 0, o = 0;
	while (i < len) {
		bool ok;
		size_t n = utf8_decode_one(p + i, len - i, &ok);
		if (ok) {
			memcpy(buf + o, p + i, n);
			o += n;
		} else {
			memcpy(buf + o, replacement, sizeof(replacement));
			o += sizeof(replacement);
		}
		i += n;
	}
	buf[o] = '\0';
	*out = buf;
	*out_len = o;
	return 0;
}
