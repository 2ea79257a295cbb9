/* SPDX-License-Identifier: MIT */
/*
 * strata_ctf_pretty_run() (decoding on a helper thread, which formats some
 * batches itself) prints exactly what the plain reader_next() +
 * pretty_print() loop prints, including up to a decoding error, on the
 * committed test traces, whichever batches the helper formats.
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
#include <unistd.h>

#include <cmocka.h>

#include <strata/ctf.h>
#include <strata/error.h>

#include "common/common.h"
#include "ctf/pretty-internal.h"

static char trace_dir[4096];

static const char *trace_path(const char *rel)
{
	const char *root = getenv("STRATA_SOURCE_ROOT");

	snprintf(trace_dir, sizeof(trace_dir), "%s/tests/traces/%s", root ? root : ".", rel);
	return trace_dir;
}

/* How print_trace() runs the printer. */
struct mode {
	bool threaded;
	enum ctf_run_self self;
	size_t batch;
};

static const struct mode serial = { .threaded = false };

/*
 * The public default, then each helper policy with batch sizes that put
 * batch ends everywhere: next to discarded items, negative times, errors.
 */
static const struct mode threaded_modes[] = {
	{ true, CTF_RUN_SELF_ADAPTIVE, 0 }, { true, CTF_RUN_SELF_NEVER, 0 },
	{ true, CTF_RUN_SELF_ALWAYS, 0 },   { true, CTF_RUN_SELF_ALWAYS, 1 },
	{ true, CTF_RUN_SELF_ALWAYS, 3 },   { true, CTF_RUN_SELF_NEVER, 2 },
	{ true, CTF_RUN_SELF_ALWAYS, 64 },
};

/* Prints the trace at rel with or without the helper thread. */
static int print_trace(const char *rel, const struct mode *mode, char **ret_out, char **ret_err)
{
	const char *path = trace_path(rel);
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_reader_options ro = { .bt_stale_strings = true };
	struct strata_ctf_reader *r = NULL;
	struct strata_ctf_pretty *p;
	size_t out_len = 0, err_len = 0;
	FILE *out = open_memstream(ret_out, &out_len);
	FILE *err = open_memstream(ret_err, &err_len);
	int ret;

	assert_non_null(out);
	assert_non_null(err);
	assert_int_equal(strata_ctf_reader_create(&path, 1, &ro, &r, NULL), 0);
	p = strata_ctf_pretty_create(&o, out, err);
	assert_non_null(p);
	if (mode->threaded && mode->self == CTF_RUN_SELF_ADAPTIVE && !mode->batch) {
		ret = strata_ctf_pretty_run(p, r);
	} else if (mode->threaded) {
		ret = ctf_pretty_run_with(p, r, mode->self, mode->batch);
	} else {
		struct strata_ctf_msg msg;
		enum strata_ctf_status st;

		ret = 0;
		while ((st = strata_ctf_reader_next(r, &msg)) == STRATA_CTF_OK) {
			ret = strata_ctf_pretty_print(p, &msg);
			assert_int_equal(ret, 0);
		}
		if (st == STRATA_CTF_ERROR)
			ret = -STRATA_ESTREAM;
	}
	assert_int_equal(strata_ctf_pretty_flush(p), 0);
	strata_ctf_pretty_destroy(p);
	strata_ctf_reader_destroy(r);
	fclose(out);
	fclose(err);
	return ret;
}

static void check_same(const char *rel, int want_ret)
{
	char *out1, *err1, *out2, *err2;

	if (access(trace_path(rel), R_OK) != 0) {
		print_message("no trace at %s\n", trace_path(rel));
		skip();
	}
	assert_int_equal(print_trace(rel, &serial, &out1, &err1), want_ret);
	assert_true(strlen(out1) > 0 || want_ret != 0);
	for (size_t i = 0; i < ARRAY_SIZE(threaded_modes); i++) {
		assert_int_equal(print_trace(rel, &threaded_modes[i], &out2, &err2), want_ret);
		assert_string_equal(out1, out2);
		assert_string_equal(err1, err2);
		free(out2);
		free(err2);
	}
	free(out1);
	free(err1);
}

static void test_lttng(void **state)
{
	(void)state;
	check_same("lttng", 0);
}

static void test_gen(void **state)
{
	(void)state;
	check_same("gen/types-le", 0);
	check_same("gen/multi-sc", 0);
	check_same("gen/merge", 0);
}

/*
 * Scope types of fixed shape cross as payloads only: these traces repeat
 * such types with other strings, lengths and numbers (types-be has static
 * arrays of numbers; lttng-quirks and clock-neg other scopes and times).
 */
static void test_shapes(void **state)
{
	(void)state;
	check_same("gen/types-be", 0);
	check_same("gen/lttng-quirks", 0);
	check_same("gen/clock-neg", 0);
	check_same("gen/packetized-be", 0);
	check_same("gen/noclock", 0);
	check_same("gen/compact-wrap", 0);
}

static void test_decode_error(void **state)
{
	(void)state;
	check_same("bad/unknown-event-id", -STRATA_ESTREAM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lttng),
		cmocka_unit_test(test_gen),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_decode_error),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
