/* One execution in the gateway: sends RUN to the jailer with the code in a
 * sealed memfd, reads the cell's stdout and stderr from the fds the jailer
 * hands back (bounded by the effective output cap), asks the supervisor to
 * stop the job when a stream passes its cap or the caller cancels, and
 * reports exactly once through the completion callback.
 */
#ifndef CELLGATE_JOB_H
#define CELLGATE_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc.h"

struct jailer_client;
struct job;

struct job_request {
	uint64_t job_id;     /* 0: the jailer client picks the next one */
	const char *profile; /* profile name from HELLO_OK */
	const char *code;
	size_t code_len;
	const char *stdin_data; /* NULL for no stdin (reads see EOF) */
	size_t stdin_len;
	struct ipc_limits limits; /* 0 fields: the profile's default */
};

struct job_outcome {
	uint64_t job_id;
	/* The jailer refused the job (RUN_ERR) or could not be reached:
	 * rejected is true, result.status is IPC_ST_INTERNAL and message says
	 * why.  reject_reason is an ipc_run_err_reason or 0 when the jailer
	 * could not be reached at all. */
	bool rejected;
	uint32_t reject_reason;
	struct ipc_result result;
	struct ipc_limits limits; /* effective limits (zero when rejected) */
	const char *stdout_data;  /* not NUL-terminated; valid during the callback */
	size_t stdout_len;
	bool stdout_truncated;
	const char *stderr_data;
	size_t stderr_len;
	bool stderr_truncated;
};

typedef void (*job_done_fn)(const struct job_outcome *out, void *arg);

/* Start a job.  Returns NULL only when the request could not even be
 * prepared (memfd failure); otherwise `done` is called exactly once, later,
 * from the event loop - never from inside job_start.  The job frees itself
 * after `done` returns. */
struct job *job_start(struct jailer_client *jc, const struct job_request *req, job_done_fn done,
		      void *arg);

/* Ask the job to stop.  `done` still runs once, with status cancelled (or
 * whatever the job reached first).  Use job_abandon when the caller no longer
 * wants the callback at all. */
void job_cancel(struct job *job);

/* Cancel and never call `done` (the owner is going away). */
void job_abandon(struct job *job);

uint64_t job_id(const struct job *job);

/* The output read so far (not NUL-terminated; valid until the next return
 * to the event loop). */
void job_peek(const struct job *job, const char **out, size_t *out_len, const char **err,
	      size_t *err_len);

#endif
