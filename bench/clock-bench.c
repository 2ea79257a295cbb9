/* SPDX-License-Identifier: MIT */
/*
 * The user-space event clock alone (not a test): ns per read of
 * clock_gettime(CLOCK_MONOTONIC), rdtsc, lfence;rdtsc, and
 * UST_CLOCK_MONOTONIC_TSC through a conversion page (lib/ust/clock-page.h)
 * kept fresh by a thread doing what strata-sessiond's clock thread does,
 * and without a page (its clock_gettime fallback). Best of 5 runs, wall and
 * on-CPU time, pinned to one CPU. Then the page's error: for SECONDS, the
 * converted clock against CLOCK_MONOTONIC read around it.
 *
 *   ninja -C BUILD bench/clock-bench && BUILD/bench/clock-bench [READS] [SECONDS]
 */
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ust/clock-page.h"
#include "ust/clock.h"

static struct ust_clock_page page;
static struct ust_clock_calib calib;
static int stop;

/* Process CPU time (the refresher thread sleeps): robust to a loaded machine. */
static uint64_t cpu_ns(void)
{
	return (uint64_t)clock() * (1000000000u / CLOCKS_PER_SEC);
}

static uint64_t read_tsc_fenced(void)
{
	_mm_lfence();
	return __rdtsc();
}

static void refresh(void)
{
	uint64_t tsc, mono, window;

	if (ust_clock_sample_tsc(&tsc, &mono, &window) &&
	    ust_clock_calib_update(&calib, tsc, mono) != UST_CLOCK_CALIB_NONE)
		ust_clock_page_publish(&page, &calib, true, read_tsc_fenced);
}

/* strata-sessiond's clock thread, in miniature. */
static void *refresher(void *arg)
{
	struct timespec first = { 0, 20000000 }, period = { 0, UST_CLOCK_PAGE_PERIOD_NS };

	(void)arg;
	refresh();
	nanosleep(&first, NULL);
	refresh();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		nanosleep(&period, NULL);
		refresh();
	}
	return NULL;
}

static uint64_t rd_mono(void)
{
	return ust_clock_monotonic_ns();
}

static uint64_t rd_tsc(void)
{
	return __rdtsc();
}

static uint64_t rd_tsc_fenced(void)
{
	return read_tsc_fenced();
}

static void measure(const char *name, uint64_t (*rd)(void), uint64_t reads)
{
	double best_wall = 1e30, best_cpu = 1e30;
	volatile uint64_t sink = 0;

	for (int run = 0; run < 5; run++) {
		uint64_t w0 = ust_clock_monotonic_ns(), c0 = cpu_ns(), acc = 0;

		for (uint64_t i = 0; i < reads; i++)
			acc += rd();
		sink = acc;
		double wall = (double)(ust_clock_monotonic_ns() - w0) / (double)reads;
		double cpu = (double)(cpu_ns() - c0) / (double)reads;

		if (wall < best_wall)
			best_wall = wall;
		if (cpu < best_cpu)
			best_cpu = cpu;
	}
	(void)sink;
	printf("%-34s %7.2f ns/read wall %7.2f on CPU\n", name, best_wall, best_cpu);
}

int main(int argc, char **argv)
{
	uint64_t reads = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000u;
	long seconds = argc > 2 ? strtol(argv[2], NULL, 10) : 3;
	uint64_t n = 0, fallback = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	struct timespec settle = { 0, 50000000 };
	pthread_t th;
	cpu_set_t one;

	if (!reads || seconds < 0) {
		fputs("usage: clock-bench [READS] [SECONDS]\n", stderr);
		return 2;
	}
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	measure("clock_gettime(CLOCK_MONOTONIC)", rd_mono, reads);
	measure("rdtsc", rd_tsc, reads);
	measure("lfence; rdtsc", rd_tsc_fenced, reads);
	measure("MONOTONIC_TSC, no page (fallback)", ust_clock_read_monotonic_tsc, reads);
	ust_clock_page_init(&page);
	ust_clock_calib_init(&calib, UST_CLOCK_PAGE_PERIOD_NS);
	ust_clock_page_set(&page);
	if (pthread_create(&th, NULL, refresher, NULL) != 0)
		return 1;
	nanosleep(&settle, NULL);
	measure("MONOTONIC_TSC through the page", ust_clock_read_monotonic_tsc, reads);

	/* Error against CLOCK_MONOTONIC: the converted read inside a monotonic window. */
	for (uint64_t end = ust_clock_monotonic_ns() + (uint64_t)seconds * 1000000000u;;) {
		uint64_t m0 = ust_clock_monotonic_ns(), m1, ns;
		bool ok = ust_clock_page_convert(&page, rd_tsc, &ns);
		int64_t e;

		m1 = ust_clock_monotonic_ns();
		if (m1 > end)
			break;
		if (!ok) {
			fallback++;
			continue;
		}
		if (m1 - m0 > 200)
			continue; /* preempted or interrupted: no precise reference */
		e = (int64_t)(ns - (m0 + (m1 - m0) / 2));
		lo = e < lo ? e : lo;
		hi = e > hi ? e : hi;
		n++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("page error vs CLOCK_MONOTONIC over %ld s: %llu reads, min %lld ns, max %lld ns, "
	       "%llu fallbacks, %llu line resets, TSC %llu Hz\n",
	       seconds, (unsigned long long)n, (long long)lo, (long long)hi,
	       (unsigned long long)fallback, (unsigned long long)calib.resets,
	       (unsigned long long)ust_clock_calib_ticks(&calib, 1000000000u));
	return 0;
}
