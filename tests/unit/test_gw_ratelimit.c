/* ratelimit: the token bucket (burst, refill, cap, Retry-After) and the
 * sliding-hour CPU quota (charging, aging, Retry-After), on a made-up clock. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ratelimit.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define MIN (60ull * SEC)

/* A start far from 0, as CLOCK_MONOTONIC is on a running machine. */
#define T0 (123456ull * SEC + 789 * MS)

static void test_bucket_burst_then_refill(void **state)
{
	struct token_bucket tb;
	unsigned retry = 0;

	(void)state;
	token_bucket_init(&tb, 10.0, 20.0, T0);
	/* Full at start: the whole burst at one instant, then refused. */
	for (int i = 0; i < 20; i++)
		assert_true(token_bucket_take(&tb, T0, &retry));
	assert_false(token_bucket_take(&tb, T0, &retry));
	assert_int_equal(retry, 1); /* 0.1 s rounds up to a whole second */

	/* 10/s: one token after 100 ms, not before. */
	assert_false(token_bucket_take(&tb, T0 + 99 * MS, &retry));
	assert_true(token_bucket_take(&tb, T0 + 100 * MS, &retry));
	assert_false(token_bucket_take(&tb, T0 + 100 * MS, &retry));
	/* Five tokens after another 500 ms. */
	for (int i = 0; i < 5; i++)
		assert_true(token_bucket_take(&tb, T0 + 600 * MS, &retry));
	assert_false(token_bucket_take(&tb, T0 + 600 * MS, &retry));

	/* A long idle spell refills to the burst, not beyond. */
	int granted = 0;
	while (token_bucket_take(&tb, T0 + 3600 * SEC, &retry))
		granted++;
	assert_int_equal(granted, 20);
}

static void test_bucket_retry_after(void **state)
{
	struct token_bucket tb;
	unsigned retry = 0;

	(void)state;
	/* 0.25/s: a token every 4 s. */
	token_bucket_init(&tb, 0.25, 1.0, T0);
	assert_true(token_bucket_take(&tb, T0, &retry));
	assert_false(token_bucket_take(&tb, T0, &retry));
	assert_int_equal(retry, 4);
	assert_false(token_bucket_take(&tb, T0 + 1 * SEC, &retry));
	assert_int_equal(retry, 3);
	/* 2.5 s left rounds up to 3; 0.5 s left to 1. */
	assert_false(token_bucket_take(&tb, T0 + 1500 * MS, &retry));
	assert_int_equal(retry, 3);
	assert_false(token_bucket_take(&tb, T0 + 3500 * MS, &retry));
	assert_int_equal(retry, 1);
	assert_true(token_bucket_take(&tb, T0 + 4 * SEC, &retry));

	/* 0.5/s with an exact 2 s wait stays 2 (no float noise to 3). */
	token_bucket_init(&tb, 0.5, 1.0, T0);
	assert_true(token_bucket_take(&tb, T0, &retry));
	assert_false(token_bucket_take(&tb, T0, &retry));
	assert_int_equal(retry, 2);
	/* 1000/s: the wait is 1 ms, Retry-After still at least 1. */
	token_bucket_init(&tb, 1000.0, 1.0, T0);
	assert_true(token_bucket_take(&tb, T0, &retry));
	assert_false(token_bucket_take(&tb, T0, &retry));
	assert_int_equal(retry, 1);
	/* NULL retry pointer is allowed. */
	assert_false(token_bucket_take(&tb, T0, NULL));
}

static void test_bucket_clock_backwards(void **state)
{
	struct token_bucket tb;
	unsigned retry;

	(void)state;
	token_bucket_init(&tb, 1.0, 1.0, T0 + 10 * SEC);
	assert_true(token_bucket_take(&tb, T0 + 10 * SEC, &retry));
	/* An earlier time refills nothing... */
	assert_false(token_bucket_take(&tb, T0, &retry));
	assert_false(token_bucket_take(&tb, T0 + 10 * SEC, &retry));
	/* ...and does not move the reference point back. */
	assert_false(token_bucket_take(&tb, T0 + 10 * SEC + 999 * MS, &retry));
	assert_true(token_bucket_take(&tb, T0 + 11 * SEC, &retry));
}

static void test_bucket_fractional_accumulates(void **state)
{
	struct token_bucket tb;
	unsigned retry;
	int granted = 0;

	(void)state;
	/* 3/s over 10 s in 10 ms steps: 30 tokens (plus the initial one). */
	token_bucket_init(&tb, 3.0, 1.0, T0);
	for (uint64_t t = 0; t <= 10 * SEC; t += 10 * MS)
		granted += token_bucket_take(&tb, T0 + t, &retry);
	assert_in_range(granted, 30, 31);
}

static void test_quota_unlimited(void **state)
{
	struct cpu_quota q;
	unsigned retry = 77;

	(void)state;
	cpu_quota_init(&q, 0);
	cpu_quota_charge(&q, T0, 1000000);
	assert_true(cpu_quota_allows(&q, T0, &retry));
	assert_int_equal(retry, 77);
	assert_int_equal(cpu_quota_used(&q, T0), 1000000);
}

static void test_quota_window(void **state)
{
	struct cpu_quota q;
	unsigned retry = 0;
	uint64_t start = 1000 * MIN; /* minute boundary */

	(void)state;
	cpu_quota_init(&q, 1000);
	assert_true(cpu_quota_allows(&q, start, &retry));
	assert_int_equal(cpu_quota_used(&q, start), 0);

	cpu_quota_charge(&q, start + 5 * SEC, 600);
	assert_true(cpu_quota_allows(&q, start + 6 * SEC, &retry));
	cpu_quota_charge(&q, start + 10 * MIN, 399);
	assert_int_equal(cpu_quota_used(&q, start + 10 * MIN), 999);
	assert_true(cpu_quota_allows(&q, start + 10 * MIN, &retry));
	cpu_quota_charge(&q, start + 10 * MIN + 30 * SEC, 1);
	assert_int_equal(cpu_quota_used(&q, start + 10 * MIN), 1000);

	/* At the limit: refused until minute `start` ages out at +60 min. */
	assert_false(cpu_quota_allows(&q, start + 20 * MIN, &retry));
	assert_int_equal(retry, 40 * 60);
	assert_false(cpu_quota_allows(&q, start + 59 * MIN + 59 * SEC + 500 * MS, &retry));
	assert_int_equal(retry, 1);
	/* The first minute's 600 ms are gone; 400 remain. */
	assert_true(cpu_quota_allows(&q, start + 60 * MIN, &retry));
	assert_int_equal(cpu_quota_used(&q, start + 60 * MIN), 400);
	/* The rest goes when minute +10 leaves. */
	assert_int_equal(cpu_quota_used(&q, start + 70 * MIN - 1), 400);
	assert_int_equal(cpu_quota_used(&q, start + 70 * MIN), 0);
}

static void test_quota_retry_needs_several_minutes(void **state)
{
	struct cpu_quota q;
	unsigned retry = 0;
	uint64_t start = 500 * MIN;

	(void)state;
	/* 100 ms in each of minutes 0..9, limit 500: to drop below it, six
	 * minutes (0..5) must leave, the last of them at +65 min. */
	cpu_quota_init(&q, 500);
	for (int m = 0; m < 10; m++)
		cpu_quota_charge(&q, start + (uint64_t)m * MIN + 1 * SEC, 100);
	assert_int_equal(cpu_quota_used(&q, start + 10 * MIN), 1000);
	assert_false(cpu_quota_allows(&q, start + 10 * MIN, &retry));
	assert_int_equal(retry, 55 * 60);
	assert_false(cpu_quota_allows(&q, start + 65 * MIN - 1, &retry));
	assert_int_equal(retry, 1);
	assert_true(cpu_quota_allows(&q, start + 65 * MIN, &retry));
	assert_int_equal(cpu_quota_used(&q, start + 65 * MIN), 400);

	/* One big job over the whole limit: refused for the full hour. */
	cpu_quota_init(&q, 500);
	cpu_quota_charge(&q, start, 5000);
	assert_false(cpu_quota_allows(&q, start + 30 * SEC, &retry));
	assert_int_equal(retry, 3600 - 30);
	assert_false(cpu_quota_allows(&q, start, NULL));
}

static void test_quota_slot_reuse(void **state)
{
	struct cpu_quota q;
	uint64_t start = 7 * MIN;

	(void)state;
	cpu_quota_init(&q, 10000);
	cpu_quota_charge(&q, start, 300);
	cpu_quota_charge(&q, start + 30 * SEC, 200); /* same minute, same slot */
	assert_int_equal(cpu_quota_used(&q, start + 59 * SEC), 500);
	/* 60 minutes later the same slot is reused, not added to. */
	cpu_quota_charge(&q, start + 60 * MIN, 50);
	assert_int_equal(cpu_quota_used(&q, start + 60 * MIN), 50);
	/* A window that starts near the clock's zero. */
	cpu_quota_init(&q, 100);
	cpu_quota_charge(&q, 0, 100);
	assert_int_equal(cpu_quota_used(&q, 0), 100);
	assert_int_equal(cpu_quota_used(&q, 59 * MIN), 100);
	assert_int_equal(cpu_quota_used(&q, 60 * MIN), 0);
}

static void test_now(void **state)
{
	uint64_t a, b;

	(void)state;
	a = ratelimit_now_ns();
	b = ratelimit_now_ns();
	assert_true(a > 0);
	assert_true(b >= a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bucket_burst_then_refill),
	    cmocka_unit_test(test_bucket_retry_after),
	    cmocka_unit_test(test_bucket_clock_backwards),
	    cmocka_unit_test(test_bucket_fractional_accumulates),
	    cmocka_unit_test(test_quota_unlimited),
	    cmocka_unit_test(test_quota_window),
	    cmocka_unit_test(test_quota_retry_needs_several_minutes),
	    cmocka_unit_test(test_quota_slot_reuse),
	    cmocka_unit_test(test_now),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
