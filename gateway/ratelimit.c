/* Per-tenant admission bookkeeping (ratelimit.h): a token bucket for the
 * request rate and a sliding hour of CPU use.  No clock is read here except
 * in ratelimit_now_ns, so every rule is testable with made-up times. */
#include "ratelimit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

#define NS_PER_S 1000000000ull
#define NS_PER_MIN (60ull * NS_PER_S)
/* A Retry-After beyond a day says nothing useful; it only arises from a
 * bucket that refills absurdly slowly or not at all. */
#define RETRY_MAX_S 86400u

uint64_t ratelimit_now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer; if it did, every
	 * limit would silently stop working, so stop instead. */
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0) {
		gw_log(GW_LOG_ERROR, "clock_gettime(CLOCK_MONOTONIC) failed");
		abort();
	}
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Whole seconds, rounded up, at least 1 and at most RETRY_MAX_S. */
static unsigned retry_seconds(double s)
{
	/* Shave off floating-point noise so an exact 2 s does not become 3. */
	double c = ceil(s - 1e-9);

	if (!(c >= 1.0))
		return 1;
	if (c > (double)RETRY_MAX_S)
		return RETRY_MAX_S;
	return (unsigned)c;
}

void token_bucket_init(struct token_bucket *tb, double rate, double burst, uint64_t now_ns)
{
	tb->rate = rate;
	tb->burst = burst;
	tb->tokens = burst; /* a new tenant may burst at once */
	tb->last_ns = now_ns;
}

bool token_bucket_take(struct token_bucket *tb, uint64_t now_ns, unsigned *retry_after_s)
{
	/* A clock that went backwards refills nothing and keeps last_ns, so
	 * the time is not credited twice once it catches up. */
	if (now_ns > tb->last_ns) {
		if (tb->rate > 0)
			tb->tokens += (double)(now_ns - tb->last_ns) / (double)NS_PER_S * tb->rate;
		if (tb->tokens > tb->burst)
			tb->tokens = tb->burst;
		tb->last_ns = now_ns;
	}
	if (tb->tokens >= 1.0) {
		tb->tokens -= 1.0;
		return true;
	}
	if (retry_after_s) {
		if (tb->rate > 0 && tb->burst >= 1.0)
			*retry_after_s = retry_seconds((1.0 - tb->tokens) / tb->rate);
		else
			*retry_after_s = RETRY_MAX_S;
	}
	return false;
}

void cpu_quota_init(struct cpu_quota *q, uint64_t limit_ms)
{
	memset(q, 0, sizeof(*q));
	q->limit_ms = limit_ms;
}

static bool in_window(uint64_t bucket_minute, uint64_t minute)
{
	return bucket_minute <= minute && bucket_minute + CPU_QUOTA_BUCKETS > minute;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t cpu_quota_used(const struct cpu_quota *q, uint64_t now_ns)
{
	uint64_t minute = now_ns / NS_PER_MIN, used = 0;

	for (unsigned i = 0; i < CPU_QUOTA_BUCKETS; i++)
		if (in_window(q->bucket_minute[i], minute))
			used = sat_add(used, q->bucket_ms[i]);
	return used;
}

void cpu_quota_charge(struct cpu_quota *q, uint64_t now_ns, uint64_t cpu_ms)
{
	uint64_t minute = now_ns / NS_PER_MIN;
	unsigned i = (unsigned)(minute % CPU_QUOTA_BUCKETS);

	/* The slot still holds a minute an hour or more old: start it over.
	 * (A charge dated before the slot's minute - only possible with a
	 * clock that went backwards - goes into the newer minute, which ages
	 * out later: the conservative side.) */
	if (q->bucket_minute[i] < minute) {
		q->bucket_minute[i] = minute;
		q->bucket_ms[i] = 0;
	}
	q->bucket_ms[i] = sat_add(q->bucket_ms[i], cpu_ms);
}

bool cpu_quota_allows(const struct cpu_quota *q, uint64_t now_ns, unsigned *retry_after_s)
{
	uint64_t minute = now_ns / NS_PER_MIN;
	uint64_t used = cpu_quota_used(q, now_ns);
	uint64_t first;

	if (q->limit_ms == 0 || used < q->limit_ms)
		return true;
	if (!retry_after_s)
		return false;
	/* Age the minutes out oldest first: the minute m leaves the window
	 * when minute m + 60 begins. */
	first = minute >= CPU_QUOTA_BUCKETS - 1 ? minute - (CPU_QUOTA_BUCKETS - 1) : 0;
	for (uint64_t m = first; m <= minute; m++) {
		unsigned i = (unsigned)(m % CPU_QUOTA_BUCKETS);

		if (q->bucket_minute[i] != m)
			continue;
		used -= q->bucket_ms[i] < used ? q->bucket_ms[i] : used;
		if (used < q->limit_ms) {
			uint64_t leaves_ns = (m + CPU_QUOTA_BUCKETS) * NS_PER_MIN;

			*retry_after_s = retry_seconds((double)(leaves_ns - now_ns) / NS_PER_S);
			return false;
		}
	}
	/* Unreachable with a positive limit (the newest minute leaves last and
	 * takes the rest with it); keep a sane answer anyway. */
	*retry_after_s = (unsigned)(CPU_QUOTA_BUCKETS * 60);
	return false;
}
