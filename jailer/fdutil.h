/* Small fd helpers shared by the jailer's main loop and supervisors. */
#ifndef CELLGATE_FDUTIL_H
#define CELLGATE_FDUTIL_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

struct ipc_msg;

/* Close every fd >= 3 that is not in keep[] (stdin/out/err stay). */
int close_fds_except(const int *keep, size_t nkeep);

/* The supplementary groups read from a peer, at most this many. */
#define PEER_MAX_GROUPS 64

/* The credentials of a unix socket's peer as the kernel recorded them at
 * connect (or socketpair) time: SO_PEERCRED, and SO_PEERGROUPS into
 * `groups` (PEER_MAX_GROUPS).  A peer with more groups than that gets
 * *ngroups = 0, so only its uid and primary gid count: refusing a peer the
 * policy might admit, never the reverse.  0, or -errno. */
int peer_credentials(int fd, struct ucred *cred, gid_t *groups, size_t *ngroups);

/* Close a connection after reading whatever the peer sent that we will not
 * act on.  Closing an AF_UNIX socket with unread data makes the peer's next
 * read fail with ECONNRESET, ahead of the error message we just sent it. */
void close_draining(int fd);

/* ipc_send that waits up to timeout_ms for room on a non-blocking socket. */
int ipc_send_wait(int sock, const struct ipc_msg *msg, int timeout_ms);

#endif
