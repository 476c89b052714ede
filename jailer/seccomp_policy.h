/* The cell's seccomp filter: a denylist of what a code runner never needs,
 * compiled with libseccomp, native architecture only (anything else kills the
 * process with SIGSYS).  Installed last, right before the interpreter runs. */
#ifndef CELLGATE_SECCOMP_POLICY_H
#define CELLGATE_SECCOMP_POLICY_H


#include <linux/filter.h>

/* Compile the filter once, at jailer start, into a BPF program (libseccomp
 * takes ~0.3 ms to generate it, which would otherwise be paid per job).
 * Returns 0 or -errno; out->filter is heap memory that lives as long as
 * the jailer. */
int seccomp_policy_compile(struct sock_fprog *out);

/* Install a compiled program in the calling process and verify it is
 * active.  Requires PR_SET_NO_NEW_PRIVS to be set already.  Returns 0 or
 * -errno. */
int seccomp_policy_install(const struct sock_fprog *prog);

#endif
