/* The `get_sandbox_info` tool: the languages this tenant can use with
 * their interpreter versions, its limits (defaults and maxima) and whether
 * the network is reachable.
 *
 * An interpreter's version is learned once per (backend, profile) by a
 * tiny probe job and kept for the life of the process, shared by every
 * session.  A call that arrives while a probe runs waits for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "render.h"
#include "tools.h"

#define MAX_VERSION_LEN 32u
/* Profiles a process may probe in total (backends x profiles); beyond it
 * versions read "unknown". */
#define MAX_PROBES 64u

struct probe {
	struct exec_backend *backend;
	char profile[IPC_MAX_NAME + 1];
	bool running;
	bool orphaned; /* forgotten while running: freed by its callback */
	char version[MAX_VERSION_LEN + 1];
	struct probe *next;
};

struct waiter {
	struct tool_call *call;
	struct waiter *prev, *next;
};

static struct probe *probes;
static unsigned nprobes;
static struct waiter *waiters;

static const struct {
	const char *language;
	const char *code;
} probe_code[] = {
    {"python", "import sys;print(sys.version.split()[0])"},
    {"javascript", "console.log(process.versions.node)"},
};

static void wake_waiters(void);

/* The probe's stdout is a version only if it looks like one. */
static void parse_version(const struct job_outcome *out, char *version)
{
	size_t len = out->stdout_len;

	strcpy(version, "unknown");
	if (out->rejected || out->result.status != IPC_ST_OK || !out->stdout_data)
		return;
	while (len > 0 && strchr(" \t\r\n", out->stdout_data[len - 1]) &&
	       out->stdout_data[len - 1] != '\0')
		len--;
	if (len == 0 || len > MAX_VERSION_LEN)
		return;
	for (size_t i = 0; i < len; i++) {
		char c = out->stdout_data[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      c == '.' || c == '+' || c == '-' || c == '_'))
			return;
	}
	memcpy(version, out->stdout_data, len);
	version[len] = '\0';
}

static void probe_done(const struct job_outcome *out, void *arg)
{
	struct probe *p = arg;

	parse_version(out, p->version);
	p->running = false;
	if (p->orphaned) {
		free(p);
		return;
	}
	wake_waiters();
}

/* The probe for (backend, profile), started if it does not exist yet.
 * NULL when the table is full (the version then reads "unknown"). */
static struct probe *probe_get(struct exec_backend *b, const struct ipc_profile *profile)
{
	for (struct probe *p = probes; p; p = p->next)
		if (p->backend == b && strcmp(p->profile, profile->name) == 0)
			return p;
	if (nprobes >= MAX_PROBES)
		return NULL;
	struct probe *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->backend = b;
	snprintf(p->profile, sizeof(p->profile), "%s", profile->name);
	strcpy(p->version, "unknown");
	p->next = probes;
	probes = p;
	nprobes++;

	const char *code = NULL;
	for (size_t i = 0; i < sizeof(probe_code) / sizeof(probe_code[0]); i++)
		if (strcmp(profile->language, probe_code[i].language) == 0)
			code = probe_code[i].code;
	if (!code)
		return p;
	struct job_request req = {
	    .profile = p->profile,
	    .code = code,
	    .code_len = strlen(code),
	};
	/* done never runs inside start, so `running` is set in time. */
	p->running = b->start(b, &req, probe_done, p) != NULL;
	return p;
}

void tool_sandbox_info_forget(struct exec_backend *backend)
{
	struct probe **pp = &probes;

	while (*pp) {
		struct probe *p = *pp;
		if (p->backend != backend) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		nprobes--;
		if (p->running)
			p->orphaned = true;
		else
			free(p);
	}
}

/* Profiles shown to this call's tenant, in the jailer's order. */
static bool listed(const struct tool_call *call, const struct ipc_profile *profile,
		   struct profile_limits *pl)
{
	return limits_for_profile(call->backend->profiles(call->backend), call->cfg->tenant,
				  profile->name, pl) == 0;
}

/* True when no probe this call needs is still running (starting the ones
 * that do not exist yet). */
static bool ready(struct tool_call *call)
{
	const struct ipc_hello_ok *hello = call->backend->profiles(call->backend);
	struct profile_limits pl;
	bool all = true;

	for (uint32_t i = 0; hello && i < hello->nprofiles && i < IPC_MAX_PROFILES; i++) {
		if (!listed(call, &hello->profiles[i], &pl))
			continue;
		struct probe *p = probe_get(call->backend, &hello->profiles[i]);
		if (p && p->running)
			all = false;
	}
	return all;
}

static const char *cached_version(struct exec_backend *b, const char *profile)
{
	for (struct probe *p = probes; p; p = p->next)
		if (p->backend == b && strcmp(p->profile, profile) == 0 && !p->running)
			return p->version;
	return "unknown";
}

/* A limit of 0 means unset: shown as null (no limit). */
static bool add_limit(cJSON *obj, const char *key, uint64_t v)
{
	if (v == 0)
		return cJSON_AddNullToObject(obj, key) != NULL;
	const uint64_t max_exact = (UINT64_C(1) << 53) - 1;
	return cJSON_AddNumberToObject(obj, key, (double)(v > max_exact ? max_exact : v)) != NULL;
}

static bool add_limits(cJSON *parent, const char *key, const struct ipc_limits *l)
{
	cJSON *o = cJSON_AddObjectToObject(parent, key);
	return o && add_limit(o, "wall_ms", l->wall_ms) && add_limit(o, "cpu_ms", l->cpu_ms) &&
	       add_limit(o, "memory_bytes", l->memory_bytes) && add_limit(o, "pids", l->pids) &&
	       add_limit(o, "tmpfs_bytes", l->tmpfs_bytes) &&
	       add_limit(o, "output_bytes", l->output_bytes);
}

static bool add_rendered(cJSON *obj, const char *key, cJSON *value)
{
	if (value && cJSON_AddItemToObject(obj, key, value))
		return true;
	cJSON_Delete(value);
	return false;
}

static cJSON *render_info(struct tool_call *call)
{
	const struct ipc_hello_ok *hello = call->backend->profiles(call->backend);
	const struct tenant_limits *tenant = call->cfg->tenant;
	struct profile_limits pl;
	bool network = false;
	char name[sizeof(tenant->name)];

	cJSON *sc = cJSON_CreateObject();
	cJSON *langs = sc ? cJSON_AddArrayToObject(sc, "languages") : NULL;
	cJSON *limits = sc ? cJSON_AddObjectToObject(sc, "limits") : NULL;
	bool ok = langs && limits;

	for (uint32_t i = 0; ok && hello && i < hello->nprofiles && i < IPC_MAX_PROFILES; i++) {
		const struct ipc_profile *prof = &hello->profiles[i];
		if (!listed(call, prof, &pl))
			continue;
		network = network || prof->network;
		cJSON *entry = cJSON_CreateObject();
		ok = entry && cJSON_AddItemToArray(langs, entry);
		if (!ok) {
			cJSON_Delete(entry);
			break;
		}
		ok = add_rendered(entry, "language", render_string(prof->language)) &&
		     add_rendered(entry, "profile", render_string(prof->name)) &&
		     add_rendered(entry, "interpreter", render_string(prof->interpreter)) &&
		     add_rendered(entry, "version",
				  render_string(cached_version(call->backend, prof->name)));
		cJSON *per = ok ? cJSON_CreateObject() : NULL;
		ok = ok && add_rendered(limits, prof->name, per) &&
		     add_limits(per, "default", &pl.defaults) &&
		     add_limits(per, "maximum", &pl.maximum);
	}
	ok = ok && cJSON_AddBoolToObject(sc, "network", network && tenant && tenant->network);
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(name) - 1, tenant ? tenant->name : "");
	ok = ok && add_rendered(sc, "tenant", render_string(name));
	if (!ok) {
		cJSON_Delete(sc);
		return NULL;
	}
	return render_structured(sc, false, NULL, call->version);
}

static void waiter_unlink(struct waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		waiters = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->prev = w->next = NULL;
}

static void waiter_detach(struct tool_call *call)
{
	struct waiter *w = call->state;

	waiter_unlink(w);
	free(w);
	call->state = NULL;
	call->detach = NULL;
}

static void wake_waiters(void)
{
	struct waiter *done = NULL;

	/* Take the ready ones out first: finishing a call sends a reply, and
	 * the list must be consistent whatever that does. */
	for (struct waiter *w = waiters, *next; w; w = next) {
		next = w->next;
		if (!ready(w->call))
			continue;
		waiter_unlink(w);
		w->next = done;
		done = w;
	}
	while (done) {
		struct waiter *w = done;
		struct tool_call *call = w->call;
		done = w->next;
		free(w);
		call->state = NULL;
		call->detach = NULL;
		tool_call_finish(call, render_info(call));
	}
}

static void sandbox_info_handler(struct tool_call *call, const cJSON *args)
{
	if (args->child) {
		tool_call_finish(call, render_tool_error("get_sandbox_info takes no arguments"));
		return;
	}
	if (ready(call)) {
		tool_call_finish(call, render_info(call));
		return;
	}
	struct waiter *w = calloc(1, sizeof(*w));
	if (!w) {
		tool_call_finish(call, NULL);
		return;
	}
	w->call = call;
	w->next = waiters;
	if (waiters)
		waiters->prev = w;
	waiters = w;
	call->state = w;
	call->detach = waiter_detach;
}

/* One limits object; 0 (unset) is rendered as null. */
#define LIMITS_SCHEMA                                                                              \
	"{\"type\":\"object\",\"properties\":{"                                                    \
	"\"wall_ms\":{\"type\":[\"integer\",\"null\"]},"                                           \
	"\"cpu_ms\":{\"type\":[\"integer\",\"null\"]},"                                            \
	"\"memory_bytes\":{\"type\":[\"integer\",\"null\"]},"                                      \
	"\"pids\":{\"type\":[\"integer\",\"null\"]},"                                              \
	"\"tmpfs_bytes\":{\"type\":[\"integer\",\"null\"]},"                                       \
	"\"output_bytes\":{\"type\":[\"integer\",\"null\"]}},"                                     \
	"\"required\":[\"wall_ms\",\"cpu_ms\",\"memory_bytes\",\"pids\",\"tmpfs_bytes\","          \
	"\"output_bytes\"]}"

const struct tool_def tool_get_sandbox_info = {
    .name = "get_sandbox_info",
    .title = "Sandbox information",
    .description =
	"Describe the sandbox execute runs code in: the available languages with their "
	"interpreter versions, the default and maximum limits per language (wall_ms, "
	"cpu_ms, memory_bytes, pids, tmpfs_bytes, output_bytes per stream; null means no "
	"limit), and whether programs can reach the network.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false}",
    .output_schema =
	"{\"type\":\"object\",\"properties\":{"
	"\"languages\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	"\"properties\":{\"language\":{\"type\":\"string\"},\"profile\":{\"type\":\"string\"},"
	"\"interpreter\":{\"type\":\"string\"},\"version\":{\"type\":\"string\"}},"
	"\"required\":[\"language\",\"profile\",\"interpreter\",\"version\"]}},"
	"\"limits\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"object\","
	"\"properties\":{\"default\":" LIMITS_SCHEMA ",\"maximum\":" LIMITS_SCHEMA "},"
	"\"required\":[\"default\",\"maximum\"]}},"
	"\"network\":{\"type\":\"boolean\"},"
	"\"tenant\":{\"type\":\"string\"}},"
	"\"required\":[\"languages\",\"limits\",\"network\",\"tenant\"]}",
    .annotations =
	{
	    .read_only = true,
	    .destructive = false,
	    .idempotent = true,
	    .open_world = false,
	},
    .handler = sandbox_info_handler,
};
