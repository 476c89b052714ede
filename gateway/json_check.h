/* Strict JSON (RFC 8259) syntax check, run before cJSON parses a message,
 * and unambiguous object member lookup.
 *
 * cJSON is lenient: it accepts raw control characters inside strings
 * (a raw NUL silently truncates the string), "+1" as a number, and looks up
 * members case-insensitively.  A message that two JSON parsers could read
 * differently is refused here instead.
 */
#ifndef CELLGATE_JSON_CHECK_H
#define CELLGATE_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* Deepest nesting of arrays and objects accepted in one message. */
#define JSON_CHECK_MAX_DEPTH 128u

struct json_check_info {
	/* Some string holds the escape \u0000.  cJSON stores strings
	 * NUL-terminated, so such a string would reach us truncated. */
	bool nul_escape;
};

/* 0 when buf[0..len) is exactly one JSON value with optional surrounding
 * whitespace, strings free of raw control characters and with valid
 * escapes (surrogate escapes paired), numbers in the RFC grammar, nesting at
 * most JSON_CHECK_MAX_DEPTH.  Bytes >= 0x80 are not checked here (see
 * utf8_valid).  -EINVAL otherwise, with *why a static description. */
int json_check(const char *buf, size_t len, struct json_check_info *info, const char **why);

/* Look up member `key` of object `obj`, case-sensitively.  Returns 0 and
 * *out, -ENOENT when absent, -EEXIST when the key appears more than once
 * (then *out is the first).  obj must be an object. */
int json_member(const cJSON *obj, const char *key, const cJSON **out);

#endif
