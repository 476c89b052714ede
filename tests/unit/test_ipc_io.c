/* ipc-proto transport and sealed memfds, over real socketpairs: fds arrive
 * usable and CLOEXEC, every fd of a rejected message is closed, EOF and
 * errors map to the documented codes, and seals are enforced. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc.h"

struct pair {
	int a, b;
};

static int setup_pair(void **state)
{
	struct pair *p = malloc(sizeof(*p));
	int sv[2];
	if (!p || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		free(p);
		return -1;
	}
	p->a = sv[0];
	p->b = sv[1];
	*state = p;
	return 0;
}

static int teardown_pair(void **state)
{
	struct pair *p = *state;
	if (p->a >= 0)
		close(p->a);
	if (p->b >= 0)
		close(p->b);
	free(p);
	return 0;
}

static int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

static bool fd_is_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);
	assert_true(fl >= 0);
	return (fl & FD_CLOEXEC) != 0;
}

/* The next n fd numbers the kernel will hand out (lowest free first). */
static void next_fds(int *out, int n)
{
	for (int i = 0; i < n; i++) {
		out[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_true(out[i] >= 0);
	}
	for (int i = 0; i < n; i++)
		close(out[i]);
}

static struct ipc_msg *new_msg(void)
{
	struct ipc_msg *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	return m;
}

/* Send raw bytes with fds attached, bypassing the encoder. */
static void send_raw(int sock, const void *data, size_t len, const int *fds, size_t nfds)
{
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	char cbuf[CMSG_SPACE(sizeof(int) * 32)];
	assert_true(nfds <= 32);
	if (nfds > 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	assert_int_equal(sendmsg(sock, &mh, MSG_NOSIGNAL), (ssize_t)len);
}

static void read_exact(int fd, char *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
}

/* ---- send / recv ---- */

static void test_run_with_fds(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg(), *r = new_msg();
	int code = ipc_memfd_sealed("code", "print(1)\n", 9);
	int in = ipc_memfd_sealed("stdin", "abc", 3);
	assert_true(code >= 0);
	assert_true(in >= 0);

	m->type = IPC_RUN;
	m->u.run.job_id = 99;
	strcpy(m->u.run.profile, "python");
	m->u.run.limits.wall_ms = 5000;
	m->u.run.nenv = 1;
	strcpy(m->u.run.env[0], "LANG=C.UTF-8");
	m->u.run.code_fd = code;
	m->u.run.stdin_fd = in;
	assert_int_equal(ipc_send(p->a, m), 0);

	int err = -1;
	assert_int_equal(ipc_recv(p->b, r, &err), 0);
	assert_int_equal(err, 0);
	assert_int_equal(r->type, IPC_RUN);
	assert_int_equal(r->version, IPC_VERSION);
	assert_int_equal(r->u.run.job_id, 99);
	assert_string_equal(r->u.run.profile, "python");
	assert_int_equal(r->u.run.limits.wall_ms, 5000);
	assert_int_equal(r->u.run.nenv, 1);
	assert_string_equal(r->u.run.env[0], "LANG=C.UTF-8");

	/* New fds for the same files, CLOEXEC, sealed and readable. */
	int rcode = r->u.run.code_fd, rin = r->u.run.stdin_fd;
	assert_true(rcode >= 0 && rcode != code);
	assert_true(rin >= 0 && rin != in);
	assert_true(fd_is_cloexec(rcode));
	assert_true(fd_is_cloexec(rin));
	struct stat s1, s2;
	assert_int_equal(fstat(code, &s1), 0);
	assert_int_equal(fstat(rcode, &s2), 0);
	assert_int_equal(s1.st_ino, s2.st_ino);
	size_t size = 0;
	assert_int_equal(ipc_memfd_check(rcode, IPC_MAX_CODE_BYTES, &size), 0);
	assert_int_equal(size, 9);
	char buf[16] = {0};
	assert_int_equal(pread(rcode, buf, sizeof(buf), 0), 9);
	assert_memory_equal(buf, "print(1)\n", 9);
	assert_int_equal(pread(rin, buf, sizeof(buf), 0), 3);
	assert_memory_equal(buf, "abc", 3);

	ipc_close_fds(r);
	assert_int_equal(r->u.run.code_fd, -1);
	assert_int_equal(r->u.run.stdin_fd, -1);
	assert_false(fd_is_open(rcode));
	assert_false(fd_is_open(rin));
	/* The sender's copies are untouched. */
	assert_true(fd_is_open(code));
	close(code);
	close(in);
	free(m);
	free(r);
}

static void test_run_ok_fds_usable(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg(), *r = new_msg();
	int out[2], errp[2], ctl[2];
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl), 0);

	m->type = IPC_RUN_OK;
	m->u.run_ok.job_id = 5;
	m->u.run_ok.limits.output_bytes = 1 << 20;
	m->u.run_ok.stdout_fd = out[0];
	m->u.run_ok.stderr_fd = errp[0];
	m->u.run_ok.control_fd = ctl[0];
	assert_int_equal(ipc_send(p->a, m), 0);
	assert_int_equal(ipc_recv(p->b, r, NULL), 0);
	assert_int_equal(r->type, IPC_RUN_OK);
	assert_int_equal(r->u.run_ok.job_id, 5);
	assert_int_equal(r->u.run_ok.limits.output_bytes, 1 << 20);
	assert_true(fd_is_cloexec(r->u.run_ok.stdout_fd));
	assert_true(fd_is_cloexec(r->u.run_ok.stderr_fd));
	assert_true(fd_is_cloexec(r->u.run_ok.control_fd));

	/* The fds are the pipes' read ends and the control peer. */
	char buf[8];
	assert_int_equal(write(out[1], "out", 3), 3);
	read_exact(r->u.run_ok.stdout_fd, buf, 3);
	assert_memory_equal(buf, "out", 3);
	assert_int_equal(write(errp[1], "err", 3), 3);
	read_exact(r->u.run_ok.stderr_fd, buf, 3);
	assert_memory_equal(buf, "err", 3);

	struct ipc_msg *res = new_msg();
	res->type = IPC_RESULT;
	res->u.result.status = IPC_ST_OK;
	strcpy(res->u.result.message, "fine");
	assert_int_equal(ipc_send(ctl[1], res), 0);
	assert_int_equal(ipc_recv(r->u.run_ok.control_fd, r, NULL), 0);
	assert_int_equal(r->type, IPC_RESULT);
	assert_string_equal(r->u.result.message, "fine");

	for (int i = 0; i < 2; i++) {
		close(out[i]);
		close(errp[i]);
		close(ctl[i]);
	}
	free(res);
	free(m);
	free(r);
}

static void test_eof_is_connreset(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *r = new_msg();
	int err = -1;
	close(p->a);
	p->a = -1;
	assert_int_equal(ipc_recv(p->b, r, &err), -ECONNRESET);
	assert_int_equal(err, 0);
	free(r);
}

/* The control-socket race: the gateway's CANCEL crosses the supervisor's
 * RESULT, and the supervisor closes with the CANCEL unread.  The kernel then
 * flags ECONNRESET on the gateway's end; the RESULT must still arrive. */
static void test_reset_does_not_hide_queued_message(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg(), *r = new_msg();
	m->type = IPC_CANCEL;
	m->u.cancel.reason = IPC_CANCEL_OUTPUT_LIMIT;
	assert_int_equal(ipc_send(p->a, m), 0); /* never read by b */
	memset(m, 0, sizeof(*m));
	m->type = IPC_RESULT;
	m->u.result.status = IPC_ST_OUTPUT_LIMIT;
	m->u.result.exit_code = -1;
	assert_int_equal(ipc_send(p->b, m), 0);
	close(p->b);
	p->b = -1;
	int err = -1;
	assert_int_equal(ipc_recv(p->a, r, &err), 0);
	assert_int_equal(r->type, IPC_RESULT);
	assert_int_equal(r->u.result.status, IPC_ST_OUTPUT_LIMIT);
	assert_int_equal(ipc_recv(p->a, r, &err), -ECONNRESET); /* then EOF */
	free(m);
	free(r);
}

static void test_send_to_closed_peer_is_epipe(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg();
	m->type = IPC_HELLO;
	close(p->b);
	p->b = -1;
	/* An error code, never a signal (Linux raises no SIGPIPE for
	 * SEQPACKET; ipc_send's MSG_NOSIGNAL keeps it so everywhere). */
	assert_int_equal(ipc_send(p->a, m), -EPIPE);
	free(m);
}

static void test_nonblocking_empty_is_eagain(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *r = new_msg();
	assert_int_equal(fcntl(p->b, F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(ipc_recv(p->b, r, NULL), -EAGAIN);
	free(r);
}

static void test_send_rejects_invalid_message(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg();
	m->type = IPC_RUN;
	m->u.run.code_fd = -1;
	m->u.run.stdin_fd = -1;
	assert_int_equal(ipc_send(p->a, m), -EINVAL);
	/* Nothing was sent. */
	assert_int_equal(fcntl(p->b, F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(ipc_recv(p->b, m, NULL), -EAGAIN);
	free(m);
}

/* Garbage with fds attached: -EBADMSG, and the fds that arrived are closed. */
static void test_garbage_with_fds_closed(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *r = new_msg();
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(devnull >= 0);
	int sent[2] = {devnull, devnull};
	send_raw(p->a, "garbage, not a message", 22, sent, 2);

	int before = count_open_fds();
	int will[2];
	next_fds(will, 2);
	int err = 0;
	assert_int_equal(ipc_recv(p->b, r, &err), -EBADMSG);
	assert_int_equal(err, IPC_DEC_MAGIC);
	assert_false(fd_is_open(will[0]));
	assert_false(fd_is_open(will[1]));
	assert_int_equal(count_open_fds(), before);
	close(devnull);
	free(r);
}

/* A valid message with the wrong number of fds: all closed. */
static void test_wrong_fd_count_closed(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg(), *r = new_msg();
	uint8_t buf[IPC_MAX_MSG];
	int fds[IPC_MAX_FDS];
	size_t nfds;
	m->type = IPC_CANCEL;
	m->u.cancel.reason = IPC_CANCEL_REQUESTED;
	ssize_t n = ipc_encode(m, buf, sizeof(buf), fds, &nfds);
	assert_true(n > 0);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int sent[3] = {devnull, devnull, devnull};
	send_raw(p->a, buf, (size_t)n, sent, 3);

	int before = count_open_fds();
	int err = 0;
	assert_int_equal(ipc_recv(p->b, r, &err), -EBADMSG);
	assert_int_equal(err, IPC_DEC_FDS);
	assert_int_equal(count_open_fds(), before);
	close(devnull);
	free(m);
	free(r);
}

/* Version mismatch: rejected with fds closed, but type and version kept so
 * the receiver can answer IPC_ERROR naming both versions. */
static void test_version_mismatch_keeps_header(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *r = new_msg();
	uint8_t hdr[IPC_HDR_SIZE] = {0x43, 0x47, 0x49, 0x50, 2, 0, IPC_RUN, 0,
				     0,	   0,	 0,    0,    0, 0, 0,	    0};
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	send_raw(p->a, hdr, sizeof(hdr), &devnull, 1);

	int before = count_open_fds();
	int err = 0;
	assert_int_equal(ipc_recv(p->b, r, &err), -EBADMSG);
	assert_int_equal(err, IPC_DEC_VERSION);
	assert_int_equal(r->version, 2);
	assert_int_equal(r->type, IPC_RUN);
	assert_int_equal(r->u.run.code_fd, -1);
	assert_int_equal(count_open_fds(), before);
	ipc_close_fds(r); /* harmless: nothing to close */
	assert_true(fd_is_open(devnull));
	close(devnull);
	free(r);
}

/* More than IPC_MAX_FDS fds, delivered (5) or cut by the kernel (20). */
static void test_too_many_fds_closed(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg(), *r = new_msg();
	uint8_t buf[IPC_MAX_MSG];
	int fds[IPC_MAX_FDS];
	size_t nfds;
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int sent[20];
	for (int i = 0; i < 20; i++)
		sent[i] = devnull;
	m->type = IPC_RUN_OK;
	m->u.run_ok.stdout_fd = m->u.run_ok.stderr_fd = m->u.run_ok.control_fd = devnull;
	ssize_t n = ipc_encode(m, buf, sizeof(buf), fds, &nfds);
	assert_true(n > 0);

	static const size_t counts[] = {IPC_MAX_FDS + 1, 20};
	for (size_t i = 0; i < 2; i++) {
		send_raw(p->a, buf, (size_t)n, sent, counts[i]);
		int before = count_open_fds();
		int err = 0;
		assert_int_equal(ipc_recv(p->b, r, &err), -EBADMSG);
		assert_int_equal(err, IPC_DEC_FDS);
		assert_int_equal(count_open_fds(), before);
	}
	close(devnull);
	free(m);
	free(r);
}

/* A datagram bigger than IPC_MAX_MSG arrives truncated: rejected, fds closed. */
static void test_oversized_datagram(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *r = new_msg();
	size_t len = IPC_MAX_MSG + 1;
	uint8_t *big = calloc(1, len);
	assert_non_null(big);
	int sndbuf = 1 << 20;
	assert_int_equal(setsockopt(p->a, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	send_raw(p->a, big, len, &devnull, 1);

	int before = count_open_fds();
	int err = 0;
	assert_int_equal(ipc_recv(p->b, r, &err), -EBADMSG);
	assert_int_equal(err, IPC_DEC_LENGTH);
	assert_int_equal(count_open_fds(), before);
	close(devnull);
	free(big);
	free(r);
}

/* Several messages keep their boundaries and order. */
static void test_message_boundaries(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg(), *r = new_msg();
	m->type = IPC_ERROR;
	m->u.error.code = IPC_E_PROTOCOL;
	for (uint32_t i = 0; i < 3; i++) {
		m->u.error.peer_version = i;
		assert_int_equal(ipc_send(p->a, m), 0);
	}
	m->type = IPC_HELLO;
	assert_int_equal(ipc_send(p->a, m), 0);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(ipc_recv(p->b, r, NULL), 0);
		assert_int_equal(r->type, IPC_ERROR);
		assert_int_equal(r->u.error.peer_version, i);
	}
	assert_int_equal(ipc_recv(p->b, r, NULL), 0);
	assert_int_equal(r->type, IPC_HELLO);
	free(m);
	free(r);
}

/* SO_PASSCRED adds an SCM_CREDENTIALS cmsg; fds must still come through. */
static void test_passcred_with_fds(void **state)
{
	struct pair *p = *state;
	struct ipc_msg *m = new_msg(), *r = new_msg();
	int one = 1;
	assert_int_equal(setsockopt(p->b, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)), 0);
	int code = ipc_memfd_sealed("code", "x", 1);
	m->type = IPC_RUN;
	m->u.run.code_fd = code;
	m->u.run.stdin_fd = -1;
	assert_int_equal(ipc_send(p->a, m), 0);
	assert_int_equal(ipc_recv(p->b, r, NULL), 0);
	assert_true(r->u.run.code_fd >= 0);
	assert_int_equal(r->u.run.stdin_fd, -1);
	ipc_close_fds(r);
	close(code);
	free(m);
	free(r);
}

/* ---- sealed memfds ---- */

static void test_memfd_good(void **state)
{
	static const char data[] = "print('hello')\n";
	int fd = ipc_memfd_sealed("code", data, sizeof(data) - 1);
	assert_true(fd >= 0);
	assert_true(fd_is_cloexec(fd));
	size_t size = 0;
	assert_int_equal(ipc_memfd_check(fd, IPC_MAX_CODE_BYTES, &size), 0);
	assert_int_equal(size, sizeof(data) - 1);
	/* Rewound: a plain read sees the content from the start. */
	char buf[64];
	assert_int_equal(read(fd, buf, sizeof(buf)), (ssize_t)(sizeof(data) - 1));
	assert_memory_equal(buf, data, sizeof(data) - 1);
	/* Exactly at the limit is fine; size may be NULL. */
	assert_int_equal(ipc_memfd_check(fd, sizeof(data) - 1, NULL), 0);
	close(fd);
}

static void test_memfd_empty_and_large(void **state)
{
	int fd = ipc_memfd_sealed("empty", NULL, 0);
	size_t size = 1;
	assert_true(fd >= 0);
	assert_int_equal(ipc_memfd_check(fd, 0, &size), 0);
	assert_int_equal(size, 0);
	close(fd);

	/* A megabyte goes through the write loop whole. */
	size_t len = IPC_MAX_CODE_BYTES;
	char *big = malloc(len), *back = malloc(len);
	assert_non_null(big);
	assert_non_null(back);
	for (size_t i = 0; i < len; i++)
		big[i] = (char)(i * 7);
	fd = ipc_memfd_sealed("big", big, len);
	assert_true(fd >= 0);
	assert_int_equal(ipc_memfd_check(fd, IPC_MAX_CODE_BYTES, &size), 0);
	assert_int_equal(size, len);
	assert_int_equal(pread(fd, back, len, 0), (ssize_t)len);
	assert_memory_equal(big, back, len);
	close(fd);
	free(big);
	free(back);
}

static void test_memfd_too_large(void **state)
{
	int fd = ipc_memfd_sealed("code", "0123456789", 10);
	size_t size = 77;
	assert_true(fd >= 0);
	assert_int_equal(ipc_memfd_check(fd, 9, &size), -EFBIG);
	assert_int_equal(size, 77);
	assert_int_equal(ipc_memfd_check(fd, 10, &size), 0);
	close(fd);
}

static void test_memfd_write_after_seal_fails(void **state)
{
	int fd = ipc_memfd_sealed("code", "abc", 3);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(pwrite(fd, "x", 1, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(fd, 1), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(fd, 100), -1);
	assert_int_equal(errno, EPERM);
	assert_true(mmap(NULL, 3, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED);
	/* F_SEAL_SEAL: the seals cannot be changed any more. */
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), -1);
	assert_int_equal(errno, EPERM);
	char buf[4];
	assert_int_equal(pread(fd, buf, 4, 0), 3);
	assert_memory_equal(buf, "abc", 3);
	close(fd);
}

static void test_memfd_unsealed_rejected(void **state)
{
	/* Sealable but no seals. */
	int fd = memfd_create("raw", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	assert_int_equal(ipc_memfd_check(fd, 100, NULL), -EPERM);
	close(fd);

	/* Not sealable at all (the kernel reports only F_SEAL_SEAL). */
	fd = memfd_create("raw", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ipc_memfd_check(fd, 100, NULL), -EPERM);
	close(fd);
}

static void test_memfd_partially_sealed_rejected(void **state)
{
	static const int partial[] = {
	    F_SEAL_WRITE | F_SEAL_SEAL,			/* can still grow/shrink */
	    F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL,	/* can still write */
	    F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK, /* seals still changeable */
	    F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SEAL,
	};
	for (size_t i = 0; i < sizeof(partial) / sizeof(partial[0]); i++) {
		int fd = memfd_create("part", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		assert_true(fd >= 0);
		assert_int_equal(fcntl(fd, F_ADD_SEALS, partial[i]), 0);
		assert_int_equal(ipc_memfd_check(fd, 100, NULL), -EPERM);
		close(fd);
	}
}

static void test_memfd_not_a_memfd(void **state)
{
	int pfd[2];
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	assert_int_equal(ipc_memfd_check(pfd[0], 100, NULL), -EINVAL);
	assert_int_equal(ipc_memfd_check(pfd[1], 100, NULL), -EINVAL);
	close(pfd[0]);
	close(pfd[1]);

	/* A regular file on disk has no seals either. */
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_true(ipc_memfd_check(fileno(f), 100, NULL) < 0);
	fclose(f);

	int s[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s), 0);
	assert_int_equal(ipc_memfd_check(s[0], 100, NULL), -EINVAL);
	close(s[0]);
	close(s[1]);

	assert_int_equal(ipc_memfd_check(-1, 100, NULL), -EBADF);
	int dead = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(dead >= 0);
	close(dead);
	assert_int_equal(ipc_memfd_check(dead, 100, NULL), -EBADF);
}

static void test_memfd_sealed_bad_args(void **state)
{
	assert_int_equal(ipc_memfd_sealed("x", NULL, 1), -EINVAL);
	assert_int_equal(ipc_memfd_sealed(NULL, "x", 1), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_run_with_fds, setup_pair, teardown_pair),
	    cmocka_unit_test_setup_teardown(test_run_ok_fds_usable, setup_pair, teardown_pair),
	    cmocka_unit_test_setup_teardown(test_eof_is_connreset, setup_pair, teardown_pair),
	    cmocka_unit_test_setup_teardown(test_reset_does_not_hide_queued_message, setup_pair,
					    teardown_pair),
	    cmocka_unit_test_setup_teardown(test_send_to_closed_peer_is_epipe, setup_pair,
					    teardown_pair),
	    cmocka_unit_test_setup_teardown(test_nonblocking_empty_is_eagain, setup_pair,
					    teardown_pair),
	    cmocka_unit_test_setup_teardown(test_send_rejects_invalid_message, setup_pair,
					    teardown_pair),
	    cmocka_unit_test_setup_teardown(test_garbage_with_fds_closed, setup_pair,
					    teardown_pair),
	    cmocka_unit_test_setup_teardown(test_wrong_fd_count_closed, setup_pair, teardown_pair),
	    cmocka_unit_test_setup_teardown(test_version_mismatch_keeps_header, setup_pair,
					    teardown_pair),
	    cmocka_unit_test_setup_teardown(test_too_many_fds_closed, setup_pair, teardown_pair),
	    cmocka_unit_test_setup_teardown(test_oversized_datagram, setup_pair, teardown_pair),
	    cmocka_unit_test_setup_teardown(test_message_boundaries, setup_pair, teardown_pair),
	    cmocka_unit_test_setup_teardown(test_passcred_with_fds, setup_pair, teardown_pair),
	    cmocka_unit_test(test_memfd_good),
	    cmocka_unit_test(test_memfd_empty_and_large),
	    cmocka_unit_test(test_memfd_too_large),
	    cmocka_unit_test(test_memfd_write_after_seal_fails),
	    cmocka_unit_test(test_memfd_unsealed_rejected),
	    cmocka_unit_test(test_memfd_partially_sealed_rejected),
	    cmocka_unit_test(test_memfd_not_a_memfd),
	    cmocka_unit_test(test_memfd_sealed_bad_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
