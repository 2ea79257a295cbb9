/* SPDX-License-Identifier: MIT */
/*
 * Internals of the TSDL metadata parser (tsdl-lex.c, tsdl-parse.c,
 * tsdl-decl.c, tsdl-scalar.c, tsdl-types.c, tsdl-resolve.c, metadata.c).
 *
 * Pipeline: bytes --metadata.c--> TSDL text --tsdl-lex.c--> token array
 * --tsdl-parse.c/tsdl-decl.c--> ctf_trace_class (types copied per use, like
 * babeltrace2) --tsdl-resolve.c--> field paths, clocks, meanings, hidden.
 *
 * Every quantity driven by the input is bounded by one of the TSDL_MAX_*
 * limits below, and the parser never recurses deeper than TSDL_MAX_DEPTH.
 */
#ifndef STRATA_CTF_TSDL_INTERNAL_H
#define STRATA_CTF_TSDL_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf-ir.h"

/* Nesting of parser braces, and of types (struct/variant/array levels). */
#define TSDL_MAX_DEPTH 48
#define TSDL_MAX_TYPE_DEPTH 64
#define TSDL_MAX_IDENT_LEN 1024
/* Members per struct, options per variant, mappings per enum. */
#define TSDL_MAX_FIELDS 65536
#define TSDL_MAX_MAPPINGS 1000000
#define TSDL_MAX_STREAMS 4096 /* duplicate checks are linear */
#define TSDL_MAX_EVENTS 1000000
#define TSDL_MAX_CLOCKS 1024
#define TSDL_MAX_ENV 4096
/*
 * Total type nodes: types are copied per use, so aliases could explode.
 * The budget is 2 per token (LTTng metadata needs well under 1), at least
 * TSDL_MAX_NODES_MIN, at most TSDL_MAX_NODES (~150 bytes each).
 */
#define TSDL_MAX_NODES_MIN (1u << 18)
#define TSDL_MAX_NODES (1u << 22)
/* Member-name comparisons while resolving field paths (~0.2 s). */
#define TSDL_MAX_LOOKUP_WORK ((uint64_t)64 << 20)
/* Metadata text, joined; a metadata file is never anywhere near this. */
#define TSDL_MAX_TEXT ((size_t)256 << 20)

enum tsdl_tok_kind {
	TSDL_TOK_EOF,
	TSDL_TOK_IDENT, /* identifiers and keywords (kw says which) */
	TSDL_TOK_INT, /* unsigned literal; sign is a separate '-' token */
	TSDL_TOK_STRING, /* escapes decoded */
	TSDL_TOK_PUNCT, /* punct says which */
};

enum tsdl_punct {
	TSDL_P_NONE,
	TSDL_P_LBRACE,
	TSDL_P_RBRACE,
	TSDL_P_LBRACKET,
	TSDL_P_RBRACKET,
	TSDL_P_LPAREN,
	TSDL_P_RPAREN,
	TSDL_P_SEMI,
	TSDL_P_COMMA,
	TSDL_P_DOT,
	TSDL_P_COLON,
	TSDL_P_TYPEASSIGN, /* := */
	TSDL_P_EQ,
	TSDL_P_LT,
	TSDL_P_GT,
	TSDL_P_PLUS,
	TSDL_P_MINUS,
	TSDL_P_STAR,
	TSDL_P_ELLIPSIS, /* ... */
	TSDL_P_ARROW, /* -> */
};

enum tsdl_kw {
	TSDL_KW_NONE,
	TSDL_KW_ALIGN,
	TSDL_KW_CALLSITE,
	TSDL_KW_CONST,
	TSDL_KW_CHAR,
	TSDL_KW_CLOCK,
	TSDL_KW_DOUBLE,
	TSDL_KW_ENUM,
	TSDL_KW_ENV,
	TSDL_KW_EVENT,
	TSDL_KW_FLOATING_POINT,
	TSDL_KW_FLOAT,
	TSDL_KW_INTEGER,
	TSDL_KW_INT,
	TSDL_KW_LONG,
	TSDL_KW_SHORT,
	TSDL_KW_SIGNED,
	TSDL_KW_STREAM,
	TSDL_KW_STRING,
	TSDL_KW_STRUCT,
	TSDL_KW_TRACE,
	TSDL_KW_TYPEALIAS,
	TSDL_KW_TYPEDEF,
	TSDL_KW_UNSIGNED,
	TSDL_KW_VARIANT,
	TSDL_KW_VOID,
	TSDL_KW_BOOL,
	TSDL_KW_COMPLEX,
	TSDL_KW_IMAGINARY,
};

struct tsdl_token {
	uint8_t kind; /* enum tsdl_tok_kind */
	uint8_t punct; /* enum tsdl_punct */
	uint8_t kw; /* enum tsdl_kw */
	uint32_t line;
	uint32_t len; /* IDENT/STRING: bytes in str (STRING may hold NULs) */
	union {
		const char *str; /* IDENT/STRING: NUL-terminated, in the lexer arena */
		uint64_t u; /* INT */
	};
};

struct tsdl_lexer {
	struct tsdl_token *tok;
	size_t n_tok, cap_tok, cap_hint;
	char *arena; /* decoded identifiers and strings */
};

int tsdl_lex(struct tsdl_lexer *lx, const char *text, size_t len, struct ctf_parse_error *err);
void tsdl_lexer_release(struct tsdl_lexer *lx);

/*
 * Every ctf_type the parser allocates is really one of these; the
 * extra bookkeeping lives after the public part and is freed with it.
 */
struct tsdl_type {
	struct ctf_type t;
	uint32_t depth; /* 1 for scalars, 1 + deepest child otherwise */
	bool in_ir; /* babeltrace2's "in IR": printed */
	bool depended; /* a sequence or variant refers to it */
};

static inline struct tsdl_type *tsdl_type_of(struct ctf_type *t)
{
	return (struct tsdl_type *)t;
}

/* Allocation accounting shared by the parser's type constructors. */
struct tsdl_budget {
	size_t nodes_left;
};

struct ctf_type *tsdl_type_new(struct tsdl_budget *b, enum ctf_type_kind kind);
struct ctf_type *tsdl_type_copy(struct tsdl_budget *b, const struct ctf_type *src);
void tsdl_type_destroy(struct ctf_type *t);
void tsdl_type_update_depth(struct ctf_type *t);
void tsdl_field_release(struct ctf_field *f);
void tsdl_event_class_destroy(struct ctf_event_class *ec);
void tsdl_stream_class_destroy(struct ctf_stream_class *sc);

/* Both fill err (line may be 0) and return -STRATA_EMETADATA / -STRATA_EUNSUPPORTED. */
int tsdl_error(struct ctf_parse_error *err, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tsdl_unsupported(struct ctf_parse_error *err, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A declaration scope: type aliases and named struct/variant/enum types. */
enum tsdl_decl_kind {
	TSDL_DECL_ALIAS,
	TSDL_DECL_STRUCT,
	TSDL_DECL_VARIANT,
	TSDL_DECL_ENUM,
};

struct tsdl_decl {
	uint32_t kind;
	uint32_t hash;
	char *name;
	struct ctf_type *type; /* prototype, copied on use */
};

struct tsdl_scope {
	struct tsdl_scope *parent;
	struct tsdl_decl *decls;
	size_t n, cap;
	uint32_t *buckets; /* index + 1 into decls, 0 = empty; cap * 2 slots */
};

/* An attribute value (right side of `=`). */
enum tsdl_val_kind {
	TSDL_VAL_UINT,
	TSDL_VAL_SINT, /* only negative values */
	TSDL_VAL_STRING, /* "literal" */
	TSDL_VAL_IDENT, /* identifier or dotted path, joined with '.' */
};

struct tsdl_val {
	enum tsdl_val_kind kind;
	uint64_t u;
	int64_t s;
	const char *str;
	unsigned line;
	char buf[TSDL_MAX_IDENT_LEN * 2 + 8];
};

struct tsdl_parser {
	const struct tsdl_token *tok;
	size_t pos, n_tok;
	struct ctf_parse_error *err;
	struct tsdl_budget budget;
	struct tsdl_scope *scope;
	unsigned depth;
	struct ctf_trace_class *tc;
	enum ctf_byte_order native_bo;
	size_t cap_clocks, cap_env, cap_streams;
	/* Event classes in declaration order, distributed to streams at the end. */
	struct ctf_event_class **events;
	size_t n_events, cap_events;
	/* Events seen so far per stream (parallel to tc->streams). */
	size_t *stream_n_events;
};

/* tsdl-decl.c: scopes, values, type specifiers and declarations. */
enum tsdl_decl_ctx {
	TSDL_CTX_ROOT, /* top level or a trace/stream/event block: types only */
	TSDL_CTX_STRUCT, /* struct body: fields */
	TSDL_CTX_VARIANT, /* variant body: options */
};

struct tsdl_field_vec {
	struct ctf_field *f;
	size_t n, cap;
};

static inline const struct tsdl_token *tsdl_cur(const struct tsdl_parser *p)
{
	return &p->tok[p->pos];
}

bool tsdl_is_punct(const struct tsdl_parser *p, enum tsdl_punct pu);
int tsdl_expect(struct tsdl_parser *p, enum tsdl_punct pu, const char *what);
const char *tsdl_tok_desc(const struct tsdl_token *t, char *buf, size_t size);
int tsdl_scope_push(struct tsdl_parser *p);
void tsdl_scope_pop(struct tsdl_parser *p);
void tsdl_scope_free_all(struct tsdl_parser *p);
int tsdl_parse_value(struct tsdl_parser *p, struct tsdl_val *v);
int tsdl_parse_dotted(struct tsdl_parser *p, char *buf, size_t size);
int tsdl_val_bool(struct tsdl_parser *p, const struct tsdl_val *v, const char *attr, bool *ret);
int tsdl_parse_type_spec(struct tsdl_parser *p, bool want_declarator, struct ctf_type **ret);
int tsdl_parse_declaration(struct tsdl_parser *p, enum tsdl_decl_ctx ctx,
			   struct tsdl_field_vec *fields);
bool tsdl_starts_declaration(const struct tsdl_parser *p);
int tsdl_unexpected(struct tsdl_parser *p, const char *what);
struct ctf_type *tsdl_new_type(struct tsdl_parser *p, enum ctf_type_kind kind, int *ret);

/* tsdl-scalar.c: integer, floating_point and string; the keyword is current. */
int tsdl_parse_integer(struct tsdl_parser *p, struct ctf_type **ret);
int tsdl_parse_float(struct tsdl_parser *p, struct ctf_type **ret);
int tsdl_parse_string(struct tsdl_parser *p, struct ctf_type **ret);

static inline bool tsdl_is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}
void tsdl_field_vec_release(struct tsdl_field_vec *v);

/* tsdl-parse.c: tokens to a trace class (unresolved). */
int tsdl_parse_tokens(const struct tsdl_lexer *lx, struct ctf_trace_class **ret_tc,
		      struct ctf_parse_error *err);

/* tsdl-resolve.c: everything that needs the whole trace class. */
int tsdl_resolve(struct ctf_trace_class *tc, struct ctf_parse_error *err);

/*
 * metadata.c: the packet-joining logic of ctf_metadata_read() on an
 * in-memory copy of a metadata file (what the fuzzer feeds).
 */
int ctf_metadata_read_buf(const uint8_t *buf, size_t size, char **ret_text, size_t *ret_len,
			  struct ctf_parse_error *err);

#endif
