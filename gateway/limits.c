/* Effective per-tenant, per-profile limits (see limits.h). */
#include "limits.h"

#include <errno.h>
#include <string.h>

static uint64_t min_set(uint64_t a, uint64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

static uint64_t lowered(uint64_t def, uint64_t max)
{
	return max != 0 && (def == 0 || def > max) ? max : def;
}

int limits_for_profile(const struct ipc_hello_ok *hello, const struct tenant_limits *tenant,
		       const char *name, struct profile_limits *out)
{
	const struct ipc_profile *jp = NULL;
	const struct ipc_limits *ceiling = NULL;

	memset(out, 0, sizeof(*out));
	if (!hello || !tenant || !name)
		return -ENOENT;
	for (uint32_t i = 0; i < hello->nprofiles && i < IPC_MAX_PROFILES; i++) {
		if (strcmp(hello->profiles[i].name, name) == 0) {
			jp = &hello->profiles[i];
			break;
		}
	}
	for (unsigned i = 0; i < tenant->nprofiles && i < IPC_MAX_PROFILES; i++) {
		if (strcmp(tenant->profiles[i].profile, name) == 0) {
			ceiling = &tenant->profiles[i].maximum;
			break;
		}
	}
	if (!jp || !ceiling)
		return -ENOENT;

	out->profile = jp;
	out->maximum.wall_ms = min_set(ceiling->wall_ms, jp->maximum.wall_ms);
	out->maximum.cpu_ms = min_set(ceiling->cpu_ms, jp->maximum.cpu_ms);
	out->maximum.memory_bytes = min_set(ceiling->memory_bytes, jp->maximum.memory_bytes);
	out->maximum.pids = min_set(ceiling->pids, jp->maximum.pids);
	out->maximum.tmpfs_bytes = min_set(ceiling->tmpfs_bytes, jp->maximum.tmpfs_bytes);
	out->maximum.output_bytes = min_set(ceiling->output_bytes, jp->maximum.output_bytes);

	out->defaults.wall_ms = lowered(jp->defaults.wall_ms, out->maximum.wall_ms);
	out->defaults.cpu_ms = lowered(jp->defaults.cpu_ms, out->maximum.cpu_ms);
	out->defaults.memory_bytes = lowered(jp->defaults.memory_bytes, out->maximum.memory_bytes);
	out->defaults.pids = lowered(jp->defaults.pids, out->maximum.pids);
	out->defaults.tmpfs_bytes = lowered(jp->defaults.tmpfs_bytes, out->maximum.tmpfs_bytes);
	out->defaults.output_bytes = lowered(jp->defaults.output_bytes, out->maximum.output_bytes);
	return 0;
}

void limits_request(const struct profile_limits *pl, struct ipc_limits *req)
{
	const struct ipc_limits *jd = &pl->profile->defaults;

	req->wall_ms = pl->defaults.wall_ms == jd->wall_ms ? 0 : pl->defaults.wall_ms;
	req->cpu_ms = pl->defaults.cpu_ms == jd->cpu_ms ? 0 : pl->defaults.cpu_ms;
	req->memory_bytes =
	    pl->defaults.memory_bytes == jd->memory_bytes ? 0 : pl->defaults.memory_bytes;
	req->pids = pl->defaults.pids == jd->pids ? 0 : pl->defaults.pids;
	req->tmpfs_bytes =
	    pl->defaults.tmpfs_bytes == jd->tmpfs_bytes ? 0 : pl->defaults.tmpfs_bytes;
	req->output_bytes =
	    pl->defaults.output_bytes == jd->output_bytes ? 0 : pl->defaults.output_bytes;
}
