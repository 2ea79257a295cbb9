/* SPDX-License-Identifier: MIT */
/*
 * Stream heap for the timestamp-ordered merge (merge.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/merge.h"
#include "common/common.h"

/* babeltrace2's message_type_weight(): heavier goes first. */
static int type_weight(uint8_t kind)
{
	static const int w[] = {
		[CTF_K_STREAM_BEGIN] = 7, [CTF_K_PACKET_BEGIN] = 6, [CTF_K_EVENT] = 5,
		[CTF_K_DISC_EVENTS] = 4,  [CTF_K_PACKET_END] = 3,   [CTF_K_DISC_PACKETS] = 1,
		[CTF_K_STREAM_END] = 0,	  [CTF_K_INACTIVITY] = 2,
	};

	return w[kind];
}

/* NULL sorts first, as in compare_events()/compare_streams(). */
static int cmp_opt_str(const char *a, const char *b)
{
	if (a && b)
		return strcmp(a, b);
	if (!a && b)
		return -1;
	if (a && !b)
		return 1;
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_events(const struct strata_ctf_event *a, const struct strata_ctf_event *b)
{
	const struct ctf_event_class *ea = a->ec, *eb = b->ec;
	int r = cmp_u64(ea->id, eb->id);

	if (r)
		return r;
	r = cmp_opt_str(ea->name, eb->name);
	if (r)
		return r;
	if (ea->has_loglevel && eb->has_loglevel) {
		if (ea->loglevel != eb->loglevel)
			return ea->loglevel < eb->loglevel ? -1 : 1;
	} else if (ea->has_loglevel != eb->has_loglevel) {
		return ea->has_loglevel ? -1 : 1;
	}
	return cmp_opt_str(ea->emf_uri, eb->emf_uri);
}

/*
 * Discarded notices of two streams with the same identity: babeltrace2
 * compares raw clock values, then counts (an unknown count goes last).
 * It truncates the differences to int; that is kept.
 */
static int cmp_discarded(const struct ctf_slot *a, const struct ctf_slot *b)
{
	const struct ctf_pending *pa = &a->pend, *pb = &b->pend;
	int r;

	if (pa->d.has_range && pb->d.has_range) {
		r = (int)(pa->begin_raw - pb->begin_raw);
		if (r)
			return r;
		r = (int)(pa->end_raw - pb->end_raw);
		if (r)
			return r;
	}
	if (pa->d.count && pb->d.count)
		return (int)(pa->d.count - pb->d.count);
	if (pa->d.count != pb->d.count)
		return pa->d.count ? -1 : 1;
	return 0;
}

int ctf_merge_cmp(const struct ctf_stream *a, const struct ctf_stream *b)
{
	const struct ctf_trace_class *ta = a->rt->t.tc, *tb = b->rt->t.tc;
	const struct ctf_slot_key *ka = ctf_stream_head_key(a), *kb = ctf_stream_head_key(b);
	const struct ctf_slot *ha = ctf_stream_chead(a), *hb = ctf_stream_chead(b);
	int r;

	if (ka->ns != kb->ns)
		return ka->ns < kb->ns ? -1 : 1;
	/* An inactivity has no trace: babeltrace2 puts messages with one first. */
	if ((ka->kind == CTF_K_INACTIVITY) != (kb->kind == CTF_K_INACTIVITY))
		return ka->kind == CTF_K_INACTIVITY ? 1 : -1;
	if (ka->kind == CTF_K_INACTIVITY)
		return a->index < b->index ? -1 : 1;
	/* Trace UUID: traces with one first. */
	if (ta->has_uuid != tb->has_uuid)
		return ta->has_uuid ? -1 : 1;
	if (ta->has_uuid) {
		r = memcmp(ta->uuid, tb->uuid, 16);
		if (r)
			return r;
	}
	r = cmp_opt_str(a->rt->t.name, b->rt->t.name);
	if (r)
		return r;
	r = cmp_u64(a->scd->sc->id, b->scd->sc->id);
	if (r)
		return r;
	r = cmp_u64(a->stream_id, b->stream_id);
	if (r)
		return r;
	if (ka->kind != kb->kind)
		return type_weight(kb->kind) - type_weight(ka->kind);
	if (ka->kind == CTF_K_EVENT) {
		r = cmp_events(&ha->ev, &hb->ev);
		if (r)
			return r;
	}
	/* compare_streams(): the stream names, i.e. first file paths. */
	r = strcmp(a->path, b->path);
	if (r)
		return r;
	if (ka->kind == CTF_K_DISC_EVENTS || ka->kind == CTF_K_DISC_PACKETS) {
		r = cmp_discarded(ha, hb);
		if (r)
			return r;
	}
	/* Indistinguishable for babeltrace2: keep a fixed order. */
	return a->index < b->index ? -1 : a->index > b->index;
}

/* The times decide nearly always: compare them here, ties in ctf_merge_cmp(). */
static inline int merge_cmp(const struct ctf_stream *a, const struct ctf_stream *b)
{
	int64_t ka = ctf_stream_head_key(a)->ns, kb = ctf_stream_head_key(b)->ns;

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return ctf_merge_cmp(a, b);
}

static void sift_up(struct ctf_merge *m, size_t i)
{
	struct ctf_stream *s = m->heap[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (merge_cmp(s, m->heap[p]) >= 0)
			break;
		m->heap[i] = m->heap[p];
		i = p;
	}
	m->heap[i] = s;
}

static void sift_down(struct ctf_merge *m, size_t i)
{
	struct ctf_stream *s = m->heap[i];

	for (;;) {
		size_t l = 2 * i + 1, c;

		if (l >= m->n)
			break;
		c = l;
		if (l + 1 < m->n && merge_cmp(m->heap[l + 1], m->heap[l]) < 0)
			c = l + 1;
		if (merge_cmp(m->heap[c], s) >= 0)
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = s;
}

int ctf_merge_push(struct ctf_merge *m, struct ctf_stream *s)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct ctf_stream **h = realloc(m->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		m->heap = h;
		m->cap = cap;
	}
	m->heap[m->n++] = s;
	sift_up(m, m->n - 1);
	return 0;
}

void ctf_merge_top_changed_slow(struct ctf_merge *m)
{
	if (m->n == 2) {
		if (merge_cmp(m->heap[1], m->heap[0]) < 0) {
			struct ctf_stream *t = m->heap[0];

			m->heap[0] = m->heap[1];
			m->heap[1] = t;
		}
		return;
	}
	if (m->n > 2)
		sift_down(m, 0);
}

void ctf_merge_pop(struct ctf_merge *m)
{
	if (!m->n)
		return;
	m->heap[0] = m->heap[--m->n];
	if (m->n > 1)
		sift_down(m, 0);
}

void ctf_merge_release(struct ctf_merge *m)
{
	free(m->heap);
	memset(m, 0, sizeof(*m));
}
