/* SPDX-License-Identifier: MIT */
/*
 * The checks LTTng 2.13 makes between parsing and code generation, in its
 * order: types of literals (a field's type is unknown until the tracer
 * links the filter, so only literals can be wrong here), then the string
 * escapes, then star globs.
 *
 * Types, per node (post-order, left first, so the first error reported is
 * LTTng's):
 *   literal integer  NUM      literal float  FLOAT    string  STRING
 *   reference        ANY      comparison, &&, ||, bitwise   NUM
 *   unary            its operand's type (refused on STRING)
 * Refused: arithmetic; STRING against NUM/FLOAT in a comparison; STRING in
 * &&, || and bitwise operators; FLOAT in bitwise operators; a root of type
 * STRING or FLOAT.
 */
#include <errno.h>
#include <string.h>

#include "common/cleanup.h"
#include "compile-internal.h"

#include "common/common.h"

enum ltype { T_ANY, T_NUM, T_FLOAT, T_STRING };

static const char *op_text(enum flt_tok op)
{
	switch (op) {
	case TK_PLUS:
		return "+";
	case TK_MINUS:
		return "-";
	case TK_STAR:
		return "*";
	case TK_SLASH:
		return "/";
	case TK_PERCENT:
		return "%";
	case TK_EQ:
		return "==";
	case TK_NE:
		return "!=";
	case TK_LT:
		return "<";
	case TK_LE:
		return "<=";
	case TK_GT:
		return ">";
	case TK_GE:
		return ">=";
	case TK_AMP:
		return "&";
	case TK_PIPE:
		return "|";
	case TK_CARET:
		return "^";
	case TK_SHL:
		return "<<";
	case TK_SHR:
		return ">>";
	case TK_ANDAND:
		return "&&";
	case TK_OROR:
		return "||";
	case TK_NOT:
		return "!";
	case TK_TILDE:
		return "~";
	default:
		return "?";
	}
}

static bool is_compare(enum flt_tok op)
{
	return op == TK_EQ || op == TK_NE || op == TK_LT || op == TK_LE || op == TK_GT ||
	       op == TK_GE;
}

static bool is_arith(enum flt_tok op)
{
	return op == TK_PLUS || op == TK_MINUS || op == TK_STAR || op == TK_SLASH ||
	       op == TK_PERCENT;
}

/* Type of a binary or logical node whose operands' types are l and r. */
static int type_binary(const struct flt_node *n, enum ltype l, enum ltype r, struct flt_error *err)
{
	if (is_compare(n->op)) {
		if ((l == T_STRING && (r == T_NUM || r == T_FLOAT)) ||
		    (r == T_STRING && (l == T_NUM || l == T_FLOAT))) {
			flt_set_error(err, n->off, "Operator '%s' compares a string with a number",
				      op_text(n->op));
			return -EINVAL;
		}
	} else if (n->type == N_LOGICAL) {
		if (l == T_STRING || r == T_STRING) {
			flt_set_error(err, n->off,
				      "Logical operator '%s' cannot have a string operand",
				      op_text(n->op));
			return -EINVAL;
		}
	} else {
		if (l == T_STRING || r == T_STRING) {
			flt_set_error(err, n->off,
				      "Bitwise operator '%s' cannot have a string operand",
				      op_text(n->op));
			return -EINVAL;
		}
		if (l == T_FLOAT || r == T_FLOAT) {
			flt_set_error(err, n->off,
				      "Bitwise operator '%s' cannot have a floating-point operand",
				      op_text(n->op));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Left operands first, as LTTng reports. Chains of left-associative
 * operators can be thousands long: their left spine is walked in a loop,
 * so recursion only follows right operands and unary operators, whose
 * depth the parser bounds.
 */
static int type_of(const struct flt_node *n, enum ltype *ret, struct flt_error *err)
{
	_cleanup_free_ struct flt_node **sp = NULL;
	enum ltype l, r;
	size_t ns;
	int e;

	switch (n->type) {
	case N_INT:
		*ret = T_NUM;
		return 0;
	case N_FLOAT:
		*ret = T_FLOAT;
		return 0;
	case N_STRING:
		*ret = T_STRING;
		return 0;
	case N_REF:
		*ret = T_ANY;
		return 0;
	case N_UNARY:
		if ((e = type_of(n->l, &l, err)))
			return e;
		if (l == T_STRING) {
			flt_set_error(err, n->off,
				      "Unary operator '%s' cannot be applied to a string literal",
				      op_text(n->op));
			return -EINVAL;
		}
		*ret = l;
		return 0;
	case N_BINARY:
	case N_LOGICAL:
		break;
	}
	if ((e = flt_spine((struct flt_node *)n, &sp, &ns)))
		return e;
	/* sp[ns - 1] is the deepest binary node; its left operand is not one. */
	if ((e = type_of(sp[ns - 1]->l, &l, err)))
		return e;
	for (size_t i = ns; i-- > 0;) {
		const struct flt_node *b = sp[i];

		if (b->type == N_BINARY && is_arith(b->op)) {
			flt_set_error(err, b->off, "Arithmetic operator '%s' is not supported",
				      op_text(b->op));
			return -EINVAL;
		}
		if ((e = type_of(b->r, &r, err)) || (e = type_binary(b, l, r, err)))
			return e;
		l = T_NUM;
	}
	*ret = T_NUM;
	return 0;
}

/*
 * Only `\*` and `\\` are escapes a filter string may hold (the tracer reads
 * them as a literal star and backslash).
 */
static int check_escapes(const struct flt_node *n, struct flt_error *err)
{
	for (size_t i = 0; i < n->str_len; i++) {
		if (n->str[i] != '\\')
			continue;
		if (i + 1 < n->str_len && (n->str[i + 1] == '*' || n->str[i + 1] == '\\')) {
			i++;
			continue;
		}
		/* The literal's text starts after its quote (and the L prefix, if any). */
		flt_set_error(err, n->off,
			      "Invalid escape sequence in string literal: only '\\*' and '\\\\' "
			      "are allowed");
		return -EINVAL;
	}
	return 0;
}

/*
 * Collapse runs of unescaped '*' and classify: no unescaped star, or only
 * one at the very end, is a plain string (the final star matches any rest);
 * anything else is a full star glob.
 */
static void normalise_glob(struct flt_node *n)
{
	size_t o = 0, nstars = 0;
	bool last_star = false, prev_star = false;

	for (size_t i = 0; i < n->str_len; i++) {
		char c = n->str[i];

		if (c == '\\' && i + 1 < n->str_len) {
			n->str[o++] = c;
			n->str[o++] = n->str[++i];
			prev_star = last_star = false;
			continue;
		}
		if (c == '*') {
			if (prev_star)
				continue;
			nstars++;
			prev_star = last_star = true;
		} else {
			prev_star = last_star = false;
		}
		n->str[o++] = c;
	}
	n->str_len = o;
	n->str[o] = 0;
	n->glob = nstars > 1 || (nstars == 1 && !last_star);
}

static int walk_strings(struct flt_node *n, struct flt_error *err)
{
	int e;

	for (; n; n = n->l) {
		if (n->type == N_STRING) {
			if ((e = check_escapes(n, err)))
				return e;
			normalise_glob(n);
		}
		if (n->r && (e = walk_strings(n->r, err)))
			return e;
	}
	return 0;
}

static int check_glob_operand(const struct flt_node *n, const struct flt_node *parent,
			      struct flt_error *err)
{
	if (n->type != N_STRING || !n->glob)
		return 0;
	if (!parent || parent->type != N_BINARY || (parent->op != TK_EQ && parent->op != TK_NE)) {
		flt_set_error(err, n->off,
			      "A star-glob pattern can only be compared with '==' or '!='");
		return -EINVAL;
	}
	if (parent->l->type == N_STRING && parent->l->glob && parent->r->type == N_STRING &&
	    parent->r->glob) {
		flt_set_error(err, parent->off, "Two star-glob patterns cannot be compared");
		return -EINVAL;
	}
	return 0;
}

/* A full glob only as an operand of == or != against something that is not a glob. */
static int check_globs(const struct flt_node *n, const struct flt_node *parent,
		       struct flt_error *err)
{
	int e;

	/* Down the left spine in a loop (see type_of()). */
	for (; n; parent = n, n = n->l) {
		if ((e = check_glob_operand(n, parent, err)))
			return e;
		if (n->r && (e = check_globs(n->r, n, err)))
			return e;
	}
	return 0;
}

int flt_check(struct flt_node *root, struct flt_error *err)
{
	enum ltype t;
	int e;

	if ((e = type_of(root, &t, err)))
		return e;
	if (t == T_STRING) {
		flt_set_error(err, root->off,
			      "A string cannot be the whole filter: compare it with a field");
		return -EINVAL;
	}
	if (t == T_FLOAT) {
		flt_set_error(err, root->off,
			      "A floating-point number cannot be the whole filter: compare it");
		return -EINVAL;
	}
	if ((e = walk_strings(root, err)))
		return e;
	return check_globs(root, NULL, err);
}
