/* SPDX-License-Identifier: MIT */
/*
 * strata_ctf_pretty_run(): decode on a helper thread while the calling
 * thread formats, so `strata view` uses both halves of the work at once.
 *
 *   helper thread                         calling thread
 *   reader_next() -> copy into batch[h]   print batch[t] -> stdio
 *             or -> format into batch[h]  or write its text -> stdio
 *        \__________ ring of RUN_NBATCH batches _________/
 *
 * When the calling thread lags (all the ring but one batch waits for it), the
 * helper formats the next batch itself with a second printer (a clone
 * with the same options) straight from the reader's messages, which saves
 * the copy; the calling thread then only writes that batch's text. Each
 * batch carries the delta state before its first event, which is all a
 * printer needs from the events before. Messages whose printing depends
 * on more than that stay with the calling thread's printer: discarded
 * items (warnings to the error stream between lines) and, from the first
 * one on, negative times (a one-time warning, then another format); such
 * a message ends a formatted batch and opens a copied one.
 *
 * A message borrowed from the reader dies at the next reader_next(), so
 * the helper copies what the printer reads: the event, the value subtrees
 * of the four printed scopes and the bytes of their strings (which may live
 * in reader buffers reused by later events). Types, classes and traces
 * live as long as the reader and are shared. Hand-off is per batch under
 * one mutex.
 *
 * The copy is the helper's largest cost after decoding, so most scopes
 * cross as payloads only. A scope type without variants or sequences
 * always decodes to the same tree (a "shape"): its first instance is
 * copied whole into a run_shape, and later instances send just one 8-byte
 * word per value (plus string lengths), which the printer writes into
 * the shape's payload fields before printing it:
 *
 *   reader values  [type nsub opt u] x n       (32 bytes each)
 *        | helper: words[i] = vals[i].u, strings copied
 *   batch words    [u] x n + [len] x n_text    (8 bytes each)
 *        | printer: shape->vals[i].u = words[i]
 *   run_shape      [type nsub opt u] x n       (only u, str.len change)
 *
 * The batch's lines were last read by the printing thread, on the other
 * CPU: an ordinary store would first fetch each line back. The helper
 * writes the words with streaming stores instead (x86-64; an sfence
 * orders them before the hand-off), and each batch struct has lines of
 * its own. The packet context is the same for every event of a packet:
 * it is copied once per packet and batch, later events of the batch point
 * at that copy, and the printer refills a shape only when its words
 * change (struct run_pc, run_shape.filled). docs/benchmarks.md, session 10.
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
/*
 * Bytes a batch may hold (values, words, copied text, formatted lines)
 * before it ends early: with events of thousands of fields, 2048 of them
 * in each of RUN_NBATCH batches would take gigabytes, all first-touched.
 */
#define RUN_BATCH_BYTES (4u << 20)
#define RUN_NBATCH 8

/* The scopes sink.text.pretty prints; the others are not copied. */
static const enum ctf_scope printed_scopes[] = {
	CTF_SCOPE_PACKET_CONTEXT,
	CTF_SCOPE_STREAM_EVENT_CONTEXT,
	CTF_SCOPE_EVENT_CONTEXT,
	CTF_SCOPE_EVENT_PAYLOAD,
};

#define NO_SCOPE UINT32_MAX

/*
 * An event as the printer needs it, or (other) the index of a discarded
 * items message in the batch's others[]. Kept small: the helper writes
 * one per message.
 */
struct run_msg {
	const struct ctf_trace *trace;
	const struct ctf_stream_class *sc;
	const struct ctf_event_class *ec;
	uint64_t cycles;
	int64_t ns;
	bool has_clock;
	bool other;
	/*
	 * Per printed scope: offset in the batch's value array, or in its
	 * word array when the scope has a shape (the arrays may move while
	 * filling); NO_SCOPE when absent.
	 */
	uint32_t off[ARRAY_SIZE(printed_scopes)];
	struct run_shape *shape[ARRAY_SIZE(printed_scopes)];
};

/* Chunks of copied string bytes; pointers into them stay valid. */
struct run_chunk {
	struct run_chunk *next;
	size_t used, size;
	char data[];
};

#define RUN_CHUNK_SIZE (256 * 1024)

struct run_batch {
	/*
	 * A line of its own: the helper writes the batch it fills at every
	 * message while the printing thread reads the one it prints.
	 */
	_Alignas(64) struct run_msg *msgs;
	size_t n;
	struct strata_ctf_msg *others; /* discarded items: rare */
	size_t n_others, cap_others;
	struct ctf_value *vals;
	size_t n_vals, cap_vals;
	uint64_t *words; /* payloads of shaped scopes */
	size_t n_words, cap_words;
	struct run_chunk *chunks; /* first one is being filled */
	struct run_chunk *spare; /* emptied chunks, reused */
	bool end; /* the reader reached the end after these messages */
	int error; /* < 0: the reader (or a copy) failed after these messages */
	/* The helper formatted the messages itself: text holds their lines. */
	bool formatted;
	struct ctf_pbuf text;
	struct ctf_pretty_times start; /* before the first message */
};

/* Producer-side memo: does a scope root type contain any text? */
#define RUN_MEMO 64

#define RUN_MEMO_TEXTS 8
#define RUN_SHAPE_MAX 1024 /* values; larger fixed trees are copied whole */
#define RUN_PC_CACHE 8 /* streams whose packet context copy is remembered */
#define RUN_NO_PACKET UINT64_MAX

/*
 * The value tree of a fixed scope type. Created by the helper from the
 * first instance and never touched by it again; from then on only the
 * printing thread writes it (the payload fields, before each print).
 * Shapes live until the end of the run: batches in flight point to them
 * even after their memo slot is reused.
 */
struct run_shape {
	struct run_shape *next; /* every shape of the run */
	/*
	 * The printing thread's: the words vals holds now (fill_shape()), in
	 * the batch it printed as number filled_gen (batches are reused).
	 */
	const uint64_t *filled;
	uint64_t filled_gen;
	uint32_t n_vals;
	uint32_t n_text;
	uint32_t text_off[RUN_MEMO_TEXTS];
	/*
	 * The printing thread writes vals for every event: the helper reads
	 * its own copies of the fields above (struct run_memo), and vals
	 * starts on a cache line of its own, or each of those reads would
	 * wait for the line to come back from the other CPU.
	 */
	_Alignas(64) struct ctf_value vals[];
};

/*
 * fixed: the type has no variant, no sequence and no non-text array
 * longer than the shape limit, so its values always sit at the same
 * pre-order positions: n_vals of them, the text ones at text_off[].
 */
struct run_memo {
	const struct ctf_type *type;
	bool has_text;
	bool fixed;
	uint32_t n_vals;
	uint32_t n_text;
	uint32_t text_off[RUN_MEMO_TEXTS];
	struct run_shape *shape; /* NULL until the first instance */
};

struct run {
	struct strata_ctf_reader *reader;
	size_t batch; /* messages per batch, <= RUN_BATCH */
	enum ctf_run_self self_mode;
	/* Helper side: its printer, the times after the last message read. */
	struct strata_ctf_pretty *fmt;
	struct ctf_pretty_times times;
	bool negative_seen; /* from then on the printing thread formats everything */
	bool has_pending; /* pending: read, not yet in a batch */
	struct strata_ctf_msg pending;
	struct run_memo memo[RUN_MEMO];
	struct run_shape *shapes;
	/*
	 * The packet context, copied once per packet and batch: events of
	 * one packet share it, so later ones point at the first one's copy.
	 * Direct-mapped on the stream index; reset with each batch.
	 */
	struct run_pc {
		uint64_t packet; /* strata_ctf_event.packet, or RUN_NO_PACKET */
		uint32_t off;
		struct run_shape *shape;
	} pc[RUN_PC_CACHE];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct run_batch batches[RUN_NBATCH];
	size_t head, tail, filled; /* producer fills head, consumer drains tail */
	bool stop; /* the consumer gave up: producer, exit */
};

/* A word of a batch, bypassing the cache where the CPU can (see the top). */
static inline void put_word(uint64_t *dst, uint64_t x)
{
#if defined(__x86_64__)
	__builtin_ia32_movnti64((long long *)dst, (long long)x);
#else
	*dst = x;
#endif
}

/*
 * memcpy() for the short strings of most events without a libc call:
 * two overlapping 8-byte (or 4-byte) moves cover 4 to 16 bytes.
 */
static inline void copy_small(char *dst, const char *src, size_t len)
{
	uint64_t a, b;
	uint32_t x, y;

	if (len >= 8 && len <= 16) {
		memcpy(&a, src, 8);
		memcpy(&b, src + len - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + len - 8, &b, 8);
	} else if (len >= 4 && len < 8) {
		memcpy(&x, src, 4);
		memcpy(&y, src + len - 4, 4);
		memcpy(dst, &x, 4);
		memcpy(dst + len - 4, &y, 4);
	} else if (len < 4) {
		for (size_t i = 0; i < len; i++)
			dst[i] = src[i];
	} else {
		memcpy(dst, src, len);
	}
}

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
	copy_small(dst, src, len);
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
	b->n_others = 0;
	b->n_vals = 0;
	b->n_words = 0;
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
	if (depth > 64 || m->n_vals >= RUN_SHAPE_MAX) { /* these just take the scan */
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
		if (!t->array.is_text) {
			/* A static array: one value, then its elements. */
			if (t->array.length > RUN_SHAPE_MAX) {
				m->fixed = false;
				return;
			}
			m->n_vals++;
			for (uint64_t i = 0; i < t->array.length && m->fixed; i++)
				memo_walk(m, t->array.elem, depth + 1);
			return;
		}
		/* fall through */
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
static struct run_memo *root_memo(struct run *r, const struct ctf_type *t)
{
	struct run_memo *m = &r->memo[((uintptr_t)t >> 4) % RUN_MEMO];

	if (m->type != t) {
		m->type = t;
		m->has_text = type_has_text(t);
		m->fixed = true;
		m->n_vals = 0;
		m->n_text = 0;
		m->shape = NULL;
		memo_walk(m, t, 0);
	}
	return m;
}

/*
 * Reads the source value, not the fresh copy in dst: loading from what
 * memcpy() has just stored stalls on store forwarding.
 */
static int copy_text(struct run_batch *b, struct ctf_value *dst, const struct ctf_value *src)
{
	if (src->str.len) {
		dst->str.ptr = copy_bytes(b, src->str.ptr, src->str.len);
		if (!dst->str.ptr)
			return -ENOMEM;
	}
	return 0;
}

/* Room for need more elements after n in *arr; offsets must fit 32 bits. */
static int reserve(void **arr, size_t *cap, size_t n, size_t need, size_t elem)
{
	size_t ncap;
	void *na;

	if (*cap - n >= need)
		return 0;
	ncap = MAX(*cap * 2, n + need + 4096);
	if (ncap > UINT32_MAX)
		return -ENOMEM;
	na = realloc(*arr, ncap * elem);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

/* The shape of memo m, created from root (n values); NULL on ENOMEM. */
static struct run_shape *memo_shape(struct run *r, struct run_memo *m, const struct ctf_value *root,
				    size_t n)
{
	struct run_shape *sh;

	if (m->shape)
		return m->shape;
	/* aligned_alloc() wants a multiple of the alignment; a value is 32 bytes. */
	sh = aligned_alloc(64, sizeof(*sh) + (n + 1) / 2 * 2 * sizeof(sh->vals[0]));
	if (!sh)
		return NULL;
	sh->filled = NULL;
	sh->filled_gen = 0;
	sh->n_vals = (uint32_t)n;
	sh->n_text = m->n_text;
	memcpy(sh->text_off, m->text_off, sizeof(sh->text_off));
	/* Payloads (and dangling string pointers) are overwritten before each print. */
	memcpy(sh->vals, root, n * sizeof(*root));
	sh->next = r->shapes;
	r->shapes = sh;
	m->shape = sh;
	return sh;
}

/* Sends the payloads of a shaped scope; returns the offset of its words or < 0. */
static int64_t copy_words(struct run_batch *b, const struct run_memo *sh,
			  const struct ctf_value *root)
{
	size_t need = (size_t)sh->n_vals + sh->n_text;
	uint64_t *w;

	if (reserve((void **)&b->words, &b->cap_words, b->n_words, need, sizeof(*w)) < 0)
		return -ENOMEM;
	w = b->words + b->n_words;
	for (uint32_t i = 0; i < sh->n_vals; i++)
		put_word(&w[i], root[i].u);
	for (uint32_t t = 0; t < sh->n_text; t++) {
		const struct ctf_value *v = root + sh->text_off[t];

		put_word(&w[sh->n_vals + t], v->str.len);
		if (v->str.len) {
			const char *c = copy_bytes(b, v->str.ptr, v->str.len);

			if (!c)
				return -ENOMEM;
			put_word(&w[sh->text_off[t]], (uint64_t)(uintptr_t)c);
		}
	}
	b->n_words += need;
	return (int64_t)(w - b->words);
}

/* Copies a scope whole: its value subtree and its strings. */
static int64_t copy_values(struct run_batch *b, const struct run_memo *memo,
			   const struct ctf_value *root, size_t n)
{
	struct ctf_value *dst;

	if (reserve((void **)&b->vals, &b->cap_vals, b->n_vals, n, sizeof(*dst)) < 0)
		return -ENOMEM;
	dst = b->vals + b->n_vals;
	memcpy(dst, root, n * sizeof(*root));
	if (memo->has_text) {
		for (size_t i = 0; i < n; i++)
			if (is_text(root[i].type) && copy_text(b, dst + i, root + i) < 0)
				return -ENOMEM;
	}
	b->n_vals += n;
	return (int64_t)(dst - b->vals);
}

static int copy_event(struct run *r, struct run_batch *b, struct run_msg *m,
		      const struct strata_ctf_event *ev)
{
	m->trace = ev->trace;
	m->sc = ev->sc;
	m->ec = ev->ec;
	m->cycles = ev->cycles;
	m->ns = ev->ns;
	m->has_clock = ev->has_clock;
	m->other = false;
	for (size_t k = 0; k < ARRAY_SIZE(printed_scopes); k++) {
		const struct ctf_value *root = ev->scope[printed_scopes[k]];
		struct run_memo *memo;
		struct run_shape *sh = NULL;
		int64_t off;
		size_t n;

		if (!root) {
			m->off[k] = NO_SCOPE;
			continue;
		}
		if (printed_scopes[k] == CTF_SCOPE_PACKET_CONTEXT) {
			struct run_pc *pc = &r->pc[(ev->packet >> 32) % RUN_PC_CACHE];

			if (pc->packet == ev->packet) {
				m->off[k] = pc->off;
				m->shape[k] = pc->shape;
				continue;
			}
		}
		n = (size_t)root->nsub + 1;
		memo = root_memo(r, root->type);
		if (memo->fixed && memo->n_vals == n) {
			sh = memo_shape(r, memo, root, n);
			if (!sh)
				return -ENOMEM;
			off = copy_words(b, memo, root);
		} else {
			off = copy_values(b, memo, root, n);
		}
		if (off < 0)
			return (int)off;
		m->off[k] = (uint32_t)off;
		m->shape[k] = sh;
		if (printed_scopes[k] == CTF_SCOPE_PACKET_CONTEXT)
			r->pc[(ev->packet >> 32) % RUN_PC_CACHE] =
				(struct run_pc){ ev->packet, (uint32_t)off, sh };
	}
	return 0;
}

/* Keeps a discarded items message (its strings live as long as the reader). */
static int copy_other(struct run_batch *b, struct run_msg *m, const struct strata_ctf_msg *msg)
{
	if (reserve((void **)&b->others, &b->cap_others, b->n_others, 1, sizeof(*msg)) < 0)
		return -ENOMEM;
	m->other = true;
	m->off[0] = (uint32_t)b->n_others;
	b->others[b->n_others++] = *msg;
	return 0;
}

/*
 * Whether the helper's printer must leave msg to the printing thread's:
 * discarded-item warnings go to the error stream in order with the lines,
 * and the first negative time prints a warning and changes how later
 * times print (ctf_fmt_wall()), so from there on one printer does it all.
 */
static bool needs_main_printer(struct run *r, const struct strata_ctf_msg *msg)
{
	if (msg->type != STRATA_CTF_MSG_EVENT)
		return true;
	if (msg->event->has_clock && msg->event->ns < 0)
		r->negative_seen = true;
	return r->negative_seen;
}

/* What batch b holds so far, in bytes. */
static size_t batch_bytes(struct run *r, const struct run_batch *b)
{
	size_t n = b->n_vals * sizeof(*b->vals) + b->n_words * sizeof(*b->words);

	/* A few chunks at most: the walk is cheaper than counting every copy. */
	for (const struct run_chunk *c = b->chunks; c; c = c->next)
		n += c->used;
	return n + (b->formatted ? ctf_pretty_line_len(r->fmt) : 0);
}

/*
 * Fills one batch, formatting its events on this thread when self is set;
 * returns false when the producer must stop after it.
 */
static bool fill_batch(struct run *r, struct run_batch *b, bool self)
{
	batch_reset(b);
	/* Offsets are the batch's: nothing copied before it can be pointed at. */
	for (size_t i = 0; i < RUN_PC_CACHE; i++)
		r->pc[i].packet = RUN_NO_PACKET;
	b->start = r->times;
	b->formatted = self;
	if (self)
		ctf_pretty_set_times(r->fmt, &r->times);
	/* Checked every 16 messages, to keep it off the per-message path. */
	while (b->n < r->batch && ((b->n & 15) || batch_bytes(r, b) < RUN_BATCH_BYTES)) {
		struct run_msg *m = &b->msgs[b->n];
		struct strata_ctf_msg msg;
		int ret = 0;

		if (r->has_pending) {
			msg = r->pending;
			r->has_pending = false;
		} else {
			enum strata_ctf_status st = strata_ctf_reader_next(r->reader, &msg);

			if (st == STRATA_CTF_END) {
				b->end = true;
				break;
			}
			if (st != STRATA_CTF_OK) {
				b->error = -STRATA_ESTREAM;
				break;
			}
		}
		if (b->formatted && needs_main_printer(r, &msg)) {
			if (b->n) {
				/* Ends the batch; msg (still valid: no reader_next) opens the next. */
				r->pending = msg;
				r->has_pending = true;
				break;
			}
			b->formatted = false;
		}
		if (msg.type != STRATA_CTF_MSG_EVENT) {
			ret = copy_other(b, m, &msg);
		} else {
			if (b->formatted)
				ctf_pretty_format(r->fmt, msg.event);
			else
				ret = copy_event(r, b, m, msg.event);
			ctf_pretty_track(r->fmt, &r->times, msg.event);
		}
		if (ret < 0) {
			b->error = ret;
			break;
		}
		b->n++;
	}
	if (b->formatted)
		ctf_pretty_swap_line(r->fmt, &b->text);
	return !b->end && !b->error;
}

/*
 * The helper formats a batch itself, saving the copy, when the printing
 * thread is far behind: all the ring but this batch waits for it. Sooner
 * costs more than it saves: the formatted text is larger than the copy and
 * crosses CPUs too (with half the ring of 4 batches, `strata view` of the
 * benchmark trace took 0.53 s against 0.50 s with 7 of 8, median of 12
 * runs in turn; docs/benchmarks.md).
 */
static bool self_format(const struct run *r)
{
	switch (r->self_mode) {
	case CTF_RUN_SELF_NEVER:
		return false;
	case CTF_RUN_SELF_ALWAYS:
		return !r->negative_seen;
	default:
		return !r->negative_seen && r->filled >= RUN_NBATCH - 1;
	}
}

static void *producer(void *arg)
{
	struct run *r = arg;
	bool more = true;

	while (more) {
		struct run_batch *b;
		bool self;

		pthread_mutex_lock(&r->lock);
		while (r->filled == RUN_NBATCH && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		b = &r->batches[r->head];
		self = self_format(r);
		pthread_mutex_unlock(&r->lock);

		more = fill_batch(r, b, self);
#if defined(__x86_64__)
		/* Streaming stores are weakly ordered: all of them before filled grows. */
		__builtin_ia32_sfence();
#endif

		/* Release: the consumer reads b only after seeing filled grow. */
		pthread_mutex_lock(&r->lock);
		r->head = (r->head + 1) % RUN_NBATCH;
		r->filled++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* Puts one instance's payloads (see copy_words()) into the shape. */
static void fill_shape(struct run_shape *sh, const uint64_t *w, uint64_t gen)
{
	struct ctf_value *v = sh->vals;

	/* The same words again: events of one packet share its context's. */
	if (sh->filled == w && sh->filled_gen == gen)
		return;
	sh->filled = w;
	sh->filled_gen = gen;

	for (uint32_t i = 0; i < sh->n_vals; i++)
		v[i].u = w[i];
	for (uint32_t t = 0; t < sh->n_text; t++)
		v[sh->text_off[t]].str.len = (uint32_t)w[sh->n_vals + t];
}

/* Prints one batch; returns 0, 1 at the end of the traces, or < 0. */
static int print_batch(struct strata_ctf_pretty *p, struct run_batch *b, uint64_t gen)
{
	if (b->formatted) {
		int ret = ctf_pretty_write(p, &b->text);

		if (ret < 0)
			return ret;
		goto out;
	}
	ctf_pretty_set_times(p, &b->start);
	for (size_t i = 0; i < b->n; i++) {
		const struct run_msg *m = &b->msgs[i];
		struct strata_ctf_event ev;
		struct strata_ctf_msg msg;
		int ret;

		if (m->other) {
			ret = strata_ctf_pretty_print(p, &b->others[m->off[0]]);
			if (ret < 0)
				return ret;
			continue;
		}
		ev = (struct strata_ctf_event){
			.trace = m->trace,
			.sc = m->sc,
			.ec = m->ec,
			.has_clock = m->has_clock,
			.cycles = m->cycles,
			.ns = m->ns,
		};
		for (size_t k = 0; k < ARRAY_SIZE(printed_scopes); k++) {
			struct run_shape *sh = m->shape[k];

			if (m->off[k] == NO_SCOPE)
				continue;
			if (sh) {
				fill_shape(sh, b->words + m->off[k], gen);
				ev.scope[printed_scopes[k]] = sh->vals;
			} else {
				ev.scope[printed_scopes[k]] = b->vals + m->off[k];
			}
		}
		msg.type = STRATA_CTF_MSG_EVENT;
		msg.event = &ev;
		ret = strata_ctf_pretty_print(p, &msg);
		if (ret < 0)
			return ret;
	}
out:
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
		free(b->others);
		free(b->vals);
		free(b->words);
		ctf_pbuf_release(&b->text);
	}
	strata_ctf_pretty_destroy(r->fmt);
	while (r->shapes) {
		struct run_shape *sh = r->shapes;

		r->shapes = sh->next;
		free(sh);
	}
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
}

int strata_ctf_pretty_run(struct strata_ctf_pretty *p, struct strata_ctf_reader *reader)
{
	return ctf_pretty_run_with(p, reader, CTF_RUN_SELF_ADAPTIVE, RUN_BATCH);
}

int ctf_pretty_run_with(struct strata_ctf_pretty *p, struct strata_ctf_reader *reader,
			enum ctf_run_self self, size_t batch)
{
	struct run r = { .reader = reader, .self_mode = self };
	pthread_t thread;
	int ret = 0;

	r.batch = batch ? MIN(batch, (size_t)RUN_BATCH) : RUN_BATCH;
	ctf_pretty_times_init(&r.times);
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	r.fmt = ctf_pretty_clone(p);
	if (!r.fmt) {
		run_release(&r);
		return -ENOMEM;
	}
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
	for (uint64_t gen = 1;; gen++) {
		struct run_batch *b;

		pthread_mutex_lock(&r.lock);
		while (r.filled == 0)
			pthread_cond_wait(&r.cond, &r.lock);
		b = &r.batches[r.tail];
		pthread_mutex_unlock(&r.lock);

		ret = print_batch(p, b, gen);

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
