/* The audit log (see audit.h): a hash-chained JSON-lines file and journald.
 *
 * The file holds exactly what we know about it: `seq` and `prev` describe
 * its last complete line and `good_size` its length.  They advance only
 * after a record was written whole (and synced, when asked), and a record
 * that could not be written whole is cut off again, so the file always
 * verifies and the next record always continues the chain.
 *
 * Bounds: every caller-supplied string is cut to AUDIT_MAX_FIELD bytes, so
 * a record without code stays under AUDIT_MAX_RECORD (64 KiB) even when
 * every byte must be escaped; the code text (log_code) is cut so that its
 * JSON form stays within AUDIT_MAX_CODE_JSON (1 MiB) and the record then
 * says "code_truncated": true.  Every line therefore fits AUDIT_MAX_LINE,
 * the bound both the tail read at open and `audit verify` use.
 */
#include "audit.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "sha256.h"
#include "utf8.h"

#define AUDIT_MAX_FIELD 512u
#define AUDIT_MAX_RECORD (64u << 10)
#define AUDIT_MAX_CODE_JSON (1u << 20)
#define AUDIT_MAX_LINE (2u << 20) /* > AUDIT_MAX_RECORD + AUDIT_MAX_CODE_JSON */
#define AUDIT_JOURNAL_SOCKET "/run/systemd/journal/socket"
#define AUDIT_JOURNAL_MAX_FIELDS 40
#define SHA256_LEN SHA256_BYTES
#define SHA256_HEX (2 * SHA256_LEN)
/* cJSON keeps numbers as doubles: a seq above this could not be read back exactly. */
#define AUDIT_MAX_SEQ ((uint64_t)1 << 53)

enum { JOURNALD_AUTO = 0, JOURNALD_REQUIRED = 1, JOURNALD_OFF = 2 };

struct audit {
	char *path;
	int fd;			  /* O_WRONLY|O_APPEND; -1 without a file sink */
	int rfd;		  /* the same inode read-only: to re-read the chain's head */
	uint64_t seq;		  /* seq of the file's last record; 0 when empty */
	uint8_t prev[SHA256_LEN]; /* SHA-256 of that record's line */
	off_t good_size;	  /* file length after that record */
	bool file_failed;	  /* the last record did not reach the file */
	bool torn;		  /* a failed record's bytes could not be cut off */
	bool lost_logged;	  /* said once that the file was replaced or removed */
	int journald;		  /* JOURNALD_* */
	bool journald_failed;	  /* the last send failed */
	bool fsync;
	bool log_code;
};

/* What one record is about: exactly one of job and denial is set. */
struct event {
	const char *name; /* "job.start", "job.end", "denied" */
	const struct audit_job *job;
	const struct audit_denial *denial;
	bool end;
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void hex(const uint8_t *in, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
	out[2 * len] = '\0';
}

static bool is_lower_hex(const char *s, size_t len)
{
	if (strlen(s) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* ---- Parsing a line: shared by open (chain head) and verify. ---- */

/* Parses one line (no newline) as a record: a JSON object with an integer
 * "seq" >= 1 and a 64-hex "prev".  prev_hex gets the "prev" value.  On
 * failure returns -EBADMSG with why (static text plus numbers) in why. */
static int parse_record(const char *line, size_t len, uint64_t *seq, char prev_hex[SHA256_HEX + 1],
			char *why, size_t whylen)
{
	const char *end = NULL;
	cJSON *o = cJSON_ParseWithLengthOpts(line, len, &end, false);
	int rc = -EBADMSG;

	if (!o || end != line + len || !cJSON_IsObject(o)) {
		set_err(why, whylen, "not a JSON object");
		goto out;
	}
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "seq");
	if (!cJSON_IsNumber(s) || s->valuedouble < 1 || s->valuedouble > (double)AUDIT_MAX_SEQ ||
	    s->valuedouble != (double)(uint64_t)s->valuedouble) {
		set_err(why, whylen, "\"seq\" missing or not a positive integer");
		goto out;
	}
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "prev");
	if (!cJSON_IsString(p) || !is_lower_hex(p->valuestring, SHA256_HEX)) {
		set_err(why, whylen, "\"prev\" missing or not 64 lowercase hex digits");
		goto out;
	}
	*seq = (uint64_t)s->valuedouble;
	memcpy(prev_hex, p->valuestring, SHA256_HEX + 1);
	rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

static int pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the file shrank under us */
		got += (size_t)n;
	}
	return 0;
}

/* Reads the file's last line (at most AUDIT_MAX_LINE bytes from the end of
 * a file `size` long) and returns its seq and hash: the head the next
 * record chains to.  An empty file is a new chain (seq 0, 64 zero bits). */
static int read_head(int rfd, off_t size, uint64_t *seq, uint8_t hash[SHA256_LEN], char *err,
		     size_t errlen)
{
	*seq = 0;
	memset(hash, 0, SHA256_LEN);
	if (size == 0)
		return 0;

	size_t n = (uint64_t)size > AUDIT_MAX_LINE + 1 ? AUDIT_MAX_LINE + 1 : (size_t)size;
	char *buf = malloc(n);
	if (!buf) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = pread_full(rfd, buf, n, size - (off_t)n);
	if (rc < 0) {
		set_err(err, errlen, "cannot read the last line: %s", strerror(-rc));
		goto out;
	}
	rc = -EBADMSG;
	if (buf[n - 1] != '\n') {
		set_err(err, errlen,
			"the last line has no newline (torn write?); "
			"repair the file or start a new one");
		goto out;
	}
	size_t start = n - 1;
	while (start > 0 && buf[start - 1] != '\n')
		start--;
	if (start == 0 && n < (size_t)size) {
		set_err(err, errlen, "the last line is longer than %u bytes", AUDIT_MAX_LINE);
		goto out;
	}
	size_t len = n - 1 - start;
	char prev_hex[SHA256_HEX + 1], why[128];
	if (len == 0) {
		set_err(err, errlen, "the file ends with an empty line");
		goto out;
	}
	if (parse_record(buf + start, len, seq, prev_hex, why, sizeof(why)) < 0) {
		set_err(err, errlen, "the last line cannot continue the chain: %s", why);
		goto out;
	}
	if (*seq >= AUDIT_MAX_SEQ) {
		set_err(err, errlen, "the chain is full (seq %" PRIu64 ")", *seq);
		goto out;
	}
	rc = sha256_digest(buf + start, len, hash);
	if (rc < 0)
		set_err(err, errlen, "SHA-256 failed");
out:
	free(buf);
	return rc;
}

/* ---- Building a file record. ---- */

/* A caller's string cut to AUDIT_MAX_FIELD bytes and made valid UTF-8 (a
 * cut character becomes U+FFFD), so a record is bounded and any JSON
 * reader accepts it. */
static cJSON *bounded_string(const char *s, size_t max)
{
	char *clean = NULL;
	size_t clean_len = 0;
	if (utf8_sanitize(s, strnlen(s, max), &clean, &clean_len) < 0)
		return NULL;
	cJSON *item = cJSON_CreateString(clean);
	free(clean);
	return item;
}

static bool add_str(cJSON *o, const char *name, const char *s)
{
	cJSON *item = s ? bounded_string(s, AUDIT_MAX_FIELD) : cJSON_CreateNull();
	return item && cJSON_AddItemToObject(o, name, item);
}

/* Integers go in as raw text: cJSON's doubles would print large values in
 * exponent form or inexactly. */
static bool add_u64(cJSON *o, const char *name, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return cJSON_AddRawToObject(o, name, buf) != NULL;
}

static bool add_int(cJSON *o, const char *name, int v)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%d", v);
	return cJSON_AddRawToObject(o, name, buf) != NULL;
}

static bool add_limits(cJSON *o, const char *name, const struct ipc_limits *l)
{
	cJSON *obj = cJSON_AddObjectToObject(o, name);
	bool ok = obj != NULL;
	/* 0 means "unset" (the profile's default): leaving it out says so. */
	if (ok && l->wall_ms)
		ok = add_u64(obj, "wall_ms", l->wall_ms);
	if (ok && l->cpu_ms)
		ok = add_u64(obj, "cpu_ms", l->cpu_ms);
	if (ok && l->memory_bytes)
		ok = add_u64(obj, "memory_bytes", l->memory_bytes);
	if (ok && l->pids)
		ok = add_u64(obj, "pids", l->pids);
	if (ok && l->tmpfs_bytes)
		ok = add_u64(obj, "tmpfs_bytes", l->tmpfs_bytes);
	if (ok && l->output_bytes)
		ok = add_u64(obj, "output_bytes", l->output_bytes);
	return ok;
}

/* How many bytes cJSON prints for byte c inside a string. */
static size_t json_cost(unsigned char c)
{
	if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
		return 2;
	return c < 0x20 ? 6 : 1;
}

/* The code text, cut at a character boundary so that its JSON string
 * stays within AUDIT_MAX_CODE_JSON. */
static bool add_code(cJSON *o, const char *code)
{
	char *clean = NULL;
	size_t len = 0;
	if (utf8_sanitize(code, strnlen(code, IPC_MAX_CODE_BYTES), &clean, &len) < 0)
		return false;
	size_t cost = 0, keep = 0;
	while (keep < len && cost + json_cost((unsigned char)clean[keep]) <= AUDIT_MAX_CODE_JSON)
		cost += json_cost((unsigned char)clean[keep++]);
	bool cut = keep < len;
	while (cut && keep > 0 && ((unsigned char)clean[keep] & 0xc0) == 0x80)
		keep--; /* do not split a UTF-8 sequence */
	clean[keep] = '\0';
	bool ok = cJSON_AddStringToObject(o, "code", clean) != NULL;
	if (ok && (cut || strnlen(code, IPC_MAX_CODE_BYTES + 1) > IPC_MAX_CODE_BYTES))
		ok = cJSON_AddTrueToObject(o, "code_truncated") != NULL;
	free(clean);
	return ok;
}

static void format_time(char *buf, size_t cap)
{
	struct timespec ts;
	struct tm tm;
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm)) {
		snprintf(buf, cap, "1970-01-01T00:00:00.000Z");
		return;
	}
	size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, cap - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

static bool add_actor(cJSON *o, const struct audit_actor *w)
{
	return add_str(o, "tenant", w->tenant) && add_str(o, "key_id", w->key_id) &&
	       add_str(o, "client", w->client) && add_str(o, "transport", w->transport) &&
	       add_str(o, "session", w->session);
}

static bool add_job(cJSON *o, const struct audit_job *j, bool end, bool log_code)
{
	char id[17], sum[SHA256_HEX + 1];
	snprintf(id, sizeof(id), "%016" PRIx64, j->execution_id);
	bool ok = add_actor(o, &j->who) && cJSON_AddStringToObject(o, "execution_id", id) &&
		  add_str(o, "language", j->language) && add_str(o, "profile", j->profile);
	if (ok && j->code_sha256) {
		hex(j->code_sha256, SHA256_LEN, sum);
		ok = cJSON_AddStringToObject(o, "code_sha256", sum) != NULL;
	} else if (ok) {
		ok = cJSON_AddNullToObject(o, "code_sha256") != NULL;
	}
	ok = ok && add_u64(o, "code_bytes", j->code_bytes) &&
	     add_limits(o, "requested", &j->requested);
	if (ok && end) {
		ok = add_limits(o, "applied", &j->applied) && add_str(o, "status", j->status) &&
		     add_int(o, "exit_code", j->exit_code) && add_int(o, "signal", j->signal) &&
		     add_u64(o, "wall_ms", j->wall_ms) && add_u64(o, "cpu_ms", j->cpu_ms) &&
		     add_u64(o, "memory_peak_bytes", j->memory_peak_bytes) &&
		     add_u64(o, "stdout_bytes", j->stdout_bytes) &&
		     add_u64(o, "stderr_bytes", j->stderr_bytes);
	}
	if (ok && !end && log_code && j->code)
		ok = add_code(o, j->code);
	return ok;
}

static bool add_denial(cJSON *o, const struct audit_denial *d)
{
	return add_actor(o, &d->who) && add_str(o, "method", d->method) &&
	       add_str(o, "path", d->path) && add_int(o, "http_status", d->http_status) &&
	       add_str(o, "reason", d->reason);
}

/* The record for seq after prev, as one line with its newline, in *out
 * (malloc'd).  0, -ENOMEM, or -EMSGSIZE if the caps above failed to bound it. */
static int build_line(const struct audit *a, const struct event *ev, uint64_t seq,
		      const uint8_t prev[SHA256_LEN], char **out, size_t *len)
{
	char prev_hex[SHA256_HEX + 1], now[40];
	cJSON *o = cJSON_CreateObject();
	char *text = NULL;

	hex(prev, SHA256_LEN, prev_hex);
	format_time(now, sizeof(now));
	bool ok = o && add_u64(o, "seq", seq) && cJSON_AddStringToObject(o, "prev", prev_hex) &&
		  cJSON_AddStringToObject(o, "time", now) &&
		  cJSON_AddStringToObject(o, "event", ev->name);
	if (ok && ev->job)
		ok = add_job(o, ev->job, ev->end, a->log_code);
	else if (ok)
		ok = add_denial(o, ev->denial);
	if (ok)
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return -ENOMEM;
	size_t n = strlen(text);
	/* Checked so that every line fits what open and verify read back. */
	bool code = ev->job && !ev->end && a->log_code && ev->job->code;
	if (n + 1 > AUDIT_MAX_RECORD + (code ? AUDIT_MAX_CODE_JSON + 64 : 0)) {
		cJSON_free(text);
		return -EMSGSIZE;
	}
	*out = malloc(n + 1);
	if (*out) {
		memcpy(*out, text, n);
		(*out)[n] = '\n';
		*len = n + 1;
	}
	cJSON_free(text);
	return *out ? 0 : -ENOMEM;
}

/* ---- The file sink. ---- */

/* Whether the path still names the inode we write to: a file that was
 * removed or replaced cannot recover (our records would go nowhere). */
static int file_check_identity(struct audit *a)
{
	struct stat fs, ps;
	const char *why = NULL;
	int rc = 0;

	if (fstat(a->fd, &fs) < 0) {
		rc = -errno;
		why = "cannot be checked";
	} else if (lstat(a->path, &ps) < 0) {
		rc = errno == ENOENT ? -ENOENT : -errno;
		why = errno == ENOENT ? "was removed" : "cannot be found at its path";
	} else if (ps.st_dev != fs.st_dev || ps.st_ino != fs.st_ino) {
		rc = -ESTALE;
		why = "was replaced by another file";
	} else if (fs.st_nlink == 0) {
		rc = -ENOENT; /* removed and recreated under the same inode number */
		why = "was removed";
	}
	if (rc < 0 && !a->lost_logged) {
		gw_log(GW_LOG_ERROR,
		       "audit file %s %s; the audit stays unhealthy until cellgate restarts",
		       a->path, why);
		a->lost_logged = true;
	}
	return rc;
}

/* Cuts a failed record's bytes off again so the file stays verifiable. */
static void file_undo(struct audit *a)
{
	int r;
	do
		r = ftruncate(a->fd, a->good_size);
	while (r < 0 && errno == EINTR);
	a->torn = r < 0;
	if (r < 0)
		gw_log(GW_LOG_ERROR, "audit file %s: cannot cut off a partial record: %s", a->path,
		       strerror(errno));
}

/* Brings our view of the file up to date before a write: retries a cut
 * that failed, and re-reads the head when someone else changed the file
 * (e.g. truncated it for rotation), so the chain continues from what is
 * really there. */
static int file_prepare(struct audit *a)
{
	struct stat st;

	if (a->file_failed) {
		int r = file_check_identity(a);
		if (r < 0)
			return r;
	}
	if (a->torn) {
		file_undo(a);
		if (a->torn)
			return -EIO;
	}
	if (fstat(a->fd, &st) < 0)
		return -errno;
	if (st.st_nlink == 0)
		return file_check_identity(a);
	if (st.st_size != a->good_size) {
		char err[256];
		uint64_t seq;
		uint8_t head[SHA256_LEN];
		int r = read_head(a->rfd, st.st_size, &seq, head, err, sizeof(err));
		if (r < 0) {
			gw_log(GW_LOG_ERROR, "audit file %s changed outside cellgate: %s", a->path,
			       err);
			return r;
		}
		gw_log(
		    GW_LOG_WARN,
		    "audit file %s changed outside cellgate; continuing its chain at seq %" PRIu64,
		    a->path, seq + 1);
		a->seq = seq;
		memcpy(a->prev, head, SHA256_LEN);
		a->good_size = st.st_size;
	}
	return 0;
}

/* Writes one record to the file: 0 with its hash in line_hash, or -errno
 * (the file sink is then failed). */
static int file_write(struct audit *a, const struct event *ev, uint64_t *seq_out,
		      uint8_t line_hash[SHA256_LEN])
{
	int err = file_prepare(a);
	if (err < 0)
		goto fail;
	if (a->seq + 1 >= AUDIT_MAX_SEQ) {
		err = -EOVERFLOW;
		goto fail;
	}

	size_t len = 0;
	char *line = NULL;
	err = build_line(a, ev, a->seq + 1, a->prev, &line, &len);
	if (err < 0)
		goto fail;
	err = sha256_digest(line, len - 1, line_hash);
	if (err == 0) {
		/* One write: O_APPEND puts the whole line at the end at once. */
		ssize_t n;
		do
			n = write(a->fd, line, len);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			err = -errno; /* nothing was written */
		else if ((size_t)n != len)
			err = -EIO; /* a short write: the disk or a limit is full */
		else if (a->fsync && fdatasync(a->fd) < 0)
			err = -errno;
		if (err < 0 && n > 0)
			file_undo(a);
	}
	free(line);
	if (err < 0)
		goto fail;

	a->seq++;
	memcpy(a->prev, line_hash, SHA256_LEN);
	a->good_size += (off_t)len;
	if (a->file_failed)
		gw_log(GW_LOG_INFO, "audit file %s: writing again", a->path);
	a->file_failed = false;
	*seq_out = a->seq;
	return 0;
fail:
	if (!a->file_failed)
		gw_log(GW_LOG_ERROR, "audit file %s: cannot write a record: %s", a->path,
		       strerror(-err));
	a->file_failed = true;
	return err;
}

static int file_open(struct audit *a, const char *path, char *err, size_t errlen)
{
	struct stat ws, rs;

	/* O_NONBLOCK so a FIFO at the path fails instead of blocking. */
	a->fd =
	    open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (a->fd < 0) {
		int e = errno;
		set_err(err, errlen, "cannot open audit file %s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(a->fd, &ws) < 0) {
		int e = errno;
		set_err(err, errlen, "cannot stat audit file %s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(ws.st_mode)) {
		set_err(err, errlen, "audit file %s is not a regular file", path);
		return -EINVAL;
	}
	int fl = fcntl(a->fd, F_GETFL);
	if (fl < 0 || fcntl(a->fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int e = errno;
		set_err(err, errlen, "audit file %s: fcntl: %s", path, strerror(e));
		return -e;
	}
	if (ws.st_mode & 077)
		gw_log(GW_LOG_WARN, "audit file %s is accessible to others (mode %03o)", path,
		       (unsigned)(ws.st_mode & 0777));

	/* The write descriptor cannot read: a second one, checked to be the
	 * same inode, reads the chain's head now and after outside changes. */
	a->rfd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (a->rfd < 0) {
		int e = errno;
		set_err(err, errlen, "cannot read audit file %s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(a->rfd, &rs) < 0 || rs.st_dev != ws.st_dev || rs.st_ino != ws.st_ino) {
		set_err(err, errlen, "audit file %s changed while being opened", path);
		return -ESTALE;
	}
	char why[256];
	int r = read_head(a->rfd, rs.st_size, &a->seq, a->prev, why, sizeof(why));
	if (r < 0) {
		set_err(err, errlen, "audit file %s: %s", path, why);
		return r;
	}
	a->good_size = rs.st_size;
	return 0;
}

/* ---- The journald sink. ---- */

struct jfields {
	struct iovec iov[AUDIT_JOURNAL_MAX_FIELDS];
	size_t n;
	bool oom;
};

/* Adds NAME=value (value cut to AUDIT_MAX_FIELD bytes); NULL values are
 * left out: journald has no null. */
static void jf_add(struct jfields *f, const char *name, const char *value)
{
	if (!value || f->n >= AUDIT_JOURNAL_MAX_FIELDS) {
		f->oom |= value != NULL;
		return;
	}
	size_t nl = strlen(name), vl = strnlen(value, AUDIT_MAX_FIELD);
	char *s = malloc(nl + 1 + vl);
	if (!s) {
		f->oom = true;
		return;
	}
	memcpy(s, name, nl);
	s[nl] = '=';
	memcpy(s + nl + 1, value, vl);
	f->iov[f->n].iov_base = s;
	f->iov[f->n].iov_len = nl + 1 + vl;
	f->n++;
}

static void jf_addf(struct jfields *f, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void jf_addf(struct jfields *f, const char *name, const char *fmt, ...)
{
	char buf[AUDIT_MAX_FIELD];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jf_add(f, name, buf);
}

static void jf_free(struct jfields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->iov[i].iov_base);
	f->n = 0;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static int journald_send(struct audit *a, const struct event *ev, int file_rc, uint64_t seq,
			 const uint8_t line_hash[SHA256_LEN])
{
	struct jfields f = {.n = 0};
	const struct audit_actor *w = ev->job ? &ev->job->who : &ev->denial->who;
	const struct audit_job *j = ev->job;
	int prio = LOG_INFO;
	char buf[SHA256_HEX + 1];

	/* The message is for people reading `journalctl`: short, no secrets. */
	if (j && ev->end) {
		if (j->status && strcmp(j->status, "internal") == 0)
			prio = LOG_WARNING;
		jf_addf(&f, "MESSAGE",
			"cellgate job.end tenant=%.64s execution_id=%016" PRIx64
			" status=%.32s wall_ms=%" PRIu64,
			or_dash(w->tenant), j->execution_id, or_dash(j->status), j->wall_ms);
	} else if (j) {
		jf_addf(&f, "MESSAGE",
			"cellgate job.start tenant=%.64s execution_id=%016" PRIx64
			" language=%.32s",
			or_dash(w->tenant), j->execution_id, or_dash(j->language));
	} else {
		prio = LOG_NOTICE;
		jf_addf(&f, "MESSAGE",
			"cellgate denied tenant=%.64s client=%.64s http_status=%d reason=%.64s",
			or_dash(w->tenant), or_dash(w->client), ev->denial->http_status,
			or_dash(ev->denial->reason));
	}
	if (file_rc < 0)
		prio = LOG_ERR;
	jf_addf(&f, "PRIORITY", "%d", prio);
	jf_add(&f, "SYSLOG_IDENTIFIER", "cellgate");
	jf_add(&f, "CELLGATE_EVENT", ev->name);
	jf_add(&f, "CELLGATE_TENANT", w->tenant);
	jf_add(&f, "CELLGATE_KEY_ID", w->key_id);
	jf_add(&f, "CELLGATE_CLIENT", w->client);
	jf_add(&f, "CELLGATE_TRANSPORT", w->transport);
	jf_add(&f, "CELLGATE_SESSION", w->session);
	if (j) {
		jf_addf(&f, "CELLGATE_EXECUTION_ID", "%016" PRIx64, j->execution_id);
		jf_add(&f, "CELLGATE_LANGUAGE", j->language);
		jf_add(&f, "CELLGATE_PROFILE", j->profile);
		if (j->code_sha256) {
			hex(j->code_sha256, SHA256_LEN, buf);
			jf_add(&f, "CELLGATE_CODE_SHA256", buf);
		}
		jf_addf(&f, "CELLGATE_CODE_BYTES", "%zu", j->code_bytes);
	}
	if (j && ev->end) {
		jf_add(&f, "CELLGATE_STATUS", j->status);
		jf_addf(&f, "CELLGATE_EXIT_CODE", "%d", j->exit_code);
		jf_addf(&f, "CELLGATE_SIGNAL", "%d", j->signal);
		jf_addf(&f, "CELLGATE_WALL_MS", "%" PRIu64, j->wall_ms);
		jf_addf(&f, "CELLGATE_CPU_MS", "%" PRIu64, j->cpu_ms);
		jf_addf(&f, "CELLGATE_MEMORY_PEAK_BYTES", "%" PRIu64, j->memory_peak_bytes);
		jf_addf(&f, "CELLGATE_STDOUT_BYTES", "%" PRIu64, j->stdout_bytes);
		jf_addf(&f, "CELLGATE_STDERR_BYTES", "%" PRIu64, j->stderr_bytes);
	}
	if (!j) {
		jf_add(&f, "CELLGATE_METHOD", ev->denial->method);
		jf_add(&f, "CELLGATE_PATH", ev->denial->path);
		jf_addf(&f, "CELLGATE_HTTP_STATUS", "%d", ev->denial->http_status);
		jf_add(&f, "CELLGATE_REASON", ev->denial->reason);
	}
	if (a->fd >= 0 && file_rc == 0) {
		/* Anchors the file's chain outside the file: a cut-off tail or
		 * a rewritten file no longer matches what journald holds. */
		jf_addf(&f, "CELLGATE_AUDIT_SEQ", "%" PRIu64, seq);
		hex(line_hash, SHA256_LEN, buf);
		jf_add(&f, "CELLGATE_AUDIT_HASH", buf);
	} else if (a->fd >= 0) {
		jf_add(&f, "CELLGATE_AUDIT_FILE_ERROR", strerror(-file_rc));
	}

	int rc = f.oom ? -ENOMEM : sd_journal_sendv(f.iov, (int)f.n);
	jf_free(&f);
	if (rc < 0 && !a->journald_failed)
		gw_log(a->journald == JOURNALD_REQUIRED ? GW_LOG_ERROR : GW_LOG_WARN,
		       "audit: cannot send to journald: %s", strerror(-rc));
	else if (rc == 0 && a->journald_failed)
		gw_log(GW_LOG_INFO, "audit: sending to journald again");
	a->journald_failed = rc < 0;
	return rc;
}

static bool journald_wanted(const struct audit *a)
{
	if (a->journald == JOURNALD_OFF)
		return false;
	/* auto: only where a journald listens, so a plain container stays quiet. */
	return a->journald == JOURNALD_REQUIRED || access(AUDIT_JOURNAL_SOCKET, F_OK) == 0;
}

/* ---- The API. ---- */

static int emit(struct audit *a, const struct event *ev)
{
	uint8_t line_hash[SHA256_LEN] = {0};
	uint64_t seq = 0;
	int file_rc = 0, journal_rc = 0;

	if (a->fd >= 0)
		file_rc = file_write(a, ev, &seq, line_hash);
	/* journald gets the event even when the file failed: it is a second,
	 * independent record of it (marked with the file's error). */
	if (journald_wanted(a))
		journal_rc = journald_send(a, ev, file_rc, seq, line_hash);
	if (file_rc < 0)
		return file_rc;
	if (a->journald == JOURNALD_REQUIRED && journal_rc < 0)
		return journal_rc;
	return 0;
}

struct audit *audit_open(const struct audit_options *o, char *err, size_t errlen)
{
	set_err(err, errlen, "no error");
	if (!o || o->journald < JOURNALD_AUTO || o->journald > JOURNALD_OFF) {
		set_err(err, errlen, "audit: invalid options");
		return NULL;
	}
	struct audit *a = calloc(1, sizeof(*a));
	if (!a) {
		set_err(err, errlen, "audit: out of memory");
		return NULL;
	}
	a->fd = -1;
	a->rfd = -1;
	a->journald = o->journald;
	a->fsync = o->fsync;
	a->log_code = o->log_code;
	if (a->journald == JOURNALD_REQUIRED && access(AUDIT_JOURNAL_SOCKET, F_OK) < 0) {
		set_err(err, errlen, "audit: journald is required but %s is missing: %s",
			AUDIT_JOURNAL_SOCKET, strerror(errno));
		goto fail;
	}
	if (o->file && o->file[0]) {
		a->path = strdup(o->file);
		if (!a->path) {
			set_err(err, errlen, "audit: out of memory");
			goto fail;
		}
		if (file_open(a, a->path, err, errlen) < 0)
			goto fail;
	}
	return a;
fail:
	audit_close(a);
	return NULL;
}

void audit_close(struct audit *a)
{
	if (!a)
		return;
	if (a->fd >= 0 && close(a->fd) < 0)
		gw_log(GW_LOG_WARN, "audit file %s: close: %s", a->path, strerror(errno));
	if (a->rfd >= 0)
		(void)close(a->rfd); /* read-only: nothing can be lost */
	free(a->path);
	free(a);
}

bool audit_healthy(struct audit *a)
{
	if (!a)
		return false;
	bool ok = true;
	if (a->fd >= 0 && a->file_failed) {
		/* Recovery needs a write; this only notices (and logs) a file
		 * that can never recover because it is no longer ours. */
		(void)file_check_identity(a);
		ok = false;
	}
	if (a->journald == JOURNALD_REQUIRED && a->journald_failed)
		ok = false;
	return ok;
}

int audit_job_start(struct audit *a, const struct audit_job *j)
{
	if (!a || !j)
		return -EINVAL;
	struct event ev = {.name = "job.start", .job = j};
	return emit(a, &ev);
}

int audit_job_end(struct audit *a, const struct audit_job *j)
{
	if (!a || !j)
		return -EINVAL;
	struct event ev = {.name = "job.end", .job = j, .end = true};
	return emit(a, &ev);
}

int audit_denied(struct audit *a, const struct audit_denial *d)
{
	if (!a || !d)
		return -EINVAL;
	struct event ev = {.name = "denied", .denial = d};
	return emit(a, &ev);
}

/* ---- Verification. ---- */

struct verifier {
	uint64_t records;
	uint8_t prev[SHA256_LEN];
	char why[160];
};

/* Checks line number records+1; 0 or -EBADMSG with why set. */
static int verify_line(struct verifier *v, const char *line, size_t len)
{
	uint64_t want = v->records + 1, seq = 0;
	char prev_hex[SHA256_HEX + 1], expect[SHA256_HEX + 1];

	if (len == 0) {
		set_err(v->why, sizeof(v->why), "empty line");
		return -EBADMSG;
	}
	if (parse_record(line, len, &seq, prev_hex, v->why, sizeof(v->why)) < 0)
		return -EBADMSG;
	if (seq != want) {
		set_err(v->why, sizeof(v->why),
			"seq is %" PRIu64 ", expected %" PRIu64 " (a record was removed, "
			"reordered or inserted)",
			seq, want);
		return -EBADMSG;
	}
	hex(v->prev, SHA256_LEN, expect);
	if (strcmp(prev_hex, expect) != 0) {
		if (want == 1)
			set_err(v->why, sizeof(v->why), "\"prev\" of the first record is not zero");
		else
			set_err(v->why, sizeof(v->why),
				"\"prev\" does not match the SHA-256 of record %" PRIu64
				" (record %" PRIu64 " was modified, or this one replaced)",
				want - 1, want - 1);
		return -EBADMSG;
	}
	if (sha256_digest(line, len, v->prev) < 0) {
		set_err(v->why, sizeof(v->why), "SHA-256 failed");
		return -EIO;
	}
	v->records = want;
	return 0;
}

int audit_verify_file(const char *path, FILE *out)
{
	struct verifier v = {.records = 0};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		fprintf(out, "cannot open %s: %s\n", path, strerror(errno));
		return 2;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(out, "%s is not a regular file\n", path);
		close(fd);
		return 2;
	}
	/* One buffer holds the longest allowed line; lines are handled in
	 * place and the unfinished tail moved to the front before each read. */
	size_t cap = AUDIT_MAX_LINE + 1, have = 0, start = 0;
	char *buf = malloc(cap);
	int ret = 2;
	if (!buf) {
		fprintf(out, "out of memory\n");
		goto out;
	}
	for (;;) {
		char *nl = memchr(buf + start, '\n', have - start);
		if (nl) {
			size_t len = (size_t)(nl - (buf + start));
			int r = verify_line(&v, buf + start, len);
			if (r == -EIO) {
				fprintf(out, "%s\n", v.why);
				goto out;
			}
			if (r < 0)
				goto broken;
			start += len + 1;
			continue;
		}
		if (have - start >= AUDIT_MAX_LINE) {
			set_err(v.why, sizeof(v.why), "line longer than %u bytes", AUDIT_MAX_LINE);
			goto broken;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		start = 0;
		ssize_t n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(out, "cannot read %s: %s\n", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have > start) {
		set_err(v.why, sizeof(v.why),
			"the last line has no newline (torn write or truncated file)");
		goto broken;
	}
	if (v.records == 0) {
		fprintf(out, "ok: 0 records\n");
	} else {
		char head[SHA256_HEX + 1];
		hex(v.prev, SHA256_LEN, head);
		fprintf(out, "ok: %" PRIu64 " records, head %s\n", v.records, head);
	}
	ret = 0;
	goto out;
broken:
	/* Every line is one record, so record N is line N. */
	fprintf(out, "broken at record %" PRIu64 " (line %" PRIu64 "): %s\n", v.records + 1,
		v.records + 1, v.why);
	ret = 1;
out:
	free(buf);
	close(fd);
	return ret;
}
