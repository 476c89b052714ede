/* The INI dialect of every configuration file an operator edits (the
 * gateway's config and tenants files, the jailer's policy):
 *
 *   [section]          header; the text between the brackets is trimmed
 *   key = value        whitespace around key and value trimmed; value may be ""
 *   # or ; ...         a comment, only at the start of a line
 *
 * Keys are [a-z0-9_]; lines are at most INI_LINE_MAX characters; no NUL or
 * control characters (tab aside); a key before any header is an error.
 * What sections and keys mean is the caller's: the walker only splits
 * lines and reports where a callback said no. */
#ifndef CELLGATE_INI_H
#define CELLGATE_INI_H

#include <stddef.h>

#define INI_LINE_MAX 4096u
/* Room for a callback's reason; longer ones are cut. */
#define INI_WHY_MAX 512u

struct ini_handler {
	/* `inner` is the trimmed text between the brackets. */
	int (*section)(void *ctx, const char *inner, char *why, size_t whylen);
	/* Called for every key line after a header; val may be "". */
	int (*key)(void *ctx, const char *key, const char *val, char *why, size_t whylen);
};

/* Walk `len` bytes of text line by line, calling h.  A callback's negative
 * return stops the walk; its `why` (or "invalid line") goes into err after
 * the location: "NAME:LINE: " or, when name is NULL, "line LINE: ".  Text
 * over max_bytes is refused whole ("NAME: larger than N bytes", or
 * "text is larger than N bytes" without a name).  Returns 0 or -EINVAL. */
int ini_parse(const char *text, size_t len, size_t max_bytes, const char *name,
	      const struct ini_handler *h, void *ctx, char *err, size_t errlen);

#endif
