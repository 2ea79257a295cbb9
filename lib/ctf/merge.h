/* SPDX-License-Identifier: MIT */
/*
 * Timestamp-ordered merge of streams: a binary min-heap of streams (not of
 * events) keyed on each stream's head message, with babeltrace2 2.0.4's
 * muxer tie-breaking (ctf.md §3.1, common_muxing_compare_messages()).
 */
#ifndef STRATA_CTF_MERGE_H
#define STRATA_CTF_MERGE_H

#include <stddef.h>

#include "ctf/stream.h"

struct ctf_merge {
	struct ctf_stream **heap;
	size_t n, cap;
};

/* < 0 when a's head message goes first. Never 0 for distinct streams. */
int ctf_merge_cmp(const struct ctf_stream *a, const struct ctf_stream *b);

/* Adds a stream whose head message is ready. Returns 0 or -ENOMEM. */
int ctf_merge_push(struct ctf_merge *m, struct ctf_stream *s);
/* The stream with the first head message, or NULL when empty. */
static inline struct ctf_stream *ctf_merge_top(const struct ctf_merge *m)
{
	return m->n ? m->heap[0] : NULL;
}
void ctf_merge_top_changed_slow(struct ctf_merge *m);
/*
 * After the top stream advanced: restore the order. Inline, once per
 * message: with the usual per-CPU pair of streams whose head times
 * differ, one comparison decides.
 */
static inline void ctf_merge_top_changed(struct ctf_merge *m)
{
	if (m->n == 2) {
		int64_t k0 = ctf_stream_head_key(m->heap[0])->ns;
		int64_t k1 = ctf_stream_head_key(m->heap[1])->ns;

		if (k0 < k1)
			return;
		if (k1 < k0) {
			struct ctf_stream *t = m->heap[0];

			m->heap[0] = m->heap[1];
			m->heap[1] = t;
			return;
		}
	}
	if (m->n >= 2)
		ctf_merge_top_changed_slow(m);
}
/* Removes the top stream (it ended). */
void ctf_merge_pop(struct ctf_merge *m);
void ctf_merge_release(struct ctf_merge *m);

#endif
