/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 field decoding: compile IR types into dnodes, then decode packet
 * bytes into pre-order ctf_value arrays (see decode.h, ctf.md §1.6).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/decode.h"
#include "common/common.h"

__extension__ typedef unsigned __int128 u128;

/* A value whose subtree is still being decoded. */
#define NSUB_OPEN UINT32_MAX

/* --- arena: every dnode and table of a trace, freed at once ------------- */

struct ctf_dec_arena {
	void **ptrs;
	size_t n, cap;
};

static void *arena_alloc(struct ctf_dec_arena *a, size_t size)
{
	void *p;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		void **ptrs = realloc(a->ptrs, cap * sizeof(*ptrs));

		if (!ptrs)
			return NULL;
		a->ptrs = ptrs;
		a->cap = cap;
	}
	p = calloc(1, size ? size : 1);
	if (p)
		a->ptrs[a->n++] = p;
	return p;
}

static void arena_destroy(struct ctf_dec_arena *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->ptrs[i]);
	free(a->ptrs);
	free(a);
}

/* --- compilation ---------------------------------------------------------- */

struct compile_ctx {
	struct ctf_trace_dec *td;
	const struct ctf_type *scope_type[CTF_SCOPE_COUNT];
	char *errbuf;
	size_t errlen;
};

static const struct ctf_type *path_target(const struct compile_ctx *cc,
					  const struct ctf_field_path *path)
{
	const struct ctf_type *t;

	if (path->scope >= CTF_SCOPE_COUNT)
		return NULL;
	t = cc->scope_type[path->scope];
	for (uint32_t i = 0; t && i < path->len; i++) {
		uint32_t step = path->index[i];

		while (t && (t->kind == CTF_TYPE_ARRAY || t->kind == CTF_TYPE_SEQUENCE))
			t = t->kind == CTF_TYPE_ARRAY ? t->array.elem : t->sequence.elem;
		if (!t)
			return NULL;
		if (t->kind == CTF_TYPE_STRUCT) {
			if (step >= t->structure.n_fields)
				return NULL;
			t = t->structure.fields[step].type;
		} else if (t->kind == CTF_TYPE_VARIANT) {
			if (step >= t->variant.n_options)
				return NULL;
			t = t->variant.options[step].type;
		} else {
			return NULL;
		}
	}
	return t;
}

static int compile_fail(struct compile_ctx *cc, const char *msg)
{
	if (cc->errbuf && cc->errlen)
		snprintf(cc->errbuf, cc->errlen, "%s", msg);
	return -STRATA_EMETADATA;
}

static int compile_type(struct compile_ctx *cc, const struct ctf_type *t, unsigned depth,
			struct dnode **ret);

/* Byte-aligned 8/16/32/64-bit values load with one memcpy (and a bswap). */
static void set_fast(struct dnode *dn)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	dn->swap = dn->bo == CTF_BO_BE;
#else
	dn->swap = dn->bo == CTF_BO_LE;
#endif
	dn->fast = dn->align % 8 == 0 &&
		   (dn->size == 8 || dn->size == 16 || dn->size == 32 || dn->size == 64);
}

static int compile_int(struct dnode *dn, const struct ctf_type *it)
{
	dn->kind = DN_INT;
	dn->size = it->integer.size;
	dn->is_signed = it->integer.is_signed;
	dn->bo = (uint8_t)it->integer.bo;
	dn->clock = it->integer.clock;
	dn->meaning = (uint8_t)it->integer.meaning;
	if (dn->size < 1 || dn->size > 64)
		return -STRATA_EMETADATA;
	dn->notes = dn->meaning != CTF_MEANING_NONE || dn->clock >= 0;
	set_fast(dn);
	return 0;
}

static int compile_variant(struct compile_ctx *cc, struct dnode *dn, const struct ctf_type *t)
{
	const struct ctf_type *tag = path_target(cc, &t->variant.tag);
	const struct ctf_type *cont;
	size_t n = 0;

	dn->path = &t->variant.tag;
	if (!tag || tag->kind != CTF_TYPE_ENUM || !tag->enumeration.container)
		return compile_fail(cc, "variant tag is not an enumeration");
	cont = tag->enumeration.container;
	dn->ranges_signed = cont->kind == CTF_TYPE_INT && cont->integer.is_signed;
	for (size_t o = 0; o < t->variant.n_options; o++)
		for (size_t m = 0; m < tag->enumeration.n_mappings; m++)
			if (strcmp(tag->enumeration.mappings[m].label,
				   t->variant.options[o].orig_name) == 0)
				n++;
	dn->ranges = arena_alloc(cc->td->arena, n * sizeof(*dn->ranges));
	if (!dn->ranges)
		return -ENOMEM;
	/* babeltrace2 order: options in declaration order, then their ranges. */
	for (size_t o = 0; o < t->variant.n_options; o++) {
		for (size_t m = 0; m < tag->enumeration.n_mappings; m++) {
			const struct ctf_enum_mapping *mp = &tag->enumeration.mappings[m];

			if (strcmp(mp->label, t->variant.options[o].orig_name) != 0)
				continue;
			dn->ranges[dn->n_ranges].lo = mp->lo.u;
			dn->ranges[dn->n_ranges].hi = mp->hi.u;
			dn->ranges[dn->n_ranges].option = (uint32_t)o;
			dn->n_ranges++;
		}
	}
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Lower bound on the bits an instance takes, to reject absurd lengths early. */
static uint64_t min_bits(const struct dnode *dn)
{
	uint64_t m = 0;

	switch (dn->kind) {
	case DN_INT:
	case DN_FLOAT:
		return dn->size;
	case DN_STRING:
		return 8;
	case DN_STRUCT:
		for (uint32_t i = 0; i < dn->n_children; i++)
			m = sat_add(m, dn->children[i]->min_bits);
		return m;
	case DN_VARIANT:
		m = UINT64_MAX;
		for (uint32_t i = 0; i < dn->n_children; i++)
			m = MIN(m, dn->children[i]->min_bits);
		return dn->n_children ? m : 0;
	case DN_ARRAY:
		return sat_mul(dn->length, dn->children[0]->min_bits);
	case DN_TEXT_ARRAY:
		return sat_mul(dn->length, 8);
	default:
		return 0;
	}
}

static bool flat_leaf(const struct dnode *c)
{
	return c->fast && ((c->kind == DN_INT && !c->notes) || c->kind == DN_FLOAT);
}

/* Partition a struct's members into runs (struct dn_flat), left to right. */
static int compile_runs(struct compile_ctx *cc, struct dnode *dn)
{
	uint32_t i = 0;

	dn->runs = arena_alloc(cc->td->arena, dn->n_children * sizeof(*dn->runs));
	dn->flat = arena_alloc(cc->td->arena, dn->n_children * sizeof(*dn->flat));
	if (!dn->runs || !dn->flat)
		return -ENOMEM;
	while (i < dn->n_children) {
		uint32_t a = dn->children[i]->align, j = i;
		uint64_t off = 0;

		if (!flat_leaf(dn->children[i])) {
			i++;
			continue;
		}
		for (; j < dn->n_children; j++) {
			const struct dnode *c = dn->children[j];
			uint64_t o;

			if (!flat_leaf(c) || c->align > a)
				break;
			o = (off + c->align - 1) & ~((uint64_t)c->align - 1);
			if (o + c->size > UINT32_MAX)
				break;
			dn->flat[j] = (struct dn_flat){ .type = c->type,
							.off = (uint32_t)(o / 8),
							.size = (uint8_t)c->size,
							.swap = c->swap,
							.is_signed = c->is_signed,
							.is_float = c->kind == DN_FLOAT };
			off = o + c->size;
		}
		dn->runs[i].n = j - i;
		dn->runs[i].bits = (uint32_t)off;
		i = j;
	}
	return 0;
}

static int compile_type(struct compile_ctx *cc, const struct ctf_type *t, unsigned depth,
			struct dnode **ret)
{
	struct dnode *dn;
	int r;

	if (!t)
		return compile_fail(cc, "missing field type");
	if (depth > CTF_DEC_MAX_DEPTH)
		return compile_fail(cc, "types nested too deeply");
	dn = arena_alloc(cc->td->arena, sizeof(*dn));
	if (!dn)
		return -ENOMEM;
	dn->type = t;
	dn->clock = -1;
	dn->align = t->align ? t->align : 1;
	if (dn->align & (dn->align - 1))
		return compile_fail(cc, "alignment is not a power of two");
	switch (t->kind) {
	case CTF_TYPE_INT:
		if (compile_int(dn, t) < 0)
			return compile_fail(cc, "integer size out of range");
		break;
	case CTF_TYPE_ENUM:
		if (!t->enumeration.container || t->enumeration.container->kind != CTF_TYPE_INT)
			return compile_fail(cc, "enumeration without an integer container");
		if (compile_int(dn, t->enumeration.container) < 0)
			return compile_fail(cc, "integer size out of range");
		dn->is_enum = true;
		break;
	case CTF_TYPE_FLOAT:
		dn->kind = DN_FLOAT;
		dn->size = t->flt.exp_dig + t->flt.mant_dig;
		dn->bo = (uint8_t)t->flt.bo;
		if (dn->size != 32 && dn->size != 64)
			return compile_fail(cc, "unsupported floating point size");
		set_fast(dn);
		break;
	case CTF_TYPE_STRING:
		dn->kind = DN_STRING;
		dn->align = MAX(dn->align, 8u);
		break;
	case CTF_TYPE_STRUCT:
		dn->kind = DN_STRUCT;
		dn->n_children = (uint32_t)t->structure.n_fields;
		dn->children = arena_alloc(cc->td->arena, dn->n_children * sizeof(*dn->children));
		if (!dn->children)
			return -ENOMEM;
		for (uint32_t i = 0; i < dn->n_children; i++) {
			r = compile_type(cc, t->structure.fields[i].type, depth + 1,
					 &dn->children[i]);
			if (r < 0)
				return r;
		}
		r = compile_runs(cc, dn);
		if (r < 0)
			return r;
		break;
	case CTF_TYPE_VARIANT:
		dn->kind = DN_VARIANT;
		dn->align = 1; /* the selected option aligns itself */
		dn->n_children = (uint32_t)t->variant.n_options;
		dn->children = arena_alloc(cc->td->arena, dn->n_children * sizeof(*dn->children));
		if (!dn->children)
			return -ENOMEM;
		for (uint32_t i = 0; i < dn->n_children; i++) {
			r = compile_type(cc, t->variant.options[i].type, depth + 1,
					 &dn->children[i]);
			if (r < 0)
				return r;
		}
		r = compile_variant(cc, dn, t);
		if (r < 0)
			return r;
		break;
	case CTF_TYPE_ARRAY:
	case CTF_TYPE_SEQUENCE: {
		bool seq = t->kind == CTF_TYPE_SEQUENCE;
		bool text = seq ? t->sequence.is_text : t->array.is_text;
		const struct ctf_type *elem = seq ? t->sequence.elem : t->array.elem;

		if (seq) {
			const struct ctf_type *lt = path_target(cc, &t->sequence.length);

			dn->path = &t->sequence.length;
			if (!lt || (lt->kind != CTF_TYPE_INT && lt->kind != CTF_TYPE_ENUM))
				return compile_fail(cc, "sequence length is not an integer");
		} else {
			dn->length = t->array.length;
		}
		if (text) {
			dn->kind = seq ? DN_TEXT_SEQUENCE : DN_TEXT_ARRAY;
			dn->align = MAX(dn->align, 8u);
			break;
		}
		dn->kind = seq ? DN_SEQUENCE : DN_ARRAY;
		dn->n_children = 1;
		dn->children = arena_alloc(cc->td->arena, sizeof(*dn->children));
		if (!dn->children)
			return -ENOMEM;
		r = compile_type(cc, elem, depth + 1, &dn->children[0]);
		if (r < 0)
			return r;
		/* Elements no more aligned than their size: a run with a fixed stride. */
		if (flat_leaf(dn->children[0]) && dn->children[0]->align <= dn->children[0]->size) {
			const struct dnode *c = dn->children[0];

			dn->flat = arena_alloc(cc->td->arena, sizeof(*dn->flat));
			if (!dn->flat)
				return -ENOMEM;
			*dn->flat = (struct dn_flat){ .type = c->type,
						      .size = (uint8_t)c->size,
						      .swap = c->swap,
						      .is_signed = c->is_signed,
						      .is_float = c->kind == DN_FLOAT };
		}
		break;
	}
	default:
		return compile_fail(cc, "unknown field type");
	}
	dn->min_bits = min_bits(dn);
	*ret = dn;
	return 0;
}

static int compile_root(struct compile_ctx *cc, const struct ctf_type *t, struct dnode **ret)
{
	*ret = NULL;
	if (!t)
		return 0;
	if (t->kind != CTF_TYPE_STRUCT)
		return compile_fail(cc, "scope root is not a structure");
	return compile_type(cc, t, 0, ret);
}

/* Finds a top-level packet context member with a meaning. */
static bool has_meaning(const struct ctf_type *st, enum ctf_meaning m, bool need_clock)
{
	if (!st)
		return false;
	for (size_t i = 0; i < st->structure.n_fields; i++) {
		const struct ctf_type *t = st->structure.fields[i].type;

		if (t && t->kind == CTF_TYPE_ENUM)
			t = t->enumeration.container;
		if (t && t->kind == CTF_TYPE_INT && t->integer.meaning == m &&
		    (!need_clock || t->integer.clock >= 0))
			return true;
	}
	return false;
}

static int compile_sc(struct compile_ctx *cc, const struct ctf_stream_class *sc,
		      struct ctf_sc_dec *scd)
{
	uint64_t max_id = 0;
	int r;

	scd->sc = sc;
	cc->scope_type[CTF_SCOPE_PACKET_CONTEXT] = sc->packet_context;
	cc->scope_type[CTF_SCOPE_EVENT_HEADER] = sc->event_header;
	cc->scope_type[CTF_SCOPE_STREAM_EVENT_CONTEXT] = sc->event_context;
	cc->scope_type[CTF_SCOPE_EVENT_CONTEXT] = NULL;
	cc->scope_type[CTF_SCOPE_EVENT_PAYLOAD] = NULL;
	r = compile_root(cc, sc->packet_context, &scd->packet_context);
	if (r == 0)
		r = compile_root(cc, sc->event_header, &scd->event_header);
	if (r == 0)
		r = compile_root(cc, sc->event_context, &scd->event_context);
	if (r < 0)
		return r;

	scd->has_ts_begin = has_meaning(sc->packet_context, CTF_MEANING_TS_BEGIN, true);
	scd->has_ts_end = has_meaning(sc->packet_context, CTF_MEANING_TS_END, true);
	scd->has_disc_events = has_meaning(sc->packet_context, CTF_MEANING_DISC_EVENTS, false);
	scd->has_seq_num = has_meaning(sc->packet_context, CTF_MEANING_SEQ_NUM, false);
	scd->has_content_size = has_meaning(sc->packet_context, CTF_MEANING_CONTENT_SIZE, false);
	scd->has_packet_size = has_meaning(sc->packet_context, CTF_MEANING_PACKET_SIZE, false);

	scd->ecs = arena_alloc(cc->td->arena, sc->n_events * sizeof(*scd->ecs));
	if (!scd->ecs)
		return -ENOMEM;
	for (size_t i = 0; i < sc->n_events; i++) {
		const struct ctf_event_class *ec = sc->events[i];

		scd->ecs[i].ec = ec;
		cc->scope_type[CTF_SCOPE_EVENT_CONTEXT] = ec->context;
		cc->scope_type[CTF_SCOPE_EVENT_PAYLOAD] = ec->payload;
		r = compile_root(cc, ec->context, &scd->ecs[i].context);
		if (r == 0)
			r = compile_root(cc, ec->payload, &scd->ecs[i].payload);
		if (r < 0)
			return r;
		max_id = MAX(max_id, ec->id);
	}
	/* Dense table for the usual small, contiguous event ids. */
	if (sc->n_events && max_id < 65536) {
		scd->n_dense = max_id + 1;
		scd->ec_dense = arena_alloc(cc->td->arena, scd->n_dense * sizeof(*scd->ec_dense));
		if (!scd->ec_dense)
			return -ENOMEM;
		for (size_t i = 0; i < sc->n_events; i++)
			scd->ec_dense[sc->events[i]->id] = (uint32_t)i + 1;
	}
	return 0;
}

int ctf_trace_dec_create(const struct ctf_trace_class *tc, struct ctf_trace_dec **ret, char *errbuf,
			 size_t errlen)
{
	struct compile_ctx cc = { .errbuf = errbuf, .errlen = errlen };
	struct ctf_trace_dec *td = calloc(1, sizeof(*td));
	int r = -ENOMEM;

	if (!td)
		return -ENOMEM;
	td->tc = tc;
	td->arena = calloc(1, sizeof(*td->arena));
	if (!td->arena)
		goto err;
	cc.td = td;
	cc.scope_type[CTF_SCOPE_PACKET_HEADER] = tc->packet_header;
	r = compile_root(&cc, tc->packet_header, &td->packet_header);
	if (r < 0)
		goto err;
	r = -ENOMEM;
	td->scs = arena_alloc(td->arena, tc->n_streams * sizeof(*td->scs));
	td->clock_base_ns = arena_alloc(td->arena, tc->n_clocks * sizeof(*td->clock_base_ns));
	td->clock_base_ok = arena_alloc(td->arena, tc->n_clocks * sizeof(*td->clock_base_ok));
	if (!td->scs || !td->clock_base_ns || !td->clock_base_ok)
		goto err;
	for (size_t i = 0; i < tc->n_streams; i++) {
		r = compile_sc(&cc, tc->streams[i], &td->scs[i]);
		if (r < 0)
			goto err;
	}
	for (size_t i = 0; i < tc->n_clocks; i++) {
		const struct ctf_clock_class *clk = &tc->clocks[i];
		int64_t s_ns;

		td->clock_base_ok[i] =
			!__builtin_mul_overflow(clk->offset_s, INT64_C(1000000000), &s_ns) &&
			!__builtin_add_overflow(
				s_ns, (int64_t)ctf_clock_value_ns(clk->freq, clk->offset_cycles),
				&td->clock_base_ns[i]);
	}
	*ret = td;
	return 0;
err:
	ctf_trace_dec_destroy(td);
	return r;
}

void ctf_trace_dec_destroy(struct ctf_trace_dec *td)
{
	if (!td)
		return;
	arena_destroy(td->arena);
	free(td);
}

const struct ctf_sc_dec *ctf_trace_dec_sc(const struct ctf_trace_dec *td, uint64_t id)
{
	size_t lo = 0, hi = td->tc->n_streams;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t mid_id = td->tc->streams[mid]->id;

		if (mid_id == id)
			return &td->scs[mid];
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ctf_ec_dec *ctf_sc_dec_ec(const struct ctf_sc_dec *scd, uint64_t id)
{
	size_t lo = 0, hi = scd->sc->n_events;

	if (id < scd->n_dense) {
		uint32_t i = scd->ec_dense[id];

		return i ? &scd->ecs[i - 1] : NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t mid_id = scd->sc->events[mid]->id;

		if (mid_id == id)
			return &scd->ecs[mid];
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* --- clocks --------------------------------------------------------------- */

uint64_t ctf_clock_value_ns(uint64_t freq, uint64_t value)
{
	double d;

	if (freq == UINT64_C(1000000000))
		return value;
	/* babeltrace2: double precision, truncated (ctf.md §1.8). */
	d = (1e9 * (double)value) / (double)freq;
	if (d >= (double)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)d;
}

bool ctf_clock_to_ns(const struct ctf_trace_dec *td, int32_t clock, uint64_t cycles,
		     int64_t *ret_ns)
{
	const struct ctf_clock_class *clk;
	uint64_t v;

	if (clock < 0 || (size_t)clock >= td->tc->n_clocks || !td->clock_base_ok[clock])
		return false;
	clk = &td->tc->clocks[clock];
	v = ctf_clock_value_ns(clk->freq, cycles);
	if (v >= (uint64_t)INT64_MAX)
		return false;
	return !__builtin_add_overflow(td->clock_base_ns[clock], (int64_t)v, ret_ns);
}

void ctf_clock_apply_offset(struct ctf_clock_class *cc, int64_t offset_s, int64_t offset_ns)
{
	uint64_t ns_to_apply, cycles;
	int64_t s = cc->offset_s;

	if (offset_s == 0 && offset_ns == 0)
		return;
	/* As babeltrace2's apply_clock_class_offset(): keep ns positive. */
	if (offset_ns < 0) {
		uint64_t abs_ns = UINT64_C(0) - (uint64_t)offset_ns;
		int64_t extra_s = -(int64_t)(abs_ns / UINT64_C(1000000000) + 1);

		ns_to_apply = (uint64_t)offset_ns + (uint64_t)(-extra_s) * UINT64_C(1000000000);
		offset_s += extra_s;
	} else {
		int64_t extra_s = offset_ns / INT64_C(1000000000);

		ns_to_apply = (uint64_t)(offset_ns - extra_s * INT64_C(1000000000));
		offset_s += extra_s;
	}
	s += offset_s;
	cycles =
		cc->offset_cycles + (uint64_t)((u128)ns_to_apply * cc->freq / UINT64_C(1000000000));
	if (cc->freq && cycles >= cc->freq) {
		s += (int64_t)(cycles / cc->freq);
		cycles %= cc->freq;
	}
	cc->offset_s = s;
	cc->offset_cycles = cycles;
}

/* --- bit reading ---------------------------------------------------------- */

uint64_t ctf_read_bits_le(const uint8_t *base, uint64_t pos, unsigned size)
{
	const uint8_t *p = base + (pos >> 3);
	unsigned shift = (unsigned)(pos & 7);
	unsigned nbytes = (shift + size + 7) / 8;
	u128 x = 0;

	for (unsigned i = nbytes; i-- > 0;)
		x = (x << 8) | p[i];
	x >>= shift;
	return size == 64 ? (uint64_t)x : (uint64_t)x & ((UINT64_C(1) << size) - 1);
}

uint64_t ctf_read_bits_be(const uint8_t *base, uint64_t pos, unsigned size)
{
	const uint8_t *p = base + (pos >> 3);
	unsigned shift = (unsigned)(pos & 7);
	unsigned nbytes = (shift + size + 7) / 8;
	u128 x = 0;

	for (unsigned i = 0; i < nbytes; i++)
		x = (x << 8) | p[i];
	x >>= nbytes * 8 - shift - size;
	return size == 64 ? (uint64_t)x : (uint64_t)x & ((UINT64_C(1) << size) - 1);
}

/* --- decoding ------------------------------------------------------------- */

void ctf_values_release(struct ctf_values *vals)
{
	free(vals->v);
	vals->v = NULL;
	vals->n = vals->cap = 0;
}

static int fail(struct ctf_dec *d, const char *msg)
{
	d->err = msg;
	d->err_pos = d->pos;
	return -STRATA_ESTREAM;
}

static int grow(struct ctf_dec *d)
{
	struct ctf_values *o = d->out;
	uint32_t cap = o->cap ? o->cap * 2 : 32; /* per slot and packet: keep small */
	struct ctf_value *nv;

	if (o->cap >= CTF_DEC_MAX_VALUES)
		return fail(d, "too many fields in one event");
	nv = realloc(o->v, (size_t)cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	o->v = nv;
	o->cap = cap;
	return 0;
}

static inline __attribute__((always_inline)) int vpush(struct ctf_dec *d, const struct ctf_type *t,
						       uint32_t *ret)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v;

	if (unlikely(o->n == o->cap)) {
		int r = grow(d);

		if (r < 0)
			return r;
	}
	*ret = o->n;
	v = &o->v[o->n++];
	v->type = t;
	v->nsub = 0;
	v->option = 0;
	v->u = 0;
	return 0;
}

static inline int align_to(struct ctf_dec *d, uint32_t align)
{
	uint64_t p = (d->pos + align - 1) & ~((uint64_t)align - 1);

	if (unlikely(p > d->end))
		return fail(d, "alignment padding goes past the end of the packet content");
	d->pos = p;
	return 0;
}

static void note_int(struct ctf_dec *d, const struct dnode *dn, uint64_t raw)
{
	if (dn->meaning) {
		d->meaning_val[dn->meaning] = raw;
		d->meaning_set |= 1u << dn->meaning;
	}
	/* timestamp_end only takes effect at the end of the packet (stream.c). */
	if (dn->clock >= 0 && d->clock && dn->meaning != CTF_MEANING_TS_END) {
		/* babeltrace2's clock update with wrap detection (ctf.md §1.9). */
		uint64_t cur = *d->clock;

		if (dn->size == 64) {
			cur = raw;
		} else {
			uint64_t mask = (UINT64_C(1) << dn->size) - 1;

			if (raw < (cur & mask))
				cur += mask + 1;
			cur = (cur & ~mask) | raw;
		}
		*d->clock = cur;
	}
}

/* A byte-aligned 8/16/32/64-bit load (dn->fast). */
static inline __attribute__((always_inline)) uint64_t load_fast(const uint8_t *p,
								const struct dnode *dn)
{
	switch (dn->size) {
	case 8:
		return *p;
	case 16: {
		uint16_t x;

		memcpy(&x, p, 2);
		return dn->swap ? __builtin_bswap16(x) : x;
	}
	case 32: {
		uint32_t x;

		memcpy(&x, p, 4);
		return dn->swap ? __builtin_bswap32(x) : x;
	}
	default: {
		uint64_t x;

		memcpy(&x, p, 8);
		return dn->swap ? __builtin_bswap64(x) : x;
	}
	}
}

static inline __attribute__((always_inline)) int dec_int(struct ctf_dec *d, const struct dnode *dn)
{
	uint64_t raw;
	uint32_t idx;
	int r;

	if (unlikely(d->pos & (dn->align - 1))) {
		r = align_to(d, dn->align);
		if (r < 0)
			return r;
	}
	if (unlikely(d->end - d->pos < dn->size))
		return fail(d, "integer goes past the end of the packet content");
	if (likely(dn->fast))
		raw = load_fast(d->base + (d->pos >> 3), dn);
	else if (dn->bo == CTF_BO_LE)
		raw = ctf_read_bits_le(d->base, d->pos, dn->size);
	else
		raw = ctf_read_bits_be(d->base, d->pos, dn->size);
	d->pos += dn->size;
	r = vpush(d, dn->type, &idx);
	if (unlikely(r < 0))
		return r;
	if (dn->is_signed && dn->size < 64) {
		uint64_t m = UINT64_C(1) << (dn->size - 1);

		d->out->v[idx].u = (raw ^ m) - m;
	} else {
		d->out->v[idx].u = raw;
	}
	if (unlikely(dn->notes))
		note_int(d, dn, raw);
	return 0;
}

static int dec_float(struct ctf_dec *d, const struct dnode *dn)
{
	uint64_t raw;
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	if (d->end - d->pos < dn->size)
		return fail(d, "floating point number goes past the end of the packet content");
	if (dn->fast)
		raw = load_fast(d->base + (d->pos >> 3), dn);
	else
		raw = dn->bo == CTF_BO_LE ? ctf_read_bits_le(d->base, d->pos, dn->size) :
					    ctf_read_bits_be(d->base, d->pos, dn->size);
	d->pos += dn->size;
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	if (dn->size == 32) {
		uint32_t x = (uint32_t)raw;
		float f;

		memcpy(&f, &x, sizeof(f));
		d->out->v[idx].d = f;
	} else {
		double f;

		memcpy(&f, &raw, sizeof(f));
		d->out->v[idx].d = f;
	}
	return 0;
}

static int dec_string(struct ctf_dec *d, const struct dnode *dn)
{
	const uint8_t *p, *nul;
	uint64_t avail;
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	p = d->base + (d->pos >> 3);
	avail = (d->end - d->pos) >> 3;
	nul = memchr(p, 0, avail);
	if (!nul)
		return fail(d, "string is not terminated before the end of the packet content");
	if ((uint64_t)(nul - p) > UINT32_MAX)
		return fail(d, "string too long");
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].str.ptr = (const char *)p;
	d->out->v[idx].str.len = (uint32_t)(nul - p);
	d->pos += (uint64_t)(nul - p + 1) * 8;
	return 0;
}

static int dec_text(struct ctf_dec *d, const struct dnode *dn, uint64_t len)
{
	const uint8_t *p, *nul;
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	if (len > (d->end - d->pos) / 8 || len > UINT32_MAX)
		return fail(d, "text array goes past the end of the packet content");
	p = d->base + (d->pos >> 3);
	nul = memchr(p, 0, len);
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].str.ptr = (const char *)p;
	d->out->v[idx].str.len = (uint32_t)(nul ? (uint64_t)(nul - p) : len);
	d->pos += len * 8;
	return 0;
}

/* Index of the element being (or last) decoded in array value i, or UINT32_MAX. */
static uint32_t last_elem(const struct ctf_values *vals, uint32_t i, uint32_t n)
{
	const struct ctf_value *v = vals->v;
	uint32_t end = v[i].nsub == NSUB_OPEN ? n : i + v[i].nsub + 1;
	uint32_t c = i + 1;

	if (c >= end)
		return UINT32_MAX;
	for (;;) {
		uint32_t next;

		if (v[c].nsub == NSUB_OPEN)
			return c;
		next = c + v[c].nsub + 1;
		if (next >= end)
			return c;
		c = next;
	}
}

/* The decoded integer a field path designates (ctf-ir.h, struct ctf_field_path). */
static int resolve(struct ctf_dec *d, const struct ctf_field_path *path,
		   const struct ctf_value **ret)
{
	const struct ctf_scope_root *root;
	const struct ctf_values *vals;
	uint32_t i, n;

	if (path->scope >= CTF_SCOPE_COUNT || !d->root[path->scope].present)
		return fail(d, "field path refers to an absent scope");
	root = &d->root[path->scope];
	vals = root->vals;
	n = vals->n;
	i = root->idx;
	for (uint32_t s = 0; s <= path->len; s++) {
		const struct ctf_type *t;

		if (i >= n)
			return fail(d, "field path refers to a field not decoded yet");
		t = vals->v[i].type;
		while ((t->kind == CTF_TYPE_ARRAY && !t->array.is_text) ||
		       (t->kind == CTF_TYPE_SEQUENCE && !t->sequence.is_text)) {
			i = last_elem(vals, i, n);
			if (i == UINT32_MAX)
				return fail(d, "field path crosses an empty array");
			t = vals->v[i].type;
		}
		if (s == path->len)
			break;
		if (t->kind == CTF_TYPE_STRUCT) {
			uint32_t c = i + 1;

			for (uint32_t k = 0; k < path->index[s]; k++) {
				if (c >= n || vals->v[c].nsub == NSUB_OPEN)
					return fail(d,
						    "field path refers to a field not decoded yet");
				c += vals->v[c].nsub + 1;
			}
			i = c;
		} else if (t->kind == CTF_TYPE_VARIANT) {
			if (vals->v[i].option != path->index[s])
				return fail(d,
					    "field path goes through an unselected variant option");
			i = i + 1;
		} else {
			return fail(d, "invalid field path");
		}
	}
	if (vals->v[i].type->kind != CTF_TYPE_INT && vals->v[i].type->kind != CTF_TYPE_ENUM)
		return fail(d, "field path does not lead to an integer");
	*ret = &vals->v[i];
	return 0;
}

static int dec_node(struct ctf_dec *d, const struct dnode *dn, unsigned depth);

/* One value of a run (struct dn_flat) from its bytes at q. */
static inline __attribute__((always_inline)) void
flat_value(struct ctf_value *v, const struct dn_flat *f, const uint8_t *q)
{
	uint64_t raw;

	switch (f->size) {
	case 8:
		raw = *q;
		break;
	case 16: {
		uint16_t x;

		memcpy(&x, q, 2);
		raw = f->swap ? __builtin_bswap16(x) : x;
		break;
	}
	case 32: {
		uint32_t x;

		memcpy(&x, q, 4);
		raw = f->swap ? __builtin_bswap32(x) : x;
		break;
	}
	default: {
		uint64_t x;

		memcpy(&x, q, 8);
		raw = f->swap ? __builtin_bswap64(x) : x;
		break;
	}
	}
	v->type = f->type;
	v->nsub = 0;
	v->option = 0;
	if (f->is_float) {
		if (f->size == 32) {
			uint32_t x = (uint32_t)raw;
			float fl;

			memcpy(&fl, &x, sizeof(fl));
			v->d = fl;
		} else {
			double db;

			memcpy(&db, &raw, sizeof(db));
			v->d = db;
		}
	} else if (f->is_signed && f->size < 64) {
		uint64_t m = UINT64_C(1) << (f->size - 1);

		v->u = (raw ^ m) - m;
	} else {
		v->u = raw;
	}
}

/*
 * Decode the run of n members starting at flat[0] (struct dn_flat). Returns
 * false, having done nothing but align, when the run does not fit in the
 * packet or in the value array: the member-by-member path then reports the
 * error or grows the array exactly as it always did.
 */
static inline bool dec_run(struct ctf_dec *d, const struct dn_flat *flat, uint32_t n, uint32_t bits)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v;
	const uint8_t *p;

	if (unlikely(d->end - d->pos < bits) || unlikely(o->cap - o->n < n))
		return false;
	p = d->base + (d->pos >> 3);
	v = &o->v[o->n];
	for (uint32_t k = 0; k < n; k++, v++)
		flat_value(v, &flat[k], p + flat[k].off);
	o->n += n;
	d->pos += bits;
	return true;
}

/*
 * The same for the len elements of an array whose dn->flat is set, when the
 * first is already aligned (align <= size keeps the others aligned).
 */
static bool dec_flat_array(struct ctf_dec *d, const struct dn_flat *f, uint32_t align, uint64_t len)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v;
	const uint8_t *p;
	uint32_t stride = f->size / 8;

	/* len was checked against the content left, so len * size cannot wrap. */
	if (unlikely(d->pos & (align - 1)) || unlikely(d->end - d->pos < len * f->size) ||
	    unlikely(o->cap - o->n < len))
		return false;
	p = d->base + (d->pos >> 3);
	v = &o->v[o->n];
	for (uint64_t k = 0; k < len; k++, v++, p += stride)
		flat_value(v, f, p);
	o->n += (uint32_t)len;
	d->pos += len * f->size;
	return true;
}

static int dec_struct(struct ctf_dec *d, const struct dnode *dn, unsigned depth)
{
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = NSUB_OPEN;
	d->out->v[idx].count = dn->n_children;
	for (uint32_t i = 0; i < dn->n_children;) {
		const struct dnode *c = dn->children[i];
		uint32_t n = dn->runs[i].n;

		if (n) {
			if (unlikely(d->pos & (c->align - 1))) {
				r = align_to(d, c->align);
				if (r < 0)
					return r;
			}
			if (likely(dec_run(d, &dn->flat[i], n, dn->runs[i].bits))) {
				i += n;
				continue;
			}
			for (uint32_t e = i + n; i < e; i++) {
				c = dn->children[i];
				r = c->kind == DN_INT ? dec_int(d, c) : dec_node(d, c, depth + 1);
				if (unlikely(r < 0))
					return r;
			}
			continue;
		}
		r = c->kind == DN_INT ? dec_int(d, c) : dec_node(d, c, depth + 1);
		if (unlikely(r < 0))
			return r;
		i++;
	}
	d->out->v[idx].nsub = d->out->n - idx - 1;
	return 0;
}

static int dec_variant(struct ctf_dec *d, const struct dnode *dn, unsigned depth)
{
	const struct ctf_value *tag;
	uint32_t idx, opt = UINT32_MAX;
	int r = resolve(d, dn->path, &tag);

	if (r < 0)
		return r;
	for (uint32_t i = 0; i < dn->n_ranges; i++) {
		const struct dn_range *rg = &dn->ranges[i];
		bool in = dn->ranges_signed ?
				  tag->s >= (int64_t)rg->lo && tag->s <= (int64_t)rg->hi :
				  tag->u >= rg->lo && tag->u <= rg->hi;

		if (in) {
			opt = rg->option;
			break;
		}
	}
	if (opt == UINT32_MAX)
		return fail(d, "variant tag value selects no option");
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = NSUB_OPEN;
	d->out->v[idx].option = opt;
	r = dec_node(d, dn->children[opt], depth + 1);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = d->out->n - idx - 1;
	return 0;
}

static int seq_length(struct ctf_dec *d, const struct dnode *dn, uint64_t *ret)
{
	const struct ctf_value *lv;
	const struct ctf_type *lt;
	int r = resolve(d, dn->path, &lv);

	if (r < 0)
		return r;
	lt = lv->type->kind == CTF_TYPE_ENUM ? lv->type->enumeration.container : lv->type;
	if (lt->integer.is_signed && lv->s < 0)
		return fail(d, "negative sequence length");
	*ret = lv->u;
	return 0;
}

static int dec_array(struct ctf_dec *d, const struct dnode *dn, uint64_t len, unsigned depth)
{
	const struct dnode *elem = dn->children[0];
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	/* Every element takes at least one value slot: bounded by the value limit. */
	if (len > CTF_DEC_MAX_VALUES)
		return fail(d, "array or sequence too long");
	if (elem->min_bits && len > (d->end - d->pos) / elem->min_bits)
		return fail(d, "array or sequence goes past the end of the packet content");
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = NSUB_OPEN;
	d->out->v[idx].count = len;
	if (dn->flat && likely(dec_flat_array(d, dn->flat, elem->align, len))) {
		d->out->v[idx].nsub = d->out->n - idx - 1;
		return 0;
	}
	for (uint64_t i = 0; i < len; i++) {
		r = elem->kind == DN_INT ? dec_int(d, elem) : dec_node(d, elem, depth + 1);
		if (unlikely(r < 0))
			return r;
	}
	d->out->v[idx].nsub = d->out->n - idx - 1;
	return 0;
}

static int dec_node(struct ctf_dec *d, const struct dnode *dn, unsigned depth)
{
	uint64_t len;
	int r;

	if (unlikely(depth > CTF_DEC_MAX_DEPTH))
		return fail(d, "fields nested too deeply");
	switch (dn->kind) {
	case DN_INT:
		return dec_int(d, dn);
	case DN_FLOAT:
		return dec_float(d, dn);
	case DN_STRING:
		return dec_string(d, dn);
	case DN_STRUCT:
		return dec_struct(d, dn, depth);
	case DN_VARIANT:
		return dec_variant(d, dn, depth);
	case DN_ARRAY:
		return dec_array(d, dn, dn->length, depth);
	case DN_TEXT_ARRAY:
		return dec_text(d, dn, dn->length);
	case DN_SEQUENCE:
	case DN_TEXT_SEQUENCE:
		r = seq_length(d, dn, &len);
		if (r < 0)
			return r;
		if (dn->kind == DN_TEXT_SEQUENCE)
			return dec_text(d, dn, len);
		return dec_array(d, dn, len, depth);
	default:
		return fail(d, "unknown field kind");
	}
}

int ctf_dec_root(struct ctf_dec *dec, enum ctf_scope scope, const struct dnode *root,
		 uint32_t *ret_idx)
{
	*ret_idx = dec->out->n;
	dec->root[scope].vals = dec->out;
	dec->root[scope].idx = dec->out->n;
	dec->root[scope].present = true;
	return dec_node(dec, root, 0);
}
