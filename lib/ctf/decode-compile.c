/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 decoding tables: compile IR types into dnodes and per-scope decode
 * programs once per trace (see decode.h). The hot loop is in decode.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/decode.h"
#include "common/common.h"

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
	bool generic; /* no programs, no static field paths */
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

/* Values one instance of t always takes, or UINT64_MAX when that varies. */
static uint64_t fixed_values(const struct ctf_type *t, unsigned depth)
{
	uint64_t n = 1, e;

	if (!t || depth > CTF_DEC_MAX_DEPTH)
		return UINT64_MAX;
	switch (t->kind) {
	case CTF_TYPE_INT:
	case CTF_TYPE_ENUM:
	case CTF_TYPE_FLOAT:
	case CTF_TYPE_STRING:
		return 1;
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++) {
			e = fixed_values(t->structure.fields[i].type, depth + 1);
			if (e == UINT64_MAX || e > CTF_DEC_MAX_VALUES)
				return UINT64_MAX;
			n += e;
			if (n > CTF_DEC_MAX_VALUES)
				return UINT64_MAX;
		}
		return n;
	case CTF_TYPE_ARRAY:
		if (t->array.is_text)
			return 1;
		e = fixed_values(t->array.elem, depth + 1);
		if (e == UINT64_MAX || t->array.length > CTF_DEC_MAX_VALUES ||
		    e * t->array.length > CTF_DEC_MAX_VALUES)
			return UINT64_MAX;
		return 1 + e * t->array.length;
	case CTF_TYPE_SEQUENCE:
		return t->sequence.is_text ? 1 : UINT64_MAX;
	default:
		return UINT64_MAX;
	}
}

uint64_t ctf_dec_fixed_values(const struct ctf_type *t)
{
	return fixed_values(t, 0);
}

uint32_t ctf_dec_member_offset(const struct ctf_type *st, uint32_t m)
{
	uint64_t off = 1, e;

	if (!st || st->kind != CTF_TYPE_STRUCT || m >= st->structure.n_fields)
		return CTF_DEC_NO_OFF;
	for (uint32_t k = 0; k < m; k++) {
		e = fixed_values(st->structure.fields[k].type, 0);
		if (e == UINT64_MAX || e >= CTF_DEC_MAX_VALUES)
			return CTF_DEC_NO_OFF;
		off += e;
		if (off >= CTF_DEC_MAX_VALUES)
			return CTF_DEC_NO_OFF;
	}
	return (uint32_t)off;
}

/*
 * The offset of a field path's target from its scope's root value when it
 * is the same for every instance: each step goes through a struct whose
 * earlier members take a fixed number of values (struct dnode.path_off).
 */
static uint32_t static_path_off(const struct compile_ctx *cc, const struct ctf_field_path *path)
{
	const struct ctf_type *t;
	uint64_t off = 0;

	if (cc->generic || path->scope >= CTF_SCOPE_COUNT)
		return CTF_DEC_NO_OFF;
	t = cc->scope_type[path->scope];
	for (uint32_t s = 0; s < path->len; s++) {
		uint32_t m = ctf_dec_member_offset(t, path->index[s]);

		if (m == CTF_DEC_NO_OFF)
			return CTF_DEC_NO_OFF;
		off += m;
		if (off >= CTF_DEC_MAX_VALUES)
			return CTF_DEC_NO_OFF;
		t = t->structure.fields[path->index[s]].type;
	}
	if (!t || (t->kind != CTF_TYPE_INT && t->kind != CTF_TYPE_ENUM))
		return CTF_DEC_NO_OFF;
	return (uint32_t)off;
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
	dn->path_off = static_path_off(cc, dn->path);
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

/* The load of a flat_leaf() (enum dn_load). */
static uint8_t flat_load(const struct dnode *c)
{
	unsigned l;

	if (c->kind == DN_FLOAT)
		l = c->size == 32 ? DL_F32 : DL_F64;
	else if (c->size == 64)
		l = DL_U64;
	else
		l = (c->size == 8 ? DL_U8 : c->size == 16 ? DL_U16 : DL_U32) + c->is_signed;
	/* One byte has no order. */
	return (uint8_t)(c->swap && c->size > 8 ? l + DL_SWAP : l);
}

/* A struct dn_flat for a flat_leaf() at byte offset off. */
static struct dn_flat make_flat(const struct dnode *c, uint32_t off)
{
	struct dn_flat f = { .type = c->type,
			     .off = off,
			     .size = (uint8_t)c->size,
			     .load = flat_load(c),
			     .shift = (uint8_t)(64 - c->size) };

	f.sx = c->kind == DN_INT && c->is_signed && c->size < 64;
	f.mask = c->size == 64 ? UINT64_MAX : (UINT64_C(1) << c->size) - 1;
	f.sign = f.sx ? UINT64_C(1) << (c->size - 1) : 0;
	return f;
}

/* Partition a struct's members into runs (struct dn_flat), left to right. */
static int compile_runs(struct compile_ctx *cc, struct dnode *dn)
{
	uint32_t i = 0;

	dn->runs = arena_alloc(cc->td->arena, dn->n_children * sizeof(*dn->runs));
	dn->flat = arena_alloc(cc->td->arena, dn->n_children * sizeof(*dn->flat));
	if (!dn->runs || !dn->flat)
		return -ENOMEM;
	/* The reference decodes member by member: no runs. */
	while (!cc->generic && i < dn->n_children) {
		uint32_t a = dn->children[i]->align, j = i;
		uint64_t off = 0;
		int order = -1; /* the run's multi-byte members: swapped (1) or not (0) */

		if (!flat_leaf(dn->children[i])) {
			i++;
			continue;
		}
		for (; j < dn->n_children; j++) {
			const struct dnode *c = dn->children[j];
			uint64_t o;

			if (!flat_leaf(c) || c->align > a)
				break;
			/* One byte order per run: it then loads without a test per member. */
			if (c->size > 8) {
				if (order >= 0 && order != c->swap)
					break;
				order = c->swap;
			}
			o = (off + c->align - 1) & ~((uint64_t)c->align - 1);
			if (o + c->size > UINT32_MAX)
				break;
			dn->flat[j] = make_flat(c, (uint32_t)(o / 8));
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
	dn->path_off = CTF_DEC_NO_OFF;
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
			dn->path_off = static_path_off(cc, dn->path);
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
		if (!cc->generic && flat_leaf(dn->children[0]) &&
		    dn->children[0]->align <= dn->children[0]->size) {
			const struct dnode *c = dn->children[0];

			dn->flat = arena_alloc(cc->td->arena, sizeof(*dn->flat));
			if (!dn->flat)
				return -ENOMEM;
			*dn->flat = make_flat(c, 0);
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

/* --- decode programs (struct dprog) --------------------------------------- */

struct prog_build {
	struct dp_insn *v;
	uint32_t n, cap;
};

static int emit(struct prog_build *pb, struct dp_insn in)
{
	if (pb->n == pb->cap) {
		uint32_t cap = pb->cap ? pb->cap * 2 : 16;
		struct dp_insn *v = realloc(pb->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pb->v = v;
		pb->cap = cap;
	}
	pb->v[pb->n++] = in;
	return 0;
}

/* Where flatten() is: the field path steps from the scope root to dn. */
struct flat_at {
	enum ctf_scope scope;
	uint32_t len;
	uint32_t step[2 * CTF_DEC_PROG_NEST + 2]; /* a struct and a variant per nesting */
};

/*
 * For a sequence, member i of struct st at *at: how many values back from
 * its own its length is, when the length is an earlier member of st and
 * the members between take a fixed number of values (LTTng's `_x_length`
 * right before `x`): no field path walk then. 0 when that does not hold.
 */
static uint32_t sibling_back(const struct dnode *seq, const struct dnode *st, uint32_t i,
			     const struct flat_at *at)
{
	const struct ctf_field_path *path = seq->path;
	uint64_t back = 1, e;
	uint32_t j;

	if (!path || path->scope != at->scope || path->len != at->len + 1)
		return 0;
	for (uint32_t k = 0; k < at->len; k++)
		if (path->index[k] != at->step[k])
			return 0;
	j = path->index[at->len];
	if (j >= i || st->children[j]->kind != DN_INT)
		return 0;
	for (uint32_t m = j + 1; m < i; m++) {
		e = fixed_values(st->children[m]->type, 0);
		if (e == UINT64_MAX || e >= CTF_DEC_MAX_VALUES)
			return 0;
		back += e;
		if (back >= CTF_DEC_MAX_VALUES)
			return 0;
	}
	return (uint32_t)back;
}

static int flatten(struct compile_ctx *cc, struct prog_build *pb, const struct dnode *dn,
		   unsigned depth, unsigned nest, struct flat_at *at);

/* Member i of struct st, at *at (its own step not yet in). */
static int flatten_member(struct compile_ctx *cc, struct prog_build *pb, const struct dnode *st,
			  uint32_t i, unsigned depth, unsigned nest, struct flat_at *at)
{
	const struct dnode *c = st->children[i];
	uint32_t back;
	int r;

	if ((c->kind == DN_SEQUENCE || c->kind == DN_TEXT_SEQUENCE) && !cc->generic &&
	    (back = sibling_back(c, st, i, at)) != 0)
		return emit(pb,
			    (struct dp_insn){
				    .op = DP_SEQUENCE,
				    .depth = depth,
				    .n = back,
				    .len_signed = st->children[c->path->index[at->len]]->is_signed,
				    .dn = c });
	at->step[at->len++] = i;
	r = flatten(cc, pb, c, depth, nest, at);
	at->len--;
	return r;
}

/* Append dn (at nesting depth, inside nest inline structs, at *at) to pb. */
static int flatten(struct compile_ctx *cc, struct prog_build *pb, const struct dnode *dn,
		   unsigned depth, unsigned nest, struct flat_at *at)
{
	struct dp_insn in = { .op = DP_NODE, .depth = depth, .dn = dn };
	int r;

	switch (dn->kind) {
	case DN_INT:
		in.op = DP_INT;
		break;
	case DN_STRING:
		in.op = DP_STRING;
		break;
	case DN_TEXT_ARRAY:
		in.op = DP_TEXT_ARRAY;
		break;
	case DN_ARRAY:
		in.op = DP_ARRAY;
		break;
	case DN_STRUCT:
		if (nest >= CTF_DEC_PROG_NEST)
			break;
		in.op = DP_BEGIN;
		r = emit(pb, in);
		for (uint32_t i = 0; r == 0 && i < dn->n_children;) {
			uint32_t n = dn->runs[i].n;

			if (n) {
				r = emit(pb, (struct dp_insn){ .op = DP_RUN,
							       .depth = depth + 1,
							       .n = n,
							       .bits = dn->runs[i].bits,
							       .dn = dn->children[i],
							       .members = &dn->children[i],
							       .flat = &dn->flat[i] });
				i += n;
			} else {
				r = flatten_member(cc, pb, dn, i, depth + 1, nest + 1, at);
				i++;
			}
		}
		if (r < 0)
			return r;
		in.op = DP_END;
		break;
	case DN_VARIANT: {
		/* VARIANT, option 0, JUMP, option 1, JUMP, ..., option n-1, END */
		uint32_t *targets, *jumps;

		if (dn->path_off == CTF_DEC_NO_OFF || nest >= CTF_DEC_PROG_NEST)
			break;
		targets = arena_alloc(cc->td->arena, dn->n_children * sizeof(*targets));
		jumps = calloc(dn->n_children ? dn->n_children : 1, sizeof(*jumps));
		if (!targets || !jumps) {
			free(jumps);
			return -ENOMEM;
		}
		in.op = DP_VARIANT;
		in.targets = targets;
		r = emit(pb, in);
		for (uint32_t i = 0; r == 0 && i < dn->n_children; i++) {
			targets[i] = pb->n;
			at->step[at->len++] = i;
			r = flatten(cc, pb, dn->children[i], depth + 1, nest + 1, at);
			at->len--;
			jumps[i] = pb->n;
			if (r == 0 && i + 1 < dn->n_children)
				r = emit(pb, (struct dp_insn){ .op = DP_JUMP });
		}
		/* Every option jumps to the END that closes the variant. */
		for (uint32_t i = 0; r == 0 && i + 1 < dn->n_children; i++)
			pb->v[jumps[i]].n = pb->n;
		free(jumps);
		if (r < 0)
			return r;
		in.op = DP_END;
		break;
	}
	default:
		break;
	}
	return emit(pb, in);
}

static int build_prog(struct compile_ctx *cc, const struct dnode *dn, enum ctf_scope scope,
		      const struct dprog **ret)
{
	struct flat_at at = { .scope = scope };
	struct prog_build pb = { 0 };
	struct dp_insn *insn;
	struct dprog *pg;
	int r = flatten(cc, &pb, dn, 0, 0, &at);

	if (r < 0)
		goto out;
	r = -ENOMEM;
	pg = arena_alloc(cc->td->arena, sizeof(*pg));
	insn = arena_alloc(cc->td->arena, pb.n * sizeof(*insn));
	if (!pg || !insn)
		goto out;
	memcpy(insn, pb.v, pb.n * sizeof(*insn));
	pg->insn = insn;
	pg->n = pb.n;
	*ret = pg;
	r = 0;
out:
	free(pb.v);
	return r;
}

/* --- shapes (struct dshape) ------------------------------------------------ */

struct shape_build {
	struct ctf_value *vals;
	uint32_t n_vals, cap_vals;
	struct ds_op *ops;
	uint32_t n_ops;
};

/* false when the shape grows past its limits: no shape then. */
static bool shape_op(struct shape_build *sb, struct ds_op op)
{
	/*
	 * Aligning to a then to b (powers of two) is aligning to the larger:
	 * an ALIGN followed by any op becomes that op.
	 */
	if (sb->n_ops && sb->ops[sb->n_ops - 1].op == DS_ALIGN) {
		op.align = MAX(op.align, sb->ops[sb->n_ops - 1].align);
		sb->n_ops--;
	}
	if (op.op == DS_ALIGN && op.align <= 1)
		return true;
	if (sb->n_ops == CTF_DEC_SHAPE_MAX_OPS)
		return false;
	sb->ops[sb->n_ops++] = op;
	return true;
}

/* The template value of t with nsub descendants and count (structs, arrays). */
static uint32_t shape_val(struct shape_build *sb, const struct ctf_type *t, uint32_t nsub,
			  uint64_t count)
{
	struct ctf_value *v = &sb->vals[sb->n_vals];

	memset(v, 0, sizeof(*v));
	v->type = t;
	v->nsub = nsub;
	v->count = count;
	return sb->n_vals++;
}

/* A dn_flat's load without its byte order (enum dn_load); *swap: the other order. */
static unsigned flat_base_load(const struct dn_flat *f, bool *swap)
{
	*swap = f->load >= DL_SWAP;
	return *swap ? f->load - DL_SWAP : f->load;
}

/* struct ds_op.plain of a run. */
static uint8_t run_plain(const struct dn_flat *flat, uint32_t n)
{
	bool native = true, swapped = true;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		return DS_PLAIN_NO;
	for (uint32_t k = 0; k < n; k++) {
		if (flat[k].load == DL_F32 || flat[k].load == DL_SWAP + DL_F32)
			return DS_PLAIN_NO;
		if (flat[k].load >= DL_SWAP)
			native = false;
		else if (flat[k].size > 8)
			swapped = false;
	}
	return native ? DS_PLAIN_NATIVE : swapped ? DS_PLAIN_SWAPPED : DS_PLAIN_NO;
}

/* struct ds_op.over of a run. */
static uint32_t run_over(const struct dn_flat *flat, uint32_t n, uint32_t bits)
{
	uint32_t end = bits / 8, over = 0;

	for (uint32_t k = 0; k < n; k++) {
		bool swap;

		/* flat_bits() swaps with the host little-endian only. */
		if (flat_base_load(&flat[k], &swap) == DL_F32 ||
		    (swap && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__))
			return UINT32_MAX;
		if (flat[k].off + 8 > end)
			over = MAX(over, flat[k].off + 8 - end);
	}
	return over;
}

static bool shape_walk(struct shape_build *sb, const struct dnode *dn);

/*
 * Member i of dn, a scope root at value 0 of the shape and *at, when it is
 * a sequence a SEQ or TSEQ op takes ("Sequences" in decode.h): its length
 * an earlier member a fixed number of values back, its elements flat.
 */
static bool shape_seq_member(struct shape_build *sb, const struct dnode *dn, uint32_t i,
			     const struct flat_at *at)
{
	const struct dnode *c = dn->children[i];
	uint32_t back;

	if ((c->kind != DN_SEQUENCE || !c->flat) && c->kind != DN_TEXT_SEQUENCE)
		return false;
	back = sibling_back(c, dn, i, at);
	if (!back || sb->n_vals == sb->cap_vals)
		return false;
	return shape_op(
		sb,
		(struct ds_op){ .op = c->kind == DN_SEQUENCE ? DS_SEQ : DS_TSEQ,
				.align = c->align,
				.n = back,
				.elem_align = c->kind == DN_SEQUENCE ? c->children[0]->align : 1,
				.root = 0,
				.vidx = shape_val(sb, c->type, 0, 0),
				.flat = c->flat });
}

/*
 * A struct's members [0, n_members): runs and nested shapes, and when at
 * is set (dn is the scope root there), sequences.
 */
static bool shape_members(struct shape_build *sb, const struct dnode *dn, uint32_t n_members,
			  const struct flat_at *at)
{
	for (uint32_t i = 0; i < n_members;) {
		const struct dn_run *run = &dn->runs[i];

		if (!run->n) {
			if (!(at && shape_seq_member(sb, dn, i, at)) &&
			    !shape_walk(sb, dn->children[i]))
				return false;
			i++;
			continue;
		}
		if (run->n > sb->cap_vals - sb->n_vals)
			return false;
		if (!shape_op(sb, (struct ds_op){ .op = DS_RUN,
						  .align = dn->children[i]->align,
						  .n = run->n,
						  .bits = run->bits,
						  .vidx = sb->n_vals,
						  .over = run_over(&dn->flat[i], run->n, run->bits),
						  .plain = run_plain(&dn->flat[i], run->n),
						  .flat = &dn->flat[i] }))
			return false;
		for (uint32_t k = 0; k < run->n; k++)
			shape_val(sb, dn->flat[i + k].type, 0, 0);
		i += run->n;
	}
	return true;
}

/* Append dn's values and ops; false when dn has no fixed shape. */
static bool shape_walk(struct shape_build *sb, const struct dnode *dn)
{
	uint64_t nv = fixed_values(dn->type, 0);

	if (nv == UINT64_MAX || nv > sb->cap_vals - sb->n_vals)
		return false;
	switch (dn->kind) {
	case DN_INT:
	case DN_FLOAT:
		/* Those with a meaning or a clock update the decoding state too. */
		return shape_op(sb, (struct ds_op){ .op = DS_LEAF,
						    .align = dn->align,
						    .vidx = shape_val(sb, dn->type, 0, 0),
						    .dn = dn });
	case DN_STRING:
		return shape_op(sb, (struct ds_op){ .op = DS_STRING,
						    .align = dn->align,
						    .vidx = shape_val(sb, dn->type, 0, 0) });
	case DN_TEXT_ARRAY:
		if (dn->length > UINT32_MAX)
			return false;
		return shape_op(sb, (struct ds_op){ .op = DS_TEXT,
						    .align = dn->align,
						    .n = (uint32_t)dn->length,
						    .vidx = shape_val(sb, dn->type, 0, 0) });
	case DN_STRUCT:
		shape_val(sb, dn->type, (uint32_t)nv - 1, dn->n_children);
		return shape_op(sb, (struct ds_op){ .op = DS_ALIGN, .align = dn->align }) &&
		       shape_members(sb, dn, dn->n_children, NULL);
	case DN_ARRAY:
		shape_val(sb, dn->type, (uint32_t)nv - 1, dn->length);
		if (!shape_op(sb, (struct ds_op){ .op = DS_ALIGN, .align = dn->align }))
			return false;
		if (dn->flat) {
			/* The array aligns itself, then its first element must be. */
			if (!shape_op(sb, (struct ds_op){ .op = DS_ARRAY,
							  .align = dn->children[0]->align,
							  .n = (uint32_t)dn->length,
							  .vidx = sb->n_vals,
							  .flat = dn->flat }))
				return false;
			for (uint64_t k = 0; k < dn->length; k++)
				shape_val(sb, dn->flat->type, 0, 0);
			return true;
		}
		for (uint64_t k = 0; k < dn->length; k++)
			if (!shape_walk(sb, dn->children[0]))
				return false;
		return true;
	default:
		return false;
	}
}

static bool is_seq_op(const struct ds_op *op)
{
	return op->op == DS_SEQ || op->op == DS_TSEQ;
}

/* Cut sh's template after each sequence ("Sequences" in decode.h). */
static void shape_segments(struct dshape *sh, struct ds_op *ops)
{
	struct ds_op *last = NULL;

	sh->n_first = sh->n_vals;
	for (uint32_t i = 0; i < sh->n_ops; i++) {
		if (!is_seq_op(&ops[i]))
			continue;
		if (last)
			last->seg_end = ops[i].vidx + 1;
		else
			sh->n_first = ops[i].vidx + 1;
		last = &ops[i];
	}
	if (last)
		last->seg_end = sh->n_vals;
}

static bool shape_has_seq(const struct dshape *sh)
{
	for (uint32_t i = 0; i < sh->n_ops; i++)
		if (is_seq_op(&sh->ops[i]))
			return true;
	return false;
}

/* Copy a finished build into the arena. */
static int shape_store(struct compile_ctx *cc, const struct shape_build *sb, struct dshape **ret)
{
	struct dshape *sh = arena_alloc(cc->td->arena, sizeof(*sh));
	struct ctf_value *tmpl = arena_alloc(cc->td->arena, sb->n_vals * sizeof(*tmpl));
	struct ds_op *ops = arena_alloc(cc->td->arena, sb->n_ops * sizeof(*ops));

	if (!sh || !tmpl || !ops)
		return -ENOMEM;
	memcpy(tmpl, sb->vals, sb->n_vals * sizeof(*tmpl));
	memcpy(ops, sb->ops, sb->n_ops * sizeof(*ops));
	*sh = (struct dshape){ .n_vals = sb->n_vals, .tmpl = tmpl, .n_ops = sb->n_ops, .ops = ops };
	shape_segments(sh, ops);
	*ret = sh;
	return 0;
}

/* Values of dn's members [0, n), plus one for dn itself; UINT64_MAX if any varies. */
static uint64_t members_values(const struct dnode *dn, uint32_t n)
{
	uint64_t nv = 1, e;

	for (uint32_t i = 0; i < n; i++) {
		e = fixed_values(dn->children[i]->type, 0);
		if (e == UINT64_MAX || e > CTF_DEC_SHAPE_MAX_VALUES)
			return UINT64_MAX;
		nv += e;
	}
	return nv;
}

/*
 * The last member of the root when it is a variant a shape can take: its
 * tag decoded earlier in the same scope at a fixed value index, each option
 * of a fixed shape (struct ds_variant).
 */
static bool tail_variant(const struct dnode *root, enum ctf_scope scope, uint64_t before)
{
	const struct dnode *v;

	if (!root->n_children)
		return false;
	v = root->children[root->n_children - 1];
	return v->kind == DN_VARIANT && v->path_off != CTF_DEC_NO_OFF && v->path->scope == scope &&
	       v->path_off < before && v->n_children;
}

/* A build sized for nv values. */
static int shape_begin(struct shape_build *sb, uint64_t nv)
{
	memset(sb, 0, sizeof(*sb));
	sb->cap_vals = (uint32_t)nv;
	sb->vals = calloc(nv ? nv : 1, sizeof(*sb->vals));
	sb->ops = calloc(CTF_DEC_SHAPE_MAX_OPS, sizeof(*sb->ops));
	return sb->vals && sb->ops ? 0 : -ENOMEM;
}

static void shape_end(struct shape_build *sb)
{
	free(sb->vals);
	free(sb->ops);
}

/* The shapes of a tail variant's options; false when one has none. */
static int variant_shapes(struct compile_ctx *cc, const struct dnode *v, uint32_t vidx,
			  struct ds_variant **ret)
{
	struct ds_variant *var = arena_alloc(cc->td->arena, sizeof(*var));
	const struct dshape **subs = arena_alloc(cc->td->arena, v->n_children * sizeof(*subs));
	struct shape_build sb;
	int r = 0;

	*ret = NULL;
	if (!var || !subs)
		return -ENOMEM;
	for (uint32_t o = 0; o < v->n_children; o++) {
		uint64_t nv = fixed_values(v->children[o]->type, 0);
		struct dshape *sh = NULL;

		if (nv == UINT64_MAX || nv > CTF_DEC_SHAPE_MAX_VALUES)
			return 0;
		r = shape_begin(&sb, nv);
		if (r == 0 && shape_walk(&sb, v->children[o]) && sb.n_vals == nv)
			r = shape_store(cc, &sb, &sh);
		else if (r == 0)
			r = 1;
		shape_end(&sb);
		if (r)
			return r < 0 ? r : 0;
		subs[o] = sh;
	}
	*var = (struct ds_variant){ .vidx = vidx, .tag = v->path_off, .dn = v, .subs = subs };
	*ret = var;
	return 0;
}

/* The leaves of a head being built (struct dhead). */
struct head_build {
	struct dh_leaf *leaves;
	uint32_t n, cap;
	uint32_t bytes;
};

/* A leaf of size bits at bit, in big-endian bit order or not (struct dh_leaf). */
static bool head_leaf(struct head_build *hb, uint32_t vidx, uint32_t bit, unsigned size, bool be,
		      bool sx, const struct dnode *notes)
{
	const bool host_be = __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__;

	if (hb->n == hb->cap || (bit & 7) + size > 64)
		return false;
	hb->bytes = MAX(hb->bytes, bit / 8 + 8);
	/* The 8 bytes in their own order: bit 0 lowest (LE) or highest (BE). */
	hb->leaves[hb->n++] = (struct dh_leaf){
		.mask = size == 64 ? UINT64_MAX : (UINT64_C(1) << size) - 1,
		.vidx = vidx,
		.byte = bit / 8,
		.size = (uint8_t)size,
		.shift = (uint8_t)(be ? 64 - (bit & 7) - size : (bit & 7)),
		.swap = be != host_be,
		.sx = sx,
		.meaning = notes ? notes->meaning : CTF_MEANING_NONE,
		.clock = notes && notes->clock >= 0 && notes->meaning != CTF_MEANING_TS_END,
	};
	return true;
}

/*
 * The fixed-layout leaves of ops (values from vbase) into *hb, from bit
 * *pos of a scope aligned to align: false when a field's offset could
 * vary or its load is not a plain 8-byte one.
 */
static bool head_ops(struct head_build *hb, const struct ds_op *ops, uint32_t n_ops, uint32_t vbase,
		     uint32_t align, uint64_t *pos)
{
	for (uint32_t i = 0; i < n_ops; i++) {
		const struct ds_op *op = &ops[i];

		if (op->align > align)
			return false;
		*pos = (*pos + op->align - 1) & ~((uint64_t)op->align - 1);
		if (*pos > UINT32_MAX - 512)
			return false;
		if (op->op == DS_LEAF) {
			const struct dnode *dn = op->dn;

			if (dn->kind != DN_INT ||
			    !head_leaf(hb, vbase + op->vidx, (uint32_t)*pos, dn->size,
				       dn->bo == CTF_BO_BE, dn->is_signed && dn->size < 64,
				       dn->notes ? dn : NULL))
				return false;
			*pos += dn->size;
		} else if (op->op == DS_RUN) {
			for (uint32_t k = 0; k < op->n; k++) {
				const struct dn_flat *f = &op->flat[k];
				bool swap;

				if (flat_base_load(f, &swap) == DL_F32 ||
				    !head_leaf(hb, vbase + op->vidx + k,
					       (uint32_t)(*pos + f->off * 8), f->size,
					       swap == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__),
					       f->sx, NULL))
					return false;
			}
			*pos += op->bits;
		} else if (op->op != DS_ALIGN) {
			return false;
		}
	}
	return true;
}

/* The head of a shape with a tail variant (struct dhead), or none. */
static int build_head(struct compile_ctx *cc, const struct dnode *dn, struct dshape *sh)
{
	const struct ds_variant *var = sh->var;
	const struct dnode *v = var->dn;
	struct head_build hb = { 0 };
	struct dh_opt *opts;
	struct dhead *h;
	uint64_t root_end = 0;
	bool found = false;
	int r;

	if (dn->align < 8)
		return 0;
	h = arena_alloc(cc->td->arena, sizeof(*h));
	opts = arena_alloc(cc->td->arena, v->n_children * sizeof(*opts));
	if (!h || !opts)
		return -ENOMEM;
	hb.cap = sh->n_ops + 64;
	for (uint32_t o = 0; o < v->n_children; o++)
		hb.cap += var->subs[o]->n_ops + 64;
	hb.leaves = calloc(hb.cap, sizeof(*hb.leaves));
	if (!hb.leaves)
		return -ENOMEM;
	r = 0;
	if (!head_ops(&hb, sh->ops, sh->n_ops, 0, dn->align, &root_end))
		goto out;
	for (uint32_t i = 0; i < hb.n; i++) {
		if (hb.leaves[i].vidx == var->tag) {
			h->tag = hb.leaves[i];
			found = true;
		}
	}
	if (!found)
		goto out;
	h->tag_bytes = h->tag.byte + 8;
	for (uint32_t o = 0; o < v->n_children; o++) {
		const struct dshape *sub = var->subs[o];
		struct head_build ob = { .leaves = hb.leaves + hb.n, .cap = hb.cap - hb.n };
		struct dh_leaf *leaves;
		struct ctf_value *tmpl;
		uint64_t pos = root_end;

		/* The root's leaves, then the option's. */
		memcpy(ob.leaves, hb.leaves, hb.n * sizeof(*hb.leaves));
		ob.n = hb.n;
		ob.bytes = hb.bytes;
		if (!head_ops(&ob, sub->ops, sub->n_ops, sh->n_vals, dn->align, &pos))
			goto out;
		leaves = arena_alloc(cc->td->arena, ob.n * sizeof(*leaves));
		tmpl = arena_alloc(cc->td->arena, (sh->n_vals + sub->n_vals) * sizeof(*tmpl));
		if (!leaves || !tmpl) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(leaves, ob.leaves, ob.n * sizeof(*leaves));
		memcpy(tmpl, sh->tmpl, sh->n_vals * sizeof(*tmpl));
		memcpy(tmpl + sh->n_vals, sub->tmpl, sub->n_vals * sizeof(*tmpl));
		tmpl[var->vidx].option = o;
		tmpl[var->vidx].nsub = sub->n_vals;
		tmpl[0].nsub += sub->n_vals;
		opts[o] = (struct dh_opt){ .n_vals = sh->n_vals + sub->n_vals,
					   .tmpl = tmpl,
					   .n_leaves = ob.n,
					   .leaves = leaves,
					   .bits = (uint32_t)pos,
					   .bytes = ob.bytes,
					   .id_leaf = UINT32_MAX };
		/* As note_meaning() in leaf order leaves it: the last one. */
		for (uint32_t i = 0; i < ob.n; i++)
			if (leaves[i].meaning == CTF_MEANING_EVENT_ID)
				opts[o].id_leaf = i;
	}
	h->align = dn->align;
	h->var = v;
	h->opts = opts;
	sh->head = h;
out:
	free(hb.leaves);
	return r;
}

/* The shape of a scope root, or NULL when it has none. */
static int build_shape(struct compile_ctx *cc, const struct dnode *dn, enum ctf_scope scope,
		       const struct dshape **ret)
{
	const struct flat_at at = { .scope = scope };
	uint64_t nv = fixed_values(dn->type, 0), before;
	uint32_t n_members = dn->n_children;
	struct ds_variant *var = NULL;
	struct shape_build sb;
	struct dshape *sh;
	bool seqs = false;
	int r;

	*ret = NULL;
	if (nv == UINT64_MAX) {
		before = members_values(dn, n_members - (n_members > 0));
		if (before != UINT64_MAX && tail_variant(dn, scope, before)) {
			/* Fixed but for a variant at the end (event headers): keep it apart. */
			n_members--;
			nv = before + 1; /* the variant's own value */
		} else {
			/* Fixed but for sequences, maybe: counted empty, as they come. */
			seqs = true;
			nv = CTF_DEC_SHAPE_MAX_VALUES;
		}
	}
	if (nv > CTF_DEC_SHAPE_MAX_VALUES)
		return 0;
	r = shape_begin(&sb, nv);
	if (r < 0)
		goto out;
	shape_val(&sb, dn->type, (uint32_t)nv - 1, dn->n_children);
	if (!shape_op(&sb, (struct ds_op){ .op = DS_ALIGN, .align = dn->align }) ||
	    !shape_members(&sb, dn, n_members, seqs ? &at : NULL))
		goto out;
	if (n_members < dn->n_children) {
		const struct dnode *v = dn->children[n_members];

		r = variant_shapes(cc, v, shape_val(&sb, v->type, 0, 0), &var);
		if (r < 0 || !var)
			goto out;
	}
	if (seqs)
		sb.vals[0].nsub = sb.n_vals - 1;
	else if (sb.n_vals != nv)
		goto out;
	r = shape_store(cc, &sb, &sh);
	if (r == 0) {
		sh->var = var;
		if (var)
			r = build_head(cc, dn, sh);
		*ret = sh;
	}
out:
	shape_end(&sb);
	return r;
}

/*
 * The body shape of an event class (struct ctf_ec_dec .body): the shapes
 * of its scopes after the header, concatenated, each op's value index
 * moved past the scopes before it.
 */
static int build_body(struct compile_ctx *cc, const struct dnode *stream_ctx,
		      struct ctf_ec_dec *ecd)
{
	const struct dnode *roots[CTF_BODY_COUNT] = { stream_ctx, ecd->context, ecd->payload };
	uint64_t nv = 0, nops = 0;
	struct shape_build sb;
	struct dshape *sh;
	int r;

	for (int k = 0; k < CTF_BODY_COUNT; k++) {
		const struct dshape *part;

		ecd->body_idx[k] = UINT32_MAX;
		if (!roots[k])
			continue;
		part = roots[k]->shape;
		if (!part || part->var)
			return 0;
		/* Only the last scope's values may move ("Sequences" in decode.h). */
		for (int j = k + 1; j < CTF_BODY_COUNT; j++)
			if (roots[j] && shape_has_seq(part))
				return 0;
		nv += part->n_vals;
		nops += part->n_ops;
	}
	if (!nv || nv > CTF_DEC_SHAPE_MAX_VALUES || nops > CTF_DEC_SHAPE_MAX_OPS)
		return 0;
	r = shape_begin(&sb, nv);
	if (r < 0)
		goto out;
	for (int k = 0; k < CTF_BODY_COUNT; k++) {
		const struct dshape *part = roots[k] ? roots[k]->shape : NULL;
		uint32_t base = sb.n_vals;

		if (!part)
			continue;
		ecd->body_idx[k] = base;
		memcpy(&sb.vals[base], part->tmpl, part->n_vals * sizeof(*sb.vals));
		sb.n_vals += part->n_vals;
		for (uint32_t i = 0; i < part->n_ops; i++) {
			struct ds_op op = part->ops[i];

			op.vidx += base;
			op.root += base;
			if (!shape_op(&sb, op))
				goto out;
		}
	}
	r = shape_store(cc, &sb, &sh);
	if (r == 0)
		ecd->body = sh;
out:
	shape_end(&sb);
	return r;
}

static int compile_root(struct compile_ctx *cc, const struct ctf_type *t, enum ctf_scope scope,
			struct dnode **ret)
{
	int r;

	*ret = NULL;
	if (!t)
		return 0;
	if (t->kind != CTF_TYPE_STRUCT)
		return compile_fail(cc, "scope root is not a structure");
	r = compile_type(cc, t, 0, ret);
	if (r < 0 || cc->generic)
		return r;
	r = build_prog(cc, *ret, scope, &(*ret)->prog);
	if (r < 0)
		return r;
	return build_shape(cc, *ret, scope, &(*ret)->shape);
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
	r = compile_root(cc, sc->packet_context, CTF_SCOPE_PACKET_CONTEXT, &scd->packet_context);
	if (r == 0)
		r = compile_root(cc, sc->event_header, CTF_SCOPE_EVENT_HEADER, &scd->event_header);
	if (r == 0)
		r = compile_root(cc, sc->event_context, CTF_SCOPE_STREAM_EVENT_CONTEXT,
				 &scd->event_context);
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
		r = compile_root(cc, ec->context, CTF_SCOPE_EVENT_CONTEXT, &scd->ecs[i].context);
		if (r == 0)
			r = compile_root(cc, ec->payload, CTF_SCOPE_EVENT_PAYLOAD,
					 &scd->ecs[i].payload);
		if (r == 0 && !cc->generic)
			r = build_body(cc, scd->event_context, &scd->ecs[i]);
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
	return ctf_trace_dec_create_opts(tc, false, ret, errbuf, errlen);
}

int ctf_trace_dec_create_opts(const struct ctf_trace_class *tc, bool generic,
			      struct ctf_trace_dec **ret, char *errbuf, size_t errlen)
{
	struct compile_ctx cc = { .generic = generic, .errbuf = errbuf, .errlen = errlen };
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
	r = compile_root(&cc, tc->packet_header, CTF_SCOPE_PACKET_HEADER, &td->packet_header);
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
	for (size_t i = 0; i < tc->n_streams; i++) {
		struct ctf_sc_dec *scd = &td->scs[i];
		int32_t clk = scd->sc->default_clock;

		scd->head = scd->event_header && scd->event_header->shape ?
				    scd->event_header->shape->head :
				    NULL;
		scd->default_id = scd->sc->n_events == 1 ? scd->sc->events[0]->id : 0;
		scd->has_clock = clk >= 0;
		scd->clock_ns = clk >= 0 && (size_t)clk < tc->n_clocks && td->clock_base_ok[clk] &&
				tc->clocks[clk].freq == UINT64_C(1000000000);
		scd->clock_base_ns = scd->clock_ns ? td->clock_base_ns[clk] : 0;
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

const struct ctf_ec_dec *ctf_sc_dec_ec_search(const struct ctf_sc_dec *scd, uint64_t id)
{
	size_t lo = 0, hi = scd->sc->n_events;

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
