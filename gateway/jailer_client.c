#include "jailer_client.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"

#define HELLO_TIMEOUT_MS 10000
#define PROBE_TIMEOUT_MS 1000
#define RECONNECT_TIMEOUT_MS 2000

struct jailer_probe;
static void probe_drop(struct jailer_client *jc);

struct pending {
	uint64_t job_id;
	jailer_reply_fn fn;
	void *arg;
	struct pending *next;
};

struct jailer_client {
	struct event_base *base;
	int fd;
	struct event *ev;
	struct ipc_hello_ok hello;
	uint64_t next_id;
	struct pending *pending;
	char socket_path[108];
	pid_t helper;
	struct jailer_probe *probe; /* at most one at a time */
};

static int connect_path(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "jailer socket path too long");
		return -ENAMETOOLONG;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot connect to the jailer at %s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

/* The setuid helper: it gets one end of a socketpair as fd 3 and serves
 * only us; it exits when we close our end. */
static int spawn_helper(const char *helper, pid_t *pid_out)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		if (dup2(sv[1], 3) < 0)
			_exit(127);
		char *const argv[] = {(char *)"cellgate-jailer", (char *)"--fd", (char *)"3", NULL};
		char *const envp[] = {NULL};
		/* Our stdin and stdout carry MCP; the helper must not touch them. */
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
		}
		execve(helper, argv, envp);
		_exit(127);
	}
	close(sv[1]);
	*pid_out = pid;
	return sv[0];
}

static int hello(int fd, struct ipc_hello_ok *out, char *err, size_t errlen, int timeout_ms)
{
	struct ipc_msg m = {.type = IPC_HELLO};
	/* A jailer that refuses us says why and closes at once, possibly
	 * before our HELLO is on its way: its reason may already be waiting
	 * even when the send fails. */
	int send_rc = ipc_send(fd, &m);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, send_rc < 0 ? 0 : timeout_ms) <= 0) {
		if (send_rc < 0)
			snprintf(err, errlen, "sending HELLO to the jailer: %s", strerror(-send_rc));
		else
			snprintf(err, errlen, "the jailer did not answer HELLO");
		return send_rc < 0 ? send_rc : -ETIMEDOUT;
	}
	static struct ipc_msg r;
	int derr = 0;
	int rc = ipc_recv(fd, &r, &derr);
	if (rc < 0) {
		snprintf(err, errlen, "the jailer's answer to HELLO: %s",
			 rc == -EBADMSG ? ipc_decode_strerror(derr) : strerror(-rc));
		return rc;
	}
	if (r.type == IPC_ERROR) {
		snprintf(err, errlen, "the jailer refused us: %s", r.u.error.message);
		return -EPERM;
	}
	if (r.type != IPC_HELLO_OK) {
		ipc_close_fds(&r);
		snprintf(err, errlen, "the jailer answered HELLO with message type %u", r.type);
		return -EPROTO;
	}
	*out = r.u.hello_ok;
	return 0;
}

static void fail_all(struct jailer_client *jc)
{
	struct pending *p = jc->pending;
	jc->pending = NULL;
	while (p) {
		struct pending *next = p->next;
		p->fn(NULL, p->arg);
		free(p);
		p = next;
	}
}

static void disconnect(struct jailer_client *jc)
{
	if (jc->ev) {
		event_free(jc->ev);
		jc->ev = NULL;
	}
	if (jc->fd >= 0) {
		close(jc->fd);
		jc->fd = -1;
	}
	if (jc->helper > 0) {
		int st;
		waitpid(jc->helper, &st, WNOHANG);
	}
}

static struct pending *take_pending(struct jailer_client *jc, uint64_t id)
{
	for (struct pending **pp = &jc->pending; *pp; pp = &(*pp)->next) {
		if ((*pp)->job_id == id) {
			struct pending *p = *pp;
			*pp = p->next;
			return p;
		}
	}
	return NULL;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct jailer_client *jc = arg;
	static struct ipc_msg m;
	int derr = 0;
	int rc = ipc_recv(fd, &m, &derr);
	if (rc == -EAGAIN || rc == -EINTR)
		return;
	if (rc < 0) {
		if (rc == -ECONNRESET)
			gw_log(GW_LOG_WARN, "the jailer closed the connection");
		else
			gw_log(GW_LOG_WARN, "bad message from the jailer (%s); disconnecting",
			       rc == -EBADMSG ? ipc_decode_strerror(derr) : strerror(-rc));
		disconnect(jc);
		fail_all(jc);
		return;
	}
	uint64_t id;
	switch (m.type) {
	case IPC_RUN_OK:
		id = m.u.run_ok.job_id;
		break;
	case IPC_RUN_ERR:
		id = m.u.run_err.job_id;
		break;
	case IPC_ERROR:
		gw_log(GW_LOG_WARN, "the jailer reported: %s", m.u.error.message);
		return;
	default:
		ipc_close_fds(&m);
		gw_log(GW_LOG_WARN, "unexpected message type %u from the jailer", m.type);
		return;
	}
	struct pending *p = take_pending(jc, id);
	if (!p) {
		ipc_close_fds(&m); /* closing the control fd kills that job */
		return;
	}
	p->fn(&m, p->arg);
	free(p);
}

static int attach(struct jailer_client *jc, int fd, int timeout_ms, char *err, size_t errlen)
{
	int rc = hello(fd, &jc->hello, err, errlen, timeout_ms);
	if (rc < 0)
		return rc;
	if (evutil_make_socket_nonblocking(fd) < 0)
		return -errno;
	jc->ev = event_new(jc->base, fd, EV_READ | EV_PERSIST, on_readable, jc);
	if (!jc->ev || event_add(jc->ev, NULL) < 0)
		return -ENOMEM;
	jc->fd = fd;
	return 0;
}

struct jailer_client *jailer_client_connect(struct event_base *base, const char *socket_path,
					    const char *helper_path, char *err, size_t errlen)
{
	struct jailer_client *jc = calloc(1, sizeof(*jc));
	if (!jc) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	jc->base = base;
	jc->fd = -1;
	/* Job ids only need to be unique per connection; starting from a
	 * random point keeps cgroup names of concurrent gateways apart. */
	evutil_secure_rng_get_bytes(&jc->next_id, sizeof(jc->next_id));
	jc->next_id &= 0x00ffffffffffffffULL;
	struct stat st;
	int fd;
	if (!socket_path && stat(JAILER_DEFAULT_SOCKET, &st) == 0)
		socket_path = JAILER_DEFAULT_SOCKET;
	if (socket_path) {
		snprintf(jc->socket_path, sizeof(jc->socket_path), "%s", socket_path);
		fd = connect_path(socket_path, err, errlen);
	} else {
		fd = spawn_helper(helper_path, &jc->helper);
		if (fd < 0)
			snprintf(err, errlen, "cannot start the jailer helper %s: %s", helper_path,
				 strerror(-fd));
	}
	if (fd < 0 || attach(jc, fd, HELLO_TIMEOUT_MS, err, errlen) < 0) {
		if (fd >= 0)
			close(fd);
		if (fd >= 0 && !socket_path) {
			/* The usual cause: not installed, or not setuid root. */
			char why[256];
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen,
				 "the jailer helper %s did not start (installed 4750 root:<group> "
				 "and are you in the group?): %s",
				 helper_path, why);
			waitpid(jc->helper, NULL, 0);
		}
		free(jc);
		return NULL;
	}
	return jc;
}

void jailer_client_free(struct jailer_client *jc)
{
	if (!jc)
		return;
	probe_drop(jc);
	disconnect(jc);
	fail_all(jc);
	if (jc->helper > 0) {
		int st;
		waitpid(jc->helper, &st, 0);
	}
	free(jc);
}

const struct ipc_hello_ok *jailer_client_profiles(const struct jailer_client *jc)
{
	return &jc->hello;
}

const struct ipc_profile *jailer_client_find_profile(const struct jailer_client *jc,
						     const char *name)
{
	for (uint32_t i = 0; i < jc->hello.nprofiles; i++)
		if (strcmp(jc->hello.profiles[i].name, name) == 0)
			return &jc->hello.profiles[i];
	return NULL;
}

struct event_base *jailer_client_base(const struct jailer_client *jc)
{
	return jc->base;
}

uint64_t jailer_client_next_job_id(struct jailer_client *jc)
{
	return ++jc->next_id;
}

/* A restarted jailer (socket mode) is picked up on the next job.  This
 * HELLO waits in the event loop's thread, so only briefly: a jailer that
 * accepts and then does not answer costs the loop RECONNECT_TIMEOUT_MS,
 * and that job fails as internal. */
static int ensure_connected(struct jailer_client *jc)
{
	if (jc->fd >= 0)
		return 0;
	if (!jc->socket_path[0])
		return -ENOTCONN;
	char err[256];
	int fd = connect_path(jc->socket_path, err, sizeof(err));
	if (fd < 0)
		return fd;
	int rc = attach(jc, fd, RECONNECT_TIMEOUT_MS, err, sizeof(err));
	if (rc < 0) {
		close(fd);
		gw_log(GW_LOG_WARN, "reconnecting to the jailer: %s", err);
		return rc;
	}
	gw_log(GW_LOG_INFO, "reconnected to the jailer");
	return 0;
}

int jailer_client_send_run(struct jailer_client *jc, struct ipc_msg *run, jailer_reply_fn fn,
			   void *arg)
{
	int rc = ensure_connected(jc);
	if (rc < 0)
		return rc;
	struct pending *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	rc = ipc_send(jc->fd, run);
	if (rc < 0) {
		free(p);
		return rc;
	}
	p->job_id = run->u.run.job_id;
	p->fn = fn;
	p->arg = arg;
	p->next = jc->pending;
	jc->pending = p;
	return 0;
}

void jailer_client_forget(struct jailer_client *jc, uint64_t job_id)
{
	free(take_pending(jc, job_id));
}

/* A probe for /healthz: in socket mode a fresh connection and HELLO (the
 * jailer answers, not just "a socket was open once"); with the setuid
 * helper, whether its socketpair is still up.  Nothing here blocks: the
 * connection is non-blocking and the answer is awaited in the event loop,
 * for PROBE_TIMEOUT_MS at most. */
struct jailer_probe {
	struct jailer_client *jc;
	int fd;
	struct event *ev;
	jailer_probe_fn fn;
	void *arg;
	int rc; /* the answer when known before waiting (helper mode) */
};

static void probe_end(struct jailer_probe *p, int rc)
{
	jailer_probe_fn fn = p->fn;
	void *arg = p->arg;
	p->jc->probe = NULL;
	event_free(p->ev);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
	fn(rc, arg);
}

/* Shutting down: nobody waits for the answer any more. */
static void probe_drop(struct jailer_client *jc)
{
	struct jailer_probe *p = jc->probe;
	if (!p)
		return;
	jc->probe = NULL;
	event_free(p->ev);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

static void on_probe(evutil_socket_t fd, short what, void *arg)
{
	struct jailer_probe *p = arg;
	if (fd < 0) {
		probe_end(p, p->rc);
		return;
	}
	if (!(what & EV_READ)) {
		probe_end(p, -ETIMEDOUT);
		return;
	}
	static struct ipc_msg r;
	int derr = 0;
	int rc = ipc_recv(p->fd, &r, &derr);
	if (rc < 0) {
		probe_end(p, rc);
		return;
	}
	if (r.type != IPC_HELLO_OK) {
		ipc_close_fds(&r);
		probe_end(p, r.type == IPC_ERROR ? -EPERM : -EPROTO);
		return;
	}
	probe_end(p, 0);
}

int jailer_client_probe_start(struct jailer_client *jc, jailer_probe_fn fn, void *arg)
{
	if (jc->probe)
		return -EALREADY;
	struct jailer_probe *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->jc = jc;
	p->fn = fn;
	p->arg = arg;
	p->fd = -1;
	struct timeval tv = {.tv_sec = PROBE_TIMEOUT_MS / 1000,
			     .tv_usec = (PROBE_TIMEOUT_MS % 1000) * 1000};
	if (!jc->socket_path[0]) {
		/* The helper's socketpair: the answer is known now, but is
		 * given from the loop like any other. */
		p->rc = jc->fd >= 0 ? 0 : -ENOTCONN;
		p->ev = event_new(jc->base, -1, 0, on_probe, p);
		if (!p->ev) {
			free(p);
			return -ENOMEM;
		}
		event_active(p->ev, EV_TIMEOUT, 1);
		jc->probe = p;
		return 0;
	}
	char err[256];
	int fd = connect_path(jc->socket_path, err, sizeof(err));
	if (fd < 0) {
		free(p);
		return fd;
	}
	p->fd = fd;
	struct ipc_msg m = {.type = IPC_HELLO};
	int rc = fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ? -errno : 0;
	/* A jailer that refuses us may close before our HELLO is sent; its
	 * reason is still there to read, so a failed send is not the end. */
	if (rc == 0)
		(void)ipc_send(fd, &m);
	p->ev = rc == 0 ? event_new(jc->base, fd, EV_READ, on_probe, p) : NULL;
	if (!p->ev || event_add(p->ev, &tv) < 0) {
		if (p->ev)
			event_free(p->ev);
		close(fd);
		free(p);
		return rc < 0 ? rc : -ENOMEM;
	}
	jc->probe = p;
	return 0;
}
