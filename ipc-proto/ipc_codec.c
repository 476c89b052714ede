/* ipc-proto codec: struct ipc_msg <-> bytes.  Pure functions, no I/O.
 *
 * Wire layout (all integers little-endian, written byte by byte):
 *
 *   header (16 bytes)
 *     u32 magic        IPC_MAGIC
 *     u16 version      IPC_VERSION
 *     u16 type         enum ipc_type
 *     u32 length       payload bytes that follow the header
 *     u32 reserved     must be 0 (non-zero: IPC_DEC_RANGE)
 *
 *   str    = u32 n, then n bytes; no NUL among them; n <= the field's max
 *   limits = u64 wall_ms, u64 cpu_ms, u64 memory_bytes, u64 pids,
 *            u64 tmpfs_bytes, u64 output_bytes                    (48 bytes)
 *
 *   HELLO     (fds 0)  empty payload
 *   HELLO_OK  (fds 0)  u32 nprofiles (<= IPC_MAX_PROFILES), then per profile:
 *                        str name (<= IPC_MAX_NAME), str language (<= IPC_MAX_NAME),
 *                        str interpreter (<= IPC_MAX_PATH), limits defaults,
 *                        limits maximum, u8 network (0|1)
 *   RUN       (fds 1+has_stdin: code_fd [, stdin_fd])
 *                      u64 job_id, str profile (<= IPC_MAX_NAME), limits,
 *                      u8 has_stdin (0|1), u32 nenv (<= IPC_MAX_ENV),
 *                      nenv x str env (<= IPC_MAX_ENV_LEN)
 *   RUN_OK    (fds 3: stdout_fd, stderr_fd, control_fd)
 *                      u64 job_id, limits
 *   RUN_ERR   (fds 0)  u64 job_id, u32 reason (1..IPC_ERR_REASON_MAX),
 *                      str message (<= IPC_MAX_MESSAGE)
 *   CANCEL    (fds 0)  u32 reason (1..IPC_CANCEL_REASON_MAX)
 *   RESULT    (fds 0)  u32 status (0..IPC_ST_MAX), i32 exit_code, i32 signal,
 *                      u64 wall_ms, u64 cpu_user_ms, u64 cpu_sys_ms,
 *                      u64 memory_peak_bytes, u8 oom_killed (0|1),
 *                      str message (<= IPC_MAX_MESSAGE)
 *   ERROR     (fds 0)  u32 code (1..IPC_E_CODE_MAX), u32 peer_version,
 *                      str message (<= IPC_MAX_MESSAGE)
 *
 * Decoding order: size >= header (SHORT), magic (MAGIC), version (VERSION,
 * msg->version and msg->type are filled so the receiver can answer naming
 * both versions), length == bytes after header and whole datagram <=
 * IPC_MAX_MSG (LENGTH), reserved == 0 (RANGE), type (TYPE), then the payload
 * fields in order (TRUNCATED / STRING / RANGE), no trailing bytes (TRAILING),
 * and last the fd count (FDS).  Encoding is canonical: a buffer that decodes
 * re-encodes to the same bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "ipc.h"

/* ---- reading ---- */

struct reader {
	const uint8_t *p;
	size_t left;
};

static int rd_bytes(struct reader *r, const uint8_t **out, size_t n)
{
	if (r->left < n)
		return -IPC_DEC_TRUNCATED;
	*out = r->p;
	r->p += n;
	r->left -= n;
	return 0;
}

static int rd_u8(struct reader *r, uint8_t *v)
{
	const uint8_t *b;
	int rc = rd_bytes(r, &b, 1);
	if (rc < 0)
		return rc;
	*v = b[0];
	return 0;
}

/* A u8 that is a boolean on the wire: anything but 0 or 1 is rejected so
 * that one meaning has exactly one encoding. */
static int rd_bool(struct reader *r, uint8_t *v)
{
	int rc = rd_u8(r, v);
	if (rc < 0)
		return rc;
	return *v <= 1 ? 0 : -IPC_DEC_RANGE;
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint16_t le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

static int rd_u32(struct reader *r, uint32_t *v)
{
	const uint8_t *b;
	int rc = rd_bytes(r, &b, 4);
	if (rc < 0)
		return rc;
	*v = le32(b);
	return 0;
}

static int rd_i32(struct reader *r, int32_t *v)
{
	uint32_t u;
	int rc = rd_u32(r, &u);
	if (rc < 0)
		return rc;
	/* Two's complement without relying on implementation-defined casts. */
	*v = u <= INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
	return 0;
}

static int rd_u64(struct reader *r, uint64_t *v)
{
	const uint8_t *b;
	int rc = rd_bytes(r, &b, 8);
	if (rc < 0)
		return rc;
	*v = (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
	return 0;
}

/* Read a string into dst, which has room for max bytes plus the NUL. */
static int rd_str(struct reader *r, char *dst, size_t max)
{
	uint32_t n;
	const uint8_t *b;
	int rc = rd_u32(r, &n);
	if (rc < 0)
		return rc;
	if (n > max)
		return -IPC_DEC_STRING;
	rc = rd_bytes(r, &b, n);
	if (rc < 0)
		return rc;
	if (memchr(b, '\0', n))
		return -IPC_DEC_STRING;
	memcpy(dst, b, n);
	dst[n] = '\0';
	return 0;
}

/* Read an enum-like u32 that must lie in [lo, hi]. */
static int rd_range(struct reader *r, uint32_t *v, uint32_t lo, uint32_t hi)
{
	int rc = rd_u32(r, v);
	if (rc < 0)
		return rc;
	return *v >= lo && *v <= hi ? 0 : -IPC_DEC_RANGE;
}

static int rd_limits(struct reader *r, struct ipc_limits *l)
{
	uint64_t *fields[] = {&l->wall_ms, &l->cpu_ms,	    &l->memory_bytes,
			      &l->pids,	   &l->tmpfs_bytes, &l->output_bytes};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		int rc = rd_u64(r, fields[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- per-type decoders: payload only; fds are checked by the caller ---- */

static int dec_profile(struct reader *r, struct ipc_profile *p)
{
	int rc;
	if ((rc = rd_str(r, p->name, IPC_MAX_NAME)) < 0 ||
	    (rc = rd_str(r, p->language, IPC_MAX_NAME)) < 0 ||
	    (rc = rd_str(r, p->interpreter, IPC_MAX_PATH)) < 0 ||
	    (rc = rd_limits(r, &p->defaults)) < 0 || (rc = rd_limits(r, &p->maximum)) < 0 ||
	    (rc = rd_bool(r, &p->network)) < 0)
		return rc;
	return 0;
}

static int dec_hello_ok(struct reader *r, struct ipc_hello_ok *h)
{
	int rc = rd_range(r, &h->nprofiles, 0, IPC_MAX_PROFILES);
	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < h->nprofiles; i++) {
		rc = dec_profile(r, &h->profiles[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int dec_run(struct reader *r, struct ipc_run *run, uint8_t *has_stdin)
{
	int rc;
	if ((rc = rd_u64(r, &run->job_id)) < 0 ||
	    (rc = rd_str(r, run->profile, IPC_MAX_NAME)) < 0 ||
	    (rc = rd_limits(r, &run->limits)) < 0 || (rc = rd_bool(r, has_stdin)) < 0 ||
	    (rc = rd_range(r, &run->nenv, 0, IPC_MAX_ENV)) < 0)
		return rc;
	for (uint32_t i = 0; i < run->nenv; i++) {
		rc = rd_str(r, run->env[i], IPC_MAX_ENV_LEN);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int dec_run_ok(struct reader *r, struct ipc_run_ok *ok)
{
	int rc = rd_u64(r, &ok->job_id);
	if (rc < 0)
		return rc;
	return rd_limits(r, &ok->limits);
}

static int dec_run_err(struct reader *r, struct ipc_run_err *e)
{
	int rc;
	if ((rc = rd_u64(r, &e->job_id)) < 0 ||
	    (rc = rd_range(r, &e->reason, 1, IPC_ERR_REASON_MAX)) < 0)
		return rc;
	return rd_str(r, e->message, IPC_MAX_MESSAGE);
}

static int dec_result(struct reader *r, struct ipc_result *res)
{
	int rc;
	if ((rc = rd_range(r, &res->status, 0, IPC_ST_MAX)) < 0 ||
	    (rc = rd_i32(r, &res->exit_code)) < 0 || (rc = rd_i32(r, &res->signal)) < 0 ||
	    (rc = rd_u64(r, &res->wall_ms)) < 0 || (rc = rd_u64(r, &res->cpu_user_ms)) < 0 ||
	    (rc = rd_u64(r, &res->cpu_sys_ms)) < 0 ||
	    (rc = rd_u64(r, &res->memory_peak_bytes)) < 0 ||
	    (rc = rd_bool(r, &res->oom_killed)) < 0)
		return rc;
	return rd_str(r, res->message, IPC_MAX_MESSAGE);
}

static int dec_error(struct reader *r, struct ipc_error *e)
{
	int rc;
	if ((rc = rd_range(r, &e->code, 1, IPC_E_CODE_MAX)) < 0 ||
	    (rc = rd_u32(r, &e->peer_version)) < 0)
		return rc;
	return rd_str(r, e->message, IPC_MAX_MESSAGE);
}

/* Mark the fd slots of a message of this type as empty so that a failed
 * decode never leaves 0 (stdin) where a caller might close it. */
static void clear_fds(struct ipc_msg *msg)
{
	switch (msg->type) {
	case IPC_RUN:
		msg->u.run.code_fd = -1;
		msg->u.run.stdin_fd = -1;
		break;
	case IPC_RUN_OK:
		msg->u.run_ok.stdout_fd = -1;
		msg->u.run_ok.stderr_fd = -1;
		msg->u.run_ok.control_fd = -1;
		break;
	default:
		break;
	}
}

/* Check the fd count for the type and move the fds into the message. */
static int take_fds(struct ipc_msg *msg, uint8_t has_stdin, const int *fds, size_t nfds)
{
	size_t want;
	switch (msg->type) {
	case IPC_RUN:
		want = 1 + (size_t)has_stdin;
		break;
	case IPC_RUN_OK:
		want = 3;
		break;
	default:
		want = 0;
		break;
	}
	if (nfds != want || (nfds > 0 && !fds))
		return -IPC_DEC_FDS;
	for (size_t i = 0; i < nfds; i++)
		if (fds[i] < 0)
			return -IPC_DEC_FDS;

	if (msg->type == IPC_RUN) {
		msg->u.run.code_fd = fds[0];
		msg->u.run.stdin_fd = has_stdin ? fds[1] : -1;
	} else if (msg->type == IPC_RUN_OK) {
		msg->u.run_ok.stdout_fd = fds[0];
		msg->u.run_ok.stderr_fd = fds[1];
		msg->u.run_ok.control_fd = fds[2];
	}
	return 0;
}

static int decode_payload(struct reader *r, struct ipc_msg *msg, uint8_t *has_stdin)
{
	switch (msg->type) {
	case IPC_HELLO:
		return 0;
	case IPC_HELLO_OK:
		return dec_hello_ok(r, &msg->u.hello_ok);
	case IPC_RUN:
		return dec_run(r, &msg->u.run, has_stdin);
	case IPC_RUN_OK:
		return dec_run_ok(r, &msg->u.run_ok);
	case IPC_RUN_ERR:
		return dec_run_err(r, &msg->u.run_err);
	case IPC_CANCEL:
		return rd_range(r, &msg->u.cancel.reason, 1, IPC_CANCEL_REASON_MAX);
	case IPC_RESULT:
		return dec_result(r, &msg->u.result);
	case IPC_ERROR:
		return dec_error(r, &msg->u.error);
	default:
		return -IPC_DEC_TYPE;
	}
}

static bool type_known(uint16_t type)
{
	return type >= IPC_HELLO && type <= IPC_ERROR;
}

int ipc_decode(const uint8_t *buf, size_t len, const int *fds, size_t nfds, struct ipc_msg *msg)
{
	memset(msg, 0, sizeof(*msg));
	if (!buf || len < IPC_HDR_SIZE)
		return -IPC_DEC_SHORT;
	if (le32(buf) != IPC_MAGIC)
		return -IPC_DEC_MAGIC;

	msg->version = le16(buf + 4);
	msg->type = le16(buf + 6);
	clear_fds(msg);
	if (msg->version != IPC_VERSION)
		return -IPC_DEC_VERSION;
	if (len > IPC_MAX_MSG || le32(buf + 8) != len - IPC_HDR_SIZE)
		return -IPC_DEC_LENGTH;
	if (le32(buf + 12) != 0)
		return -IPC_DEC_RANGE;
	if (!type_known(msg->type))
		return -IPC_DEC_TYPE;

	struct reader r = {.p = buf + IPC_HDR_SIZE, .left = len - IPC_HDR_SIZE};
	uint8_t has_stdin = 0;
	int rc = decode_payload(&r, msg, &has_stdin);
	if (rc < 0)
		goto fail;
	if (r.left != 0) {
		rc = -IPC_DEC_TRAILING;
		goto fail;
	}
	rc = take_fds(msg, has_stdin, fds, nfds);
	if (rc < 0)
		goto fail;
	return 0;
fail:
	/* Leave no half-decoded payload behind; keep type and version. */
	memset(&msg->u, 0, sizeof(msg->u));
	clear_fds(msg);
	return rc;
}

/* ---- writing ---- */

struct writer {
	uint8_t *p;
	size_t cap;
	size_t len;
	bool overflow; /* sticky: checked once at the end */
};

static void wr_bytes(struct writer *w, const void *b, size_t n)
{
	if (w->overflow || w->cap - w->len < n) {
		w->overflow = true;
		return;
	}
	if (n > 0)
		memcpy(w->p + w->len, b, n);
	w->len += n;
}

static void wr_u8(struct writer *w, uint8_t v)
{
	wr_bytes(w, &v, 1);
}

static void wr_u32(struct writer *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	wr_bytes(w, b, sizeof(b));
}

static void wr_u64(struct writer *w, uint64_t v)
{
	wr_u32(w, (uint32_t)v);
	wr_u32(w, (uint32_t)(v >> 32));
}

/* Two's complement bit pattern; defined for every int32_t value. */
static void wr_i32(struct writer *w, int32_t v)
{
	wr_u32(w, v >= 0 ? (uint32_t)v : UINT32_MAX - (uint32_t)(-(v + 1)));
}

/* The caller has already checked the length with str_ok(). */
static void wr_str(struct writer *w, const char *s)
{
	size_t n = strlen(s);
	wr_u32(w, (uint32_t)n);
	wr_bytes(w, s, n);
}

static void wr_limits(struct writer *w, const struct ipc_limits *l)
{
	wr_u64(w, l->wall_ms);
	wr_u64(w, l->cpu_ms);
	wr_u64(w, l->memory_bytes);
	wr_u64(w, l->pids);
	wr_u64(w, l->tmpfs_bytes);
	wr_u64(w, l->output_bytes);
}

/* A field char[max + 1] holds a valid string when a NUL lies within it. */
static bool str_ok(const char *s, size_t max)
{
	return strnlen(s, max + 1) <= max;
}

/* ---- per-type validation + encoding ---- */

static int enc_hello_ok(struct writer *w, const struct ipc_hello_ok *h)
{
	if (h->nprofiles > IPC_MAX_PROFILES)
		return -EINVAL;
	for (uint32_t i = 0; i < h->nprofiles; i++) {
		const struct ipc_profile *p = &h->profiles[i];
		if (!str_ok(p->name, IPC_MAX_NAME) || !str_ok(p->language, IPC_MAX_NAME) ||
		    !str_ok(p->interpreter, IPC_MAX_PATH) || p->network > 1)
			return -EINVAL;
	}
	wr_u32(w, h->nprofiles);
	for (uint32_t i = 0; i < h->nprofiles; i++) {
		const struct ipc_profile *p = &h->profiles[i];
		wr_str(w, p->name);
		wr_str(w, p->language);
		wr_str(w, p->interpreter);
		wr_limits(w, &p->defaults);
		wr_limits(w, &p->maximum);
		wr_u8(w, p->network);
	}
	return 0;
}

static int enc_run(struct writer *w, const struct ipc_run *run, int *fds, size_t *nfds)
{
	if (!str_ok(run->profile, IPC_MAX_NAME) || run->nenv > IPC_MAX_ENV || run->code_fd < 0)
		return -EINVAL;
	for (uint32_t i = 0; i < run->nenv; i++)
		if (!str_ok(run->env[i], IPC_MAX_ENV_LEN))
			return -EINVAL;
	bool has_stdin = run->stdin_fd >= 0;

	wr_u64(w, run->job_id);
	wr_str(w, run->profile);
	wr_limits(w, &run->limits);
	wr_u8(w, has_stdin);
	wr_u32(w, run->nenv);
	for (uint32_t i = 0; i < run->nenv; i++)
		wr_str(w, run->env[i]);

	fds[0] = run->code_fd;
	*nfds = 1;
	if (has_stdin)
		fds[(*nfds)++] = run->stdin_fd;
	return 0;
}

static int enc_run_ok(struct writer *w, const struct ipc_run_ok *ok, int *fds, size_t *nfds)
{
	if (ok->stdout_fd < 0 || ok->stderr_fd < 0 || ok->control_fd < 0)
		return -EINVAL;
	wr_u64(w, ok->job_id);
	wr_limits(w, &ok->limits);
	fds[0] = ok->stdout_fd;
	fds[1] = ok->stderr_fd;
	fds[2] = ok->control_fd;
	*nfds = 3;
	return 0;
}

static int enc_run_err(struct writer *w, const struct ipc_run_err *e)
{
	if (e->reason < 1 || e->reason > IPC_ERR_REASON_MAX || !str_ok(e->message, IPC_MAX_MESSAGE))
		return -EINVAL;
	wr_u64(w, e->job_id);
	wr_u32(w, e->reason);
	wr_str(w, e->message);
	return 0;
}

static int enc_cancel(struct writer *w, const struct ipc_cancel *c)
{
	if (c->reason < 1 || c->reason > IPC_CANCEL_REASON_MAX)
		return -EINVAL;
	wr_u32(w, c->reason);
	return 0;
}

static int enc_result(struct writer *w, const struct ipc_result *res)
{
	if (res->status > IPC_ST_MAX || res->oom_killed > 1 ||
	    !str_ok(res->message, IPC_MAX_MESSAGE))
		return -EINVAL;
	wr_u32(w, res->status);
	wr_i32(w, res->exit_code);
	wr_i32(w, res->signal);
	wr_u64(w, res->wall_ms);
	wr_u64(w, res->cpu_user_ms);
	wr_u64(w, res->cpu_sys_ms);
	wr_u64(w, res->memory_peak_bytes);
	wr_u8(w, res->oom_killed);
	wr_str(w, res->message);
	return 0;
}

static int enc_error(struct writer *w, const struct ipc_error *e)
{
	if (e->code < 1 || e->code > IPC_E_CODE_MAX || !str_ok(e->message, IPC_MAX_MESSAGE))
		return -EINVAL;
	wr_u32(w, e->code);
	wr_u32(w, e->peer_version);
	wr_str(w, e->message);
	return 0;
}

static int encode_payload(struct writer *w, const struct ipc_msg *msg, int *fds, size_t *nfds)
{
	switch (msg->type) {
	case IPC_HELLO:
		return 0;
	case IPC_HELLO_OK:
		return enc_hello_ok(w, &msg->u.hello_ok);
	case IPC_RUN:
		return enc_run(w, &msg->u.run, fds, nfds);
	case IPC_RUN_OK:
		return enc_run_ok(w, &msg->u.run_ok, fds, nfds);
	case IPC_RUN_ERR:
		return enc_run_err(w, &msg->u.run_err);
	case IPC_CANCEL:
		return enc_cancel(w, &msg->u.cancel);
	case IPC_RESULT:
		return enc_result(w, &msg->u.result);
	case IPC_ERROR:
		return enc_error(w, &msg->u.error);
	default:
		return -EINVAL;
	}
}

ssize_t ipc_encode(const struct ipc_msg *msg, uint8_t *buf, size_t cap, int *fds, size_t *nfds)
{
	if (!msg || !buf || !fds || !nfds)
		return -EINVAL;
	*nfds = 0;
	/* The header always carries our own version; msg->version is what a
	 * decode saw and is ignored here. */
	struct writer w = {.p = buf, .cap = cap < IPC_MAX_MSG ? cap : IPC_MAX_MSG};
	wr_u32(&w, IPC_MAGIC);
	wr_u32(&w, (uint32_t)IPC_VERSION | (uint32_t)msg->type << 16);
	wr_u32(&w, 0); /* length, patched below */
	wr_u32(&w, 0); /* reserved */

	int rc = encode_payload(&w, msg, fds, nfds);
	if (rc < 0) {
		*nfds = 0;
		return rc;
	}
	if (w.overflow) {
		*nfds = 0;
		return -ENOBUFS;
	}
	uint32_t plen = (uint32_t)(w.len - IPC_HDR_SIZE);
	w.len = 8;
	wr_u32(&w, plen);
	return (ssize_t)(plen + IPC_HDR_SIZE);
}

/* ---- names ---- */

static const char *const status_names[IPC_ST_MAX + 1] = {
    [IPC_ST_OK] = "ok",
    [IPC_ST_EXIT] = "exit",
    [IPC_ST_SIGNAL] = "signal",
    [IPC_ST_TIMEOUT] = "timeout",
    [IPC_ST_MEMORY] = "memory",
    [IPC_ST_OUTPUT_LIMIT] = "output_limit",
    [IPC_ST_SECCOMP] = "seccomp",
    [IPC_ST_CANCELLED] = "cancelled",
    [IPC_ST_INTERNAL] = "internal",
};

const char *ipc_status_name(uint32_t status)
{
	return status <= IPC_ST_MAX ? status_names[status] : "unknown";
}

int ipc_status_from_name(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i <= (int)IPC_ST_MAX; i++)
		if (strcmp(name, status_names[i]) == 0)
			return i;
	return -1;
}

static const char *const run_err_names[IPC_ERR_REASON_MAX + 1] = {
    [IPC_ERR_BAD_REQUEST] = "bad_request",
    [IPC_ERR_PROFILE] = "profile",
    [IPC_ERR_LIMIT] = "limit",
    [IPC_ERR_CODE] = "code",
    [IPC_ERR_ENV] = "env",
    [IPC_ERR_BUSY] = "busy",
    [IPC_ERR_INTERNAL] = "internal",
};

const char *ipc_run_err_name(uint32_t reason)
{
	return reason >= 1 && reason <= IPC_ERR_REASON_MAX ? run_err_names[reason] : "unknown";
}

static const char *const decode_errors[IPC_DEC_MAX_ERROR] = {
    [IPC_DEC_SHORT] = "message shorter than the header",
    [IPC_DEC_MAGIC] = "bad magic",
    [IPC_DEC_VERSION] = "unsupported protocol version",
    [IPC_DEC_LENGTH] = "length field does not match the message size",
    [IPC_DEC_TYPE] = "unknown message type",
    [IPC_DEC_TRUNCATED] = "field runs past the end of the message",
    [IPC_DEC_TRAILING] = "trailing bytes after the last field",
    [IPC_DEC_STRING] = "string too long or contains NUL",
    [IPC_DEC_RANGE] = "value out of range",
    [IPC_DEC_FDS] = "wrong number of file descriptors for the message type",
};

const char *ipc_decode_strerror(int err)
{
	if (err < 0 && err > -IPC_DEC_MAX_ERROR)
		err = -err;
	if (err >= 1 && err < IPC_DEC_MAX_ERROR)
		return decode_errors[err];
	return "unknown decode error";
}
