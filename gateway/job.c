#include "job.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jailer_client.h"
#include "log.h"

/* After RESULT, how long to wait for the pipes to reach EOF.  Every writer is
 * dead by then (the supervisor killed the cgroup), so this only guards
 * against a bug turning into a hung request. */
#define DRAIN_GRACE_MS 2000
#define READ_CHUNK 65536

struct job;

struct stream {
	struct job *job;
	int fd;
	struct event *ev;
	char *buf;
	size_t len, cap; /* cap: the effective output limit */
	bool truncated, eof;
};

struct job {
	struct jailer_client *jc;
	uint64_t id;
	job_done_fn done;
	void *arg;
	bool waiting_reply; /* RUN sent, RUN_OK/RUN_ERR not yet here */
	bool cancel_wanted;
	bool cancel_sent;
	bool have_result;
	bool finished;
	int ctl;
	struct event *ev_ctl, *ev_timer;
	struct stream out, err;
	struct job_outcome o;
	char message[IPC_MAX_MESSAGE + 64];
};

static void job_free(struct job *j)
{
	struct stream *ss[2] = {&j->out, &j->err};
	for (int i = 0; i < 2; i++) {
		if (ss[i]->ev)
			event_free(ss[i]->ev);
		if (ss[i]->fd >= 0)
			close(ss[i]->fd);
		free(ss[i]->buf);
	}
	if (j->ev_ctl)
		event_free(j->ev_ctl);
	if (j->ev_timer)
		event_free(j->ev_timer);
	if (j->ctl >= 0)
		close(j->ctl);
	free(j);
}

/* Hand the outcome to the owner exactly once, then free. */
static void complete(struct job *j)
{
	if (j->finished)
		return;
	j->finished = true;
	struct job_outcome *o = &j->o;
	o->job_id = j->id;
	o->stdout_data = j->out.buf ? j->out.buf : "";
	o->stdout_len = j->out.len;
	o->stdout_truncated = j->out.truncated;
	o->stderr_data = j->err.buf ? j->err.buf : "";
	o->stderr_len = j->err.len;
	o->stderr_truncated = j->err.truncated;
	/* A stream over its cap ends the job as output_limit even when the
	 * program managed to exit before the supervisor's kill landed. */
	if ((j->out.truncated || j->err.truncated) && !o->rejected &&
	    (o->result.status == IPC_ST_OK || o->result.status == IPC_ST_EXIT ||
	     o->result.status == IPC_ST_SIGNAL || o->result.status == IPC_ST_CANCELLED))
		o->result.status = IPC_ST_OUTPUT_LIMIT;
	if (j->done)
		j->done(o, j->arg);
	job_free(j);
}

static void fail(struct job *j, uint32_t reason, const char *why)
{
	j->o.rejected = true;
	j->o.reject_reason = reason;
	j->o.result.status = IPC_ST_INTERNAL;
	j->o.result.exit_code = -1;
	snprintf(j->o.result.message, sizeof(j->o.result.message), "%s", why);
	complete(j);
}

static void maybe_complete(struct job *j)
{
	if (j->have_result && j->out.eof && j->err.eof)
		complete(j);
}

static void send_cancel(struct job *j, uint32_t reason)
{
	if (j->cancel_sent || j->ctl < 0 || j->have_result)
		return;
	struct ipc_msg m = {.type = IPC_CANCEL};
	m.u.cancel.reason = reason;
	int rc = ipc_send(j->ctl, &m);
	if (rc < 0 && rc != -EAGAIN)
		gw_log(GW_LOG_WARN, "job %016llx: sending cancel: %s", (unsigned long long)j->id,
		       strerror(-rc));
	j->cancel_sent = rc == 0;
}

static void on_stream(evutil_socket_t fd, short what, void *arg)
{
	struct stream *s = arg;
	struct job *j = s->job;
	(void)what;
	char chunk[READ_CHUNK];
	ssize_t n = read(fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		s->eof = true;
		event_del(s->ev);
		maybe_complete(j);
		return;
	}
	size_t room = s->cap > s->len ? s->cap - s->len : 0;
	size_t keep = (size_t)n < room ? (size_t)n : room;
	if (keep > 0) {
		memcpy(s->buf + s->len, chunk, keep);
		s->len += keep;
	}
	if ((size_t)n > keep && !s->truncated) {
		/* Past the cap: keep draining (so the writer is not killed by
		 * SIGPIPE before the supervisor says output_limit) but store
		 * nothing more, and ask for the job to be stopped. */
		s->truncated = true;
		send_cancel(j, IPC_CANCEL_OUTPUT_LIMIT);
	}
}

static void on_drain_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;
	(void)fd;
	(void)what;
	gw_log(GW_LOG_WARN, "job %016llx: output pipes still open after the result",
	       (unsigned long long)j->id);
	j->out.eof = j->err.eof = true;
	maybe_complete(j);
}

static void on_control(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;
	(void)what;
	struct ipc_msg m;
	int derr = 0;
	int rc = ipc_recv(fd, &m, &derr);
	if (rc == -EAGAIN || rc == -EINTR)
		return;
	event_del(j->ev_ctl);
	if (rc < 0 || m.type != IPC_RESULT) {
		if (rc == 0)
			ipc_close_fds(&m);
		gw_log(GW_LOG_WARN, "job %016llx: control socket: %s", (unsigned long long)j->id,
		       rc == 0 ? "unexpected message type"
		       : rc == -EBADMSG ? ipc_decode_strerror(derr)
					: strerror(-rc));
		j->o.result.status = IPC_ST_INTERNAL;
		j->o.result.exit_code = -1;
		snprintf(j->o.result.message, sizeof(j->o.result.message),
			 "the job's supervisor ended without a result");
	} else {
		j->o.result = m.u.result;
	}
	j->have_result = true;
	struct timeval tv = {.tv_sec = DRAIN_GRACE_MS / 1000,
			     .tv_usec = (DRAIN_GRACE_MS % 1000) * 1000};
	j->ev_timer = evtimer_new(jailer_client_base(j->jc), on_drain_timeout, j);
	if (j->ev_timer)
		evtimer_add(j->ev_timer, &tv);
	maybe_complete(j);
}

static int stream_open(struct job *j, struct stream *s, int fd, size_t cap)
{
	s->job = j;
	s->fd = fd;
	s->cap = cap;
	s->buf = malloc(cap ? cap : 1);
	if (!s->buf || evutil_make_socket_nonblocking(fd) < 0)
		return -ENOMEM;
	s->ev = event_new(jailer_client_base(j->jc), fd, EV_READ | EV_PERSIST, on_stream, s);
	if (!s->ev || event_add(s->ev, NULL) < 0)
		return -ENOMEM;
	return 0;
}

static void on_reply(struct ipc_msg *m, void *arg)
{
	struct job *j = arg;
	j->waiting_reply = false;
	if (!m) {
		fail(j, 0, "lost the connection to the jailer");
		return;
	}
	if (m->type == IPC_RUN_ERR) {
		char why[IPC_MAX_MESSAGE + 64];
		snprintf(why, sizeof(why), "the sandbox refused the job (%s): %s",
			 ipc_run_err_name(m->u.run_err.reason), m->u.run_err.message);
		fail(j, m->u.run_err.reason, why);
		return;
	}
	struct ipc_run_ok *ok = &m->u.run_ok;
	j->o.limits = ok->limits;
	j->ctl = ok->control_fd;
	size_t cap = ok->limits.output_bytes > (64u << 20) ? (64u << 20) : ok->limits.output_bytes;
	int rc = stream_open(j, &j->out, ok->stdout_fd, cap);
	if (rc == 0)
		rc = stream_open(j, &j->err, ok->stderr_fd, cap);
	if (rc == 0) {
		j->ev_ctl = event_new(jailer_client_base(j->jc), j->ctl, EV_READ | EV_PERSIST,
				      on_control, j);
		if (!j->ev_ctl || event_add(j->ev_ctl, NULL) < 0)
			rc = -ENOMEM;
	}
	if (rc < 0) {
		fail(j, 0, "out of memory in the gateway");
		return;
	}
	if (!j->done) {
		/* abandoned while the jailer was starting it: closing the
		 * control socket makes the supervisor kill the job */
		job_free(j);
		return;
	}
	if (j->cancel_wanted)
		send_cancel(j, IPC_CANCEL_REQUESTED);
}

static void deferred_fail(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;
	(void)fd;
	(void)what;
	fail(j, 0, j->message);
}

struct job *job_start(struct jailer_client *jc, const struct job_request *req, job_done_fn done,
		      void *arg)
{
	struct job *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->jc = jc;
	j->done = done;
	j->arg = arg;
	j->ctl = -1;
	j->out.fd = j->err.fd = -1;
	j->id = req->job_id ? req->job_id : jailer_client_next_job_id(jc);

	struct ipc_msg *m = calloc(1, sizeof(*m));
	if (!m) {
		free(j);
		return NULL;
	}
	m->type = IPC_RUN;
	struct ipc_run *run = &m->u.run;
	run->job_id = j->id;
	snprintf(run->profile, sizeof(run->profile), "%s", req->profile);
	run->limits = req->limits;
	run->stdin_fd = -1;
	run->code_fd = ipc_memfd_sealed("cellgate-code", req->code, req->code_len);
	int rc = run->code_fd;
	if (rc >= 0 && req->stdin_data) {
		run->stdin_fd = ipc_memfd_sealed("cellgate-stdin", req->stdin_data, req->stdin_len);
		rc = run->stdin_fd;
	}
	if (rc < 0) {
		if (run->code_fd >= 0)
			close(run->code_fd);
		free(m);
		free(j);
		return NULL;
	}
	rc = jailer_client_send_run(jc, m, on_reply, j);
	close(run->code_fd);
	if (run->stdin_fd >= 0)
		close(run->stdin_fd);
	free(m);
	if (rc < 0) {
		snprintf(j->message, sizeof(j->message), "cannot reach the jailer: %s",
			 strerror(-rc));
		struct timeval now = {0, 0};
		if (event_base_once(jailer_client_base(jc), -1, EV_TIMEOUT, deferred_fail, j, &now) <
		    0) {
			free(j);
			return NULL;
		}
		j->waiting_reply = true; /* deferred_fail completes (and frees) it */
		return j;
	}
	j->waiting_reply = true;
	return j;
}

void job_cancel(struct job *j)
{
	j->cancel_wanted = true;
	if (j->ctl >= 0)
		send_cancel(j, IPC_CANCEL_REQUESTED);
}

void job_abandon(struct job *j)
{
	j->done = NULL;
	if (j->waiting_reply)
		return; /* on_reply or deferred_fail frees it */
	if (j->finished)
		return;
	/* Closing our end of the control socket is the kill: the supervisor
	 * treats a vanished gateway as the end of the job. */
	j->finished = true;
	job_free(j);
}

uint64_t job_id(const struct job *j)
{
	return j->id;
}

void job_peek(const struct job *j, const char **out, size_t *out_len, const char **err,
	      size_t *err_len)
{
	*out = j->out.buf ? j->out.buf : "";
	*out_len = j->out.len;
	*err = j->err.buf ? j->err.buf : "";
	*err_len = j->err.len;
}
