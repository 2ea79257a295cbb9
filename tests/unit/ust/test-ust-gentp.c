/* SPDX-License-Identifier: MIT */
/*
 * strata-gen-tp: gen.tp was turned into gen.h/gen.c at build time and
 * compiled into this test (that it builds is the first check); here the
 * generated provider records and reads back, and the tool's other paths
 * (default outputs with .o, errors) run on temporary templates.
 *
 * argv[1]: the strata-gen-tp binary; STRATA_SOURCE_ROOT: for -I.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gen.h"
#include "trace-util.h"

#include "common/common.h"

static const char *gen_tp_bin;

static void test_generated_provider(void **state)
{
	static const char *const events[] = { "gen_test:tick", "gen_test:moved", NULL };
	struct ust_mem_backend *mb;
	struct ust_channel *chan;
	struct ust_channel_config cfg = { .ops = &ust_mem_backend_ops,
					  .clock = UST_CLOCK_MONOTONIC };
	struct tu_trace t;
	char *const bt_version[] = { "babeltrace2", "--version", NULL };
	int status;
	char *out;

	(void)state;
	assert_int_equal(ust_mem_backend_create(1 << 16, &mb), 0);
	cfg.backend = mb;
	assert_int_equal(ust_channel_create(&cfg, &chan), 0);
	assert_int_equal(tu_trace_begin(&t, 1000000000, 0, NULL, 0, chan, events), 0);
	strata_tracepoint(gen_test, tick, 7, "seven", 1);
	strata_tracepoint(gen_test, moved, -1, 2);
	assert_int_equal(ust_mem_backend_count(mb), 2);

	out = tu_run(bt_version, &status);
	if (out && status == 0) {
		char *const argv[] = { "babeltrace2", "--no-delta", "--fields=loglevel", t.dir,
				       NULL };
		const char *p;

		free(out);
		assert_int_equal(tu_trace_write(&t, mb), 0);
		out = tu_run(argv, &status);
		assert_non_null(out);
		assert_int_equal(status, 0);
		p = strstr(out, "] TRACE_NOTICE (5) gen_test:tick: { cpu_id = 0 }, { n = 7, "
				"label = \"seven\", st = ( \"BUSY\" : container = 1 ) }\n");
		assert_non_null(p);
		p = strstr(out, "] TRACE_DEBUG_LINE (13) gen_test:moved: { cpu_id = 0 }, "
				"{ x = -1, y = 2 }\n");
		assert_non_null(p);
	}
	free(out);
	ust_channel_detach(chan);
	tu_trace_end(&t);
	ust_mem_backend_destroy(mb);
}

static int write_tp(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/strata-gentp-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char *const argv[] = { "rm", "-rf", tmpdir, NULL };
	int status;

	(void)state;
	free(tu_run(argv, &status));
	return 0;
}

/* No -o: TEMPLATE.h, .c and .o next to the template, compiled with $CC. */
static void test_default_outputs(void **state)
{
	char tp[128], h[128], c[128], o[128], cppflags[512];
	char *argv[] = { (char *)gen_tp_bin, tp, NULL };
	const char *src = getenv("STRATA_SOURCE_ROOT");
	struct stat st;
	int status;

	(void)state;
	if (!src)
		skip();
	snprintf(tp, sizeof(tp), "%s/demo.tp", tmpdir);
	snprintf(h, sizeof(h), "%s/demo.h", tmpdir);
	snprintf(c, sizeof(c), "%s/demo.c", tmpdir);
	snprintf(o, sizeof(o), "%s/demo.o", tmpdir);
	assert_int_equal(write_tp(tp, "STRATA_TRACEPOINT_EVENT(demo, ev,\n"
				      "\tSTRATA_TP_ARGS(int, v),\n"
				      "\tSTRATA_TP_FIELDS(strata_field_integer(int, v, v)))\n"),
			 0);
	snprintf(cppflags, sizeof(cppflags), "-I%s/include -I%s", src, tmpdir);
	setenv("CPPFLAGS", cppflags, 1);
	setenv("CFLAGS", "-std=gnu11 -Wall -Werror", 1);
	free(tu_run(argv, &status));
	assert_int_equal(status, 0);
	assert_int_equal(stat(h, &st), 0);
	assert_int_equal(stat(c, &st), 0);
	assert_int_equal(stat(o, &st), 0);
	assert_true(st.st_size > 0);
}

static void expect_failure(const char *template, int want_status, const char *outname)
{
	char tp[128], out[160];
	char *argv[] = { (char *)gen_tp_bin, tp, "-o", out, NULL };
	int status;

	snprintf(tp, sizeof(tp), "%s/bad.tp", tmpdir);
	snprintf(out, sizeof(out), "%s/%s", tmpdir, outname);
	assert_int_equal(write_tp(tp, template), 0);
	free(tu_run(argv, &status));
	assert_int_equal(status, want_status);
}

static void test_errors(void **state)
{
	char *no_args[] = { (char *)gen_tp_bin, NULL };
	int status;

	(void)state;
	/* Two providers in one template. */
	expect_failure("STRATA_TRACEPOINT_EVENT(a, x, STRATA_TP_ARGS(), STRATA_TP_FIELDS())\n"
		       "STRATA_TRACEPOINT_EVENT(b, y, STRATA_TP_ARGS(), STRATA_TP_FIELDS())\n",
		       1, "bad.h");
	/* No event at all. */
	expect_failure("/* nothing */\n", 1, "bad.h");
	/* Unsupported output suffix. */
	expect_failure("STRATA_TRACEPOINT_EVENT(a, x, STRATA_TP_ARGS(), STRATA_TP_FIELDS())\n", 4,
		       "bad.txt");
	free(tu_run(no_args, &status));
	assert_int_equal(status, 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_provider),
		cmocka_unit_test(test_default_outputs),
		cmocka_unit_test(test_errors),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: test-ust-gentp STRATA-GEN-TP\n");
		return 2;
	}
	gen_tp_bin = argv[1];
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
