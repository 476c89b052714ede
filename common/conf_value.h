/* Value parsers shared by every configuration file an operator edits (the
 * gateway's config and tenants files, the jailer's policy), so a number,
 * size, time or yes/no is spelled the same everywhere:
 *
 *   count      decimal digits only: "0", "64"
 *   size       a count with an optional K, M or G suffix (powers of 1024,
 *              either case): "512", "64K", "4M", "1G"
 *   duration   a count with an optional ms or s suffix; bare numbers are
 *              milliseconds: "250", "250ms", "30s"
 *   bool       yes, no, true or false
 *
 * No sign, no spaces, no fractions, no overflow.  Every parser returns 0 or
 * -EINVAL with a reason naming the value in `why`; *v is written only on
 * success. */
#ifndef CELLGATE_CONF_VALUE_H
#define CELLGATE_CONF_VALUE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum conf_kind {
	CONF_COUNT,	  /* plain number */
	CONF_SIZE,	  /* bytes */
	CONF_DURATION_MS, /* milliseconds */
};

/* Each parses `s` as its kind and checks min <= v <= max (bytes for sizes,
 * milliseconds for durations); outside the bounds the reason is
 * "'S' is outside MIN..MAX[ bytes| ms]".  0..UINT64_MAX checks nothing. */
int conf_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *v, char *why,
		     size_t whylen);
int conf_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v, char *why,
		    size_t whylen);
int conf_parse_duration_ms(const char *s, uint64_t min, uint64_t max, uint64_t *v, char *why,
			   size_t whylen);
/* The three above, chosen by `kind` (for key tables). */
int conf_parse_number(enum conf_kind kind, const char *s, uint64_t min, uint64_t max, uint64_t *v,
		      char *why, size_t whylen);

int conf_parse_bool(const char *s, bool *b, char *why, size_t whylen);

/* Store a parsed number into an unsigned field of `size` bytes (8, or 4
 * when `max`, the key's bound, fits): for key tables whose rows give a
 * field's offset and size.  A size or bound that does not fit is a
 * mistake in the table, caught by an assert. */
void conf_store_uint(void *field, size_t size, uint64_t max, uint64_t v);

/* snprintf into err when there is room for a message at all (err may be
 * NULL or errlen 0): the one way messages are written in common/. */
__attribute__((format(printf, 3, 4))) void conf_set_err(char *err, size_t errlen, const char *fmt,
							...);
__attribute__((format(printf, 3, 0))) void conf_vset_err(char *err, size_t errlen, const char *fmt,
							 va_list ap);

#endif
