/* The gateway's configuration file (INI, default /etc/cellgate/cellgate.conf,
 * documented example etc/cellgate.conf).  Command-line flags override it.
 */
#ifndef CELLGATE_GW_CONFIG_H
#define CELLGATE_GW_CONFIG_H

/* PATH_MAX.  Not <limits.h>: under -Igateway that name finds gateway/limits.h. */
#include <linux/limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_CONFIG_DEFAULT_PATH "/etc/cellgate/cellgate.conf"
#define GW_MAX_ORIGINS 16
#define GW_MAX_HOSTS 16
#define GW_ADDR_MAX 128
#define GW_PATH_MAX 4096
#define GW_ORIGIN_MAX 256

enum gw_journald { GW_JOURNALD_AUTO = 0, GW_JOURNALD_YES, GW_JOURNALD_NO };

struct gw_config {
	/* [gateway] */
	char listen[GW_ADDR_MAX];	  /* "ADDR:PORT" or "[v6]:PORT"; default 127.0.0.1:8000 */
	char metrics_listen[GW_ADDR_MAX]; /* "" = /metrics and /healthz on `listen` */
	char tenants[GW_PATH_MAX];	  /* default /etc/cellgate/tenants.conf */
	char jailer_socket[GW_PATH_MAX];  /* "" = the default socket, else the setuid helper */
	char jailer[GW_PATH_MAX];	  /* setuid helper path; "" = built-in default */
	char stdio_tenant[64];		  /* tenant for --stdio and run; "" = built-in local */
	unsigned norigins;
	char allowed_origins[GW_MAX_ORIGINS][GW_ORIGIN_MAX]; /* exact "scheme://host[:port]" */
	unsigned nhosts;
	char allowed_hosts[GW_MAX_HOSTS][GW_ORIGIN_MAX]; /* host names, no port */
	/* [limits] */
	unsigned max_connections; /* per listen address; default 1024 */
	size_t max_body_bytes;	  /* default 4 MiB */
	/* A whole request within header + body timeouts; no read pause
	 * longer than the smaller (http_conn.h).  Defaults 10000, 30000. */
	unsigned header_timeout_ms;
	unsigned body_timeout_ms;
	unsigned max_sessions_per_tenant; /* default 64 */
	unsigned session_idle_timeout_s;  /* default 1800 */
	unsigned sse_keepalive_s;	  /* default 15 */
	size_t max_stream_buffer_bytes;	  /* per SSE stream not yet delivered; default 8 MiB */
	unsigned progress_interval_ms;	  /* default 1000 */
	size_t progress_message_bytes;	  /* output tail in a progress message; default 4096 */
	/* [audit] */
	char audit_file[GW_PATH_MAX]; /* "" = no file */
	enum gw_journald audit_journald;
	bool audit_fsync;    /* fdatasync after each record; default no */
	bool audit_log_code; /* include the code itself; default no */
};

void gw_config_defaults(struct gw_config *c);
/* Parse `path` over the defaults already in *c.  If the file does not exist
 * and must_exist is false, returns 0 leaving *c unchanged.  Fails closed on
 * unknown sections/keys and bad values (-1, message with file:line). */
int gw_config_load(const char *path, bool must_exist, struct gw_config *c, char *err,
		   size_t errlen);
int gw_config_parse(const char *text, size_t len, const char *name, struct gw_config *c, char *err,
		    size_t errlen);

/* Split "ADDR:PORT" / "[V6]:PORT" into host (no brackets) and port.  0 or -1. */
int gw_parse_listen(const char *s, char *host, size_t hostsize, uint16_t *port);

/* Limits of the file; the dialect and value syntax are common/'s (ini.h,
 * conf_value.h), shared with the tenants file and the jailer's policy. */
#define GW_INI_LINE_MAX 4096u		   /* = INI_LINE_MAX */
#define GW_CONFIG_MAX_BYTES (256u * 1024u) /* the gateway config file */

#endif
