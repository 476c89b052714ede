/* `cellgate run`: one program through the sandbox from a terminal, without
 * an MCP client.  Prints the program's stdout and stderr as they were, then
 * a one-line summary on stderr. */
#ifndef CELLGATE_RUN_CLI_H
#define CELLGATE_RUN_CLI_H

struct run_options {
	const char *language; /* profile name; default "python" */
	double timeout_s;     /* 0: the profile's default */
	const char *file;     /* path or "-" for stdin */
	const char *jailer_socket;
	const char *jailer_path;
};

/* Exit status: the program's own exit code; 128+N when killed by signal N;
 * 124 timeout; 125 memory, output or other limit; 70 sandbox failure; 2 usage. */
int run_cli(const struct run_options *opt);

#endif
