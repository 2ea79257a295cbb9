/* SPDX-License-Identifier: MIT */
/*
 * strata_ctf_pretty_run(): decode on a helper thread while the calling
 * thread formats, so `strata view` uses both halves of the work at once.
 *
 *   helper thread                         calling thread
 *   reader_next() -> copy into batch[h]   print batch[t] -> stdio
 *        \__________ ring of RUN_NBATCH batches _________/
 *
 * A message borrowed from the reader dies at the next reader_next(), so
 * the helper copies what the printer reads: the event, the value subtrees
 * of the four printed scopes and the bytes of their strings (which may live
 * in reader buffers reused by later events). Types, classes and traces
 * live as long as the reader and are shared. Hand-off is per batch under
 * one mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/pretty-internal.h"
#include "ctf/reader-internal.h"
#include "common/common.h"

#define RUN_BATCH 2048 /* messages per batch */
#define RUN_NBATCH 4

/* The scopes sink.text.pretty prints; the others are not copied. */
static const enum ctf_scope printed_scopes[] = {
	CTF_SCOPE_PACKET_CONTEXT,
	CTF_SCOPE_STREAM_EVENT_CONTEXT,
	CTF_SCOPE_EVENT_CONTEXT,
	CTF_SCOPE_EVENT_PAYLOAD,
};

#define NO_SCOPE UINT32_MAX

struct run_msg {
	struct strata_ctf_msg msg;
	struct strata_ctf_event ev;
	/* Offsets in the batch's value array (it may move while filling). */
	uint32_t scope_off[CTF_SCOPE_COUNT];
};

/* Chunks of copied string bytes; pointers into them stay valid. */
struct run_chunk {
	struct run_chunk *next;
	size_t used, size;
	char data[];
};

#define RUN_CHUNK_SIZE (256 * 1024)

struct run_batch {
	struct run_msg *msgs;
	size_t n;
	struct ctf_value *vals;
	size_t n_vals, cap_vals;
	struct run_chunk *chunks; /* first one is being filled */
	struct run_chunk *spare; /* emptied chunks, reused */
	bool end; /* the reader reached the end after these messages */
	int error; /* < 0: the reader (or a copy) failed after these messages */
};

/* Producer-side memo: does a scope root type contain any text? */
#define RUN_MEMO 64

#define RUN_MEMO_TEXTS 8

/*
 * fixed: the type has no variant and no non-text array or sequence, so its
 * values always sit at the same pre-order positions: n_vals of them, the
 * text ones at text_off[].
 */
struct run_memo {
	const struct ctf_type *type;
	bool has_text;
	bool fixed;
	uint32_t n_vals;
	uint32_t n_text;
	uint32_t text_off[RUN_MEMO_TEXTS];
};

struct run {
	struct strata_ctf_reader *reader;
	struct run_memo memo[RUN_MEMO];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct run_batch batches[RUN_NBATCH];
	size_t head, tail, filled; /* producer fills head, consumer drains tail */
	bool stop; /* the consumer gave up: producer, exit */
};

static const char *copy_bytes(struct run_batch *b, const char *src, size_t len)
{
	struct run_chunk *c = b->chunks;
	char *dst;

	if (!c || c->size - c->used < len) {
		if (b->spare && b->spare->size >= len) {
			c = b->spare;
			b->spare = c->next;
		} else {
			size_t size = MAX(len, (size_t)RUN_CHUNK_SIZE);

			c = malloc(sizeof(*c) + size);
			if (!c)
				return NULL;
			c->size = size;
		}
		c->used = 0;
		c->next = b->chunks;
		b->chunks = c;
	}
	dst = c->data + c->used;
	memcpy(dst, src, len);
	c->used += len;
	return dst;
}

/* Empties the batch, keeping its chunks for reuse. */
static void batch_reset(struct run_batch *b)
{
	while (b->chunks) {
		struct run_chunk *c = b->chunks;

		b->chunks = c->next;
		c->next = b->spare;
		b->spare = c;
	}
	b->n = 0;
	b->n_vals = 0;
	b->end = false;
	b->error = 0;
}

static bool is_text(const struct ctf_type *t)
{
	switch (t->kind) {
	case CTF_TYPE_STRING:
		return true;
	case CTF_TYPE_ARRAY:
		return t->array.is_text;
	case CTF_TYPE_SEQUENCE:
		return t->sequence.is_text;
	default:
		return false;
	}
}

static bool type_has_text(const struct ctf_type *t)
{
	switch (t->kind) {
	case CTF_TYPE_STRING:
		return true;
	case CTF_TYPE_ARRAY:
		return t->array.is_text || type_has_text(t->array.elem);
	case CTF_TYPE_SEQUENCE:
		return t->sequence.is_text || type_has_text(t->sequence.elem);
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++)
			if (type_has_text(t->structure.fields[i].type))
				return true;
		return false;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			if (type_has_text(t->variant.options[i].type))
				return true;
		return false;
	default:
		return false;
	}
}

static void memo_walk(struct run_memo *m, const struct ctf_type *t, unsigned depth)
{
	if (!m->fixed)
		return;
	if (depth > 64) { /* deep types just take the scan */
		m->fixed = false;
		return;
	}
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		m->n_vals++;
		for (size_t i = 0; i < t->structure.n_fields; i++)
			memo_walk(m, t->structure.fields[i].type, depth + 1);
		return;
	case CTF_TYPE_VARIANT:
		m->fixed = false;
		return;
	case CTF_TYPE_ARRAY:
	case CTF_TYPE_SEQUENCE:
	case CTF_TYPE_STRING:
		if (!is_text(t)) {
			m->fixed = false;
			return;
		}
		if (m->n_text == RUN_MEMO_TEXTS) {
			m->fixed = false;
			return;
		}
		m->text_off[m->n_text++] = m->n_vals++;
		return;
	default:
		m->n_vals++;
		return;
	}
}

/* Most scopes hold numbers only, or text at fixed positions: skip the walk. */
static const struct run_memo *root_memo(struct run *r, const struct ctf_type *t)
{
	struct run_memo *m = &r->memo[((uintptr_t)t >> 4) % RUN_MEMO];

	if (m->type != t) {
		m->type = t;
		m->has_text = type_has_text(t);
		m->fixed = true;
		m->n_vals = 0;
		m->n_text = 0;
		memo_walk(m, t, 0);
	}
	return m;
}

static int copy_text(struct run_batch *b, struct ctf_value *v)
{
	if (v->str.len) {
		v->str.ptr = copy_bytes(b, v->str.ptr, v->str.len);
		if (!v->str.ptr)
			return -ENOMEM;
	}
	return 0;
}

static int copy_event(struct run *r, struct run_batch *b, struct run_msg *m,
		      const struct strata_ctf_event *ev)
{
	m->ev = *ev;
	for (size_t i = 0; i < CTF_SCOPE_COUNT; i++) {
		m->ev.scope[i] = NULL;
		m->scope_off[i] = NO_SCOPE;
	}
	for (size_t k = 0; k < ARRAY_SIZE(printed_scopes); k++) {
		enum ctf_scope sc = printed_scopes[k];
		const struct ctf_value *root = ev->scope[sc];
		const struct run_memo *memo;
		size_t n;

		if (!root)
			continue;
		n = (size_t)root->nsub + 1;
		if (b->cap_vals - b->n_vals < n) {
			size_t cap = MAX(b->cap_vals * 2, b->n_vals + n + 4096);
			struct ctf_value *nv;

			if (cap > UINT32_MAX)
				return -ENOMEM;
			nv = realloc(b->vals, cap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			b->vals = nv;
			b->cap_vals = cap;
		}
		memcpy(b->vals + b->n_vals, root, n * sizeof(*root));
		memo = root_memo(r, root->type);
		if (memo->fixed && memo->n_vals == n) {
			for (uint32_t t = 0; t < memo->n_text; t++)
				if (copy_text(b, b->vals + b->n_vals + memo->text_off[t]) < 0)
					return -ENOMEM;
		} else if (memo->has_text) {
			for (struct ctf_value *v = b->vals + b->n_vals, *e = v + n; v < e; v++)
				if (is_text(v->type) && copy_text(b, v) < 0)
					return -ENOMEM;
		}
		m->scope_off[sc] = (uint32_t)b->n_vals;
		b->n_vals += n;
	}
	return 0;
}

/* Fills one batch; returns false when the producer must stop after it. */
static bool fill_batch(struct run *r, struct run_batch *b)
{
	batch_reset(b);
	while (b->n < RUN_BATCH) {
		struct run_msg *m = &b->msgs[b->n];
		enum strata_ctf_status st = strata_ctf_reader_next(r->reader, &m->msg);
		int ret;

		if (st == STRATA_CTF_END) {
			b->end = true;
			return false;
		}
		if (st != STRATA_CTF_OK) {
			b->error = -STRATA_ESTREAM;
			return false;
		}
		if (m->msg.type == STRATA_CTF_MSG_EVENT) {
			ret = copy_event(r, b, m, m->msg.event);
			if (ret < 0) {
				b->error = ret;
				return false;
			}
			m->msg.event = NULL; /* set by the consumer */
		}
		b->n++;
	}
	return true;
}

static void *producer(void *arg)
{
	struct run *r = arg;
	bool more = true;

	while (more) {
		struct run_batch *b;

		pthread_mutex_lock(&r->lock);
		while (r->filled == RUN_NBATCH && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		b = &r->batches[r->head];
		pthread_mutex_unlock(&r->lock);

		more = fill_batch(r, b);

		/* Release: the consumer reads b only after seeing filled grow. */
		pthread_mutex_lock(&r->lock);
		r->head = (r->head + 1) % RUN_NBATCH;
		r->filled++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* Prints one batch; returns 0, 1 at the end of the traces, or < 0. */
static int print_batch(struct strata_ctf_pretty *p, struct run_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct run_msg *m = &b->msgs[i];
		int ret;

		if (m->msg.type == STRATA_CTF_MSG_EVENT) {
			for (size_t k = 0; k < ARRAY_SIZE(printed_scopes); k++) {
				enum ctf_scope sc = printed_scopes[k];

				if (m->scope_off[sc] != NO_SCOPE)
					m->ev.scope[sc] = b->vals + m->scope_off[sc];
			}
			m->msg.event = &m->ev;
		}
		ret = strata_ctf_pretty_print(p, &m->msg);
		if (ret < 0)
			return ret;
	}
	if (b->error)
		return b->error;
	return b->end ? 1 : 0;
}

static void run_release(struct run *r)
{
	for (size_t i = 0; i < RUN_NBATCH; i++) {
		struct run_batch *b = &r->batches[i];

		batch_reset(b);
		while (b->spare) {
			struct run_chunk *c = b->spare;

			b->spare = c->next;
			free(c);
		}
		free(b->msgs);
		free(b->vals);
	}
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
}

int strata_ctf_pretty_run(struct strata_ctf_pretty *p, struct strata_ctf_reader *reader)
{
	struct run r = { .reader = reader };
	pthread_t thread;
	int ret = 0;

	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	for (size_t i = 0; i < RUN_NBATCH; i++) {
		r.batches[i].msgs = malloc(RUN_BATCH * sizeof(*r.batches[i].msgs));
		if (!r.batches[i].msgs) {
			run_release(&r);
			return -ENOMEM;
		}
	}
	ret = -pthread_create(&thread, NULL, producer, &r);
	if (ret < 0) {
		run_release(&r);
		return ret;
	}
	for (;;) {
		struct run_batch *b;

		pthread_mutex_lock(&r.lock);
		while (r.filled == 0)
			pthread_cond_wait(&r.cond, &r.lock);
		b = &r.batches[r.tail];
		pthread_mutex_unlock(&r.lock);

		ret = print_batch(p, b);

		pthread_mutex_lock(&r.lock);
		r.tail = (r.tail + 1) % RUN_NBATCH;
		r.filled--;
		if (ret != 0)
			r.stop = true;
		pthread_cond_broadcast(&r.cond);
		pthread_mutex_unlock(&r.lock);
		if (ret != 0)
			break;
	}
	pthread_join(thread, NULL);
	run_release(&r);
	return ret < 0 ? ret : 0;
}
