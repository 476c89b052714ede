/* Writes the seed corpus for fuzz_ipc_decode: one valid message of each
 * type, in the fuzzer's input format (byte 0 = fd count, then the bytes).
 * Run by hand once; the output files are committed:
 *   cc -std=c17 -D_GNU_SOURCE -Iipc-proto -o /tmp/gen tests/fuzz/gen_ipc_corpus.c \
 *      ipc-proto/ipc_codec.c && /tmp/gen tests/fuzz/corpus/ipc_decode
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc.h"

static struct ipc_msg m;

static void emit(const char *dir, const char *name)
{
	static uint8_t buf[IPC_MAX_MSG];
	int fds[IPC_MAX_FDS];
	size_t nfds;
	char path[512];
	ssize_t n = ipc_encode(&m, buf, sizeof(buf), fds, &nfds);
	if (n < 0) {
		fprintf(stderr, "%s: encode failed: %zd\n", name, n);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	uint8_t nb = (uint8_t)nfds;
	if (!f || fwrite(&nb, 1, 1, f) != 1 || fwrite(buf, 1, (size_t)n, f) != (size_t)n ||
	    fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	memset(&m, 0, sizeof(m));
}

static void limits(struct ipc_limits *l, uint64_t k)
{
	l->wall_ms = 10000 * k;
	l->cpu_ms = 10000 * k;
	l->memory_bytes = (256ull << 20) * k;
	l->pids = 64 * k;
	l->tmpfs_bytes = (64ull << 20) * k;
	l->output_bytes = (1ull << 20) * k;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1];

	m.type = IPC_HELLO;
	emit(dir, "hello");

	m.type = IPC_HELLO_OK;
	m.u.hello_ok.nprofiles = 2;
	strcpy(m.u.hello_ok.profiles[0].name, "python");
	strcpy(m.u.hello_ok.profiles[0].language, "python");
	strcpy(m.u.hello_ok.profiles[0].interpreter, "/usr/bin/python3");
	limits(&m.u.hello_ok.profiles[0].defaults, 1);
	limits(&m.u.hello_ok.profiles[0].maximum, 4);
	strcpy(m.u.hello_ok.profiles[1].name, "javascript");
	strcpy(m.u.hello_ok.profiles[1].language, "javascript");
	strcpy(m.u.hello_ok.profiles[1].interpreter, "/usr/bin/node");
	limits(&m.u.hello_ok.profiles[1].defaults, 1);
	limits(&m.u.hello_ok.profiles[1].maximum, 2);
	m.u.hello_ok.profiles[1].network = 1;
	emit(dir, "hello_ok");

	m.type = IPC_RUN;
	m.u.run.job_id = 1;
	strcpy(m.u.run.profile, "python");
	m.u.run.code_fd = 3;
	m.u.run.stdin_fd = -1;
	emit(dir, "run");

	m.type = IPC_RUN;
	m.u.run.job_id = 0xfffffffffffull;
	strcpy(m.u.run.profile, "javascript");
	limits(&m.u.run.limits, 1);
	m.u.run.nenv = 2;
	strcpy(m.u.run.env[0], "LANG=C.UTF-8");
	strcpy(m.u.run.env[1], "TZ=UTC");
	m.u.run.code_fd = 3;
	m.u.run.stdin_fd = 4;
	emit(dir, "run_stdin_env");

	m.type = IPC_RUN_OK;
	m.u.run_ok.job_id = 1;
	limits(&m.u.run_ok.limits, 1);
	m.u.run_ok.stdout_fd = 3;
	m.u.run_ok.stderr_fd = 4;
	m.u.run_ok.control_fd = 5;
	emit(dir, "run_ok");

	m.type = IPC_RUN_ERR;
	m.u.run_err.job_id = 2;
	m.u.run_err.reason = IPC_ERR_LIMIT;
	strcpy(m.u.run_err.message, "wall_ms 90000 above the profile maximum 30000");
	emit(dir, "run_err");

	m.type = IPC_CANCEL;
	m.u.cancel.reason = IPC_CANCEL_OUTPUT_LIMIT;
	emit(dir, "cancel");

	m.type = IPC_RESULT;
	m.u.result.status = IPC_ST_SIGNAL;
	m.u.result.exit_code = -1;
	m.u.result.signal = 9;
	m.u.result.wall_ms = 12;
	m.u.result.cpu_user_ms = 8;
	m.u.result.cpu_sys_ms = 3;
	m.u.result.memory_peak_bytes = 9 << 20;
	emit(dir, "result");

	m.type = IPC_ERROR;
	m.u.error.code = IPC_E_VERSION;
	m.u.error.peer_version = 2;
	strcpy(m.u.error.message, "jailer speaks ipc version 1, gateway sent 2");
	emit(dir, "error");
	return 0;
}
