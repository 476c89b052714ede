/* A fake exec_backend for the fuzz targets that drive the MCP layer: it
 * never runs code.  A started job is kept until the harness calls
 * fuzz_backend_run, which completes it (from outside start, as the real
 * job does from the event loop) with an outcome chosen by how the code
 * begins, so tools/call execute reaches the backend and is answered:
 *
 *   "exit"     status exit, exit code 3     "kill"    status signal 9
 *   "timeout"  status timeout               "oom"     status memory
 *   "output"   status output_limit, output truncated
 *   "seccomp"  status seccomp               "internal" status internal
 *   "reject"   refused by the jailer (RUN_ERR, rejected)
 *   "binary"   ok, stdout bytes with the high bit set (invalid UTF-8)
 *   "nul"      ok, stdout with NUL bytes    "slow"    ok, due after 2 ms
 *   "hang"     never completes unless cancelled (or abandoned)
 *   anything else: ok, exit code 0
 *
 * stdout echoes the code and stderr the stdin, so rendering sees bytes the
 * fuzzer chose.  The probe jobs of get_sandbox_info print a version.
 */
#ifndef CELLGATE_FUZZ_BACKEND_H
#define CELLGATE_FUZZ_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec_backend.h"

struct fuzz_job;

struct fuzz_backend {
	struct exec_backend b;
	struct ipc_hello_ok hello;
	struct fuzz_job *live; /* started, neither completed nor abandoned */
	size_t nlive;
	uint64_t next_id;
};

/* Three profiles: python, javascript, and python-net (language python,
 * with network) so tenant network filtering has something to filter. */
void fuzz_backend_init(struct fuzz_backend *fb);

/* Complete every live job that is due ("hang" only once cancelled).
 * Returns how many completed. */
size_t fuzz_backend_run(struct fuzz_backend *fb);

/* Jobs started and not yet completed or abandoned. */
size_t fuzz_backend_live(const struct fuzz_backend *fb);

/* Whether some live job would complete in fuzz_backend_run now or later
 * (i.e. not a "hang" job that nobody cancelled). */
bool fuzz_backend_pending(const struct fuzz_backend *fb);

#endif
