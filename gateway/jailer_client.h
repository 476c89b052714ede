/* The gateway's connection to the jailer: connect (socket path, or spawn the
 * setuid helper with a socketpair), HELLO, the profile table, and routing of
 * RUN_OK / RUN_ERR to the waiting job by job id.  Jobs that were waiting when
 * the connection fails are completed as internal errors, never dropped.
 */
#ifndef CELLGATE_JAILER_CLIENT_H
#define CELLGATE_JAILER_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "ipc.h"

struct event_base;
struct jailer_client;

#define JAILER_DEFAULT_SOCKET "/run/cellgate/jailer.sock"

/* Connect synchronously (the only blocking step, done once at start) and
 * exchange HELLO.  socket_path NULL: use JAILER_DEFAULT_SOCKET when it
 * exists, else spawn helper_path with `--fd 3`.  Returns NULL with err set. */
struct jailer_client *jailer_client_connect(struct event_base *base, const char *socket_path,
					    const char *helper_path, char *err, size_t errlen);
void jailer_client_free(struct jailer_client *jc);

const struct ipc_hello_ok *jailer_client_profiles(const struct jailer_client *jc);
const struct ipc_profile *jailer_client_find_profile(const struct jailer_client *jc,
						     const char *name);
struct event_base *jailer_client_base(const struct jailer_client *jc);

/* Ask whether the jailer answers right now, without blocking: fn(0, arg)
 * when it does, fn(-errno, arg) when it does not (within a second), always
 * from the event loop.  One probe at a time (-EALREADY); on any other
 * error fn is not called.  jailer_client_free drops a pending probe
 * without calling fn. */
typedef void (*jailer_probe_fn)(int rc, void *arg);
int jailer_client_probe_start(struct jailer_client *jc, jailer_probe_fn fn, void *arg);

/* Used by job.c. */
typedef void (*jailer_reply_fn)(struct ipc_msg *msg, void *arg); /* msg NULL: connection lost */
uint64_t jailer_client_next_job_id(struct jailer_client *jc);
int jailer_client_send_run(struct jailer_client *jc, struct ipc_msg *run, jailer_reply_fn fn,
			   void *arg);
void jailer_client_forget(struct jailer_client *jc, uint64_t job_id);

#endif
