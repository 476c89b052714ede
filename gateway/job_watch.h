/* The job observer every transport installs (mcp.h struct job_observer):
 * admission against the tenant's concurrency and CPU quota and the audit
 * log's health, the job.start and job.end audit records, CPU-quota
 * charging and the job metrics.
 */
#ifndef CELLGATE_JOB_WATCH_H
#define CELLGATE_JOB_WATCH_H

#include "audit.h"
#include "http_gateway.h"
#include "mcp.h"

struct job_watch {
	struct audit *audit;	/* NULL: no audit configured */
	struct tenant_state *ts; /* NULL: no per-tenant accounting */
	const char *tenant;	/* name for records */
	char key_id[TENANT_KEY_ID_LEN + 1];
	char client[64];
	const char *transport; /* "stdio", "http", "sse" */
	char session[40];
	bool log_code;
};

/* Fill `obs` to use `w` (which must outlive every job it admits). */
void job_watch_observer(struct job_watch *w, struct job_observer *obs);

/* Whether a new job of this tenant would be admitted now: 0, or -EAGAIN
 * (concurrency or quota; *retry_after_s and *reason set) or -EIO (the
 * audit log cannot be written).  Used by HTTP to answer 429 / 503 before
 * taking a tools/call. */
int job_watch_precheck(struct job_watch *w, unsigned *retry_after_s, const char **reason);

#endif
