#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *log_prefix = "cellgate-jailer";

void log_set_prefix(const char *prefix)
{
	log_prefix = prefix;
}

static void vlog(const char *level, int err, const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "%s[%d]: %s", log_prefix, (int)getpid(), level);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (m < 0)
		return;
	size_t used = strnlen(line, sizeof(line) - 1);
	if (err)
		snprintf(line + used, sizeof(line) - used, ": %s", strerror(err < 0 ? -err : err));
	/* One write per line so lines from concurrent supervisors don't interleave. */
	used = strnlen(line, sizeof(line) - 2);
	line[used++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, used);
	(void)w;
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog("", 0, fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog("warning: ", 0, fmt, ap);
	va_end(ap);
}

void log_errno(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog("warning: ", err, fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog("fatal: ", 0, fmt, ap);
	va_end(ap);
	exit(1);
}
