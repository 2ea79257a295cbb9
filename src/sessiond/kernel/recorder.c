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
#include <bpf/btf.h>
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

/* Whether the kernel loads a program of this type and attach type (a no-op one). */
static bool kt_prog_type_loads(enum bpf_prog_type type, enum bpf_attach_type attach)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach);
	int fd = bpf_prog_load(type, "kr_probe_test", "GPL", insns, ARRAY_SIZE(insns), &opts);

	if (fd < 0)
		return false;
	close(fd);
	return true;
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
	bpf_map__set_max_entries(skel->maps.kr_ctrs, KR_MAX_CTR * kt->ncpu);
	/* Kernels before 5.18 refuse the kprobe.multi attach type at load. */
	kt->have_kprobe_multi = kt_prog_type_loads(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI);
	bpf_program__set_autoload(skel->progs.kr_probe_multi, kt->have_kprobe_multi);
	/* Bound to one function at load: loaded per probe (kt_attach_fentry()). */
	bpf_program__set_autoload(skel->progs.kr_fentry, false);
	bpf_program__set_autoload(skel->progs.kr_fexit, false);
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

int kt_rec_counter_get(struct kernel_tracer *kt, uint32_t type, uint64_t config, const char *name,
		       unsigned int *ret_slot, char *why, size_t len)
{
	int map = bpf_map__fd(kt->skel->skel->maps.kr_ctrs);
	unsigned int free_slot = KR_MAX_CTR;
	struct kt_counter *ctr;
	int err;

	/* Channels recording the same counter share its slot. */
	for (unsigned int s = 0; s < KR_MAX_CTR; s++) {
		if (kt->ctr[s].refs && kt->ctr[s].type == type && kt->ctr[s].config == config) {
			kt->ctr[s].refs++;
			*ret_slot = s;
			return 0;
		}
		if (!kt->ctr[s].refs && free_slot == KR_MAX_CTR)
			free_slot = s;
	}
	if (free_slot == KR_MAX_CTR) {
		snprintf(why, len,
			 "Failed to add '%s': at most %d distinct perf counters can be recorded at "
			 "once over all kernel channels; destroy a session using others first",
			 name, KR_MAX_CTR);
		return -E2BIG;
	}
	ctr = &kt->ctr[free_slot];
	ctr->fds = calloc(kt->ncpu, sizeof(int));
	if (!ctr->fds)
		return -ENOMEM;
	err = kt_counter_open(type, config, name, kt->ncpu, ctr->fds, why, len);
	if (err) {
		free(ctr->fds);
		ctr->fds = NULL;
		return err;
	}
	for (unsigned int c = 0; c < kt->ncpu; c++) {
		uint32_t idx = free_slot * kt->ncpu + c;

		if (bpf_map_update_elem(map, &idx, &ctr->fds[c], BPF_ANY)) {
			err = -errno;
			snprintf(why, len, "Failed to register perf counter '%s': %s", name,
				 strerror(-err));
			ctr->refs = 1;
			ctr->type = type;
			ctr->config = config;
			kt_rec_counter_put(kt, free_slot);
			return err;
		}
	}
	ctr->refs = 1;
	ctr->type = type;
	ctr->config = config;
	*ret_slot = free_slot;
	return 0;
}

void kt_rec_counter_put(struct kernel_tracer *kt, unsigned int slot)
{
	struct kt_counter *ctr;
	int map;

	if (slot >= KR_MAX_CTR)
		return;
	ctr = &kt->ctr[slot];
	if (!ctr->refs || --ctr->refs)
		return;
	map = kt->skel ? bpf_map__fd(kt->skel->skel->maps.kr_ctrs) : -1;
	for (unsigned int c = 0; c < kt->ncpu; c++) {
		uint32_t idx = slot * kt->ncpu + c;

		if (map >= 0)
			bpf_map_delete_elem(map, &idx);
		if (ctr->fds[c] >= 0)
			close(ctr->fds[c]);
	}
	free(ctr->fds);
	*ctr = (struct kt_counter){ 0 };
}

void kt_rec_set_counters(struct kernel_tracer *kt, unsigned int chan_slot, unsigned int mask)
{
	__atomic_store_n(&kt->skel->skel->bss->kr_chan_ctr[chan_slot], mask, __ATOMIC_RELEASE);
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
	struct bpf_program *progs[5] = { skel->progs.kr_tp, skel->progs.kr_sys_enter,
					 skel->progs.kr_sys_exit, skel->progs.kr_probe,
					 skel->progs.kr_probe_multi };

	*ret_runs = *ret_ns = 0;
	for (size_t i = 0; i < ARRAY_SIZE(progs); i++) {
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
	struct bpf_program *progs[5] = { skel->progs.kr_tp, skel->progs.kr_sys_enter,
					 skel->progs.kr_sys_exit, skel->progs.kr_probe,
					 skel->progs.kr_probe_multi };
	uint64_t total = 0;

	for (size_t i = 0; i < ARRAY_SIZE(progs); i++) {
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
 * Detaching a perf-based link (tracepoint, uprobe, kprobe) takes ~120-130 ms
 * in the kernel, serialized: ~2300 tracepoint links take minutes, a session
 * with 30 function probes 7 s. Hand the links to a grandchild that closes
 * them in the background, so neither the caller nor its exit waits. The
 * reaper must hold the last reference: it waits for EOF on a pipe, which
 * comes once the caller has closed its own copies.
 */
void kt_rec_reap_links(int *links, size_t n, size_t min)
{
	int *keep = malloc((n + 1) * sizeof(*keep));
	int sync[2] = { -1, -1 };
	pid_t child = -1;
	size_t k = 0;

	for (size_t i = 0; keep && i < n; i++)
		if (links[i] >= 0)
			keep[k++] = links[i];
	if (keep && k >= min && k && !pipe2(sync, O_CLOEXEC)) {
		keep[k] = sync[0];
		qsort(keep, k + 1, sizeof(*keep), kt_int_cmp);
		child = fork();
		if (child == 0) {
			/* Only async-signal-safe calls from here on. */
			unsigned int from = 0;
			char c;

			if (fork() != 0)
				_exit(0);
			setsid();
			/* Keep the links and the pipe's read end; drop the rest (sockets, pipes). */
			for (size_t j = 0; j <= k; j++) {
				if ((unsigned int)keep[j] > from)
					syscall(__NR_close_range, from, (unsigned int)keep[j] - 1,
						0);
				from = (unsigned int)keep[j] + 1;
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
	for (size_t i = 0; i < n; i++) {
		if (links[i] >= 0)
			close(links[i]);
		links[i] = -1;
	}
	if (sync[1] >= 0)
		close(sync[1]);
	free(keep);
}

void kt_rec_detach_all(struct kernel_tracer *kt)
{
	kt_rec_reap_links(kt->tp_link, kt->tps.n, 5);
	kt_rec_reap_links(kt->sc_link, 2, 5);
	kt->nattached = 0;
}

void kt_rec_close(struct kernel_tracer *kt)
{
	if (!kt->skel)
		return;
	/* Channels hold the counters: all are gone by now. */
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

/* --- probes -------------------------------------------------------------- */

int kt_rec_probe_desc(struct kernel_tracer *kt, uint32_t key, unsigned int flags)
{
	struct kr_probe_desc d = { .flags = flags };
	uint32_t idx = key - KR_KEY_PROBE;

	if (idx >= KR_MAX_PROBES)
		return -EINVAL;
	return bpf_map_update_elem(bpf_map__fd(kt->skel->skel->maps.kr_probes), &idx, &d, BPF_ANY) ?
		       -errno :
		       0;
}

/* A dynamic PMU's type (uprobe, kprobe): >= 0, or -errno when the kernel has none. */
static int kt_pmu_type(const char *pmu)
{
	char path[128];
	_cleanup_free_ char *text = NULL;
	int r;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	r = kt_read_file(path, &text, NULL);
	return r < 0 ? r : (int)strtol(text, NULL, 10);
}

/* The config bit a PMU format names ("config:0"); default when unreadable. */
static int kt_pmu_bit(const char *pmu, const char *field, int dflt)
{
	char path[160];
	_cleanup_free_ char *text = NULL;
	int bit;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, field);
	if (kt_read_file(path, &text, NULL) < 0 || sscanf(text, "config:%d", &bit) != 1)
		return dflt;
	return bit;
}

/* perf_event_open a probe PMU event, link the probe program with key as cookie. */
static int kt_attach_pmu(struct kernel_tracer *kt, struct perf_event_attr *attr, uint32_t key)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = key);
	int pfd, link, err;

	/* pid -1, cpu 0: the probe fires in every process on every CPU (a system-wide event). */
	pfd = kt_perf_event_open(attr, -1, 0);
	if (pfd < 0)
		return -errno;
	link = bpf_link_create(bpf_program__fd(kt->skel->skel->progs.kr_probe), pfd, BPF_PERF_EVENT,
			       &opts);
	err = -errno;
	close(pfd);
	return link < 0 ? err : link;
}

int kt_rec_attach_uprobe(struct kernel_tracer *kt, uint32_t key, const char *path, uint64_t offset,
			 uint64_t ref_ctr_offset, bool ret, char *why, size_t len)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = kt_pmu_type("uprobe"), link;

	if (type < 0) {
		snprintf(why, len,
			 "Failed to attach a uprobe: the kernel has no uprobe PMU "
			 "(/sys/bus/event_source/devices/uprobe: CONFIG_UPROBE_EVENTS)");
		return -ENOTSUP;
	}
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = offset;
	if (ret)
		attr.config |= 1ULL << kt_pmu_bit("uprobe", "retprobe", 0);
	/* USDT semaphores: the kernel counts the probe's users there while attached. */
	if (ref_ctr_offset)
		attr.config |= ref_ctr_offset << kt_pmu_bit("uprobe", "ref_ctr_offset", 32);
	link = kt_attach_pmu(kt, &attr, key);
	if (link < 0)
		snprintf(why, len, "Failed to attach a %s to '%s' at offset 0x%llx: %s",
			 ret ? "uretprobe" : "uprobe", path, (unsigned long long)offset,
			 strerror(-link));
	return link;
}

static const char *kt_kprobe_multi_why(int err)
{
	switch (err) {
	case -EOPNOTSUPP:
		return "the kernel has no fprobe (CONFIG_FPROBE)";
	case -EPERM:
	case -EACCES:
		return "not permitted by this kernel";
	case -ESRCH:
	case -ENOENT:
		return "the function cannot be traced (not in available_filter_functions)";
	default:
		return strerror(-err);
	}
}

static const char *kt_fentry_err(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "BPF trampolines not permitted by this kernel";
	case -ESRCH:
	case -ENOENT:
		return "the function has no BTF entry (an address, a syscall wrapper, an "
		       "inlined function)";
	case -EINVAL:
		return "the kernel refuses the program (cookies on fentry need Linux >= 5.19)";
	default:
		return strerror(-err);
	}
}

/*
 * fentry/fexit: a program bound to sym when loaded, so another instance of
 * the recorder object holding only kr_fentry or kr_fexit, sharing every map
 * of the loaded recorder (rings, enable bitmaps, knobs, counters). The link
 * keeps its program; the instance is dropped once attached.
 */
static int kt_attach_fentry(struct kernel_tracer *kt, uint32_t key, const char *sym, bool ret,
			    char *why, size_t len)
{
	struct kr_bpf *s = kr_bpf__open();
	struct bpf_program *prog, *p;
	struct bpf_map *m;
	int err = 0, link = -1;

	if (!s) {
		err = -errno;
		snprintf(why, len, "cannot open the recorder: %s", strerror(-err));
		return err;
	}
	prog = ret ? s->progs.kr_fexit : s->progs.kr_fentry;
	bpf_object__for_each_program(p, s->obj) bpf_program__set_autoload(p, p == prog);
	err = bpf_program__set_attach_target(prog, 0, sym);
	bpf_object__for_each_map(m, s->obj)
	{
		struct bpf_map *orig =
			bpf_object__find_map_by_name(kt->skel->skel->obj, bpf_map__name(m));

		if (!err)
			err = orig ? bpf_map__reuse_fd(m, bpf_map__fd(orig)) : -ENOENT;
	}
	if (!err)
		err = kr_bpf__load(s);
	if (!err) {
		LIBBPF_OPTS(bpf_trace_opts, o, .cookie = key);
		struct bpf_link *l = bpf_program__attach_trace_opts(prog, &o);

		if (!l) {
			err = -errno;
		} else {
			/* Keep the kernel link, drop libbpf's wrapper. */
			link = dup(bpf_link__fd(l));
			err = link < 0 ? -errno : 0;
			bpf_link__destroy(l);
		}
	}
	kr_bpf__destroy(s);
	if (err)
		snprintf(why, len, "%s (%s)", kt_fentry_err(err), strerror(-err));
	return err ? err : link;
}

int kt_rec_attach_kprobe(struct kernel_tracer *kt, uint32_t key, const char *sym, uint64_t addr,
			 uint64_t offset, bool ret, char *why, size_t len)
{
	char multi_why[160], pmu_why[200], fentry_why[200];
	int type, link;

	/* kprobe.multi (fprobe): function entries only. */
	if (!kt->have_kprobe_multi) {
		snprintf(multi_why, sizeof(multi_why),
			 "the kernel does not know the attach type (Linux < 5.18)");
	} else if (offset) {
		snprintf(multi_why, sizeof(multi_why), "function entries only, not +%llu",
			 (unsigned long long)offset);
	} else {
		unsigned long long cookie = key;
		unsigned long a = (unsigned long)addr;
		LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .syms = sym ? &sym : NULL,
			    .addrs = sym ? NULL : &a, .cnt = 1, .cookies = &cookie,
			    .retprobe = ret);
		struct bpf_link *l = bpf_program__attach_kprobe_multi_opts(
			kt->skel->skel->progs.kr_probe_multi, NULL, &mo);

		if (l) {
			/* Keep the kernel link, drop libbpf's wrapper. */
			link = dup(bpf_link__fd(l));
			bpf_link__destroy(l);
			if (link >= 0)
				return link;
		}
		snprintf(multi_why, sizeof(multi_why), "%s", kt_kprobe_multi_why(-errno));
	}
	type = kt_pmu_type("kprobe");
	if (type < 0) {
		snprintf(pmu_why, sizeof(pmu_why),
			 "the kernel has no kprobe PMU (/sys/bus/event_source/devices/kprobe: "
			 "CONFIG_KPROBE_EVENTS)");
	} else {
		struct perf_event_attr attr = { .size = sizeof(attr), .type = (uint32_t)type };

		attr.config1 = sym ? (uint64_t)(uintptr_t)sym : 0;
		attr.config2 = sym ? offset : addr;
		if (ret)
			attr.config |= 1ULL << kt_pmu_bit("kprobe", "retprobe", 0);
		link = kt_attach_pmu(kt, &attr, key);
		if (link >= 0)
			return link;
		snprintf(pmu_why, sizeof(pmu_why), "%s", strerror(-link));
	}
	/* BPF trampolines: functions with BTF, at their entry. */
	if (!sym || offset) {
		snprintf(fentry_why, sizeof(fentry_why), "%s",
			 sym ? "function entries only" : "functions by name only (BTF)");
	} else {
		link = kt_attach_fentry(kt, key, sym, ret, fentry_why, sizeof(fentry_why));
		if (link >= 0)
			return link;
	}
	snprintf(why, len,
		 "Kernel %s probes are not available on this kernel: kprobe.multi: %s; kprobes: "
		 "%s; fentry/fexit: %s",
		 ret ? "function return" : "function", multi_why, pmu_why, fentry_why);
	return -ENOTSUP;
}
