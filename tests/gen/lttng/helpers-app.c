/* SPDX-License-Identifier: MIT */
/*
 * An application for the `helpers` golden trace (make-traces.sh): it uses
 * lttng-ust's own instrumentation rather than a provider of ours, so the
 * trace holds event classes the reader was not written against: tracef()
 * and tracelog() events, the statedump and library (build id, debug link)
 * events, and those of the LD_PRELOAD helpers (libc and pthread wrappers,
 * dlopen tracking, -finstrument-functions entry/exit).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <lttng/tracef.h>
#include <lttng/tracelog.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static int work(int i)
{
	return i * 3 + 1;
}

static void *worker(void *arg)
{
	void *p = NULL;

	pthread_mutex_lock(&lock);
	if (posix_memalign(&p, 64, 256) == 0)
		free(p);
	tracef("worker %d", *(int *)arg);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	int sum = 0;

	for (int i = 0; i < 5; i++) {
		/* 33 bytes: the size the trace's malloc filter keeps. */
		char *p = malloc(33);

		if (!p)
			return 1;
		memset(p, 'x', 33);
		p = realloc(p, 100 + (size_t)i);
		free(p);
		sum += work(i);
		tracef("iteration %d of %s, sum=%d, third=%f", i, "loop", sum, i / 3.0);
		lttng_ust_tracelog(LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING, "warning %d", i);
		if (i == 2) {
			void *h = dlopen("libm.so.6", RTLD_NOW);

			if (h)
				dlclose(h);
		}
	}
	if (pthread_create(&thread, NULL, worker, &sum) == 0)
		pthread_join(thread, NULL);
	return sum == 0;
}
