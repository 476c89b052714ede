/* cellgate: the unprivileged MCP gateway.  See cellgate --help. */
#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exec_backend.h"
#include "jailer_client.h"
#include "log.h"
#include "mcp.h"
#include "run_cli.h"
#include "transport_stdio.h"

#define STDIO_MAX_CONCURRENT_JOBS 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cellgate --stdio [--jailer-socket PATH] [--jailer PATH]\n"
		"       cellgate run [--language python|javascript] [--timeout SECONDS]\n"
		"                    [--jailer-socket PATH] [--jailer PATH] FILE|-\n"
		"  --stdio          serve MCP on stdin/stdout (logs go to stderr)\n"
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

static int serve_stdio(const char *sock, const char *helper)
{
	struct event_base *base = stdio_event_base();
	if (!base)
		return 1;
	char err[512];
	struct jailer_client *jc = jailer_client_connect(base, sock, helper, err, sizeof(err));
	if (!jc) {
		gw_log(GW_LOG_ERROR, "%s", err);
		event_base_free(base);
		return 1;
	}
	static struct tenant_limits local;
	tenant_limits_from_profiles(&local, "local", jailer_client_profiles(jc));
	struct exec_backend backend;
	exec_backend_jailer(&backend, jc);
	struct mcp_config cfg = {
		.server_name = "cellgate",
		.server_version = CELLGATE_VERSION,
		.max_concurrent_jobs = STDIO_MAX_CONCURRENT_JOBS,
		.tenant = &local,
	};
	int rc = stdio_serve(base, &cfg, &backend);
	jailer_client_free(jc);
	event_base_free(base);
	return rc;
}

int main(int argc, char **argv)
{
	const char *sock = NULL, *helper = CELLGATE_JAILER_PATH;
	bool stdio = false;
	struct run_options ro = {0};
	bool run = argc > 1 && strcmp(argv[1], "run") == 0;
	if (run) {
		argv++;
		argc--;
	}
	static const struct option opts[] = {
		{"stdio", no_argument, NULL, 's'},
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
	if (!stdio || optind != argc || ro.language || ro.timeout_s > 0) {
		usage(stderr);
		return 2;
	}
	return serve_stdio(sock, helper);
}
