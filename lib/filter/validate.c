/* SPDX-License-Identifier: MIT */
/*
 * flt_validate(): bytecode from the daemon is hostile until proven
 * otherwise. Everything is checked before anything is trusted:
 *
 *  1. the header: magic, version, sizes that add up to exactly len;
 *  2. every table entry: offsets and indexes inside their sections, names
 *     1..FLT_BC_MAX_NAME bytes without NUL, references that start with a
 *     name, padding zero;
 *  3. one linear walk over the instructions with the stack depth: operands
 *     in range, no underflow, at most FLT_STACK_MAX values (the
 *     interpreter's real stack), RET last and only there with one value;
 *     AND/OR jump forward, after a CAST_INT, to just after a CAST_INT,
 *     their targets nested; no instruction between a jump and its target
 *     pops below the jump's operand, and the depth at the target is the
 *     depth at the jump (a merge point both paths reach alike).
 *
 * The copy it keeps is the only one the linker reads, so the caller's
 * buffer may change afterwards. Memory: the copy plus a 4-byte-per-insn
 * array, both bounded by FLT_BC_MAX_SIZE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/runtime.h"

#include "common/common.h"

struct open_jump {
	uint16_t target;
	uint16_t depth; /* at the jump, operand included */
};

static int fail(const char **ret_why, const char *why)
{
	if (ret_why)
		*ret_why = why;
	return -EINVAL;
}

static int check_tables(const struct flt_program *p, const char **why)
{
	const struct flt_bc_header *h = &p->h;

	for (uint32_t i = 0; i < h->nstr; i++)
		if ((uint64_t)p->str[i].off + p->str[i].len > h->text_size)
			return fail(why, "string outside the text section");
	for (uint32_t i = 0; i < h->ncomp; i++) {
		const struct flt_bc_comp *c = &p->comp[i];

		if (c->pad[0] || c->pad[1] || c->pad[2])
			return fail(why, "non-zero padding in a reference component");
		if (c->kind == FLT_COMP_NAME) {
			const struct flt_bc_str *s;

			if (c->a32 >= h->nstr)
				return fail(why, "reference name out of range");
			s = &p->str[c->a32];
			if (!s->len || s->len > FLT_BC_MAX_NAME ||
			    memchr(p->text + s->off, 0, s->len))
				return fail(why, "invalid reference name");
		} else if (c->kind == FLT_COMP_INDEX) {
			if (c->a32 >= h->nconst)
				return fail(why, "reference index out of range");
		} else {
			return fail(why, "unknown reference component");
		}
	}
	for (uint32_t i = 0; i < h->nsym; i++) {
		const struct flt_bc_sym *s = &p->sym[i];

		if (s->root > FLT_ROOT_APP || s->reserved)
			return fail(why, "invalid reference root");
		if (!s->ncomp || s->ncomp > FLT_BC_MAX_COMPS ||
		    (uint32_t)s->first + s->ncomp > h->ncomp)
			return fail(why, "reference components out of range");
		if (p->comp[s->first].kind != FLT_COMP_NAME)
			return fail(why, "reference does not start with a name");
	}
	return 0;
}

/* Stack effect of op: values popped and pushed. */
static int stack_effect(uint8_t op, unsigned int *pop, unsigned int *push)
{
	switch (op) {
	case FLT_OP_RET:
		*pop = 1;
		*push = 0;
		return 0;
	case FLT_OP_LOAD_INT:
	case FLT_OP_LOAD_DOUBLE:
	case FLT_OP_LOAD_STR:
	case FLT_OP_LOAD_GLOB:
	case FLT_OP_LOAD_SYM:
		*pop = 0;
		*push = 1;
		return 0;
	case FLT_OP_NEG:
	case FLT_OP_NOT:
	case FLT_OP_BITNOT:
	case FLT_OP_CAST_INT:
		*pop = 1;
		*push = 1;
		return 0;
	case FLT_OP_BAND:
	case FLT_OP_BOR:
	case FLT_OP_BXOR:
	case FLT_OP_SHL:
	case FLT_OP_SHR:
	case FLT_OP_EQ:
	case FLT_OP_NE:
	case FLT_OP_LT:
	case FLT_OP_LE:
	case FLT_OP_GT:
	case FLT_OP_GE:
		*pop = 2;
		*push = 1;
		return 0;
	case FLT_OP_AND:
	case FLT_OP_OR:
		/* Falling through pops the operand; the jump keeps it (checked apart). */
		*pop = 1;
		*push = 0;
		return 0;
	default:
		return -EINVAL;
	}
}

static int check_code(const struct flt_program *p, const char **why)
{
	const struct flt_bc_header *h = &p->h;
	struct open_jump *open;
	unsigned int depth = 0, nopen = 0;
	int r = 0;

	open = malloc(h->ninsn * sizeof(*open));
	if (!open)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->ninsn; i++) {
		const struct flt_bc_insn *in = &p->insn[i];
		unsigned int pop, push, floor;

		/* Merge points: every jump to here must see the depth of this path. */
		while (nopen && open[nopen - 1].target == i) {
			if (open[nopen - 1].depth != depth) {
				r = fail(why, "stack depth differs at a jump target");
				goto out;
			}
			nopen--;
		}
		if (in->a8 || in->a16 || stack_effect(in->op, &pop, &push)) {
			r = fail(why, "unknown instruction");
			goto out;
		}
		switch (in->op) {
		case FLT_OP_LOAD_INT:
		case FLT_OP_LOAD_DOUBLE:
			if (in->a32 >= h->nconst)
				r = fail(why, "constant out of range");
			break;
		case FLT_OP_LOAD_STR:
		case FLT_OP_LOAD_GLOB:
			if (in->a32 >= h->nstr)
				r = fail(why, "string out of range");
			break;
		case FLT_OP_LOAD_SYM:
			if (in->a32 >= h->nsym)
				r = fail(why, "reference out of range");
			break;
		case FLT_OP_AND:
		case FLT_OP_OR:
			if (i == 0 || p->insn[i - 1].op != FLT_OP_CAST_INT)
				r = fail(why, "AND/OR operand is not cast to an integer");
			else if (in->a32 <= i + 1 || in->a32 >= h->ninsn ||
				 p->insn[in->a32 - 1].op != FLT_OP_CAST_INT)
				r = fail(why, "invalid AND/OR jump target");
			else if (nopen && in->a32 > open[nopen - 1].target)
				r = fail(why, "AND/OR jump targets are not nested");
			else if (!depth)
				r = fail(why, "stack underflow");
			if (!r) {
				open[nopen].target = (uint16_t)in->a32;
				open[nopen].depth = (uint16_t)depth;
				nopen++;
			}
			break;
		case FLT_OP_RET:
			if (i != h->ninsn - 1u || depth != 1)
				r = fail(why, "RET must end the program with one value");
			break;
		default:
			if (in->a32)
				r = fail(why, "unexpected operand");
			break;
		}
		if (r)
			goto out;
		/* An instruction inside a jump's range may not consume what lies under its operand. */
		floor = nopen && in->op != FLT_OP_AND && in->op != FLT_OP_OR ?
				open[nopen - 1].depth - 1u :
				0;
		if (nopen > 1 && (in->op == FLT_OP_AND || in->op == FLT_OP_OR))
			floor = open[nopen - 2].depth - 1u;
		if (depth < pop || depth - pop < floor) {
			r = fail(why, "stack underflow");
			goto out;
		}
		depth = depth - pop + push;
		if (depth > FLT_STACK_MAX) {
			r = fail(why, "the expression needs more stack than the interpreter has "
				      "(more than 10 values at once)");
			goto out;
		}
	}
	if (nopen)
		r = fail(why, "jump target never reached");
	else if (!h->ninsn || p->insn[h->ninsn - 1].op != FLT_OP_RET)
		r = fail(why, "program does not end with RET");
out:
	free(open);
	return r;
}

int flt_validate(const void *bc, size_t len, struct flt_program **ret, const char **ret_why)
{
	struct flt_bc_header h;
	struct flt_program *p;
	uint64_t size;
	const uint8_t *base;
	int r;

	if (!bc || len < sizeof(h))
		return fail(ret_why, "shorter than a header");
	if (len > FLT_BC_MAX_SIZE)
		return fail(ret_why, "larger than the bytecode size limit");
	memcpy(&h, bc, sizeof(h));
	if (h.magic != FLT_BC_MAGIC)
		return fail(ret_why, "not strata filter bytecode (bad magic)");
	if (h.version != FLT_BC_VERSION)
		return fail(ret_why, "unsupported bytecode version");
	if (h.header_size != sizeof(h) || h.total_size != len || h.reserved ||
	    (h.flags & ~FLT_BC_F_FLOAT))
		return fail(ret_why, "invalid header");
	if (!h.ninsn || h.ninsn > FLT_BC_MAX_INSN)
		return fail(ret_why, "instruction count out of range");
	size = sizeof(h) + 8ull * ((uint64_t)h.ninsn + h.nconst + h.nstr + h.nsym + h.ncomp) +
	       h.text_size;
	if (size != len)
		return fail(ret_why, "section sizes do not add up to the length");
	p = malloc(sizeof(*p) + ALIGN_UP(len, 8));
	if (!p)
		return -ENOMEM;
	memcpy(p->data, bc, len);
	p->h = h;
	base = (const uint8_t *)p->data + sizeof(h);
	p->insn = (const struct flt_bc_insn *)base;
	base += 8u * h.ninsn;
	p->konst = (const uint64_t *)base;
	base += 8u * h.nconst;
	p->str = (const struct flt_bc_str *)base;
	base += 8u * h.nstr;
	p->sym = (const struct flt_bc_sym *)base;
	base += 8u * h.nsym;
	p->comp = (const struct flt_bc_comp *)base;
	base += 8u * h.ncomp;
	p->text = (const char *)base;
	r = check_tables(p, ret_why);
	if (!r)
		r = check_code(p, ret_why);
	if (r) {
		free(p);
		return r;
	}
	*ret = p;
	return 0;
}

void flt_program_destroy(struct flt_program *p)
{
	free(p);
}

bool flt_program_has_float(const struct flt_program *p)
{
	return p && (p->h.flags & FLT_BC_F_FLOAT);
}
