/* The audit log: one record when a job is admitted, one when it ends, one
 * per denied request.  Sinks: an append-only JSON-lines file whose records
 * are hash-chained, and journald (sd_journal_send, CELLGATE_* fields).
 * Never the API key; the code's SHA-256 and size always, the code itself
 * only when configured.
 *
 * Chain: every line is one JSON object with "seq" (1, 2, ...) and "prev"
 * (hex SHA-256 of the previous line's bytes without its newline; 64 zeros
 * for seq 1).  On open, an existing file's last line is read and the chain
 * continues from it.
 */
#ifndef CELLGATE_AUDIT_H
#define CELLGATE_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipc.h"

struct audit;

struct audit_options {
	const char *file; /* NULL or "" = no file sink */
	/* journald: 0 = auto (send when /run/systemd/journal/socket exists;
	 * a failed send is logged, not fatal), 1 = required (a failed send
	 * makes the audit unhealthy like a failed file write), 2 = off. */
	int journald;
	bool fsync;    /* fdatasync the file after each record */
	bool log_code; /* include the code text in job.start records */
};

/* Who asked. */
struct audit_actor {
	const char *tenant;	/* NULL when unauthenticated */
	const char *key_id;	/* NULL when none */
	const char *client;	/* "ip:port", "stdio" */
	const char *transport;	/* "stdio", "http", "sse" */
	const char *session;	/* MCP session id or NULL */
};

struct audit_job {
	struct audit_actor who;
	uint64_t execution_id;
	const char *language;
	const char *profile;
	const uint8_t *code_sha256; /* 32 bytes */
	size_t code_bytes;
	const char *code; /* used only when log_code */
	struct ipc_limits requested; /* what the caller asked for (0 = unset) */
	struct ipc_limits applied;   /* what the jailer applied (end record) */
	/* End record only: */
	const char *status; /* ipc status name: ok, exit, signal, timeout, ... */
	int exit_code;
	int signal;
	uint64_t wall_ms, cpu_ms, memory_peak_bytes;
	uint64_t stdout_bytes, stderr_bytes;
};

struct audit_denial {
	struct audit_actor who;
	const char *method; /* HTTP method or JSON-RPC method */
	const char *path;   /* HTTP path (no query string) or NULL */
	int http_status;    /* 401, 403, 413, 429, 503, ... or 0 (stdio) */
	const char *reason; /* short, fixed text: "missing key", "bad key", "rate", ... */
};

/* Open the sinks.  A file that cannot be opened or whose last line cannot
 * be parsed to continue the chain is an error (NULL + message). */
struct audit *audit_open(const struct audit_options *o, char *err, size_t errlen);
void audit_close(struct audit *a);

/* Whether jobs may be admitted: every required sink accepted its last
 * record.  After a failure, tries to recover (e.g. the disk has room
 * again) by writing nothing and re-checking the file is open; a sink that
 * failed stays failed until a record is written successfully. */
bool audit_healthy(struct audit *a);

/* Write a record.  0 on success; -errno when a required sink failed (then
 * the audit is unhealthy).  A job.start that fails means the job must not
 * run. */
int audit_job_start(struct audit *a, const struct audit_job *j);
int audit_job_end(struct audit *a, const struct audit_job *j);
int audit_denied(struct audit *a, const struct audit_denial *d);

/* `cellgate audit verify FILE`: walks the chain.  Prints one line to out:
 * "ok: N records, head <hex>" (returns 0) or "broken at record N (line L):
 * <why>" (returns 1); I/O or usage errors return 2 with a message. */
int audit_verify_file(const char *path, FILE *out);

#endif
