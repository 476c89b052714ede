/* cellgate: the unprivileged MCP gateway.  See cellgate --help. */
#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit_cli.h"
#include "exec_backend.h"
#include "gw_config.h"
#include "http_gateway.h"
#include "http_server.h"
#include "jailer_client.h"
#include "job_watch.h"
#include "key_cli.h"
#include "log.h"
#include "mcp.h"
#include "ratelimit.h"
#include "run_cli.h"
#include "tenants.h"
#include "transport_stdio.h"

#define STDIO_MAX_CONCURRENT_JOBS 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cellgate --stdio [--config FILE] [--jailer-socket PATH] [--jailer PATH]\n"
		"       cellgate --listen ADDR:PORT [--config FILE] [--jailer-socket PATH]\n"
		"       cellgate --config FILE [--jailer-socket PATH]\n"
		"       cellgate key new --tenant NAME\n"
		"       cellgate audit verify FILE\n"
		"       cellgate run [--language python|javascript] [--timeout SECONDS]\n"
		"                    [--jailer-socket PATH] [--jailer PATH] FILE|-\n"
		"  --stdio          serve MCP on stdin/stdout (logs go to stderr)\n"
		"  --listen         serve MCP over HTTP: Streamable HTTP at /mcp, HTTP+SSE at\n"
		"                   /sse and /messages, /healthz, /metrics (overrides the\n"
		"                   configuration's `listen`)\n"
		"  --config FILE    gateway configuration (default " GW_CONFIG_DEFAULT_PATH ");\n"
		"                   given alone, serve HTTP on its `listen` address\n"
		"  --jailer-socket  the jailer's socket (default " JAILER_DEFAULT_SOCKET
		" when present,\n"
		"                   else the setuid helper is started)\n"
		"  --jailer PATH    the setuid helper to start (default " CELLGATE_JAILER_PATH ")\n"
		"  --verbose        debug logging on stderr\n");
}

/* epoll refuses regular files, so `cellgate --stdio <requests >replies`
 * would fail; poll(2) treats them as always ready, which is right. */
static struct event_base *stdio_event_base(void)
{
	bool regular = false;
	for (int fd = 0; fd < 2; fd++) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			regular = true;
	}
	if (!regular)
		return event_base_new();
	struct event_config *c = event_config_new();
	if (!c)
		return NULL;
	event_config_avoid_method(c, "epoll");
	struct event_base *base = event_base_new_with_config(c);
	event_config_free(c);
	return base;
}

/* --stdio: the caller is the configured stdio tenant (its languages,
 * ceilings, concurrency and quota), or without one the built-in "local"
 * tenant with every profile at its maximum.  Jobs are audited when the
 * configuration names an audit log. */
static int serve_stdio(const char *config_path, const char *sock, const char *helper)
{
	static struct gw_config gc;
	static struct tenant_limits local;
	static struct tenant_state ts;
	static struct job_watch watch;
	struct tenant_table tenants = {0};
	struct audit *audit = NULL;
	struct job_observer obs;
	char err[512];
	int rc = 1;

	gw_config_defaults(&gc);
	if (gw_config_load(config_path ? config_path : GW_CONFIG_DEFAULT_PATH, config_path != NULL,
			   &gc, err, sizeof(err)) < 0) {
		gw_log(GW_LOG_ERROR, "%s", err);
		return 1;
	}
	if (!sock && gc.jailer_socket[0])
		sock = gc.jailer_socket;
	if (gc.jailer[0] && strcmp(helper, CELLGATE_JAILER_PATH) == 0)
		helper = gc.jailer;
	const struct tenant *t = NULL;
	if (gc.stdio_tenant[0]) {
		if (tenants_load(gc.tenants, &tenants, err, sizeof(err)) < 0) {
			gw_log(GW_LOG_ERROR, "%s", err);
			return 1;
		}
		t = tenants_find(&tenants, gc.stdio_tenant);
		if (!t) {
			gw_log(GW_LOG_ERROR, "stdio_tenant \"%s\" is not in %s", gc.stdio_tenant,
			       gc.tenants);
			tenants_free(&tenants);
			return 1;
		}
	}
	if (gc.audit_file[0] || gc.audit_journald == GW_JOURNALD_YES) {
		struct audit_options ao = {
		    .file = gc.audit_file,
		    .journald = gc.audit_journald == GW_JOURNALD_AUTO  ? 0
				: gc.audit_journald == GW_JOURNALD_YES ? 1
								       : 2,
		    .fsync = gc.audit_fsync,
		    .log_code = gc.audit_log_code,
		};
		audit = audit_open(&ao, err, sizeof(err));
		if (!audit) {
			gw_log(GW_LOG_ERROR, "audit: %s", err);
			tenants_free(&tenants);
			return 1;
		}
	}
	struct event_base *base = stdio_event_base();
	struct jailer_client *jc = NULL;
	if (!base)
		goto out;
	jc = jailer_client_connect(base, sock, helper, err, sizeof(err));
	if (!jc) {
		gw_log(GW_LOG_ERROR, "%s", err);
		goto out;
	}
	struct mcp_config cfg = {
		.server_name = "cellgate",
		.server_version = CELLGATE_VERSION,
		.max_concurrent_jobs = STDIO_MAX_CONCURRENT_JOBS,
		.tenant = &local,
		.observer = &obs,
		.base = base,
		.progress_interval_ms = gc.progress_interval_ms,
		.progress_message_bytes = gc.progress_message_bytes,
	};
	watch.audit = audit;
	watch.transport = "stdio";
	snprintf(watch.client, sizeof(watch.client), "stdio");
	watch.log_code = gc.audit_log_code;
	if (t) {
		ts.tenant = t;
		tenant_limits_for(t, jailer_client_profiles(jc), &local);
		cpu_quota_init(&ts.usage.cpu, t->cpu_seconds_per_hour * 1000);
		ts.usage.max_jobs = t->max_concurrent_jobs;
		cfg.max_concurrent_jobs = t->max_concurrent_jobs;
		watch.ts = &ts;
		watch.tenant = t->name;
	} else {
		tenant_limits_from_profiles(&local, "local", jailer_client_profiles(jc));
		watch.tenant = "local";
	}
	job_watch_observer(&watch, &obs);
	struct exec_backend backend;
	exec_backend_jailer(&backend, jc);
	rc = stdio_serve(base, &cfg, &backend);
out:
	if (jc)
		jailer_client_free(jc);
	if (base)
		event_base_free(base);
	if (audit)
		audit_close(audit);
	tenants_free(&tenants);
	return rc;
}

int main(int argc, char **argv)
{
	const char *sock = NULL, *helper = CELLGATE_JAILER_PATH;
	const char *config = NULL, *listen = NULL;
	bool stdio = false;
	if (argc > 1 && strcmp(argv[1], "key") == 0)
		return key_cli(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "audit") == 0)
		return audit_cli(argc - 1, argv + 1);
	struct run_options ro = {0};
	bool run = argc > 1 && strcmp(argv[1], "run") == 0;
	if (run) {
		argv++;
		argc--;
	}
	static const struct option opts[] = {
		{"stdio", no_argument, NULL, 's'},
		{"listen", required_argument, NULL, 'L'},
		{"config", required_argument, NULL, 'c'},
		{"jailer-socket", required_argument, NULL, 'j'},
		{"jailer", required_argument, NULL, 'J'},
		{"language", required_argument, NULL, 'l'},
		{"timeout", required_argument, NULL, 't'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			stdio = true;
			break;
		case 'L':
			listen = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'j':
			sock = optarg;
			break;
		case 'J':
			helper = optarg;
			break;
		case 'l':
			ro.language = optarg;
			break;
		case 't': {
			char *end;
			errno = 0;
			ro.timeout_s = strtod(optarg, &end);
			if (errno || *end || !(ro.timeout_s > 0)) {
				fprintf(stderr, "cellgate: --timeout takes a positive number of "
						"seconds\n");
				return 2;
			}
			break;
		}
		case 'v':
			gw_log_set_level(GW_LOG_DEBUG);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("cellgate %s\n", CELLGATE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (run) {
		if (stdio || optind != argc - 1) {
			usage(stderr);
			return 2;
		}
		ro.file = argv[optind];
		ro.jailer_socket = sock;
		ro.jailer_path = helper;
		return run_cli(&ro);
	}
	/* HTTP is asked for with --listen, or with --config alone (the service:
	 * the address is the file's `listen`, so the file is the one place to
	 * change it).  A bare `cellgate` stays a usage error rather than
	 * quietly opening a port. */
	bool http = listen || (config && !stdio);
	if ((stdio && listen) || (!stdio && !http) || optind != argc || ro.language ||
	    ro.timeout_s > 0) {
		usage(stderr);
		return 2;
	}
	if (http)
		return http_serve(config, listen, sock,
				  strcmp(helper, CELLGATE_JAILER_PATH) ? helper : NULL);
	return serve_stdio(config, sock, helper);
}
