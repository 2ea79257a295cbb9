/* SPDX-License-Identifier: MIT */
/*
 * An lttng-ust 2.13 application for the relay e2e tests (relay-*.sh):
 *
 *   relay-app WHO COUNT RATE
 *
 * emits COUNT relaytest:event events (seq 0..COUNT-1, who = WHO, value =
 * seq * 0x9E3779B97F4A7C15) at RATE events/s (0: full speed), then one
 * relaytest:done {count}, and prints "emitted=COUNT". lttng-ust registers
 * with the session daemon before main() runs (it waits for it, up to
 * LTTNG_UST_REGISTER_TIMEOUT ms), so the session's rules apply from the
 * first event.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "relay-tp.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long count, rate;
	uint64_t start;

	if (argc != 4) {
		fprintf(stderr, "usage: relay-app WHO COUNT RATE\n");
		return 1;
	}
	count = strtol(argv[2], NULL, 10);
	rate = strtol(argv[3], NULL, 10);
	start = now_ns();
	for (long i = 0; i < count; i++) {
		lttng_ust_tracepoint(relaytest, event, (int)i, argv[1],
				     (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15));
		if (rate > 0) {
			uint64_t due = start + (uint64_t)(i + 1) * 1000000000ull / (uint64_t)rate;
			struct timespec ts = { (time_t)(due / 1000000000ull),
					       (long)(due % 1000000000ull) };

			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		}
	}
	lttng_ust_tracepoint(relaytest, done, (int)count);
	printf("emitted=%ld\n", count);
	return 0;
}
