/* See http_headers.h. */
#include "http_headers.h"

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <sys/queue.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "http_reply.h"

/* Headers that may appear once; offset NONE: only checked for
 * duplicates (evhttp reads them itself). */
struct wanted {
	const char *name;
	unsigned len;
	size_t offset; /* of the field in struct http_headers, or (size_t)-1 */
};

#define FIELD(f) offsetof(struct http_headers, f)
#define NONE ((size_t)-1)

static const struct wanted wanted[] = {
    {"Host", 4, FIELD(host)},
    {"Origin", 6, FIELD(origin)},
    {"Authorization", 13, FIELD(authorization)},
    {"Content-Type", 12, FIELD(content_type)},
    {"MCP-Protocol-Version", 20, FIELD(protocol_version)},
    {"Mcp-Session-Id", 14, FIELD(session_id)},
    {"Last-Event-ID", 13, FIELD(last_event_id)},
    {"Content-Length", 14, NONE},
    {"Transfer-Encoding", 17, NONE},
};

int http_headers_scan(struct evhttp_request *req, struct http_headers *h)
{
	const struct evkeyvalq *q = evhttp_request_get_input_headers(req);
	const struct evkeyval *kv;
	unsigned seen = 0;

	memset(h, 0, sizeof(*h));
	h->all = q;
	TAILQ_FOREACH(kv, q, next)
	{
		size_t len = strlen(kv->key);
		if (len == 6 && !h->accept && strcasecmp(kv->key, "Accept") == 0) {
			h->accept = kv->value;
			continue;
		}
		for (unsigned i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
			const struct wanted *w = &wanted[i];
			if (len != w->len || strcasecmp(kv->key, w->name) != 0)
				continue;
			if (seen & (1u << i)) {
				h->duplicate = w->name;
				return -1;
			}
			seen |= 1u << i;
			if (w->offset != NONE)
				*(const char **)((char *)h + w->offset) = kv->value;
			break;
		}
	}
	return 0;
}

bool http_headers_accept(const struct http_headers *h, const char *type)
{
	const struct evkeyval *kv;
	TAILQ_FOREACH(kv, h->all, next)
	if (strcasecmp(kv->key, "Accept") == 0 && http_accepts(kv->value, type))
		return true;
	return false;
}
