/* SPDX-License-Identifier: MIT */
/*
 * Micro-benchmark of the ring buffer producer fast path (not a test):
 * ns per rb_reserve + 32-byte write + rb_commit, 1 and 2 threads, each
 * thread pinned to its own CPU, TSC and CLOCK_MONOTONIC clocks. Overwrite
 * mode with no consumer (flight recorder: nothing dropped, the sub-buffer
 * switch slow path at its real frequency), then discard mode with a consumer
 * draining on the other CPU (records it cannot keep up with are dropped and
 * still cost a reserve attempt). "on CPU" is the thread's CPU time, robust to
 * a loaded machine; "wall" includes preemption.
 *
 * Build: ninja -C <builddir> lib/ringbuf/ringbuf-bench (not built by default)
 * Run:   <builddir>/lib/ringbuf/ringbuf-bench [records-per-thread]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "common/common.h"
#include "ringbuf/ringbuf.h"

static struct rb_channel *ch;
static uint64_t per_thread;
static pthread_barrier_t barrier;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread: robust to a loaded machine (preemption). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tsc_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return mono_ns();
#endif
}

struct targ {
	int cpu;
	double ns, cpu_ns;
	uint64_t fails;
};

static void *run(void *p)
{
	struct targ *a = p;
	struct rb_reservation res;
	cpu_set_t set;
	uint64_t i, t0, c0;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(&barrier);
	t0 = mono_ns();
	c0 = thread_cpu_ns();
	for (i = 0; i < per_thread; i++) {
		if (rb_reserve(ch, -1, 32, &res) < 0) {
			a->fails++;
			continue;
		}
		/* CTF-like: 4-byte id, pad, 8-byte ts, two u64 payload fields */
		((uint64_t *)res.data)[0] = 7;
		((uint64_t *)res.data)[1] = res.ts;
		((uint64_t *)res.data)[2] = i;
		((uint64_t *)res.data)[3] = i * 3;
		rb_commit(ch, &res);
	}
	a->ns = (double)(mono_ns() - t0) / (double)per_thread;
	a->cpu_ns = (double)(thread_cpu_ns() - c0) / (double)per_thread;
	return NULL;
}

static _Atomic int drain_stop;

/* Discard mode: a consumer on the last CPU drains while the writer runs. */
static void *drain(void *p)
{
	struct rb_consumer *cons = p;
	struct rb_packet pkt;
	uint32_t cpu;

	while (!atomic_load(&drain_stop))
		for (cpu = 0; cpu < 2; cpu++)
			while (rb_consumer_read(cons, cpu, 0, &pkt) == 0)
				;
	return NULL;
}

static int bench(int nthreads, enum rb_mode mode, rb_clock_fn clock, const char *clock_name)
{
	struct rb_config cfg = { .subbuf_size = 1u << 20, .num_subbufs = 4, .mode = mode };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct targ a[2] = { { .cpu = 0 }, { .cpu = 1 } };
	struct rb_consumer *cons = NULL;
	pthread_t t[2], ct;
	int i;

	cfg.nr_cpus = ncpu > 0 ? (uint32_t)ncpu : 1;
	if ((uint32_t)nthreads > cfg.nr_cpus || (mode == RB_MODE_DISCARD && cfg.nr_cpus < 2))
		return 0;
	if (rb_channel_create(&cfg, &ch) < 0)
		return -1;
	rb_channel_set_clock(ch, clock);
	if (mode == RB_MODE_DISCARD) {
		cpu_set_t set;

		if (rb_consumer_create(ch, NULL, &cons) < 0)
			return -1;
		atomic_store(&drain_stop, 0);
		pthread_create(&ct, NULL, drain, cons);
		CPU_ZERO(&set);
		CPU_SET(cfg.nr_cpus - 1, &set);
		pthread_setaffinity_np(ct, sizeof(set), &set);
	}
	pthread_barrier_init(&barrier, NULL, (unsigned int)nthreads);
	for (i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, run, &a[i]);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	if (cons) {
		atomic_store(&drain_stop, 1);
		pthread_join(ct, NULL);
	}
	for (i = 0; i < nthreads; i++)
		printf("%s, %d thread(s), %-9s clock: thread %d: %.1f ns/record wall, %.1f ns on "
		       "CPU (%llu dropped)\n",
		       mode == RB_MODE_DISCARD ? "discard + consumer" : "overwrite", nthreads,
		       clock_name, i, a[i].ns, a[i].cpu_ns, (unsigned long long)a[i].fails);
	pthread_barrier_destroy(&barrier);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
	return 0;
}

int main(int argc, char **argv)
{
	per_thread = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
	if (!per_thread)
		per_thread = 20000000ull;
	bench(1, RB_MODE_OVERWRITE, tsc_clock, "rdtsc");
	bench(1, RB_MODE_OVERWRITE, mono_ns, "monotonic");
	bench(2, RB_MODE_OVERWRITE, tsc_clock, "rdtsc");
	bench(2, RB_MODE_OVERWRITE, mono_ns, "monotonic");
	bench(1, RB_MODE_DISCARD, tsc_clock, "rdtsc");
	bench(1, RB_MODE_DISCARD, mono_ns, "monotonic");
	return 0;
}
