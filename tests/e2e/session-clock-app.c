/* SPDX-License-Identifier: MIT */
/*
 * session-clock.sh's app: THREADS threads each emit EVENTS ustbench:ev
 * events, USEC microseconds apart, with a = (thread << 32 | index) and
 * b = CLOCK_MONOTONIC read just before the tracepoint. The test checks that
 * each record's timestamp (the TSC through the daemon's clock page) lies
 * between its own b and the next event's b.
 *
 *   session-clock-app THREADS EVENTS USEC
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ust-bench-strata-tp.h"

static long events, usec;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *emit(void *arg)
{
	uint64_t thread = (uint64_t)(uintptr_t)arg;
	struct timespec pause = { .tv_sec = usec / 1000000, .tv_nsec = usec % 1000000 * 1000 };

	for (long i = 0; i < events; i++) {
		strata_tracepoint(ustbench, ev, thread << 32 | (uint64_t)i, mono_ns());
		nanosleep(&pause, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	long threads;

	if (argc != 4) {
		fputs("usage: session-clock-app THREADS EVENTS USEC\n", stderr);
		return 2;
	}
	threads = strtol(argv[1], NULL, 10);
	events = strtol(argv[2], NULL, 10);
	usec = strtol(argv[3], NULL, 10);
	if (threads < 1 || threads > 16 || events < 1 || usec < 0) {
		fputs("session-clock-app: bad arguments\n", stderr);
		return 2;
	}
	for (long t = 0; t < threads; t++)
		if (pthread_create(&th[t], NULL, emit, (void *)(uintptr_t)t) != 0)
			return 1;
	for (long t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	printf("emitted %ld\n", threads * events);
	return 0;
}
