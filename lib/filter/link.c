/* SPDX-License-Identifier: MIT */
/*
 * flt_link(): bind references, then type the program in one walk,
 * choosing each instruction's specialised form (runtime.h). Types:
 *
 *   INT     integers, enums, array elements, comparison results
 *   DOUBLE  floats, double literals
 *   STR     string fields, text arrays/sequences, string contexts
 *   LIT     plain string literals (a final '*' matches any rest)
 *   GLOB    full star-glob literals
 *
 * Anything LTTng-UST cannot evaluate for this event fails the link (the
 * rule then never records it, as there): a string against a number, a
 * glob not under ==/!= against a string, bitwise operators or `~` on a
 * double, && or || on a string, a result that is not an integer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/runtime.h"

#include "common/common.h"

enum ltype { LT_INT, LT_DOUBLE, LT_STR, LT_LIT, LT_GLOB };

static bool is_string(enum ltype t)
{
	return t == LT_STR || t == LT_LIT;
}

static void symref_of(const struct flt_program *p, uint32_t s, struct flt_symref *ref)
{
	const struct flt_bc_sym *sym = &p->sym[s];

	memset(ref, 0, sizeof(*ref));
	ref->root = sym->root;
	ref->ncomp = sym->ncomp;
	for (unsigned int i = 0; i < sym->ncomp; i++) {
		const struct flt_bc_comp *c = &p->comp[sym->first + i];

		ref->comp[i].kind = c->kind;
		if (c->kind == FLT_COMP_NAME) {
			ref->comp[i].name = p->text + p->str[c->a32].off;
			ref->comp[i].len = p->str[c->a32].len;
		} else {
			ref->comp[i].index = p->konst[c->a32];
		}
	}
}

static int binding_type(const struct flt_binding *b, enum ltype *ret)
{
	switch (b->kind) {
	case FLT_B_INT:
	case FLT_B_CTX_INT:
		*ret = LT_INT;
		return 0;
	case FLT_B_INT_NET:
	case FLT_B_ELEM:
		if (b->size != 1 && b->size != 2 && b->size != 4 && b->size != 8)
			return -EINVAL;
		*ret = LT_INT;
		return 0;
	case FLT_B_DOUBLE:
	case FLT_B_CTX_DOUBLE:
		*ret = LT_DOUBLE;
		return 0;
	case FLT_B_STRING:
	case FLT_B_TEXT:
	case FLT_B_CTX_STRING:
		*ret = LT_STR;
		return 0;
	default:
		return -EINVAL;
	}
}

static uint8_t cmp_of(uint8_t op)
{
	switch (op) {
	case FLT_OP_EQ:
		return FLT_CMP_EQ;
	case FLT_OP_NE:
		return FLT_CMP_NE;
	case FLT_OP_LT:
		return FLT_CMP_LT;
	case FLT_OP_LE:
		return FLT_CMP_LE;
	case FLT_OP_GT:
		return FLT_CMP_GT;
	default:
		return FLT_CMP_GE;
	}
}

/* The specialised form of a binary operator on types l, r; -EINVAL when it cannot run. */
static int binary(uint8_t op, enum ltype l, enum ltype r, struct flt_linsn *out)
{
	static const uint8_t bitwise[] = {
		[FLT_OP_BAND] = FLT_L_BAND, [FLT_OP_BOR] = FLT_L_BOR, [FLT_OP_BXOR] = FLT_L_BXOR,
		[FLT_OP_SHL] = FLT_L_SHL,   [FLT_OP_SHR] = FLT_L_SHR,
	};

	if (op >= FLT_OP_BAND && op <= FLT_OP_SHR) {
		if (l != LT_INT || r != LT_INT)
			return -EINVAL;
		out->op = bitwise[op];
		return 0;
	}
	out->sub = cmp_of(op);
	if (l == LT_GLOB || r == LT_GLOB) {
		if ((op != FLT_OP_EQ && op != FLT_OP_NE) || (l == LT_GLOB && r == LT_GLOB) ||
		    !(is_string(l) || is_string(r)))
			return -EINVAL;
		out->op = FLT_L_GLOB;
		out->flags = l == LT_GLOB ? FLT_LF_LEFT_PATTERN : 0;
		return 0;
	}
	if (is_string(l) || is_string(r)) {
		if (!is_string(l) || !is_string(r))
			return -EINVAL;
		out->op = FLT_L_CMP_SS;
		out->flags =
			(l == LT_LIT ? FLT_LF_LEFT_LIT : 0) | (r == LT_LIT ? FLT_LF_RIGHT_LIT : 0);
		return 0;
	}
	if (l == LT_INT && r == LT_INT)
		out->op = FLT_L_CMP_II;
	else if (l == LT_INT)
		out->op = FLT_L_CMP_ID;
	else if (r == LT_INT)
		out->op = FLT_L_CMP_DI;
	else
		out->op = FLT_L_CMP_DD;
	return 0;
}

static int resolve_all(const struct flt_program *p, flt_resolve_fn resolve, void *opaque,
		       struct flt_binding *binds, enum ltype *types)
{
	for (uint32_t s = 0; s < p->h.nsym; s++) {
		struct flt_symref ref;
		int r;

		symref_of(p, s, &ref);
		memset(&binds[s], 0, sizeof(binds[s]));
		r = resolve(opaque, &ref, &binds[s]);
		if (r)
			return r < 0 ? r : -ENOENT;
		if (binding_type(&binds[s], &types[s]))
			return -EINVAL;
	}
	return 0;
}

/* One instruction: pops from and pushes onto the type stack, fills *out or skips it. */
static int type_insn(const struct flt_program *p, const struct flt_bc_insn *in,
		     const struct flt_binding *binds, const enum ltype *types, enum ltype *ts,
		     unsigned int *sp, struct flt_linsn *out, bool *emit)
{
	enum ltype t;
	uint64_t bits;

	*emit = true;
	memset(out, 0, sizeof(*out));
	switch (in->op) {
	case FLT_OP_RET:
		if (ts[--*sp] != LT_INT)
			return -EINVAL;
		out->op = FLT_L_RET;
		return 0;
	case FLT_OP_LOAD_INT:
		out->op = FLT_L_IMM_INT;
		out->u.i = (int64_t)p->konst[in->a32];
		ts[(*sp)++] = LT_INT;
		return 0;
	case FLT_OP_LOAD_DOUBLE:
		out->op = FLT_L_IMM_DOUBLE;
		bits = p->konst[in->a32];
		memcpy(&out->u.d, &bits, sizeof(bits));
		ts[(*sp)++] = LT_DOUBLE;
		return 0;
	case FLT_OP_LOAD_STR:
	case FLT_OP_LOAD_GLOB:
		out->op = FLT_L_IMM_STR;
		out->a = p->str[in->a32].len;
		/* An offset into the text until the linked program owns a copy. */
		out->u.i = p->str[in->a32].off;
		ts[(*sp)++] = in->op == FLT_OP_LOAD_STR ? LT_LIT : LT_GLOB;
		return 0;
	case FLT_OP_LOAD_SYM:
		out->op = FLT_L_LOAD;
		out->u.b = binds[in->a32];
		ts[(*sp)++] = types[in->a32];
		return 0;
	case FLT_OP_NEG:
	case FLT_OP_NOT:
	case FLT_OP_BITNOT:
		t = ts[*sp - 1];
		if (t == LT_INT)
			out->op = in->op == FLT_OP_NEG ? FLT_L_NEG_INT :
				  in->op == FLT_OP_NOT ? FLT_L_NOT_INT :
							 FLT_L_BITNOT;
		else if (t == LT_DOUBLE && in->op != FLT_OP_BITNOT)
			out->op = in->op == FLT_OP_NEG ? FLT_L_NEG_DOUBLE : FLT_L_NOT_DOUBLE;
		else
			return -EINVAL;
		if (in->op == FLT_OP_NOT)
			ts[*sp - 1] = LT_INT;
		return 0;
	case FLT_OP_CAST_INT:
		t = ts[*sp - 1];
		if (t == LT_INT)
			*emit = false;
		else if (t == LT_DOUBLE)
			out->op = FLT_L_D2I;
		else
			return -EINVAL;
		ts[*sp - 1] = LT_INT;
		return 0;
	case FLT_OP_AND:
	case FLT_OP_OR:
		/* The validator put a CAST_INT before: the operand is an integer. */
		out->op = in->op == FLT_OP_AND ? FLT_L_AND : FLT_L_OR;
		out->a = in->a32; /* remapped once every instruction's new index is known */
		(*sp)--;
		return 0;
	default:
		if (binary(in->op, ts[*sp - 2], ts[*sp - 1], out))
			return -EINVAL;
		(*sp)--;
		ts[*sp - 1] = LT_INT;
		return 0;
	}
}

int flt_link(const struct flt_program *p, flt_resolve_fn resolve, void *opaque,
	     struct flt_linked **ret)
{
	struct flt_binding *binds = NULL;
	enum ltype *types = NULL, ts[FLT_STACK_MAX + 1];
	uint32_t *newidx = NULL;
	struct flt_linked *l = NULL;
	unsigned int sp = 0, depth = 0;
	int r = -ENOMEM;

	if (!p || !resolve || !ret)
		return -EINVAL;
	binds = calloc(MAX(p->h.nsym, 1), sizeof(*binds));
	types = calloc(MAX(p->h.nsym, 1), sizeof(*types));
	newidx = calloc(p->h.ninsn + 1u, sizeof(*newidx));
	l = calloc(1, sizeof(*l) + p->h.ninsn * sizeof(l->insn[0]));
	if (!binds || !types || !newidx || !l)
		goto err;
	l->text = malloc(MAX(p->h.text_size, 1));
	if (!l->text)
		goto err;
	memcpy(l->text, p->text, p->h.text_size);
	r = resolve_all(p, resolve, opaque, binds, types);
	if (r)
		goto err;
	/* The validator bounds sp within [0, FLT_STACK_MAX] at every instruction. */
	for (uint32_t i = 0; i < p->h.ninsn; i++) {
		struct flt_linsn *out = &l->insn[l->n];
		bool emit;

		newidx[i] = l->n;
		r = type_insn(p, &p->insn[i], binds, types, ts, &sp, out, &emit);
		if (r)
			goto err;
		if (out->op == FLT_L_IMM_STR && emit)
			out->u.s = l->text + out->u.i;
		if (emit)
			l->n++;
		depth = MAX(depth, sp);
	}
	newidx[p->h.ninsn] = l->n;
	for (uint32_t i = 0; i < l->n; i++)
		if (l->insn[i].op == FLT_L_AND || l->insn[i].op == FLT_L_OR)
			l->insn[i].a = newidx[l->insn[i].a];
	l->max_depth = (uint8_t)depth;
	free(binds);
	free(types);
	free(newidx);
	*ret = l;
	return 0;
err:
	free(binds);
	free(types);
	free(newidx);
	flt_linked_destroy(l);
	return r;
}

void flt_linked_destroy(struct flt_linked *l)
{
	if (!l)
		return;
	free(l->text);
	free(l);
}

/* ---- user space: fields of a strata_event_desc, contexts from a table ---- */

struct ust_resolver {
	const struct strata_field_desc *fields;
	uint32_t nfields;
	const struct flt_ctx_desc *ctx;
	size_t nctx;
};

static bool name_is(const char *name, const char *s, uint32_t len)
{
	return name && strlen(name) == len && !memcmp(name, s, len);
}

static int ust_resolve_field(const struct ust_resolver *u, const struct flt_symref *ref,
			     struct flt_binding *b)
{
	const struct strata_field_desc *f = NULL;
	uint32_t i;

	for (i = 0; i < u->nfields; i++) {
		/* A sequence's length field is not filterable (LTTng). */
		if (i + 1 < u->nfields && u->fields[i + 1].kind == STRATA_TYPE_SEQUENCE)
			continue;
		if (name_is(u->fields[i].name, ref->comp[0].name, ref->comp[0].len)) {
			f = &u->fields[i];
			break;
		}
	}
	if (!f)
		return -ENOENT;
	b->index = i;
	switch (f->kind) {
	case STRATA_TYPE_INTEGER:
	case STRATA_TYPE_ENUM:
		if (ref->ncomp != 1)
			return -ENOENT;
		if (f->integer.network && f->integer.size > 8) {
			b->kind = FLT_B_INT_NET;
			b->size = f->integer.size / 8;
			b->flags = f->integer.is_signed ? FLT_BF_SIGNED : 0;
		} else {
			b->kind = FLT_B_INT;
		}
		return 0;
	case STRATA_TYPE_FLOAT:
		if (ref->ncomp != 1)
			return -ENOENT;
		b->kind = FLT_B_DOUBLE;
		return 0;
	case STRATA_TYPE_STRING:
		if (ref->ncomp != 1)
			return -ENOENT;
		b->kind = FLT_B_STRING;
		return 0;
	case STRATA_TYPE_ARRAY:
	case STRATA_TYPE_SEQUENCE:
		if (f->encoding != STRATA_ENCODING_NONE && f->integer.size == 8) {
			/* Text: a string, which cannot be indexed. */
			if (ref->ncomp != 1)
				return -ENOENT;
			b->kind = FLT_B_TEXT;
			return 0;
		}
		/* Integers: only an element can be read. */
		if (ref->ncomp != 2 || ref->comp[1].kind != FLT_COMP_INDEX)
			return -EINVAL;
		b->kind = FLT_B_ELEM;
		b->size = f->integer.size / 8;
		b->flags = (f->integer.is_signed ? FLT_BF_SIGNED : 0) |
			   (f->integer.network ? FLT_BF_NETWORK : 0);
		b->elem = ref->comp[1].index;
		return 0;
	default:
		return -EINVAL;
	}
}

static int ust_resolve(void *opaque, const struct flt_symref *ref, struct flt_binding *b)
{
	const struct ust_resolver *u = opaque;

	if (ref->root == FLT_ROOT_PAYLOAD)
		return ust_resolve_field(u, ref, b);
	if (ref->ncomp != 1)
		return -ENOENT;
	for (size_t i = 0; i < u->nctx; i++) {
		const struct flt_ctx_desc *c = &u->ctx[i];

		if (c->root != ref->root || !name_is(c->name, ref->comp[0].name, ref->comp[0].len))
			continue;
		b->index = c->id;
		switch (c->type) {
		case FLT_CTX_INT:
			b->kind = FLT_B_CTX_INT;
			return 0;
		case FLT_CTX_DOUBLE:
			b->kind = FLT_B_CTX_DOUBLE;
			return 0;
		case FLT_CTX_STRING:
			b->kind = FLT_B_CTX_STRING;
			return 0;
		default:
			return -EINVAL;
		}
	}
	return -ENOENT;
}

int flt_link_ust(const struct flt_program *p, const struct strata_field_desc *fields,
		 uint32_t nfields, const struct flt_ctx_desc *ctx, size_t nctx,
		 struct flt_linked **ret)
{
	struct ust_resolver u = { fields, nfields, ctx, nctx };

	if (nfields && !fields)
		return -EINVAL;
	return flt_link(p, ust_resolve, &u, ret);
}
