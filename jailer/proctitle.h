/* Rewrite what /proc/PID/cmdline shows for a process forked from the jailer
 * without exec.  The cell's init is such a fork, and /proc/1/cmdline is
 * readable by the sandboxed program: it must not show where the jailer
 * lives or its socket and policy paths. */
#ifndef CELLGATE_PROCTITLE_H
#define CELLGATE_PROCTITLE_H

/* Remember the argv area; call first thing in main. */
void proctitle_init(int argc, char **argv);

/* Overwrite the whole argv area with `title` and NULs, and set the
 * process name (comm) to it as well. */
void proctitle_set(const char *title);

#endif
