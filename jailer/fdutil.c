#include "fdutil.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipc.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int close_fds_except(const int *keep, size_t nkeep)
{
	int sorted[16];
	if (nkeep > sizeof(sorted) / sizeof(sorted[0]))
		return -EINVAL;
	size_t n = 0;
	for (size_t i = 0; i < nkeep; i++)
		if (keep[i] >= 3)
			sorted[n++] = keep[i];
	qsort(sorted, n, sizeof(int), cmp_int);
	unsigned lo = 3;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned)sorted[i] > lo &&
		    syscall(SYS_close_range, lo, (unsigned)sorted[i] - 1, 0) < 0)
			return -errno;
		lo = (unsigned)sorted[i] + 1;
	}
	if (syscall(SYS_close_range, lo, ~0U, 0) < 0)
		return -errno;
	return 0;
}

int ipc_send_wait(int sock, const struct ipc_msg *msg, int timeout_ms)
{
	for (;;) {
		int rc = ipc_send(sock, msg);
		if (rc != -EAGAIN)
			return rc;
		struct pollfd p = {.fd = sock, .events = POLLOUT};
		int pr = poll(&p, 1, timeout_ms);
		if (pr == 0)
			return -ETIMEDOUT;
		if (pr < 0 && errno != EINTR)
			return -errno;
	}
}

void close_draining(int fd)
{
	char buf[IPC_MAX_MSG];
	for (int i = 0; i < 64; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
	}
	close(fd);
}

int peer_credentials(int fd, struct ucred *cred, gid_t *groups, size_t *ngroups)
{
	socklen_t len = sizeof(*cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) < 0)
		return -errno;
	if (len != sizeof(*cred))
		return -EPROTO;
	len = PEER_MAX_GROUPS * sizeof(gid_t);
	*ngroups = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return errno == ERANGE ? 0 : -errno;
	if (len % sizeof(gid_t) != 0 || len > PEER_MAX_GROUPS * sizeof(gid_t))
		return -EPROTO;
	*ngroups = len / sizeof(gid_t);
	return 0;
}
