/* SPDX-License-Identifier: MIT */
/*
 * bench/kernel-filter: what a kernel filter costs per event, in the eBPF
 * recorder, for an event it drops and one it passes, against the same
 * events recorded without filter.
 *
 * A child runs a close(999999) loop (two events per call: entry and exit;
 * EBADF at once) untraced, then under one channel per configuration, with
 * the contexts of bench/kernel-overhead (pid, tid, procname, ppid) and its
 * consumer running. ns/event = (traced - untraced ns per call) / 2, from the
 * loop's CPU time; each configuration runs `reps` times and the best is
 * kept (the machine may be shared). The recorder's own run time per event
 * comes from the kernel's BPF statistics. Needs root.
 *
 * Usage: kernel-filter [iterations] [reps]
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "filter/filter.h"
#include "kernel-internal.h"
#include "kernel.h"

#include "common/common.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The loop in a child: the recorder never traces its own process. */
static double loop_ns(long iters)
{
	double ns = -1;
	int p[2];
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		uint64_t t0;
		double r;

		prctl(PR_SET_NAME, "kfbench");
		for (long i = 0; i < iters / 10; i++)
			syscall(SYS_close, 999999);
		t0 = cpu_ns();
		for (long i = 0; i < iters; i++)
			syscall(SYS_close, 999999);
		r = (double)(cpu_ns() - t0) / (double)iters;
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	if (c > 0) {
		if (read(p[0], &ns, sizeof(ns)) != sizeof(ns))
			ns = -1;
		waitpid(c, NULL, 0);
	}
	close(p[0]);
	return ns;
}

static atomic_ullong records;

static void count_cb(void *opaque, const struct kernel_record *rec)
{
	(void)opaque;
	(void)rec;
	atomic_fetch_add(&records, 1);
}

struct config {
	const char *name;
	const char *filter; /* NULL: enabled without filter */
	bool traced;
};

int main(int argc, char **argv)
{
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	int reps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3;
	static const struct config configs[] = {
		{ "untraced", NULL, false },
		{ "no filter", NULL, true },
		{ "fd == 1 (drops entry; exit has no fd)", "fd == 1", true },
		{ "$ctx.vpid < 0 (drops)", "$ctx.vpid < 0", true },
		{ "$ctx.vpid > 0 (passes)", "$ctx.vpid > 0", true },
		{ "$ctx.procname == \"nomatch*\" (drops)", "$ctx.procname == \"nomatch*\"", true },
		{ "$ctx.procname == \"kfbench*\" (passes)", "$ctx.procname == \"kfbench*\"", true },
		{ "procname glob \"*ben*\" && vpid > 0 (passes)",
		  "$ctx.procname == \"*ben*\" && $ctx.vpid > 0", true },
	};
	static const char *const ctxs[] = { "pid", "tid", "procname", "ppid" };
	struct kernel_tracer *kt;
	double base = 0;
	char why[512];
	int stats_fd;

	if (kernel_tracer_create(&kt, why, sizeof(why))) {
		fprintf(stderr, "kernel-filter: %s\n", why);
		return 1;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	printf("close(999999) loop, %ld calls, best of %d; ns/event = (traced - untraced) / 2\n",
	       iters, reps);
	printf("%-46s %9s %9s %10s %9s %9s\n", "configuration", "ns/call", "ns/event", "records",
	       "lost", "bpf ns/run");
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++) {
		const struct config *c = &configs[i];
		struct kernel_channel *ch = NULL;
		uint64_t runs0, ns0, runs1, ns1, lost = 0;
		double best = 1e18;

		if (kernel_channel_create(kt, "channel0", NULL, count_cb, NULL, &ch, why,
					  sizeof(why))) {
			fprintf(stderr, "kernel-filter: %s\n", why);
			return 1;
		}
		for (size_t k = 0; k < ARRAY_SIZE(ctxs); k++)
			kernel_channel_add_context(ch, ctxs[k], why, sizeof(why));
		if (c->filter) {
			void *bc;
			size_t len;

			if (flt_compile(c->filter, &bc, &len, NULL) ||
			    kernel_channel_add_filter(ch, "close", KERNEL_EVENT_SYSCALL, bc, len,
						      why, sizeof(why)) < 0) {
				fprintf(stderr, "kernel-filter: '%s': %s\n", c->filter, why);
				return 1;
			}
			free(bc);
		} else if (c->traced &&
			   kernel_channel_enable_event(ch, "close", KERNEL_EVENT_SYSCALL, why,
						       sizeof(why)) < 0) {
			fprintf(stderr, "kernel-filter: %s\n", why);
			return 1;
		}
		if (c->traced)
			kernel_channel_start(ch);
		atomic_store(&records, 0);
		kt_rec_run_stats(kt, &runs0, &ns0);
		for (int r = 0; r < reps; r++) {
			double v = loop_ns(iters);

			if (v > 0 && v < best)
				best = v;
		}
		kt_rec_run_stats(kt, &runs1, &ns1);
		if (c->traced)
			kernel_channel_stop(ch);
		for (unsigned int s = 0; s < kernel_channel_nr_streams(ch); s++)
			lost += kernel_channel_discarded(ch, s);
		if (!c->traced)
			base = best;
		printf("%-46s %9.1f %9.1f %10llu %9llu %9.1f\n", c->name, best,
		       c->traced ? (best - base) / 2 : 0.0,
		       (unsigned long long)atomic_load(&records), (unsigned long long)lost,
		       runs1 > runs0 && stats_fd >= 0 ?
			       (double)(ns1 - ns0) / (double)(runs1 - runs0) :
			       0.0);
		kernel_channel_destroy(ch);
	}
	if (stats_fd >= 0)
		close(stats_fd);
	kernel_tracer_destroy(kt);
	return 0;
}
