/* SPDX-License-Identifier: MIT */
/*
 * libstrata-ust internals: the runtime side of the descriptors of
 * <strata/ust-events.h>, channels, and the backend seam.
 *
 *   call site --state--> probe (app) --strata_ust_event_reserve()--> event.c
 *        event.c: bindings = event->bindings (one acquire load); then for
 *                 each binding (channel):
 *                 backend->reserve(): header (id, timestamp) in the buffer
 *                 context fields of the channel, in order
 *        probe:   payload
 *        event.c: backend->commit(), on to the next binding
 *                 (strata_ust_event_commit_next())
 *
 * A backend owns the buffer memory: "mem" (backend-mem.c, a private buffer
 * for tests and in-process use) or the shared per-CPU ring buffer once the
 * daemon hands one over. Whatever the backend, a record is one contiguous
 * span: the event header (header.h), then the channel's contexts, then the
 * payload.
 *
 * Lifetime: events, binding snapshots and channels are never freed while the process
 * runs (a probe may still be using them on another thread: there is no
 * grace period on the fast path); unregistering only disconnects them.
 */
#ifndef STRATA_UST_INTERNAL_H
#define STRATA_UST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <strata/ust-events.h>

#include "ust/clock.h"
#include "ust/context.h"

struct ust_backend_ops {
	/*
	 * Reserve header + len bytes for event id, read the timestamp with
	 * clock inside the reservation (so that records are in time order
	 * within one buffer), write the event header and return the first byte
	 * after it; NULL when the record is dropped (the backend counts it).
	 * Lock-free, async-signal-safe, no allocation.
	 */
	void *(*reserve)(void *backend, struct strata_ust_ctx *ctx, uint32_t id, size_t len,
			 enum ust_clock_kind clock);
	/* Publish the record reserve() returned. */
	void (*commit)(void *backend, struct strata_ust_ctx *ctx);
};

/* Where records go: one per (session, channel) in the process. */
struct ust_channel {
	const struct ust_backend_ops *ops;
	void *backend;
	enum ust_clock_kind clock;
	uint32_t n_ctx;
	uint8_t ctx[UST_CTX_MAX]; /* enum ust_context_type, in record order */
	struct ust_perf_ctx perf[UST_CTX_MAX]; /* ctx[i] == UST_CTX_PERF_THREAD: which */
	uint32_t ctx_len; /* bytes of all context fields (<= UST_CTX_BYTES_MAX) */
	bool ctx_per_thread; /* every context is constant in a thread (no ip, no counter) */
	struct ust_channel *next; /* all channels, for lookup and teardown */
};

struct flt_linked;

/*
 * One channel an event records into, and the event's id in that channel's
 * stream; with filters, the record is written only when one of them accepts
 * the event's arguments (the rules of one channel are OR-ed). Filters are
 * never freed, like the snapshots that point at them.
 */
struct ust_binding {
	struct ust_channel *chan;
	uint32_t id;
	uint32_t nr_filters; /* 0: every event */
	const struct flt_linked *const *filters;
};

/*
 * Every channel an event records into: an immutable snapshot, replaced
 * whole (release store of ust_event.bindings) whenever a daemon changes
 * what the event records into, never modified in place. A probe reads the
 * snapshot once (acquire) and writes one record per binding, so two
 * sessions, or two channels of one session, each get every event.
 *
 *   ust_event.bindings --> [ n | {chan A, id 3} {chan B, id 0} ... ]
 *                          (old snapshots go to a retired list: a probe on
 *                           another thread may still be walking one)
 */
struct ust_bindings {
	uint32_t n;
	struct ust_bindings *next_retired;
	struct ust_binding b[];
};

/*
 * Who asked for a binding: the tests and in-process users (LOCAL), and each
 * daemon connection of comm.c (the user's own daemon, root's). What the
 * event records into is the union of its owners' bindings.
 */
enum ust_owner {
	UST_OWNER_LOCAL = 0,
	UST_OWNER_DAEMON0 = 1,
	UST_OWNER_DAEMON1 = 2,
	UST_OWNER_COUNT,
};

struct ust_event {
	/*
	 * Read by strata_ust_event_filtered() through the call site's data
	 * pointer: must stay the first member.
	 */
	uint32_t nr_filtered;
	uint32_t pad;
	const struct ust_bindings *bindings; /* atomic; NULL = disabled */
	struct ust_event *next;
	const struct strata_event_desc *desc;
	int loglevel;
	const char *model_emf_uri; /* NULL if none */
	/* Registry lock: what each owner asked for (malloc'd arrays). */
	struct ust_binding *owned[UST_OWNER_COUNT];
	uint32_t nr_owned[UST_OWNER_COUNT];
	char full_name[]; /* "provider:name" */
};

/* event.c */
void ust_context_fork_reset(void);

/* The $ctx names a user space filter may read (filter/filter.h), for flt_link_ust(). */
struct flt_ctx_desc;
extern const struct flt_ctx_desc *const ust_filter_ctx;
extern const size_t ust_filter_nr_ctx;
/*
 * Defined by the daemon protocol's app side when linked in (weak): called
 * once from the library constructor. Must return quickly and never block
 * the app (register asynchronously).
 */
void ust_comm_init(void);

/* debug.c: output only with STRATA_UST_DEBUG=1, async-signal-safe write(2). */
extern int ust_debug_enabled;
void ust_debug_init(void);
void ust_debug_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define ust_debug(...)                                      \
	do {                                                \
		if (__builtin_expect(ust_debug_enabled, 0)) \
			ust_debug_printf(__VA_ARGS__);      \
	} while (0)

#endif
