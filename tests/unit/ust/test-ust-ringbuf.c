/* SPDX-License-Identifier: MIT */
/*
 * The shared-memory path as the daemon will drive it: a lib/ringbuf channel
 * as libstrata-ust's backend, events from several threads, the consumer
 * reading closed sub-buffers per CPU, lib/ctf/writer.h turning each into a
 * CTF packet (header, context, index entry), babeltrace2 reading it all.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <cmocka.h>

#include "ringbuf/ringbuf.h"
#include "tp-all.h"
#include "trace-util.h"
#include "ust/backend-ringbuf.h"

#include "common/common.h"

#define THREADS 3
#define PER_THREAD 2000

static void *writer(void *arg)
{
	uint64_t t = (uint64_t)(uintptr_t)arg;

	for (uint64_t k = 0; k < PER_THREAD; k++)
		strata_tracepoint(strata_test, first, t, k);
	return NULL;
}

static void test_ringbuf_backend(void **state)
{
	static const enum ust_context_type ctx[] = { UST_CTX_VTID, UST_CTX_PROCNAME };
	static const char *const events[] = { "strata_test:first", NULL };
	static uint8_t seen[THREADS][PER_THREAD];
	struct rb_config rc = {
		.subbuf_size = 64 * 1024,
		.num_subbufs = 8,
		.nr_cpus = (uint32_t)get_nprocs_conf(),
		.mode = RB_MODE_DISCARD,
	};
	struct ust_channel_config cfg = {
		.ops = &ust_ringbuf_backend_ops,
		.clock = UST_CLOCK_MONOTONIC,
		.n_ctx = ARRAY_SIZE(ctx),
		.ctx = ctx,
	};
	char *bt[] = { "babeltrace2", "--no-delta", NULL, NULL };
	uint64_t packets = 0, records = 0, lost = 0, lines = 0;
	struct rb_consumer *cons;
	struct ust_channel *chan;
	struct rb_channel *rb;
	pthread_t th[THREADS];
	struct tu_trace t;
	char *out, *line, *save = NULL;
	int status;

	(void)state;
	assert_int_equal(rb_channel_create(&rc, &rb), 0);
	ust_ringbuf_backend_prepare(rb, UST_CLOCK_MONOTONIC);
	cfg.backend = rb;
	assert_int_equal(ust_channel_create(&cfg, &chan), 0);
	assert_int_equal(tu_trace_begin(&t, 1000000000, 0, ctx, ARRAY_SIZE(ctx), chan, events), 0);
	assert_int_equal(rb_consumer_create(rb, NULL, &cons), 0);

	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, writer, (void *)i), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	ust_channel_detach(chan);

	for (uint32_t cpu = 0; cpu < rc.nr_cpus; cpu++) {
		struct rb_packet pkt;
		int ret;

		assert_true(rb_consumer_flush(cons, cpu, ust_clock_monotonic_ns()) >= 0);
		while ((ret = rb_consumer_read(cons, cpu, 0, &pkt)) == 0) {
			struct ctf_packet_info pi = {
				.stream_id = 0,
				.stream_instance_id = cpu,
				.timestamp_begin = pkt.ts_begin,
				.timestamp_end = pkt.ts_end,
				.packet_seq_num = pkt.seq,
				.events_discarded = pkt.lost_total,
				.cpu_id = cpu,
			};

			assert_int_equal(tu_trace_append_packet(&t, cpu, pkt.data, pkt.size, &pi),
					 0);
			packets++;
			records += pkt.nr_records;
		}
		assert_int_equal(ret, -EAGAIN);
		lost += rb_consumer_lost(cons, cpu);
	}
	assert_int_equal(lost, 0);
	assert_int_equal(records, THREADS * PER_THREAD);
	assert_true(packets >= 2);
	assert_int_equal(tu_trace_write_metadata(&t), 0);

	free(tu_run((char *const[]){ "babeltrace2", "--version", NULL }, &status));
	if (status != 0) {
		rb_consumer_destroy(cons);
		tu_trace_end(&t);
		skip();
	}
	bt[2] = t.dir;
	out = tu_run(bt, &status);
	assert_non_null(out);
	assert_int_equal(status, 0);
	memset(seen, 0, sizeof(seen));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b;
		const char *p = strstr(line, "{ a = ");

		assert_non_null(strstr(line, "strata_test:first: { cpu_id = "));
		assert_non_null(p);
		assert_int_equal(sscanf(p, "{ a = %llu, b = 0x%llX }", &a, &b), 2);
		assert_true(a < THREADS && b < PER_THREAD);
		assert_int_equal(seen[a][b], 0);
		seen[a][b] = 1;
		lines++;
	}
	assert_int_equal(lines, THREADS * PER_THREAD);
	free(out);
	rb_consumer_destroy(cons);
	tu_trace_end(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ringbuf_backend),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
