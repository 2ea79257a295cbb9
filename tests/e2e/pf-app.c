/* SPDX-License-Identifier: MIT */
/*
 * The user-space counter test's app: CALLS calls of a function that touches
 * PAGES fresh anonymous pages, each between pf:entry and pf:exit, so that a
 * perf:thread:page-fault context shows at least PAGES faults per call.
 * Usage: pf-app CALLS PAGES [THREADS]
 */
#define STRATA_TRACEPOINT_DEFINE
#define STRATA_TRACEPOINT_CREATE_PROBES
#include "pf-tp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int calls, pages;

static __attribute__((noinline)) void touch(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("pf-app: mmap");
		exit(1);
	}
	for (int i = 0; i < pages; i++)
		p[i * psz] = 1;
	munmap((void *)p, (size_t)(pages * psz));
}

static void *run(void *arg)
{
	(void)arg;
	for (int i = 0; i < calls; i++) {
		strata_tracepoint(pf, entry, pages);
		touch();
		strata_tracepoint(pf, exit, pages);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	pthread_t t[16];

	if (argc < 3 || threads < 1 || threads > 16) {
		fprintf(stderr, "usage: pf-app CALLS PAGES [THREADS (1-16)]\n");
		return 1;
	}
	calls = atoi(argv[1]);
	pages = atoi(argv[2]);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
