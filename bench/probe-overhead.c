/* SPDX-License-Identifier: MIT */
/*
 * bench/probe-overhead: what counter contexts and function probes cost per
 * event in the kernel domain, against `perf stat -e` counting the same
 * counters over the same workload.
 *
 * Workloads, each run in a child and timed on the child's own CPU time (the
 * machine may be shared; what a tracer does in the traced context, BPF
 * programs and uprobe traps included, is charged to that time):
 *   syscall  getppid() in a loop: two events per call (syscall entry, exit)
 *   call     bench_probe_target(), an empty function beginning with the usual
 *            frame-pointer prologue, in a loop: with --userspace-function, two
 *            events per call (a uprobe and a uretprobe)
 * Configurations:
 *   untraced; strata with the tid context; strata with tid and one software
 *   counter (each in turn); strata with tid and eight software counters (the
 *   most open at once);
 *   `perf stat -e COUNTER` around the untraced loop (perf counts, records
 *   nothing per event).
 * ns/event = (traced - untraced ns per call) / events per call; best of
 * `reps` runs. Needs root; lttng cannot run here (no loadable kernel modules).
 *
 * Usage: probe-overhead [iterations] [reps]
 *        probe-overhead --loop syscall|call N   (the child, also under perf stat)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel.h"

#include "common/common.h"

void bench_probe_target(void);
__attribute__((noinline, noipa, used, visibility("default"))) void bench_probe_target(void)
{
	__asm__ volatile("push %%rbp\n\tmov %%rsp, %%rbp\n\tpop %%rbp" ::: "memory");
}

static const char *const sw_counters[] = {
	"perf:cpu:cpu-clock",	   "perf:cpu:task-clock",	"perf:cpu:page-fault",
	"perf:cpu:major-faults",   "perf:cpu:minor-faults",	"perf:cpu:context-switches",
	"perf:cpu:cpu-migrations", "perf:cpu:alignment-faults", "perf:cpu:emulation-faults",
};
/* perf(1)'s names of the same counters, for perf stat -e. */
static const char *const perf_names[] = {
	"cpu-clock",	  "task-clock",	      "page-faults",
	"major-faults",	  "minor-faults",     "context-switches",
	"cpu-migrations", "alignment-faults", "emulation-faults",
};

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The child: prints its CPU ns per call. */
static int child_loop(const char *what, long n)
{
	bool call = !strcmp(what, "call");
	uint64_t t0, t1;

	for (long i = 0; i < n / 10; i++)
		call ? bench_probe_target() : (void)syscall(SYS_getppid);
	t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		call ? bench_probe_target() : (void)syscall(SYS_getppid);
	t1 = cpu_ns();
	printf("%.3f\n", (double)(t1 - t0) / (double)n);
	return 0;
}

/* Run argv (the loop, maybe under perf stat) and read the child's ns per call. */
static double run_child(char *const argv[])
{
	int p[2];
	char buf[64] = "";
	ssize_t n;
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(p[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	waitpid(c, NULL, 0);
	return n > 0 ? strtod(buf, NULL) : -1;
}

static char self[PATH_MAX];

static double best(const char *what, long iters, int reps, const char *perf_event)
{
	char n[32], *argv[12];
	double b = 1e18;
	int a = 0;

	snprintf(n, sizeof(n), "%ld", iters);
	if (perf_event) {
		argv[a++] = (char *)"/usr/bin/perf";
		argv[a++] = (char *)"stat";
		argv[a++] = (char *)"-x,";
		argv[a++] = (char *)"-e";
		argv[a++] = (char *)perf_event;
		argv[a++] = (char *)"--";
	}
	argv[a++] = self;
	argv[a++] = (char *)"--loop";
	argv[a++] = (char *)what;
	argv[a++] = n;
	argv[a] = NULL;
	for (int i = 0; i < reps; i++) {
		double v = run_child(argv);

		if (v > 0 && v < b)
			b = v;
	}
	return b;
}

static void count_cb(void *opaque, const struct kernel_record *rec _unused_)
{
	(*(uint64_t *)opaque)++;
}

/* One strata configuration: contexts ctxs, the workload's events; ns per call. */
static double bench_strata(struct kernel_tracer *kt, const char *what, const char *const *ctxs,
			   size_t nctx, long iters, int reps, uint64_t *ret_records)
{
	struct kernel_channel *ch;
	char why[1024], loc[PATH_MAX + 64];
	double ns = -1;
	int r;

	*ret_records = 0;
	r = kernel_channel_create(kt, "bench", NULL, count_cb, ret_records, &ch, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "channel: %s\n", why);
		return -1;
	}
	r = kernel_channel_add_context(ch, "tid", why, sizeof(why));
	for (size_t i = 0; !r && i < nctx; i++)
		r = kernel_channel_add_context(ch, ctxs[i], why, sizeof(why));
	if (!r && !strcmp(what, "call")) {
		snprintf(loc, sizeof(loc), "elf:%s:bench_probe_target", self);
		r = kernel_channel_enable_probe(ch, "bench", KERNEL_EVENT_USERSPACE_FUNCTION, loc,
						why, sizeof(why));
	} else if (!r) {
		r = kernel_channel_enable_event(ch, "getppid", KERNEL_EVENT_SYSCALL, why,
						sizeof(why)) == 1 ?
			    0 :
			    -1;
	}
	if (!r && !kernel_channel_start(ch)) {
		ns = best(what, iters, reps, NULL);
		kernel_channel_stop(ch);
	} else {
		fprintf(stderr, "strata setup: %s\n", why);
	}
	kernel_channel_destroy(ch);
	return ns;
}

int main(int argc, char **argv)
{
	static const char *const workloads[] = { "syscall", "call" };
	struct kernel_tracer *kt;
	long iters = argc > 1 && argv[1][0] != '-' ? strtol(argv[1], NULL, 10) : 200000;
	int reps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3;
	char why[1024];
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "--loop"))
		return child_loop(argv[2], strtol(argv[3], NULL, 10));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	if (kernel_tracer_create(&kt, why, sizeof(why)) < 0) {
		fprintf(stderr, "kernel tracing unavailable: %s\n", why);
		return 77;
	}
	printf("%ld calls per run, best of %d; ns/event = (traced - untraced) / 2\n", iters, reps);
	for (size_t w = 0; w < ARRAY_SIZE(workloads); w++) {
		const char *what = workloads[w];
		double base = best(what, iters, reps, NULL), tid, v;
		uint64_t recs;

		printf("\n%s workload (%s): untraced %.1f ns/call\n", what,
		       w ? "uprobe + uretprobe on an empty function" :
			   "getppid, syscall entry + exit",
		       base);
		printf("| configuration | ns/call | ns/event | +ns/event vs tid only | records |\n");
		printf("|---|---:|---:|---:|---:|\n");
		tid = bench_strata(kt, what, NULL, 0, iters, reps, &recs);
		printf("| strata, tid | %.1f | %.1f | – | %llu |\n", tid, (tid - base) / 2,
		       (unsigned long long)recs);
		for (size_t c = 0; c < ARRAY_SIZE(sw_counters); c++) {
			v = bench_strata(kt, what, &sw_counters[c], 1, iters, reps, &recs);
			printf("| strata, tid + %s | %.1f | %.1f | %+.1f | %llu |\n",
			       sw_counters[c], v, (v - base) / 2, (v - tid) / 2,
			       (unsigned long long)recs);
		}
		/* At most KR_MAX_CTR (8) distinct counters are open at once. */
		v = bench_strata(kt, what, sw_counters, 8, iters, reps, &recs);
		printf("| strata, tid + the first 8 software counters | %.1f | %.1f | %+.1f | %llu "
		       "|\n",
		       v, (v - base) / 2, (v - tid) / 2, (unsigned long long)recs);
		for (size_t c = 0; c < ARRAY_SIZE(perf_names); c++) {
			v = best(what, iters, reps, perf_names[c]);
			printf("| perf stat -e %s (counting only) | %.1f | %.1f | | |\n",
			       perf_names[c], v, (v - base) / 2);
		}
	}
	kernel_tracer_destroy(kt);
	return 0;
}
