/* The production exec_backend: jobs through the jailer client (job.c),
 * and the local tenant built from the jailer's profile table.
 */
#include <stdio.h>
#include <string.h>

#include "exec_backend.h"
#include "jailer_client.h"
#include "job.h"

static const struct ipc_hello_ok *jailer_profiles(struct exec_backend *b)
{
	return jailer_client_profiles(b->impl);
}

static void *jailer_start(struct exec_backend *b, const struct job_request *req, job_done_fn done,
			  void *arg)
{
	return job_start(b->impl, req, done, arg);
}

static void jailer_cancel(struct exec_backend *b, void *handle)
{
	job_cancel(handle);
}

static uint64_t jailer_next_id(struct exec_backend *b)
{
	return jailer_client_next_job_id(b->impl);
}

static void jailer_peek(struct exec_backend *b, void *handle, const char **out, size_t *out_len,
			const char **err, size_t *err_len)
{
	job_peek(handle, out, out_len, err, err_len);
}

static void jailer_abandon(struct exec_backend *b, void *handle)
{
	job_abandon(handle);
}

void exec_backend_jailer(struct exec_backend *b, struct jailer_client *jc)
{
	b->profiles = jailer_profiles;
	b->start = jailer_start;
	b->cancel = jailer_cancel;
	b->abandon = jailer_abandon;
	b->next_id = jailer_next_id;
	b->peek = jailer_peek;
	b->impl = jc;
}

void tenant_limits_from_profiles(struct tenant_limits *t, const char *name,
				 const struct ipc_hello_ok *hello)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
	for (uint32_t i = 0; hello && i < hello->nprofiles && i < IPC_MAX_PROFILES; i++) {
		const struct ipc_profile *p = &hello->profiles[i];
		snprintf(t->profiles[t->nprofiles].profile, sizeof(t->profiles[0].profile), "%s",
			 p->name);
		t->profiles[t->nprofiles].maximum = p->maximum;
		t->nprofiles++;
		/* Each profile still decides for itself; the tenant only
		 * forbids the network when no profile offers it. */
		if (p->network)
			t->network = true;
	}
}
