/* SPDX-License-Identifier: MIT */
/*
 * hello: the strata demo application (the LTTng 2.0 article's hello test).
 *
 *   hello [-n COUNT] [-d USEC] [-f]
 *
 * Emits COUNT hello:tptest events (default 100), pausing USEC microseconds
 * between them (default 0), framed by hello_gen:start / hello_gen:stop from
 * the provider strata-gen-tp generated from hello-gen.tp. With -f (fast), it
 * runs a tight loop and prints the cost per event on stderr: about a third
 * of a nanosecond when no session enables the events.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hello-gen.h"
#include "hello-tp.h"

#include "common/common.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int parse_long(const char *s, long min, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void usage(FILE *f)
{
	fputs("Usage: hello [-n COUNT] [-d USEC] [-f]\n"
	      "\n"
	      "Emit COUNT hello:tptest events (default 100).\n"
	      "  -n, --count COUNT   number of events\n"
	      "  -d, --delay USEC    pause between events (default 0)\n"
	      "  -f, --fast          high-throughput loop; print the cost per event\n"
	      "  -h, --help          this help\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "fast", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long count = 100, delay_us = 0, values[3] = { 1, 2, 3 };
	char text[10] = "test";
	double dbl = 2.0;
	float flt = 2222.0f;
	int fast = 0, c;
	uint64_t start, elapsed;

	while ((c = getopt_long(argc, argv, "n:d:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_long(optarg, 0, &count) < 0) {
				fprintf(stderr,
					"hello: Invalid count '%s': expected a number >= 0\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			if (parse_long(optarg, 0, &delay_us) < 0) {
				fprintf(stderr,
					"hello: Invalid delay '%s': expected microseconds >= 0\n",
					optarg);
				return 2;
			}
			break;
		case 'f':
			fast = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	strata_tracepoint(hello_gen, start, count, fast ? "fast" : "normal");
	start = now_ns();
	if (fast) {
		for (long i = 0; i < count; i++)
			strata_tracepoint(hello, tptest, (int)i, (int)htonl((uint32_t)i), values,
					  text, strlen(text), dbl, flt);
	} else {
		struct timespec pause = { .tv_sec = delay_us / 1000000,
					  .tv_nsec = (delay_us % 1000000) * 1000 };

		for (long i = 0; i < count; i++) {
			strata_tracepoint(hello, tptest, (int)i, (int)htonl((uint32_t)i), values,
					  text, strlen(text), dbl, flt);
			if (delay_us)
				nanosleep(&pause, NULL);
		}
	}
	elapsed = now_ns() - start;
	strata_tracepoint(hello_gen, stop, count, (unsigned long)elapsed);
	if (fast)
		fprintf(stderr, "hello: %ld events in %.3f s: %.2f ns/event\n", count,
			(double)elapsed / 1e9, count ? (double)elapsed / (double)count : 0.0);
	return 0;
}
