/* The cell's seccomp filter: a denylist of what a code runner never needs,
 * compiled with libseccomp, native architecture only (anything else kills the
 * process with SIGSYS).  Installed last, right before the interpreter runs. */
#ifndef CELLGATE_SECCOMP_POLICY_H
#define CELLGATE_SECCOMP_POLICY_H

#include <stdbool.h>

/* Build and load the filter into the calling process.  `network` allows the
 * socket families a networked profile needs (it never allows more than
 * AF_UNIX, AF_INET, AF_INET6 either way; without network the cell has only
 * loopback anyway).  Requires PR_SET_NO_NEW_PRIVS to be set already.
 * Returns 0 or -errno. */
int seccomp_policy_load(bool network);

#endif
