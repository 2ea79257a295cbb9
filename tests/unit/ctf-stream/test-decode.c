/* SPDX-License-Identifier: MIT */
/*
 * Stream decoder unit tests on hand-built trace classes: bit packing in both
 * byte orders (ctf.md §1.6 worked examples), timestamp wrap (§1.9), clock
 * conversion (§1.8), discarded accounting (§1.10), merge ties (§3.1) and
 * malformed packets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <strata/error.h>

#include "ctf/decode.h"
#include "ctf/merge.h"
#include "ctf/stream.h"
#include "common/common.h"

/* --- allocation pool: everything a test builds is freed at once ---------- */

static void *pool[4096];
static size_t n_pool;

static void *zalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	assert_non_null(p);
	assert_true(n_pool < ARRAY_SIZE(pool));
	pool[n_pool++] = p;
	return p;
}

static char *sdup(const char *s)
{
	char *p = zalloc(strlen(s) + 1);

	memcpy(p, s, strlen(s));
	return p;
}

static void pool_free(void)
{
	while (n_pool)
		free(pool[--n_pool]);
}

/* --- type builders -------------------------------------------------------- */

static struct ctf_type *t_int(unsigned size, unsigned align, bool sgn, enum ctf_byte_order bo,
			      int clock, enum ctf_meaning m)
{
	struct ctf_type *t = zalloc(sizeof(*t));

	t->kind = CTF_TYPE_INT;
	t->align = align;
	t->integer.size = size;
	t->integer.is_signed = sgn;
	t->integer.bo = bo;
	t->integer.base = 10;
	t->integer.clock = clock;
	t->integer.meaning = m;
	return t;
}

static struct ctf_type *t_struct(size_t n, const char *const *names, struct ctf_type **types)
{
	struct ctf_type *t = zalloc(sizeof(*t));

	t->kind = CTF_TYPE_STRUCT;
	t->align = 1;
	t->structure.n_fields = n;
	t->structure.fields = zalloc(n * sizeof(*t->structure.fields));
	for (size_t i = 0; i < n; i++) {
		t->structure.fields[i].name = sdup(names[i]);
		t->structure.fields[i].orig_name = sdup(names[i]);
		t->structure.fields[i].type = types[i];
		t->align = MAX(t->align, types[i]->align);
	}
	return t;
}

static struct ctf_field_path *path1(enum ctf_scope scope, uint32_t len, const uint32_t *idx)
{
	struct ctf_field_path *p = zalloc(sizeof(*p));

	p->scope = scope;
	p->len = len;
	p->index = zalloc(len * sizeof(*p->index));
	memcpy(p->index, idx, len * sizeof(*idx));
	return p;
}

/*
 * LTTng's compact event header: enum : uint5 { compact = 0 ... 30,
 * extended = 31 } id; variant <id> { struct { uint27 ts; } compact;
 * struct { uint32 id; uint64 ts; } extended; } v; align(8).
 */
/* A sequence of uint8 whose length is member m of scope's root. */
static struct ctf_type *t_seq_u8(enum ctf_scope scope, uint32_t m)
{
	struct ctf_type *seq = zalloc(sizeof(*seq));

	seq->kind = CTF_TYPE_SEQUENCE;
	seq->align = 8;
	seq->sequence.elem = t_int(8, 8, false, CTF_BO_LE, -1, 0);
	seq->sequence.length = *path1(scope, 1, &m);
	return seq;
}

/* A sequence of elem (text: 8-bit chars) whose length is member m of scope's root. */
static struct ctf_type *t_seq(struct ctf_type *elem, bool text, enum ctf_scope scope, uint32_t m)
{
	struct ctf_type *seq = zalloc(sizeof(*seq));

	seq->kind = CTF_TYPE_SEQUENCE;
	seq->align = elem->align;
	seq->sequence.elem = elem;
	seq->sequence.is_text = text;
	seq->sequence.length = *path1(scope, 1, &m);
	return seq;
}

static struct ctf_type *compact_header(enum ctf_byte_order bo, int clock)
{
	struct ctf_type *e = zalloc(sizeof(*e)), *v = zalloc(sizeof(*v)), *hdr;
	struct ctf_type *c_ts = t_int(27, 1, false, bo, clock, CTF_MEANING_TIMESTAMP);
	struct ctf_type *x_id = t_int(32, 8, false, bo, -1, CTF_MEANING_EVENT_ID);
	struct ctf_type *x_ts = t_int(64, 8, false, bo, clock, CTF_MEANING_TIMESTAMP);
	static const uint32_t zero = 0;

	e->kind = CTF_TYPE_ENUM;
	e->align = 1;
	e->enumeration.container = t_int(5, 1, false, bo, -1, CTF_MEANING_EVENT_ID);
	e->enumeration.n_mappings = 2;
	e->enumeration.mappings = zalloc(2 * sizeof(*e->enumeration.mappings));
	e->enumeration.mappings[0].label = sdup("compact");
	e->enumeration.mappings[0].lo.u = 0;
	e->enumeration.mappings[0].hi.u = 30;
	e->enumeration.mappings[1].label = sdup("extended");
	e->enumeration.mappings[1].lo.u = 31;
	e->enumeration.mappings[1].hi.u = 31;

	v->kind = CTF_TYPE_VARIANT;
	v->align = 1;
	v->variant.n_options = 2;
	v->variant.options = zalloc(2 * sizeof(*v->variant.options));
	v->variant.options[0].name = sdup("compact");
	v->variant.options[0].orig_name = sdup("compact");
	v->variant.options[0].type = t_struct(1, (const char *[]){ "timestamp" }, &c_ts);
	v->variant.options[1].name = sdup("extended");
	v->variant.options[1].orig_name = sdup("extended");
	v->variant.options[1].type = t_struct(2, (const char *[]){ "id", "timestamp" },
					      (struct ctf_type *[]){ x_id, x_ts });
	v->variant.tag_name = sdup("id");
	v->variant.tag = *path1(CTF_SCOPE_EVENT_HEADER, 1, &zero);

	hdr = t_struct(2, (const char *[]){ "id", "v" }, (struct ctf_type *[]){ e, v });
	hdr->align = 8;
	return hdr;
}

static struct ctf_trace_class *tc_new(void)
{
	struct ctf_trace_class *tc = zalloc(sizeof(*tc));

	tc->major = 1;
	tc->minor = 8;
	tc->bo = CTF_BO_LE;
	return tc;
}

static void tc_add_clock(struct ctf_trace_class *tc, uint64_t freq, int64_t off_s, uint64_t off_c)
{
	tc->clocks = zalloc(sizeof(*tc->clocks));
	tc->n_clocks = 1;
	tc->clocks[0].name = sdup("monotonic");
	tc->clocks[0].freq = freq;
	tc->clocks[0].offset_s = off_s;
	tc->clocks[0].offset_cycles = off_c;
}

static struct ctf_stream_class *tc_add_sc(struct ctf_trace_class *tc, uint64_t id)
{
	struct ctf_stream_class *sc = zalloc(sizeof(*sc));
	struct ctf_stream_class **arr = zalloc((tc->n_streams + 1) * sizeof(*arr));

	if (tc->n_streams)
		memcpy(arr, tc->streams, tc->n_streams * sizeof(*arr));
	arr[tc->n_streams++] = sc;
	tc->streams = arr;
	sc->id = id;
	sc->default_clock = tc->n_clocks ? 0 : -1;
	return sc;
}

static struct ctf_event_class *sc_add_ec(struct ctf_stream_class *sc, uint64_t id, const char *name,
					 struct ctf_type *payload)
{
	struct ctf_event_class *ec = zalloc(sizeof(*ec));
	struct ctf_event_class **arr = zalloc((sc->n_events + 1) * sizeof(*arr));

	if (sc->n_events)
		memcpy(arr, sc->events, sc->n_events * sizeof(*arr));
	arr[sc->n_events++] = ec;
	sc->events = arr;
	ec->id = id;
	ec->name = sdup(name);
	ec->stream_class_id = sc->id;
	ec->payload = payload;
	return ec;
}

/* Decode one root struct from bytes; returns the error code. */
static int decode_bytes(const struct ctf_trace_class *tc, const struct ctf_type *root,
			enum ctf_scope scope, const uint8_t *bytes, size_t n,
			struct ctf_values *vals, uint64_t *clock)
{
	struct ctf_trace_dec *td;
	struct dnode *dn;
	struct ctf_dec d = { 0 };
	uint32_t idx;
	int r;

	/* Compile the root through a throwaway stream class holding it. */
	struct ctf_trace_class tmp = *tc;
	struct ctf_stream_class sc = { .id = 0, .default_clock = -1 };
	struct ctf_stream_class *scp = &sc;

	tmp.streams = &scp;
	tmp.n_streams = 1;
	sc.event_header = (struct ctf_type *)root;
	assert_int_equal(ctf_trace_dec_create(&tmp, &td, NULL, 0), 0);
	dn = td->scs[0].event_header;
	d.base = bytes;
	d.end = n * 8;
	d.out = vals;
	d.clock = clock;
	vals->n = 0;
	r = ctf_dec_root(&d, scope, dn, &idx);
	ctf_trace_dec_destroy(td);
	return r;
}

/* --- tests ----------------------------------------------------------------- */

static void test_bits_compact_header(void **state)
{
	static const uint8_t le[] = { 0xe3, 0xac, 0x68, 0x24 };
	static const uint8_t be[] = { 0x19, 0x23, 0x45, 0x67 };

	(void)state;
	assert_int_equal(ctf_read_bits_le(le, 0, 5), 3);
	assert_int_equal(ctf_read_bits_le(le, 5, 27), 0x1234567);
	assert_int_equal(ctf_read_bits_be(be, 0, 5), 3);
	assert_int_equal(ctf_read_bits_be(be, 5, 27), 0x1234567);
	/* 64-bit fields at odd offsets. */
	{
		uint8_t buf[9] = { 0 };
		uint64_t v = UINT64_C(0xFEDCBA9876543210);

		for (int i = 0; i < 64; i++)
			if (v >> i & 1)
				buf[(i + 3) / 8] |= (uint8_t)(1u << ((i + 3) % 8));
		assert_true(ctf_read_bits_le(buf, 3, 64) == v);
	}
}

static void check_bitfields(enum ctf_byte_order bo, const uint8_t *bytes)
{
	struct ctf_trace_class *tc = tc_new();
	struct ctf_type *root = t_struct(4, (const char *[]){ "a", "b", "c", "d" },
					 (struct ctf_type *[]){ t_int(3, 1, true, bo, -1, 0),
								t_int(5, 1, false, bo, -1, 0),
								t_int(12, 1, false, bo, -1, 0),
								t_int(4, 1, true, bo, -1, 0) });
	struct ctf_values vals = { 0 };

	assert_int_equal(decode_bytes(tc, root, CTF_SCOPE_EVENT_HEADER, bytes, 3, &vals, NULL), 0);
	assert_int_equal(vals.n, 5);
	assert_int_equal(vals.v[0].nsub, 4);
	assert_int_equal(vals.v[1].s, -3);
	assert_int_equal(vals.v[2].u, 0x16);
	assert_int_equal(vals.v[3].u, 07531);
	assert_int_equal(vals.v[4].s, -2);
	ctf_values_release(&vals);
	pool_free();
}

static void test_bits_fields_le_be(void **state)
{
	static const uint8_t le[] = { 0xb5, 0x59, 0xef };
	static const uint8_t be[] = { 0xb6, 0xf5, 0x9e };

	(void)state;
	check_bitfields(CTF_BO_LE, le);
	check_bitfields(CTF_BO_BE, be);
}

static void check_extended(enum ctf_byte_order bo, const uint8_t *bytes)
{
	struct ctf_trace_class *tc = tc_new();
	struct ctf_values vals = { 0 };
	uint64_t clock = 5;

	tc_add_clock(tc, 1000000000, 0, 0);
	assert_int_equal(decode_bytes(tc, compact_header(bo, 0), CTF_SCOPE_EVENT_HEADER, bytes, 13,
				      &vals, &clock),
			 0);
	/* struct, enum, variant, struct, id, ts */
	assert_int_equal(vals.n, 6);
	assert_int_equal(vals.v[1].u, 31);
	assert_int_equal(vals.v[2].option, 1);
	assert_int_equal(vals.v[4].u, 7);
	assert_true(vals.v[5].u == UINT64_C(0x1122334455667788));
	assert_true(clock == UINT64_C(0x1122334455667788));
	ctf_values_release(&vals);
	pool_free();
}

static void test_bits_extended_header(void **state)
{
	static const uint8_t le[] = { 0x1f, 0x07, 0,	0,    0,    0x88, 0x77,
				      0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
	static const uint8_t be[] = { 0xf8, 0,	  0,	0,    0x07, 0x11, 0x22,
				      0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

	(void)state;
	check_extended(CTF_BO_LE, le);
	check_extended(CTF_BO_BE, be);
}

/*
 * Which scope roots get a shape (struct dshape): fixed trees, and trees
 * fixed but for a variant ending them (event headers); not sequences. A
 * shape that runs out of bytes leaves the error to the program.
 */
static void test_shapes(void **state)
{
	static const uint8_t le[] = { 0x1f, 0x07, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44 };
	struct ctf_trace_class *tc = tc_new();
	struct ctf_type *flat =
		t_struct(2, (const char *[]){ "a", "b" },
			 (struct ctf_type *[]){ t_int(16, 8, true, CTF_BO_LE, -1, 0),
						t_int(32, 8, false, CTF_BO_BE, -1, 0) });
	struct ctf_type *seq;
	struct ctf_type *with_seq;
	struct ctf_stream_class *sc;
	struct ctf_trace_dec *td;
	struct ctf_values vals = { 0 };
	uint64_t clock = 0;

	(void)state;
	seq = t_seq_u8(CTF_SCOPE_EVENT_PAYLOAD, 0);
	with_seq = t_struct(2, (const char *[]){ "n", "s" },
			    (struct ctf_type *[]){ t_int(8, 8, false, CTF_BO_LE, -1, 0), seq });
	tc_add_clock(tc, 1000000000, 0, 0);
	sc = tc_add_sc(tc, 0);
	sc->event_header = compact_header(CTF_BO_LE, 0);
	sc_add_ec(sc, 0, "flat", flat);
	sc_add_ec(sc, 1, "seq", with_seq);
	assert_int_equal(ctf_trace_dec_create(tc, &td, NULL, 0), 0);
	assert_non_null(td->scs[0].event_header->shape);
	assert_non_null(td->scs[0].event_header->shape->var);
	/* Its fields sit at fixed bits once the option is known: a head. */
	assert_non_null(td->scs[0].event_header->shape->head);
	assert_int_equal(td->scs[0].event_header->shape->head->tag.size, 5);
	/* compact: id, ts; extended: id, id, ts */
	assert_int_equal(td->scs[0].event_header->shape->head->opts[0].n_leaves, 2);
	assert_int_equal(td->scs[0].event_header->shape->head->opts[1].n_leaves, 3);
	assert_int_equal(td->scs[0].event_header->shape->head->opts[1].bits, 104);
	assert_non_null(td->scs[0].ecs[0].payload->shape);
	assert_null(td->scs[0].ecs[0].payload->shape->var);
	/* A sequence after its length: a shape too, with no tail variant. */
	assert_non_null(td->scs[0].ecs[1].payload->shape);
	assert_null(td->scs[0].ecs[1].payload->shape->var);
	ctf_trace_dec_destroy(td);
	/* The reference compiles none. */
	assert_int_equal(ctf_trace_dec_create_opts(tc, true, &td, NULL, 0), 0);
	assert_null(td->scs[0].event_header->shape);
	ctf_trace_dec_destroy(td);
	/* An extended header cut short: the program's error, nothing kept. */
	assert_int_equal(decode_bytes(tc, compact_header(CTF_BO_LE, 0), CTF_SCOPE_EVENT_HEADER, le,
				      sizeof(le), &vals, &clock),
			 -STRATA_ESTREAM);
	ctf_values_release(&vals);
	pool_free();
}

/* Decode root as an event header with the compiled tables; the error text in *err. */
static int decode_prog(const struct ctf_trace_dec *td, const uint8_t *bytes, size_t n,
		       struct ctf_values *vals, const char **err)
{
	struct ctf_dec d = { 0 };
	uint32_t idx;
	int r;

	d.base = bytes;
	d.end = n * 8;
	d.out = vals;
	vals->n = 0;
	r = ctf_dec_root(&d, CTF_SCOPE_EVENT_HEADER, td->scs[0].event_header, &idx);
	*err = d.err;
	return r;
}

/*
 * A sequence whose length is an earlier member of its struct takes it a
 * fixed number of values back (DP_SEQUENCE), without walking the field
 * path; a negative signed length is still an error.
 */
static void test_sequence_sibling_length(void **state)
{
	/* n = 2, mid = 0x0102 (big-endian), seq = { 7, 9 }, tail = -2 (big-endian) */
	static const uint8_t ok[] = { 2, 0x01, 0x02, 7, 9, 0xff, 0xfe };
	static const uint8_t neg[] = { 0xff, 0x01, 0x02, 7, 9, 0xff, 0xfe };
	struct ctf_trace_class *tc = tc_new();
	struct ctf_type *seq;
	struct ctf_type *root;
	struct ctf_stream_class *sc;
	struct ctf_trace_dec *td;
	const struct dprog *pg;
	struct ctf_values vals = { 0 };
	const char *err;
	bool found = false;

	(void)state;
	seq = t_seq_u8(CTF_SCOPE_EVENT_HEADER, 0);
	root = t_struct(4, (const char *[]){ "n", "mid", "seq", "tail" },
			(struct ctf_type *[]){ t_int(8, 8, true, CTF_BO_LE, -1, 0),
					       t_int(16, 8, false, CTF_BO_BE, -1, 0), seq,
					       t_int(16, 8, true, CTF_BO_BE, -1, 0) });
	sc = tc_add_sc(tc, 0);
	sc->event_header = root;
	assert_int_equal(ctf_trace_dec_create(tc, &td, NULL, 0), 0);
	pg = td->scs[0].event_header->prog;
	assert_non_null(pg);
	for (uint32_t i = 0; i < pg->n; i++)
		if (pg->insn[i].op == DP_SEQUENCE) {
			/* Its value, then mid's, then n's. */
			assert_int_equal(pg->insn[i].n, 2);
			assert_true(pg->insn[i].len_signed);
			found = true;
		}
	assert_true(found);
	assert_int_equal(decode_prog(td, ok, sizeof(ok), &vals, &err), 0);
	/* root, n, mid, seq, seq[0], seq[1], tail */
	assert_int_equal(vals.n, 7);
	assert_int_equal(vals.v[2].u, 0x0102);
	assert_int_equal(vals.v[3].count, 2);
	assert_int_equal(vals.v[4].u, 7);
	assert_int_equal(vals.v[5].u, 9);
	assert_int_equal(vals.v[6].s, -2);
	assert_int_equal(decode_prog(td, neg, sizeof(neg), &vals, &err), -STRATA_ESTREAM);
	assert_string_equal(err, "negative sequence length");
	ctf_trace_dec_destroy(td);
	/* The tree walk agrees on both. */
	assert_int_equal(ctf_trace_dec_create_opts(tc, true, &td, NULL, 0), 0);
	assert_null(td->scs[0].event_header->prog);
	assert_int_equal(decode_prog(td, ok, sizeof(ok), &vals, &err), 0);
	assert_int_equal(vals.n, 7);
	assert_int_equal(vals.v[5].u, 9);
	assert_int_equal(vals.v[6].s, -2);
	assert_int_equal(decode_prog(td, neg, sizeof(neg), &vals, &err), -STRATA_ESTREAM);
	assert_string_equal(err, "negative sequence length");
	ctf_trace_dec_destroy(td);
	ctf_values_release(&vals);
	pool_free();
}

/*
 * Decode n bytes as the event header root, with the compiled tables or
 * the generic tree walk; the error text in *err. The bytes are copied to
 * a buffer of exactly n bytes (*copy, for the caller to free once done
 * with the values), so that reading past them is caught.
 */
static int decode_exact(const struct ctf_trace_class *tc, bool generic, const uint8_t *bytes,
			size_t n, struct ctf_values *vals, const char **err, uint8_t **copy)
{
	struct ctf_trace_dec *td;
	int r;

	*copy = malloc(n ? n : 1);
	assert_non_null(*copy);
	memcpy(*copy, bytes, n);
	assert_int_equal(ctf_trace_dec_create_opts(tc, generic, &td, NULL, 0), 0);
	r = decode_prog(td, *copy, n, vals, err);
	ctf_trace_dec_destroy(td);
	return r;
}

/*
 * A root whose members are fixed but for sequences whose length is an
 * earlier member (LTTng's `_x_length, x`) has a shape too ("Sequences" in
 * decode.h): elements of one flat type or text, the values after each
 * sequence moved by its count. The same values and errors as the tree
 * walk: empty, one element, enough to grow the value array, a negative
 * length, elements or text past the end.
 */
static void test_sequence_shape(void **state)
{
	struct ctf_trace_class *tc = tc_new();
	struct ctf_type *root;
	struct ctf_stream_class *sc;
	struct ctf_trace_dec *td;
	const struct dshape *sh;
	struct ctf_values a = { 0 }, b = { 0 };
	unsigned n_seq = 0, n_tseq = 0;
	uint8_t buf[256], *ca, *cb;
	const char *ea, *eb;

	(void)state;
	/* n (s8), a (u16), seq (u16 BE)[n], tl (u8), txt (text)[tl], tail (u32) */
	root = t_struct(6, (const char *[]){ "n", "a", "seq", "tl", "txt", "tail" },
			(struct ctf_type *[]){ t_int(8, 8, true, CTF_BO_LE, -1, 0),
					       t_int(16, 8, false, CTF_BO_LE, -1, 0),
					       t_seq(t_int(16, 8, false, CTF_BO_BE, -1, 0), false,
						     CTF_SCOPE_EVENT_HEADER, 0),
					       t_int(8, 8, false, CTF_BO_LE, -1, 0),
					       t_seq(t_int(8, 8, false, CTF_BO_LE, -1, 0), true,
						     CTF_SCOPE_EVENT_HEADER, 3),
					       t_int(32, 8, false, CTF_BO_LE, -1, 0) });
	sc = tc_add_sc(tc, 0);
	sc->event_header = root;
	assert_int_equal(ctf_trace_dec_create(tc, &td, NULL, 0), 0);
	sh = td->scs[0].event_header->shape;
	assert_non_null(sh);
	/* root, n, a, seq | tl, txt | tail */
	assert_int_equal(sh->n_vals, 7);
	assert_int_equal(sh->n_first, 4);
	for (uint32_t i = 0; i < sh->n_ops; i++) {
		if (sh->ops[i].op == DS_SEQ) {
			assert_int_equal(sh->ops[i].n, 2); /* a, then n */
			assert_int_equal(sh->ops[i].seg_end, 6);
			n_seq++;
		} else if (sh->ops[i].op == DS_TSEQ) {
			assert_int_equal(sh->ops[i].n, 1);
			assert_int_equal(sh->ops[i].seg_end, 7);
			n_tseq++;
		}
	}
	assert_int_equal(n_seq, 1);
	assert_int_equal(n_tseq, 1);
	ctf_trace_dec_destroy(td);

	/* count: the elements; text: its length and bytes. */
	for (int count = -1; count <= 60; count++) {
		size_t n = 0;

		buf[n++] = (uint8_t)count;
		buf[n++] = 0x02;
		buf[n++] = 0x01;
		for (int k = 0; k < count; k++) {
			buf[n++] = (uint8_t)(k >> 8);
			buf[n++] = (uint8_t)(k * 7 + 1);
		}
		buf[n++] = 3;
		memcpy(&buf[n], "ab", 3);
		n += 3;
		memcpy(&buf[n], "\xef\xbe\xad\xde", 4);
		n += 4;
		/* Whole, then cut in the elements, the text and the tail. */
		for (size_t cut = 0; cut <= 9 && cut < n; cut += (count == 2 ? 1 : 4)) {
			int ra = decode_exact(tc, false, buf, n - cut, &a, &ea, &ca);
			int rb = decode_exact(tc, true, buf, n - cut, &b, &eb, &cb);

			assert_int_equal(ra, rb);
			free(cb);
			if (ra < 0) {
				free(ca);
				assert_string_equal(ea, eb);
				continue;
			}
			assert_int_equal(a.n, b.n);
			for (uint32_t i = 0; i < a.n; i++) {
				assert_ptr_equal(a.v[i].type, b.v[i].type);
				assert_int_equal(a.v[i].nsub, b.v[i].nsub);
			}
			assert_true(a.v[0].count == 6);
			assert_true(a.v[3].count == (uint64_t)count);
			for (int k = 0; k < count; k++)
				assert_true(a.v[4 + k].u ==
					    (uint64_t)(((k >> 8) << 8) | ((k * 7 + 1) & 0xff)));
			assert_true(a.v[4 + count].u == 3);
			assert_int_equal(a.v[5 + count].str.len, 2);
			assert_memory_equal(a.v[5 + count].str.ptr, "ab", 2);
			assert_true(a.v[6 + count].u == 0xdeadbeef);
			free(ca);
		}
		if (count == -1) {
			assert_int_equal(decode_exact(tc, false, buf, n, &a, &ea, &ca),
					 -STRATA_ESTREAM);
			free(ca);
			assert_string_equal(ea, "negative sequence length");
		}
	}
	/*
	 * Elements aligned more than the sequence: the tree walk aligns each,
	 * and so must the shape (n = 1, 3 bytes of padding, then 7).
	 */
	{
		static const uint8_t pad[] = { 1, 0, 0, 0, 7, 0, 0, 0 };
		struct ctf_trace_class *tc2 = tc_new();
		struct ctf_type *seq = t_seq(t_int(32, 32, false, CTF_BO_LE, -1, 0), false,
					     CTF_SCOPE_EVENT_HEADER, 0);

		seq->align = 8;
		tc_add_sc(tc2, 0)->event_header = t_struct(
			2, (const char *[]){ "n", "s" },
			(struct ctf_type *[]){ t_int(8, 8, false, CTF_BO_LE, -1, 0), seq });
		assert_int_equal(decode_exact(tc2, false, pad, sizeof(pad), &a, &ea, &ca), 0);
		assert_int_equal(decode_exact(tc2, true, pad, sizeof(pad), &b, &eb, &cb), 0);
		free(ca);
		free(cb);
		assert_int_equal(a.n, 4);
		assert_int_equal(b.n, 4);
		assert_true(a.v[3].u == 7 && b.v[3].u == 7);
	}
	/* Text longer than what is left. */
	{
		static const uint8_t past[] = { 0, 0x02, 0x01, 50, 'a', 'b', 0, 1, 2, 3, 4 };

		assert_int_equal(decode_exact(tc, false, past, sizeof(past), &a, &ea, &ca),
				 -STRATA_ESTREAM);
		assert_int_equal(decode_exact(tc, true, past, sizeof(past), &b, &eb, &cb),
				 -STRATA_ESTREAM);
		free(ca);
		free(cb);
		assert_string_equal(ea, eb);
	}
	ctf_values_release(&a);
	ctf_values_release(&b);
	pool_free();
}

/*
 * A shape's run in the other byte order loads 8 bytes at once and swaps
 * them (flat_bits()), as a native run shifts: the same values as the
 * tree walk, signed ones extended.
 */
static void test_swapped_run(void **state)
{
	/* a = 0x0102 (BE), b = -2 (BE s32), c = 0x0304 (LE), then bytes to read past */
	static const uint8_t bytes[] = { 0x01, 0x02, 0xff, 0xff, 0xff, 0xfe, 0x04, 0x03,
					 0,    0,    0,	   0,	 0,    0,    0,	   0 };
	struct ctf_trace_class *tc = tc_new();
	struct ctf_type *root =
		t_struct(3, (const char *[]){ "a", "b", "c" },
			 (struct ctf_type *[]){ t_int(16, 8, false, CTF_BO_BE, -1, 0),
						t_int(32, 8, true, CTF_BO_BE, -1, 0),
						t_int(16, 8, false, CTF_BO_LE, -1, 0) });
	struct ctf_values vals = { 0 };

	(void)state;
	assert_int_equal(
		decode_bytes(tc, root, CTF_SCOPE_EVENT_HEADER, bytes, sizeof(bytes), &vals, NULL),
		0);
	assert_int_equal(vals.n, 4);
	assert_int_equal(vals.v[1].u, 0x0102);
	assert_int_equal(vals.v[2].s, -2);
	assert_int_equal(vals.v[3].u, 0x0304);
	ctf_values_release(&vals);
	pool_free();
}

/*
 * An event class whose scopes after the header all have shapes gets one
 * body shape for the three, each root at its own value index.
 */
static void test_body_shape(void **state)
{
	struct ctf_trace_class *tc = tc_new();
	struct ctf_type *seq;
	struct ctf_stream_class *sc;
	struct ctf_event_class *ec;
	struct ctf_trace_dec *td;
	const struct ctf_ec_dec *ecd;

	(void)state;
	seq = t_seq_u8(CTF_SCOPE_EVENT_PAYLOAD, 0);
	tc_add_clock(tc, 1000000000, 0, 0);
	sc = tc_add_sc(tc, 0);
	sc->event_header = compact_header(CTF_BO_LE, 0);
	sc->event_context = t_struct(2, (const char *[]){ "pid", "tid" },
				     (struct ctf_type *[]){ t_int(32, 8, true, CTF_BO_LE, -1, 0),
							    t_int(32, 8, true, CTF_BO_LE, -1, 0) });
	ec = sc_add_ec(sc, 0, "flat",
		       t_struct(1, (const char *[]){ "a" },
				(struct ctf_type *[]){ t_int(16, 8, true, CTF_BO_LE, -1, 0) }));
	ec->context = t_struct(1, (const char *[]){ "c" },
			       (struct ctf_type *[]){ t_int(8, 8, false, CTF_BO_LE, -1, 0) });
	sc_add_ec(sc, 1, "seq",
		  t_struct(2, (const char *[]){ "n", "s" },
			   (struct ctf_type *[]){ t_int(8, 8, false, CTF_BO_LE, -1, 0), seq }));
	assert_int_equal(ctf_trace_dec_create(tc, &td, NULL, 0), 0);
	ecd = &td->scs[0].ecs[0];
	assert_non_null(ecd->body);
	/* stream context: 3 values, event context: 2, payload: 2 */
	assert_int_equal(ecd->body->n_vals, 7);
	assert_int_equal(ecd->body_idx[CTF_BODY_STREAM_CONTEXT], 0);
	assert_int_equal(ecd->body_idx[CTF_BODY_CONTEXT], 3);
	assert_int_equal(ecd->body_idx[CTF_BODY_PAYLOAD], 5);
	assert_ptr_equal(ecd->body->tmpl[5].type, ec->payload);
	/* A sequence in the payload, the last scope: a body shape too. */
	assert_non_null(td->scs[0].ecs[1].body);
	assert_int_equal(td->scs[0].ecs[1].body->n_vals, 6);
	assert_int_equal(td->scs[0].ecs[1].body->n_first, 6);
	ctf_trace_dec_destroy(td);
	/* In an earlier scope it would move the payload's root: no body. */
	sc->event_context =
		t_struct(3, (const char *[]){ "pid", "n", "s" },
			 (struct ctf_type *[]){ t_int(32, 8, true, CTF_BO_LE, -1, 0),
						t_int(8, 8, false, CTF_BO_LE, -1, 0),
						t_seq_u8(CTF_SCOPE_STREAM_EVENT_CONTEXT, 1) });
	assert_int_equal(ctf_trace_dec_create(tc, &td, NULL, 0), 0);
	assert_non_null(td->scs[0].event_context->shape);
	assert_null(td->scs[0].ecs[0].body);
	assert_null(td->scs[0].ecs[1].body);
	ctf_trace_dec_destroy(td);
	assert_int_equal(ctf_trace_dec_create_opts(tc, true, &td, NULL, 0), 0);
	assert_null(td->scs[0].ecs[0].body);
	ctf_trace_dec_destroy(td);
	pool_free();
}

static void test_timestamp_wrap(void **state)
{
	struct ctf_trace_class *tc = tc_new();
	struct ctf_type *hdr;
	struct ctf_values vals = { 0 };
	uint64_t clock = UINT64_C(0x5000000) | (UINT64_C(7) << 27); /* low 27 bits: 0x5000000 */
	uint8_t b[4];
	uint32_t w;

	(void)state;
	tc_add_clock(tc, 1000000000, 0, 0);
	hdr = compact_header(CTF_BO_LE, 0);
	/* Compact id 1, ts 0x10: smaller than the low bits → one wrap. */
	w = (0x10u << 5) | 1;
	memcpy(b, &w, 4);
	assert_int_equal(decode_bytes(tc, hdr, CTF_SCOPE_EVENT_HEADER, b, 4, &vals, &clock), 0);
	assert_true(clock == ((UINT64_C(8) << 27) | 0x10));
	/* Larger low bits: no wrap. */
	w = (0x20u << 5) | 1;
	memcpy(b, &w, 4);
	assert_int_equal(decode_bytes(tc, hdr, CTF_SCOPE_EVENT_HEADER, b, 4, &vals, &clock), 0);
	assert_true(clock == ((UINT64_C(8) << 27) | 0x20));
	/* Equal low bits: no wrap either. */
	assert_int_equal(decode_bytes(tc, hdr, CTF_SCOPE_EVENT_HEADER, b, 4, &vals, &clock), 0);
	assert_true(clock == ((UINT64_C(8) << 27) | 0x20));
	ctf_values_release(&vals);
	pool_free();
}

static void test_clock_conversion(void **state)
{
	struct ctf_trace_class *tc = tc_new();
	struct ctf_trace_dec *td;
	int64_t ns;

	(void)state;
	/* 1 GHz, offset 1 s + 5 cycles. */
	tc_add_clock(tc, 1000000000, 1, 5);
	assert_int_equal(ctf_trace_dec_create(tc, &td, NULL, 0), 0);
	assert_true(ctf_clock_to_ns(td, 0, 10, &ns));
	assert_int_equal(ns, INT64_C(1000000015));
	assert_false(ctf_clock_to_ns(td, 0, UINT64_MAX, &ns));
	ctf_trace_dec_destroy(td);

	/* 1 kHz with offset_s = 100: 1234 ticks = 1.234 s. */
	tc->clocks[0].freq = 1000;
	tc->clocks[0].offset_s = 100;
	tc->clocks[0].offset_cycles = 500;
	assert_int_equal(ctf_trace_dec_create(tc, &td, NULL, 0), 0);
	assert_true(ctf_clock_to_ns(td, 0, 1234, &ns));
	assert_int_equal(ns, INT64_C(100000000000) + 500000000 + 1234000000);
	ctf_trace_dec_destroy(td);

	/* Odd frequency: double precision, truncated separately. */
	assert_int_equal(ctf_clock_value_ns(1234567, 1), 810);
	assert_int_equal(ctf_clock_value_ns(1234567, 1234567), 1000000000);
	assert_int_equal(ctf_clock_value_ns(3, 1), 333333333);

	/* Reader offsets, normalized like babeltrace2. */
	tc->clocks[0].freq = 1000000000;
	tc->clocks[0].offset_s = 10;
	tc->clocks[0].offset_cycles = 0;
	ctf_clock_apply_offset(&tc->clocks[0], 0, -1);
	assert_int_equal(tc->clocks[0].offset_s, 9);
	assert_int_equal(tc->clocks[0].offset_cycles, 999999999);
	ctf_clock_apply_offset(&tc->clocks[0], 2, 1500000001);
	/* 9.999999999 + 3.500000001 */
	assert_int_equal(tc->clocks[0].offset_s, 13);
	assert_int_equal(tc->clocks[0].offset_cycles, 500000000);
	/*
	 * Nanoseconds become cycles in double precision, as babeltrace2's
	 * cycles_from_ns(): 999999999 ns at 1000000007 Hz are 1000000005.99...
	 * cycles exactly, 1000000006 in doubles (found by view-random).
	 */
	tc->clocks[0].freq = 1000000007;
	tc->clocks[0].offset_s = 0;
	tc->clocks[0].offset_cycles = 0;
	ctf_clock_apply_offset(&tc->clocks[0], 0, 999999999);
	assert_int_equal(tc->clocks[0].offset_s, 0);
	assert_int_equal(tc->clocks[0].offset_cycles, 1000000006);
	pool_free();
}

/* --- synthetic streams ------------------------------------------------------ */

struct buf {
	uint8_t b[65536];
	size_t n;
	uint64_t sparse_to; /* the file is extended (with a hole) to this size */
};

static void put(struct buf *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b->b[b->n++] = (uint8_t)(v >> (8 * i));
}

/* A trace with LTTng's packet layout and a large event header. */
static struct ctf_trace_class *lttng_like(void)
{
	struct ctf_trace_class *tc = tc_new();
	struct ctf_stream_class *sc;
	struct ctf_type *u64c, *pl;

	tc_add_clock(tc, 1000000000, 0, 0);
	tc->has_uuid = true;
	memset(tc->uuid, 0xab, 16);
	tc->packet_header = t_struct(
		2, (const char *[]){ "magic", "stream_id" },
		(struct ctf_type *[]){ t_int(32, 8, false, CTF_BO_LE, -1, CTF_MEANING_MAGIC),
				       t_int(32, 8, false, CTF_BO_LE, -1, CTF_MEANING_STREAM_ID) });
	sc = tc_add_sc(tc, 0);
	u64c = t_int(64, 8, false, CTF_BO_LE, 0, CTF_MEANING_TS_BEGIN);
	sc->packet_context = t_struct(
		7,
		(const char *[]){ "timestamp_begin", "timestamp_end", "content_size", "packet_size",
				  "packet_seq_num", "events_discarded", "cpu_id" },
		(struct ctf_type *[]){ u64c, t_int(64, 8, false, CTF_BO_LE, 0, CTF_MEANING_TS_END),
				       t_int(64, 8, false, CTF_BO_LE, -1, CTF_MEANING_CONTENT_SIZE),
				       t_int(64, 8, false, CTF_BO_LE, -1, CTF_MEANING_PACKET_SIZE),
				       t_int(64, 8, false, CTF_BO_LE, -1, CTF_MEANING_SEQ_NUM),
				       t_int(64, 8, false, CTF_BO_LE, -1, CTF_MEANING_DISC_EVENTS),
				       t_int(32, 8, false, CTF_BO_LE, -1, 0) });
	sc->event_header = t_struct(
		2, (const char *[]){ "id", "timestamp" },
		(struct ctf_type *[]){ t_int(16, 8, false, CTF_BO_LE, -1, CTF_MEANING_EVENT_ID),
				       t_int(64, 8, false, CTF_BO_LE, 0, CTF_MEANING_TIMESTAMP) });
	/* payload: u32 len; u8 seq[len]; string s */
	{
		struct ctf_type *seq = zalloc(sizeof(*seq)), *str = zalloc(sizeof(*str));
		static const uint32_t zero = 0;

		seq->kind = CTF_TYPE_SEQUENCE;
		seq->align = 8;
		seq->sequence.elem = t_int(8, 8, false, CTF_BO_LE, -1, 0);
		seq->sequence.length_name = sdup("len");
		seq->sequence.length = *path1(CTF_SCOPE_EVENT_PAYLOAD, 1, &zero);
		str->kind = CTF_TYPE_STRING;
		str->align = 8;
		pl = t_struct(
			3, (const char *[]){ "len", "seq", "s" },
			(struct ctf_type *[]){ t_int(32, 8, false, CTF_BO_LE, -1, 0), seq, str });
	}
	sc_add_ec(sc, 0, "ev", pl);
	return tc;
}

struct pkt_spec {
	uint64_t tb, te, seq, disc;
	unsigned n_events;
	uint64_t first_ts;
	uint32_t magic;
	uint32_t stream_id;
	uint16_t event_id; /* of the last event */
	uint32_t seq_len; /* of the last event */
	int64_t content_delta; /* added to the real content size */
	int64_t packet_delta; /* added to the real packet size */
};

static void put_packet(struct buf *b, const struct pkt_spec *p)
{
	size_t start = b->n, content;
	size_t psize = 256;

	put(b, p->magic ? p->magic : 0xC1FC1FC1, 4);
	put(b, p->stream_id, 4);
	put(b, p->tb, 8);
	put(b, p->te, 8);
	put(b, 0, 8); /* content size, patched */
	put(b, 0, 8); /* packet size, patched */
	put(b, p->seq, 8);
	put(b, p->disc, 8);
	put(b, 3, 4);
	for (unsigned i = 0; i < p->n_events; i++) {
		bool last = i + 1 == p->n_events;
		uint32_t len = last ? p->seq_len : 2;

		put(b, last ? p->event_id : 0, 2);
		put(b, p->first_ts + i, 8);
		put(b, len, 4);
		for (uint32_t k = 0; k < len && k < 8; k++)
			put(b, 'a' + k, 1);
		put(b, 'x', 1);
		put(b, 0, 1);
	}
	content = (b->n - start) * 8;
	while (b->n - start < psize)
		put(b, 0, 1);
	content = (size_t)((int64_t)content + p->content_delta);
	memcpy(&b->b[start + 24], &(uint64_t){ content }, 8);
	memcpy(&b->b[start + 32], &(uint64_t){ (uint64_t)((int64_t)psize * 8 + p->packet_delta) },
	       8);
}

struct fixture {
	char dir[64];
	char err[512];
	struct ctf_reader_trace rt;
	struct ctf_stream **streams;
	size_t n_streams;
};

static void write_file(const char *dir, const char *name, const struct buf *b, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->b, 1, n, f), n);
	fclose(f);
	if (b->sparse_to)
		assert_int_equal(truncate(path, (off_t)b->sparse_to), 0);
}

static int fx_open(struct fixture *fx, struct ctf_trace_class *tc, const struct buf *b, size_t n)
{
	char *dirs[1];

	memset(fx, 0, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/strata-ctf-stream-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	write_file(fx->dir, "chan_0", b, n);
	fx->rt.t.tc = tc;
	fx->rt.t.path = fx->dir;
	fx->rt.t.name = (char *)"host";
	assert_int_equal(ctf_trace_dec_create(tc, &fx->rt.td, NULL, 0), 0);
	dirs[0] = fx->dir;
	return ctf_trace_open_streams(&fx->rt, dirs, 1, &fx->streams, &fx->n_streams, fx->err,
				      sizeof(fx->err));
}

static void fx_close(struct fixture *fx)
{
	char path[128];

	for (size_t i = 0; i < fx->n_streams; i++) {
		ctf_stream_release(fx->streams[i]);
		free(fx->streams[i]);
	}
	free(fx->streams);
	ctf_trace_dec_destroy(fx->rt.td);
	snprintf(path, sizeof(path), "%s/chan_0", fx->dir);
	unlink(path);
	rmdir(fx->dir);
	pool_free();
}

/* The next visible message of a stream (events, discarded notices). */
static struct ctf_slot slot;

static int next_visible(struct ctf_stream *s)
{
	int r;

	do
		r = ctf_stream_produce(s, &slot);
	while (r == 1 && slot.key.kind != CTF_K_EVENT && slot.key.kind != CTF_K_DISC_EVENTS &&
	       slot.key.kind != CTF_K_DISC_PACKETS);
	return r;
}

static void test_discarded_accounting(void **state)
{
	struct ctf_trace_class *tc = lttng_like();
	static struct buf b;
	struct fixture fx;
	struct ctf_stream *s;
	int r;

	(void)state;
	b.n = 0;
	/* First packet with events_discarded != 0: "may have discarded". */
	put_packet(&b, &(struct pkt_spec){ .tb = 100,
					   .te = 200,
					   .seq = 0,
					   .disc = 2,
					   .n_events = 2,
					   .first_ts = 110,
					   .seq_len = 2 });
	put_packet(&b, &(struct pkt_spec){ .tb = 200,
					   .te = 300,
					   .seq = 1,
					   .disc = 2,
					   .n_events = 1,
					   .first_ts = 210,
					   .seq_len = 2 });
	/* 5 events and 1 packet lost before this one. */
	put_packet(&b, &(struct pkt_spec){ .tb = 400,
					   .te = 500,
					   .seq = 3,
					   .disc = 7,
					   .n_events = 1,
					   .first_ts = 410,
					   .seq_len = 2 });
	assert_int_equal(fx_open(&fx, tc, &b, b.n), 0);
	assert_int_equal(fx.n_streams, 1);
	s = fx.streams[0];
	s->err = fx.err;
	s->errlen = sizeof(fx.err);

	assert_int_equal(next_visible(s), 1);
	assert_int_equal(slot.msg.type, STRATA_CTF_MSG_DISCARDED_EVENTS);
	assert_int_equal(slot.msg.discarded.count, 0);
	assert_true(slot.msg.discarded.has_range);
	assert_int_equal(slot.msg.discarded.begin_ns, 100);
	assert_int_equal(slot.msg.discarded.end_ns, 200);
	assert_int_equal(slot.key.ns, 100);
	assert_string_equal(slot.msg.discarded.trace_name, "host");
	assert_true(strstr(slot.msg.discarded.stream_path, "/chan_0") != NULL);

	for (int i = 0; i < 3; i++) {
		assert_int_equal(next_visible(s), 1);
		assert_int_equal(slot.msg.type, STRATA_CTF_MSG_EVENT);
		assert_int_equal(slot.ev.ns, i < 2 ? 110 + i : 210);
		assert_string_equal(slot.ev.ec->name, "ev");
		/* payload: len, seq{2}, s */
		assert_int_equal(slot.ev.scope[CTF_SCOPE_EVENT_PAYLOAD]->nsub, 5);
		assert_int_equal(slot.ev.scope[CTF_SCOPE_EVENT_PAYLOAD][2].count, 2);
		assert_int_equal(slot.ev.scope[CTF_SCOPE_EVENT_PAYLOAD][5].str.len, 1);
	}
	assert_int_equal(next_visible(s), 1);
	assert_int_equal(slot.msg.type, STRATA_CTF_MSG_DISCARDED_EVENTS);
	assert_int_equal(slot.msg.discarded.count, 5);
	assert_int_equal(slot.msg.discarded.begin_ns, 300);
	assert_int_equal(slot.msg.discarded.end_ns, 500);
	assert_int_equal(next_visible(s), 1);
	assert_int_equal(slot.msg.type, STRATA_CTF_MSG_DISCARDED_PACKETS);
	assert_int_equal(slot.msg.discarded.count, 1);
	assert_int_equal(slot.msg.discarded.begin_ns, 300);
	assert_int_equal(slot.msg.discarded.end_ns, 400);
	assert_int_equal(next_visible(s), 1);
	assert_int_equal(slot.msg.type, STRATA_CTF_MSG_EVENT);
	assert_int_equal(slot.ev.ns, 410);
	r = next_visible(s);
	assert_int_equal(r, 0);
	ctf_values_release(&slot.ev_vals);
	fx_close(&fx);
}

/* The file is extended with a hole to sparse_to bytes when not 0. */
static void expect_error_sparse(const struct pkt_spec *second, size_t truncate_to,
				uint64_t sparse_to, const char *what, const char *offset_text,
				bool at_open)
{
	struct ctf_trace_class *tc = lttng_like();
	static struct buf b;
	struct fixture fx;
	int r;

	b.n = 0;
	put_packet(&b,
		   &(struct pkt_spec){
			   .tb = 100, .te = 200, .n_events = 1, .first_ts = 110, .seq_len = 2 });
	put_packet(&b, second);
	b.sparse_to = sparse_to;
	r = fx_open(&fx, tc, &b, truncate_to ? truncate_to : b.n);
	b.sparse_to = 0;
	if (!at_open) {
		struct ctf_stream *s;

		assert_int_equal(r, 0);
		s = fx.streams[0];
		s->err = fx.err;
		s->errlen = sizeof(fx.err);
		do
			r = ctf_stream_produce(s, &slot);
		while (r == 1);
		ctf_values_release(&slot.ev_vals);
	}
	assert_int_equal(r, -STRATA_ESTREAM);
	if (!strstr(fx.err, what) || !strstr(fx.err, offset_text) || !strstr(fx.err, "/chan_0"))
		fail_msg("unexpected error text: %s", fx.err);
	fx_close(&fx);
}

static void expect_error(const struct pkt_spec *second, size_t truncate_to, const char *what,
			 const char *offset_text, bool at_open)
{
	expect_error_sparse(second, truncate_to, 0, what, offset_text, at_open);
}

static void test_malformed(void **state)
{
	struct pkt_spec ok = { .tb = 200, .te = 300, .n_events = 1, .first_ts = 210, .seq_len = 2 };
	struct pkt_spec p;

	(void)state;
	p = ok;
	p.magic = 0xDEADBEEF;
	expect_error(&p, 0, "bad packet magic", "byte offset 256", false);
	p = ok;
	p.content_delta = 256 * 8;
	expect_error(&p, 0, "larger than packet size", "byte offset 256", false);
	p = ok;
	p.packet_delta = 4096 * 8;
	expect_error(&p, 0, "past the end of the file", "byte offset 256", false);
	p = ok;
	p.stream_id = 9;
	expect_error(&p, 0, "unknown stream class id 9", "byte offset 256", false);
	p = ok;
	p.event_id = 42;
	expect_error(&p, 0, "unknown event class id 42", "byte offset 316", false);
	p = ok;
	p.seq_len = 100000;
	/* len is at 256 + 60 + 10; the sequence starts 4 bytes later */
	expect_error(&p, 0, "past the end of the packet content", "byte offset 330", false);
	/* Truncated inside the second packet's context. */
	expect_error(&ok, 256 + 30, "past the end of the packet content", "byte offset 280", false);
	/* Truncated inside the first packet: fails while opening. */
	expect_error(&ok, 20, "past the end of the packet content", "byte offset 16", true);
}

/* A stream of n packets with per events each, numbered and back to back. */
static struct ctf_stream *fx_open_packets(struct fixture *fx, struct buf *b, unsigned n,
					  unsigned per)
{
	struct ctf_stream *s;

	b->n = 0;
	for (unsigned i = 0; i < n; i++)
		put_packet(b, &(struct pkt_spec){ .tb = 100 + 100 * i,
						  .te = 200 + 100 * i,
						  .seq = i,
						  .n_events = per,
						  .first_ts = 110 + 100 * i,
						  .seq_len = 2 });
	assert_int_equal(fx_open(fx, lttng_like(), b, b->n), 0);
	s = fx->streams[0];
	s->err = fx->err;
	s->errlen = sizeof(fx->err);
	return s;
}

/* --- packet buffers ---------------------------------------------------------- */

/*
 * The release rule of the packet buffers (stream.h): a buffer is freed only
 * once the slot after its packet's end is dead, and a stream whose buffers
 * are all in use stops with -EAGAIN, changing nothing, until some are freed.
 */
static void test_packet_buffer_release(void **state)
{
	static struct buf b;
	struct fixture fx;
	struct ctf_stream *s;
	uint32_t pe[CTF_PKT_BUFS + 1], seq = 0;
	unsigned n_pe = 0, events;
	int r;

	(void)state;
	s = fx_open_packets(&fx, &b, 20, 2);

	/* Nothing declared dead: every buffer stays in use. */
	while ((r = ctf_stream_produce(s, &slot)) == 1) {
		if (slot.key.kind == CTF_K_PACKET_END)
			pe[n_pe++] = seq;
		seq++;
	}
	assert_int_equal(r, -EAGAIN);
	assert_int_equal(n_pe, CTF_PKT_BUFS);
	assert_non_null(strstr(fx.err, "no free packet buffer"));
	assert_int_equal(seq, s->produced);

	assert_int_equal(ctf_stream_bufs_release(s, pe[0]), 0);
	assert_int_equal(ctf_stream_bufs_release(s, pe[0] + 1), 1);
	/* Production resumes with the packet that found no buffer, in the freed one. */
	assert_int_equal(ctf_stream_produce(s, &slot), 1);
	assert_int_equal(slot.key.kind, CTF_K_PACKET_BEGIN);
	assert_ptr_equal(s->cur, &s->bufs[0]);
	assert_int_equal(ctf_stream_bufs_release(s, pe[2]), 1);
	assert_int_equal(ctf_stream_bufs_release(s, pe[2] + 1), 2);

	/* As refills do: what was produced is dead before producing more. */
	events = 0;
	while (ctf_stream_bufs_release(s, s->produced) > 0 &&
	       (r = ctf_stream_produce(s, &slot)) == 1)
		events += slot.key.kind == CTF_K_EVENT;
	assert_int_equal(r, 0);
	assert_int_equal(events, 4 * 2);
	assert_int_equal(ctf_stream_bufs_release(s, s->produced), CTF_PKT_BUFS);
	ctf_values_release(&slot.ev_vals);
	fx_close(&fx);
}

/*
 * A packet that fits in its (sparse) file but not under the reader's limit
 * on one packet in memory: a clear error, nothing allocated for it.
 */
static void test_packet_over_limit(void **state)
{
	const uint64_t big = CTF_PKT_MAX_BYTES * 2;

	(void)state;
	expect_error_sparse(&(struct pkt_spec){ .tb = 200,
						.te = 300,
						.n_events = 1,
						.first_ts = 210,
						.seq_len = 2,
						.content_delta = (int64_t)(big - 512) * 8,
						.packet_delta = (int64_t)(big - 256) * 8 },
			    0, 256 + big, "larger than the reader's limit", "byte offset 256",
			    false);
}

/*
 * A file cut after the trace was opened: an error at the first missing
 * byte, whether packets are decoded from the file's mapping (which reads
 * the cut page's end as zeros) or read with pread().
 */
static void file_shrinks(bool mapped)
{
	static struct buf b;
	struct fixture fx;
	struct ctf_stream *s;
	char path[128];
	int r;

	if (mapped)
		assert_int_equal(unsetenv("STRATA_CTF_NO_MMAP"), 0);
	else
		assert_int_equal(setenv("STRATA_CTF_NO_MMAP", "1", 1), 0);
	s = fx_open_packets(&fx, &b, 2, 1);
	snprintf(path, sizeof(path), "%s/chan_0", fx.dir);
	assert_int_equal(truncate(path, 256 + 100), 0);
	do
		r = ctf_stream_produce(s, &slot);
	while (r == 1 || (r == -EAGAIN && ctf_stream_bufs_release(s, s->produced) >= 0));
	ctf_values_release(&slot.ev_vals);
	assert_int_equal(r, -STRATA_ESTREAM);
	if (!strstr(fx.err, "shorter than when the trace was opened") ||
	    !strstr(fx.err, "byte offset 356"))
		fail_msg("unexpected error text: %s", fx.err);
	fx_close(&fx);
	assert_int_equal(unsetenv("STRATA_CTF_NO_MMAP"), 0);
}

static void test_file_shrinks(void **state)
{
	(void)state;
	file_shrinks(true);
}

static void test_file_shrinks_pread(void **state)
{
	(void)state;
	file_shrinks(false);
}

/* --- merge ties ------------------------------------------------------------- */

static void fake_stream(struct ctf_stream *s, struct ctf_reader_trace *rt, struct ctf_sc_dec *scd,
			struct ctf_event_class *ec, uint64_t stream_id, int64_t ns)
{
	memset(s, 0, sizeof(*s));
	s->rt = rt;
	s->scd = scd;
	s->stream_id = stream_id;
	s->path = (char *)"/t/x";
	s->q_len = 1;
	s->qp[0] = &s->q[0];
	s->qkey[0].kind = CTF_K_EVENT;
	s->qkey[0].ns = ns;
	s->q[0].ev.ec = ec;
}

static void test_merge_ties(void **state)
{
	struct ctf_trace_class tca = { .has_uuid = true }, tcb = { .has_uuid = true }, tcn = { 0 };
	struct ctf_stream_class sc0 = { .id = 0 }, sc1 = { .id = 1 };
	struct ctf_sc_dec d0 = { .sc = &sc0 }, d1 = { .sc = &sc1 };
	struct ctf_event_class e1 = { .id = 1, .name = (char *)"b" },
			       e2 = { .id = 2, .name = (char *)"a" };
	struct ctf_reader_trace ra = { .t = { .tc = &tca, .name = (char *)"zz" } };
	struct ctf_reader_trace rb = { .t = { .tc = &tcb, .name = (char *)"aa" } };
	struct ctf_reader_trace rn = { .t = { .tc = &tcn, .name = (char *)"00" } };
	struct ctf_stream x, y;
	struct ctf_merge m = { 0 };
	struct ctf_stream *order[4];

	(void)state;
	tca.uuid[0] = 1;
	tcb.uuid[0] = 2;
	/* Time first. */
	fake_stream(&x, &rb, &d0, &e1, 0, 5);
	fake_stream(&y, &ra, &d0, &e1, 0, 6);
	assert_true(ctf_merge_cmp(&x, &y) < 0);
	/* Then UUID (memcmp), whatever the name. */
	fake_stream(&x, &rb, &d0, &e1, 0, 5);
	fake_stream(&y, &ra, &d0, &e1, 0, 5);
	assert_true(ctf_merge_cmp(&y, &x) < 0);
	/* UUID-less traces last. */
	fake_stream(&x, &rn, &d0, &e1, 0, 5);
	assert_true(ctf_merge_cmp(&y, &x) < 0);
	/* Same UUID: trace name. */
	tcb.uuid[0] = 1;
	fake_stream(&x, &rb, &d0, &e1, 0, 5);
	assert_true(ctf_merge_cmp(&x, &y) < 0);
	/* Same trace: stream class, then stream id. */
	fake_stream(&x, &ra, &d1, &e1, 0, 5);
	fake_stream(&y, &ra, &d0, &e1, 3, 5);
	assert_true(ctf_merge_cmp(&y, &x) < 0);
	fake_stream(&x, &ra, &d0, &e1, 2, 5);
	assert_true(ctf_merge_cmp(&x, &y) < 0);
	/* Same stream identity: event before discarded events before packets. */
	fake_stream(&y, &ra, &d0, &e1, 2, 5);
	y.qkey[0].kind = CTF_K_DISC_EVENTS;
	assert_true(ctf_merge_cmp(&x, &y) < 0);
	x.qkey[0].kind = CTF_K_DISC_PACKETS;
	assert_true(ctf_merge_cmp(&y, &x) < 0);
	/* Packet beginnings before events, packet ends after discarded events. */
	x.qkey[0].kind = CTF_K_PACKET_BEGIN;
	y.qkey[0].kind = CTF_K_EVENT;
	assert_true(ctf_merge_cmp(&x, &y) < 0);
	x.qkey[0].kind = CTF_K_PACKET_END;
	y.qkey[0].kind = CTF_K_DISC_EVENTS;
	assert_true(ctf_merge_cmp(&y, &x) < 0);
	/* Events: class id before name. */
	fake_stream(&x, &ra, &d0, &e2, 2, 5);
	fake_stream(&y, &ra, &d0, &e1, 2, 5);
	assert_true(ctf_merge_cmp(&y, &x) < 0);

	/* The heap returns them in that order. */
	{
		struct ctf_stream s[4];

		fake_stream(&s[0], &rn, &d0, &e1, 0, 7);
		fake_stream(&s[1], &ra, &d1, &e1, 0, 7);
		fake_stream(&s[2], &ra, &d0, &e1, 9, 7);
		fake_stream(&s[3], &rb, &d0, &e1, 0, 3);
		for (int i = 0; i < 4; i++) {
			s[i].index = (unsigned)i;
			assert_int_equal(ctf_merge_push(&m, &s[i]), 0);
		}
		for (int i = 0; i < 4; i++) {
			order[i] = ctf_merge_top(&m);
			ctf_merge_pop(&m);
		}
		assert_null(ctf_merge_top(&m));
		assert_ptr_equal(order[0], &s[3]);
		assert_ptr_equal(order[1], &s[2]);
		assert_ptr_equal(order[2], &s[1]);
		assert_ptr_equal(order[3], &s[0]);
		ctf_merge_release(&m);
	}
}

static void test_path_normalize(void **state)
{
	char *p;

	(void)state;
	p = ctf_path_normalize("/a//b/./c/../d/");
	assert_string_equal(p, "/a/b/d");
	free(p);
	p = ctf_path_normalize("/..");
	assert_string_equal(p, "/");
	free(p);
	p = ctf_path_normalize("x/y");
	assert_true(p[0] == '/' && strstr(p, "/x/y") != NULL);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits_compact_header),
		cmocka_unit_test(test_bits_fields_le_be),
		cmocka_unit_test(test_bits_extended_header),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_sequence_sibling_length),
		cmocka_unit_test(test_swapped_run),
		cmocka_unit_test(test_body_shape),
		cmocka_unit_test(test_sequence_shape),
		cmocka_unit_test(test_timestamp_wrap),
		cmocka_unit_test(test_clock_conversion),
		cmocka_unit_test(test_discarded_accounting),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_packet_buffer_release),
		cmocka_unit_test(test_packet_over_limit),
		cmocka_unit_test(test_file_shrinks),
		cmocka_unit_test(test_file_shrinks_pread),
		cmocka_unit_test(test_merge_ties),
		cmocka_unit_test(test_path_normalize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
