/* SPDX-License-Identifier: MIT */
/*
 * The instrumented program of bench/ust-vs-lttng, compiled once against
 * strata (strata_tracepoint) and once with -DUSTBENCH_LTTNG against lttng-ust
 * 2.13 (lttng_ust_tracepoint): the same event, ustbench:ev, two uint64_t
 * fields.
 *
 *   ust-bench-app on|off|clock THREADS EVENTS_PER_THREAD BATCH [RATE]
 *
 * Each thread emits its events in batches of BATCH and times every batch
 * with clock_gettime(CLOCK_MONOTONIC) (two vDSO reads per batch, a few ns
 * spread over BATCH events). RATE (events/s over all threads, default 0 =
 * full speed) paces the threads: after each batch a thread sleeps until the
 * batch's deadline. "on" first waits (up to 10 s) for the session daemon to
 * enable ustbench:ev and fails if it does not; "off" requires it disabled;
 * "clock" calls clock_gettime(CLOCK_MONOTONIC) instead of the tracepoint
 * (the clock both tracers read once per event where strata cannot use the
 * TSC).
 * Prints one line:
 *   emitted=N batches=B p50=NS p99=NS mean=NS wall=S rate=EV/S
 * with p50/p99 the percentiles of ns/event over all batches of all threads
 * and mean their mean.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef USTBENCH_LTTNG
#include "ust-bench-lttng-tp.h"
#define BENCH_TP(a, b) lttng_ust_tracepoint(ustbench, ev, a, b)
#define BENCH_TP_ENABLED() lttng_ust_tracepoint_enabled(ustbench, ev)
#else
#include "ust-bench-strata-tp.h"
#define BENCH_TP(a, b) strata_tracepoint(ustbench, ev, a, b)
#define BENCH_TP_ENABLED() strata_tracepoint_enabled(ustbench, ev)
#endif

#include "common/common.h"

struct worker {
	pthread_t thread;
	unsigned int id;
	uint64_t events;
	uint64_t batch;
	double rate; /* events/s for this thread, 0: full speed */
	uint64_t *batch_ns;
	uint64_t nbatches;
	uint64_t emitted;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t deadline)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / 1000000000ull),
			       .tv_nsec = (long)(deadline % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* "clock" mode: what the loop body costs without a tracer. */
static bool clock_mode;
static volatile uint64_t clock_sink;

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	uint64_t start = now_ns(), i = 0, b = 0;

	while (i < w->events) {
		uint64_t n = w->events - i < w->batch ? w->events - i : w->batch;
		uint64_t t0 = now_ns(), t1;

		if (clock_mode) {
			for (uint64_t k = 0; k < n; k++)
				clock_sink = now_ns();
		} else {
			for (uint64_t k = 0; k < n; k++)
				BENCH_TP(i + k, w->id);
		}
		t1 = now_ns();
		/* ns per event, scaled by 1000 to keep sub-ns precision. */
		w->batch_ns[b++] = (t1 - t0) * 1000 / n;
		i += n;
		if (w->rate > 0)
			sleep_until(start + (uint64_t)((double)i * 1e9 / w->rate));
	}
	w->nbatches = b;
	w->emitted = i;
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int parse_u64(const char *s, uint64_t min, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || s[0] == '-')
		return -EINVAL;
	*ret = v;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t threads, events, batch, rate = 0, total_b = 0, emitted = 0, sum = 0;
	uint64_t *all, start, wall;
	struct worker *w;
	int on;

	if (argc < 5 || argc > 6 ||
	    (strcmp(argv[1], "on") && strcmp(argv[1], "off") && strcmp(argv[1], "clock")) ||
	    parse_u64(argv[2], 1, &threads) < 0 || threads > 1024 ||
	    parse_u64(argv[3], 1, &events) < 0 || parse_u64(argv[4], 1, &batch) < 0 ||
	    (argc == 6 && parse_u64(argv[5], 0, &rate) < 0)) {
		fputs("Usage: ust-bench-app on|off|clock THREADS EVENTS_PER_THREAD BATCH [RATE]\n",
		      stderr);
		return 2;
	}
	on = !strcmp(argv[1], "on");
	clock_mode = !strcmp(argv[1], "clock");
	for (int waited = 0; on && !BENCH_TP_ENABLED(); waited++) {
		struct timespec ms = { .tv_sec = 0, .tv_nsec = 1000000 };

		if (waited == 10000) {
			fputs("ust-bench-app: ustbench:ev not enabled after 10 s\n", stderr);
			return 1;
		}
		nanosleep(&ms, NULL);
	}
	if (!on && !clock_mode && BENCH_TP_ENABLED()) {
		fputs("ust-bench-app: ustbench:ev is enabled, expected disabled\n", stderr);
		return 1;
	}

	w = calloc(threads, sizeof(*w));
	if (!w)
		return 1;
	start = now_ns();
	for (uint64_t t = 0; t < threads; t++) {
		w[t].id = (unsigned int)t;
		w[t].events = events;
		w[t].batch = batch;
		w[t].rate = (double)rate / (double)threads;
		w[t].batch_ns = calloc(events / batch + 1, sizeof(uint64_t));
		if (!w[t].batch_ns || pthread_create(&w[t].thread, NULL, worker_run, &w[t])) {
			fputs("ust-bench-app: cannot start the threads\n", stderr);
			return 1;
		}
	}
	for (uint64_t t = 0; t < threads; t++)
		pthread_join(w[t].thread, NULL);
	wall = now_ns() - start;

	for (uint64_t t = 0; t < threads; t++)
		total_b += w[t].nbatches;
	all = calloc(total_b, sizeof(*all));
	if (!all)
		return 1;
	total_b = 0;
	for (uint64_t t = 0; t < threads; t++) {
		for (uint64_t b = 0; b < w[t].nbatches; b++) {
			all[total_b++] = w[t].batch_ns[b];
			sum += w[t].batch_ns[b];
		}
		emitted += w[t].emitted;
		free(w[t].batch_ns);
	}
	qsort(all, total_b, sizeof(*all), cmp_u64);
	printf("emitted=%llu batches=%llu p50=%.2f p99=%.2f mean=%.2f wall=%.3f rate=%.0f\n",
	       (unsigned long long)emitted, (unsigned long long)total_b,
	       (double)all[total_b / 2] / 1000.0, (double)all[total_b * 99 / 100] / 1000.0,
	       (double)sum / 1000.0 / (double)total_b, (double)wall / 1e9,
	       (double)emitted * 1e9 / (double)wall);
	free(all);
	free(w);
	return 0;
}
