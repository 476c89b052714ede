#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static enum gw_log_level threshold = GW_LOG_INFO;

void gw_log_set_level(enum gw_log_level level)
{
	threshold = level;
}

void gw_log(enum gw_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	if (level > threshold)
		return;
	char line[1024];
	int n = snprintf(line, sizeof(line), "cellgate: %s: ", names[level]);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = strnlen(line, sizeof(line) - 2);
	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}
