/* Jailer logging: stderr (journald captures it under systemd).  Messages
 * never include job code, output or anything the gateway sent verbatim
 * beyond ids and profile names. */
#ifndef CELLGATE_JAILER_LOG_H
#define CELLGATE_JAILER_LOG_H

#include <stdnoreturn.h>

void log_set_prefix(const char *prefix);
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log_warn with ": strerror(-err)" appended. */
void log_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
