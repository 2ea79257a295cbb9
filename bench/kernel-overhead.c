/* SPDX-License-Identifier: MIT */
/*
 * bench/kernel-overhead: what tracing a syscall costs, per event.
 *
 * A child process runs a getppid() loop (two events per call: entry and exit)
 * untraced, then under each tracer, in the same run:
 *   ftrace   a tracefs instance with raw_syscalls enabled and a splice reader
 *            per CPU (contexts: the tid in the record header only)
 *   perf     `perf record -a -e raw_syscalls:*` (tid, time, cpu per sample)
 *   strata   the eBPF recorder, syscall getppid, with pid/tid/procname/ppid
 *            contexts captured at event time and its consumer running; once
 *            as shipped, once without perf passthrough (recorder.bpf.c)
 * perf sees nothing on a tracepoint a strata daemon (of an older build, with
 * passthrough off) is attached to: stop other strata daemons first.
 * ns/event = (traced ns/call - untraced ns/call) / 2, from the loop's CPU
 * time (so other load on the machine does not count). Each configuration runs
 * `reps` times and the best is kept (the machine may be shared). Needs root.
 *
 * Usage: kernel-overhead [iterations] [reps]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel-internal.h"
#include "kernel.h"

#include "common/common.h"

#define TRACEFS "/sys/kernel/tracing"
#define INSTANCE TRACEFS "/instances/strata-bench"

/*
 * The loop's own CPU time, not wall time: the machine may be shared, and
 * preemption by other work is not tracing overhead. Everything a tracer does
 * in the traced context (BPF program, ftrace write, perf sample) is charged to
 * the looping process's system time.
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run the loop in a child (the recorder never traces its own process). */
static double loop_ns(long iters)
{
	int p[2];
	double ns = -1;
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		uint64_t t0, t1;
		double r;

		for (long i = 0; i < iters / 10; i++) /* warm up */
			syscall(SYS_getppid);
		t0 = now_ns();
		for (long i = 0; i < iters; i++)
			syscall(SYS_getppid);
		t1 = now_ns();
		r = (double)(t1 - t0) / (double)iters;
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
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

static double best_loop(long iters, int reps)
{
	double best = 1e18;

	for (int i = 0; i < reps; i++) {
		double v = loop_ns(iters);

		if (v > 0 && v < best)
			best = v;
	}
	return best;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* ---- ftrace: an instance with raw_syscalls and splice readers ---- */

struct ft_reader {
	pthread_t th;
	int cpu;
	atomic_bool *stop;
	uint64_t bytes;
};

static void *ft_read(void *arg)
{
	struct ft_reader *r = arg;
	char path[256];
	int fd, p[2], null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	snprintf(path, sizeof(path), INSTANCE "/per_cpu/cpu%d/trace_pipe_raw", r->cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || null < 0 || pipe2(p, O_CLOEXEC))
		return NULL;
	while (!atomic_load(r->stop)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = splice(fd, NULL, p[1], NULL, 1 << 16, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			r->bytes += (uint64_t)n;
			splice(p[0], NULL, null, NULL, (size_t)n, SPLICE_F_MOVE);
		}
	}
	close(fd);
	close(p[0]);
	close(p[1]);
	close(null);
	return NULL;
}

static double bench_ftrace(long iters, int reps, unsigned int ncpu, uint64_t *ret_lost)
{
	struct ft_reader *rd = calloc(ncpu, sizeof(*rd));
	atomic_bool stop = false;
	char path[256], *text = NULL;
	double ns;
	FILE *f;

	rmdir(INSTANCE);
	if (!rd || mkdir(INSTANCE, 0755)) {
		free(rd);
		return -1;
	}
	write_str(INSTANCE "/buffer_size_kb", "65536");
	write_str(INSTANCE "/trace_clock", "mono");
	write_str(INSTANCE "/events/raw_syscalls/enable", "1");
	for (unsigned int c = 0; c < ncpu; c++) {
		rd[c].cpu = (int)c;
		rd[c].stop = &stop;
		pthread_create(&rd[c].th, NULL, ft_read, &rd[c]);
	}
	ns = best_loop(iters, reps);
	write_str(INSTANCE "/events/raw_syscalls/enable", "0");
	atomic_store(&stop, true);
	for (unsigned int c = 0; c < ncpu; c++)
		pthread_join(rd[c].th, NULL);
	*ret_lost = 0;
	for (unsigned int c = 0; c < ncpu; c++) {
		unsigned long long v;
		size_t cap = 0;

		snprintf(path, sizeof(path), INSTANCE "/per_cpu/cpu%u/stats", c);
		f = fopen(path, "re");
		while (f && getline(&text, &cap, f) > 0)
			if (sscanf(text, "overrun: %llu", &v) == 1)
				*ret_lost += v;
		if (f)
			fclose(f);
	}
	free(text);
	rmdir(INSTANCE);
	free(rd);
	return ns;
}

/* ---- perf record, enabled through its control fifo once it is ready ---- */

static double bench_perf(long iters, int reps, char *lost_line, size_t len)
{
	char dir[] = "/tmp/strata-kbench-XXXXXX", ctl[128], ack[128], data[128], log[128];
	char buf[16] = { 0 }, cmd[1024];
	int cfd, afd, st;
	double ns = -1;
	pid_t perf;
	FILE *lf;

	lost_line[0] = 0;
	if (!mkdtemp(dir))
		return -1;
	snprintf(ctl, sizeof(ctl), "%s/ctl", dir);
	snprintf(ack, sizeof(ack), "%s/ack", dir);
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(log, sizeof(log), "%s/perf.log", dir);
	if (mkfifo(ctl, 0600) || mkfifo(ack, 0600))
		return -1;
	perf = fork();
	if (perf == 0) {
		int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		char control[300];

		snprintf(control, sizeof(control), "fifo:%s,%s", ctl, ack);
		dup2(lfd, 1);
		dup2(lfd, 2);
		execlp("perf", "perf", "record", "-q", "-a", "-D", "-1", "--control", control, "-e",
		       "raw_syscalls:sys_enter,raw_syscalls:sys_exit", "-o", data, (char *)NULL);
		_exit(127);
	}
	cfd = open(ctl, O_WRONLY | O_CLOEXEC);
	afd = open(ack, O_RDONLY | O_CLOEXEC);
	if (cfd >= 0 && afd >= 0 && write(cfd, "enable\n", 7) == 7 && read(afd, buf, 5) > 0 &&
	    !strncmp(buf, "ack", 3))
		ns = best_loop(iters, reps);
	kill(perf, SIGINT);
	waitpid(perf, &st, 0);
	if (cfd >= 0)
		close(cfd);
	if (afd >= 0)
		close(afd);
	snprintf(cmd, sizeof(cmd),
		 "perf report -i %s --stats 2>/dev/null | grep -i 'lost' | head -3", data);
	lf = popen(cmd, "r");
	if (lf) {
		size_t n = fread(lost_line, 1, len - 1, lf);

		lost_line[n] = 0;
		for (char *p = lost_line; *p; p++)
			if (*p == '\n')
				*p = ';';
		pclose(lf);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return ns;
	return ns;
}

/* ---- strata: the eBPF recorder with contexts and its consumer ---- */

static atomic_ullong strata_records;

static void count_cb(void *opaque _unused_, const struct kernel_record *rec _unused_)
{
	atomic_fetch_add_explicit(&strata_records, 1, memory_order_relaxed);
}

static double run_ns_per_event = -1;

static double bench_strata(long iters, int reps, bool passthrough, uint64_t *ret_lost, char *why,
			   size_t len)
{
	struct kernel_tracer *kt;
	struct kernel_channel *ch;
	double ns = -1;
	int r;

	r = kernel_tracer_create(&kt, why, len);
	if (r)
		return -1;
	atomic_store(&strata_records, 0);
	kt_rec_set_perf_passthrough(kt, passthrough);
	r = kernel_channel_create(kt, "channel0", NULL, count_cb, NULL, &ch, why, len);
	if (r) {
		kernel_tracer_destroy(kt);
		return -1;
	}
	for (const char *const *c = (const char *const[]){ "pid", "tid", "procname", "ppid", NULL };
	     *c; c++)
		kernel_channel_add_context(ch, *c, why, len);
	if (kernel_channel_enable_event(ch, "getppid", KERNEL_EVENT_SYSCALL, why, len) == 1 &&
	    !kernel_channel_start(ch)) {
		ns = best_loop(iters, reps);
		if (passthrough) {
			/*
			 * The program's own run time, from the kernel's BPF stats: immune
			 * to machine load, but stats add ~40 ns per run, so this pass is
			 * separate and reported apart.
			 */
			int sfd = bpf_enable_stats(BPF_STATS_RUN_TIME);
			uint64_t r0, n0, r1, n1;

			kt_rec_run_stats(kt, &r0, &n0);
			loop_ns(iters);
			kt_rec_run_stats(kt, &r1, &n1);
			if (sfd >= 0) {
				close(sfd);
				if (r1 > r0)
					run_ns_per_event = (double)(n1 - n0) / (double)(r1 - r0);
			}
		}
		kernel_channel_stop(ch);
	}
	*ret_lost = 0;
	for (unsigned int s = 0; s < kernel_channel_nr_streams(ch); s++)
		*ret_lost += kernel_channel_discarded(ch, s);
	kernel_channel_destroy(ch);
	kernel_tracer_destroy(kt);
	return ns;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	int reps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3;
	unsigned int ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t ft_lost = 0, st_lost = 0, st0_lost = 0;
	double base, ft, pf, st, st0, ev_ft, ev_pf, ev_st, ev_st0;
	char why[512], perf_lost[512];

	if (kernel_check(why, sizeof(why))) {
		fprintf(stderr, "kernel-overhead: %s\n", why);
		return 77;
	}
	if (iters < 1000)
		iters = 1000;
	base = best_loop(iters, reps);
	ft = bench_ftrace(iters, reps, ncpu, &ft_lost);
	pf = bench_perf(iters, reps, perf_lost, sizeof(perf_lost));
	st = bench_strata(iters, reps, true, &st_lost, why, sizeof(why));
	if (st < 0)
		fprintf(stderr, "strata recorder failed: %s\n", why);
	st0 = bench_strata(iters, reps, false, &st0_lost, why, sizeof(why));
	ev_ft = (ft - base) / 2;
	ev_pf = (pf - base) / 2;
	ev_st = (st - base) / 2;
	ev_st0 = (st0 - base) / 2;
	printf("getppid loop, %ld calls x %d runs (best), 2 events per call, %u CPUs\n", iters,
	       reps, ncpu);
	printf("%-44s %10s %12s\n", "configuration", "ns/call", "ns/event");
	printf("%-44s %10.1f %12s\n", "untraced", base, "-");
	printf("%-44s %10.1f %12.1f   lost (overrun) %llu\n",
	       "ftrace instance, raw_syscalls, splice", ft, ev_ft, (unsigned long long)ft_lost);
	printf("%-44s %10.1f %12.1f   %s\n", "perf record -a raw_syscalls:*", pf, ev_pf,
	       perf_lost[0] ? perf_lost : "lost: none reported");
	printf("%-44s %10.1f %12.1f   discarded %llu, records %llu\n",
	       "strata eBPF, pid/tid/procname/ppid", st, ev_st, (unsigned long long)st_lost,
	       (unsigned long long)atomic_load(&strata_records));
	printf("%-44s %10.1f %12.1f   discarded %llu\n", "  same, perf passthrough off", st0,
	       ev_st0, (unsigned long long)st0_lost);
	if (run_ns_per_event > 0)
		printf("strata BPF program run time (kernel BPF stats, +~40 ns stats overhead): %.1f "
		       "ns/event\n",
		       run_ns_per_event);
	printf("ratio strata/ftrace %.2f, strata/perf %.2f\n", ev_st / ev_ft, ev_st / ev_pf);
	return 0;
}
