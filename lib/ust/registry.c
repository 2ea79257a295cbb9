/* SPDX-License-Identifier: MIT */
/*
 * Probe and call-site registration, and the per-event enable state.
 *
 * Providers (STRATA_TRACEPOINT_CREATE_PROBES) and call-site sections
 * (STRATA_TRACEPOINT_DEFINE) register from constructors, in any order;
 * after each change every call site is matched again by "provider:name":
 * its probe/data are published (release) before its state word, which is
 * set only while the event records into some channel (is enabled). What an
 * event records into is the union of what its owners (the daemons this
 * process registered with, and local users) asked for, published as one
 * immutable snapshot (ust-internal.h). The registry lock serializes the
 * control path; the fast path never takes it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ust/ust-control.h"
#include "ust/ust-internal.h"

#include "common/common.h"

struct ust_probe {
	struct ust_probe *next;
	const struct strata_probe_desc *desc;
	struct ust_event *events; /* in descriptor order */
};

struct ust_tp_section {
	struct ust_tp_section *next;
	struct strata_tracepoint *const *start;
	size_t count;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ust_probe *probes;
static struct ust_tp_section *sections;
static struct ust_channel *channels;
/* Kept reachable on purpose: a probe on another thread may still use them. */
static struct ust_event *retired_events;
static struct ust_bindings *retired_bindings;
static void (*listener_fn)(void *arg);
static int event_publish_locked(struct ust_event *ev, bool sync);
static void *listener_arg;

static struct ust_event *event_find_locked(const char *provider, size_t provider_len,
					   const char *name)
{
	for (struct ust_probe *p = probes; p; p = p->next) {
		if (strlen(p->desc->provider) != provider_len ||
		    strncmp(p->desc->provider, provider, provider_len) != 0)
			continue;
		for (struct ust_event *ev = p->events; ev; ev = ev->next)
			if (strcmp(ev->desc->name, name) == 0)
				return ev;
	}
	return NULL;
}

static struct ust_event *event_find_full_locked(const char *full_name)
{
	const char *colon = strchr(full_name, ':');

	if (!colon)
		return NULL;
	return event_find_locked(full_name, (size_t)(colon - full_name), colon + 1);
}

static void tracepoint_connect(struct strata_tracepoint *tp, struct ust_event *ev)
{
	if (ev && tp->signature && ev->desc->signature &&
	    strcmp(tp->signature, ev->desc->signature) != 0) {
		ust_debug("strata-ust: signature mismatch for %s: call site (%s), probe (%s)\n",
			  ev->full_name, tp->signature, ev->desc->signature);
		ev = NULL;
	}
	if (!ev) {
		__atomic_store_n(&tp->state, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&tp->probe, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&tp->data, NULL, __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(&tp->data, ev, __ATOMIC_RELAXED);
	/* Pairs with the acquire load in STRATA__DECLARE_TRACEPOINT's callback. */
	__atomic_store_n(&tp->probe, ev->desc->probe_callback, __ATOMIC_RELEASE);
	__atomic_store_n(&tp->state,
			 __atomic_load_n(&ev->bindings, __ATOMIC_RELAXED) != NULL ? 1 : 0,
			 __ATOMIC_RELAXED);
}

static void sync_tracepoints_locked(void)
{
	for (struct ust_tp_section *s = sections; s; s = s->next) {
		for (size_t i = 0; i < s->count; i++) {
			struct strata_tracepoint *tp = s->start[i];

			if (!tp)
				continue;
			tracepoint_connect(tp, event_find_locked(tp->provider, strlen(tp->provider),
								 tp->name));
		}
	}
}

static void notify_listener(void)
{
	void (*fn)(void *arg);
	void *arg;

	pthread_mutex_lock(&registry_lock);
	fn = listener_fn;
	arg = listener_arg;
	pthread_mutex_unlock(&registry_lock);
	if (fn)
		fn(arg);
}

static void events_free(struct ust_event *ev)
{
	while (ev) {
		struct ust_event *next = ev->next;

		for (int o = 0; o < UST_OWNER_COUNT; o++)
			free(ev->owned[o]);
		free(ev);
		ev = next;
	}
}

static int probe_build_events(const struct strata_probe_desc *desc, struct ust_event **ret)
{
	struct ust_event *head = NULL, **tail = &head;

	for (uint32_t i = 0; i < desc->nr_events; i++) {
		const struct strata_event_desc *ed = desc->events[i];
		size_t plen = strlen(desc->provider), nlen;
		struct ust_event *ev;

		if (!ed || !ed->name)
			goto err_inval;
		nlen = strlen(ed->name);
		if (plen + nlen + 2 > 256)
			goto err_inval;
		ev = calloc(1, sizeof(*ev) + plen + nlen + 2);
		if (!ev)
			goto err_nomem;
		ev->desc = ed;
		ev->loglevel = ed->loglevel && *ed->loglevel ? **ed->loglevel :
							       STRATA_UST_DEFAULT_LOGLEVEL;
		ev->model_emf_uri =
			ed->model_emf_uri && *ed->model_emf_uri ? *ed->model_emf_uri : NULL;
		memcpy(ev->full_name, desc->provider, plen);
		ev->full_name[plen] = ':';
		memcpy(ev->full_name + plen + 1, ed->name, nlen + 1);
		*tail = ev;
		tail = &ev->next;
	}
	*ret = head;
	return 0;
err_inval:
	events_free(head);
	return -EINVAL;
err_nomem:
	events_free(head);
	return -ENOMEM;
}

int strata_ust_probe_register(const struct strata_probe_desc *desc)
{
	struct ust_probe *probe = NULL;
	int ret;

	if (!desc || !desc->provider)
		return -EINVAL;
	if (desc->abi_major != STRATA_UST_ABI_MAJOR)
		return -EPROTO;
	probe = calloc(1, sizeof(*probe));
	if (!probe)
		return -ENOMEM;
	probe->desc = desc;
	ret = probe_build_events(desc, &probe->events);
	if (ret < 0)
		goto err;

	pthread_mutex_lock(&registry_lock);
	for (struct ust_probe *p = probes; p; p = p->next) {
		if (strcmp(p->desc->provider, desc->provider) == 0) {
			pthread_mutex_unlock(&registry_lock);
			ust_debug("strata-ust: provider '%s' is already registered\n",
				  desc->provider);
			ret = -EEXIST;
			goto err;
		}
	}
	probe->next = probes;
	probes = probe;
	sync_tracepoints_locked();
	pthread_mutex_unlock(&registry_lock);
	ust_debug("strata-ust: registered provider '%s' (%u events)\n", desc->provider,
		  desc->nr_events);
	notify_listener();
	return 0;
err:
	if (probe)
		events_free(probe->events);
	free(probe);
	return ret;
}

void strata_ust_probe_unregister(const struct strata_probe_desc *desc)
{
	struct ust_probe **pp, *probe = NULL;

	pthread_mutex_lock(&registry_lock);
	for (pp = &probes; *pp; pp = &(*pp)->next) {
		if ((*pp)->desc == desc) {
			probe = *pp;
			*pp = probe->next;
			break;
		}
	}
	if (!probe) {
		pthread_mutex_unlock(&registry_lock);
		return;
	}
	sync_tracepoints_locked();
	/* Retire, do not free: another thread may be inside one of its probes. */
	for (struct ust_event *ev = probe->events; ev;) {
		struct ust_event *next = ev->next;

		for (int o = 0; o < UST_OWNER_COUNT; o++) {
			free(ev->owned[o]);
			ev->owned[o] = NULL;
			ev->nr_owned[o] = 0;
		}
		event_publish_locked(ev, false);
		ev->next = retired_events;
		retired_events = ev;
		ev = next;
	}
	pthread_mutex_unlock(&registry_lock);
	free(probe);
	notify_listener();
}

int strata_ust_tracepoints_register(struct strata_tracepoint *const *start, size_t count)
{
	struct ust_tp_section *s;

	if (!start)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->start = start;
	s->count = count;
	pthread_mutex_lock(&registry_lock);
	s->next = sections;
	sections = s;
	sync_tracepoints_locked();
	pthread_mutex_unlock(&registry_lock);
	return 0;
}

void strata_ust_tracepoints_unregister(struct strata_tracepoint *const *start)
{
	struct ust_tp_section **sp, *s = NULL;

	pthread_mutex_lock(&registry_lock);
	for (sp = &sections; *sp; sp = &(*sp)->next) {
		if ((*sp)->start == start) {
			s = *sp;
			*sp = s->next;
			break;
		}
	}
	if (s)
		for (size_t i = 0; i < s->count; i++)
			if (s->start[i])
				tracepoint_connect(s->start[i], NULL);
	pthread_mutex_unlock(&registry_lock);
	free(s);
}

int ust_channel_create(const struct ust_channel_config *cfg, struct ust_channel **ret_chan)
{
	struct ust_channel *chan;

	if (!cfg || !cfg->ops || !cfg->ops->reserve || !cfg->ops->commit ||
	    cfg->n_ctx > UST_CTX_MAX || (cfg->n_ctx && !cfg->ctx))
		return -EINVAL;
	chan = calloc(1, sizeof(*chan));
	if (!chan)
		return -ENOMEM;
	chan->ops = cfg->ops;
	chan->backend = cfg->backend;
	chan->clock = cfg->clock;
	chan->ctx_per_thread = true;
	for (uint32_t i = 0; i < cfg->n_ctx; i++) {
		size_t sz = ust_context_size(cfg->ctx[i]);

		if (!sz || chan->ctx_len + sz > UST_CTX_BYTES_MAX) {
			free(chan);
			return -EINVAL;
		}
		chan->ctx[i] = (uint8_t)cfg->ctx[i];
		chan->ctx_len += (uint32_t)sz;
		if (cfg->ctx[i] == UST_CTX_PERF_THREAD) {
			if (!cfg->perf) {
				free(chan);
				return -EINVAL;
			}
			chan->perf[i] = cfg->perf[i];
		}
		if (cfg->ctx[i] == UST_CTX_IP || cfg->ctx[i] == UST_CTX_PERF_THREAD)
			chan->ctx_per_thread = false;
	}
	chan->n_ctx = cfg->n_ctx;
	pthread_mutex_lock(&registry_lock);
	chan->next = channels;
	channels = chan;
	pthread_mutex_unlock(&registry_lock);
	*ret_chan = chan;
	return 0;
}

/*
 * Publish the union of ev's owners' bindings as its new snapshot (release:
 * a probe that sees it sees its bindings), retire the old one, and update
 * the call sites' state words when sync. On allocation failure the old
 * snapshot stays (-ENOMEM).
 */
static int event_publish_locked(struct ust_event *ev, bool sync)
{
	struct ust_bindings *old =
		(struct ust_bindings *)__atomic_load_n(&ev->bindings, __ATOMIC_RELAXED);
	struct ust_bindings *bs = NULL;
	uint32_t n = 0;

	for (int o = 0; o < UST_OWNER_COUNT; o++)
		n += ev->nr_owned[o];
	if (n) {
		bs = malloc(sizeof(*bs) + n * sizeof(bs->b[0]));
		if (!bs)
			return -ENOMEM;
		bs->n = 0;
		bs->next_retired = NULL;
		for (int o = 0; o < UST_OWNER_COUNT; o++)
			for (uint32_t i = 0; i < ev->nr_owned[o]; i++)
				bs->b[bs->n++] = ev->owned[o][i];
	}
	/* Read by the probe (strata_ust_event_filtered()) to fill the filter arguments. */
	{
		uint32_t filtered = 0;

		for (uint32_t i = 0; bs && i < bs->n; i++)
			filtered += bs->b[i].nr_filters != 0;
		__atomic_store_n(&ev->nr_filtered, filtered, __ATOMIC_RELAXED);
	}
	/* Pairs with the acquire load in strata_ust_event_reserve(). */
	__atomic_store_n(&ev->bindings, bs, __ATOMIC_RELEASE);
	if (old) {
		old->next_retired = retired_bindings;
		retired_bindings = old;
	}
	if (sync && (!old) != (!bs))
		sync_tracepoints_locked();
	return 0;
}

/* Replace what owner records ev into; the caller's array is copied. */
static int event_set_locked(struct ust_event *ev, enum ust_owner owner, const struct ust_binding *b,
			    uint32_t n)
{
	struct ust_binding *copy = NULL, *prev = ev->owned[owner];
	uint32_t prev_n = ev->nr_owned[owner];
	int ret;

	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, b, n * sizeof(*copy));
	}
	ev->owned[owner] = copy;
	ev->nr_owned[owner] = n;
	ret = event_publish_locked(ev, true);
	if (ret < 0) {
		ev->owned[owner] = prev;
		ev->nr_owned[owner] = prev_n;
		free(copy);
		return ret;
	}
	free(prev);
	return 0;
}

int ust_event_set_bindings(const char *full_name, enum ust_owner owner, const struct ust_binding *b,
			   uint32_t n)
{
	struct ust_event *ev;
	int ret;

	if (!full_name || (unsigned int)owner >= UST_OWNER_COUNT || (n && !b))
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!b[i].chan)
			return -EINVAL;
	pthread_mutex_lock(&registry_lock);
	ev = event_find_full_locked(full_name);
	ret = ev ? event_set_locked(ev, owner, b, n) : -ENOENT;
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

/* Drop every binding for which drop() is true, of every event. */
static void events_drop_locked(bool (*drop)(const struct ust_binding *b, enum ust_owner o,
					    const void *arg),
			       const void *arg)
{
	for (struct ust_probe *p = probes; p; p = p->next)
		for (struct ust_event *ev = p->events; ev; ev = ev->next) {
			bool changed = false;

			for (int o = 0; o < UST_OWNER_COUNT; o++) {
				uint32_t w = 0;

				for (uint32_t i = 0; i < ev->nr_owned[o]; i++)
					if (!drop(&ev->owned[o][i], (enum ust_owner)o, arg))
						ev->owned[o][w++] = ev->owned[o][i];
				changed |= w != ev->nr_owned[o];
				ev->nr_owned[o] = w;
			}
			/*
			 * Shrinking needs no memory but the snapshot's: if that
			 * fails, disconnect the event rather than keep writing
			 * into what the caller is taking away.
			 */
			if (changed && event_publish_locked(ev, true) < 0) {
				struct ust_bindings *old = (struct ust_bindings *)ev->bindings;

				__atomic_store_n(&ev->bindings, NULL, __ATOMIC_RELEASE);
				old->next_retired = retired_bindings;
				retired_bindings = old;
				sync_tracepoints_locked();
			}
		}
}

static bool binding_of_channel(const struct ust_binding *b, enum ust_owner o, const void *arg)
{
	(void)o;
	return b->chan == arg;
}

static bool binding_of_owner(const struct ust_binding *b, enum ust_owner o, const void *arg)
{
	(void)b;
	return o == *(const enum ust_owner *)arg;
}

void ust_channel_detach(struct ust_channel *chan)
{
	pthread_mutex_lock(&registry_lock);
	events_drop_locked(binding_of_channel, chan);
	pthread_mutex_unlock(&registry_lock);
}

void ust_owner_clear(enum ust_owner owner)
{
	pthread_mutex_lock(&registry_lock);
	events_drop_locked(binding_of_owner, &owner);
	pthread_mutex_unlock(&registry_lock);
}

int ust_event_enable(const char *full_name, struct ust_channel *chan, uint32_t id)
{
	struct ust_binding b = { .chan = chan, .id = id };
	int ret;

	if (!full_name || !chan)
		return -EINVAL;
	ret = ust_event_set_bindings(full_name, UST_OWNER_LOCAL, &b, 1);
	if (ret == 0)
		ust_debug("strata-ust: enabled %s as id %u\n", full_name, id);
	return ret;
}

int ust_event_disable(const char *full_name)
{
	return ust_event_set_bindings(full_name, UST_OWNER_LOCAL, NULL, 0);
}

int ust_registry_foreach(ust_event_visit_fn fn, void *arg)
{
	int ret = 0;

	pthread_mutex_lock(&registry_lock);
	for (struct ust_probe *p = probes; p && !ret; p = p->next)
		for (struct ust_event *ev = p->events; ev && !ret; ev = ev->next) {
			struct ust_event_info info = {
				.full_name = ev->full_name,
				.desc = ev->desc,
				.loglevel = ev->loglevel,
				.model_emf_uri = ev->model_emf_uri,
				.enabled = __atomic_load_n(&ev->bindings, __ATOMIC_RELAXED) != NULL,
			};

			ret = fn(&info, arg);
		}
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

void ust_registry_set_listener(void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&registry_lock);
	listener_fn = fn;
	listener_arg = arg;
	pthread_mutex_unlock(&registry_lock);
}

int ust_tracepoint_state(const char *full_name)
{
	int n = 0;

	pthread_mutex_lock(&registry_lock);
	for (struct ust_tp_section *s = sections; s; s = s->next)
		for (size_t i = 0; i < s->count; i++) {
			struct strata_tracepoint *tp = s->start[i];
			size_t plen;

			if (!tp)
				continue;
			plen = strlen(tp->provider);
			if (strncmp(full_name, tp->provider, plen) == 0 && full_name[plen] == ':' &&
			    strcmp(full_name + plen + 1, tp->name) == 0 &&
			    __atomic_load_n(&tp->state, __ATOMIC_RELAXED))
				n++;
		}
	pthread_mutex_unlock(&registry_lock);
	return n;
}
