/* SPDX-License-Identifier: MIT */
/*
 * The TSC -> CLOCK_MONOTONIC conversion page (lib/ust/clock-page.h) on
 * synthetic clocks: the reader's math and fallbacks (invalid, stale, behind,
 * a writer stuck mid-update), the daemon's line (continuity and monotony
 * across refreshes, slew bound, convergence, resets), and a writer thread
 * republishing while a reader converts.
 */
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ust/clock-page.h"

/* Synthetic TSC: 2.6 ticks per ns, i.e. rate = 1/2.6 ns per tick. */
#define TICKS_PER_NS_X10 26
#define PERIOD UST_CLOCK_PAGE_PERIOD_NS

static uint64_t ns_to_ticks(uint64_t ns)
{
	return ns * TICKS_PER_NS_X10 / 10;
}

static uint64_t fake_tsc_now;

static uint64_t read_fake_tsc(void)
{
	return __atomic_load_n(&fake_tsc_now, __ATOMIC_RELAXED);
}

/* The reader's TSC: the next value of a counter only the reader moves. */
static uint64_t reader_tsc, reader_step;

static uint64_t read_reader_tsc(void)
{
	return __atomic_add_fetch(&reader_tsc, reader_step, __ATOMIC_RELAXED);
}

/* Convert a given TSC value. */
static bool convert(const struct ust_clock_page *pg, uint64_t tsc, uint64_t *ret_ns)
{
	reader_step = 0;
	reader_tsc = tsc;
	return ust_clock_page_convert(pg, read_reader_tsc, ret_ns);
}

/* A calibrated line over a TSC that starts at tsc0 when the clock reads mono0. */
static void calibrate(struct ust_clock_calib *c, struct ust_clock_page *pg, uint64_t tsc0,
		      uint64_t mono0)
{
	ust_clock_calib_init(c, PERIOD);
	ust_clock_page_init(pg);
	assert_int_equal(ust_clock_calib_update(c, tsc0, mono0), UST_CLOCK_CALIB_NONE);
	assert_int_equal(ust_clock_calib_update(c, tsc0 + ns_to_ticks(20000000), mono0 + 20000000),
			 UST_CLOCK_CALIB_START);
	fake_tsc_now = tsc0 + ns_to_ticks(20000000);
	ust_clock_page_publish(pg, c, true, read_fake_tsc);
}

static void test_convert_math(void **state)
{
	struct ust_clock_page pg;
	uint64_t ns = 0;

	(void)state;
	ust_clock_page_init(&pg);
	assert_true(ust_clock_page_check(&pg));
	assert_false(convert(&pg, 1000, &ns)); /* not valid yet */
	pg.valid = 1;
	pg.tsc_base = 1000000;
	pg.mono_base = 5000000000ull;
	pg.mult = 1ull << (UST_CLOCK_PAGE_SHIFT - 1); /* 0.5 ns per tick */
	pg.max_delta = 1000000;
	assert_true(convert(&pg, 1000000, &ns));
	assert_int_equal(ns, 5000000000ull);
	assert_true(convert(&pg, 1000000 + 4000, &ns));
	assert_int_equal(ns, 5000000000ull + 2000);
	assert_true(convert(&pg, 1000000 + 1000000, &ns));
	assert_int_equal(ns, 5000000000ull + 500000);
	/* Stale: past max_delta. */
	assert_false(convert(&pg, 1000000 + 1000001, &ns));
	assert_false(convert(&pg, UINT64_MAX, &ns));
	/* Slightly behind the base: the base; far behind: fall back. */
	assert_true(convert(&pg, 1000000 - 100, &ns));
	assert_int_equal(ns, 5000000000ull);
	assert_false(convert(&pg, 1000000 - UST_CLOCK_PAGE_BACK_TICKS - 1, &ns));
	/* Invalid. */
	pg.valid = 0;
	assert_false(convert(&pg, 1000000, &ns));
	/* Not a page. */
	pg.magic = 0;
	assert_false(ust_clock_page_check(&pg));
}

/* A daemon killed mid-update leaves seq odd: the reader gives up, bounded. */
static void test_seqcount_retry_bound(void **state)
{
	struct ust_clock_calib c;
	struct ust_clock_page pg;
	uint64_t ns = 0;

	(void)state;
	calibrate(&c, &pg, 1ull << 40, 1000000000000ull);
	assert_int_equal(pg.seq % 2, 0);
	assert_true(convert(&pg, fake_tsc_now + 10, &ns));
	pg.seq++;
	assert_false(convert(&pg, fake_tsc_now + 10, &ns));
	pg.seq++;
	assert_true(convert(&pg, fake_tsc_now + 10, &ns));
}

/*
 * A reader preempted between its seq load and its TSC read while the daemon
 * republishes: it retries with the new line and a fresh TSC, so its value
 * is exact rather than clamped to the new line's start.
 */
static struct ust_clock_calib *race_calib;
static struct ust_clock_page *race_page;
static int race_reads;
static uint64_t race_mono; /* the true clock at fake_tsc_now */

static uint64_t read_tsc_while_republishing(void)
{
	if (race_reads++ == 0) {
		uint64_t tsc = fake_tsc_now + ns_to_ticks(PERIOD);

		/* The daemon's next refresh, on time and on the true clock. */
		ust_clock_calib_update(race_calib, tsc, race_mono + PERIOD);
		fake_tsc_now = tsc + ns_to_ticks(10000);
		ust_clock_page_publish(race_page, race_calib, true, read_fake_tsc);
	}
	return fake_tsc_now + 1000;
}

static void test_republish_during_read(void **state)
{
	struct ust_clock_calib c;
	struct ust_clock_page pg;
	uint64_t tsc0 = 1ull << 30, mono0 = 2000000000ull, ns = 0;

	(void)state;
	calibrate(&c, &pg, tsc0, mono0);
	race_calib = &c;
	race_page = &pg;
	race_reads = 0;
	race_mono = mono0 + 20000000;
	assert_true(ust_clock_page_convert(&pg, read_tsc_while_republishing, &ns));
	assert_int_equal(race_reads, 2); /* retried once, with a fresh TSC */
	assert_int_equal(ns, ust_clock_calib_at(&c, fake_tsc_now + 1000));
}

static void test_publish(void **state)
{
	struct ust_clock_calib c;
	struct ust_clock_page pg;
	uint64_t ns = 0, seq;

	(void)state;
	calibrate(&c, &pg, 1000, 7000000000ull);
	assert_int_equal(pg.valid, 1);
	assert_int_equal(pg.tsc_base, c.tsc_base);
	assert_int_equal(pg.mono_base, c.mono_base);
	assert_int_equal(pg.mult, c.mult);
	/* Usable for STALE_PERIODS periods, not beyond. */
	assert_true(convert(
		&pg, c.tsc_base + ns_to_ticks(PERIOD * UST_CLOCK_PAGE_STALE_PERIODS) - 10, &ns));
	assert_true(ns > c.mono_base + PERIOD * UST_CLOCK_PAGE_STALE_PERIODS - 100);
	assert_false(convert(
		&pg, c.tsc_base + ns_to_ticks(PERIOD * UST_CLOCK_PAGE_STALE_PERIODS) + 10, &ns));
	seq = pg.seq;
	ust_clock_page_publish(&pg, &c, false, read_fake_tsc);
	assert_int_equal(pg.seq, seq + 2);
	assert_false(convert(&pg, c.tsc_base + 10, &ns));
}

/*
 * Refreshes over a clock that runs 200 ppm fast against the first rate
 * estimate, with +-150 ns of sampling noise: the line never steps, its value
 * never decreases across a refresh, the slope stays within the slew bound of
 * the measured rate, and the error converges.
 */
static void test_slew_continuity(void **state)
{
	struct ust_clock_calib c;
	struct ust_clock_page pg;
	uint64_t tsc0 = 5000000, mono0 = 3000000000ull, last = 0;
	int64_t final_err = 0;

	(void)state;
	calibrate(&c, &pg, tsc0, mono0);
	srand(7);
	for (int i = 1; i <= 100; i++) {
		uint64_t el = 20000000 + (uint64_t)i * PERIOD, tsc = tsc0 + ns_to_ticks(el);
		/* 200 ppm fast from refresh 10 on, a frequency step. */
		uint64_t mono = mono0 + el + (i > 10 ? (uint64_t)(i - 10) * PERIOD / 5000 : 0);
		int64_t noise = (rand() % 301) - 150;
		uint64_t before, after, max_corr;
		enum ust_clock_calib_event ev;

		mono = (uint64_t)((int64_t)mono + noise);
		ev = ust_clock_calib_update(&c, tsc, mono);
		assert_int_equal(ev, UST_CLOCK_CALIB_SLEW);
		/* The commit happens a little after the sample. */
		fake_tsc_now = tsc + 2600;
		before = ust_clock_calib_at(&c, fake_tsc_now);
		assert_true(before >= last);
		ust_clock_page_publish(&pg, &c, true, read_fake_tsc);
		after = c.mono_base;
		assert_int_equal(c.tsc_base, fake_tsc_now);
		assert_int_equal(after, before); /* continuous: no step */
		max_corr = c.rate * UST_CLOCK_SLEW_PPM / 1000000 + 1;
		assert_true(c.mult <= c.rate + max_corr && c.mult + max_corr >= c.rate);
		last = after;
		final_err = c.last_error_ns;
	}
	assert_int_equal(c.resets, 0);
	/* Converged to within the noise plus what one period of drift leaves. */
	assert_true(final_err < 1000 && final_err > -1000);
}

/* A line far off (more than the slew can fix) is reset onto the clock. */
static void test_reset_on_jump(void **state)
{
	struct ust_clock_calib c;
	struct ust_clock_page pg;
	uint64_t tsc0 = 1ull << 33, mono0 = 1000000000ull, tsc, mono, ns = 0;

	(void)state;
	calibrate(&c, &pg, tsc0, mono0);
	/* One ordinary refresh. */
	tsc = tsc0 + ns_to_ticks(20000000 + PERIOD);
	mono = mono0 + 20000000 + PERIOD;
	assert_int_equal(ust_clock_calib_update(&c, tsc, mono), UST_CLOCK_CALIB_SLEW);
	fake_tsc_now = tsc;
	ust_clock_page_publish(&pg, &c, true, read_fake_tsc);

	/* The clock jumped 5 ms ahead of the TSC (a restore): rate jump, reset. */
	tsc += ns_to_ticks(PERIOD);
	mono += PERIOD + 5000000;
	assert_int_equal(ust_clock_calib_update(&c, tsc, mono), UST_CLOCK_CALIB_RESET_RATE);
	fake_tsc_now = tsc;
	ust_clock_page_publish(&pg, &c, true, read_fake_tsc);
	assert_int_equal(c.resets, 1);
	assert_int_equal(pg.resets, 1);
	assert_true(convert(&pg, tsc, &ns));
	assert_int_equal(ns, mono);

	/*
	 * A line gone 1 % off (white box; a long stall with the slope at its
	 * bound ends the same way): 2 ms of error one period later, with a
	 * steady rate, is an error reset.
	 */
	c.mult += c.mult / 100;
	tsc += ns_to_ticks(PERIOD);
	mono += PERIOD;
	assert_int_equal(ust_clock_calib_update(&c, tsc, mono), UST_CLOCK_CALIB_RESET_ERROR);
	fake_tsc_now = tsc;
	ust_clock_page_publish(&pg, &c, true, read_fake_tsc);
	assert_true(convert(&pg, tsc, &ns));
	assert_int_equal(ns, mono);
	assert_int_equal(c.resets, 2);

	/* The TSC went backwards (a restore onto an older counter). */
	tsc -= ns_to_ticks(10 * PERIOD);
	mono += PERIOD;
	assert_int_equal(ust_clock_calib_update(&c, tsc, mono), UST_CLOCK_CALIB_RESET_BACKWARDS);
	fake_tsc_now = tsc;
	ust_clock_page_publish(&pg, &c, true, read_fake_tsc);
	assert_true(convert(&pg, tsc + 100, &ns));
	assert_true(ns >= mono && ns < mono + 100);
	assert_int_equal(c.resets, 3);
}

/*
 * One thread republishes (slewing by the bound each time) while another
 * converts an ever increasing TSC: no torn read, and never backwards.
 */
struct race {
	struct ust_clock_calib c;
	struct ust_clock_page pg;
	int stop;
	uint64_t not_slew;
};

static void *writer(void *arg)
{
	struct race *r = arg;
	uint64_t last_tsc = read_fake_tsc(); /* the calibration's last sample */
	int i = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		uint64_t tsc = read_fake_tsc(), mono;

		/* Refresh every 100 us of fake time, as the daemon every period. */
		if (tsc - last_tsc < ns_to_ticks(100000))
			continue;
		last_tsc = tsc;
		/* +-200 ns of error, alternating: the slope swings each time. */
		mono = 1000000000ull + tsc * 10 / TICKS_PER_NS_X10 + ((i++ & 1) ? 400 : 0);
		/* cmocka asserts only on the main thread: count, check there. */
		if (ust_clock_calib_update(&r->c, tsc, mono) != UST_CLOCK_CALIB_SLEW)
			r->not_slew++;
		ust_clock_page_publish(&r->pg, &r->c, true, read_fake_tsc);
	}
	return NULL;
}

/* The reader of the race moves the shared TSC by 100 at each read. */
static uint64_t read_moving_tsc(void)
{
	return __atomic_add_fetch(&fake_tsc_now, 100, __ATOMIC_RELAXED);
}

static void test_concurrent_refresh(void **state)
{
	struct race *r = calloc(1, sizeof(*r));
	uint64_t last = 0, ok = 0, t0 = 1000000;
	pthread_t th;

	(void)state;
	assert_non_null(r);
	fake_tsc_now = t0;
	/* A 1 ms period: slopes corrected hard, and stale after 5 ms. */
	ust_clock_calib_init(&r->c, 1000000);
	ust_clock_page_init(&r->pg);
	ust_clock_calib_update(&r->c, t0, 1000000000ull + t0 * 10 / TICKS_PER_NS_X10);
	fake_tsc_now = t0 + ns_to_ticks(2000000);
	assert_int_equal(
		ust_clock_calib_update(&r->c, fake_tsc_now,
				       1000000000ull + fake_tsc_now * 10 / TICKS_PER_NS_X10),
		UST_CLOCK_CALIB_START);
	ust_clock_page_publish(&r->pg, &r->c, true, read_fake_tsc);
	assert_int_equal(pthread_create(&th, NULL, writer, r), 0);
	for (int i = 0; i < 2000000; i++) {
		uint64_t ns;

		/* The only thread moving the TSC: the writer's commits never pass it. */
		if (!ust_clock_page_convert(&r->pg, read_moving_tsc, &ns))
			continue; /* mid-update four times in a row, or stale: fallback */
		assert_true(ns >= last);
		last = ns;
		ok++;
	}
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	assert_true(ok > 0);
	assert_int_equal(r->not_slew, 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convert_math),
		cmocka_unit_test(test_seqcount_retry_bound),
		cmocka_unit_test(test_publish),
		cmocka_unit_test(test_republish_during_read),
		cmocka_unit_test(test_slew_continuity),
		cmocka_unit_test(test_reset_on_jump),
		cmocka_unit_test(test_concurrent_refresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
