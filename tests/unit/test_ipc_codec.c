/* ipc-proto codec: round trips, exact wire layout, and every rejection path
 * of ipc_decode.  The byte builder below is written from the layout comment
 * in ipc_codec.c, independently of the encoder, so the golden tests pin the
 * wire format and the rejection tests can craft what the encoder refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc.h"

/* Fd numbers are never touched by the codec; any non-negative ints do. */
static const int FDS[IPC_MAX_FDS + 1] = {100, 101, 102, 103, 104};

/* ---- byte builder ---- */

struct bb {
	uint8_t b[IPC_MAX_MSG + 64];
	size_t n;
};

static void bb_u8(struct bb *b, uint8_t v)
{
	assert_true(b->n < sizeof(b->b));
	b->b[b->n++] = v;
}

static void bb_u16(struct bb *b, uint16_t v)
{
	bb_u8(b, (uint8_t)v);
	bb_u8(b, (uint8_t)(v >> 8));
}

static void bb_u32(struct bb *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		bb_u8(b, (uint8_t)(v >> (8 * i)));
}

static void bb_u64(struct bb *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		bb_u8(b, (uint8_t)(v >> (8 * i)));
}

static void bb_raw(struct bb *b, const void *p, size_t n)
{
	assert_true(n <= sizeof(b->b) - b->n);
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void bb_str(struct bb *b, const char *s, size_t n)
{
	bb_u32(b, (uint32_t)n);
	bb_raw(b, s, n);
}

static void bb_limits(struct bb *b, uint64_t base)
{
	for (uint64_t i = 0; i < 6; i++)
		bb_u64(b, base + i);
}

static struct bb *bb_new(uint16_t version, uint16_t type)
{
	struct bb *b = calloc(1, sizeof(*b));
	assert_non_null(b);
	bb_u32(b, IPC_MAGIC);
	bb_u16(b, version);
	bb_u16(b, type);
	bb_u32(b, 0);
	bb_u32(b, 0);
	return b;
}

/* Set the header's length field to what actually follows the header. */
static void bb_fix(struct bb *b)
{
	uint32_t n = (uint32_t)(b->n - IPC_HDR_SIZE);
	for (int i = 0; i < 4; i++)
		b->b[8 + i] = (uint8_t)(n >> (8 * i));
}

static void set_limits(struct ipc_limits *l, uint64_t base)
{
	l->wall_ms = base;
	l->cpu_ms = base + 1;
	l->memory_bytes = base + 2;
	l->pids = base + 3;
	l->tmpfs_bytes = base + 4;
	l->output_bytes = base + 5;
}

/* A long run of one letter, for max-length strings. */
static char *letters(size_t n, char c)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* ---- wire builders for each type (valid by default; knobs to break) ---- */

static struct bb *b_hello_ok(uint32_t declared, uint32_t written, const char *name, size_t nlen,
			     size_t interp_len, uint8_t network)
{
	struct bb *b = bb_new(IPC_VERSION, IPC_HELLO_OK);
	char *interp = letters(interp_len, '/');
	bb_u32(b, declared);
	for (uint32_t i = 0; i < written; i++) {
		bb_str(b, name, nlen);
		bb_str(b, "python", 6);
		bb_str(b, interp, interp_len);
		bb_limits(b, 10);
		bb_limits(b, UINT64_MAX - 5);
		bb_u8(b, network);
	}
	free(interp);
	bb_fix(b);
	return b;
}

static struct bb *b_run(const char *prof, size_t plen, uint8_t has_stdin, uint32_t declared,
			uint32_t written, const char *env, size_t envlen)
{
	struct bb *b = bb_new(IPC_VERSION, IPC_RUN);
	bb_u64(b, 0x0102030405060708ull);
	bb_str(b, prof, plen);
	bb_limits(b, 0);
	bb_u8(b, has_stdin);
	bb_u32(b, declared);
	for (uint32_t i = 0; i < written; i++)
		bb_str(b, env, envlen);
	bb_fix(b);
	return b;
}

static struct bb *b_run_ok(void)
{
	struct bb *b = bb_new(IPC_VERSION, IPC_RUN_OK);
	bb_u64(b, 42);
	bb_limits(b, 1000);
	bb_fix(b);
	return b;
}

static struct bb *b_run_err(uint32_t reason, const char *m, size_t mlen)
{
	struct bb *b = bb_new(IPC_VERSION, IPC_RUN_ERR);
	bb_u64(b, 7);
	bb_u32(b, reason);
	bb_str(b, m, mlen);
	bb_fix(b);
	return b;
}

static struct bb *b_cancel(uint32_t reason)
{
	struct bb *b = bb_new(IPC_VERSION, IPC_CANCEL);
	bb_u32(b, reason);
	bb_fix(b);
	return b;
}

static struct bb *b_result(uint32_t status, uint8_t oom, const char *m, size_t mlen)
{
	struct bb *b = bb_new(IPC_VERSION, IPC_RESULT);
	bb_u32(b, status);
	bb_u32(b, 0xffffff85u); /* exit_code -123 */
	bb_u32(b, 9);
	bb_u64(b, 1);
	bb_u64(b, 2);
	bb_u64(b, 3);
	bb_u64(b, 4);
	bb_u8(b, oom);
	bb_str(b, m, mlen);
	bb_fix(b);
	return b;
}

static struct bb *b_error(uint32_t code, const char *m, size_t mlen)
{
	struct bb *b = bb_new(IPC_VERSION, IPC_ERROR);
	bb_u32(b, code);
	bb_u32(b, 2);
	bb_str(b, m, mlen);
	bb_fix(b);
	return b;
}

static int decode_bb(const struct bb *b, size_t nfds, struct ipc_msg *m)
{
	return ipc_decode(b->b, b->n, FDS, nfds, m);
}

static struct ipc_msg *new_msg(uint16_t type)
{
	struct ipc_msg *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	m->type = type;
	m->version = IPC_VERSION;
	return m;
}

/* Decode b with nfds and expect err (0 = success). */
static void expect_decode(struct bb *b, size_t nfds, int err)
{
	struct ipc_msg *m = new_msg(0);
	int rc = decode_bb(b, nfds, m);
	if (rc != err)
		print_error("decode: got %d (%s), want %d\n", rc, ipc_decode_strerror(-rc), err);
	assert_int_equal(rc, err);
	free(m);
	free(b);
}

/* ---- round trips ---- */

/* Encode, decode with the fds the encoder reported, and require the decoded
 * message to equal the original byte for byte (both start zeroed), and the
 * re-encoding to equal the first encoding. */
static void roundtrip(const struct ipc_msg *in)
{
	uint8_t *buf = malloc(IPC_MAX_MSG), *buf2 = malloc(IPC_MAX_MSG);
	struct ipc_msg *out = new_msg(0);
	int fds[IPC_MAX_FDS], fds2[IPC_MAX_FDS];
	size_t nfds = 99, nfds2 = 99;
	assert_non_null(buf);
	assert_non_null(buf2);

	ssize_t n = ipc_encode(in, buf, IPC_MAX_MSG, fds, &nfds);
	assert_true(n >= (ssize_t)IPC_HDR_SIZE);
	assert_int_equal(ipc_decode(buf, (size_t)n, fds, nfds, out), 0);
	assert_int_equal(out->type, in->type);
	assert_int_equal(out->version, IPC_VERSION);
	assert_memory_equal(out, in, sizeof(*in));

	ssize_t n2 = ipc_encode(out, buf2, IPC_MAX_MSG, fds2, &nfds2);
	assert_int_equal(n2, n);
	assert_memory_equal(buf, buf2, (size_t)n);
	assert_int_equal(nfds2, nfds);
	assert_memory_equal(fds, fds2, nfds * sizeof(int));

	/* Encoding into exactly the needed capacity works; one less does not. */
	assert_int_equal(ipc_encode(in, buf2, (size_t)n, fds2, &nfds2), n);
	assert_int_equal(ipc_encode(in, buf2, (size_t)n - 1, fds2, &nfds2), -ENOBUFS);
	assert_int_equal(nfds2, 0);

	free(out);
	free(buf);
	free(buf2);
}

/* Set a char[] field to n copies of c, zeroing the rest of it so that
 * whole-struct comparisons see no stale bytes. */
#define FILL(field, n, c)                                                                          \
	do {                                                                                       \
		assert_true((size_t)(n) < sizeof(field));                                          \
		memset((field), 0, sizeof(field));                                                 \
		memset((field), (c), (n));                                                         \
	} while (0)

static void test_roundtrip_hello(void **state)
{
	struct ipc_msg *m = new_msg(IPC_HELLO);
	roundtrip(m);
	free(m);
}

static void test_roundtrip_hello_ok(void **state)
{
	struct ipc_msg *m = new_msg(IPC_HELLO_OK);
	roundtrip(m); /* zero profiles */

	m->u.hello_ok.nprofiles = IPC_MAX_PROFILES;
	for (unsigned i = 0; i < IPC_MAX_PROFILES; i++) {
		struct ipc_profile *p = &m->u.hello_ok.profiles[i];
		FILL(p->name, i == 0 ? IPC_MAX_NAME : i, (char)('a' + i));
		FILL(p->language, IPC_MAX_NAME - i, 'j');
		FILL(p->interpreter, i == 1 ? IPC_MAX_PATH : 0, '/');
		set_limits(&p->defaults, i);
		set_limits(&p->maximum, UINT64_MAX - 5 - i);
		p->network = (uint8_t)(i & 1);
	}
	roundtrip(m);
	free(m);
}

static void test_roundtrip_run(void **state)
{
	struct ipc_msg *m = new_msg(IPC_RUN);
	m->u.run.code_fd = 3;
	m->u.run.stdin_fd = -1;
	roundtrip(m); /* job 0, empty profile, no env, no stdin */

	m->u.run.job_id = UINT64_MAX;
	FILL(m->u.run.profile, IPC_MAX_NAME, 'p');
	set_limits(&m->u.run.limits, UINT64_MAX - 5);
	m->u.run.nenv = IPC_MAX_ENV;
	for (unsigned i = 0; i < IPC_MAX_ENV; i++)
		FILL(m->u.run.env[i], i == 0 ? IPC_MAX_ENV_LEN : i, 'E');
	m->u.run.code_fd = 0; /* fd 0 is a valid fd number */
	m->u.run.stdin_fd = 12345;
	roundtrip(m);
	free(m);
}

static void test_roundtrip_run_ok(void **state)
{
	struct ipc_msg *m = new_msg(IPC_RUN_OK);
	m->u.run_ok.job_id = UINT64_MAX;
	set_limits(&m->u.run_ok.limits, 1ull << 63);
	m->u.run_ok.stdout_fd = 5;
	m->u.run_ok.stderr_fd = 6;
	m->u.run_ok.control_fd = 7;
	roundtrip(m);
	free(m);
}

static void test_roundtrip_run_err(void **state)
{
	struct ipc_msg *m = new_msg(IPC_RUN_ERR);
	for (uint32_t r = 1; r <= IPC_ERR_REASON_MAX; r++) {
		m->u.run_err.job_id = r;
		m->u.run_err.reason = r;
		FILL(m->u.run_err.message, r == IPC_ERR_REASON_MAX ? IPC_MAX_MESSAGE : r, 'm');
		roundtrip(m);
	}
	free(m);
}

static void test_roundtrip_cancel(void **state)
{
	struct ipc_msg *m = new_msg(IPC_CANCEL);
	for (uint32_t r = 1; r <= IPC_CANCEL_REASON_MAX; r++) {
		m->u.cancel.reason = r;
		roundtrip(m);
	}
	free(m);
}

static void test_roundtrip_result(void **state)
{
	struct ipc_msg *m = new_msg(IPC_RESULT);
	for (uint32_t s = 0; s <= IPC_ST_MAX; s++) {
		struct ipc_result *r = &m->u.result;
		r->status = s;
		r->exit_code = s & 1 ? INT32_MIN : INT32_MAX;
		r->signal = s & 1 ? -1 : 31;
		r->wall_ms = UINT64_MAX;
		r->cpu_user_ms = s;
		r->cpu_sys_ms = 1ull << 40;
		r->memory_peak_bytes = UINT64_MAX - s;
		r->oom_killed = (uint8_t)(s == IPC_ST_MEMORY);
		FILL(r->message, s == IPC_ST_INTERNAL ? IPC_MAX_MESSAGE : 0, 'x');
		roundtrip(m);
	}
	free(m);
}

static void test_roundtrip_error(void **state)
{
	struct ipc_msg *m = new_msg(IPC_ERROR);
	for (uint32_t c = 1; c <= IPC_E_CODE_MAX; c++) {
		m->u.error.code = c;
		m->u.error.peer_version = c == 1 ? UINT32_MAX : c;
		FILL(m->u.error.message, c == 1 ? IPC_MAX_MESSAGE : 3, 'e');
		roundtrip(m);
	}
	free(m);
}

/* ---- golden wire layout: encoder output equals the hand-built bytes ---- */

static void expect_golden(const struct ipc_msg *m, struct bb *want, size_t want_nfds)
{
	uint8_t *buf = malloc(IPC_MAX_MSG);
	int fds[IPC_MAX_FDS];
	size_t nfds;
	assert_non_null(buf);
	ssize_t n = ipc_encode(m, buf, IPC_MAX_MSG, fds, &nfds);
	assert_int_equal(n, want->n);
	assert_memory_equal(buf, want->b, want->n);
	assert_int_equal(nfds, want_nfds);
	free(buf);
	free(want);
}

static void test_golden_all_types(void **state)
{
	struct ipc_msg *m = new_msg(IPC_HELLO);
	struct bb *b = bb_new(IPC_VERSION, IPC_HELLO);
	/* The header itself, spelled out once. */
	static const uint8_t hello[16] = {0x43, 0x47, 0x49, 0x50, 1, 0, 1, 0,
					  0,	0,    0,    0,	  0, 0, 0, 0};
	assert_memory_equal(b->b, hello, 16);
	expect_golden(m, b, 0);

	memset(m, 0, sizeof(*m));
	m->type = IPC_HELLO_OK;
	m->u.hello_ok.nprofiles = 2;
	for (int i = 0; i < 2; i++) {
		struct ipc_profile *p = &m->u.hello_ok.profiles[i];
		strcpy(p->name, "py");
		strcpy(p->language, "python");
		FILL(p->interpreter, 5, '/');
		set_limits(&p->defaults, 10);
		set_limits(&p->maximum, UINT64_MAX - 5);
		p->network = 1;
	}
	expect_golden(m, b_hello_ok(2, 2, "py", 2, 5, 1), 0);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN;
	m->u.run.job_id = 0x0102030405060708ull;
	strcpy(m->u.run.profile, "python");
	set_limits(&m->u.run.limits, 0);
	m->u.run.nenv = 2;
	strcpy(m->u.run.env[0], "A=1");
	strcpy(m->u.run.env[1], "A=1");
	m->u.run.code_fd = 9;
	m->u.run.stdin_fd = 8;
	expect_golden(m, b_run("python", 6, 1, 2, 2, "A=1", 3), 2);
	m->u.run.stdin_fd = -1;
	expect_golden(m, b_run("python", 6, 0, 2, 2, "A=1", 3), 1);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN_OK;
	m->u.run_ok.job_id = 42;
	set_limits(&m->u.run_ok.limits, 1000);
	expect_golden(m, b_run_ok(), 3);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN_ERR;
	m->u.run_err.job_id = 7;
	m->u.run_err.reason = IPC_ERR_BUSY;
	strcpy(m->u.run_err.message, "busy");
	expect_golden(m, b_run_err(IPC_ERR_BUSY, "busy", 4), 0);

	memset(m, 0, sizeof(*m));
	m->type = IPC_CANCEL;
	m->u.cancel.reason = IPC_CANCEL_OUTPUT_LIMIT;
	expect_golden(m, b_cancel(IPC_CANCEL_OUTPUT_LIMIT), 0);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RESULT;
	m->u.result.status = IPC_ST_SIGNAL;
	m->u.result.exit_code = -123;
	m->u.result.signal = 9;
	m->u.result.wall_ms = 1;
	m->u.result.cpu_user_ms = 2;
	m->u.result.cpu_sys_ms = 3;
	m->u.result.memory_peak_bytes = 4;
	m->u.result.oom_killed = 1;
	strcpy(m->u.result.message, "hi");
	expect_golden(m, b_result(IPC_ST_SIGNAL, 1, "hi", 2), 0);

	memset(m, 0, sizeof(*m));
	m->type = IPC_ERROR;
	m->u.error.code = IPC_E_VERSION;
	m->u.error.peer_version = 2;
	strcpy(m->u.error.message, "v");
	expect_golden(m, b_error(IPC_E_VERSION, "v", 1), 0);
	free(m);
}

/* The encoder ignores msg->version: the header always says IPC_VERSION. */
static void test_encode_uses_own_version(void **state)
{
	struct ipc_msg *m = new_msg(IPC_HELLO);
	uint8_t buf[IPC_HDR_SIZE];
	int fds[IPC_MAX_FDS];
	size_t nfds;
	m->version = 7;
	assert_int_equal(ipc_encode(m, buf, sizeof(buf), fds, &nfds), IPC_HDR_SIZE);
	assert_int_equal(buf[4] | buf[5] << 8, IPC_VERSION);
	free(m);
}

/* ---- decode rejections: header ---- */

static void test_reject_short(void **state)
{
	struct ipc_msg *m = new_msg(0);
	struct bb *b = bb_new(IPC_VERSION, IPC_HELLO);
	for (size_t n = 0; n < IPC_HDR_SIZE; n++)
		assert_int_equal(ipc_decode(b->b, n, NULL, 0, m), -IPC_DEC_SHORT);
	assert_int_equal(ipc_decode(NULL, 0, NULL, 0, m), -IPC_DEC_SHORT);
	assert_int_equal(ipc_decode(b->b, IPC_HDR_SIZE, NULL, 0, m), 0);
	free(b);
	free(m);
}

static void test_reject_magic(void **state)
{
	for (int i = 0; i < 4; i++) {
		struct bb *b = bb_new(IPC_VERSION, IPC_HELLO);
		b->b[i] ^= 0x01;
		expect_decode(b, 0, -IPC_DEC_MAGIC);
	}
	/* Magic is checked before version. */
	expect_decode(bb_new(2, IPC_HELLO), 0, -IPC_DEC_VERSION);
	struct bb *b = bb_new(2, IPC_HELLO);
	b->b[0] = 0;
	expect_decode(b, 0, -IPC_DEC_MAGIC);
}

static void test_reject_version(void **state)
{
	static const uint16_t bad[] = {0, 2, 0xffff};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ipc_msg *m = new_msg(0);
		struct bb *b = bb_new(bad[i], IPC_RUN);
		b->b[8] = 0x55; /* length wrong too: version is checked first */
		assert_int_equal(decode_bb(b, 1, m), -IPC_DEC_VERSION);
		/* The receiver needs both to answer IPC_ERROR naming versions. */
		assert_int_equal(m->version, bad[i]);
		assert_int_equal(m->type, IPC_RUN);
		/* No fd slot is left at 0 (stdin) for a careless close. */
		assert_int_equal(m->u.run.code_fd, -1);
		assert_int_equal(m->u.run.stdin_fd, -1);
		free(b);
		free(m);
	}
	/* An unknown type with a wrong version still reports the version. */
	struct ipc_msg *m = new_msg(0);
	struct bb *b = bb_new(9, 0xffff);
	assert_int_equal(decode_bb(b, 0, m), -IPC_DEC_VERSION);
	assert_int_equal(m->version, 9);
	assert_int_equal(m->type, 0xffff);
	free(b);
	free(m);
}

static void test_reject_length(void **state)
{
	static const uint32_t bad[] = {1, 3, 0xffffffffu, 0x80000004u};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bb *b = b_cancel(1); /* payload is 4 bytes */
		b->n = IPC_HDR_SIZE + 4;
		for (int k = 0; k < 4; k++)
			b->b[8 + k] = (uint8_t)(bad[i] >> (8 * k));
		expect_decode(b, 0, -IPC_DEC_LENGTH);
	}
	/* Length is checked before type. */
	struct bb *b = bb_new(IPC_VERSION, 0);
	b->b[8] = 1;
	expect_decode(b, 0, -IPC_DEC_LENGTH);

	/* A datagram larger than IPC_MAX_MSG is rejected even if consistent. */
	b = bb_new(IPC_VERSION, IPC_HELLO);
	b->n = IPC_MAX_MSG + 1;
	bb_fix(b);
	expect_decode(b, 0, -IPC_DEC_LENGTH);
}

static void test_reject_reserved(void **state)
{
	for (int i = 12; i < 16; i++) {
		struct bb *b = b_cancel(1);
		b->b[i] = 0x80;
		expect_decode(b, 0, -IPC_DEC_RANGE);
	}
}

static void test_reject_type(void **state)
{
	static const uint16_t bad[] = {0, 9, 0xffff};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ipc_msg *m = new_msg(0);
		struct bb *b = bb_new(IPC_VERSION, bad[i]);
		assert_int_equal(decode_bb(b, 0, m), -IPC_DEC_TYPE);
		assert_int_equal(m->type, bad[i]);
		free(b);
		free(m);
	}
}

/* ---- decode rejections: payload ---- */

/* One valid message of every type with a payload, with its fd count. */
struct sample {
	struct bb *b;
	size_t nfds;
};

static size_t make_samples(struct sample *s)
{
	size_t n = 0;
	s[n++] = (struct sample){b_hello_ok(2, 2, "python", 6, 9, 0), 0};
	s[n++] = (struct sample){b_run("python", 6, 1, 3, 3, "K=V", 3), 2};
	s[n++] = (struct sample){b_run("js", 2, 0, 0, 0, "", 0), 1};
	s[n++] = (struct sample){b_run_ok(), 3};
	s[n++] = (struct sample){b_run_err(1, "no", 2), 0};
	s[n++] = (struct sample){b_cancel(1), 0};
	s[n++] = (struct sample){b_result(0, 0, "done", 4), 0};
	s[n++] = (struct sample){b_error(3, "denied", 6), 0};
	return n;
}

static void test_samples_are_valid(void **state)
{
	struct sample s[16];
	size_t n = make_samples(s);
	for (size_t i = 0; i < n; i++)
		expect_decode(s[i].b, s[i].nfds, 0);
}

/* Every proper prefix of every payload, with a consistent header, is a
 * field running past the end. */
static void test_reject_truncated_every_type(void **state)
{
	struct sample s[16];
	size_t n = make_samples(s);
	struct ipc_msg *m = new_msg(0);
	for (size_t i = 0; i < n; i++) {
		struct bb *b = s[i].b;
		size_t full = b->n;
		for (size_t cut = IPC_HDR_SIZE; cut < full; cut++) {
			b->n = cut;
			bb_fix(b);
			int rc = decode_bb(b, s[i].nfds, m);
			if (rc != -IPC_DEC_TRUNCATED)
				print_error("sample %zu cut %zu: %d\n", i, cut, rc);
			assert_int_equal(rc, -IPC_DEC_TRUNCATED);
		}
		free(b);
	}
	free(m);
}

static void test_reject_trailing(void **state)
{
	struct sample s[16];
	size_t n = make_samples(s);
	for (size_t i = 0; i < n; i++) {
		bb_u8(s[i].b, 0);
		bb_fix(s[i].b);
		expect_decode(s[i].b, s[i].nfds, -IPC_DEC_TRAILING);
	}
	struct bb *b = bb_new(IPC_VERSION, IPC_HELLO);
	bb_u8(b, 0);
	bb_fix(b);
	expect_decode(b, 0, -IPC_DEC_TRAILING);
}

static void test_reject_string_too_long(void **state)
{
	char *name = letters(IPC_MAX_NAME + 1, 'n');
	char *env = letters(IPC_MAX_ENV_LEN + 1, 'e');
	char *msg = letters(IPC_MAX_MESSAGE + 1, 'm');

	/* At the maximum: accepted. */
	expect_decode(b_hello_ok(1, 1, name, IPC_MAX_NAME, IPC_MAX_PATH, 0), 0, 0);
	expect_decode(b_run(name, IPC_MAX_NAME, 0, 1, 1, env, IPC_MAX_ENV_LEN), 1, 0);
	expect_decode(b_run_err(1, msg, IPC_MAX_MESSAGE), 0, 0);
	expect_decode(b_result(0, 0, msg, IPC_MAX_MESSAGE), 0, 0);
	expect_decode(b_error(1, msg, IPC_MAX_MESSAGE), 0, 0);

	/* One byte over: rejected, in every string field. */
	expect_decode(b_hello_ok(1, 1, name, IPC_MAX_NAME + 1, 3, 0), 0, -IPC_DEC_STRING);
	expect_decode(b_hello_ok(1, 1, "p", 1, IPC_MAX_PATH + 1, 0), 0, -IPC_DEC_STRING);
	expect_decode(b_run(name, IPC_MAX_NAME + 1, 0, 0, 0, "", 0), 1, -IPC_DEC_STRING);
	expect_decode(b_run("p", 1, 0, 1, 1, env, IPC_MAX_ENV_LEN + 1), 1, -IPC_DEC_STRING);
	expect_decode(b_run_err(1, msg, IPC_MAX_MESSAGE + 1), 0, -IPC_DEC_STRING);
	expect_decode(b_result(0, 0, msg, IPC_MAX_MESSAGE + 1), 0, -IPC_DEC_STRING);
	expect_decode(b_error(1, msg, IPC_MAX_MESSAGE + 1), 0, -IPC_DEC_STRING);

	/* The language field (second string of a profile) at 65 bytes. */
	struct bb *b = bb_new(IPC_VERSION, IPC_HELLO_OK);
	bb_u32(b, 1);
	bb_str(b, "p", 1);
	bb_str(b, name, IPC_MAX_NAME + 1);
	bb_fix(b);
	expect_decode(b, 0, -IPC_DEC_STRING);

	/* A huge length is "too long", never an out-of-bounds read. */
	b = bb_new(IPC_VERSION, IPC_ERROR);
	bb_u32(b, 1);
	bb_u32(b, 1);
	bb_u32(b, 0xffffffffu);
	bb_fix(b);
	expect_decode(b, 0, -IPC_DEC_STRING);

	free(name);
	free(env);
	free(msg);
}

static void test_reject_nul_in_string(void **state)
{
	static const char *const nul[] = {"\0ab", "a\0b", "ab\0"};
	for (size_t i = 0; i < 3; i++) {
		expect_decode(b_hello_ok(1, 1, nul[i], 3, 3, 0), 0, -IPC_DEC_STRING);
		expect_decode(b_run(nul[i], 3, 0, 0, 0, "", 0), 1, -IPC_DEC_STRING);
		expect_decode(b_run("p", 1, 0, 1, 1, nul[i], 3), 1, -IPC_DEC_STRING);
		expect_decode(b_run_err(1, nul[i], 3), 0, -IPC_DEC_STRING);
		expect_decode(b_result(0, 0, nul[i], 3), 0, -IPC_DEC_STRING);
		expect_decode(b_error(1, nul[i], 3), 0, -IPC_DEC_STRING);
	}
	/* NUL in the interpreter path (third string of a profile). */
	struct bb *b = bb_new(IPC_VERSION, IPC_HELLO_OK);
	bb_u32(b, 1);
	bb_str(b, "p", 1);
	bb_str(b, "python", 6);
	bb_str(b, "/usr\0/x", 7);
	bb_limits(b, 0);
	bb_limits(b, 0);
	bb_u8(b, 0);
	bb_fix(b);
	expect_decode(b, 0, -IPC_DEC_STRING);
}

static void test_reject_ranges(void **state)
{
	/* status */
	expect_decode(b_result(IPC_ST_MAX, 0, "", 0), 0, 0);
	expect_decode(b_result(IPC_ST_MAX + 1, 0, "", 0), 0, -IPC_DEC_RANGE);
	expect_decode(b_result(0xffffffffu, 0, "", 0), 0, -IPC_DEC_RANGE);
	/* oom_killed is a boolean */
	expect_decode(b_result(0, 2, "", 0), 0, -IPC_DEC_RANGE);
	/* run_err reason */
	expect_decode(b_run_err(0, "", 0), 0, -IPC_DEC_RANGE);
	expect_decode(b_run_err(IPC_ERR_REASON_MAX + 1, "", 0), 0, -IPC_DEC_RANGE);
	/* cancel reason */
	expect_decode(b_cancel(0), 0, -IPC_DEC_RANGE);
	expect_decode(b_cancel(IPC_CANCEL_REASON_MAX + 1), 0, -IPC_DEC_RANGE);
	/* error code */
	expect_decode(b_error(0, "", 0), 0, -IPC_DEC_RANGE);
	expect_decode(b_error(IPC_E_CODE_MAX + 1, "", 0), 0, -IPC_DEC_RANGE);
	/* profile network is a boolean */
	expect_decode(b_hello_ok(1, 1, "p", 1, 1, 2), 0, -IPC_DEC_RANGE);
	/* has_stdin is a boolean */
	expect_decode(b_run("p", 1, 2, 0, 0, "", 0), 2, -IPC_DEC_RANGE);
}

static void test_reject_counts(void **state)
{
	/* nprofiles: the maximum is fine, one more is rejected before any
	 * profile is read (so the 17 are not even needed on the wire). */
	expect_decode(b_hello_ok(IPC_MAX_PROFILES, IPC_MAX_PROFILES, "p", 1, 1, 0), 0, 0);
	expect_decode(b_hello_ok(IPC_MAX_PROFILES + 1, IPC_MAX_PROFILES + 1, "p", 1, 1, 0), 0,
		      -IPC_DEC_RANGE);
	expect_decode(b_hello_ok(0xffffffffu, 0, "p", 1, 1, 0), 0, -IPC_DEC_RANGE);
	/* nenv */
	expect_decode(b_run("p", 1, 0, IPC_MAX_ENV, IPC_MAX_ENV, "A=1", 3), 1, 0);
	expect_decode(b_run("p", 1, 0, IPC_MAX_ENV + 1, IPC_MAX_ENV + 1, "A=1", 3), 1,
		      -IPC_DEC_RANGE);
	expect_decode(b_run("p", 1, 0, 0xffffffffu, 0, "", 0), 1, -IPC_DEC_RANGE);
	/* A count larger than what follows is a truncation. */
	expect_decode(b_hello_ok(2, 1, "p", 1, 1, 0), 0, -IPC_DEC_TRUNCATED);
	expect_decode(b_run("p", 1, 0, 2, 1, "A=1", 3), 1, -IPC_DEC_TRUNCATED);
}

static void test_reject_fd_counts(void **state)
{
	/* For each type: the counts that are wrong.  Right counts are tested
	 * by test_samples_are_valid. */
	for (size_t n = 1; n <= IPC_MAX_FDS + 1; n++) {
		expect_decode(bb_new(IPC_VERSION, IPC_HELLO), n, -IPC_DEC_FDS);
		expect_decode(b_hello_ok(0, 0, "", 0, 0, 0), n, -IPC_DEC_FDS);
		expect_decode(b_run_err(1, "", 0), n, -IPC_DEC_FDS);
		expect_decode(b_cancel(1), n, -IPC_DEC_FDS);
		expect_decode(b_result(0, 0, "", 0), n, -IPC_DEC_FDS);
		expect_decode(b_error(1, "", 0), n, -IPC_DEC_FDS);
	}
	for (size_t n = 0; n <= IPC_MAX_FDS + 1; n++) {
		if (n != 1)
			expect_decode(b_run("p", 1, 0, 0, 0, "", 0), n, -IPC_DEC_FDS);
		if (n != 2)
			expect_decode(b_run("p", 1, 1, 0, 0, "", 0), n, -IPC_DEC_FDS);
		if (n != 3)
			expect_decode(b_run_ok(), n, -IPC_DEC_FDS);
	}

	/* fds NULL with a count, and negative fd numbers. */
	struct ipc_msg *m = new_msg(0);
	struct bb *b = b_run("p", 1, 0, 0, 0, "", 0);
	assert_int_equal(ipc_decode(b->b, b->n, NULL, 1, m), -IPC_DEC_FDS);
	int neg[3] = {4, -1, 5};
	assert_int_equal(ipc_decode(b->b, b->n, neg + 1, 1, m), -IPC_DEC_FDS);
	assert_int_equal(m->u.run.code_fd, -1);
	assert_int_equal(m->u.run.stdin_fd, -1);
	free(b);
	b = b_run_ok();
	assert_int_equal(ipc_decode(b->b, b->n, neg, 3, m), -IPC_DEC_FDS);
	assert_int_equal(m->u.run_ok.stdout_fd, -1);
	assert_int_equal(m->u.run_ok.stderr_fd, -1);
	assert_int_equal(m->u.run_ok.control_fd, -1);
	free(b);
	free(m);
}

static void test_decode_fd_placement(void **state)
{
	struct ipc_msg *m = new_msg(0);
	struct bb *b = b_run("python", 6, 1, 1, 1, "K=V", 3);
	assert_int_equal(decode_bb(b, 2, m), 0);
	assert_int_equal(m->u.run.code_fd, FDS[0]);
	assert_int_equal(m->u.run.stdin_fd, FDS[1]);
	assert_string_equal(m->u.run.profile, "python");
	assert_string_equal(m->u.run.env[0], "K=V");
	assert_int_equal(m->u.run.job_id, 0x0102030405060708ull);
	free(b);

	b = b_run("python", 6, 0, 0, 0, "", 0);
	assert_int_equal(decode_bb(b, 1, m), 0);
	assert_int_equal(m->u.run.stdin_fd, -1);
	free(b);

	b = b_run_ok();
	assert_int_equal(decode_bb(b, 3, m), 0);
	assert_int_equal(m->u.run_ok.stdout_fd, FDS[0]);
	assert_int_equal(m->u.run_ok.stderr_fd, FDS[1]);
	assert_int_equal(m->u.run_ok.control_fd, FDS[2]);
	assert_int_equal(m->u.run_ok.limits.output_bytes, 1005);
	free(b);

	b = b_result(IPC_ST_EXIT, 0, "x", 1);
	assert_int_equal(decode_bb(b, 0, m), 0);
	assert_int_equal(m->u.result.exit_code, -123);
	assert_int_equal(m->u.result.signal, 9);
	free(b);
	free(m);
}

/* ---- encode rejections ---- */

static void expect_encode(const struct ipc_msg *m, ssize_t want)
{
	uint8_t *buf = malloc(IPC_MAX_MSG);
	int fds[IPC_MAX_FDS];
	size_t nfds = 77;
	assert_non_null(buf);
	assert_int_equal(ipc_encode(m, buf, IPC_MAX_MSG, fds, &nfds), want);
	if (want < 0)
		assert_int_equal(nfds, 0);
	free(buf);
}

/* Fill a char[max + 1] field completely, leaving no NUL terminator. */
#define OVERFILL(field) memset((field), 'z', sizeof(field))

static void test_encode_rejects_long_strings(void **state)
{
	struct ipc_msg *m = new_msg(IPC_HELLO_OK);
	m->u.hello_ok.nprofiles = 1;
	OVERFILL(m->u.hello_ok.profiles[0].name);
	expect_encode(m, -EINVAL);
	m->u.hello_ok.profiles[0].name[0] = '\0';
	OVERFILL(m->u.hello_ok.profiles[0].language);
	expect_encode(m, -EINVAL);
	m->u.hello_ok.profiles[0].language[0] = '\0';
	OVERFILL(m->u.hello_ok.profiles[0].interpreter);
	expect_encode(m, -EINVAL);
	m->u.hello_ok.profiles[0].interpreter[IPC_MAX_PATH] = '\0'; /* exactly max: ok */
	expect_encode(m, IPC_HDR_SIZE + 4 + 4 + 4 + (4 + IPC_MAX_PATH) + 2 * 48 + 1);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN;
	m->u.run.stdin_fd = -1;
	OVERFILL(m->u.run.profile);
	expect_encode(m, -EINVAL);
	m->u.run.profile[0] = '\0';
	m->u.run.nenv = 2;
	OVERFILL(m->u.run.env[1]);
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN_ERR;
	m->u.run_err.reason = 1;
	OVERFILL(m->u.run_err.message);
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RESULT;
	OVERFILL(m->u.result.message);
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_ERROR;
	m->u.error.code = 1;
	OVERFILL(m->u.error.message);
	expect_encode(m, -EINVAL);
	free(m);
}

static void test_encode_rejects_bad_values(void **state)
{
	struct ipc_msg *m = new_msg(0);
	expect_encode(m, -EINVAL); /* type 0 */
	m->type = 9;
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_HELLO_OK;
	m->u.hello_ok.nprofiles = IPC_MAX_PROFILES + 1;
	expect_encode(m, -EINVAL);
	m->u.hello_ok.nprofiles = 1;
	m->u.hello_ok.profiles[0].network = 2;
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN;
	m->u.run.stdin_fd = -1;
	m->u.run.nenv = IPC_MAX_ENV + 1;
	expect_encode(m, -EINVAL);
	m->u.run.nenv = 0;
	m->u.run.code_fd = -1; /* the code memfd is mandatory */
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN_OK;
	m->u.run_ok.stdout_fd = 3;
	m->u.run_ok.stderr_fd = 4;
	m->u.run_ok.control_fd = -1;
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RUN_ERR;
	expect_encode(m, -EINVAL); /* reason 0 */
	m->u.run_err.reason = IPC_ERR_REASON_MAX + 1;
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_CANCEL;
	expect_encode(m, -EINVAL);
	m->u.cancel.reason = IPC_CANCEL_REASON_MAX + 1;
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_RESULT;
	m->u.result.status = IPC_ST_MAX + 1;
	expect_encode(m, -EINVAL);
	m->u.result.status = 0;
	m->u.result.oom_killed = 2;
	expect_encode(m, -EINVAL);

	memset(m, 0, sizeof(*m));
	m->type = IPC_ERROR;
	expect_encode(m, -EINVAL);
	m->u.error.code = IPC_E_CODE_MAX + 1;
	expect_encode(m, -EINVAL);

	/* Missing output arguments, and a buffer smaller than a header. */
	memset(m, 0, sizeof(*m));
	m->type = IPC_HELLO;
	uint8_t small[IPC_HDR_SIZE];
	int fds[IPC_MAX_FDS];
	size_t nfds;
	assert_int_equal(ipc_encode(m, small, sizeof(small), NULL, &nfds), -EINVAL);
	assert_int_equal(ipc_encode(m, small, sizeof(small), fds, NULL), -EINVAL);
	assert_int_equal(ipc_encode(m, small, IPC_HDR_SIZE - 1, fds, &nfds), -ENOBUFS);
	free(m);
}

/* ---- names ---- */

static void test_names(void **state)
{
	static const char *const st[] = {"ok",	    "exit",	 "signal",
					 "timeout", "memory",	 "output_limit",
					 "seccomp", "cancelled", "internal"};
	for (uint32_t s = 0; s <= IPC_ST_MAX; s++) {
		assert_string_equal(ipc_status_name(s), st[s]);
		assert_int_equal(ipc_status_from_name(st[s]), (int)s);
	}
	assert_string_equal(ipc_status_name(IPC_ST_MAX + 1), "unknown");
	assert_int_equal(ipc_status_from_name("unknown"), -1);
	assert_int_equal(ipc_status_from_name(""), -1);
	assert_int_equal(ipc_status_from_name("OK"), -1);
	assert_int_equal(ipc_status_from_name(NULL), -1);

	assert_string_equal(ipc_run_err_name(IPC_ERR_PROFILE), "profile");
	assert_string_equal(ipc_run_err_name(IPC_ERR_BUSY), "busy");
	assert_string_equal(ipc_run_err_name(0), "unknown");
	assert_string_equal(ipc_run_err_name(IPC_ERR_REASON_MAX + 1), "unknown");
	for (uint32_t r = 1; r <= IPC_ERR_REASON_MAX; r++)
		assert_string_not_equal(ipc_run_err_name(r), "unknown");

	/* Every decode error has its own text; out-of-range ones share one. */
	for (int e = 1; e < IPC_DEC_MAX_ERROR; e++) {
		assert_non_null(ipc_decode_strerror(e));
		assert_string_not_equal(ipc_decode_strerror(e), ipc_decode_strerror(0));
		for (int f = 1; f < e; f++)
			assert_string_not_equal(ipc_decode_strerror(e), ipc_decode_strerror(f));
	}
	assert_string_equal(ipc_decode_strerror(-IPC_DEC_FDS), ipc_decode_strerror(IPC_DEC_FDS));
	assert_string_equal(ipc_decode_strerror(IPC_DEC_MAX_ERROR), ipc_decode_strerror(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_hello),
	    cmocka_unit_test(test_roundtrip_hello_ok),
	    cmocka_unit_test(test_roundtrip_run),
	    cmocka_unit_test(test_roundtrip_run_ok),
	    cmocka_unit_test(test_roundtrip_run_err),
	    cmocka_unit_test(test_roundtrip_cancel),
	    cmocka_unit_test(test_roundtrip_result),
	    cmocka_unit_test(test_roundtrip_error),
	    cmocka_unit_test(test_golden_all_types),
	    cmocka_unit_test(test_encode_uses_own_version),
	    cmocka_unit_test(test_reject_short),
	    cmocka_unit_test(test_reject_magic),
	    cmocka_unit_test(test_reject_version),
	    cmocka_unit_test(test_reject_length),
	    cmocka_unit_test(test_reject_reserved),
	    cmocka_unit_test(test_reject_type),
	    cmocka_unit_test(test_samples_are_valid),
	    cmocka_unit_test(test_reject_truncated_every_type),
	    cmocka_unit_test(test_reject_trailing),
	    cmocka_unit_test(test_reject_string_too_long),
	    cmocka_unit_test(test_reject_nul_in_string),
	    cmocka_unit_test(test_reject_ranges),
	    cmocka_unit_test(test_reject_counts),
	    cmocka_unit_test(test_reject_fd_counts),
	    cmocka_unit_test(test_decode_fd_placement),
	    cmocka_unit_test(test_encode_rejects_long_strings),
	    cmocka_unit_test(test_encode_rejects_bad_values),
	    cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
