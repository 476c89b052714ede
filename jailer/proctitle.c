#include "proctitle.h"

#include <string.h>
#include <sys/prctl.h>

static char *area;
static size_t area_len;

void proctitle_init(int argc, char **argv)
{
	if (argc < 1 || !argv[0])
		return;
	/* The kernel lays argv strings out contiguously; the area the kernel
	 * reports as cmdline runs to the end of the last one. */
	char *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	area = argv[0];
	area_len = (size_t)(end - area);
}

void proctitle_set(const char *title)
{
	if (area && area_len > 0) {
		memset(area, 0, area_len);
		strncpy(area, title, area_len - 1);
	}
	prctl(PR_SET_NAME, title, 0, 0, 0);
}
