/* SPDX-License-Identifier: MIT */
/*
 * `strata view` against babeltrace2 on traces strata itself wrote (in-process
 * backend + lib/ctf/writer.h): every field type, contexts, loglevels, an
 * empty payload, several threads, discarded events. stdout and stderr must
 * be identical under each option set. Skips when either program is missing.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp-all.h"
#include "trace-util.h"

#include "common/common.h"

static const enum ust_context_type view_ctx[] = { UST_CTX_VPID, UST_CTX_VTID, UST_CTX_PROCNAME,
						  UST_CTX_PTHREAD_ID, UST_CTX_IP };
static const char *const view_events[] = { "strata_test:allfields", "strata_test:empty",
					   "strata_test:first", "strata_test:second", NULL };
static char strata_bin[512];

static int setup(void **state)
{
	const char *build = getenv("STRATA_BUILD_ROOT");
	int status;

	(void)state;
	free(tu_run((char *const[]){ "babeltrace2", "--version", NULL }, &status));
	if (status != 0 || !build)
		return 0;
	snprintf(strata_bin, sizeof(strata_bin), "%s/src/cli/strata", build);
	if (access(strata_bin, X_OK) != 0)
		strata_bin[0] = '\0';
	return 0;
}

static void compare(const char *dir, const char *const *opts)
{
	char *bt[16], *sv[16];
	char *bt_out, *bt_err, *sv_out, *sv_err;
	int n = 0, bt_status, sv_status;

	bt[n] = "babeltrace2";
	sv[n++] = strata_bin;
	sv[n] = "view";
	for (; *opts && n < 14; opts++, n++) {
		bt[n] = (char *)*opts;
		sv[n + 1] = (char *)*opts;
	}
	bt[n] = (char *)dir;
	bt[n + 1] = NULL;
	sv[n + 1] = (char *)dir;
	sv[n + 2] = NULL;
	bt_out = tu_run2(bt, &bt_status, &bt_err);
	sv_out = tu_run2(sv, &sv_status, &sv_err);
	assert_non_null(bt_out);
	assert_non_null(sv_out);
	assert_int_equal(bt_status, 0);
	assert_int_equal(sv_status, 0);
	assert_true(strlen(bt_out) > 0);
	assert_string_equal(sv_out, bt_out);
	assert_string_equal(sv_err, bt_err);
	free(bt_out);
	free(bt_err);
	free(sv_out);
	free(sv_err);
}

static void compare_all(const char *dir)
{
	static const char *const sets[][4] = {
		{ NULL },
		{ "--no-delta", "--clock-gmt", NULL },
		{ "--clock-cycles", NULL },
		{ "--clock-seconds", "-n", "all", NULL },
		{ "-f", "loglevel,emf", NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(sets); i++)
		compare(dir, sets[i]);
}

static void *thread_main(void *arg)
{
	for (uint64_t k = 0; k < 500; k++)
		strata_tracepoint(strata_test, second, (uint64_t)(uintptr_t)arg, k);
	return NULL;
}

static void record(struct ust_mem_backend *mb)
{
	/*
	 * Empty strings and texts on purpose: babeltrace2 2.0.4 prints a stale
	 * value (the same field of an earlier event) for a string or text array
	 * whose first byte is NUL once its event objects are recycled, and
	 * `strata view` must print the same.
	 */
	static const char *const texts[] = { "test", "", "a\"b\\c\n?'", "caf\xc3\xa9 long text" };
	int16_t arr[3] = { 1, -2, 3 };
	pthread_t th[2];

	for (int k = 0; k < 40; k++) {
		const char *text = texts[k % 4];

		arr[0] = (int16_t)(k * 1000);
		strata_tracepoint(strata_test, allfields, k * 7919 - 100000, -((int64_t)k << 40),
				  htonl((uint32_t)k * 0x01010101u), arr, text, strlen(text),
				  k % 5 ? text : NULL, k / 3.0, (float)k * 1.5f, k - 6);
		strata_tracepoint(strata_test, empty);
		strata_tracepoint(strata_test, first, k, UINT64_MAX / (uint64_t)(k + 1));
	}
	for (uintptr_t i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, thread_main, (void *)i), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	(void)mb;
}

static void run(size_t capacity)
{
	struct ust_channel_config cfg = {
		.ops = &ust_mem_backend_ops,
		.clock = UST_CLOCK_MONOTONIC,
		.n_ctx = ARRAY_SIZE(view_ctx),
		.ctx = view_ctx,
	};
	struct ust_mem_backend *mb;
	struct ust_channel *chan;
	struct tu_trace t;

	if (!strata_bin[0])
		skip();
	assert_int_equal(ust_mem_backend_create(capacity, &mb), 0);
	cfg.backend = mb;
	assert_int_equal(ust_channel_create(&cfg, &chan), 0);
	assert_int_equal(tu_trace_begin(&t, 1000000000, ctf_clock_measure_monotonic_offset(),
					view_ctx, ARRAY_SIZE(view_ctx), chan, view_events),
			 0);
	record(mb);
	ust_channel_detach(chan);
	assert_int_equal(tu_trace_write(&t, mb), 0);
	compare_all(t.dir);
	tu_trace_end(&t);
	ust_mem_backend_destroy(mb);
}

static void test_view_matches_babeltrace2(void **state)
{
	(void)state;
	run(1 << 20);
}

static void test_view_discarded(void **state)
{
	(void)state;
	run(8192); /* most records dropped: a "may have discarded" warning */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_matches_babeltrace2),
		cmocka_unit_test(test_view_discarded),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
