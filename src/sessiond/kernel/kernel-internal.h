/* SPDX-License-Identifier: MIT */
/* Objects shared by the kernel-domain files (kernel.c, recorder.c, consumer.c, metadata.c). */
#ifndef STRATA_KERNEL_INTERNAL_H
#define STRATA_KERNEL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "encode.h"
#include "filter-abi.h"
#include "kernel.h"
#include "recorder-abi.h"
#include "tracefs.h"

enum kt_ctx_type {
	KT_CTX_PID,
	KT_CTX_TID,
	KT_CTX_PROCNAME,
	KT_CTX_PPID,
	KT_CTX_VPID,
	KT_CTX_VTID,
	KT_CTX_VPPID,
	KT_CTX_PRIO,
	KT_CTX_NICE,
	KT_CTX_HOSTNAME,
	KT_CTX_PERF,
};

struct kt_ctx {
	enum kt_ctx_type type;
	unsigned int ctr; /* KT_CTX_PERF: counter slot */
	char field[64]; /* CTF field name without the leading '_' */
};

#define KT_MAX_CTX 16

/* A counter slot of the recorder: one perf event per CPU, shared by channels. */
struct kt_counter {
	uint32_t type;
	uint64_t config;
	unsigned int refs; /* channels recording it; 0: free */
	int *fds; /* one per CPU */
};

/*
 * A probe event rule of a channel (probe.c): kprobes, kretprobes, uprobes,
 * uretprobes, USDT sites. Its keys belong to the channel and are freed,
 * its links closed, with the channel.
 */
#define KT_MAX_PROBES 256 /* probe rules per channel */
struct kt_probe {
	char *name; /* record name as given */
	char *location; /* as given */
	enum kernel_event_type type;
	uint32_t keys[2]; /* the event's key, or entry and return; KT_NO_KEY if none */
	int *links;
	size_t nlinks;
};
#define KT_NO_KEY UINT32_MAX

struct kt_bpf;

struct kernel_tracer {
	char tracefs[256];
	struct kt_tracepoint_list tps;
	unsigned int ncpu;
	pid_t self;
	/* Event classes by key, created on first enable, published with release stores. */
	_Atomic(struct kt_class *) classes[KR_MAX_KEYS];
	int *tp_link; /* per tracepoint index: link fd or -1 */
	int sc_link[2]; /* raw_syscalls sys_enter, sys_exit */
	unsigned int nattached;
	struct kt_counter ctr[KR_MAX_CTR];
	uint64_t probe_keys[KR_MAX_PROBES / 64]; /* probe keys in use (bit i: KR_KEY_PROBE + i) */
	bool have_kprobe_multi; /* the recorder's kprobe.multi program loaded */
	struct kernel_channel *chans[KR_MAX_CHAN];
	struct kt_bpf *skel;
	uint64_t (*recursion_misses)(struct kernel_tracer *kt);
};

struct kt_consumer;

struct kernel_channel {
	struct kernel_tracer *kt;
	unsigned int slot;
	char name[64];
	struct kernel_channel_attr attr;
	kernel_record_cb cb;
	void *opaque;

	/* Key -> CTF id (-1: not in this channel); read by the consumer thread. */
	_Atomic int32_t id_of_key[KR_MAX_KEYS];
	uint32_t key_of_id[KR_MAX_KEYS];
	atomic_uint nids;
	bool enabled[KR_MAX_KEYS];

	struct kt_ctx ctx[KT_MAX_CTX];
	unsigned int nctx;
	unsigned int ctr_mask; /* counter slots the contexts hold */
	struct kt_probe *probes;
	unsigned int nprobes;
	bool started;
	bool compact; /* frozen at first start */
	bool frozen;
	uint64_t recursion_base;

	int *ring_fds; /* per CPU */
	struct kt_consumer *consumer;
	struct kt_filters *filters; /* filtered rules and trackers (filter.c), or NULL */
};

/* recorder.c: the BPF object and its maps. */
int kt_rec_open(struct kernel_tracer *kt, char *why, size_t len);
void kt_rec_close(struct kernel_tracer *kt);
int kt_rec_attach_tp(struct kernel_tracer *kt, unsigned int idx, const struct kt_format *f);
int kt_rec_attach_syscalls(struct kernel_tracer *kt);
void kt_rec_set_enabled(struct kernel_tracer *kt, unsigned int slot, uint32_t key, bool on);
void kt_rec_set_active(struct kernel_tracer *kt, unsigned int slot, bool on);
/* Tests: spin ns in the recorder before committing a record of key (0 ns: off). */
void kt_rec_set_test_delay(struct kernel_tracer *kt, uint32_t key, uint64_t ns);
/* Let perf sample the tracepoints we are attached to (default on; see recorder.bpf.c). */
void kt_rec_set_perf_passthrough(struct kernel_tracer *kt, bool on);
void kt_rec_set_host(struct kernel_tracer *kt, unsigned int slot, bool on);
int kt_rec_rings_create(struct kernel_tracer *kt, unsigned int slot, uint64_t size, uint64_t wake,
			int **ret_fds);
void kt_rec_rings_destroy(struct kernel_tracer *kt, unsigned int slot, int *fds);
/* A counter slot for (type, config), opened or shared; released with _put. */
int kt_rec_counter_get(struct kernel_tracer *kt, uint32_t type, uint64_t config, const char *name,
		       unsigned int *ret_slot, char *why, size_t len);
void kt_rec_counter_put(struct kernel_tracer *kt, unsigned int slot);
/* The counter slots a channel records with each of its events. */
void kt_rec_set_counters(struct kernel_tracer *kt, unsigned int chan_slot, unsigned int mask);

/* recorder.c: probes. Each returns a link fd, or -errno with why filled. */
int kt_rec_probe_desc(struct kernel_tracer *kt, uint32_t key, unsigned int flags);
int kt_rec_attach_uprobe(struct kernel_tracer *kt, uint32_t key, const char *path, uint64_t offset,
			 uint64_t ref_ctr_offset, bool ret, char *why, size_t len);
/*
 * A kprobe or kretprobe on sym+offset (sym NULL: the address addr), through
 * kprobe.multi where the kernel has it and offset is 0, else the kprobe PMU.
 * On failure why names every way tried and the kernel feature it lacks.
 */
int kt_rec_attach_kprobe(struct kernel_tracer *kt, uint32_t key, const char *sym, uint64_t addr,
			 uint64_t offset, bool ret, char *why, size_t len);

/* counters.c */
/* Open a counter on each of ncpu CPUs into fds; -errno and why on failure (none left open). */
int kt_counter_open(uint32_t type, uint64_t config, const char *name, unsigned int ncpu, int *fds,
		    char *why, size_t len);
struct ctx_perf;
/* A context name -> its kind and field (and counter for perf contexts). */
int kt_context_parse(const char *name, struct kt_ctx *ret, struct ctx_perf *ret_perf, char *why,
		     size_t len);

/* kernel.c: record key in the channel (giving it a CTF id the first time), or stop. */
int kt_channel_set_key(struct kernel_channel *ch, uint32_t key, bool on);

/* probe.c */
void kt_probes_release(struct kernel_channel *ch);
uint64_t kt_rec_lost(struct kernel_tracer *kt, unsigned int slot, unsigned int cpu);
/* Zero slot's loss counters: a new channel in it starts with none. */
void kt_rec_lost_reset(struct kernel_tracer *kt, unsigned int slot);
uint64_t kt_rec_recursion_misses(struct kernel_tracer *kt);
/* Runs and run time of the recorder's programs (counted while BPF stats are enabled). */
void kt_rec_run_stats(struct kernel_tracer *kt, uint64_t *ret_runs, uint64_t *ret_ns);
void kt_rec_detach_all(struct kernel_tracer *kt);
/*
 * Close links (set to -1), at least min of them through a background reaper
 * process (detaching costs ~120 ms each in the kernel), fewer directly.
 */
void kt_rec_reap_links(int *links, size_t n, size_t min);

/* recorder.c: the filter and tracker maps (filter-abi.h). */
enum kt_map { KT_MAP_TRACK, KT_MAP_FILT, KT_MAP_FPROG };
int kt_rec_map_update(struct kernel_tracer *kt, enum kt_map map, const void *key,
		      const void *value);
int kt_rec_map_delete(struct kernel_tracer *kt, enum kt_map map, const void *key);
/* The BPF side's kf_globals, in the mmap'ed .bss (NULL without BPF). */
struct kf_globals *kt_rec_kf_globals(struct kernel_tracer *kt);

/* kernel.c */
/* Create the key's class (attaching its tracepoint) and give it a CTF id in ch. */
int kt_key_prepare(struct kernel_channel *ch, uint32_t key);
/* Call fn for every key pattern/type selects (kernel_channel_enable_event()'s rules). */
typedef int (*kt_key_fn)(struct kernel_channel *ch, uint32_t key, void *opaque);
int kt_for_each_key(struct kernel_channel *ch, const char *pattern, enum kernel_event_type type,
		    kt_key_fn fn, void *opaque, char *why, size_t len);

/* filter.c, tracker.c: filtered rules and trackers of a channel. */
struct kt_rule {
	bool used;
	struct flt_program *prog;
	uint64_t covers[KR_BITMAP_WORDS]; /* keys this rule enables */
	uint64_t linked[KR_BITMAP_WORDS]; /* keys whose program is in kr_fprog */
};

struct kt_tracker {
	enum kernel_tracker_policy policy;
	uint32_t *ids;
	size_t n;
};

/* A channel's filtered rules and trackers (kernel_channel.filters). */
struct kt_filters {
	struct kt_rule rule[KF_MAX_RULES];
	struct kt_tracker tracker[KF_NATTR];
};

/* ch->filters, allocated on first use (NULL: -ENOMEM). */
struct kt_filters *kt_filters_of(struct kernel_channel *ch);
/* Every tracker back to ALL, its ids out of the map. */
void kt_tracker_release(struct kernel_channel *ch);
/* Publish key's state: enabled unfiltered, through filtered rules, or not at all. */
void kt_filter_sync_key(struct kernel_channel *ch, uint32_t key);
/* Drop the channel's rules and trackers from the BPF maps (its slot is reused). */
void kt_filter_channel_release(struct kernel_channel *ch);

/* consumer.c: one thread per channel. */
int kt_consumer_start(struct kernel_channel *ch);
/* Deliver all pending records (and the statedump when asked), then return. */
int kt_consumer_sync(struct kernel_channel *ch, bool statedump);
void kt_consumer_stop(struct kernel_channel *ch);
/* Times the consumer was woken by a ring (a feedback loop shows here first). */
uint64_t kt_consumer_wakeups(const struct kernel_channel *ch);

/* Encode a record's context for channel ch into out; returns bytes written. */
size_t kt_context_encode(const struct kernel_channel *ch, const struct kr_rec *r,
			 const uint64_t *ctr, const char *host, uint8_t *out, size_t cap);

/* statedump.c: walk /proc, emitting statedump records through emit(). */
typedef void (*kt_sd_emit)(void *opaque, uint32_t key, const void *payload, size_t len);
int kt_statedump_run(kt_sd_emit emit, void *opaque);

#endif
