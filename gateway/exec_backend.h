/* The seam between the MCP tools and whatever runs code: in production the
 * jailer client (exec_jailer.c wraps jailer_client + job); unit tests of the
 * MCP dispatch plug in a scripted backend.  The tenant's ceilings travel
 * with it so tools can validate arguments without knowing the transport.
 */
#ifndef CELLGATE_EXEC_BACKEND_H
#define CELLGATE_EXEC_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "ipc.h"
#include "job.h"

/* What one tenant may do.  For stdio this is the local tenant, whose
 * ceilings are the jailer's profile maxima. */
struct tenant_limits {
	char name[64];
	/* Per-profile ceilings; a profile the tenant may not use is absent. */
	unsigned nprofiles;
	struct {
		char profile[IPC_MAX_NAME + 1];
		struct ipc_limits maximum;
	} profiles[IPC_MAX_PROFILES];
	bool network;
};

struct exec_backend {
	/* Profiles the jailer offers (HELLO_OK). */
	const struct ipc_hello_ok *(*profiles)(struct exec_backend *b);
	/* Start a job: same contract as job_start (done called exactly once,
	 * later, from the loop).  Returns an opaque handle or NULL. */
	void *(*start)(struct exec_backend *b, const struct job_request *req, job_done_fn done,
		       void *arg);
	void (*cancel)(struct exec_backend *b, void *handle);
	void (*abandon)(struct exec_backend *b, void *handle);
	void *impl;
	/* Optional: an id for the next job (so it can be audited before it
	 * starts); NULL or 0 lets start pick one. */
	uint64_t (*next_id)(struct exec_backend *b);
	/* Optional: the output a running job has produced so far. */
	void (*peek)(struct exec_backend *b, void *handle, const char **out, size_t *out_len,
		     const char **err, size_t *err_len);
};

/* The production backend over a connected jailer client. */
void exec_backend_jailer(struct exec_backend *b, struct jailer_client *jc);

/* The local tenant for stdio and `cellgate run`: every profile at its
 * maximum, network as the profile says. */
void tenant_limits_from_profiles(struct tenant_limits *t, const char *name,
				 const struct ipc_hello_ok *hello);

#endif
