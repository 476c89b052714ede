/* http_wire: the HTTP/1.1 response reader shared by the bench clients.
 * See http_wire.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "http_wire.h"

#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void http_wire_init(struct http_wire *w, size_t head_max, bool no_body)
{
	memset(w, 0, sizeof(*w));
	w->head_max = head_max;
	w->no_body = no_body;
	w->st = HTTP_WIRE_S_HEAD;
}

bool http_wire_ends_at_close(const struct http_wire *w)
{
	return w->st == HTTP_WIRE_S_UNTIL_CLOSE;
}

static const char *find_crlf(const char *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (p[i] == '\r' && p[i + 1] == '\n')
			return p + i;
	return NULL;
}

/* Does the comma-separated header value contain the token? */
static bool has_token(const char *v, size_t len, const char *token)
{
	size_t tl = strlen(token);

	for (size_t i = 0; i + tl <= len; i++) {
		if (strncasecmp(v + i, token, tl) != 0)
			continue;
		if ((i == 0 || v[i - 1] == ',' || v[i - 1] == ' ') &&
		    (i + tl == len || v[i + tl] == ',' || v[i + tl] == ' ' || v[i + tl] == ';'))
			return true;
	}
	return false;
}

static bool name_is(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && strncasecmp(name, want, len) == 0;
}

/* Parses the head in p[0..end), end pointing at its closing CRLFCRLF, and
 * sets the body's framing; 0 or -1 when malformed. */
static int parse_head(struct http_wire *w, const char *p, const char *end)
{
	const char *line_end = find_crlf(p, (size_t)(end - p) + 2);
	bool have_length = false, chunked = false;
	uint64_t length = 0;
	char *num_end;
	long status;

	if (!line_end || line_end - p < 12 || strncmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ')
		return -1;
	status = strtol(p + 9, &num_end, 10);
	if (num_end != p + 12 || status < 100 || status > 599)
		return -1;
	w->status = (int)status;
	w->close_after = p[7] == '0'; /* HTTP/1.0 closes unless it says keep-alive */
	w->event_stream = false;
	for (p = line_end + 2; p < end; p = line_end + 2) {
		const char *colon, *v;
		size_t vlen, nlen;

		line_end = find_crlf(p, (size_t)(end - p) + 2);
		colon = memchr(p, ':', (size_t)(line_end - p));
		if (!colon)
			return -1;
		nlen = (size_t)(colon - p);
		for (v = colon + 1; v < line_end && (*v == ' ' || *v == '\t'); v++)
			;
		vlen = (size_t)(line_end - v);
		while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
			vlen--;
		if (name_is(p, nlen, "Content-Length")) {
			char tmp[24];

			if (vlen == 0 || vlen >= sizeof(tmp))
				return -1;
			memcpy(tmp, v, vlen);
			tmp[vlen] = '\0';
			errno = 0;
			length = strtoull(tmp, &num_end, 10);
			if (errno || *num_end || tmp[0] == '-')
				return -1;
			have_length = true;
		} else if (name_is(p, nlen, "Transfer-Encoding")) {
			chunked = has_token(v, vlen, "chunked");
		} else if (name_is(p, nlen, "Connection")) {
			if (has_token(v, vlen, "close"))
				w->close_after = true;
			else if (has_token(v, vlen, "keep-alive"))
				w->close_after = false;
		} else if (name_is(p, nlen, "Content-Type")) {
			w->event_stream =
			    vlen >= 17 && strncasecmp(v, "text/event-stream", 17) == 0;
		}
	}
	if (w->status < 200) {
		w->st = HTTP_WIRE_S_HEAD; /* an interim response; the real one follows */
	} else if (w->status == 204 || w->status == 304 || w->no_body) {
		w->st = HTTP_WIRE_S_DONE;
	} else if (chunked) {
		w->st = HTTP_WIRE_S_CHUNK_SIZE;
	} else if (have_length) {
		w->st = length == 0 ? HTTP_WIRE_S_DONE : HTTP_WIRE_S_LENGTH;
		w->remaining = length;
	} else {
		w->st = HTTP_WIRE_S_UNTIL_CLOSE;
		w->close_after = true;
	}
	return 0;
}

/* A complete chunk-size line is in w->line: the next state, or -1. */
static int end_chunk_size(struct http_wire *w)
{
	char *num_end;

	if (!isxdigit((unsigned char)w->line[0]))
		return -1;
	errno = 0;
	w->remaining = strtoull(w->line, &num_end, 16);
	if (errno)
		return -1;
	/* Digits that ran past what line[] holds are too many anyway. */
	if (*num_end == '\0' && w->line_long)
		return -1;
	if (*num_end != '\0' && *num_end != ';' && *num_end != ' ')
		return -1;
	w->st = w->remaining == 0 ? HTTP_WIRE_S_TRAILER : HTTP_WIRE_S_CHUNK_DATA;
	return 0;
}

/* One byte of a chunk-size or trailer line; 1 when the message ended, 0
 * to go on, -1 when malformed.  Lines end in CRLF; only their start is
 * kept, since a chunk extension or a trailer field is of no interest. */
static int line_byte(struct http_wire *w, char c)
{
	size_t kept;
	bool empty;
	int rc = 0;

	if (c != '\n') {
		if (w->line_len < sizeof(w->line) - 1)
			w->line[w->line_len++] = c;
		else
			w->line_long = true;
		w->cr = c == '\r';
		return 0;
	}
	if (!w->cr)
		return -1;
	kept = w->line_len;
	if (!w->line_long && kept > 0 && w->line[kept - 1] == '\r')
		kept--;
	w->line[kept] = '\0';
	empty = kept == 0 && !w->line_long;
	if (w->st == HTTP_WIRE_S_TRAILER)
		rc = empty ? 1 : 0; /* the empty line ends the message */
	else
		rc = end_chunk_size(w);
	w->line_len = 0;
	w->line_long = false;
	w->cr = false;
	return rc;
}

int http_wire_feed(struct http_wire *w, const char *buf, size_t len, size_t *used)
{
	size_t off = 0;

	*used = 0;
	while (w->st == HTTP_WIRE_S_HEAD) {
		const char *end = memmem(buf + off, len - off, "\r\n\r\n", 4);

		if (!end) {
			*used = off;
			return len - off >= w->head_max ? HTTP_WIRE_ERROR : HTTP_WIRE_MORE;
		}
		if ((size_t)(end + 4 - (buf + off)) > w->head_max)
			return HTTP_WIRE_ERROR;
		if (parse_head(w, buf + off, end) < 0)
			return HTTP_WIRE_ERROR;
		off = (size_t)(end + 4 - buf);
		if (w->st != HTTP_WIRE_S_HEAD) {
			*used = off;
			return HTTP_WIRE_HEAD;
		}
	}
	while (off < len && w->st != HTTP_WIRE_S_DONE) {
		size_t avail = len - off;
		uint64_t n;
		int rc;

		switch (w->st) {
		case HTTP_WIRE_S_LENGTH:
		case HTTP_WIRE_S_CHUNK_DATA:
			n = avail < w->remaining ? avail : w->remaining;
			off += (size_t)n;
			w->remaining -= n;
			if (w->remaining > 0)
				break;
			if (w->st == HTTP_WIRE_S_LENGTH) {
				w->st = HTTP_WIRE_S_DONE;
			} else {
				w->st = HTTP_WIRE_S_CHUNK_CRLF;
				w->remaining = 2;
			}
			break;
		case HTTP_WIRE_S_CHUNK_CRLF:
			if (buf[off++] != "\r\n"[2 - w->remaining])
				return HTTP_WIRE_ERROR;
			if (--w->remaining == 0)
				w->st = HTTP_WIRE_S_CHUNK_SIZE;
			break;
		case HTTP_WIRE_S_CHUNK_SIZE:
		case HTTP_WIRE_S_TRAILER:
			rc = line_byte(w, buf[off++]);
			if (rc < 0)
				return HTTP_WIRE_ERROR;
			if (rc > 0)
				w->st = HTTP_WIRE_S_DONE;
			break;
		case HTTP_WIRE_S_UNTIL_CLOSE:
			off = len; /* the body ends when the server closes */
			break;
		case HTTP_WIRE_S_HEAD:
		case HTTP_WIRE_S_DONE:
			break; /* not reached: handled above and by the loop condition */
		}
	}
	*used = off;
	return w->st == HTTP_WIRE_S_DONE ? HTTP_WIRE_DONE : HTTP_WIRE_MORE;
}

/* http://HOST[:PORT][/PATH]; HOST may be [v6]. */
int http_url_parse(const char *url, struct http_url *u, char *err, size_t errlen)
{
	const char *p, *auth_end, *host_end, *port = NULL;
	char host[256], portbuf[8];
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
	size_t hl;
	int rc;

	if (strncmp(url, "http://", 7) != 0) {
		snprintf(err, errlen, "%s", "only http:// URLs");
		return -1;
	}
	p = url + 7;
	auth_end = p + strcspn(p, "/?");
	if (auth_end == p || (size_t)(auth_end - p) >= sizeof(u->hostport)) {
		snprintf(err, errlen, "%s", "bad host");
		return -1;
	}
	memcpy(u->hostport, p, (size_t)(auth_end - p));
	u->hostport[auth_end - p] = '\0';
	if (*p == '[') {
		host_end = memchr(p, ']', (size_t)(auth_end - p));
		if (!host_end) {
			snprintf(err, errlen, "%s", "unterminated [");
			return -1;
		}
		p++;
		if (host_end + 1 < auth_end && host_end[1] == ':')
			port = host_end + 2;
	} else {
		host_end = memchr(p, ':', (size_t)(auth_end - p));
		if (host_end)
			port = host_end + 1;
		else
			host_end = auth_end;
	}
	hl = (size_t)(host_end - p);
	if (hl == 0 || hl >= sizeof(host)) {
		snprintf(err, errlen, "%s", "bad host");
		return -1;
	}
	memcpy(host, p, hl);
	host[hl] = '\0';
	if (!port) {
		port = "80";
	} else {
		size_t pl = (size_t)(auth_end - port);

		if (pl == 0 || pl >= sizeof(portbuf)) {
			snprintf(err, errlen, "%s", "bad port");
			return -1;
		}
		memcpy(portbuf, port, pl);
		portbuf[pl] = '\0';
		port = portbuf;
	}
	if (*auth_end == '\0')
		strcpy(u->path, "/");
	else if (*auth_end == '?')
		snprintf(u->path, sizeof(u->path), "/%s", auth_end);
	else if (strlen(auth_end) < sizeof(u->path))
		strcpy(u->path, auth_end);
	else {
		snprintf(err, errlen, "%s", "path too long");
		return -1;
	}
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", host, gai_strerror(rc));
		return -1;
	}
	if (res->ai_addrlen > sizeof(u->addr)) {
		freeaddrinfo(res);
		snprintf(err, errlen, "%s: address too long", host);
		return -1;
	}
	memcpy(&u->addr, res->ai_addr, res->ai_addrlen);
	u->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}
