/* The limits one tenant gets for one profile: the jailer's defaults and
 * maxima (HELLO_OK) narrowed by the tenant's ceilings.  Used by execute to
 * validate and fill requests and by get_sandbox_info to show them.
 */
#ifndef CELLGATE_LIMITS_H
#define CELLGATE_LIMITS_H

#include "exec_backend.h"
#include "ipc.h"

struct profile_limits {
	const struct ipc_profile *profile; /* points into the HELLO_OK table */
	/* Per field: the smaller of the tenant ceiling and the jailer maximum,
	 * ignoring a 0 (unset) on either side; 0 only when both are unset. */
	struct ipc_limits maximum;
	/* Per field: the jailer default, lowered to `maximum`. */
	struct ipc_limits defaults;
};

/* Find profile `name` in both the jailer's table and the tenant's.
 * Returns 0, or -ENOENT when either lacks it (hello or tenant NULL too). */
int limits_for_profile(const struct ipc_hello_ok *hello, const struct tenant_limits *tenant,
		       const char *name, struct profile_limits *out);

/* The limits to put in a RUN so that the tenant's ceilings hold: a field
 * is 0 (the jailer's default) when that default is within the tenant's
 * ceiling, else the ceiling itself. */
void limits_request(const struct profile_limits *pl, struct ipc_limits *req);

#endif
