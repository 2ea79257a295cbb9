/* SPDX-License-Identifier: MIT */
/*
 * End to end inside one process: tp-all.h (every field macro) recorded
 * through the in-process backend, written as a CTF trace with
 * lib/ctf/writer.h, read back by babeltrace2. The expected text is computed
 * here from the values passed to the tracepoints, following babeltrace2's
 * printing rules (reference/ctf.md PART 3).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp-all.h"
#include "trace-util.h"
#include "ust/header.h"

#include "common/common.h"

static const enum ust_context_type test_ctx[] = { UST_CTX_VPID, UST_CTX_VTID, UST_CTX_PROCNAME,
						  UST_CTX_PTHREAD_ID };
static const char *const test_events[] = { "strata_test:allfields", "strata_test:empty",
					   "strata_test:first", "strata_test:second", NULL };

struct fixture {
	struct ust_mem_backend *mb;
	struct ust_channel *chan;
	struct tu_trace trace;
};

static int have_babeltrace2(void)
{
	char *const argv[] = { "babeltrace2", "--version", NULL };
	int status;
	char *out = tu_run(argv, &status);

	free(out);
	return out && status == 0;
}

static void fixture_setup(struct fixture *fx, size_t capacity, enum ust_clock_kind clock,
			  uint64_t freq, int64_t offset_ns)
{
	struct ust_channel_config cfg = {
		.ops = &ust_mem_backend_ops,
		.clock = clock,
		.n_ctx = ARRAY_SIZE(test_ctx),
		.ctx = test_ctx,
	};

	assert_int_equal(ust_mem_backend_create(capacity, &fx->mb), 0);
	cfg.backend = fx->mb;
	assert_int_equal(ust_channel_create(&cfg, &fx->chan), 0);
	assert_int_equal(tu_trace_begin(&fx->trace, freq, offset_ns, test_ctx, ARRAY_SIZE(test_ctx),
					fx->chan, test_events),
			 0);
}

static void fixture_teardown(struct fixture *fx)
{
	ust_channel_detach(fx->chan);
	tu_trace_end(&fx->trace);
	ust_mem_backend_destroy(fx->mb);
}

/* Lines of babeltrace2's output with the "[timestamp] " prefix removed. */
static char *read_back(struct fixture *fx, const char *extra_opt)
{
	char *const argv[] = { "babeltrace2", "--no-delta", (char *)extra_opt, fx->trace.dir,
			       NULL };
	char *const argv_plain[] = { "babeltrace2", "--no-delta", fx->trace.dir, NULL };
	struct tu_str b = { 0 };
	int status;
	char *out, *line, *save = NULL;

	assert_int_equal(tu_trace_write(&fx->trace, fx->mb), 0);
	out = tu_run(extra_opt ? argv : argv_plain, &status);
	assert_non_null(out);
	if (status != 0)
		fail_msg("babeltrace2 failed (status %d) on %s", status, fx->trace.dir);
	tu_str_printf(&b, "%s", "");
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, "] ");

		tu_str_printf(&b, "%s\n", p ? p + 2 : line);
	}
	free(out);
	return b.s;
}

static void ctx_prefix(struct tu_str *b)
{
	char name[17] = { 0 };

	prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0);
	tu_str_printf(b, "{ cpu_id = 0 }, { vpid = %d, vtid = %d, procname = ", (int)getpid(),
		      (int)syscall(SYS_gettid));
	tu_str_escaped(b, name, 16);
	tu_str_printf(b, ", pthread_id = %lu }, ", (unsigned long)pthread_self());
}

struct allvals {
	int i;
	int64_t l;
	uint32_t u;
	int16_t arr[3];
	const char *text;
	size_t textlen;
	const char *str;
	double d;
	float f;
	int color;
};

static unsigned int be16_at(const int16_t *v)
{
	const uint8_t *p = (const uint8_t *)v;

	return (unsigned int)(p[0] << 8 | p[1]);
}

static void expect_color(struct tu_str *b, int c)
{
	/* Declaration order: RED 0, RANGE 10..20, AUTO (21), NEG -5, OVERLAP 15..16. */
	struct {
		const char *label;
		int lo, hi;
	} m[] = { { "RED", 0, 0 },
		  { "RANGE", 10, 20 },
		  { "AUTO", 21, 21 },
		  { "NEG", -5, -5 },
		  { "OVERLAP", 15, 16 } };
	int n = 0;

	tu_str_printf(b, "colorfield = ( ");
	for (size_t k = 0; k < ARRAY_SIZE(m); k++)
		if (c >= m[k].lo && c <= m[k].hi)
			tu_str_printf(b, "%s\"%s\"", n++ ? ", " : "", m[k].label);
	if (!n)
		tu_str_printf(b, "<unknown>");
	tu_str_printf(b, " : container = %d )", c);
}

static void expect_allfields(struct tu_str *b, const struct allvals *v)
{
	const char *s = v->str ? v->str : "(null)";

	tu_str_printf(b, "testhost strata_test:allfields: ");
	ctx_prefix(b);
	tu_str_printf(b, "{ intfield = %d, intfield2 = 0x%X, longfield = %lld, ", v->i,
		      (unsigned int)v->i, (long long)v->l);
	tu_str_printf(b, "u8field = %u, s8field = %d, u16field = %u, ", (uint8_t)v->i, (int8_t)v->i,
		      (uint16_t)v->i);
	tu_str_printf(b, "netintfield = %u, netintfieldhex = 0x%X, ", v->u, v->u);
	tu_str_printf(b, "floatfield = %g, doublefield = %g, stringfield = ", (double)v->f, v->d);
	tu_str_escaped(b, s, SIZE_MAX);
	tu_str_printf(b, ", arrfield = [ [0] = %d, [1] = %d, [2] = %d ], ", v->arr[0], v->arr[1],
		      v->arr[2]);
	tu_str_printf(b, "arrhex = [ [0] = 0x%X, [1] = 0x%X ], arrtext = ", (uint16_t)v->arr[0],
		      (uint16_t)v->arr[1]);
	tu_str_escaped(b, v->text, 8);
	tu_str_printf(b, ", arrnet = [ [0] = %u, [1] = %u ], ", be16_at(&v->arr[0]),
		      be16_at(&v->arr[1]));
	tu_str_printf(b, "arrnethex = [ [0] = 0x%X, [1] = 0x%X ], ", be16_at(&v->arr[0]),
		      be16_at(&v->arr[1]));
	tu_str_printf(b, "_seqfield_length = 3, seqfield = [ [0] = %d, [1] = %d, [2] = %d ], ",
		      v->arr[0], v->arr[1], v->arr[2]);
	tu_str_printf(b, "_seqhex_length = %zu, seqhex = [", v->textlen);
	for (size_t k = 0; k < v->textlen; k++)
		tu_str_printf(b, "%s [%zu] = 0x%X", k ? "," : "", k, (uint8_t)v->text[k]);
	tu_str_printf(b, " ], _seqtext_length = %zu, seqtext = ", v->textlen);
	tu_str_escaped(b, v->text, v->textlen);
	tu_str_printf(b, ", _seqnet_length = 1, seqnet = [ [0] = %u ], ", be16_at(&v->arr[0]));
	expect_color(b, v->color);
	tu_str_printf(b, " }\n");
}

static void emit_allfields(const struct allvals *v)
{
	strata_tracepoint(strata_test, allfields, v->i, v->l, htonl(v->u), v->arr, v->text,
			  v->textlen, v->str, v->d, v->f, v->color);
}

static void test_every_field(void **state)
{
	static const struct allvals vals[] = {
		{ 42,
		  -7,
		  0xDEADBEEF,
		  { 1, -2, 3 },
		  "test",
		  4,
		  "hello \"world\"?\n",
		  2.5,
		  1.5f,
		  15 },
		{ -1,
		  INT64_MIN,
		  0,
		  { -32768, 32767, 0 },
		  "abcdefghij",
		  10,
		  NULL,
		  -1e300,
		  3.25f,
		  21 },
		{ 300, INT64_MAX, 1, { 0, 0, 0 }, "", 0, "", 0.0, -0.5f, -5 },
		{ 7,
		  1,
		  0x01020304,
		  { 258, 772, -1 },
		  "a\tb\x01",
		  4,
		  "caf\xc3\xa9 'x'",
		  1e20,
		  0.333333f,
		  7 },
	};
	struct fixture fx;
	struct tu_str want = { 0 };
	char *got;

	(void)state;
	if (!have_babeltrace2())
		skip();
	fixture_setup(&fx, 1 << 20, UST_CLOCK_MONOTONIC, 1000000000, 0);
	for (size_t k = 0; k < ARRAY_SIZE(vals); k++) {
		emit_allfields(&vals[k]);
		expect_allfields(&want, &vals[k]);
		strata_tracepoint(strata_test, empty);
		tu_str_printf(&want, "testhost strata_test:empty: ");
		ctx_prefix(&want);
		tu_str_printf(&want, "{ }\n");
		strata_tracepoint(strata_test, first, k, UINT64_MAX - k);
		tu_str_printf(&want, "testhost strata_test:first: ");
		ctx_prefix(&want);
		tu_str_printf(&want, "{ a = %zu, b = 0x%llX }\n", k,
			      (unsigned long long)(UINT64_MAX - k));
		strata_tracepoint(strata_test, second, k * 1000, 255);
		tu_str_printf(&want, "testhost strata_test:second: ");
		ctx_prefix(&want);
		tu_str_printf(&want, "{ a = %zu, b = 0xFF }\n", k * 1000);
	}
	assert_int_equal(ust_mem_backend_count(fx.mb), 4 * ARRAY_SIZE(vals));
	assert_int_equal(ust_mem_backend_lost(fx.mb), 0);
	got = read_back(&fx, NULL);
	assert_string_equal(got, want.s);
	free(got);
	free(want.s);
	fixture_teardown(&fx);
}

/* Plain-text and packetized metadata describe the same trace. */
static void test_plain_metadata(void **state)
{
	struct fixture fx;
	char *packetized, *plain;

	(void)state;
	if (!have_babeltrace2())
		skip();
	fixture_setup(&fx, 1 << 16, UST_CLOCK_MONOTONIC, 1000000000, 0);
	for (uint64_t k = 0; k < 10; k++)
		strata_tracepoint(strata_test, first, k, k * k);
	strata_tracepoint(strata_test, empty);
	packetized = read_back(&fx, NULL);
	fx.trace.plain_metadata = true;
	plain = read_back(&fx, NULL);
	assert_true(strlen(plain) > 0);
	assert_string_equal(plain, packetized);
	free(plain);
	free(packetized);
	fixture_teardown(&fx);
}

/* The loglevel and EMF URI reach the metadata (babeltrace2 -f loglevel,emf). */
static void test_loglevel_emf(void **state)
{
	struct fixture fx;
	char *got;

	(void)state;
	if (!have_babeltrace2())
		skip();
	fixture_setup(&fx, 1 << 16, UST_CLOCK_MONOTONIC, 1000000000, 0);
	strata_tracepoint(strata_test, second, 1, 2);
	strata_tracepoint(strata_test, first, 1, 2);
	got = read_back(&fx, "--fields=loglevel,emf");
	assert_non_null(strstr(got, "TRACE_INFO (6) strata_test:second:"));
	assert_non_null(strstr(got, "TRACE_DEBUG_LINE (13) strata_test:first:"));
	free(got);
	ust_channel_detach(fx.chan);
	/* allfields: WARNING and its URI. */
	ust_mem_backend_reset(fx.mb);
	assert_int_equal(ust_event_enable("strata_test:allfields", fx.chan, 0), 0);
	{
		const struct allvals v = { 1, 2, 3, { 4, 5, 6 }, "x", 1, "y", 1.0, 2.0f, 0 };

		emit_allfields(&v);
	}
	got = read_back(&fx, "--fields=loglevel,emf");
	assert_non_null(
		strstr(got, "TRACE_WARNING (4):http://example.com/strata strata_test:allfields:"));
	free(got);
	fixture_teardown(&fx);
}

#define THREADS 4
#define PER_THREAD 3000

static void *thread_main(void *arg)
{
	uint64_t t = (uint64_t)(uintptr_t)arg;

	for (uint64_t k = 0; k < PER_THREAD; k++)
		strata_tracepoint(strata_test, first, t, k);
	return NULL;
}

/* Concurrent writers: every record lands once, in timestamp order. */
static void test_threads(void **state)
{
	pthread_t th[THREADS];
	static uint8_t seen[THREADS][PER_THREAD];
	struct fixture fx;
	char *got, *line, *save = NULL;
	size_t lines = 0;

	(void)state;
	if (!have_babeltrace2())
		skip();
	fixture_setup(&fx, 4 << 20, UST_CLOCK_MONOTONIC, 1000000000, 0);
	for (uintptr_t t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, thread_main, (void *)t), 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	assert_int_equal(ust_mem_backend_count(fx.mb), THREADS * PER_THREAD);
	assert_int_equal(ust_mem_backend_lost(fx.mb), 0);
	got = read_back(&fx, "--clock-cycles");
	memset(seen, 0, sizeof(seen));
	for (line = strtok_r(got, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b;
		const char *p = strstr(line, "{ a = ");

		assert_non_null(p);
		assert_int_equal(sscanf(p, "{ a = %llu, b = 0x%llX }", &a, &b), 2);
		assert_true(a < THREADS && b < PER_THREAD);
		assert_int_equal(seen[a][b], 0);
		seen[a][b] = 1;
		lines++;
	}
	assert_int_equal(lines, THREADS * PER_THREAD);
	free(got);
	fixture_teardown(&fx);
}

/* A full buffer drops and counts; the packet carries the count. */
static void test_lost(void **state)
{
	struct fixture fx;
	uint64_t n;

	(void)state;
	fixture_setup(&fx, 1000, UST_CLOCK_MONOTONIC, 1000000000, 0);
	for (int k = 0; k < 100; k++)
		strata_tracepoint(strata_test, first, k, k);
	n = ust_mem_backend_count(fx.mb);
	assert_true(n > 0 && n < 100);
	assert_int_equal(n + ust_mem_backend_lost(fx.mb), 100);
	if (have_babeltrace2()) {
		char *got = read_back(&fx, NULL);
		size_t lines = 0;

		for (char *p = got; (p = strchr(p, '\n')); p++)
			lines++;
		assert_int_equal(lines, n);
		free(got);
	}
	fixture_teardown(&fx);
}

static int side_effects;

static int side_effect(void)
{
	return ++side_effects;
}

/* A disabled tracepoint evaluates nothing and records nothing. */
static void test_disabled(void **state)
{
	struct fixture fx;

	(void)state;
	fixture_setup(&fx, 1 << 16, UST_CLOCK_MONOTONIC, 1000000000, 0);
	assert_int_equal(ust_tracepoint_state("strata_test:disabled"), 0);
	assert_false(strata_tracepoint_enabled(strata_test, disabled));
	strata_tracepoint(strata_test, disabled, side_effect());
	assert_int_equal(side_effects, 0);
	assert_int_equal(ust_mem_backend_count(fx.mb), 0);

	/* Enabled: evaluated once, recorded once. */
	assert_int_equal(ust_event_enable("strata_test:disabled", fx.chan, 9), 0);
	assert_int_equal(ust_tracepoint_state("strata_test:disabled"), 1);
	strata_tracepoint(strata_test, disabled, side_effect());
	assert_int_equal(side_effects, 1);
	assert_int_equal(ust_mem_backend_count(fx.mb), 1);

	/* Disabled again: back to no effect at all. */
	assert_int_equal(ust_event_disable("strata_test:disabled"), 0);
	assert_int_equal(ust_tracepoint_state("strata_test:disabled"), 0);
	strata_tracepoint(strata_test, disabled, side_effect());
	assert_int_equal(side_effects, 1);
	assert_int_equal(ust_mem_backend_count(fx.mb), 1);

	/* Detaching the channel disables what it recorded. */
	assert_int_equal(ust_tracepoint_state("strata_test:first"), 1);
	ust_channel_detach(fx.chan);
	assert_int_equal(ust_tracepoint_state("strata_test:first"), 0);
	assert_int_equal(ust_event_enable("strata_test:nosuch", fx.chan, 1), -ENOENT);
	fixture_teardown(&fx);
}

struct desc_check {
	int found;
};

static int check_desc(const struct ust_event_info *info, void *arg)
{
	struct desc_check *c = arg;
	const struct strata_field_desc *f = info->desc->fields;

	if (strcmp(info->full_name, "strata_test:allfields") != 0)
		return 0;
	c->found = 1;
	/* nowrite and unused fields are not described. */
	assert_int_equal(info->desc->nr_fields, 25);
	assert_string_equal(f[1].name, "intfield2");
	assert_int_equal(f[1].integer.base, 16);
	assert_int_equal(f[1].integer.is_signed, 1);
	assert_string_equal(f[6].name, "netintfield");
	assert_int_equal(f[6].integer.network, 1);
	assert_int_equal(f[6].integer.is_signed, 0);
	assert_int_equal(f[8].kind, STRATA_TYPE_FLOAT);
	assert_int_equal(f[8].integer.size, 32);
	assert_string_equal(f[16].name, "_seqfield_length");
	assert_int_equal(f[16].integer.size, 64);
	assert_int_equal(f[17].kind, STRATA_TYPE_SEQUENCE);
	assert_int_equal(f[24].kind, STRATA_TYPE_ENUM);
	assert_int_equal(f[24].enum_desc->nr_entries, 5);
	assert_int_equal(f[24].enum_desc->entries[2].is_auto, 1);
	assert_int_equal((int64_t)f[24].enum_desc->entries[3].start.value, -5);
	assert_int_equal(info->loglevel, STRATA_TRACEPOINT_LOGLEVEL_WARNING);
	assert_string_equal(info->model_emf_uri, "http://example.com/strata");
	return 0;
}

static void test_descriptors(void **state)
{
	struct desc_check c = { 0 };

	(void)state;
	ust_registry_foreach(check_desc, &c);
	assert_int_equal(c.found, 1);
}

/* Header encoding: compact when the id fits and the clock moved < 2^27. */
static void test_header(void **state)
{
	uint8_t buf[UST_HEADER_EXTENDED_LEN];
	uint64_t ts;
	uint32_t id;
	uint16_t tag;

	(void)state;
	assert_false(ust_header_extended(3, 1000, 10));
	assert_true(ust_header_extended(3, 10 + (1u << 27), 10));
	assert_true(ust_header_extended(65535, 11, 10));
	assert_true(ust_header_extended(1, 5, 10)); /* clock went back: full value */
	assert_ptr_equal(ust_header_write(buf, 7, 0x1122334455667788ull, true),
			 buf + UST_HEADER_EXTENDED_LEN);
	memcpy(&tag, buf, 2);
	memcpy(&id, buf + 2, 4);
	memcpy(&ts, buf + 6, 8);
	assert_int_equal(tag, 65535);
	assert_int_equal(id, 7);
	assert_int_equal(ts, 0x1122334455667788ull);
	assert_ptr_equal(ust_header_write(buf, 7, 0x1122334455667788ull, false),
			 buf + UST_HEADER_COMPACT_LEN);
	memcpy(&tag, buf, 2);
	memcpy(&id, buf + 2, 4);
	assert_int_equal(tag, 7);
	assert_int_equal(id, 0x55667788u);
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * TSC timestamps plus the conversion information (frequency from two
 * (tsc, monotonic) samples, offset from the realtime reading) put the event
 * at the right wall-clock time in babeltrace2.
 */
static void test_tsc_clock(void **state)
{
	struct ust_clock_sample a, b;
	struct fixture fx;
	cpu_set_t one, all;
	uint64_t freq, before, after, start, t;
	unsigned long long sec, nsec;
	int64_t offset_ns;
	int status;
	char *got;

	(void)state;
	if (!ust_clock_tsc_invariant() || !have_babeltrace2())
		skip();
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	/*
	 * Stay on one CPU: this checks the conversion, not cross-CPU TSC
	 * synchronization (which ust_clock_tsc_usable() leaves to the kernel).
	 */
	CPU_ZERO(&one);
	CPU_SET((size_t)sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	ust_clock_sample(&a);
	/* Calibrate over ~50 ms of busy time (a measurement, not a wait on anything). */
	start = ust_clock_monotonic_ns();
	while (ust_clock_monotonic_ns() - start < 50000000)
		;
	ust_clock_sample(&b);
	freq = ust_clock_tsc_freq(&a, &b);
	assert_true(freq > 0);
	/* Epoch time at tsc == 0. */
	offset_ns = (int64_t)b.realtime_ns - (int64_t)((double)b.tsc * 1e9 / (double)freq);
	fixture_setup(&fx, 1 << 16, UST_CLOCK_TSC, freq, offset_ns);
	before = wall_ns();
	strata_tracepoint(strata_test, first, 1, 2);
	after = wall_ns();
	assert_int_equal(tu_trace_write(&fx.trace, fx.mb), 0);
	{
		char *const argv[] = { "babeltrace2", "--clock-seconds", fx.trace.dir, NULL };

		got = tu_run(argv, &status);
	}
	assert_non_null(got);
	assert_int_equal(status, 0);
	assert_int_equal(sscanf(got, "[%llu.%llu]", &sec, &nsec), 2);
	t = sec * 1000000000ull + nsec;
	/* Within 2 ms (calibration error over the time since the samples). */
	assert_true(t + 2000000 >= before);
	assert_true(t <= after + 2000000);
	free(got);
	fixture_teardown(&fx);
	sched_setaffinity(0, sizeof(all), &all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptors),  cmocka_unit_test(test_header),
		cmocka_unit_test(test_disabled),     cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_loglevel_emf), cmocka_unit_test(test_threads),
		cmocka_unit_test(test_lost),	     cmocka_unit_test(test_plain_metadata),
		cmocka_unit_test(test_tsc_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
