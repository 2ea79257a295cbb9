/* SPDX-License-Identifier: MIT */
/*
 * The BPF side of the kernel tracer: load the recorder skeleton, attach it to
 * tracepoints (once each, for the tracer's life), own the per-channel rings and
 * the perf counters, and flip the runtime knobs in the mmap'ed .bss.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/cleanup.h"
#include "kernel-internal.h"

/* The generated skeleton embeds the BPF object as one long string literal. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "recorder.skel.h"
#pragma GCC diagnostic pop
#include "syscalls.h"

#include "common/common.h"

struct kt_bpf {
	struct kr_bpf *skel;
};

static int kt_libbpf_quiet(enum libbpf_print_level level _unused_, const char *fmt _unused_,
			   va_list ap _unused_)
{
	/* Libraries never print: failures come back as errors with a reason. */
	return 0;
}

static int kt_perf_event_open(struct perf_event_attr *attr, int pid, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void kt_raise_nofile(void)
{
	struct rlimit rl;

	/* --all keeps one link fd per tracepoint (~2300 here). */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int kt_rec_open(struct kernel_tracer *kt, char *why, size_t len)
{
	struct kt_bpf *b;
	struct kr_bpf *skel;
	int tmpl, err;

	libbpf_set_print(kt_libbpf_quiet);
	kt_raise_nofile();
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	skel = kr_bpf__open();
	if (!skel) {
		err = -errno;
		snprintf(why, len, "Failed to open the BPF recorder: %s", strerror(-err));
		free(b);
		return err;
	}
	skel->rodata->kr_ncpu = kt->ncpu;
	bpf_map__set_max_entries(skel->maps.kr_rbs, KR_MAX_CHAN * kt->ncpu);
	/*
	 * The outer map needs an inner template. libbpf 1.1 crashes resizing the
	 * declared inner map, so hand it a real ring buffer instead.
	 */
	tmpl = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "kr_tmpl", 0, 0,
			      (uint32_t)sysconf(_SC_PAGESIZE), NULL);
	if (tmpl < 0) {
		err = -errno;
		snprintf(
			why, len,
			"Failed to create a BPF ring buffer: %s (the kernel needs BPF ring buffers, "
			"Linux >= 5.8)",
			strerror(-err));
		goto err;
	}
	bpf_map__set_inner_map_fd(skel->maps.kr_rbs, tmpl);
	err = kr_bpf__load(skel);
	close(tmpl);
	if (err) {
		snprintf(
			why, len,
			"Failed to load the BPF recorder: %s (the kernel must allow BPF tracepoint "
			"programs for root; check kernel.unprivileged_bpf_disabled and lockdown)",
			strerror(-err));
		goto err;
	}
	skel->bss->kr_self_tgid = (unsigned int)kt->self;
	for (unsigned int i = 0; i < kt_nsyscalls; i++)
		if (kt_syscalls[i].nr >= 0 && kt_syscalls[i].nr < KR_MAX_SC)
			skel->bss->kr_sc_strmask[kt_syscalls[i].nr] =
				(unsigned char)(KR_SC_KNOWN | kt_syscall_strmask(&kt_syscalls[i]) |
						(strncmp(kt_syscalls[i].name, "execve", 6) ?
							 0 :
							 KR_SC_NORETRY_OK));
	b->skel = skel;
	kt->skel = b;
	return 0;
err:
	kr_bpf__destroy(skel);
	free(b);
	return err;
}

static int kt_tracepoint_id(const char *tracefs, const char *sys, const char *name)
{
	char path[512];
	_cleanup_free_ char *text = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name);
	r = kt_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	return (int)strtol(text, NULL, 10);
}

/* perf_event_open the tracepoint, link prog with a cookie, keep only the link fd. */
static int kt_attach(struct bpf_program *prog, int tp_id, uint64_t cookie)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = (uint64_t)tp_id,
	};
	LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = cookie);
	int pfd, link;

	pfd = kt_perf_event_open(&attr, -1, 0);
	if (pfd < 0)
		return -errno;
	link = bpf_link_create(bpf_program__fd(prog), pfd, BPF_PERF_EVENT, &opts);
	/* The link holds the perf event: one fd per tracepoint instead of two. */
	close(pfd);
	return link < 0 ? -errno : link;
}

int kt_rec_attach_tp(struct kernel_tracer *kt, unsigned int idx, const struct kt_format *f)
{
	struct kr_bpf *skel = kt->skel->skel;
	struct kr_desc d = { .fixed_end = f->fixed_end, .ndl = f->ndl };
	int link;

	if (idx >= KR_MAX_TP)
		return -E2BIG;
	if (kt->tp_link[idx] >= 0)
		return 0;
	memcpy(d.dl_off, f->dl_off, sizeof(d.dl_off));
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.kr_descs), &idx, &d, BPF_ANY))
		return -errno;
	link = kt_attach(skel->progs.kr_tp, f->id, idx);
	if (link < 0)
		return link;
	kt->tp_link[idx] = link;
	kt->nattached++;
	return 0;
}

int kt_rec_attach_syscalls(struct kernel_tracer *kt)
{
	struct kr_bpf *skel = kt->skel->skel;
	static const char *const names[2] = { "sys_enter", "sys_exit" };
	struct bpf_program *progs[2] = { skel->progs.kr_sys_enter, skel->progs.kr_sys_exit };

	for (int i = 0; i < 2; i++) {
		int id, link;

		if (kt->sc_link[i] >= 0)
			continue;
		id = kt_tracepoint_id(kt->tracefs, "raw_syscalls", names[i]);
		if (id < 0)
			return id;
		link = kt_attach(progs[i], id, 0);
		if (link < 0)
			return link;
		kt->sc_link[i] = link;
		kt->nattached++;
	}
	return 0;
}

void kt_rec_set_enabled(struct kernel_tracer *kt, unsigned int slot, uint32_t key, bool on)
{
	unsigned long long *w = &kt->skel->skel->bss->kr_enabled[slot][key / 64];
	unsigned long long bit = 1ULL << (key % 64);

	if (on)
		__atomic_fetch_or(w, bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(w, ~bit, __ATOMIC_RELEASE);
}

static void kt_set_bit(unsigned int *w, unsigned int slot, bool on)
{
	if (on)
		__atomic_fetch_or(w, 1U << slot, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(w, ~(1U << slot), __ATOMIC_RELEASE);
}

void kt_rec_set_active(struct kernel_tracer *kt, unsigned int slot, bool on)
{
	kt_set_bit(&kt->skel->skel->bss->kr_active, slot, on);
}

void kt_rec_set_test_delay(struct kernel_tracer *kt, uint32_t key, uint64_t ns)
{
	kt->skel->skel->bss->kr_test_delay_key = key;
	__atomic_store_n(&kt->skel->skel->bss->kr_test_delay_ns, ns, __ATOMIC_RELEASE);
}

void kt_rec_set_perf_passthrough(struct kernel_tracer *kt, bool on)
{
	__atomic_store_n(&kt->skel->skel->data->kr_perf_passthrough, on ? 1u : 0u,
			 __ATOMIC_RELEASE);
}

void kt_rec_set_host(struct kernel_tracer *kt, unsigned int slot, bool on)
{
	kt_set_bit(&kt->skel->skel->bss->kr_want_host, slot, on);
}

int kt_rec_rings_create(struct kernel_tracer *kt, unsigned int slot, uint64_t size, uint64_t wake,
			int **ret_fds)
{
	struct kr_bpf *skel = kt->skel->skel;
	int outer = bpf_map__fd(skel->maps.kr_rbs);
	int *fds = calloc(kt->ncpu, sizeof(*fds));
	int err = 0;

	if (!fds)
		return -ENOMEM;
	for (unsigned int c = 0; c < kt->ncpu; c++)
		fds[c] = -1;
	for (unsigned int c = 0; c < kt->ncpu; c++) {
		uint32_t idx = slot * kt->ncpu + c;

		fds[c] =
			bpf_map_create(BPF_MAP_TYPE_RINGBUF, "kr_ring", 0, 0, (uint32_t)size, NULL);
		if (fds[c] < 0 || bpf_map_update_elem(outer, &idx, &fds[c], BPF_ANY)) {
			err = -errno;
			break;
		}
	}
	if (err) {
		kt_rec_rings_destroy(kt, slot, fds);
		return err;
	}
	skel->bss->kr_wake_bytes[slot] = wake;
	*ret_fds = fds;
	return 0;
}

void kt_rec_rings_destroy(struct kernel_tracer *kt, unsigned int slot, int *fds)
{
	int outer = bpf_map__fd(kt->skel->skel->maps.kr_rbs);

	if (!fds)
		return;
	for (unsigned int c = 0; c < kt->ncpu; c++) {
		uint32_t idx = slot * kt->ncpu + c;

		bpf_map_delete_elem(outer, &idx);
		if (fds[c] >= 0)
			close(fds[c]);
	}
	free(fds);
}

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} kt_perf_names[] = {
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

int kt_rec_counter_open(struct kernel_tracer *kt, const char *name, unsigned int *ret_slot,
			char *why, size_t len)
{
	struct kr_bpf *skel = kt->skel->skel;
	struct bpf_map *maps[KR_MAX_CTR] = { skel->maps.kr_ctr0, skel->maps.kr_ctr1,
					     skel->maps.kr_ctr2, skel->maps.kr_ctr3 };
	struct kt_counter *ctr;
	size_t i;
	int err = 0;

	for (unsigned int s = 0; s < kt->nctr; s++) {
		if (!strcmp(kt->ctr[s].name, name)) {
			*ret_slot = s;
			return 0;
		}
	}
	for (i = 0; i < ARRAY_SIZE(kt_perf_names); i++)
		if (!strcmp(kt_perf_names[i].name, name))
			break;
	if (i == ARRAY_SIZE(kt_perf_names)) {
		snprintf(why, len, "Unknown perf counter 'perf:cpu:%s'", name);
		return -EINVAL;
	}
	if (kt->nctr == KR_MAX_CTR) {
		snprintf(why, len, "At most %d perf counters can be recorded", KR_MAX_CTR);
		return -E2BIG;
	}
	ctr = &kt->ctr[kt->nctr];
	ctr->fds = calloc(kt->ncpu, sizeof(int));
	if (!ctr->fds)
		return -ENOMEM;
	for (unsigned int c = 0; c < kt->ncpu; c++) {
		struct perf_event_attr attr = {
			.type = kt_perf_names[i].type,
			.size = sizeof(attr),
			.config = kt_perf_names[i].config,
			.pinned = 1,
		};

		ctr->fds[c] = kt_perf_event_open(&attr, -1, (int)c);
		if (ctr->fds[c] < 0) {
			err = -errno;
			if (kt_perf_names[i].type == PERF_TYPE_HARDWARE &&
			    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
				snprintf(
					why, len,
					"Hardware PMU not available: 'perf:cpu:%s' needs a CPU PMU "
					"(no /sys/bus/event_source/devices/cpu on this machine, "
					"e.g. a VM without PMU passthrough)",
					name);
			else
				snprintf(why, len, "Failed to open perf counter '%s' on CPU %u: %s",
					 name, c, strerror(-err));
			break;
		}
		if (bpf_map_update_elem(bpf_map__fd(maps[kt->nctr]), &c, &ctr->fds[c], BPF_ANY)) {
			err = -errno;
			snprintf(why, len, "Failed to register perf counter '%s': %s", name,
				 strerror(-err));
			break;
		}
	}
	if (err) {
		for (unsigned int c = 0; c < kt->ncpu; c++)
			if (ctr->fds[c] > 0)
				close(ctr->fds[c]);
		free(ctr->fds);
		ctr->fds = NULL;
		return err;
	}
	snprintf(ctr->name, sizeof(ctr->name), "%s", name);
	ctr->type = kt_perf_names[i].type;
	ctr->config = kt_perf_names[i].config;
	*ret_slot = kt->nctr++;
	skel->bss->kr_nctr = kt->nctr;
	return 0;
}

uint64_t kt_rec_lost(struct kernel_tracer *kt, unsigned int slot, unsigned int cpu)
{
	uint64_t *vals = calloc(kt->ncpu, sizeof(*vals));
	uint64_t v = 0;

	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(kt->skel->skel->maps.kr_lost), &slot, vals) &&
	    cpu < kt->ncpu)
		v = vals[cpu];
	free(vals);
	return v;
}

void kt_rec_lost_reset(struct kernel_tracer *kt, unsigned int slot)
{
	uint64_t *zeros = calloc(kt->ncpu, sizeof(*zeros));

	/* Per-CPU array values are written whole for every CPU at once. */
	if (zeros)
		bpf_map_update_elem(bpf_map__fd(kt->skel->skel->maps.kr_lost), &slot, zeros,
				    BPF_ANY);
	free(zeros);
}

void kt_rec_run_stats(struct kernel_tracer *kt, uint64_t *ret_runs, uint64_t *ret_ns)
{
	struct kr_bpf *skel = kt->skel->skel;
	struct bpf_program *progs[3] = { skel->progs.kr_tp, skel->progs.kr_sys_enter,
					 skel->progs.kr_sys_exit };

	*ret_runs = *ret_ns = 0;
	for (int i = 0; i < 3; i++) {
		struct bpf_prog_info info;
		uint32_t ilen = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &ilen)) {
			*ret_runs += info.run_cnt;
			*ret_ns += info.run_time_ns;
		}
	}
}

uint64_t kt_rec_recursion_misses(struct kernel_tracer *kt)
{
	struct kr_bpf *skel = kt->skel->skel;
	struct bpf_program *progs[3] = { skel->progs.kr_tp, skel->progs.kr_sys_enter,
					 skel->progs.kr_sys_exit };
	uint64_t total = 0;

	for (int i = 0; i < 3; i++) {
		struct bpf_prog_info info;
		uint32_t ilen = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &ilen))
			total += info.recursion_misses;
	}
	return total;
}

static int kt_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Detaching a perf-based tracepoint link takes ~130 ms in the kernel,
 * serialized: ~2300 links take minutes. Hand the links to a grandchild that
 * closes them in the background, so neither the caller nor its exit waits.
 * The reaper must hold the last reference: it waits for EOF on a pipe, which
 * comes once the caller has closed its own copies.
 */
void kt_rec_detach_all(struct kernel_tracer *kt)
{
	size_t n = 0, cap = kt->tps.n + 3;
	int *keep = malloc(cap * sizeof(*keep));
	int sync[2] = { -1, -1 };
	pid_t child = -1;

	for (size_t i = 0; keep && i < kt->tps.n; i++)
		if (kt->tp_link[i] >= 0)
			keep[n++] = kt->tp_link[i];
	for (int i = 0; keep && i < 2; i++)
		if (kt->sc_link[i] >= 0)
			keep[n++] = kt->sc_link[i];
	if (keep && n > 4 && !pipe2(sync, O_CLOEXEC)) {
		keep[n] = sync[0];
		qsort(keep, n + 1, sizeof(*keep), kt_int_cmp);
		child = fork();
		if (child == 0) {
			/* Only async-signal-safe calls from here on. */
			unsigned int from = 0;
			char c;

			if (fork() != 0)
				_exit(0);
			setsid();
			/* Keep the links and the pipe's read end; drop the rest (sockets, pipes). */
			for (size_t k = 0; k <= n; k++) {
				if ((unsigned int)keep[k] > from)
					syscall(__NR_close_range, from, (unsigned int)keep[k] - 1,
						0);
				from = (unsigned int)keep[k] + 1;
			}
			syscall(__NR_close_range, from, ~0U, 0);
			while (read(sync[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0); /* the kernel releases the links, slowly, here */
		}
		if (child > 0)
			waitpid(child, NULL, 0);
		close(sync[0]);
	}
	/* Cheap when the reaper holds a reference; the slow path when fork failed. */
	for (size_t i = 0; i < kt->tps.n; i++)
		if (kt->tp_link[i] >= 0)
			close(kt->tp_link[i]);
	for (int i = 0; i < 2; i++)
		if (kt->sc_link[i] >= 0)
			close(kt->sc_link[i]);
	if (sync[1] >= 0)
		close(sync[1]);
	free(keep);
	for (size_t i = 0; i < kt->tps.n; i++)
		kt->tp_link[i] = -1;
	kt->sc_link[0] = kt->sc_link[1] = -1;
	kt->nattached = 0;
}

void kt_rec_close(struct kernel_tracer *kt)
{
	if (!kt->skel)
		return;
	for (unsigned int s = 0; s < kt->nctr; s++) {
		for (unsigned int c = 0; c < kt->ncpu; c++)
			if (kt->ctr[s].fds[c] >= 0)
				close(kt->ctr[s].fds[c]);
		free(kt->ctr[s].fds);
	}
	kt->nctr = 0;
	kr_bpf__destroy(kt->skel->skel);
	free(kt->skel);
	kt->skel = NULL;
}

static int kt_map_fd(struct kernel_tracer *kt, enum kt_map map)
{
	struct kr_bpf *skel = kt->skel->skel;

	switch (map) {
	case KT_MAP_TRACK:
		return bpf_map__fd(skel->maps.kr_track);
	case KT_MAP_FILT:
		return bpf_map__fd(skel->maps.kr_filt);
	default:
		return bpf_map__fd(skel->maps.kr_fprog);
	}
}

int kt_rec_map_update(struct kernel_tracer *kt, enum kt_map map, const void *key, const void *value)
{
	return bpf_map_update_elem(kt_map_fd(kt, map), key, value, BPF_ANY) ? -errno : 0;
}

int kt_rec_map_delete(struct kernel_tracer *kt, enum kt_map map, const void *key)
{
	return bpf_map_delete_elem(kt_map_fd(kt, map), key) ? -errno : 0;
}

struct kf_globals *kt_rec_kf_globals(struct kernel_tracer *kt)
{
	return &kt->skel->skel->bss->kf_g;
}
