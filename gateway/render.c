/* CallToolResult rendering (see render.h). */
#include "render.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc.h"
#include "utf8.h"

const char render_outcome_schema[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"status\":{\"type\":\"string\",\"enum\":[\"ok\",\"exit\",\"signal\",\"timeout\","
    "\"memory\",\"output_limit\",\"seccomp\",\"cancelled\",\"internal\"],"
    "\"description\":\"ok: exited with code 0; exit: non-zero exit code; signal: killed by a "
    "signal; timeout: time limit reached; memory: memory limit reached; output_limit: output "
    "cap reached; seccomp: forbidden system call; cancelled: cancelled by the client; "
    "internal: the sandbox failed and the code may not have run\"},"
    "\"exit_code\":{\"type\":[\"integer\",\"null\"]},"
    "\"signal\":{\"type\":[\"integer\",\"null\"]},"
    "\"stdout\":{\"type\":\"string\"},"
    "\"stderr\":{\"type\":\"string\"},"
    "\"stdout_truncated\":{\"type\":\"boolean\"},"
    "\"stderr_truncated\":{\"type\":\"boolean\"},"
    "\"wall_ms\":{\"type\":\"integer\",\"minimum\":0},"
    "\"cpu_ms\":{\"type\":\"integer\",\"minimum\":0},"
    "\"memory_peak_bytes\":{\"type\":\"integer\",\"minimum\":0},"
    "\"execution_id\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{16}$\"}"
    "},"
    "\"required\":[\"status\",\"exit_code\",\"signal\",\"stdout\",\"stderr\","
    "\"stdout_truncated\",\"stderr_truncated\",\"wall_ms\",\"cpu_ms\",\"memory_peak_bytes\","
    "\"execution_id\"],"
    "\"additionalProperties\":false}";

/* cJSON numbers are doubles: keep counters exact by capping at 2^53. */
static double json_uint(uint64_t v)
{
	const uint64_t max_exact = (UINT64_C(1) << 53) - 1;
	return (double)(v > max_exact ? max_exact : v);
}

/* Quote and escape already well-formed UTF-8 as a JSON string. */
static char *json_quote(const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	/* Worst case: every byte becomes \u00XX (6 bytes), plus quotes, NUL. */
	if (len > (SIZE_MAX - 3) / 6)
		return NULL;
	char *q = malloc(len * 6 + 3);
	if (!q)
		return NULL;
	size_t o = 0;
	q[o++] = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
		case '\\':
			q[o++] = '\\';
			q[o++] = (char)c;
			break;
		case '\n':
			q[o++] = '\\';
			q[o++] = 'n';
			break;
		case '\r':
			q[o++] = '\\';
			q[o++] = 'r';
			break;
		case '\t':
			q[o++] = '\\';
			q[o++] = 't';
			break;
		case '\b':
			q[o++] = '\\';
			q[o++] = 'b';
			break;
		case '\f':
			q[o++] = '\\';
			q[o++] = 'f';
			break;
		default:
			if (c < 0x20) {
				memcpy(q + o, "\\u00", 4);
				o += 4;
				q[o++] = hex[c >> 4];
				q[o++] = hex[c & 0xF];
			} else {
				q[o++] = (char)c;
			}
		}
	}
	q[o++] = '"';
	q[o] = '\0';
	return q;
}

cJSON *render_bytes(const char *data, size_t len)
{
	char *clean;
	size_t clean_len;

	if (utf8_sanitize(data ? data : "", data ? len : 0, &clean, &clean_len) < 0)
		return NULL;
	char *quoted = json_quote(clean, clean_len);
	free(clean);
	if (!quoted)
		return NULL;
	cJSON *item = cJSON_CreateRaw(quoted);
	free(quoted);
	return item;
}

cJSON *render_string(const char *s)
{
	char *clean;
	size_t clean_len;

	if (utf8_sanitize(s ? s : "", s ? strlen(s) : 0, &clean, &clean_len) < 0)
		return NULL;
	cJSON *item = cJSON_CreateString(clean);
	free(clean);
	return item;
}

static bool add_text_block(cJSON *content, const char *text)
{
	cJSON *block = cJSON_CreateObject();
	if (!block)
		return false;
	if (!cJSON_AddStringToObject(block, "type", "text") ||
	    !cJSON_AddStringToObject(block, "text", text) ||
	    !cJSON_AddItemToArray(content, block)) {
		cJSON_Delete(block);
		return false;
	}
	return true;
}

cJSON *render_structured(cJSON *structured, bool is_error, const char *note, enum mcp_version v)
{
	cJSON *result = NULL;
	char *text = NULL;

	if (!structured)
		return NULL;
	text = cJSON_PrintUnformatted(structured);
	result = cJSON_CreateObject();
	if (!text || !result)
		goto fail;
	cJSON *content = cJSON_AddArrayToObject(result, "content");
	if (!content || !add_text_block(content, text))
		goto fail;
	if (note && !add_text_block(content, note))
		goto fail;
	if (v >= MCP_2025_06_18) {
		if (!cJSON_AddItemToObject(result, "structuredContent", structured))
			goto fail;
		structured = NULL;
	}
	if (!cJSON_AddBoolToObject(result, "isError", is_error))
		goto fail;
	cJSON_Delete(structured);
	cJSON_free(text);
	return result;
fail:
	cJSON_Delete(structured);
	cJSON_Delete(result);
	cJSON_free(text);
	return NULL;
}

cJSON *render_tool_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	/* A cut message could end inside a UTF-8 character; repair it. */
	cJSON *text = render_string(msg);
	cJSON *result = cJSON_CreateObject();
	cJSON *block = cJSON_CreateObject();
	if (!text || !result || !block)
		goto fail;
	if (!cJSON_AddStringToObject(block, "type", "text") ||
	    !cJSON_AddItemToObject(block, "text", text))
		goto fail;
	text = NULL;
	cJSON *content = cJSON_AddArrayToObject(result, "content");
	if (!content || !cJSON_AddItemToArray(content, block))
		goto fail;
	block = NULL;
	if (!cJSON_AddTrueToObject(result, "isError"))
		goto fail;
	return result;
fail:
	cJSON_Delete(text);
	cJSON_Delete(block);
	cJSON_Delete(result);
	return NULL;
}

/* "256 MiB", "64 KiB" or "1000 bytes": exact, never rounded. */
static void format_bytes(char *buf, size_t cap, uint64_t n)
{
	if (n != 0 && n % (UINT64_C(1) << 30) == 0)
		snprintf(buf, cap, "%" PRIu64 " GiB", n >> 30);
	else if (n != 0 && n % (UINT64_C(1) << 20) == 0)
		snprintf(buf, cap, "%" PRIu64 " MiB", n >> 20);
	else if (n != 0 && n % (UINT64_C(1) << 10) == 0)
		snprintf(buf, cap, "%" PRIu64 " KiB", n >> 10);
	else
		snprintf(buf, cap, "%" PRIu64 " bytes", n);
}

static bool exited(const struct job_outcome *out)
{
	return !out->rejected &&
	       (out->result.status == IPC_ST_OK || out->result.status == IPC_ST_EXIT);
}

/* The second text block of a failed execution: what stopped it, in words a
 * model can act on. */
static void explain(const struct job_outcome *out, char *buf, size_t cap)
{
	const struct ipc_result *r = &out->result;
	const char *msg = r->message[0] ? r->message : NULL;
	char size[64];

	if (out->rejected) {
		if (!msg)
			msg = out->reject_reason ? ipc_run_err_name(out->reject_reason)
						 : "no reason given";
		if (out->reject_reason)
			snprintf(buf, cap, "The sandbox refused the job: %s", msg);
		else
			snprintf(buf, cap, "The sandbox could not be reached: %s", msg);
		return;
	}
	switch (r->status) {
	case IPC_ST_EXIT:
		snprintf(buf, cap, "The program exited with code %" PRId32 ".", r->exit_code);
		break;
	case IPC_ST_SIGNAL: {
		const char *abbrev = r->signal > 0 ? sigabbrev_np(r->signal) : NULL;
		if (abbrev)
			snprintf(buf, cap, "The program was killed by signal %" PRId32 " (SIG%s).",
				 r->signal, abbrev);
		else
			snprintf(buf, cap, "The program was killed by signal %" PRId32 ".",
				 r->signal);
		break;
	}
	case IPC_ST_TIMEOUT:
		if (out->limits.cpu_ms != 0 && r->cpu_user_ms + r->cpu_sys_ms >= out->limits.cpu_ms)
			snprintf(buf, cap,
				 "Execution stopped: CPU time limit of %" PRIu64 " ms reached.",
				 out->limits.cpu_ms);
		else if (out->limits.wall_ms != 0)
			snprintf(buf, cap,
				 "Execution stopped: wall-clock limit of %" PRIu64 " ms reached.",
				 out->limits.wall_ms);
		else
			snprintf(buf, cap, "Execution stopped: time limit reached.");
		break;
	case IPC_ST_MEMORY:
		if (out->limits.memory_bytes != 0) {
			format_bytes(size, sizeof(size), out->limits.memory_bytes);
			snprintf(buf, cap, "Execution stopped: memory limit of %s reached.", size);
		} else {
			snprintf(buf, cap, "Execution stopped: memory limit reached.");
		}
		break;
	case IPC_ST_OUTPUT_LIMIT:
		if (out->limits.output_bytes != 0) {
			format_bytes(size, sizeof(size), out->limits.output_bytes);
			snprintf(buf, cap,
				 "Execution stopped: output passed the limit of %s per "
				 "stream; the rest was discarded.",
				 size);
		} else {
			snprintf(buf, cap, "Execution stopped: output limit reached.");
		}
		break;
	case IPC_ST_SECCOMP:
		snprintf(buf, cap,
			 "Execution stopped: the program made a system call the sandbox "
			 "does not allow.");
		break;
	case IPC_ST_CANCELLED:
		snprintf(buf, cap, "Execution was cancelled before it finished.");
		break;
	default:
		snprintf(buf, cap, "The sandbox failed and the code may not have run: %s",
			 msg ? msg : "internal error");
		break;
	}
}

const char *render_status_name(const struct job_outcome *out)
{
	if (out->rejected || out->result.status > IPC_ST_MAX)
		return "internal";
	return ipc_status_name(out->result.status);
}

cJSON *render_outcome(const struct job_outcome *out, enum mcp_version v)
{
	const struct ipc_result *r = &out->result;
	char execution_id[17];
	char note[IPC_MAX_MESSAGE + 128];
	cJSON *sc = cJSON_CreateObject();
	bool ok;

	if (!sc)
		return NULL;
	snprintf(execution_id, sizeof(execution_id), "%016" PRIx64, out->job_id);
	bool is_error = out->rejected || r->status != IPC_ST_OK;

	ok = cJSON_AddStringToObject(sc, "status", render_status_name(out)) != NULL;
	if (exited(out) && r->exit_code >= 0)
		ok = ok && cJSON_AddNumberToObject(sc, "exit_code", r->exit_code);
	else
		ok = ok && cJSON_AddNullToObject(sc, "exit_code");
	if (!exited(out) && !out->rejected && r->signal > 0)
		ok = ok && cJSON_AddNumberToObject(sc, "signal", r->signal);
	else
		ok = ok && cJSON_AddNullToObject(sc, "signal");

	cJSON *so = render_bytes(out->rejected ? NULL : out->stdout_data, out->stdout_len);
	if (so && !cJSON_AddItemToObject(sc, "stdout", so)) {
		cJSON_Delete(so);
		so = NULL;
	}
	cJSON *se = render_bytes(out->rejected ? NULL : out->stderr_data, out->stderr_len);
	if (se && !cJSON_AddItemToObject(sc, "stderr", se)) {
		cJSON_Delete(se);
		se = NULL;
	}
	ok = ok && so && se;
	ok = ok &&
	     cJSON_AddBoolToObject(sc, "stdout_truncated", !out->rejected && out->stdout_truncated);
	ok = ok &&
	     cJSON_AddBoolToObject(sc, "stderr_truncated", !out->rejected && out->stderr_truncated);
	ok = ok && cJSON_AddNumberToObject(sc, "wall_ms", json_uint(r->wall_ms));
	/* Sum without overflow: each part is capped before adding. */
	uint64_t cpu = r->cpu_user_ms > UINT64_MAX - r->cpu_sys_ms ? UINT64_MAX
								   : r->cpu_user_ms + r->cpu_sys_ms;
	ok = ok && cJSON_AddNumberToObject(sc, "cpu_ms", json_uint(cpu));
	ok =
	    ok && cJSON_AddNumberToObject(sc, "memory_peak_bytes", json_uint(r->memory_peak_bytes));
	ok = ok && cJSON_AddStringToObject(sc, "execution_id", execution_id);
	if (!ok) {
		cJSON_Delete(sc);
		return NULL;
	}

	if (!is_error)
		return render_structured(sc, false, NULL, v);
	explain(out, note, sizeof(note));
	/* The jailer's message is bytes we did not write; repair before use. */
	char *clean;
	size_t clean_len;
	if (utf8_sanitize(note, strlen(note), &clean, &clean_len) < 0) {
		cJSON_Delete(sc);
		return NULL;
	}
	cJSON *result = render_structured(sc, true, clean, v);
	free(clean);
	return result;
}
