/* SPDX-License-Identifier: MIT */
/*
 * Kernel trackers: per channel and attribute, a policy in the recorder's
 * kf_globals and the tracked ids in kr_track (filter-abi.h); the recorder
 * checks them on every hit, before it builds anything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-internal.h"

#include "common/common.h"

static void kt_track_ids(struct kernel_channel *ch, unsigned int attr, const uint32_t *ids,
			 size_t n, bool add)
{
	static const uint8_t one = 1;

	for (size_t i = 0; i < n; i++) {
		struct kf_track_key k = { ch->slot * KF_NATTR + attr, ids[i] };

		if (add)
			kt_rec_map_update(ch->kt, KT_MAP_TRACK, &k, &one);
		else
			kt_rec_map_delete(ch->kt, KT_MAP_TRACK, &k);
	}
}

static bool kt_has_id(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static void kt_set_policy(struct kernel_channel *ch, unsigned int attr, unsigned int pol)
{
	struct kf_globals *g = kt_rec_kf_globals(ch->kt);
	unsigned int *w, old, want;

	if (!g)
		return;
	w = &g->track_pol[ch->slot];
	old = __atomic_load_n(w, __ATOMIC_RELAXED);
	do {
		want = (old & ~(3u << (2 * attr))) | (pol << (2 * attr));
	} while (!__atomic_compare_exchange_n(w, &old, want, false, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

int kernel_channel_set_tracker(struct kernel_channel *ch, enum kernel_tracker_attr attr,
			       enum kernel_tracker_policy policy, const uint32_t *ids, size_t n,
			       char *why, size_t len)
{
	static const unsigned int pols[] = { [KERNEL_TRACKER_ALL] = KF_POL_ALL,
					     [KERNEL_TRACKER_SET] = KF_POL_SET,
					     [KERNEL_TRACKER_NONE] = KF_POL_NONE };
	struct kt_filters *fs;
	struct kt_tracker *t;
	uint32_t *copy = NULL;
	size_t total = 0;

	if ((unsigned int)attr >= KF_NATTR || (unsigned int)policy > KERNEL_TRACKER_NONE ||
	    (policy == KERNEL_TRACKER_SET && n && !ids)) {
		snprintf(why, len, "Invalid tracker attribute or policy");
		return -EINVAL;
	}
	if (policy != KERNEL_TRACKER_SET)
		n = 0;
	for (unsigned int s = 0; s < KR_MAX_CHAN; s++)
		for (unsigned int k = 0;
		     ch->kt->chans[s] && ch->kt->chans[s]->filters && k < KF_NATTR; k++)
			total += ch->kt->chans[s]->filters->tracker[k].n;
	fs = kt_filters_of(ch);
	if (!fs)
		return -ENOMEM;
	t = &fs->tracker[attr];
	if (total - t->n + n > KF_MAX_TRACKED) {
		snprintf(why, len, "Too many tracked ids: at most %d over all kernel channels",
			 KF_MAX_TRACKED);
		return -E2BIG;
	}
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, ids, n * sizeof(*copy));
	}
	/* New ids in, policy, then old ids out: an id in both sets never misses a hit. */
	kt_track_ids(ch, attr, copy, n, true);
	kt_set_policy(ch, attr, pols[policy]);
	for (size_t i = 0; i < t->n; i++)
		if (!kt_has_id(copy, n, t->ids[i]))
			kt_track_ids(ch, attr, &t->ids[i], 1, false);
	free(t->ids);
	t->ids = copy;
	t->n = n;
	t->policy = policy;
	return 0;
}

void kt_tracker_release(struct kernel_channel *ch)
{
	struct kt_filters *fs = ch->filters;

	for (unsigned int a = 0; fs && a < KF_NATTR; a++) {
		kt_set_policy(ch, a, KF_POL_ALL);
		kt_track_ids(ch, a, fs->tracker[a].ids, fs->tracker[a].n, false);
		free(fs->tracker[a].ids);
		fs->tracker[a].ids = NULL;
		fs->tracker[a].n = 0;
	}
}
