/* Sealed memfds: how code and stdin travel to the jailer.  Once sealed, the
 * sender can no longer change the bytes the jailer checked, so there is no
 * time-of-check/time-of-use window on the content or the size.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc.h"

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ipc_memfd_sealed(const char *name, const void *data, size_t len)
{
	if (!name || (len > 0 && !data))
		return -EINVAL;
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;

	int rc = write_all(fd, data, len);
	if (rc == 0 && fcntl(fd, F_ADD_SEALS, IPC_REQUIRED_SEALS) < 0)
		rc = -errno;
	if (rc == 0 && lseek(fd, 0, SEEK_SET) < 0)
		rc = -errno;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int ipc_memfd_check(int fd, size_t max_bytes, size_t *size)
{
	if (fd < 0)
		return -EBADF;
	/* Only memfds (and other shmem files) support seals; anything else
	 * fails here with EINVAL. */
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return -errno;
	if ((seals & IPC_REQUIRED_SEALS) != IPC_REQUIRED_SEALS)
		return -EPERM;

	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < 0)
		return -EINVAL;
	if ((uint64_t)st.st_size > (uint64_t)max_bytes)
		return -EFBIG;
	if (size)
		*size = (size_t)st.st_size;
	return 0;
}
