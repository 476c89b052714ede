/* The cell's filesystem, built in the child's own mount namespace: a fresh
 * tmpfs root with read-only, nosuid, nodev binds of the profile's paths
 * (never anything from the request), a fresh /proc, a minimal /dev, per-job
 * tmpfs /tmp and /dev/shm with size caps, generated /etc files, the code in
 * /code, then pivot_root and the old root detached. */
#ifndef CELLGATE_CELL_FS_H
#define CELLGATE_CELL_FS_H

#include <stddef.h>

struct cell_spec;

/* Returns 0, or -errno with the failing step named in `what`. */
int cell_fs_build(const struct cell_spec *spec, char *what, size_t whatlen);

#endif
