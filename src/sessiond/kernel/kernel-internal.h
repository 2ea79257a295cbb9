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

struct kt_counter {
	char name[48]; /* "page-faults" */
	uint32_t type;
	uint64_t config;
	int *fds; /* one per CPU */
};

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
	unsigned int nctr;
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
int kt_rec_counter_open(struct kernel_tracer *kt, const char *name, unsigned int *ret_slot,
			char *why, size_t len);
uint64_t kt_rec_lost(struct kernel_tracer *kt, unsigned int slot, unsigned int cpu);
/* Zero slot's loss counters: a new channel in it starts with none. */
void kt_rec_lost_reset(struct kernel_tracer *kt, unsigned int slot);
uint64_t kt_rec_recursion_misses(struct kernel_tracer *kt);
/* Runs and run time of the recorder's programs (counted while BPF stats are enabled). */
void kt_rec_run_stats(struct kernel_tracer *kt, uint64_t *ret_runs, uint64_t *ret_ns);
void kt_rec_detach_all(struct kernel_tracer *kt);

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
