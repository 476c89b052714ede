/* Per-tenant admission: request rate (token bucket), concurrent jobs and
 * CPU-seconds per hour.  Pure bookkeeping on a caller-supplied monotonic
 * clock in nanoseconds, so it is unit-testable without sleeping.
 */
#ifndef CELLGATE_RATELIMIT_H
#define CELLGATE_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct token_bucket {
	double tokens;
	double rate;  /* tokens per second */
	double burst; /* capacity */
	uint64_t last_ns;
};

void token_bucket_init(struct token_bucket *tb, double rate, double burst, uint64_t now_ns);
/* Take one token.  Returns true when granted; otherwise false and
 * *retry_after_s = whole seconds (>= 1) until a token will be there. */
bool token_bucket_take(struct token_bucket *tb, uint64_t now_ns, unsigned *retry_after_s);

/* CPU seconds used in a sliding hour: 60 one-minute buckets. */
#define CPU_QUOTA_BUCKETS 60
struct cpu_quota {
	uint64_t limit_ms; /* per hour; 0 = unlimited */
	uint64_t bucket_ms[CPU_QUOTA_BUCKETS];
	uint64_t bucket_minute[CPU_QUOTA_BUCKETS]; /* which minute each bucket holds */
};

void cpu_quota_init(struct cpu_quota *q, uint64_t limit_ms);
/* Whether a new job may start: the CPU used in the last hour is below the
 * limit.  If not, *retry_after_s = seconds until enough of it ages out of
 * the window to drop below the limit (>= 1). */
bool cpu_quota_allows(const struct cpu_quota *q, uint64_t now_ns, unsigned *retry_after_s);
void cpu_quota_charge(struct cpu_quota *q, uint64_t now_ns, uint64_t cpu_ms);
/* CPU ms used in the window ending now (for get_sandbox_info/metrics). */
uint64_t cpu_quota_used(const struct cpu_quota *q, uint64_t now_ns);

/* Runtime state of one tenant. */
struct tenant_usage {
	struct token_bucket requests;
	struct cpu_quota cpu;
	unsigned jobs_running;
	unsigned max_jobs;
	unsigned sessions;
};

/* Monotonic clock in ns (CLOCK_MONOTONIC). */
uint64_t ratelimit_now_ns(void);

#endif
