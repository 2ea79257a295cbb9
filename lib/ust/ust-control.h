/* SPDX-License-Identifier: MIT */
/*
 * Control side of libstrata-ust: what the app-side registration code (the
 * part of lib/ust that talks to strata-sessiond) and the tests call. None of
 * it is on the fast path; every function may take the registry lock and
 * allocate. Thread-safe. Returns >= 0 or -errno.
 *
 * Typical sequence, driven by the daemon:
 *   1. ust_registry_foreach() + ust_registry_set_listener(): send every
 *      registered event (full name, loglevel, EMF URI, field descriptors)
 *      to the daemon, and the ones that appear later (dlopen).
 *   2. ust_channel_create() with the backend the daemon's buffers map to,
 *      the channel's contexts and clock.
 *   3. ust_event_set_bindings(name, owner, {channel, id}...) for each
 *      enabled event, with the ids the daemon assigned in each channel's
 *      metadata.
 *   4. ust_event_set_bindings() / ust_channel_detach() / ust_owner_clear()
 *      on stop, destroy or when the daemon goes away.
 */
#ifndef STRATA_UST_CONTROL_H
#define STRATA_UST_CONTROL_H

#include <stdint.h>

#include <strata/ust-events.h>

#include "ust/ust-internal.h"

struct ust_channel_config {
	const struct ust_backend_ops *ops;
	void *backend; /* owned by the caller; must outlive the process's use of it */
	enum ust_clock_kind clock;
	uint32_t n_ctx;
	const enum ust_context_type *ctx; /* recorded in this order */
	const struct ust_perf_ctx *perf; /* n_ctx entries, for UST_CTX_PERF_THREAD; or NULL */
};

/* -EINVAL for an unknown context, too many, or a missing backend. */
int ust_channel_create(const struct ust_channel_config *cfg, struct ust_channel **ret_chan);

/* Stop every event recording into chan (the channel itself stays allocated). */
void ust_channel_detach(struct ust_channel *chan);

/*
 * What owner records "provider:name" into: exactly these n (channel, id)
 * pairs, one per channel (a record per channel per event), replacing what
 * owner asked before; n == 0 stops it. The other owners' bindings stay.
 * -ENOENT if no such event is registered, -ENOMEM (nothing changed).
 */
int ust_event_set_bindings(const char *full_name, enum ust_owner owner, const struct ust_binding *b,
			   uint32_t n);

/* Drop every binding owner asked for (its daemon is gone). */
void ust_owner_clear(enum ust_owner owner);

/*
 * For tests and in-process users (owner UST_OWNER_LOCAL): record
 * "provider:name" into chan with the given id, in place of the channel it
 * recorded into before; disable stops it. -ENOENT if no such event.
 */
int ust_event_enable(const char *full_name, struct ust_channel *chan, uint32_t id);
int ust_event_disable(const char *full_name);

/* What the registry tells about one event. */
struct ust_event_info {
	const char *full_name;
	const struct strata_event_desc *desc;
	int loglevel;
	const char *model_emf_uri; /* NULL if none */
	int enabled;
};

typedef int (*ust_event_visit_fn)(const struct ust_event_info *info, void *arg);

/* Visit every registered event; stops at and returns the first nonzero. */
int ust_registry_foreach(ust_event_visit_fn fn, void *arg);

/*
 * Called after a provider registers or unregisters (from whatever thread
 * did it, with no lock held). One listener; NULL removes it.
 */
void ust_registry_set_listener(void (*fn)(void *arg), void *arg);

/* Call sites of "provider:name" whose state word is set (for tests). */
int ust_tracepoint_state(const char *full_name);

#endif
