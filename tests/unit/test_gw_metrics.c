/* metrics: record known events, render, and read the text back the way a
 * Prometheus scraper would: exact sample lines, well-formed syntax, HELP
 * and TYPE for every family, cumulative histogram buckets, and label
 * tables that stay bounded whatever callers pass in. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipc.h"
#include "metrics.h"

#ifndef CELLGATE_VERSION
#define CELLGATE_VERSION "unknown"
#endif

/* One parsed sample line. */
struct sample {
	char name[128];
	char labels[512]; /* unescaped, as k=v pairs joined by ',' */
	double value;
};

struct page {
	char *text;
	size_t len;
	struct sample *samples;
	size_t nsamples;
	char families[64][128]; /* from # TYPE lines */
	char types[64][16];
	size_t nfamilies;
	size_t nhelp;
};

static bool name_char(int c, bool first)
{
	return isalpha(c) || c == '_' || c == ':' || (!first && isdigit(c));
}

/* Parses `name{k="v",...} value` into *s; false on any syntax error. */
static bool parse_sample(const char *line, struct sample *s)
{
	const char *p = line;
	size_t n = 0, ln = 0;
	char *end;

	memset(s, 0, sizeof(*s));
	if (!name_char((unsigned char)*p, true))
		return false;
	while (name_char((unsigned char)*p, n == 0) && n + 1 < sizeof(s->name))
		s->name[n++] = *p++;
	if (*p == '{') {
		p++;
		while (*p != '}') {
			bool first = true;

			if (ln > 0)
				s->labels[ln++] = ',';
			while (name_char((unsigned char)*p, first)) {
				s->labels[ln++] = *p++;
				first = false;
			}
			if (first || p[0] != '=' || p[1] != '"')
				return false;
			s->labels[ln++] = '=';
			p += 2;
			while (*p != '"') {
				if (*p == '\0' || *p == '\n')
					return false;
				if (*p == '\\') {
					p++;
					if (*p == 'n')
						s->labels[ln++] = '\n';
					else if (*p == '\\' || *p == '"')
						s->labels[ln++] = *p;
					else
						return false;
					p++;
				} else {
					s->labels[ln++] = *p++;
				}
				if (ln + 2 >= sizeof(s->labels))
					return false;
			}
			p++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				return false;
		}
		p++;
	}
	if (*p != ' ')
		return false;
	p++;
	if (strcmp(p, "+Inf") == 0) {
		s->value = INFINITY;
		return true;
	}
	s->value = strtod(p, &end);
	return end != p && *end == '\0';
}

static const char *family_type(const struct page *pg, const char *fam)
{
	for (size_t i = 0; i < pg->nfamilies; i++)
		if (strcmp(pg->families[i], fam) == 0)
			return pg->types[i];
	return NULL;
}

/* Renders and parses the whole page, failing the test on any bad line. */
static void render_page(struct page *pg)
{
	char *copy, *save = NULL;
	size_t cap = 64;

	memset(pg, 0, sizeof(*pg));
	pg->text = metrics_render(&pg->len);
	assert_non_null(pg->text);
	assert_int_equal(strlen(pg->text), pg->len);
	assert_true(pg->len > 0 && pg->text[pg->len - 1] == '\n');
	pg->samples = calloc(cap, sizeof(*pg->samples));
	assert_non_null(pg->samples);
	copy = strdup(pg->text);
	assert_non_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char fam[128], type[32];

		if (strncmp(line, "# HELP ", 7) == 0) {
			/* HELP must come right before the TYPE of the same family. */
			char *next = save;

			assert_non_null(next);
			assert_int_equal(sscanf(line + 7, "%127s", fam), 1);
			assert_int_equal(strncmp(next, "# TYPE ", 7), 0);
			assert_int_equal(strncmp(next + 7, fam, strlen(fam)), 0);
			assert_int_equal(next[7 + strlen(fam)], ' ');
			pg->nhelp++;
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			assert_int_equal(sscanf(line + 7, "%127s %31s", fam, type), 2);
			assert_true(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 ||
				    strcmp(type, "histogram") == 0);
			/* A family is declared once. */
			assert_null(family_type(pg, fam));
			assert_true(pg->nfamilies < 64);
			strcpy(pg->families[pg->nfamilies], fam);
			strcpy(pg->types[pg->nfamilies], type);
			pg->nfamilies++;
			continue;
		}
		assert_true(line[0] != '#');
		if (pg->nsamples == cap) {
			cap *= 2;
			pg->samples = realloc(pg->samples, cap * sizeof(*pg->samples));
			assert_non_null(pg->samples);
		}
		if (!parse_sample(line, &pg->samples[pg->nsamples]))
			fail_msg("malformed sample line: '%s'", line);
		pg->nsamples++;
	}
	free(copy);
	assert_int_equal(pg->nhelp, pg->nfamilies);

	/* Every sample belongs to the family declared most recently. */
	for (size_t i = 0; i < pg->nsamples; i++) {
		const char *n = pg->samples[i].name;
		const char *t = family_type(pg, n);

		if (!t) {
			char base[128];
			size_t l = strlen(n);

			snprintf(base, sizeof(base), "%s", n);
			if (l > 7 && strcmp(n + l - 7, "_bucket") == 0)
				base[l - 7] = '\0';
			else if (l > 4 && strcmp(n + l - 4, "_sum") == 0)
				base[l - 4] = '\0';
			else if (l > 6 && strcmp(n + l - 6, "_count") == 0)
				base[l - 6] = '\0';
			t = family_type(pg, base);
			if (!t || strcmp(t, "histogram") != 0)
				fail_msg("sample %s has no # TYPE", n);
		}
	}
}

static void free_page(struct page *pg)
{
	free(pg->text);
	free(pg->samples);
}

/* The line exactly as given (with its newline) is on the page. */
static bool has_line(const struct page *pg, const char *line)
{
	size_t l = strlen(line);

	for (const char *p = pg->text; (p = strstr(p, line)) != NULL; p++)
		if ((p == pg->text || p[-1] == '\n') && p[l] == '\n')
			return true;
	return false;
}

static size_t count_named(const struct page *pg, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < pg->nsamples; i++)
		n += strcmp(pg->samples[i].name, name) == 0;
	return n;
}

static double sum_named(const struct page *pg, const char *name)
{
	double v = 0;

	for (size_t i = 0; i < pg->nsamples; i++)
		if (strcmp(pg->samples[i].name, name) == 0)
			v += pg->samples[i].value;
	return v;
}

/* The value of one label (unescaped) in a parsed sample's label string. */
static bool label_of(const struct sample *s, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	const char *p = s->labels;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		/* Label values in this test never contain ','. */
		if (l > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			snprintf(out, cap, "%.*s", (int)(l - kl - 1), p + kl + 1);
			return true;
		}
		p += l + (end ? 1 : 0);
	}
	return false;
}

static int setup(void **state)
{
	(void)state;
	metrics_reset();
	return 0;
}

static void test_every_family_has_help_and_type(void **state)
{
	static const char *const want[][2] = {
	    {"cellgate_http_requests_total", "counter"},
	    {"cellgate_jobs_total", "counter"},
	    {"cellgate_job_duration_seconds", "histogram"},
	    {"cellgate_auth_failures_total", "counter"},
	    {"cellgate_rate_limited_total", "counter"},
	    {"cellgate_sessions_active", "gauge"},
	    {"cellgate_jobs_active", "gauge"},
	    {"cellgate_sse_streams_open", "gauge"},
	    {"cellgate_http_connections_open", "gauge"},
	    {"cellgate_http_connections_dropped_total", "counter"},
	    {"cellgate_jailer_up", "gauge"},
	    {"cellgate_build_info", "gauge"},
	    {"process_start_time_seconds", "gauge"},
	};
	struct page pg;

	(void)state;
	render_page(&pg);
	assert_int_equal(pg.nfamilies, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *t = family_type(&pg, want[i][0]);

		if (!t)
			fail_msg("family %s missing", want[i][0]);
		assert_string_equal(t, want[i][1]);
	}
	/* Nothing happened yet: no HTTP or job samples, zeroed scalars. */
	assert_int_equal(count_named(&pg, "cellgate_http_requests_total"), 0);
	assert_int_equal(count_named(&pg, "cellgate_jobs_total"), 0);
	assert_int_equal(count_named(&pg, "cellgate_job_duration_seconds_bucket"), 0);
	assert_true(has_line(&pg, "cellgate_auth_failures_total 0"));
	assert_true(has_line(&pg, "cellgate_jailer_up 0"));
	assert_true(has_line(&pg, "cellgate_http_connections_dropped_total{reason=\"limit\"} 0"));
	assert_true(has_line(&pg, "cellgate_http_connections_dropped_total{reason=\"slow\"} 0"));
	free_page(&pg);
	metrics_connection_dropped("slow");
	metrics_connection_dropped("slow");
	metrics_connection_dropped("limit");
	render_page(&pg);
	assert_true(has_line(&pg, "cellgate_http_connections_dropped_total{reason=\"limit\"} 1"));
	assert_true(has_line(&pg, "cellgate_http_connections_dropped_total{reason=\"slow\"} 2"));
	free_page(&pg);
}

static void test_http_requests(void **state)
{
	struct page pg;

	(void)state;
	for (int i = 0; i < 3; i++)
		metrics_http_request("POST", 200);
	metrics_http_request("GET", 404);
	metrics_http_request("DELETE", 204);
	metrics_http_request("OPTIONS", 204);
	metrics_http_request("PATCH", 200);
	metrics_http_request("post", 200); /* methods are case-sensitive */
	metrics_http_request(NULL, 200);
	metrics_http_request("POST", 429);
	render_page(&pg);
	assert_true(has_line(&pg, "cellgate_http_requests_total{method=\"POST\",code=\"200\"} 3"));
	assert_true(has_line(&pg, "cellgate_http_requests_total{method=\"POST\",code=\"429\"} 1"));
	assert_true(has_line(&pg, "cellgate_http_requests_total{method=\"GET\",code=\"404\"} 1"));
	assert_true(
	    has_line(&pg, "cellgate_http_requests_total{method=\"DELETE\",code=\"204\"} 1"));
	assert_true(
	    has_line(&pg, "cellgate_http_requests_total{method=\"OPTIONS\",code=\"204\"} 1"));
	assert_true(has_line(&pg, "cellgate_http_requests_total{method=\"other\",code=\"200\"} 3"));
	assert_null(strstr(pg.text, "PATCH"));
	assert_null(strstr(pg.text, "\"post\""));
	assert_int_equal(count_named(&pg, "cellgate_http_requests_total"), 6);
	free_page(&pg);
}

static void test_http_codes_are_bounded(void **state)
{
	struct page pg;
	size_t calls = 0;
	char buf[128];

	(void)state;
	/* Every code 100..599, twice, plus nonsense codes. */
	for (int round = 0; round < 2; round++)
		for (int code = 100; code <= 599; code++, calls++)
			metrics_http_request("GET", code);
	metrics_http_request("GET", 42);
	metrics_http_request("GET", 1000);
	metrics_http_request("GET", -200);
	calls += 3;
	render_page(&pg);
	/* Nothing lost: every call is in some sample. */
	assert_true(sum_named(&pg, "cellgate_http_requests_total") == (double)calls);
	/* Listed codes keep their own series even when they arrive late. */
	assert_true(has_line(&pg, "cellgate_http_requests_total{method=\"GET\",code=\"503\"} 2"));
	assert_true(has_line(&pg, "cellgate_http_requests_total{method=\"GET\",code=\"429\"} 2"));
	/* Unlisted codes got their own value while there was room... */
	assert_true(has_line(&pg, "cellgate_http_requests_total{method=\"GET\",code=\"100\"} 2"));
	/* ... and the rest went to "other"; the table is far smaller than 500 codes. */
	assert_true(count_named(&pg, "cellgate_http_requests_total") <= 40);
	assert_true(count_named(&pg, "cellgate_http_requests_total") >= 17);
	for (size_t i = 0; i < pg.nsamples; i++) {
		if (strcmp(pg.samples[i].name, "cellgate_http_requests_total") != 0)
			continue;
		assert_true(label_of(&pg.samples[i], "code", buf, sizeof(buf)));
		if (strcmp(buf, "other") == 0)
			assert_true(pg.samples[i].value > 3);
		else
			assert_true(atoi(buf) >= 100 && atoi(buf) <= 599);
	}
	/* Codes are listed in ascending order. */
	{
		int prev = 0;

		for (size_t i = 0; i < pg.nsamples; i++) {
			if (strcmp(pg.samples[i].name, "cellgate_http_requests_total") != 0)
				continue;
			assert_true(label_of(&pg.samples[i], "code", buf, sizeof(buf)));
			if (strcmp(buf, "other") == 0)
				continue;
			assert_true(atoi(buf) > prev);
			prev = atoi(buf);
		}
	}
	free_page(&pg);
}

static const char *const le_order[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5",
				       "1",	"2.5",	"5",	 "10",	 "30",	"60",	"+Inf"};
#define N_LE (sizeof(le_order) / sizeof(le_order[0]))

/* Checks one language's histogram: bucket order, cumulativeness, and
 * +Inf == _count; returns the bucket values in *cum. */
static void check_histogram(const struct page *pg, const char *lang, double cum[N_LE], double *sum,
			    double *count)
{
	size_t nb = 0;
	char buf[128];
	bool have_sum = false, have_count = false;

	for (size_t i = 0; i < pg->nsamples; i++) {
		const struct sample *s = &pg->samples[i];

		if (strncmp(s->name, "cellgate_job_duration_seconds", 29) != 0)
			continue;
		assert_true(label_of(s, "language", buf, sizeof(buf)));
		if (strcmp(buf, lang) != 0)
			continue;
		if (strcmp(s->name, "cellgate_job_duration_seconds_bucket") == 0) {
			assert_true(nb < N_LE);
			assert_true(label_of(s, "le", buf, sizeof(buf)));
			assert_string_equal(buf, le_order[nb]);
			if (nb > 0)
				assert_true(s->value >= cum[nb - 1]);
			cum[nb++] = s->value;
		} else if (strcmp(s->name, "cellgate_job_duration_seconds_sum") == 0) {
			*sum = s->value;
			have_sum = true;
		} else {
			assert_string_equal(s->name, "cellgate_job_duration_seconds_count");
			*count = s->value;
			have_count = true;
		}
	}
	assert_int_equal(nb, N_LE);
	assert_true(have_sum && have_count);
	assert_true(cum[N_LE - 1] == *count);
}

static void test_job_histogram(void **state)
{
	double cum[N_LE], sum = 0, count = 0;
	/* Expected cumulative counts for the values below. */
	static const double want[N_LE] = {2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 6};
	struct page pg;

	(void)state;
	metrics_job_done("python", "ok", 0.001);
	metrics_job_done("python", "ok", 0.005); /* a bound is inclusive */
	metrics_job_done("python", "exit", 0.05);
	metrics_job_done("python", "ok", 0.75);
	metrics_job_done("python", "timeout", 30);
	metrics_job_done("python", "internal", 61);
	metrics_job_done("javascript", "ok", 0.2);
	render_page(&pg);
	check_histogram(&pg, "python", cum, &sum, &count);
	for (size_t i = 0; i < N_LE; i++)
		if (cum[i] != want[i])
			fail_msg("le=%s: %g, want %g", le_order[i], cum[i], want[i]);
	assert_true(fabs(sum - (0.001 + 0.005 + 0.05 + 0.75 + 30 + 61)) < 1e-9);
	assert_true(count == 6);
	check_histogram(&pg, "javascript", cum, &sum, &count);
	assert_true(cum[4] == 0 && cum[5] == 1 && count == 1);
	assert_true(has_line(&pg, "cellgate_job_duration_seconds_bucket{language=\"javascript\","
				  "le=\"0.25\"} 1"));
	assert_true(has_line(&pg, "cellgate_job_duration_seconds_count{language=\"python\"} 6"));
	assert_true(has_line(&pg, "cellgate_jobs_total{language=\"python\",status=\"ok\"} 3"));
	assert_true(has_line(&pg, "cellgate_jobs_total{language=\"python\",status=\"exit\"} 1"));
	assert_true(has_line(&pg, "cellgate_jobs_total{language=\"python\",status=\"timeout\"} 1"));
	assert_true(
	    has_line(&pg, "cellgate_jobs_total{language=\"python\",status=\"internal\"} 1"));
	assert_true(has_line(&pg, "cellgate_jobs_total{language=\"javascript\",status=\"ok\"} 1"));
	assert_int_equal(count_named(&pg, "cellgate_jobs_total"), 5);
	free_page(&pg);
}

static void test_job_odd_inputs(void **state)
{
	double cum[N_LE], sum = -1, count = 0;
	struct page pg;

	(void)state;
	metrics_job_done("python", "exploded", 1); /* not an ipc status */
	metrics_job_done("python", NULL, 1);
	metrics_job_done(NULL, "ok", 1);	  /* no language */
	metrics_job_done("py\nthon", "ok", 1);	  /* control byte: never a label */
	metrics_job_done("other", "ok", 1);	  /* the name of the overflow slot */
	metrics_job_done("ruby", "ok", -5);	  /* negative -> 0 */
	metrics_job_done("ruby", "ok", NAN);	  /* NaN -> 0, sum stays finite */
	metrics_job_done("ruby", "ok", INFINITY); /* clamped, still +Inf bucket only */
	render_page(&pg);
	assert_true(has_line(&pg, "cellgate_jobs_total{language=\"python\",status=\"other\"} 2"));
	assert_true(has_line(&pg, "cellgate_jobs_total{language=\"other\",status=\"ok\"} 3"));
	assert_null(strstr(pg.text, "py\nthon"));
	check_histogram(&pg, "ruby", cum, &sum, &count);
	assert_true(cum[0] == 2 && cum[N_LE - 2] == 2 && count == 3);
	assert_true(isfinite(sum) && sum > 1e6);
	free_page(&pg);
}

static void test_label_values_are_escaped(void **state)
{
	struct page pg;
	char buf[128];
	bool seen = false;

	(void)state;
	metrics_job_done("we\"ird\\lang", "ok", 0.5);
	render_page(&pg);
	assert_true(
	    has_line(&pg, "cellgate_jobs_total{language=\"we\\\"ird\\\\lang\",status=\"ok\"} 1"));
	for (size_t i = 0; i < pg.nsamples; i++)
		if (strcmp(pg.samples[i].name, "cellgate_job_duration_seconds_count") == 0) {
			assert_true(label_of(&pg.samples[i], "language", buf, sizeof(buf)));
			assert_string_equal(buf, "we\"ird\\lang");
			seen = true;
		}
	assert_true(seen);
	free_page(&pg);
}

static void test_language_table_is_bounded(void **state)
{
	char lang[32], buf[128];
	struct page pg;
	size_t lines_at_1000 = 0, bytes_at_1000 = 0, distinct = 0;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		snprintf(lang, sizeof(lang), "fake%d", i);
		metrics_job_done(lang, i % 2 ? "ok" : "exit", 0.01);
		if (i == 999) {
			render_page(&pg);
			lines_at_1000 = pg.nsamples;
			bytes_at_1000 = pg.len;
			free_page(&pg);
		}
	}
	render_page(&pg);
	/* The page stopped growing once the table was full (counts gain digits only). */
	assert_int_equal(pg.nsamples, lines_at_1000);
	assert_true(pg.len < bytes_at_1000 + 64);
	for (size_t i = 0; i < pg.nsamples; i++)
		if (strcmp(pg.samples[i].name, "cellgate_job_duration_seconds_count") == 0) {
			assert_true(label_of(&pg.samples[i], "language", buf, sizeof(buf)));
			distinct++;
		}
	assert_int_equal(distinct, IPC_MAX_PROFILES + 1);
	/* The first languages kept their slots; the overflow holds the rest. */
	assert_true(has_line(&pg, "cellgate_job_duration_seconds_count{language=\"fake0\"} 1"));
	assert_true(has_line(&pg, "cellgate_job_duration_seconds_count{language=\"other\"} 9984"));
	assert_true(sum_named(&pg, "cellgate_jobs_total") == 10000);
	assert_true(sum_named(&pg, "cellgate_job_duration_seconds_count") == 10000);
	free_page(&pg);
}

static void test_gauges_and_scalars(void **state)
{
	struct page pg;
	char line[128];
	struct timespec now;
	double start = -1;

	(void)state;
	metrics_sessions_add(3);
	metrics_sessions_add(-1);
	metrics_jobs_add(5);
	metrics_jobs_add(-5);
	metrics_sse_streams_add(10000);
	metrics_connections_add(7);
	metrics_connections_add(-2);
	metrics_set_jailer_up(42);
	metrics_auth_failure();
	metrics_auth_failure();
	metrics_rate_limited("rate");
	metrics_rate_limited("quota");
	metrics_rate_limited("quota");
	metrics_rate_limited("tenant-supplied-junk");
	metrics_rate_limited(NULL);
	render_page(&pg);
	assert_true(has_line(&pg, "cellgate_sessions_active 2"));
	assert_true(has_line(&pg, "cellgate_jobs_active 0"));
	assert_true(has_line(&pg, "cellgate_sse_streams_open 10000"));
	assert_true(has_line(&pg, "cellgate_http_connections_open 5"));
	assert_true(has_line(&pg, "cellgate_jailer_up 1"));
	assert_true(has_line(&pg, "cellgate_auth_failures_total 2"));
	assert_true(has_line(&pg, "cellgate_rate_limited_total{reason=\"rate\"} 1"));
	assert_true(has_line(&pg, "cellgate_rate_limited_total{reason=\"quota\"} 2"));
	assert_true(has_line(&pg, "cellgate_rate_limited_total{reason=\"concurrency\"} 0"));
	assert_true(has_line(&pg, "cellgate_rate_limited_total{reason=\"sessions\"} 0"));
	assert_true(has_line(&pg, "cellgate_rate_limited_total{reason=\"other\"} 2"));
	assert_null(strstr(pg.text, "junk"));
	snprintf(line, sizeof(line), "cellgate_build_info{version=\"%s\"} 1", CELLGATE_VERSION);
	assert_true(has_line(&pg, line));

	assert_int_equal(clock_gettime(CLOCK_REALTIME, &now), 0);
	for (size_t i = 0; i < pg.nsamples; i++)
		if (strcmp(pg.samples[i].name, "process_start_time_seconds") == 0)
			start = pg.samples[i].value;
	/* This test process started within the last hour, not in the future. */
	assert_true(start > (double)now.tv_sec - 3600 && start <= (double)now.tv_sec + 1);

	metrics_set_jailer_up(0);
	free_page(&pg);
	render_page(&pg);
	assert_true(has_line(&pg, "cellgate_jailer_up 0"));
	free_page(&pg);
}

static void test_reset_forgets_everything(void **state)
{
	struct page pg;

	(void)state;
	metrics_http_request("GET", 200);
	metrics_job_done("python", "ok", 1);
	metrics_auth_failure();
	metrics_sessions_add(4);
	metrics_reset();
	render_page(&pg);
	assert_int_equal(count_named(&pg, "cellgate_http_requests_total"), 0);
	assert_int_equal(count_named(&pg, "cellgate_jobs_total"), 0);
	assert_int_equal(count_named(&pg, "cellgate_job_duration_seconds_count"), 0);
	assert_true(has_line(&pg, "cellgate_auth_failures_total 0"));
	assert_true(has_line(&pg, "cellgate_sessions_active 0"));
	free_page(&pg);
	/* The language slots were freed too: 16 new names get their own series. */
	for (int i = 0; i < (int)IPC_MAX_PROFILES; i++) {
		char lang[16];

		snprintf(lang, sizeof(lang), "l%d", i);
		metrics_job_done(lang, "ok", 1);
	}
	render_page(&pg);
	assert_true(has_line(&pg, "cellgate_jobs_total{language=\"l15\",status=\"ok\"} 1"));
	assert_null(strstr(pg.text, "language=\"other\""));
	free_page(&pg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_every_family_has_help_and_type, setup),
	    cmocka_unit_test_setup(test_http_requests, setup),
	    cmocka_unit_test_setup(test_http_codes_are_bounded, setup),
	    cmocka_unit_test_setup(test_job_histogram, setup),
	    cmocka_unit_test_setup(test_job_odd_inputs, setup),
	    cmocka_unit_test_setup(test_label_values_are_escaped, setup),
	    cmocka_unit_test_setup(test_language_table_is_bounded, setup),
	    cmocka_unit_test_setup(test_gauges_and_scalars, setup),
	    cmocka_unit_test_setup(test_reset_forgets_everything, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
