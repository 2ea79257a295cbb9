/* SPDX-License-Identifier: MIT */
/*
 * Bytecode generation (bytecode.h) from a checked tree, in post-order as
 * LTTng emits: operands, then the operator. `&&`/`||` compile to
 *
 *   left  CAST_INT  AND/OR(target)  right  CAST_INT  target:
 *
 * Unary '+' emits nothing. Constants, strings and references are shared
 * by every instruction that uses the same value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "compile-internal.h"

#include "common/common.h"

/*
 * LTTng refuses filters whose bytecode exceeds 65536 bytes; its encoding is
 * denser than strata's, so strata counts what LTTng's would take to refuse
 * the same expressions (long string literals, mostly).
 */
#define LTTNG_BC_MAX 65536
#define LTTNG_BC_HEADER 48

struct vec {
	void *p;
	size_t n, cap, elem;
};

struct emitter {
	struct vec insn, konst, str, sym, comp, text;
	size_t lttng_size;
	uint16_t flags;
	int err;
};

static void *vec_push(struct vec *v, struct emitter *e)
{
	if (e->err)
		return NULL;
	if (v->n == v->cap) {
		size_t ncap = v->cap ? v->cap * 2 : 16;
		void *np = realloc(v->p, ncap * v->elem);

		if (!np) {
			e->err = -ENOMEM;
			return NULL;
		}
		v->p = np;
		v->cap = ncap;
	}
	return (char *)v->p + v->n++ * v->elem;
}

static uint32_t add_konst(struct emitter *e, uint64_t bits)
{
	uint64_t *k = e->konst.p;

	for (size_t i = 0; i < e->konst.n; i++)
		if (k[i] == bits)
			return (uint32_t)i;
	k = vec_push(&e->konst, e);
	if (k)
		*k = bits;
	return (uint32_t)(e->konst.n - 1);
}

static uint32_t add_str(struct emitter *e, const char *s, size_t len)
{
	struct flt_bc_str *st = e->str.p;
	const char *text = e->text.p;

	for (size_t i = 0; i < e->str.n; i++)
		if (st[i].len == len && (!len || !memcmp(text + st[i].off, s, len)))
			return (uint32_t)i;
	st = vec_push(&e->str, e);
	if (!st)
		return 0;
	st->off = (uint32_t)e->text.n;
	st->len = (uint32_t)len;
	for (size_t i = 0; i < len; i++) {
		char *c = vec_push(&e->text, e);

		if (!c)
			return 0;
		*c = s[i];
	}
	return (uint32_t)(e->str.n - 1);
}

static uint32_t add_sym(struct emitter *e, const struct flt_node *ref)
{
	struct flt_bc_comp comps[FLT_BC_MAX_COMPS];
	const struct flt_bc_sym *syms = e->sym.p;
	struct flt_bc_sym *sym;

	memset(comps, 0, sizeof(comps));
	for (unsigned int i = 0; i < ref->ncomp; i++) {
		comps[i].kind = ref->comp[i].kind;
		comps[i].a32 = ref->comp[i].kind == FLT_COMP_NAME ?
				       add_str(e, ref->comp[i].name, ref->comp[i].len) :
				       add_konst(e, ref->comp[i].index);
	}
	if (e->err)
		return 0;
	for (size_t i = 0; i < e->sym.n; i++)
		if (syms[i].root == ref->root && syms[i].ncomp == ref->ncomp &&
		    !memcmp((const struct flt_bc_comp *)e->comp.p + syms[i].first, comps,
			    ref->ncomp * sizeof(comps[0])))
			return (uint32_t)i;
	sym = vec_push(&e->sym, e);
	if (!sym)
		return 0;
	memset(sym, 0, sizeof(*sym));
	sym->root = ref->root;
	sym->ncomp = ref->ncomp;
	sym->first = (uint16_t)e->comp.n;
	if (e->comp.n + ref->ncomp > UINT16_MAX) {
		e->err = -E2BIG;
		return 0;
	}
	for (unsigned int i = 0; i < ref->ncomp; i++) {
		struct flt_bc_comp *c = vec_push(&e->comp, e);

		if (c)
			*c = comps[i];
	}
	return (uint32_t)(e->sym.n - 1);
}

static size_t op_insn(struct emitter *e, uint8_t op, uint32_t a32)
{
	struct flt_bc_insn *in = vec_push(&e->insn, e);

	if (!in)
		return 0;
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->a32 = a32;
	return e->insn.n - 1;
}

static uint8_t binary_op(enum flt_tok t)
{
	switch (t) {
	case TK_AMP:
		return FLT_OP_BAND;
	case TK_PIPE:
		return FLT_OP_BOR;
	case TK_CARET:
		return FLT_OP_BXOR;
	case TK_SHL:
		return FLT_OP_SHL;
	case TK_SHR:
		return FLT_OP_SHR;
	case TK_EQ:
		return FLT_OP_EQ;
	case TK_NE:
		return FLT_OP_NE;
	case TK_LT:
		return FLT_OP_LT;
	case TK_LE:
		return FLT_OP_LE;
	case TK_GT:
		return FLT_OP_GT;
	case TK_GE:
		return FLT_OP_GE;
	default:
		return 0;
	}
}

/* Bytes LTTng 2.13's bytecode spends on a reference (loads + relocation entries). */
static size_t lttng_ref_size(const struct flt_node *n)
{
	size_t size = 0;
	bool indexed = false;

	for (unsigned int i = 0; i < n->ncomp; i++)
		indexed |= n->comp[i].kind == FLT_COMP_INDEX;
	if (!indexed) {
		/* One load + reloc (u16 offset, "name[.name]" or "$ctx.name", NUL). */
		size = 3 + 2 + 1;
		if (n->root == FLT_ROOT_CTX)
			size += 5;
		else if (n->root == FLT_ROOT_APP)
			size += 5;
		for (unsigned int i = 0; i < n->ncomp; i++)
			size += n->comp[i].len + (i ? 1 : 0);
		return size;
	}
	size = 1 + 1; /* GET_*_ROOT, LOAD_FIELD */
	for (unsigned int i = 0; i < n->ncomp; i++)
		size += n->comp[i].kind == FLT_COMP_NAME ? 3 + 2 + n->comp[i].len + 1 : 9;
	return size;
}

static void emit_node(struct emitter *e, const struct flt_node *n);

/* LTTng casts && and || operands only when they are references or floats. */
static size_t lttng_cast_size(const struct flt_node *n)
{
	while (n->type == N_UNARY)
		n = n->l;
	return n->type == N_REF || n->type == N_FLOAT;
}

static void emit_leaf_or_unary(struct emitter *e, const struct flt_node *n)
{
	uint64_t bits;

	switch (n->type) {
	case N_INT:
		op_insn(e, FLT_OP_LOAD_INT, add_konst(e, n->ival));
		e->lttng_size += 9;
		break;
	case N_FLOAT:
		memcpy(&bits, &n->dval, sizeof(bits));
		op_insn(e, FLT_OP_LOAD_DOUBLE, add_konst(e, bits));
		e->flags |= FLT_BC_F_FLOAT;
		e->lttng_size += 9;
		break;
	case N_STRING:
		op_insn(e, n->glob ? FLT_OP_LOAD_GLOB : FLT_OP_LOAD_STR,
			add_str(e, n->str, n->str_len));
		e->lttng_size += 1 + n->str_len + 1;
		break;
	case N_REF:
		op_insn(e, FLT_OP_LOAD_SYM, add_sym(e, n));
		e->lttng_size += lttng_ref_size(n);
		break;
	case N_UNARY:
		emit_node(e, n->l);
		if (n->op == TK_MINUS)
			op_insn(e, FLT_OP_NEG, 0);
		else if (n->op == TK_NOT)
			op_insn(e, FLT_OP_NOT, 0);
		else if (n->op == TK_TILDE)
			op_insn(e, FLT_OP_BITNOT, 0);
		if (n->op != TK_PLUS)
			e->lttng_size += 1;
		break;
	default:
		break;
	}
}

/* Left spine in a loop (see flt_spine()); recursion only on right operands. */
static void emit_node(struct emitter *e, const struct flt_node *n)
{
	_cleanup_free_ struct flt_node **sp = NULL;
	size_t ns;
	int r;

	if (e->err)
		return;
	if (n->type != N_BINARY && n->type != N_LOGICAL) {
		emit_leaf_or_unary(e, n);
		return;
	}
	if ((r = flt_spine((struct flt_node *)n, &sp, &ns))) {
		e->err = r;
		return;
	}
	emit_node(e, sp[ns - 1]->l);
	for (size_t i = ns; i-- > 0 && !e->err;) {
		const struct flt_node *b = sp[i];

		if (b->type == N_LOGICAL) {
			size_t jump;

			op_insn(e, FLT_OP_CAST_INT, 0);
			jump = op_insn(e, b->op == TK_ANDAND ? FLT_OP_AND : FLT_OP_OR, 0);
			emit_node(e, b->r);
			op_insn(e, FLT_OP_CAST_INT, 0);
			if (!e->err)
				((struct flt_bc_insn *)e->insn.p)[jump].a32 = (uint32_t)e->insn.n;
			e->lttng_size += 3 + lttng_cast_size(b->l) + lttng_cast_size(b->r);
		} else {
			emit_node(e, b->r);
			op_insn(e, binary_op(b->op), 0);
			e->lttng_size += 1;
		}
	}
}

static void vec_free(struct vec *v)
{
	free(v->p);
	v->p = NULL;
}

int flt_emit(const struct flt_node *root, void **ret_bc, size_t *ret_len, struct flt_error *err)
{
	struct emitter e = {
		.insn.elem = sizeof(struct flt_bc_insn),
		.konst.elem = sizeof(uint64_t),
		.str.elem = sizeof(struct flt_bc_str),
		.sym.elem = sizeof(struct flt_bc_sym),
		.comp.elem = sizeof(struct flt_bc_comp),
		.text.elem = 1,
		.lttng_size = LTTNG_BC_HEADER,
	};
	struct flt_bc_header h = { 0 };
	size_t total;
	uint8_t *bc, *p;
	int r = 0;

	emit_node(&e, root);
	op_insn(&e, FLT_OP_RET, 0);
	e.lttng_size += 1;
	if (e.err) {
		r = e.err;
		if (r == -E2BIG)
			flt_set_error(err, root->off, "Filter expression too long once compiled");
		goto out;
	}
	if (e.lttng_size > LTTNG_BC_MAX) {
		flt_set_error(err, root->off,
			      "Filter expression too long once compiled (more than %d bytes of "
			      "bytecode, lttng's limit)",
			      LTTNG_BC_MAX);
		r = -E2BIG;
		goto out;
	}
	total = sizeof(h) + e.insn.n * e.insn.elem + e.konst.n * e.konst.elem +
		e.str.n * e.str.elem + e.sym.n * e.sym.elem + e.comp.n * e.comp.elem + e.text.n;
	if (e.insn.n > FLT_BC_MAX_INSN || e.konst.n > UINT16_MAX || e.str.n > UINT16_MAX ||
	    e.sym.n > UINT16_MAX || e.comp.n > UINT16_MAX || total > FLT_BC_MAX_SIZE) {
		flt_set_error(err, root->off, "Filter expression too long once compiled");
		r = -E2BIG;
		goto out;
	}
	h.magic = FLT_BC_MAGIC;
	h.version = FLT_BC_VERSION;
	h.header_size = sizeof(h);
	h.total_size = (uint32_t)total;
	h.ninsn = (uint16_t)e.insn.n;
	h.nconst = (uint16_t)e.konst.n;
	h.nstr = (uint16_t)e.str.n;
	h.nsym = (uint16_t)e.sym.n;
	h.ncomp = (uint16_t)e.comp.n;
	h.flags = e.flags;
	h.text_size = (uint32_t)e.text.n;
	bc = malloc(total);
	if (!bc) {
		r = -ENOMEM;
		goto out;
	}
	p = bc;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	{
		const struct vec *secs[] = { &e.insn, &e.konst, &e.str, &e.sym, &e.comp, &e.text };

		for (size_t i = 0; i < ARRAY_SIZE(secs); i++) {
			if (secs[i]->n)
				memcpy(p, secs[i]->p, secs[i]->n * secs[i]->elem);
			p += secs[i]->n * secs[i]->elem;
		}
	}
	*ret_bc = bc;
	*ret_len = total;
out:
	vec_free(&e.insn);
	vec_free(&e.konst);
	vec_free(&e.str);
	vec_free(&e.sym);
	vec_free(&e.comp);
	vec_free(&e.text);
	return r;
}
