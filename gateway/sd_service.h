/* Telling systemd how the gateway is doing (Type=notify): READY=1 once it
 * listens, WATCHDOG=1 from the event loop at half the unit's WatchdogSec
 * (so a stuck loop gets the service restarted), STOPPING=1 on shutdown.
 * Without $NOTIFY_SOCKET every call does nothing.
 */
#ifndef CELLGATE_SD_SERVICE_H
#define CELLGATE_SD_SERVICE_H

struct event_base;
struct sd_service;

/* Send READY=1 with a STATUS= line and start the watchdog timer when the
 * service manager asked for one.  NULL only when memory runs out (the
 * caller goes on: systemd then times the start out, which is the honest
 * outcome). */
struct sd_service *sd_service_ready(struct event_base *base, const char *status);
void sd_service_stopping(struct sd_service *s);
void sd_service_free(struct sd_service *s);

#endif
