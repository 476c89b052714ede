/* One text/event-stream response in progress: events, keep-alive
 * comments, a bound on what may wait unsent, and notice when the client
 * goes away.
 */
#ifndef CELLGATE_SSE_H
#define CELLGATE_SSE_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct evhttp_request;
struct sse_stream;

/* The client went away (or stopped reading past the bound); the stream is
 * freed right after this returns.  Not called after sse_end. */
typedef void (*sse_closed_fn)(struct sse_stream *s, void *arg);

/* Send the 200 text/event-stream head on `req` and return the stream;
 * NULL (and a 500 sent) on failure. */
struct sse_stream *sse_start(struct evhttp_request *req, struct event_base *base,
			     unsigned keepalive_s, size_t max_unsent, sse_closed_fn closed,
			     void *arg);

/* One event: optional id and event name, data on one line (the JSON we
 * send never holds a newline).  Returns 0, or -1 when the client is not
 * reading: then the stream has been closed and `closed` called. */
int sse_send(struct sse_stream *s, const char *id, const char *event, const char *data,
	     size_t len);
/* Raw text (e.g. "retry: 1000\n\n"). Same contract. */
int sse_send_raw(struct sse_stream *s, const char *text);

/* Finish the response and free the stream (no callback). */
void sse_end(struct sse_stream *s);

#endif
