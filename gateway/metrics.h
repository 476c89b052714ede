/* Prometheus metrics of the gateway (text exposition format 0.0.4).  One
 * process-wide registry; every label set is bounded: methods and statuses
 * come from fixed tables (anything else counts as "other"), languages from
 * the jailer's profiles (at most IPC_MAX_PROFILES), job statuses from the
 * ipc status enum.  No label ever holds a key, a tenant-supplied string or
 * a session id.
 */
#ifndef CELLGATE_METRICS_H
#define CELLGATE_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* HTTP requests, counted when the response starts.  method: "GET",
 * "POST", "DELETE", "OPTIONS", anything else -> "other".  status: the
 * HTTP code (unlisted codes counted under their own value as long as the
 * table has room, else "other"). */
void metrics_http_request(const char *method, int status);
/* A job ended. language: the profile's language (unknown beyond the table
 * -> "other"); status: an ipc status name; seconds: wall time from
 * admission to result as the gateway saw it (histogram buckets 0.005 ..
 * 60 s). */
void metrics_job_done(const char *language, const char *status, double seconds);
void metrics_auth_failure(void);
/* reason: "rate", "concurrency", "quota", "sessions" */
void metrics_rate_limited(const char *reason);
void metrics_sessions_add(int delta);    /* gauge cellgate_sessions_active */
void metrics_jobs_add(int delta);        /* gauge cellgate_jobs_active */
void metrics_sse_streams_add(int delta); /* gauge cellgate_sse_streams_open */
void metrics_connections_add(int delta); /* gauge cellgate_http_connections_open */
/* reason: "limit" (one over max_connections) or "slow" (the request
 * deadline passed) */
void metrics_connection_dropped(const char *reason);
void metrics_set_jailer_up(int up);      /* gauge cellgate_jailer_up */

/* The exposition text, malloc'd (caller frees), length in *len.  NULL on
 * allocation failure. */
char *metrics_render(size_t *len);

/* Forget everything (unit tests). */
void metrics_reset(void);

#endif
