/* See job_watch.h. */
#include "job_watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job.h"
#include "log.h"
#include "metrics.h"
#include "ratelimit.h"
#include "render.h"

/* What the end record needs from the start. */
struct watched_job {
	struct job_watch *w;
	uint64_t id;
	char language[IPC_MAX_NAME + 1];
	char profile[IPC_MAX_NAME + 1];
	uint8_t sha[32];
	size_t code_bytes;
	struct ipc_limits requested;
	uint64_t started_ns;
};

int job_watch_precheck(struct job_watch *w, unsigned *retry_after_s, const char **reason)
{
	*retry_after_s = 0;
	*reason = NULL;
	if (w->audit && !audit_healthy(w->audit)) {
		*reason = "audit";
		return -EIO;
	}
	if (!w->ts)
		return 0;
	struct tenant_usage *u = &w->ts->usage;
	if (u->jobs_running >= u->max_jobs) {
		*retry_after_s = 1;
		*reason = "concurrency";
		return -EAGAIN;
	}
	if (!cpu_quota_allows(&u->cpu, ratelimit_now_ns(), retry_after_s)) {
		*reason = "quota";
		return -EAGAIN;
	}
	return 0;
}

static void fill_actor(const struct job_watch *w, struct audit_actor *a)
{
	a->tenant = w->tenant;
	a->key_id = w->key_id[0] ? w->key_id : NULL;
	a->client = w->client;
	a->transport = w->transport;
	a->session = w->session[0] ? w->session : NULL;
}

static int watch_admit(void *arg, const struct job_request *req, const char *language,
		       void **token, char *msg, size_t msgsize)
{
	struct job_watch *w = arg;
	unsigned retry;
	const char *reason;

	int rc = job_watch_precheck(w, &retry, &reason);
	if (rc == -EIO) {
		/* The refusal is itself audited; a record that gets written is
		 * also what makes a recovered audit log healthy again. */
		struct audit_denial d = {.method = "tools/call",
					 .http_status = 503,
					 .reason = "audit unavailable"};
		fill_actor(w, &d.who);
		audit_denied(w->audit, &d);
		snprintf(msg, msgsize, "the audit log cannot be written, so no code runs now; try "
				       "again later");
		return rc;
	}
	if (rc < 0) {
		if (strcmp(reason, "quota") == 0)
			snprintf(msg, msgsize,
				 "this tenant's CPU quota for the last hour is used up; retry in "
				 "%u s",
				 retry);
		else
			snprintf(msg, msgsize,
				 "this tenant already runs its maximum of %u executions; wait for "
				 "one to finish",
				 w->ts->usage.max_jobs);
		metrics_rate_limited(reason);
		return rc;
	}
	struct watched_job *j = calloc(1, sizeof(*j));
	if (!j) {
		snprintf(msg, msgsize, "out of memory; try again");
		return -ENOMEM;
	}
	j->w = w;
	j->id = req->job_id;
	snprintf(j->language, sizeof(j->language), "%s", language);
	snprintf(j->profile, sizeof(j->profile), "%s", req->profile);
	tenant_sha256(req->code, req->code_len, j->sha);
	j->code_bytes = req->code_len;
	j->requested = req->limits;
	j->started_ns = ratelimit_now_ns();
	if (w->audit) {
		struct audit_job a = {
		    .execution_id = j->id,
		    .language = j->language,
		    .profile = j->profile,
		    .code_sha256 = j->sha,
		    .code_bytes = j->code_bytes,
		    .code = w->log_code ? req->code : NULL,
		    .requested = j->requested,
		};
		fill_actor(w, &a.who);
		if (audit_job_start(w->audit, &a) < 0) {
			free(j);
			snprintf(msg, msgsize, "the audit log cannot be written, so no code runs "
					       "now; try again later");
			return -EIO;
		}
	}
	if (w->ts)
		w->ts->usage.jobs_running++;
	metrics_jobs_add(1);
	*token = j;
	return 0;
}

static void watch_finished(void *arg, void *token, const struct job_outcome *out)
{
	struct job_watch *w = arg;
	struct watched_job *j = token;
	if (!j)
		return;
	uint64_t now = ratelimit_now_ns();
	const char *status = out ? render_status_name(out) : "abandoned";
	uint64_t cpu_ms = out ? out->result.cpu_user_ms + out->result.cpu_sys_ms : 0;
	if (w->ts) {
		if (w->ts->usage.jobs_running > 0)
			w->ts->usage.jobs_running--;
		cpu_quota_charge(&w->ts->usage.cpu, now, cpu_ms);
	}
	metrics_jobs_add(-1);
	metrics_job_done(j->language, status, (double)(now - j->started_ns) / 1e9);
	if (w->audit) {
		struct audit_job a = {
		    .execution_id = j->id,
		    .language = j->language,
		    .profile = j->profile,
		    .code_sha256 = j->sha,
		    .code_bytes = j->code_bytes,
		    .requested = j->requested,
		    .status = status,
		};
		fill_actor(w, &a.who);
		if (out) {
			a.applied = out->limits;
			a.exit_code = out->result.exit_code;
			a.signal = out->result.signal;
			a.wall_ms = out->result.wall_ms;
			a.cpu_ms = cpu_ms;
			a.memory_peak_bytes = out->result.memory_peak_bytes;
			a.stdout_bytes = out->stdout_len;
			a.stderr_bytes = out->stderr_len;
		}
		if (audit_job_end(w->audit, &a) < 0)
			gw_log(GW_LOG_ERROR,
			       "audit: the end of job %016llx could not be recorded; new jobs are "
			       "refused until the audit log can be written",
			       (unsigned long long)j->id);
	}
	free(j);
}

void job_watch_observer(struct job_watch *w, struct job_observer *obs)
{
	obs->admit = watch_admit;
	obs->finished = watch_finished;
	obs->arg = w;
}
