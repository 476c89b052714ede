/* ipc-proto: the wire format between the gateway and the jailer.
 *
 * Transport is AF_UNIX SOCK_SEQPACKET: one message is one datagram of at most
 * IPC_MAX_MSG bytes.  File descriptors travel as SCM_RIGHTS with the message
 * that names them.  A message is a fixed 16-byte header followed by the
 * payload; all integers are little-endian; every string is a u32 length
 * followed by that many bytes (no NUL inside, no terminator on the wire).
 *
 * The decoder (ipc_decode) is a pure function over (bytes, fds): it never
 * performs I/O, never trusts a length, and rejects trailing bytes, unknown
 * types, wrong fd counts and out-of-range values.  Both sides decode everything
 * they receive through it.
 */
#ifndef CELLGATE_IPC_H
#define CELLGATE_IPC_H

#include <fcntl.h> /* F_SEAL_* in IPC_REQUIRED_SEALS */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IPC_MAGIC 0x50494743u /* "CGIP" little-endian */
#define IPC_VERSION 1u
#define IPC_HDR_SIZE 16u
#define IPC_MAX_MSG 65536u
#define IPC_MAX_FDS 4u

#define IPC_MAX_PROFILES 16u
#define IPC_MAX_NAME 64u      /* profile names, language names */
#define IPC_MAX_PATH 256u     /* interpreter path shown in HELLO_OK */
#define IPC_MAX_ENV 32u       /* environment entries in RUN */
#define IPC_MAX_ENV_LEN 1024u /* one "KEY=VALUE" entry */
#define IPC_MAX_MESSAGE 512u  /* human-readable error text */

/* Largest code and stdin memfds the jailer accepts (it re-checks with fstat). */
#define IPC_MAX_CODE_BYTES (1u << 20)
#define IPC_MAX_STDIN_BYTES (1u << 20)

enum ipc_type {
	IPC_HELLO = 1,    /* gw -> jailer: no payload; header carries version   */
	IPC_HELLO_OK = 2, /* jailer -> gw: profiles and their ceilings          */
	IPC_RUN = 3,      /* gw -> jailer: fds code memfd [, stdin memfd]       */
	IPC_RUN_OK = 4,   /* jailer -> gw: fds stdout, stderr, control socket   */
	IPC_RUN_ERR = 5,  /* jailer -> gw: typed reason                         */
	IPC_CANCEL = 6,   /* gw -> supervisor on the control socket             */
	IPC_RESULT = 7,   /* supervisor -> gw on the control socket, exactly once */
	IPC_ERROR = 8,    /* either way: protocol error (e.g. version mismatch) */
};

/* Limits a job runs under.  In RUN a zero field means "the profile's
 * default"; the jailer clamps nothing silently: a request above the
 * profile's maximum is refused with IPC_ERR_LIMIT. */
struct ipc_limits {
	uint64_t wall_ms;
	uint64_t cpu_ms;
	uint64_t memory_bytes;
	uint64_t pids;
	uint64_t tmpfs_bytes;
	uint64_t output_bytes; /* per stream; enforced by the gateway on the fds */
};

struct ipc_profile {
	char name[IPC_MAX_NAME + 1];     /* e.g. "python" */
	char language[IPC_MAX_NAME + 1]; /* e.g. "python", "javascript" */
	char interpreter[IPC_MAX_PATH + 1];
	struct ipc_limits defaults;
	struct ipc_limits maximum;
	uint8_t network; /* 0 = no network (loopback only), 1 = host network allowed */
};

struct ipc_hello_ok {
	uint32_t nprofiles;
	struct ipc_profile profiles[IPC_MAX_PROFILES];
};

struct ipc_run {
	uint64_t job_id;
	char profile[IPC_MAX_NAME + 1];
	struct ipc_limits limits;
	uint32_t nenv;
	char env[IPC_MAX_ENV][IPC_MAX_ENV_LEN + 1];
	int code_fd;  /* sealed memfd, always present */
	int stdin_fd; /* sealed memfd or -1 */
};

struct ipc_run_ok {
	uint64_t job_id;
	struct ipc_limits limits; /* the effective limits after defaults applied */
	int stdout_fd;
	int stderr_fd;
	int control_fd;
};

enum ipc_run_err_reason {
	IPC_ERR_BAD_REQUEST = 1, /* malformed or inconsistent request */
	IPC_ERR_PROFILE = 2,     /* unknown profile */
	IPC_ERR_LIMIT = 3,       /* a requested limit above the profile maximum */
	IPC_ERR_CODE = 4,        /* code memfd not sealed, too large, not a memfd */
	IPC_ERR_ENV = 5,         /* environment entry not allowed by policy */
	IPC_ERR_BUSY = 6,        /* no free job slot */
	IPC_ERR_INTERNAL = 7,    /* the jailer failed to build the cell */
	IPC_ERR_REASON_MAX = 7,
};

struct ipc_run_err {
	uint64_t job_id;
	uint32_t reason;
	char message[IPC_MAX_MESSAGE + 1];
};

enum ipc_cancel_reason {
	IPC_CANCEL_REQUESTED = 1,   /* the client cancelled the request */
	IPC_CANCEL_OUTPUT_LIMIT = 2, /* the gateway saw a stream pass its cap */
	IPC_CANCEL_REASON_MAX = 2,
};

struct ipc_cancel {
	uint32_t reason;
};

enum ipc_status {
	IPC_ST_OK = 0,        /* exited with code 0 */
	IPC_ST_EXIT = 1,      /* exited with a non-zero code */
	IPC_ST_SIGNAL = 2,    /* killed by a signal it did not get from us */
	IPC_ST_TIMEOUT = 3,   /* wall or CPU limit */
	IPC_ST_MEMORY = 4,    /* the OOM killer fired in the job's cgroup */
	IPC_ST_OUTPUT_LIMIT = 5,
	IPC_ST_SECCOMP = 6,   /* killed by SIGSYS */
	IPC_ST_CANCELLED = 7,
	IPC_ST_INTERNAL = 8,  /* the sandbox failed; the code may not have run */
	IPC_ST_MAX = 8,
};

struct ipc_result {
	uint32_t status;
	int32_t exit_code; /* valid for OK/EXIT, else -1 */
	int32_t signal;    /* valid for SIGNAL/SECCOMP (and kills we sent), else 0 */
	uint64_t wall_ms;
	uint64_t cpu_user_ms;
	uint64_t cpu_sys_ms;
	uint64_t memory_peak_bytes;
	uint8_t oom_killed;
	char message[IPC_MAX_MESSAGE + 1]; /* for INTERNAL: what failed */
};

enum ipc_error_code {
	IPC_E_VERSION = 1, /* message names both versions */
	IPC_E_PROTOCOL = 2,
	IPC_E_DENIED = 3, /* peer credentials not allowed */
	IPC_E_CODE_MAX = 3,
};

struct ipc_error {
	uint32_t code;
	uint32_t peer_version; /* for IPC_E_VERSION: the version the sender speaks */
	char message[IPC_MAX_MESSAGE + 1];
};

/* A decoded message.  Fds in it are owned by the caller after a successful
 * decode; on failure ipc_decode closes none of them (the caller still owns
 * every received fd and must close them: see ipc_close_fds). */
struct ipc_msg {
	uint16_t type;
	uint16_t version; /* from the header */
	union {
		struct ipc_hello_ok hello_ok;
		struct ipc_run run;
		struct ipc_run_ok run_ok;
		struct ipc_run_err run_err;
		struct ipc_cancel cancel;
		struct ipc_result result;
		struct ipc_error error;
	} u;
};

/* Decode errors, returned negated from ipc_decode. */
enum ipc_decode_error {
	IPC_DEC_SHORT = 1,    /* shorter than the header */
	IPC_DEC_MAGIC,        /* wrong magic */
	IPC_DEC_VERSION,      /* version != IPC_VERSION (msg->version is set) */
	IPC_DEC_LENGTH,       /* header length != bytes received - header */
	IPC_DEC_TYPE,         /* unknown type */
	IPC_DEC_TRUNCATED,    /* a field runs past the end */
	IPC_DEC_TRAILING,     /* bytes left after the last field */
	IPC_DEC_STRING,       /* string too long or contains NUL */
	IPC_DEC_RANGE,        /* enum or count out of range */
	IPC_DEC_FDS,          /* wrong number of fds for the type */
	IPC_DEC_MAX_ERROR
};

const char *ipc_decode_strerror(int err); /* err is the positive enum value */
const char *ipc_status_name(uint32_t status); /* "ok", "exit", ... ; "unknown" */
int ipc_status_from_name(const char *name);  /* -1 when unknown */
const char *ipc_run_err_name(uint32_t reason);

/* Decode `len` bytes and `nfds` fds into *msg.  Returns 0 or -IPC_DEC_*.
 * On success the fds are stored in *msg (types without fds require nfds==0). */
int ipc_decode(const uint8_t *buf, size_t len, const int *fds, size_t nfds, struct ipc_msg *msg);

/* Encode *msg (type in msg->type) into buf (capacity cap, at least
 * IPC_MAX_MSG is always enough).  Fills fds[] with the fds the message
 * carries, in wire order, and *nfds with their count.  Returns the encoded
 * length or -EINVAL (a string too long, a count out of range) / -ENOBUFS. */
ssize_t ipc_encode(const struct ipc_msg *msg, uint8_t *buf, size_t cap, int *fds, size_t *nfds);

/* Send one message on a SOCK_SEQPACKET socket with its fds (MSG_NOSIGNAL).
 * Returns 0 or -errno.  Retries on EINTR; never blocks forever on a
 * non-blocking socket (returns -EAGAIN). */
int ipc_send(int sock, const struct ipc_msg *msg);

/* Receive one message and decode it.  Received fds are marked CLOEXEC
 * (MSG_CMSG_CLOEXEC).  A reset reported by a peer that closed with our data
 * unread does not hide the message it queued before closing.  Returns 0, -errno for I/O errors, -ECONNRESET on
 * orderly EOF, -EBADMSG for a message that fails to decode or was truncated
 * (MSG_TRUNC/MSG_CTRUNC), with every received fd closed.  *decode_err gets
 * the IPC_DEC_* value when decoding failed (may be NULL). */
int ipc_recv(int sock, struct ipc_msg *msg, int *decode_err);

/* Close every fd a decoded message carries and set them to -1. */
void ipc_close_fds(struct ipc_msg *msg);

/* Sealed memfds for code and stdin. */
#define IPC_REQUIRED_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

/* Create a memfd named `name`, write `len` bytes, seal it with
 * IPC_REQUIRED_SEALS and rewind it.  Returns the fd or -errno. */
int ipc_memfd_sealed(const char *name, const void *data, size_t len);

/* Check that fd is a memfd carrying every seal in IPC_REQUIRED_SEALS and at
 * most max_bytes long.  On success stores its size.  Returns 0 or -errno
 * (-EPERM: seals missing; -EFBIG: too large; -EBADF/-EINVAL: not a memfd). */
int ipc_memfd_check(int fd, size_t max_bytes, size_t *size);

#endif
