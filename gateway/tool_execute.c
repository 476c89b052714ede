/* The `execute` tool: validate {code, language, timeout_s, stdin} against
 * the tenant's limits, run the code through the backend, render the
 * outcome.  Every bad argument is answered with isError and a message that
 * says what to change, never with a protocol error.
 */
#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_check.h"
#include "limits.h"
#include "render.h"
#include "tools.h"
#include "utf8.h"

/* Languages execute offers; the jailer profile has the language's name. */
static const char *const languages[] = {"python", "javascript"};
#define NLANGUAGES (sizeof(languages) / sizeof(languages[0]))

static const char *const known_arguments[] = {"code", "language", "timeout_s", "stdin"};
#define NKNOWN (sizeof(known_arguments) / sizeof(known_arguments[0]))

/* Longest argument name echoed back in an error message. */
#define MAX_ECHOED_NAME 64u

/* When no ceiling applies at all, a timeout still has to fit the wire. */
#define MAX_TIMEOUT_S 1e9

/* A running execution: the observer's token and, when the caller asked
 * for progress, the timer that reports it. */
struct execution {
	void *token;
	bool observed;
	struct event *tick;
	struct timespec started;
	double total_s; /* the wall limit, 0 when unknown */
};

static void execution_end(struct tool_call *call, const struct job_outcome *out)
{
	struct execution *x = call->state;
	const struct job_observer *obs = call->cfg->observer;

	if (!x)
		return;
	call->state = NULL;
	call->abandoned = NULL;
	if (x->tick)
		event_free(x->tick);
	if (x->observed && obs && obs->finished)
		obs->finished(obs->arg, x->token, out);
	free(x);
}

static void execute_done(const struct job_outcome *out, void *arg)
{
	struct tool_call *call = arg;

	call->job = NULL;
	execution_end(call, out);
	if (call->cancelled) {
		tool_call_finish(call, NULL);
		return;
	}
	tool_call_finish(call, render_outcome(out, call->version));
}

static void execute_abandoned(struct tool_call *call)
{
	execution_end(call, NULL);
}

/* Append "[name] <the last `cap` bytes of buf>" to msg, cutting only at a
 * character boundary. */
static void append_tail(char *msg, size_t msgsize, const char *name, const char *buf, size_t len,
			size_t cap)
{
	size_t used = strlen(msg);
	if (len == 0 || used + 16 >= msgsize)
		return;
	if (cap > msgsize - used - 16)
		cap = msgsize - used - 16;
	size_t from = len > cap ? len - cap : 0;
	while (from < len && ((unsigned char)buf[from] & 0xC0) == 0x80)
		from++; /* not in the middle of a UTF-8 sequence */
	int n = snprintf(msg + used, msgsize - used, "%s[%s] ", used ? "\n" : "", name);
	if (n < 0 || (size_t)n >= msgsize - used)
		return;
	used += (size_t)n;
	size_t take = len - from;
	if (take > msgsize - used - 1)
		take = msgsize - used - 1;
	memcpy(msg + used, buf + from, take);
	msg[used + take] = '\0';
}

/* notifications/progress: seconds elapsed (total: the wall limit) and the
 * tail of the output so far, bounded by progress_message_bytes. */
static void execute_tick(evutil_socket_t fd, short what, void *arg)
{
	struct tool_call *call = arg;
	struct execution *x = call->state;
	struct timespec now;
	(void)fd;
	(void)what;

	if (!x || !call->job || clock_gettime(CLOCK_MONOTONIC, &now) < 0)
		return;
	double elapsed = (double)(now.tv_sec - x->started.tv_sec) +
			 (double)(now.tv_nsec - x->started.tv_nsec) / 1e9;
	size_t budget = call->cfg->progress_message_bytes;
	char *msg = NULL;
	if (budget > 0 && call->backend->peek) {
		const char *out, *err;
		size_t out_len, err_len;
		call->backend->peek(call->backend, call->job, &out, &out_len, &err, &err_len);
		size_t size = budget + 64;
		msg = malloc(size);
		if (msg) {
			/* valid UTF-8 only: the output may be anything */
			char *clean_out = NULL, *clean_err = NULL;
			size_t clean_out_len = 0, clean_err_len = 0;
			msg[0] = '\0';
			if (utf8_sanitize(out, out_len, &clean_out, &clean_out_len) == 0 &&
			    utf8_sanitize(err, err_len, &clean_err, &clean_err_len) == 0) {
				size_t half = clean_err_len ? budget / 2 : budget;
				append_tail(msg, size, "stdout", clean_out,
					    strnlen(clean_out, clean_out_len), half);
				append_tail(msg, size, "stderr", clean_err,
					    strnlen(clean_err, clean_err_len), budget - half);
			}
			free(clean_out);
			free(clean_err);
			if (msg[0] == '\0') {
				free(msg);
				msg = NULL;
			}
		}
	}
	/* Rounded to the millisecond so two ticks never send equal values. */
	tool_call_progress(call, floor(elapsed * 1000.0) / 1000.0, x->total_s,
			   msg ? msg : "running");
	free(msg);
}

/* Finish with an argument error and report it handled. */
#define REJECT(call, ...)                                                                          \
	do {                                                                                       \
		tool_call_finish((call), render_tool_error(__VA_ARGS__));                          \
		return;                                                                            \
	} while (0)

static bool known_argument(const char *name)
{
	for (size_t i = 0; i < NKNOWN; i++)
		if (strcmp(name, known_arguments[i]) == 0)
			return true;
	return false;
}

/* "python, javascript" or "none": the languages this tenant can use here. */
static void available_languages(const struct tool_call *call, char *buf, size_t cap)
{
	const struct ipc_hello_ok *hello = call->backend->profiles(call->backend);
	struct profile_limits pl;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NLANGUAGES; i++) {
		if (limits_for_profile(hello, call->cfg->tenant, languages[i], &pl) < 0)
			continue;
		int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", languages[i]);
		if (n < 0 || (size_t)n >= cap - used)
			break;
		used += (size_t)n;
	}
	if (used == 0)
		snprintf(buf, cap, "none");
}

static void execute_handler(struct tool_call *call, const cJSON *args)
{
	const cJSON *code, *language, *timeout, *stdin_arg;
	struct profile_limits pl;
	struct job_request req;
	const char *lang = languages[0];
	char avail[128];

	for (const cJSON *it = args->child; it; it = it->next) {
		if (known_argument(it->string))
			continue;
		if (strlen(it->string) > MAX_ECHOED_NAME)
			REJECT(call,
			       "unknown argument (a name longer than %u bytes); execute accepts "
			       "code, language, timeout_s and stdin",
			       MAX_ECHOED_NAME);
		REJECT(call,
		       "unknown argument \"%s\"; execute accepts code, language, timeout_s and "
		       "stdin",
		       it->string);
	}
	for (size_t i = 0; i < NKNOWN; i++) {
		const cJSON *unused;
		if (json_member(args, known_arguments[i], &unused) == -EEXIST)
			REJECT(call, "argument \"%s\" is given more than once", known_arguments[i]);
	}
	json_member(args, "code", &code);
	json_member(args, "language", &language);
	json_member(args, "timeout_s", &timeout);
	json_member(args, "stdin", &stdin_arg);

	if (!code)
		REJECT(call, "code is required: pass the program source as a string");
	if (!cJSON_IsString(code))
		REJECT(call, "code must be a string");
	size_t code_len = strlen(code->valuestring);
	if (code_len == 0)
		REJECT(call, "code must not be empty");
	if (code_len > IPC_MAX_CODE_BYTES)
		REJECT(call, "code is %zu bytes; the limit is %u bytes", code_len,
		       IPC_MAX_CODE_BYTES);

	if (language) {
		lang = NULL;
		for (size_t i = 0; cJSON_IsString(language) && i < NLANGUAGES; i++)
			if (strcmp(language->valuestring, languages[i]) == 0)
				lang = languages[i];
		if (!lang)
			REJECT(call, "language must be \"python\" or \"javascript\"");
	}
	if (limits_for_profile(call->backend->profiles(call->backend), call->cfg->tenant, lang,
			       &pl) < 0) {
		available_languages(call, avail, sizeof(avail));
		REJECT(call, "language \"%s\" is not available here; available: %s", lang, avail);
	}

	memset(&req, 0, sizeof(req));
	limits_request(&pl, &req.limits);
	if (timeout) {
		if (!cJSON_IsNumber(timeout))
			REJECT(call, "timeout_s must be a number of seconds");
		double t = timeout->valuedouble;
		if (!(t > 0))
			REJECT(call, "timeout_s must be greater than 0");
		uint64_t max_ms = pl.maximum.wall_ms;
		if (max_ms != 0 && t > (double)max_ms / 1000.0)
			REJECT(call, "timeout_s must be at most %g (this tenant's limit)",
			       (double)max_ms / 1000.0);
		if (t > MAX_TIMEOUT_S)
			REJECT(call, "timeout_s must be at most %g", MAX_TIMEOUT_S);
		uint64_t ms = (uint64_t)llround(t * 1000.0);
		if (ms < 1)
			ms = 1;
		if (max_ms != 0 && ms > max_ms)
			ms = max_ms;
		req.limits.wall_ms = ms;
	}

	size_t stdin_len = 0;
	if (stdin_arg) {
		if (!cJSON_IsString(stdin_arg))
			REJECT(call, "stdin must be a string");
		stdin_len = strlen(stdin_arg->valuestring);
		if (stdin_len > IPC_MAX_STDIN_BYTES)
			REJECT(call, "stdin is %zu bytes; the limit is %u bytes", stdin_len,
			       IPC_MAX_STDIN_BYTES);
	}

	unsigned max_jobs = call->cfg->max_concurrent_jobs;
	if (max_jobs != 0 && call->jobs_running >= max_jobs)
		REJECT(call, "too many executions running (limit %u); wait for one to finish",
		       max_jobs);

	req.profile = lang;
	req.code = code->valuestring;
	req.code_len = code_len;
	/* Empty stdin and no stdin read the same: EOF at once. */
	req.stdin_data = stdin_len ? stdin_arg->valuestring : NULL;
	req.stdin_len = stdin_len;
	if (call->backend->next_id)
		req.job_id = call->backend->next_id(call->backend);

	struct execution *x = calloc(1, sizeof(*x));
	if (!x)
		REJECT(call, "the execution could not be started (out of memory); try again");
	const struct job_observer *obs = call->cfg->observer;
	if (obs && obs->admit) {
		char why[256] = "";
		int rc = obs->admit(obs->arg, &req, lang, &x->token, why, sizeof(why));
		if (rc < 0) {
			free(x);
			REJECT(call, "%s", why[0] ? why : "the execution was refused");
		}
		x->observed = true;
	}
	call->state = x;
	call->abandoned = execute_abandoned;
	uint64_t wall_ms = req.limits.wall_ms ? req.limits.wall_ms : pl.defaults.wall_ms;
	x->total_s = (double)wall_ms / 1000.0;
	if (call->cfg->base && call->cfg->progress_interval_ms > 0 && tool_call_has_progress(call) &&
	    clock_gettime(CLOCK_MONOTONIC, &x->started) == 0) {
		struct timeval iv = {.tv_sec = call->cfg->progress_interval_ms / 1000,
				     .tv_usec = (call->cfg->progress_interval_ms % 1000) * 1000};
		x->tick = event_new(call->cfg->base, -1, EV_PERSIST, execute_tick, call);
		if (!x->tick || event_add(x->tick, &iv) < 0) {
			execution_end(call, NULL);
			REJECT(call, "the execution could not be started (out of memory); try "
				     "again");
		}
	}
	call->job = call->backend->start(call->backend, &req, execute_done, call);
	if (!call->job) {
		execution_end(call, NULL);
		REJECT(call, "the execution could not be started (internal error); try again");
	}
}

const struct tool_def tool_execute = {
    .name = "execute",
    .title = "Execute code",
    .description = "Run a Python or JavaScript program in a fresh, isolated sandbox and return its "
		   "stdout, stderr, exit status and resource use. Every call starts from a clean "
		   "state: nothing persists between calls. The sandbox has limits on time, memory, "
		   "processes and output size, and no network unless get_sandbox_info says "
		   "otherwise. Print what you want to see: the value of the last expression is not "
		   "returned. isError is true unless the program exited with code 0.",
    .input_schema =
	"{\"type\":\"object\","
	"\"properties\":{"
	"\"code\":{\"type\":\"string\",\"minLength\":1,"
	"\"description\":\"Program source to run (at most 1 MiB).\"},"
	"\"language\":{\"type\":\"string\",\"enum\":[\"python\",\"javascript\"],"
	"\"default\":\"python\",\"description\":\"Interpreter to run the code with.\"},"
	"\"timeout_s\":{\"type\":\"number\",\"exclusiveMinimum\":0,"
	"\"description\":\"Wall-clock limit in seconds (fractions allowed); at most the "
	"maximum get_sandbox_info shows. Default: the sandbox default.\"},"
	"\"stdin\":{\"type\":\"string\","
	"\"description\":\"Text the program reads on standard input (at most 1 MiB).\"}"
	"},"
	"\"required\":[\"code\"],"
	"\"additionalProperties\":false}",
    .output_schema = render_outcome_schema,
    .annotations =
	{
	    .read_only = false,
	    .destructive = false,
	    .idempotent = false,
	    .open_world = false,
	},
    .handler = execute_handler,
};
