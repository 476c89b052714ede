/* Small fd helpers shared by the jailer's main loop and supervisors. */
#ifndef CELLGATE_FDUTIL_H
#define CELLGATE_FDUTIL_H

#include <stddef.h>

struct ipc_msg;

/* Close every fd >= 3 that is not in keep[] (stdin/out/err stay). */
int close_fds_except(const int *keep, size_t nkeep);

/* ipc_send that waits up to timeout_ms for room on a non-blocking socket. */
int ipc_send_wait(int sock, const struct ipc_msg *msg, int timeout_ms);

#endif
