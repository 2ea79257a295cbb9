/* SPDX-License-Identifier: MIT */
/*
 * The filter parser: recursive descent over LTTng 2.13's grammar.
 *
 * Precedence, tightest first (unlike C, & ^ | bind tighter than the
 * comparisons, so `a & 0xff == 0x10` is `(a & 0xff) == 0x10`):
 *
 *   unary - + ! ~ (right)
 *   * / %          parsed, refused by check.c ("not supported")
 *   + -            parsed, refused by check.c
 *   << >>
 *   &   then ^   then |
 *   < <= > >=
 *   == !=
 *   &&   then ||   (short-circuit)
 *
 * References: IDENT or $IDENT, then `[CONST]`s, then (`.` | `->`) IDENT
 * with its own `[CONST]`s, repeated. An index must be an integer constant.
 * Nesting is limited (FLT_MAX_NESTING) so that hostile text cannot
 * exhaust the C stack; LTTng's bison parser has a similar limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compile-internal.h"

#include "common/common.h"

#define FLT_MAX_NESTING 400
/*
 * Binary operators in one expression: each compiles to at least one
 * instruction, so more could never fit FLT_BC_MAX_INSN.
 */
#define FLT_MAX_NODES FLT_BC_MAX_INSN

struct parser {
	struct flt_lexer lx;
	struct flt_token tok; /* current */
	struct flt_error *err;
	unsigned int depth;
	unsigned int nodes; /* binary operators */
};

static int advance(struct parser *p)
{
	return flt_lex_next(&p->lx, &p->tok, p->err);
}

static int syntax_error(struct parser *p)
{
	if (p->tok.type == TK_EOF)
		flt_set_error(p->err, p->tok.off, "Unexpected end of expression");
	else
		flt_set_error(p->err, p->tok.off, "Syntax error: unexpected %s",
			      flt_tok_name(p->tok.type));
	return -EINVAL;
}

int flt_spine(struct flt_node *n, struct flt_node ***ret, size_t *ret_n)
{
	struct flt_node **sp;
	size_t cnt = 0;

	for (struct flt_node *b = n; b && (b->type == N_BINARY || b->type == N_LOGICAL); b = b->l)
		cnt++;
	sp = malloc(MAX(cnt, 1) * sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	cnt = 0;
	for (struct flt_node *b = n; b && (b->type == N_BINARY || b->type == N_LOGICAL); b = b->l)
		sp[cnt++] = b;
	*ret = sp;
	*ret_n = cnt;
	return 0;
}

static struct flt_node *node_new(enum flt_node_type type, size_t off)
{
	struct flt_node *n = calloc(1, sizeof(*n));

	if (n) {
		n->type = type;
		n->off = off;
	}
	return n;
}

void flt_node_free(struct flt_node *n)
{
	/* Iterate down the left spine: chains of binary operators are left-deep. */
	while (n) {
		struct flt_node *l = n->l;

		flt_node_free(n->r);
		free(n->str);
		free(n);
		n = l;
	}
}

static int parse_expr(struct parser *p, struct flt_node **ret);

/* `[` already current: parse the constant index and the `]`. */
static int parse_index(struct parser *p, struct flt_node *ref)
{
	struct flt_node *idx = NULL;
	size_t off;
	int r;

	bool bare;

	if ((r = advance(p)))
		return r;
	off = p->tok.off;
	bare = p->tok.type == TK_INT; /* lttng refuses even `a[(1)]` */
	r = parse_expr(p, &idx);
	if (r)
		return r;
	if (idx->type != N_INT || !bare) {
		flt_node_free(idx);
		flt_set_error(p->err, off, "An array index must be a constant integer");
		return -EINVAL;
	}
	if (p->tok.type != TK_RBRACKET) {
		flt_node_free(idx);
		return syntax_error(p);
	}
	if (ref->ncomp == FLT_BC_MAX_COMPS) {
		flt_node_free(idx);
		flt_set_error(p->err, off, "Too many parts in a field reference (at most %d)",
			      FLT_BC_MAX_COMPS);
		return -EINVAL;
	}
	ref->comp[ref->ncomp].kind = FLT_COMP_INDEX;
	ref->comp[ref->ncomp].index = idx->ival;
	ref->ncomp++;
	flt_node_free(idx);
	return advance(p);
}

static int add_name(struct parser *p, struct flt_node *ref, const struct flt_token *t)
{
	if (t->text_len > FLT_BC_MAX_NAME) {
		flt_set_error(p->err, t->off, "Name too long (at most %d bytes)", FLT_BC_MAX_NAME);
		return -EINVAL;
	}
	if (ref->ncomp == FLT_BC_MAX_COMPS) {
		flt_set_error(p->err, t->off, "Too many parts in a field reference (at most %d)",
			      FLT_BC_MAX_COMPS);
		return -EINVAL;
	}
	ref->comp[ref->ncomp].kind = FLT_COMP_NAME;
	ref->comp[ref->ncomp].name = t->text;
	ref->comp[ref->ncomp].len = t->text_len;
	ref->ncomp++;
	return 0;
}

/* `.` or `->` current: the name after it. lttng takes `a.$ctx` as a path too. */
static int parse_member(struct parser *p, struct flt_node *ref)
{
	int r;

	if ((r = advance(p)))
		return r;
	if (p->tok.type != TK_IDENT && p->tok.type != TK_GIDENT)
		return syntax_error(p);
	if ((r = add_name(p, ref, &p->tok)))
		return r;
	return advance(p);
}

/* Current token is IDENT or GIDENT. */
static int parse_ref(struct parser *p, struct flt_node **ret)
{
	struct flt_node *ref = node_new(N_REF, p->tok.off);
	struct flt_token first = p->tok;
	int r;

	if (!ref)
		return -ENOMEM;
	ref->root = FLT_ROOT_PAYLOAD;
	if (first.type == TK_GIDENT) {
		if (first.text_len == 4 && !memcmp(first.text, "$ctx", 4)) {
			ref->root = FLT_ROOT_CTX;
		} else if (first.text_len == 4 && !memcmp(first.text, "$app", 4)) {
			ref->root = FLT_ROOT_APP;
		} else {
			flt_set_error(p->err, first.off,
				      "Unknown identifier '%.*s' (only $ctx.NAME and "
				      "$app.PROVIDER:NAME exist)",
				      (int)MIN(first.text_len, 64), first.text);
			r = -EINVAL;
			goto err;
		}
	} else if ((r = add_name(p, ref, &first))) {
		goto err;
	}
	if ((r = advance(p)))
		goto err;
	if (ref->root != FLT_ROOT_PAYLOAD) {
		/* $ctx and $app need a name: `$ctx.vpid`. */
		if (p->tok.type != TK_DOT && p->tok.type != TK_ARROW) {
			flt_set_error(p->err, first.off, "Expecting '.NAME' after '%s'",
				      ref->root == FLT_ROOT_CTX ? "$ctx" : "$app");
			r = -EINVAL;
			goto err;
		}
		if ((r = parse_member(p, ref)))
			goto err;
	}
	for (;;) {
		if (p->tok.type == TK_LBRACKET) {
			if ((r = parse_index(p, ref)))
				goto err;
		} else if (p->tok.type == TK_DOT || p->tok.type == TK_ARROW) {
			if ((r = parse_member(p, ref)))
				goto err;
		} else {
			break;
		}
	}
	*ret = ref;
	return 0;
err:
	flt_node_free(ref);
	return r;
}

static int parse_primary(struct parser *p, struct flt_node **ret)
{
	struct flt_node *n;
	int r;

	switch (p->tok.type) {
	case TK_INT:
	case TK_FLOAT:
		n = node_new(p->tok.type == TK_INT ? N_INT : N_FLOAT, p->tok.off);
		if (!n)
			return -ENOMEM;
		n->ival = p->tok.ival;
		n->dval = p->tok.dval;
		break;
	case TK_STRING:
		n = node_new(N_STRING, p->tok.off);
		if (!n)
			return -ENOMEM;
		/* Newlines inside a literal are dropped, as LTTng's lexer does. */
		n->str = malloc(p->tok.text_len + 1);
		if (!n->str) {
			free(n);
			return -ENOMEM;
		}
		for (size_t i = 0; i < p->tok.text_len; i++)
			if (p->tok.text[i] != '\n')
				n->str[n->str_len++] = p->tok.text[i];
		n->str[n->str_len] = 0;
		break;
	case TK_IDENT:
	case TK_GIDENT:
		return parse_ref(p, ret);
	case TK_LPAREN:
		if ((r = advance(p)) || (r = parse_expr(p, &n)))
			return r;
		if (p->tok.type != TK_RPAREN) {
			flt_node_free(n);
			return syntax_error(p);
		}
		break;
	default:
		return syntax_error(p);
	}
	if ((r = advance(p))) {
		flt_node_free(n);
		return r;
	}
	*ret = n;
	return 0;
}

static int parse_unary(struct parser *p, struct flt_node **ret)
{
	enum flt_tok op = p->tok.type;
	struct flt_node *n, *child;
	size_t off = p->tok.off;
	int r;

	if (op != TK_MINUS && op != TK_PLUS && op != TK_NOT && op != TK_TILDE)
		return parse_primary(p, ret);
	if (++p->depth > FLT_MAX_NESTING) {
		flt_set_error(p->err, off, "Expression nested too deeply (at most %d levels)",
			      FLT_MAX_NESTING);
		return -EINVAL;
	}
	if ((r = advance(p)) || (r = parse_unary(p, &child)))
		return r;
	p->depth--;
	n = node_new(N_UNARY, off);
	if (!n) {
		flt_node_free(child);
		return -ENOMEM;
	}
	n->op = op;
	n->l = child;
	*ret = n;
	return 0;
}

/* Binary levels, loosest first; each level's operands are the next level. */
static const enum flt_tok levels[][5] = {
	{ TK_OROR },
	{ TK_ANDAND },
	{ TK_EQ, TK_NE },
	{ TK_LT, TK_LE, TK_GT, TK_GE },
	{ TK_PIPE },
	{ TK_CARET },
	{ TK_AMP },
	{ TK_SHL, TK_SHR },
	{ TK_PLUS, TK_MINUS },
	{ TK_STAR, TK_SLASH, TK_PERCENT },
};

static bool in_level(unsigned int level, enum flt_tok t)
{
	for (unsigned int k = 0; k < ARRAY_SIZE(levels[0]) && levels[level][k]; k++)
		if (levels[level][k] == t)
			return true;
	return false;
}

static int parse_level(struct parser *p, unsigned int level, struct flt_node **ret)
{
	struct flt_node *l, *r, *n;
	int e;

	if (level == ARRAY_SIZE(levels))
		return parse_unary(p, ret);
	if ((e = parse_level(p, level + 1, &l)))
		return e;
	while (in_level(level, p->tok.type)) {
		enum flt_tok op = p->tok.type;
		size_t off = p->tok.off;

		if ((e = advance(p)) || (e = parse_level(p, level + 1, &r))) {
			flt_node_free(l);
			return e;
		}
		if (++p->nodes > FLT_MAX_NODES) {
			flt_node_free(l);
			flt_node_free(r);
			flt_set_error(p->err, off,
				      "Filter expression too long: more than %d operators",
				      FLT_MAX_NODES);
			return -E2BIG;
		}
		n = node_new(op == TK_ANDAND || op == TK_OROR ? N_LOGICAL : N_BINARY, off);
		if (!n) {
			flt_node_free(l);
			flt_node_free(r);
			return -ENOMEM;
		}
		n->op = op;
		n->l = l;
		n->r = r;
		l = n;
	}
	*ret = l;
	return 0;
}

static int parse_expr(struct parser *p, struct flt_node **ret)
{
	int r;

	if (++p->depth > FLT_MAX_NESTING) {
		flt_set_error(p->err, p->tok.off,
			      "Expression nested too deeply (at most %d levels)", FLT_MAX_NESTING);
		return -EINVAL;
	}
	r = parse_level(p, 0, ret);
	p->depth--;
	return r;
}

int flt_parse(const char *expr, size_t len, struct flt_node **ret, struct flt_error *err)
{
	struct parser p = { .lx = { .src = expr, .len = len }, .err = err };
	struct flt_node *root;
	int r;

	if ((r = advance(&p)))
		return r;
	if (p.tok.type == TK_EOF) {
		flt_set_error(err, p.tok.off, "Empty filter expression");
		return -EINVAL;
	}
	if ((r = parse_expr(&p, &root)))
		return r;
	if (p.tok.type != TK_EOF) {
		flt_node_free(root);
		return syntax_error(&p);
	}
	*ret = root;
	return 0;
}
