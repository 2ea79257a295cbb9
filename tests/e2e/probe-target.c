/* SPDX-License-Identifier: MIT */
/*
 * A program for the probe tests to probe (tests/e2e/session-probes.sh):
 *
 *   probe-target pages K N EVERY   call touch_pages() N times; each call writes
 *                                  one byte to each of K pages never touched
 *                                  before (K page faults), and every EVERY-th
 *                                  call (0: none) moves itself to another CPU
 *                                  half way (sched_setaffinity), so that its
 *                                  entry and return land on different CPUs.
 *                                  Prints "forced M": the calls that moved.
 *   probe-target usdt N            fire the USDT probe strata_test:tick N times,
 *                                  its arguments computed only while its
 *                                  semaphore says a tracer listens; prints
 *                                  "armed A": the times it did.
 *   probe-target empty N           call the empty function empty_function() N times.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <unistd.h>

/* The semaphore of strata_test:tick (sys/sdt.h's naming): the kernel counts tracers here. */
__extension__ unsigned short strata_test_tick_semaphore __attribute__((unused))
__attribute__((section(".probes")));

#define PAGE 4096

/* Extern, not static: the tests find them in the symbol table by name. */
int touch_pages(volatile char *p, int k, int move);
void empty_function(void);

static int ncpu;

static void move_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	CPU_ZERO(&set);
	for (int c = 0; c < ncpu; c++)
		if (c != cpu)
			CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

__attribute__((noinline, noipa, used)) int touch_pages(volatile char *p, int k, int move)
{
	for (int i = 0; i < k; i++) {
		p[(size_t)i * PAGE] = 1;
		if (move && i == k / 2)
			move_cpu();
	}
	return k;
}

__attribute__((noinline, noipa, used)) void empty_function(void)
{
	__asm__ volatile("" ::: "memory");
}

static long arg(char **argv, int i, int argc)
{
	return i < argc ? strtol(argv[i], NULL, 10) : 0;
}

int main(int argc, char **argv)
{
	long n;

	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (argc >= 3 && !strcmp(argv[1], "pages") && argc >= 5) {
		long k = arg(argv, 2, argc), every = arg(argv, 4, argc), forced = 0;
		size_t size;
		char *base;

		n = arg(argv, 3, argc);
		if (k <= 0 || n <= 0 || k > 4096 || n > 100000)
			return 2;
		size = (size_t)(k * n) * PAGE;
		base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			return 3;
		/* One fault per page: no transparent huge page may back the region. */
		madvise(base, size, MADV_NOHUGEPAGE);
		for (long i = 0; i < n; i++) {
			int move = every > 0 && ncpu > 1 && i % every == every - 1;

			touch_pages(base + (size_t)(i * k) * PAGE, (int)k, move);
			forced += move;
		}
		printf("forced %ld\n", forced);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "usdt")) {
		long armed = 0;

		n = arg(argv, 2, argc);
		for (long i = 0; i < n; i++) {
			if (__builtin_expect(strata_test_tick_semaphore, 0)) {
				armed++;
				STAP_PROBE1(strata_test, tick, i);
			}
		}
		printf("armed %ld\n", armed);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "empty")) {
		n = arg(argv, 2, argc);
		for (long i = 0; i < n; i++)
			empty_function();
		return 0;
	}
	fprintf(stderr, "usage: probe-target pages K N EVERY | usdt N | empty N\n");
	return 2;
}
