/* http_wire: reads one HTTP/1.1 response off a byte stream, for the bench
 * clients (http-load, sse-idle).
 *
 * The head (status line and header fields, any 1xx interim responses
 * before it) must lie whole in the caller's buffer; the body is followed
 * byte by byte and never needs to be kept, so a client may read a long
 * event stream through a small scratch buffer.  Bodies are framed by
 * Content-Length, by the chunked transfer coding or, without either, by the
 * server closing the connection.  Body bytes are thrown away.
 */
#ifndef CELLGATE_BENCH_HTTP_WIRE_H
#define CELLGATE_BENCH_HTTP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum http_wire_rc {
	HTTP_WIRE_ERROR = -1, /* malformed, or a head longer than head_max */
	HTTP_WIRE_MORE = 0,   /* everything usable was consumed; feed more bytes */
	HTTP_WIRE_HEAD = 1,   /* the final head was read: status and flags are set */
	HTTP_WIRE_DONE = 2,   /* the response is complete */
};

enum http_wire_state {
	HTTP_WIRE_S_HEAD,
	HTTP_WIRE_S_LENGTH,
	HTTP_WIRE_S_CHUNK_SIZE,
	HTTP_WIRE_S_CHUNK_DATA,
	HTTP_WIRE_S_CHUNK_CRLF,
	HTTP_WIRE_S_TRAILER,
	HTTP_WIRE_S_UNTIL_CLOSE,
	HTTP_WIRE_S_DONE,
};

struct http_wire {
	/* from http_wire_init */
	size_t head_max;
	bool no_body; /* the answer to a HEAD request */
	/* from the final head */
	int status;
	bool close_after;  /* HTTP/1.0 or Connection: close, or framed by the close */
	bool event_stream; /* Content-Type: text/event-stream */
	/* body framing */
	enum http_wire_state st;
	uint64_t remaining; /* of the body or the chunk; 2..1 of a chunk's CRLF */
	bool cr;	    /* the last byte of a chunk-size or trailer line was CR */
	bool line_long;	    /* that line did not fit in line[] */
	uint8_t line_len;
	char line[24]; /* start of the line: enough for any valid chunk size */
};

/* Expect a new response.  head_max bounds one head (the caller's buffer);
 * no_body for the answer to HEAD. */
void http_wire_init(struct http_wire *w, size_t head_max, bool no_body);

/* Consumes buf[0..len).  *used is set to the bytes consumed:
 * - HTTP_WIRE_HEAD: the head ended at buf + *used; the rest is body, to be
 *   fed by calling again.
 * - HTTP_WIRE_DONE: the response ended at buf + *used; what follows is not
 *   part of it.  Further calls return DONE and consume nothing.
 * - HTTP_WIRE_MORE: while a head is awaited, *used covers only interim
 *   responses and the caller keeps buf[*used..len) at the start of its
 *   buffer to extend it; in the body everything is consumed.
 * - HTTP_WIRE_ERROR: the response is malformed or its head does not fit in
 *   head_max bytes. */
int http_wire_feed(struct http_wire *w, const char *buf, size_t len, size_t *used);

/* True when the body runs until the server closes the connection, so that
 * the close completes the response instead of cutting it short. */
bool http_wire_ends_at_close(const struct http_wire *w);

/* A parsed http:// URL: the Host header value, the request path (with any
 * query), and the resolved address. */
struct http_url {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char hostport[300];
	char path[2048];
};

/* Parse and resolve "http://HOST[:PORT][/PATH]" (HOST may be [v6]); 0, or
 * -1 with the reason in err. */
int http_url_parse(const char *url, struct http_url *u, char *err, size_t errlen);

#endif
