/* See sd_service.h. */
#include "sd_service.h"

#include <event2/event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"

struct sd_service {
	struct event *watchdog;
};

static void notify(const char *state)
{
	int rc = sd_notify(0, state);
	if (rc < 0)
		gw_log(GW_LOG_WARN, "systemd notification failed: %s", strerror(-rc));
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	notify("WATCHDOG=1");
}

struct sd_service *sd_service_ready(struct event_base *base, const char *status)
{
	struct sd_service *s = calloc(1, sizeof(*s));
	char msg[256];
	uint64_t usec = 0;

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", status);
	notify(msg);
	if (!s)
		return NULL;
	/* > 0: the manager wants pings (and WATCHDOG_PID, if set, is us). */
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		uint64_t half = usec / 2;
		struct timeval tv = {.tv_sec = (time_t)(half / 1000000),
				     .tv_usec = (suseconds_t)(half % 1000000)};
		s->watchdog = event_new(base, -1, EV_PERSIST, on_watchdog, s);
		if (!s->watchdog || event_add(s->watchdog, &tv) < 0) {
			gw_log(GW_LOG_ERROR, "cannot start the systemd watchdog timer");
			if (s->watchdog)
				event_free(s->watchdog);
			s->watchdog = NULL;
		} else {
			notify("WATCHDOG=1");
		}
	}
	return s;
}

void sd_service_stopping(struct sd_service *s)
{
	(void)s;
	notify("STOPPING=1");
}

void sd_service_free(struct sd_service *s)
{
	if (!s)
		return;
	if (s->watchdog)
		event_free(s->watchdog);
	free(s);
}
