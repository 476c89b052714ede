/* libFuzzer target for ipc_decode.
 *
 * Input: byte 0 picks the fd count (value % 5, so 0..IPC_MAX_FDS), the rest
 * is the datagram.  The fds are dups of /dev/null made once and never closed
 * here: the decoder must not close or otherwise use them.
 *
 * Property: whatever decodes re-encodes to exactly the same bytes and fds
 * (the encoding is canonical), and that decodes again to the same message.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fake_fds[IPC_MAX_FDS];

static void open_fake_fds(void)
{
	static int done;
	if (done)
		return;
	int base = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (base < 0) {
		perror("open /dev/null");
		abort();
	}
	fake_fds[0] = base;
	for (size_t i = 1; i < IPC_MAX_FDS; i++) {
		fake_fds[i] = fcntl(base, F_DUPFD_CLOEXEC, 0);
		if (fake_fds[i] < 0) {
			perror("dup");
			abort();
		}
	}
	done = 1;
}

static struct ipc_msg msg1, msg2;
static uint8_t enc[IPC_MAX_MSG];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	open_fake_fds();
	size_t nfds = data[0] % (IPC_MAX_FDS + 1);
	data++;
	size--;

	if (ipc_decode(data, size, fake_fds, nfds, &msg1) != 0)
		return 0;

	int fds[IPC_MAX_FDS];
	size_t nfds2 = 0;
	ssize_t n = ipc_encode(&msg1, enc, sizeof(enc), fds, &nfds2);
	if (n < 0 || (size_t)n != size || memcmp(enc, data, size) != 0)
		abort();
	if (nfds2 != nfds || memcmp(fds, fake_fds, nfds * sizeof(int)) != 0)
		abort();
	if (ipc_decode(enc, (size_t)n, fds, nfds2, &msg2) != 0)
		abort();
	if (msg2.type != msg1.type || memcmp(&msg1, &msg2, sizeof(msg1)) != 0)
		abort();
	return 0;
}
