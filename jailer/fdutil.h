/* Small fd helpers shared by the jailer's main loop and supervisors. */
#ifndef CELLGATE_FDUTIL_H
#define CELLGATE_FDUTIL_H

#include <stddef.h>

struct ipc_msg;

/* Close every fd >= 3 that is not in keep[] (stdin/out/err stay). */
int close_fds_except(const int *keep, size_t nkeep);

/* Close a connection after reading whatever the peer sent that we will not
 * act on.  Closing an AF_UNIX socket with unread data makes the peer's next
 * read fail with ECONNRESET, ahead of the error message we just sent it. */
void close_draining(int fd);

/* ipc_send that waits up to timeout_ms for room on a non-blocking socket. */
int ipc_send_wait(int sock, const struct ipc_msg *msg, int timeout_ms);

#endif
