/* JSON-RPC 2.0 framing (see jsonrpc.h). */
#include "jsonrpc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_check.h"
#include "utf8.h"

int jsonrpc_parse(const char *data, size_t len, struct jsonrpc_input *in, const char **why)
{
	struct json_check_info info;

	in->root = NULL;
	in->nul_escape = false;
	if (!utf8_valid(data, len)) {
		*why = "message is not valid UTF-8";
		return JSONRPC_PARSE_ERROR;
	}
	if (json_check(data, len, &info, why) < 0)
		return JSONRPC_PARSE_ERROR;
	/* json_check accepted it, so cJSON can only fail for lack of memory;
	 * a parse error is still the honest answer about this message. */
	in->root = cJSON_ParseWithLength(data, len);
	if (!in->root) {
		*why = "message could not be parsed";
		return JSONRPC_PARSE_ERROR;
	}
	in->nul_escape = info.nul_escape;
	*why = NULL;
	return 0;
}

bool jsonrpc_id_valid(const cJSON *id)
{
	if (cJSON_IsString(id))
		return id->valuestring != NULL;
	if (!cJSON_IsNumber(id))
		return false;
	double v = id->valuedouble;
	return isfinite(v) && v == floor(v) && fabs(v) <= JSONRPC_MAX_INT_ID;
}

bool jsonrpc_id_equal(const cJSON *a, const cJSON *b)
{
	if (!jsonrpc_id_valid(a) || !jsonrpc_id_valid(b))
		return false;
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return strcmp(a->valuestring, b->valuestring) == 0;
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return false;
}

static void invalid(struct jsonrpc_msg *m, const char *why)
{
	m->kind = JSONRPC_INVALID;
	m->method = NULL;
	m->params = NULL;
	m->error = why;
}

void jsonrpc_classify(const cJSON *item, struct jsonrpc_msg *m)
{
	const cJSON *version, *id, *method, *params, *result, *error;

	memset(m, 0, sizeof(*m));
	if (!cJSON_IsObject(item)) {
		invalid(m, "invalid request: a message must be a JSON object");
		return;
	}
	int rid = json_member(item, "id", &id);
	int rversion = json_member(item, "jsonrpc", &version);
	int rmethod = json_member(item, "method", &method);
	int rparams = json_member(item, "params", &params);
	int rresult = json_member(item, "result", &result);
	int rerror = json_member(item, "error", &error);

	if (rid == -EEXIST || rversion == -EEXIST || rmethod == -EEXIST || rparams == -EEXIST ||
	    rresult == -EEXIST || rerror == -EEXIST) {
		invalid(m, "invalid request: a member appears more than once");
		return;
	}
	if (rmethod != 0 && (rresult == 0 || rerror == 0)) {
		/* A response to a request we sent.  We send none, so it is
		 * dropped whatever it holds; it must never be answered. */
		m->kind = JSONRPC_RESPONSE;
		return;
	}
	if (rid == 0) {
		if (!jsonrpc_id_valid(id)) {
			invalid(m, "invalid request: id must be a string or an integer");
			return;
		}
		m->id = id;
	}
	if (!cJSON_IsString(version) || strcmp(version->valuestring, "2.0") != 0) {
		invalid(m, "invalid request: jsonrpc must be \"2.0\"");
		return;
	}
	if (rmethod != 0 || !cJSON_IsString(method)) {
		invalid(m, "invalid request: method must be a string");
		return;
	}
	if (rparams == 0 && !cJSON_IsObject(params) && !cJSON_IsArray(params)) {
		invalid(m, "invalid request: params must be an object or an array");
		return;
	}
	m->kind = rid == 0 ? JSONRPC_REQUEST : JSONRPC_NOTIFICATION;
	m->method = method->valuestring;
	m->params = rparams == 0 ? params : NULL;
}

/* cJSON prints numbers with an approximate round-trip check that turns
 * 9007199254740991 into 9.00719925474099e+15; an id must come back exact,
 * so integers are written as raw digits. */
static cJSON *id_copy(const cJSON *id)
{
	char digits[32];

	if (!cJSON_IsNumber(id))
		return cJSON_Duplicate(id, 0);
	snprintf(digits, sizeof(digits), "%.0f", id->valuedouble);
	return cJSON_CreateRaw(digits);
}

static cJSON *envelope(const cJSON *id, enum jsonrpc_id_style style)
{
	cJSON *msg = cJSON_CreateObject();
	if (!msg)
		return NULL;
	if (!cJSON_AddStringToObject(msg, "jsonrpc", "2.0"))
		goto fail;
	if (id) {
		cJSON *copy = id_copy(id);
		if (!copy)
			goto fail;
		if (!cJSON_AddItemToObject(msg, "id", copy)) {
			cJSON_Delete(copy);
			goto fail;
		}
	} else if (style == JSONRPC_ID_NULL) {
		if (!cJSON_AddNullToObject(msg, "id"))
			goto fail;
	}
	return msg;
fail:
	cJSON_Delete(msg);
	return NULL;
}

cJSON *jsonrpc_make_result(const cJSON *id, cJSON *result)
{
	cJSON *msg = envelope(id, JSONRPC_ID_NULL);
	if (!msg || !result) {
		cJSON_Delete(msg);
		cJSON_Delete(result);
		return NULL;
	}
	if (!cJSON_AddItemToObject(msg, "result", result)) {
		cJSON_Delete(result);
		cJSON_Delete(msg);
		return NULL;
	}
	return msg;
}

cJSON *jsonrpc_make_error(const cJSON *id, int code, const char *message,
			  enum jsonrpc_id_style style)
{
	cJSON *msg = envelope(id, style);
	cJSON *err = cJSON_CreateObject();
	if (!msg || !err)
		goto fail;
	if (!cJSON_AddNumberToObject(err, "code", code) ||
	    !cJSON_AddStringToObject(err, "message", message))
		goto fail;
	if (!cJSON_AddItemToObject(msg, "error", err))
		goto fail;
	return msg;
fail:
	cJSON_Delete(err);
	cJSON_Delete(msg);
	return NULL;
}

char *jsonrpc_serialize(const cJSON *msg, size_t *len)
{
	/* Unformatted output has no newline: strings escape \n, and
	 * raw items (rendered program output) are produced escaped too. */
	char *s = cJSON_PrintUnformatted(msg);
	if (!s)
		return NULL;
	*len = strlen(s);
	return s;
}

char *jsonrpc_serialize_printed_result(const cJSON *id, const char *result_json, size_t *len)
{
	static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
	static const char mid[] = ",\"result\":";
	cJSON *copy = id ? id_copy(id) : cJSON_CreateNull();
	char *id_text = copy ? cJSON_PrintUnformatted(copy) : NULL;
	cJSON_Delete(copy);
	if (!id_text)
		return NULL;
	size_t id_len = strlen(id_text), res_len = strlen(result_json);
	size_t n = sizeof(head) - 1 + id_len + sizeof(mid) - 1 + res_len + 1;
	char *out = cJSON_malloc(n + 1);
	if (out) {
		char *p = out;
		memcpy(p, head, sizeof(head) - 1);
		p += sizeof(head) - 1;
		memcpy(p, id_text, id_len);
		p += id_len;
		memcpy(p, mid, sizeof(mid) - 1);
		p += sizeof(mid) - 1;
		memcpy(p, result_json, res_len);
		p += res_len;
		*p++ = '}';
		*p = '\0';
		*len = n;
	}
	cJSON_free(id_text);
	return out;
}
