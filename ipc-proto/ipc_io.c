/* ipc-proto transport: one message per SOCK_SEQPACKET datagram, fds as
 * SCM_RIGHTS.  Everything received goes through ipc_decode; every fd that
 * arrives with a message that is not handed to the caller is closed here.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ipc.h"

/* Room for IPC_MAX_FDS fds plus SCM_CREDENTIALS, which the kernel adds when
 * SO_PASSCRED is on; without that room the fds would come with MSG_CTRUNC. */
#define CMSG_ROOM (CMSG_SPACE(sizeof(int) * IPC_MAX_FDS) + CMSG_SPACE(sizeof(struct ucred)))

union cmsg_buf {
	struct cmsghdr align;
	char buf[CMSG_ROOM];
};

int ipc_send(int sock, const struct ipc_msg *msg)
{
	uint8_t buf[IPC_MAX_MSG];
	int fds[IPC_MAX_FDS];
	size_t nfds = 0;
	ssize_t len = ipc_encode(msg, buf, sizeof(buf), fds, &nfds);
	if (len < 0)
		return (int)len;

	struct iovec iov = {.iov_base = buf, .iov_len = (size_t)len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	union cmsg_buf cbuf;
	if (nfds > 0) {
		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}

	ssize_t n;
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* SOCK_SEQPACKET sends a datagram whole or not at all. */
	if (n != len)
		return -EIO;
	return 0;
}

static void close_all(int *fds, size_t nfds)
{
	for (size_t i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Take every SCM_RIGHTS fd out of the control data, keeping at most
 * IPC_MAX_FDS; the rest are closed at once.  Returns the number kept, and
 * -EBADMSG (after closing everything) when there were too many. */
static int collect_fds(struct msghdr *mh, int *fds)
{
	size_t kept = 0;
	int rc = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		/* Bound by both the header and the buffer, never trusting one. */
		const unsigned char *data = CMSG_DATA(c);
		const unsigned char *end =
		    (const unsigned char *)mh->msg_control + mh->msg_controllen;
		if (c->cmsg_len < CMSG_LEN(0) || data > end)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > (size_t)(end - data) / sizeof(int))
			n = (size_t)(end - data) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;
			memcpy(&fd, data + i * sizeof(int), sizeof(int));
			if (kept < IPC_MAX_FDS) {
				fds[kept++] = fd;
			} else {
				close(fd);
				rc = -EBADMSG;
			}
		}
	}
	if (rc < 0) {
		close_all(fds, kept);
		return rc;
	}
	return (int)kept;
}

int ipc_recv(int sock, struct ipc_msg *msg, int *decode_err)
{
	uint8_t buf[IPC_MAX_MSG];
	union cmsg_buf cbuf;
	int fds[IPC_MAX_FDS];
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr mh = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cbuf.buf,
	    .msg_controllen = sizeof(cbuf.buf),
	};

	if (decode_err)
		*decode_err = 0;
	memset(msg, 0, sizeof(*msg));

	ssize_t n;
	bool reset_seen = false;
	for (;;) {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		/* A peer that closed with our messages unread leaves ECONNRESET
		 * pending on this socket; the kernel reports it once, ahead of
		 * what the peer queued for us before closing.  Look again: the
		 * next call returns that message, or 0 (EOF) when none. */
		if (errno == ECONNRESET && !reset_seen) {
			reset_seen = true;
			continue;
		}
		return -errno;
	}

	int nfds = collect_fds(&mh, fds);
	if (nfds < 0) {
		if (decode_err)
			*decode_err = IPC_DEC_FDS;
		return nfds;
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		close_all(fds, (size_t)nfds);
		if (decode_err)
			*decode_err = (mh.msg_flags & MSG_CTRUNC) ? IPC_DEC_FDS : IPC_DEC_LENGTH;
		return -EBADMSG;
	}
	if (n == 0) {
		/* EOF; a zero-length datagram is never a valid message either. */
		close_all(fds, (size_t)nfds);
		return -ECONNRESET;
	}

	int rc = ipc_decode(buf, (size_t)n, fds, (size_t)nfds, msg);
	if (rc < 0) {
		/* msg keeps type and version (for IPC_DEC_VERSION replies) but
		 * holds no fd: the decoder left every fd slot at -1. */
		close_all(fds, (size_t)nfds);
		if (decode_err)
			*decode_err = -rc;
		return -EBADMSG;
	}
	return 0;
}

void ipc_close_fds(struct ipc_msg *msg)
{
	int *slots[3] = {NULL, NULL, NULL};
	switch (msg->type) {
	case IPC_RUN:
		slots[0] = &msg->u.run.code_fd;
		slots[1] = &msg->u.run.stdin_fd;
		break;
	case IPC_RUN_OK:
		slots[0] = &msg->u.run_ok.stdout_fd;
		slots[1] = &msg->u.run_ok.stderr_fd;
		slots[2] = &msg->u.run_ok.control_fd;
		break;
	default:
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		if (slots[i] && *slots[i] >= 0) {
			close(*slots[i]);
			*slots[i] = -1;
		}
	}
}
