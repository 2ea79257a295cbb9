/* SPDX-License-Identifier: MIT */
/*
 * Time ranges (strata_ctf_reader_options.begin/end): the text formats
 * babeltrace2's trimmer takes, the clock conversion of cut notices, and
 * what the reader keeps of the committed traces, checked against a full
 * read of the same trace (tests/e2e/view-trim.sh compares with babeltrace2).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <strata/ctf.h>

#include "ctf/trim.h"

#define S INT64_C(1000000000)
/* 2026-12-03 15:16:16 UTC */
#define DAY_T INT64_C(1796310976)

static char traces[1024];

struct parse_case {
	const char *text;
	bool gmt;
	int ret;
	bool tod;
	int64_t ns; /* a time of day's: below 1 s */
	int hms; /* a time of day's fields: hour * 10000 + minute * 100 + second */
};

static void check_parse(const struct parse_case *c)
{
	struct strata_ctf_bound b = { .ns = 42 };
	int ret = strata_ctf_bound_parse(c->text, c->gmt, &b);

	if (ret != c->ret)
		fail_msg("'%s': returned %d, expected %d", c->text, ret, c->ret);
	if (ret < 0) {
		/* Nothing changes on failure. */
		assert_false(b.set);
		assert_int_equal(b.ns, 42);
		return;
	}
	assert_true(b.set);
	if (b.time_of_day && b.hour * 10000 + b.minute * 100 + b.second != c->hms)
		fail_msg("'%s': got %02d:%02d:%02d", c->text, b.hour, b.minute, b.second);
	if (b.time_of_day != c->tod || b.ns != c->ns)
		fail_msg("'%s': got %s %lld, expected %s %lld", c->text,
			 b.time_of_day ? "tod" : "abs", (long long)b.ns, c->tod ? "tod" : "abs",
			 (long long)c->ns);
}

static void test_parse_formats(void **state)
{
	static const struct parse_case cases[] = {
		{ "2026-12-03 15:16:16.7", true, 0, false, DAY_T * S + 700000000, 0 },
		{ "2026-12-03 15:16:16.000000001", true, 0, false, DAY_T * S + 1, 0 },
		{ "2026-12-03 15:16:16", true, 0, false, DAY_T * S, 0 },
		{ "2026-12-03 15:16", true, 0, false, (DAY_T - 16) * S, 0 },
		{ "2026-12-03", true, 0, false, (DAY_T - 15 * 3600 - 16 * 60 - 16) * S, 0 },
		/* Out-of-range fields normalize as mktime() does. */
		{ "2026-12-02 39:16:16", true, 0, false, DAY_T * S, 0 },
		{ "15:16:16.123", false, 0, true, 123000000, 151616 },
		{ "15:16", true, 0, true, 0, 151600 },
		{ "99:99:99.999999999", false, 0, true, 999999999, 999999 },
		{ "1796310976.5", false, 0, false, DAY_T * S + 500000000, 0 },
		{ "1796310976", false, 0, false, DAY_T * S, 0 },
		{ "0", false, 0, false, 0, 0 },
		{ "16", false, 0, false, 16 * S, 0 },
		{ "-5", false, 0, false, -5 * S, 0 },
		{ "-0.5", false, 0, false, -500000000, 0 },
		{ "9223372036.854775807", false, 0, false, INT64_MAX, 0 },
		{ "-9223372036.854775807", false, 0, false, -INT64_MAX, 0 },
		/* babeltrace2 refuses INT64_MIN, and past 64 bits it aborts. */
		{ "-9223372036.854775808", false, -ERANGE, false, 0, 0 },
		{ "9223372037", false, -ERANGE, false, 0, 0 },
		{ "99999999999999999999999", false, -ERANGE, false, 0, 0 },
		{ "1969-12-31 23:59:58", true, -ERANGE, false, 0, 0 },
		{ "", false, -EINVAL, false, 0, 0 },
		{ ".5", false, -EINVAL, false, 0, 0 },
		{ "5.", false, -EINVAL, false, 0, 0 },
		{ "15:16:16.", false, -EINVAL, false, 0, 0 },
		{ "1.1234567891", false, -EINVAL, false, 0, 0 },
		{ "15:16:16.1234567891", false, -EINVAL, false, 0, 0 },
		{ "+5", false, -EINVAL, false, 0, 0 },
		{ " 15:16", false, -EINVAL, false, 0, 0 },
		{ "15:16 ", false, -EINVAL, false, 0, 0 },
		{ "5:16:16", false, -EINVAL, false, 0, 0 },
		{ "15:6:16", false, -EINVAL, false, 0, 0 },
		{ "15:16:6", false, -EINVAL, false, 0, 0 },
		{ "2026-12-03T15:16", true, -EINVAL, false, 0, 0 },
		{ "2026-12-03  15:16", true, -EINVAL, false, 0, 0 },
		{ "2026-12-3", true, -EINVAL, false, 0, 0 },
		{ "2026-12-03 15", true, -EINVAL, false, 0, 0 },
		{ "1e9", false, -EINVAL, false, 0, 0 },
		{ "--5", false, -EINVAL, false, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_parse(&cases[i]);
	assert_int_equal(strata_ctf_bound_parse(NULL, false, &(struct strata_ctf_bound){ 0 }),
			 -EINVAL);
}

/* Dates without --clock-gmt are local: EST5 is UTC-5 all year. */
static void test_parse_local(void **state)
{
	static const struct parse_case cases[] = {
		{ "2026-12-03 10:16:16.7", false, 0, false, DAY_T * S + 700000000, 0 },
		{ "2026-12-03 10:16:16.7", true, 0, false, (DAY_T - 5 * 3600) * S + 700000000, 0 },
		/* Seconds and times of day do not depend on the zone. */
		{ "1796310976", false, 0, false, DAY_T * S, 0 },
		{ "10:16", false, 0, true, 0, 101600 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_parse(&cases[i]);
}

/*
 * Fields are handed to mktime() as written, as babeltrace2 does: on the
 * day clocks go forward (2022-03-13, 02:00 EST becomes 03:00 EDT), 03:00
 * is 07:00 UTC, and seconds past 59 count after the zone's offset is taken.
 */
static void test_parse_dst(void **state)
{
	static const struct parse_case cases[] = {
		{ "2022-03-13 03:00", false, 0, false, INT64_C(1647154800) * S, 0 },
		{ "2022-03-13 01:59:99", false, 0, false, INT64_C(1647154839) * S, 0 },
		{ "2022-03-12 27:00", false, 0, false, INT64_C(1647154800) * S, 0 },
	};
	struct strata_ctf_bound b;

	(void)state;
	setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1);
	tzset();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_parse(&cases[i]);
	assert_int_equal(strata_ctf_bound_parse("03:00", false, &b), 0);
	assert_int_equal(ctf_bound_resolve(&b, INT64_C(1647154800) * S, false), 0);
	assert_int_equal(b.ns, INT64_C(1647154800) * S);
	setenv("TZ", "EST5", 1);
	tzset();
}

static void test_resolve_time_of_day(void **state)
{
	struct strata_ctf_bound b;
	/* 2026-12-04 01:00:00 UTC is still 2026-12-03 in EST5. */
	int64_t first = (DAY_T + 9 * 3600 + 44 * 60 - 16) * S;

	(void)state;
	assert_int_equal(strata_ctf_bound_parse("10:16:16.5", false, &b), 0);
	assert_int_equal(ctf_bound_resolve(&b, first, false), 0);
	assert_false(b.time_of_day);
	assert_int_equal(b.ns, DAY_T * S + 500000000);

	assert_int_equal(strata_ctf_bound_parse("10:16:16.5", true, &b), 0);
	assert_int_equal(ctf_bound_resolve(&b, first, true), 0);
	assert_int_equal(b.ns, (DAY_T + 24 * 3600 - 5 * 3600) * S + 500000000);

	/* Absolute bounds stay as they are. */
	assert_int_equal(strata_ctf_bound_parse("7", false, &b), 0);
	assert_int_equal(ctf_bound_resolve(&b, first, false), 0);
	assert_int_equal(b.ns, 7 * S);
}

static void test_clock_raw_from_ns(void **state)
{
	uint64_t raw = 0;

	(void)state;
	assert_int_equal(ctf_clock_raw_from_ns(0, 0, 1000000000, 123456789, &raw), 0);
	assert_int_equal(raw, 123456789);
	assert_int_equal(ctf_clock_raw_from_ns(1, 5, 1000000000, 3 * S, &raw), 0);
	assert_int_equal(raw, 2 * S - 5);
	/* 1.234567 MHz, offset 1 s + 617283 cycles (499999594 ns, truncated). */
	assert_int_equal(ctf_clock_raw_from_ns(1, 617283, 1234567, 3 * S, &raw), 0);
	assert_int_equal(raw, 1851851);
	/* Before the clock's origin, and overflow. */
	assert_int_equal(ctf_clock_raw_from_ns(10, 0, 1000000000, 5 * S, &raw), -ERANGE);
	assert_int_equal(ctf_clock_raw_from_ns(0, 0, UINT64_MAX, INT64_MAX, &raw), -ERANGE);
	assert_int_equal(ctf_clock_raw_from_ns(INT64_MAX, 0, 1000000000, 0, &raw), -ERANGE);
}

/* What a reader of rel returns: event times and the notices. */
struct seen {
	int64_t ev[4096];
	size_t n_ev;
	struct strata_ctf_discarded disc[16];
	size_t n_disc;
};

static int read_trace(const char *rel, const struct strata_ctf_reader_options *o, struct seen *out,
		      char **err)
{
	char path[1200];
	const char *p = path;
	struct strata_ctf_reader *r = NULL;
	struct strata_ctf_msg m;
	enum strata_ctf_status st;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", traces, rel);
	memset(out, 0, sizeof(*out));
	ret = strata_ctf_reader_create(&p, 1, o, &r, err);
	if (ret < 0)
		return ret;
	while ((st = strata_ctf_reader_next(r, &m)) == STRATA_CTF_OK) {
		if (m.type == STRATA_CTF_MSG_EVENT) {
			assert_true(out->n_ev < 4096);
			out->ev[out->n_ev++] = strata_ctf_event_ns(m.event);
		} else {
			assert_true(out->n_disc < 16);
			out->disc[out->n_disc++] = m.discarded;
		}
	}
	assert_int_equal(st, STRATA_CTF_END);
	/* Past the end, the reader keeps saying so. */
	assert_int_equal(strata_ctf_reader_next(r, &m), STRATA_CTF_END);
	strata_ctf_reader_destroy(r);
	return 0;
}

static struct strata_ctf_bound at(int64_t ns)
{
	return (struct strata_ctf_bound){ .set = true, .ns = ns };
}

/* Events of a full read within [b, e], b and e included. */
static void expect_events(const struct seen *all, const struct seen *got, int64_t b, int64_t e)
{
	size_t k = 0;

	for (size_t i = 0; i < all->n_ev; i++) {
		if (all->ev[i] < b || all->ev[i] > e)
			continue;
		assert_true(k < got->n_ev);
		assert_int_equal(got->ev[k], all->ev[i]);
		k++;
	}
	assert_int_equal(k, got->n_ev);
}

static void test_reader_events(void **state)
{
	static struct seen all, got;
	struct strata_ctf_reader_options o = { 0 };
	int64_t b, e;

	(void)state;
	assert_int_equal(read_trace("lttng/multichan", &o, &all, NULL), 0);
	assert_true(all.n_ev > 20);
	/* Exact event times: both ends included. */
	b = all.ev[all.n_ev / 4];
	e = all.ev[all.n_ev / 2];
	o.begin = at(b);
	o.end = at(e);
	assert_int_equal(read_trace("lttng/multichan", &o, &got, NULL), 0);
	assert_true(got.n_ev >= all.n_ev / 4);
	assert_int_equal(got.ev[0], b);
	assert_int_equal(got.ev[got.n_ev - 1], e);
	expect_events(&all, &got, b, e);
	/* One nanosecond inside: those two events are gone. */
	o.begin = at(b + 1);
	o.end = at(e - 1);
	assert_int_equal(read_trace("lttng/multichan", &o, &got, NULL), 0);
	expect_events(&all, &got, b + 1, e - 1);
	/* One end only. */
	o.begin = (struct strata_ctf_bound){ 0 };
	assert_int_equal(read_trace("lttng/multichan", &o, &got, NULL), 0);
	expect_events(&all, &got, INT64_MIN, e - 1);
	o.begin = at(b);
	o.end = (struct strata_ctf_bound){ 0 };
	assert_int_equal(read_trace("lttng/multichan", &o, &got, NULL), 0);
	expect_events(&all, &got, b, INT64_MAX);
	/* Past the last event: nothing. */
	o.begin = at(all.ev[all.n_ev - 1] + 1);
	assert_int_equal(read_trace("lttng/multichan", &o, &got, NULL), 0);
	assert_int_equal(got.n_ev, 0);
}

/* A notice straddling an end is cut there, its count unknown. */
static void test_reader_cuts_notices(void **state)
{
	static struct seen all, got;
	struct strata_ctf_reader_options o = { 0 };
	const struct strata_ctf_discarded *d;
	int64_t mid;

	(void)state;
	assert_int_equal(read_trace("lttng/discard", &o, &all, NULL), 0);
	assert_true(all.n_disc >= 1);
	d = &all.disc[0];
	assert_true(d->count > 0 && d->has_range && d->end_ns - d->begin_ns > 2);
	mid = d->begin_ns + (d->end_ns - d->begin_ns) / 2;

	o.begin = at(mid);
	assert_int_equal(read_trace("lttng/discard", &o, &got, NULL), 0);
	assert_true(got.n_disc >= 1);
	assert_int_equal(got.disc[0].count, 0);
	assert_int_equal(got.disc[0].begin_ns, mid);
	assert_int_equal(got.disc[0].end_ns, d->end_ns);
	expect_events(&all, &got, mid, INT64_MAX);

	o.begin = (struct strata_ctf_bound){ 0 };
	o.end = at(mid);
	assert_int_equal(read_trace("lttng/discard", &o, &got, NULL), 0);
	assert_int_equal(got.n_disc, 1);
	assert_int_equal(got.disc[0].count, 0);
	assert_int_equal(got.disc[0].begin_ns, d->begin_ns);
	assert_int_equal(got.disc[0].end_ns, mid);
	expect_events(&all, &got, INT64_MIN, mid);

	/* Both ends inside the one range. */
	o.begin = at(mid - 1);
	assert_int_equal(read_trace("lttng/discard", &o, &got, NULL), 0);
	assert_int_equal(got.n_disc, 1);
	assert_int_equal(got.disc[0].begin_ns, mid - 1);
	assert_int_equal(got.disc[0].end_ns, mid);
	assert_int_equal(got.n_ev, 0);

	/* A range ending right at the beginning still reaches it. */
	o.begin = at(d->end_ns);
	o.end = (struct strata_ctf_bound){ 0 };
	assert_int_equal(read_trace("lttng/discard", &o, &got, NULL), 0);
	assert_true(got.n_disc >= 1);
	assert_int_equal(got.disc[0].count, 0);
	assert_int_equal(got.disc[0].begin_ns, d->end_ns);
	assert_int_equal(got.disc[0].end_ns, d->end_ns);

	/* A range wholly inside is kept as it is. */
	o.begin = at(d->begin_ns);
	o.end = at(d->end_ns);
	assert_int_equal(read_trace("lttng/discard", &o, &got, NULL), 0);
	assert_true(got.n_disc >= 1);
	assert_int_equal(got.disc[0].count, d->count);
	assert_int_equal(got.disc[0].begin_ns, d->begin_ns);
	assert_int_equal(got.disc[0].end_ns, d->end_ns);
}

static void test_reader_time_of_day(void **state)
{
	static struct seen all, got;
	struct strata_ctf_reader_options o = { .bounds_gmt = true };
	int64_t b, day;

	(void)state;
	assert_int_equal(read_trace("lttng/multichan", &o, &all, NULL), 0);
	b = all.ev[all.n_ev / 3];
	/* The first packet begins on the first event's day in this trace. */
	day = all.ev[0] / S / 86400 * 86400 * S;
	o.begin = (struct strata_ctf_bound){ .set = true,
					     .time_of_day = true,
					     .hour = (uint8_t)((b - day) / S / 3600),
					     .minute = (uint8_t)((b - day) / S / 60 % 60),
					     .second = (uint8_t)((b - day) / S % 60),
					     .ns = (b - day) % S };
	assert_int_equal(read_trace("lttng/multichan", &o, &got, NULL), 0);
	assert_int_equal(got.ev[0], b);
	expect_events(&all, &got, b, INT64_MAX);
	/* The streams rewind before decoding threads start: the same events. */
	o.decode_threads = 2;
	assert_int_equal(read_trace("lttng/multichan", &o, &got, NULL), 0);
	assert_int_equal(got.ev[0], b);
	expect_events(&all, &got, b, INT64_MAX);
}

static void test_reader_refuses(void **state)
{
	static struct seen got;
	struct strata_ctf_reader_options o = { .end = at(5 * S) };
	char *err = NULL;

	(void)state;
	assert_int_equal(read_trace("gen/noclock", &o, &got, &err), -EINVAL);
	assert_non_null(strstr(err, "has no clock"));
	free(err);
	err = NULL;
	assert_int_equal(read_trace("gen/minimal", &o, &got, &err), -EINVAL);
	assert_non_null(strstr(err, "no packet beginning and end times"));
	free(err);
	err = NULL;
	o.begin = at(6 * S);
	assert_int_equal(read_trace("lttng/discard", &o, &got, &err), -EINVAL);
	assert_non_null(strstr(err, "begins after it ends"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_formats),
		cmocka_unit_test(test_parse_local),
		cmocka_unit_test(test_parse_dst),
		cmocka_unit_test(test_resolve_time_of_day),
		cmocka_unit_test(test_clock_raw_from_ns),
		cmocka_unit_test(test_reader_events),
		cmocka_unit_test(test_reader_cuts_notices),
		cmocka_unit_test(test_reader_time_of_day),
		cmocka_unit_test(test_reader_refuses),
	};
	const char *root = getenv("STRATA_SOURCE_ROOT");

	snprintf(traces, sizeof(traces), "%s/tests/traces", root ? root : ".");
	/* test_parse_local and test_resolve_time_of_day: UTC-5, no DST, no tzdata. */
	setenv("TZ", "EST5", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
