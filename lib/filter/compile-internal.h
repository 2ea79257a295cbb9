/* SPDX-License-Identifier: MIT */
/*
 * The compiler's inner objects: tokens (lex.c), the syntax tree
 * (parse.c), the checks LTTng makes before generating code (check.c) and
 * the bytecode writer (emit.c).
 */
#ifndef STRATA_FILTER_COMPILE_INTERNAL_H
#define STRATA_FILTER_COMPILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter/filter.h"

enum flt_tok {
	TK_EOF,
	TK_INT, /* ival */
	TK_FLOAT, /* dval */
	TK_STRING, /* the literal's content, raw (text, len) */
	TK_IDENT,
	TK_GIDENT, /* $name */
	TK_LBRACKET,
	TK_RBRACKET,
	TK_LPAREN,
	TK_RPAREN,
	TK_DOT,
	TK_ARROW,
	TK_NOT,
	TK_TILDE,
	TK_SHL,
	TK_SHR,
	TK_AMP,
	TK_CARET,
	TK_PIPE,
	TK_LT,
	TK_LE,
	TK_GT,
	TK_GE,
	TK_EQ,
	TK_NE,
	TK_ANDAND,
	TK_OROR,
	TK_PLUS,
	TK_MINUS,
	TK_STAR,
	TK_SLASH,
	TK_PERCENT,
	/* Lexed, used by no rule (LTTng's lexer knows them): always a syntax error. */
	TK_LBRACE,
	TK_RBRACE,
	TK_COLON,
	TK_SEMI,
	TK_ELLIPSIS,
	TK_ASSIGN,
	TK_COMMA,
};

struct flt_token {
	enum flt_tok type;
	size_t off, len; /* where in the expression */
	const char *text; /* TK_STRING: content; TK_IDENT/GIDENT: the name */
	size_t text_len;
	uint64_t ival;
	double dval;
};

struct flt_lexer {
	const char *src;
	size_t len, pos;
};

/* Next token, or -EINVAL with err filled (a character no rule knows). */
int flt_lex_next(struct flt_lexer *lx, struct flt_token *tok, struct flt_error *err);
const char *flt_tok_name(enum flt_tok t);

enum flt_node_type {
	N_INT,
	N_FLOAT,
	N_STRING,
	N_REF,
	N_UNARY, /* op: TK_MINUS, TK_PLUS, TK_NOT, TK_TILDE */
	N_BINARY, /* op: comparison, bitwise or arithmetic token */
	N_LOGICAL, /* op: TK_ANDAND, TK_OROR */
};

struct flt_comp_src {
	uint8_t kind; /* enum flt_comp_kind */
	const char *name;
	size_t len;
	uint64_t index;
};

struct flt_node {
	enum flt_node_type type;
	enum flt_tok op;
	size_t off; /* the operator's or literal's offset */
	struct flt_node *l, *r; /* children (unary: l) */
	uint64_t ival;
	double dval;
	/* N_STRING: the literal as normalised (runs of '*' collapsed), malloc'ed */
	char *str;
	size_t str_len;
	bool glob; /* N_STRING: a full star glob (not a plain or end-star string) */
	/* N_REF */
	uint8_t root;
	uint8_t ncomp;
	struct flt_comp_src comp[FLT_BC_MAX_COMPS];
};

/* parse.c: the tree of a whole expression, or -EINVAL with err filled. */
int flt_parse(const char *expr, size_t len, struct flt_node **ret, struct flt_error *err);
void flt_node_free(struct flt_node *n);
/*
 * The left spine of a binary/logical node (n, n->l, n->l->l, ... while
 * binary or logical) in *ret (malloc'ed): walkers loop over it, since
 * chains of left-associative operators can be thousands long.
 */
int flt_spine(struct flt_node *n, struct flt_node ***ret, size_t *ret_n);

/* check.c: LTTng's checks on literals, escapes and globs (normalises string literals). */
int flt_check(struct flt_node *root, struct flt_error *err);

/* emit.c */
int flt_emit(const struct flt_node *root, void **ret_bc, size_t *ret_len, struct flt_error *err);

void flt_set_error(struct flt_error *err, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
