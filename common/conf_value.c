/* Counts, sizes, durations and booleans in configuration files
 * (conf_value.h). */
#include "conf_value.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

void conf_vset_err(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (!err || errlen == 0)
		return;
	vsnprintf(err, errlen, fmt, ap);
}

void conf_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_vset_err(err, errlen, fmt, ap);
	va_end(ap);
}

/* The leading decimal digits of s; *end is left on the first non-digit. */
static int parse_digits(const char *s, uint64_t *v, const char **end, char *why, size_t whylen)
{
	uint64_t x = 0;
	const char *q = s;

	if (*q < '0' || *q > '9') {
		conf_set_err(why, whylen, "'%s' is not a non-negative integer", s);
		return -EINVAL;
	}
	for (; *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');

		if (x > (UINT64_MAX - d) / 10) {
			conf_set_err(why, whylen, "'%s' is out of range", s);
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
		conf_set_err(why, whylen, "'%s' is out of range", s);
		return -EINVAL;
	}
	*v *= mult;
	return 0;
}

static int count_value(const char *s, uint64_t *v, char *why, size_t whylen)
{
	const char *end;
	int r = parse_digits(s, v, &end, why, whylen);

	if (r < 0)
		return r;
	if (*end) {
		conf_set_err(why, whylen, "'%s' has trailing junk '%s'", s, end);
		return -EINVAL;
	}
	return 0;
}

static int size_value(const char *s, uint64_t *v, char *why, size_t whylen)
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
	conf_set_err(why, whylen, "'%s' has an unknown suffix '%s' (use K, M or G)", s, end);
	return -EINVAL;
}

static int duration_ms_value(const char *s, uint64_t *v, char *why, size_t whylen)
{
	const char *end;
	int r = parse_digits(s, v, &end, why, whylen);

	if (r < 0)
		return r;
	if (!*end || strcmp(end, "ms") == 0)
		return 0;
	if (strcmp(end, "s") == 0)
		return scale(v, 1000, s, why, whylen);
	conf_set_err(why, whylen, "'%s' has an unknown suffix '%s' (use ms or s)", s, end);
	return -EINVAL;
}

int conf_parse_number(enum conf_kind kind, const char *s, uint64_t min, uint64_t max, uint64_t *v,
		      char *why, size_t whylen)
{
	const char *unit;
	uint64_t x;
	int r;

	if (!s || !v)
		return -EINVAL;
	switch (kind) {
	case CONF_SIZE:
		r = size_value(s, &x, why, whylen);
		unit = " bytes";
		break;
	case CONF_DURATION_MS:
		r = duration_ms_value(s, &x, why, whylen);
		unit = " ms";
		break;
	case CONF_COUNT:
		r = count_value(s, &x, why, whylen);
		unit = "";
		break;
	default:
		conf_set_err(why, whylen, "unknown kind of value");
		return -EINVAL;
	}
	if (r < 0)
		return r;
	if (x < min || x > max) {
		conf_set_err(why, whylen, "'%s' is outside %llu..%llu%s", s,
			     (unsigned long long)min, (unsigned long long)max, unit);
		return -EINVAL;
	}
	*v = x;
	return 0;
}

int conf_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *v, char *why,
		     size_t whylen)
{
	return conf_parse_number(CONF_COUNT, s, min, max, v, why, whylen);
}

int conf_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v, char *why,
		    size_t whylen)
{
	return conf_parse_number(CONF_SIZE, s, min, max, v, why, whylen);
}

int conf_parse_duration_ms(const char *s, uint64_t min, uint64_t max, uint64_t *v, char *why,
			   size_t whylen)
{
	return conf_parse_number(CONF_DURATION_MS, s, min, max, v, why, whylen);
}

int conf_parse_bool(const char *s, bool *b, char *why, size_t whylen)
{
	if (!s || !b)
		return -EINVAL;
	if (strcmp(s, "yes") == 0 || strcmp(s, "true") == 0) {
		*b = true;
		return 0;
	}
	if (strcmp(s, "no") == 0 || strcmp(s, "false") == 0) {
		*b = false;
		return 0;
	}
	conf_set_err(why, whylen, "'%s' is not yes, no, true or false", s);
	return -EINVAL;
}

void conf_store_uint(void *field, size_t size, uint64_t max, uint64_t v)
{
	assert(size == sizeof(uint64_t) || (size == sizeof(uint32_t) && max <= UINT32_MAX));
	if (size == sizeof(uint64_t)) {
		memcpy(field, &v, sizeof(v));
	} else {
		uint32_t v32 = (uint32_t)v;

		memcpy(field, &v32, sizeof(v32));
	}
}
