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

/* ---- INI plumbing for the tenants file (tenants.c) ----
 * Thin names over common/ (ini.h, conf_value.h, conf_file.h), which the
 * jailer's policy parser uses too: one dialect and one value syntax for
 * every file an operator edits.  `[section]` headers, `key = value` lines,
 * whitespace around key and value trimmed, `#` or `;` at the start of a
 * line a comment, lines at most GW_INI_LINE_MAX characters, no NUL or
 * control characters.  Sizes take a K, M or G suffix (powers of 1024),
 * times an ms or s suffix (bare numbers are ms). */
#define GW_INI_LINE_MAX 4096u		   /* = INI_LINE_MAX */
#define GW_CONFIG_MAX_BYTES (256u * 1024u) /* the gateway config file */

struct gw_ini_ops {
	/* `inner` is the trimmed text between the brackets. */
	int (*section)(void *ctx, const char *inner, char *why, size_t whylen);
	/* Called for every key line inside a section; val may be "". */
	int (*key)(void *ctx, const char *key, const char *val, char *why, size_t whylen);
};

/* ini_parse (common/ini.h): walk the text line by line, calling ops; a
 * callback's negative return stops the walk and its `why` becomes
 * "NAME:LINE: ..." in err (NAME "(config)" when NULL).  Rejects
 * text over max_bytes, NUL bytes, overlong lines, control characters, keys
 * outside any section and malformed lines.  Returns 0 or -EINVAL. */
int gw_ini_parse(const char *text, size_t len, size_t max_bytes, const char *name,
		 const struct gw_ini_ops *ops, void *ctx, char *err, size_t errlen);

/* conf_read_file (common/conf_file.h): read a whole configuration file:
 * no symlink (O_NOFOLLOW), a regular file, at most max_bytes, none of the
 * mode bits in `forbidden_mode` set (e.g. S_IWOTH).  *buf is malloc'd
 * (NUL-terminated, *len without it).  Returns 0 or -errno (-ELOOP symlink,
 * -EPERM type or mode, -EFBIG size). */
int gw_read_config_file(const char *path, size_t max_bytes, unsigned forbidden_mode, char **buf,
			size_t *len, char *err, size_t errlen);

/* conf_value.h's parsers without bounds: 0 or -EINVAL with the reason in why. */
int gw_parse_count(const char *s, uint64_t *v, char *why, size_t whylen);
int gw_parse_size(const char *s, uint64_t *v, char *why, size_t whylen);
int gw_parse_time_ms(const char *s, uint64_t *v, char *why, size_t whylen);
int gw_parse_bool(const char *s, bool *b, char *why, size_t whylen);
__attribute__((format(printf, 3, 4))) void gw_set_err(char *err, size_t errlen, const char *fmt,
						      ...);

#endif
