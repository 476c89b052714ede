/* Prometheus metrics registry and text exposition (see metrics.h).
 *
 * Everything lives in fixed-size static tables: a label value that does
 * not fit (an unknown method, an unlisted status code once the spare slots
 * are taken, the 17th language, a status that is not an ipc status name)
 * is counted under "other", so no input can grow memory or the page.  The
 * gateway runs one event loop, so the registry is not locked.
 */
#include "metrics.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipc.h"

#ifndef CELLGATE_VERSION
#define CELLGATE_VERSION "unknown"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- HTTP requests ---- */

static const char *const http_methods[] = {"GET", "POST", "DELETE", "OPTIONS"};
#define N_METHODS (ARRAY_SIZE(http_methods) + 1) /* + "other" */
#define METHOD_OTHER ARRAY_SIZE(http_methods)

/* Codes the gateway answers with; they always have a slot. */
static const int listed_codes[] = {200, 202, 204, 400, 401, 403, 404, 405,
				   406, 409, 413, 415, 429, 500, 502, 503};
#define N_LISTED ARRAY_SIZE(listed_codes)
/* Room for codes outside the list, taken first come first served. */
#define N_SPARE_CODES 16
#define N_CODES (N_LISTED + N_SPARE_CODES)
#define CODE_OTHER N_CODES

/* ---- jobs ---- */

#define N_LANGS IPC_MAX_PROFILES
#define LANG_OTHER N_LANGS
#define N_STATUSES (IPC_ST_MAX + 1)
#define STATUS_OTHER N_STATUSES

static const double bucket_bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
				       1,     2.5,  5,	   10,	 30,  60};
/* The le label exactly as written in the exposition (client convention). */
static const char *const bucket_labels[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5",
					    "1",     "2.5",  "5",     "10",   "30",  "60"};
#define N_BUCKETS (ARRAY_SIZE(bucket_bounds) + 1) /* + "+Inf" */

/* A duration is clamped to this so that one absurd value cannot turn the
 * sum into inf (which would stay inf forever). */
#define MAX_SECONDS 1e9

/* ---- rate limiting ---- */

static const char *const limit_reasons[] = {"rate", "concurrency", "quota", "sessions"};
#define N_REASONS (ARRAY_SIZE(limit_reasons) + 1) /* + "other" */
#define REASON_OTHER ARRAY_SIZE(limit_reasons)

struct histogram {
	uint64_t buckets[N_BUCKETS]; /* not cumulative; cumulated when rendered */
	uint64_t count;
	double sum;
};

static struct {
	uint64_t http[N_METHODS][N_CODES + 1];
	int spare_codes[N_SPARE_CODES]; /* 0 = free */

	char langs[N_LANGS][IPC_MAX_NAME + 1]; /* "" = free */
	uint64_t jobs[N_LANGS + 1][N_STATUSES + 1];
	struct histogram duration[N_LANGS + 1];

	uint64_t auth_failures;
	uint64_t rate_limited[N_REASONS];

	int64_t sessions_active;
	int64_t jobs_active;
	int64_t sse_streams_open;
	int64_t connections_open;
	uint64_t connections_dropped[2]; /* over the limit, too slow */
	int jailer_up;
} m;

static double start_time_seconds;

/* Taken when the program is loaded: close enough to the process start, and
 * unaffected by metrics_reset. */
__attribute__((constructor)) static void metrics_record_start(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
		start_time_seconds = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t method_index(const char *method)
{
	if (!method)
		return METHOD_OTHER;
	/* Methods are case-sensitive (RFC 9110 9.1): "get" is not GET. */
	for (size_t i = 0; i < ARRAY_SIZE(http_methods); i++)
		if (strcmp(method, http_methods[i]) == 0)
			return i;
	return METHOD_OTHER;
}

static size_t code_index(int status)
{
	if (status < 100 || status > 599)
		return CODE_OTHER;
	for (size_t i = 0; i < N_LISTED; i++)
		if (listed_codes[i] == status)
			return i;
	for (size_t i = 0; i < N_SPARE_CODES; i++) {
		if (m.spare_codes[i] == status)
			return N_LISTED + i;
		if (m.spare_codes[i] == 0) {
			m.spare_codes[i] = status;
			return N_LISTED + i;
		}
	}
	return CODE_OTHER;
}

static int code_value(size_t idx)
{
	return idx < N_LISTED ? listed_codes[idx] : m.spare_codes[idx - N_LISTED];
}

void metrics_http_request(const char *method, int status)
{
	m.http[method_index(method)][code_index(status)]++;
}

/* Only short printable-ASCII names get a slot of their own: profile
 * languages look like that, and anything else (control bytes, invalid
 * UTF-8) could not be shown safely anyway. */
static bool lang_name_ok(const char *language)
{
	size_t len = 0;

	for (const unsigned char *p = (const unsigned char *)language; *p; p++, len++)
		if (*p < 0x20 || *p > 0x7e || len >= IPC_MAX_NAME)
			return false;
	return len > 0 && strcmp(language, "other") != 0;
}

static size_t lang_index(const char *language)
{
	if (!language || !lang_name_ok(language))
		return LANG_OTHER;
	for (size_t i = 0; i < N_LANGS; i++) {
		if (m.langs[i][0] == '\0') {
			memcpy(m.langs[i], language, strlen(language) + 1);
			return i;
		}
		if (strcmp(m.langs[i], language) == 0)
			return i;
	}
	return LANG_OTHER;
}

static size_t status_index(const char *status)
{
	int st = ipc_status_from_name(status);

	return st < 0 ? STATUS_OTHER : (size_t)st;
}

void metrics_job_done(const char *language, const char *status, double seconds)
{
	size_t li = lang_index(language);
	struct histogram *h = &m.duration[li];
	size_t b;

	/* !(x >= 0) also catches NaN. */
	if (!(seconds >= 0))
		seconds = 0;
	if (seconds > MAX_SECONDS)
		seconds = MAX_SECONDS;
	for (b = 0; b < ARRAY_SIZE(bucket_bounds); b++)
		if (seconds <= bucket_bounds[b])
			break;
	h->buckets[b]++;
	h->count++;
	h->sum += seconds;
	m.jobs[li][status_index(status)]++;
}

void metrics_auth_failure(void)
{
	m.auth_failures++;
}

void metrics_rate_limited(const char *reason)
{
	size_t i;

	for (i = 0; reason && i < ARRAY_SIZE(limit_reasons); i++)
		if (strcmp(reason, limit_reasons[i]) == 0)
			break;
	m.rate_limited[reason ? i : REASON_OTHER]++;
}

void metrics_sessions_add(int delta)
{
	m.sessions_active += delta;
}

void metrics_jobs_add(int delta)
{
	m.jobs_active += delta;
}

void metrics_sse_streams_add(int delta)
{
	m.sse_streams_open += delta;
}

void metrics_connections_add(int delta)
{
	m.connections_open += delta;
}

void metrics_connection_dropped(const char *reason)
{
	m.connections_dropped[strcmp(reason, "limit") == 0 ? 0 : 1]++;
}

void metrics_set_jailer_up(int up)
{
	m.jailer_up = up != 0;
}

void metrics_reset(void)
{
	memset(&m, 0, sizeof(m));
}

/* ---- rendering ---- */

static void put_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Label values escaped as the text format requires: \ " and newline. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* Shortest of %.15g / %.17g that reads back as the same double. */
static void put_double(FILE *f, double v)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, f);
}

static const char *lang_label(size_t li)
{
	return li == LANG_OTHER ? "other" : m.langs[li];
}

static bool lang_in_use(size_t li)
{
	return li == LANG_OTHER || m.langs[li][0] != '\0';
}

static void render_http(FILE *f)
{
	size_t order[N_CODES + 1];
	size_t n = 0;

	put_family(f, "cellgate_http_requests_total", "counter",
		   "HTTP requests answered, by method and status code.");
	/* Filled code slots in ascending order (insertion sort of at most 32), "other" last. */
	for (size_t c = 0; c < N_CODES; c++) {
		size_t j = n;

		if (c >= N_LISTED && m.spare_codes[c - N_LISTED] == 0)
			continue;
		while (j > 0 && code_value(order[j - 1]) > code_value(c)) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = c;
		n++;
	}
	order[n++] = CODE_OTHER;

	for (size_t mi = 0; mi < N_METHODS; mi++) {
		const char *method = mi == METHOD_OTHER ? "other" : http_methods[mi];

		for (size_t k = 0; k < n; k++) {
			size_t c = order[k];

			if (m.http[mi][c] == 0)
				continue;
			fprintf(f, "cellgate_http_requests_total{method=\"%s\",code=\"", method);
			if (c == CODE_OTHER)
				fputs("other", f);
			else
				fprintf(f, "%d", code_value(c));
			fprintf(f, "\"} %" PRIu64 "\n", m.http[mi][c]);
		}
	}
}

static void render_jobs(FILE *f)
{
	put_family(f, "cellgate_jobs_total", "counter", "Jobs finished, by language and status.");
	for (size_t li = 0; li <= N_LANGS; li++) {
		if (!lang_in_use(li))
			continue;
		for (size_t si = 0; si <= N_STATUSES; si++) {
			if (m.jobs[li][si] == 0)
				continue;
			fputs("cellgate_jobs_total{language=\"", f);
			put_escaped(f, lang_label(li));
			fprintf(f, "\",status=\"%s\"} %" PRIu64 "\n",
				si == STATUS_OTHER ? "other" : ipc_status_name((uint32_t)si),
				m.jobs[li][si]);
		}
	}

	put_family(f, "cellgate_job_duration_seconds", "histogram",
		   "Wall time of a job from admission to result, as the gateway saw it.");
	for (size_t li = 0; li <= N_LANGS; li++) {
		const struct histogram *h = &m.duration[li];
		uint64_t cum = 0;

		if (!lang_in_use(li) || h->count == 0)
			continue;
		for (size_t b = 0; b < N_BUCKETS; b++) {
			cum += h->buckets[b];
			fputs("cellgate_job_duration_seconds_bucket{language=\"", f);
			put_escaped(f, lang_label(li));
			fprintf(f, "\",le=\"%s\"} %" PRIu64 "\n",
				b < ARRAY_SIZE(bucket_labels) ? bucket_labels[b] : "+Inf", cum);
		}
		fputs("cellgate_job_duration_seconds_sum{language=\"", f);
		put_escaped(f, lang_label(li));
		fputs("\"} ", f);
		put_double(f, h->sum);
		fputs("\ncellgate_job_duration_seconds_count{language=\"", f);
		put_escaped(f, lang_label(li));
		fprintf(f, "\"} %" PRIu64 "\n", h->count);
	}
}

static void render_gauge(FILE *f, const char *name, const char *help, int64_t v)
{
	put_family(f, name, "gauge", help);
	fprintf(f, "%s %" PRId64 "\n", name, v);
}

static void render_rest(FILE *f)
{
	put_family(f, "cellgate_auth_failures_total", "counter",
		   "Requests refused for a missing or unknown API key.");
	fprintf(f, "cellgate_auth_failures_total %" PRIu64 "\n", m.auth_failures);

	put_family(f, "cellgate_rate_limited_total", "counter",
		   "Requests refused by a rate, concurrency, quota or session limit.");
	/* The fixed reasons always appear, so rate() works from the first scrape. */
	for (size_t i = 0; i < N_REASONS; i++) {
		if (i == REASON_OTHER && m.rate_limited[i] == 0)
			continue;
		fprintf(f, "cellgate_rate_limited_total{reason=\"%s\"} %" PRIu64 "\n",
			i == REASON_OTHER ? "other" : limit_reasons[i], m.rate_limited[i]);
	}

	render_gauge(f, "cellgate_sessions_active", "MCP sessions open.", m.sessions_active);
	render_gauge(f, "cellgate_jobs_active", "Jobs admitted and not yet finished.",
		     m.jobs_active);
	render_gauge(f, "cellgate_sse_streams_open", "Server-sent event streams open.",
		     m.sse_streams_open);
	render_gauge(f, "cellgate_http_connections_open", "HTTP connections open.",
		     m.connections_open);
	put_family(f, "cellgate_http_connections_dropped_total", "counter",
		   "Connections closed by the gateway: one over max_connections (limit), or a "
		   "request that did not arrive in time (slow).");
	fprintf(f, "cellgate_http_connections_dropped_total{reason=\"limit\"} %" PRIu64 "\n",
		m.connections_dropped[0]);
	fprintf(f, "cellgate_http_connections_dropped_total{reason=\"slow\"} %" PRIu64 "\n",
		m.connections_dropped[1]);
	render_gauge(f, "cellgate_jailer_up", "1 when the gateway holds a working jailer link.",
		     m.jailer_up);

	put_family(f, "cellgate_build_info", "gauge", "The running cellgate's version.");
	fputs("cellgate_build_info{version=\"", f);
	put_escaped(f, CELLGATE_VERSION);
	fputs("\"} 1\n", f);

	put_family(f, "process_start_time_seconds", "gauge",
		   "Start time of the process since unix epoch in seconds.");
	fputs("process_start_time_seconds ", f);
	put_double(f, start_time_seconds);
	fputc('\n', f);
}

char *metrics_render(size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	bool failed;

	if (!f)
		return NULL;
	render_http(f);
	render_jobs(f);
	render_rest(f);
	failed = ferror(f) != 0;
	/* fclose flushes into buf; its failure means the text is incomplete. */
	if (fclose(f) != 0 || failed) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = size;
	return buf;
}
