/* UTF-8 validation and repair.  The gateway checks every incoming message
 * (JSON-RPC requires UTF-8) and repairs program output before it goes into a
 * JSON string, because a sandboxed program may print arbitrary bytes and a
 * stream cut at its cap may end in the middle of a character.
 */
#ifndef CELLGATE_UTF8_H
#define CELLGATE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* True when buf[0..len) is well-formed UTF-8 (RFC 3629): no overlong forms,
 * no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no sequence cut
 * short.  NUL bytes are well-formed. */
bool utf8_valid(const char *buf, size_t len);

/* Copy in[0..len) to a new malloc'd buffer with every ill-formed
 * subsequence replaced by U+FFFD (EF BF BD), one replacement per maximal
 * subpart as Unicode and WHATWG recommend: "\xE0\x80" becomes two U+FFFD,
 * a truncated "\xF0\x9F\x98" one.  *out is NUL-terminated (it may also hold
 * NUL bytes from the input; use *out_len).  Returns 0 or -ENOMEM / -EOVERFLOW. */
int utf8_sanitize(const char *in, size_t len, char **out, size_t *out_len);

#endif
