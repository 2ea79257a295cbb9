/* SPDX-License-Identifier: MIT */
/*
 * TSDL declarations: scopes of type names, attribute values, type
 * specifiers (struct, variant, enum and alias names such as `unsigned
 * long`; scalars are in tsdl-scalar.c), declarators (arrays, sequences,
 * bit-fields), typedef and typealias.
 *
 * Types are built bottom-up into fresh nodes; a use of a named type or an
 * alias copies its prototype, as babeltrace2 does, so every field owns its
 * type and resolution can annotate it independently.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/tsdl-internal.h"
#include "common/common.h"

/* ---- tokens ---- */

bool tsdl_is_punct(const struct tsdl_parser *p, enum tsdl_punct pu)
{
	const struct tsdl_token *t = tsdl_cur(p);

	return t->kind == TSDL_TOK_PUNCT && t->punct == pu;
}

static bool is_kw(const struct tsdl_parser *p, enum tsdl_kw kw)
{
	const struct tsdl_token *t = tsdl_cur(p);

	return t->kind == TSDL_TOK_IDENT && t->kw == kw;
}

static const char *const punct_names[] = {
	[TSDL_P_NONE] = "?",	   [TSDL_P_LBRACE] = "{",   [TSDL_P_RBRACE] = "}",
	[TSDL_P_LBRACKET] = "[",   [TSDL_P_RBRACKET] = "]", [TSDL_P_LPAREN] = "(",
	[TSDL_P_RPAREN] = ")",	   [TSDL_P_SEMI] = ";",	    [TSDL_P_COMMA] = ",",
	[TSDL_P_DOT] = ".",	   [TSDL_P_COLON] = ":",    [TSDL_P_TYPEASSIGN] = ":=",
	[TSDL_P_EQ] = "=",	   [TSDL_P_LT] = "<",	    [TSDL_P_GT] = ">",
	[TSDL_P_PLUS] = "+",	   [TSDL_P_MINUS] = "-",    [TSDL_P_STAR] = "*",
	[TSDL_P_ELLIPSIS] = "...", [TSDL_P_ARROW] = "->",
};

const char *tsdl_tok_desc(const struct tsdl_token *t, char *buf, size_t size)
{
	switch (t->kind) {
	case TSDL_TOK_EOF:
		return "end of metadata";
	case TSDL_TOK_IDENT:
		snprintf(buf, size, "'%.64s'", t->str);
		return buf;
	case TSDL_TOK_INT:
		snprintf(buf, size, "'%llu'", (unsigned long long)t->u);
		return buf;
	case TSDL_TOK_STRING:
		snprintf(buf, size, "string \"%.64s\"", t->str);
		return buf;
	default:
		snprintf(buf, size, "'%s'",
			 t->punct < ARRAY_SIZE(punct_names) ? punct_names[t->punct] : "?");
		return buf;
	}
}

int tsdl_unexpected(struct tsdl_parser *p, const char *what)
{
	char buf[96];
	const struct tsdl_token *t = tsdl_cur(p);

	return tsdl_error(p->err, t->line, "expected %s, got %s", what,
			  tsdl_tok_desc(t, buf, sizeof(buf)));
}

int tsdl_expect(struct tsdl_parser *p, enum tsdl_punct pu, const char *what)
{
	if (!tsdl_is_punct(p, pu))
		return tsdl_unexpected(p, what);
	p->pos++;
	return 0;
}

/* ---- scopes ---- */

static uint32_t decl_hash(uint32_t kind, const char *name)
{
	uint32_t h = 2166136261u ^ kind;

	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 16777619u;
	return h;
}

int tsdl_scope_push(struct tsdl_parser *p)
{
	struct tsdl_scope *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->parent = p->scope;
	p->scope = s;
	return 0;
}

static void scope_free(struct tsdl_scope *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->decls[i].name);
		tsdl_type_destroy(s->decls[i].type);
	}
	free(s->decls);
	free(s->buckets);
	free(s);
}

void tsdl_scope_pop(struct tsdl_parser *p)
{
	struct tsdl_scope *s = p->scope;

	if (!s)
		return;
	p->scope = s->parent;
	scope_free(s);
}

void tsdl_scope_free_all(struct tsdl_parser *p)
{
	while (p->scope)
		tsdl_scope_pop(p);
}

static struct tsdl_decl *scope_find_local(struct tsdl_scope *s, uint32_t kind, const char *name,
					  uint32_t h)
{
	size_t mask;

	if (!s->buckets)
		return NULL;
	mask = s->cap * 2 - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint32_t v = s->buckets[i];
		struct tsdl_decl *d;

		if (!v)
			return NULL;
		d = &s->decls[v - 1];
		if (d->hash == h && d->kind == kind && strcmp(d->name, name) == 0)
			return d;
	}
}

static const struct tsdl_decl *scope_lookup(const struct tsdl_parser *p, uint32_t kind,
					    const char *name)
{
	uint32_t h = decl_hash(kind, name);

	for (struct tsdl_scope *s = p->scope; s; s = s->parent) {
		struct tsdl_decl *d = scope_find_local(s, kind, name, h);

		if (d)
			return d;
	}
	return NULL;
}

static const char *decl_kind_name(uint32_t kind)
{
	switch (kind) {
	case TSDL_DECL_STRUCT:
		return "struct";
	case TSDL_DECL_VARIANT:
		return "variant";
	case TSDL_DECL_ENUM:
		return "enum";
	default:
		return "type";
	}
}

/* Takes ownership of type (freed on error). */
static int scope_register(struct tsdl_parser *p, uint32_t kind, const char *name,
			  struct ctf_type *type, unsigned line)
{
	struct tsdl_scope *s = p->scope;
	uint32_t h = decl_hash(kind, name);
	struct tsdl_decl *d;
	size_t mask;

	if (scope_find_local(s, kind, name, h)) {
		tsdl_type_destroy(type);
		return tsdl_error(p->err, line, "duplicate %s '%s'", decl_kind_name(kind), name);
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct tsdl_decl *nd = realloc(s->decls, cap * sizeof(*nd));
		uint32_t *nb;

		if (!nd) {
			tsdl_type_destroy(type);
			return -ENOMEM;
		}
		s->decls = nd;
		nb = calloc(cap * 2, sizeof(*nb));
		if (!nb) {
			tsdl_type_destroy(type);
			return -ENOMEM;
		}
		free(s->buckets);
		s->buckets = nb;
		s->cap = cap;
		mask = cap * 2 - 1;
		for (size_t i = 0; i < s->n; i++) {
			size_t j = s->decls[i].hash & mask;

			while (nb[j])
				j = (j + 1) & mask;
			nb[j] = (uint32_t)i + 1;
		}
	}
	d = &s->decls[s->n];
	d->name = strdup(name);
	if (!d->name) {
		tsdl_type_destroy(type);
		return -ENOMEM;
	}
	d->kind = kind;
	d->hash = h;
	d->type = type;
	mask = s->cap * 2 - 1;
	{
		size_t j = h & mask;

		while (s->buckets[j])
			j = (j + 1) & mask;
		s->buckets[j] = (uint32_t)s->n + 1;
	}
	s->n++;
	return 0;
}

/* ---- values ---- */

static bool is_word(const struct tsdl_token *t)
{
	return t->kind == TSDL_TOK_IDENT;
}

/* a.b.c where each part may be a keyword (`stream.event.header.id`). */
int tsdl_parse_dotted(struct tsdl_parser *p, char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		const struct tsdl_token *t = tsdl_cur(p);

		if (!is_word(t))
			return tsdl_unexpected(p, "identifier");
		if (n + t->len + 2 > size)
			return tsdl_error(p->err, t->line, "name too long");
		memcpy(buf + n, t->str, t->len);
		n += t->len;
		buf[n] = '\0';
		p->pos++;
		if (!tsdl_is_punct(p, TSDL_P_DOT))
			return 0;
		p->pos++;
		buf[n++] = '.';
	}
}

int tsdl_parse_value(struct tsdl_parser *p, struct tsdl_val *v)
{
	const struct tsdl_token *t = tsdl_cur(p);
	bool neg = false;

	memset(v, 0, offsetof(struct tsdl_val, buf));
	v->buf[0] = '\0';
	v->line = t->line;
	if (t->kind == TSDL_TOK_PUNCT && (t->punct == TSDL_P_MINUS || t->punct == TSDL_P_PLUS)) {
		neg = t->punct == TSDL_P_MINUS;
		p->pos++;
		t = tsdl_cur(p);
		if (t->kind != TSDL_TOK_INT)
			return tsdl_unexpected(p, "integer constant after sign");
	}
	switch (t->kind) {
	case TSDL_TOK_INT:
		p->pos++;
		if (neg && t->u) {
			if (t->u > (uint64_t)INT64_MAX + 1)
				return tsdl_error(p->err, t->line, "integer constant out of range");
			v->kind = TSDL_VAL_SINT;
			v->s = t->u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)t->u;
		} else {
			v->kind = TSDL_VAL_UINT;
			v->u = t->u;
		}
		return 0;
	case TSDL_TOK_STRING:
		p->pos++;
		v->kind = TSDL_VAL_STRING;
		v->str = t->str;
		return 0;
	case TSDL_TOK_IDENT:
		v->kind = TSDL_VAL_IDENT;
		v->str = v->buf;
		return tsdl_parse_dotted(p, v->buf, sizeof(v->buf));
	default:
		return tsdl_unexpected(p, "value");
	}
}

int tsdl_val_bool(struct tsdl_parser *p, const struct tsdl_val *v, const char *attr, bool *ret)
{
	switch (v->kind) {
	case TSDL_VAL_UINT:
		*ret = v->u != 0;
		return 0;
	case TSDL_VAL_SINT:
		*ret = v->s != 0;
		return 0;
	default:
		if (strcmp(v->str, "true") == 0 || strcmp(v->str, "TRUE") == 0) {
			*ret = true;
			return 0;
		}
		if (strcmp(v->str, "false") == 0 || strcmp(v->str, "FALSE") == 0) {
			*ret = false;
			return 0;
		}
		return tsdl_error(p->err, v->line, "invalid boolean for `%s`: '%.64s'", attr,
				  v->str);
	}
}

static int enter(struct tsdl_parser *p)
{
	if (++p->depth > TSDL_MAX_DEPTH)
		return tsdl_error(p->err, tsdl_cur(p)->line,
				  "nesting too deep (more than %d levels)", TSDL_MAX_DEPTH);
	return 0;
}

static int check_type_depth(struct tsdl_parser *p, struct ctf_type *t, unsigned line)
{
	tsdl_type_update_depth(t);
	if (tsdl_type_of(t)->depth > TSDL_MAX_TYPE_DEPTH)
		return tsdl_error(p->err, line, "type nesting too deep (more than %d levels)",
				  TSDL_MAX_TYPE_DEPTH);
	return 0;
}

static int nomem_or_budget(struct tsdl_parser *p)
{
	if (errno == E2BIG)
		return tsdl_error(p->err, tsdl_cur(p)->line,
				  "metadata too complex (more than %u type nodes)",
				  (unsigned)TSDL_MAX_NODES);
	return -ENOMEM;
}

struct ctf_type *tsdl_new_type(struct tsdl_parser *p, enum ctf_type_kind kind, int *ret)
{
	struct ctf_type *t = tsdl_type_new(&p->budget, kind);

	if (!t)
		*ret = nomem_or_budget(p);
	return t;
}

static struct ctf_type *copy_type(struct tsdl_parser *p, const struct ctf_type *src, int *ret)
{
	struct ctf_type *t = tsdl_type_copy(&p->budget, src);

	if (!t)
		*ret = nomem_or_budget(p);
	return t;
}

/* ---- compound types ---- */

void tsdl_field_vec_release(struct tsdl_field_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		tsdl_field_release(&v->f[i]);
	free(v->f);
	memset(v, 0, sizeof(*v));
}

/* Takes ownership of type. */
static int field_vec_add(struct tsdl_parser *p, struct tsdl_field_vec *v, const char *name,
			 struct ctf_type *type, unsigned line)
{
	struct ctf_field *f;

	if (v->n >= TSDL_MAX_FIELDS) {
		tsdl_type_destroy(type);
		return tsdl_error(p->err, line, "too many fields (more than %d)", TSDL_MAX_FIELDS);
	}
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		struct ctf_field *nf = realloc(v->f, cap * sizeof(*nf));

		if (!nf) {
			tsdl_type_destroy(type);
			return -ENOMEM;
		}
		v->f = nf;
		v->cap = cap;
	}
	f = &v->f[v->n];
	memset(f, 0, sizeof(*f));
	f->orig_name = strdup(name);
	/* babeltrace2 strips exactly one leading underscore for display. */
	f->name = strdup(name[0] == '_' ? name + 1 : name);
	f->type = type;
	v->n++;
	if (!f->orig_name || !f->name)
		return -ENOMEM;
	return 0;
}

static int cmp_field_names(const void *a, const void *b)
{
	const struct ctf_field *const *fa = a, *const *fb = b;

	return strcmp((*fa)->orig_name, (*fb)->orig_name);
}

static int check_duplicates(struct tsdl_parser *p, const struct tsdl_field_vec *v, unsigned line,
			    const char *what)
{
	const struct ctf_field **sorted;
	int ret = 0;

	if (v->n < 2)
		return 0;
	if (v->n <= 16) {
		for (size_t i = 0; i < v->n; i++)
			for (size_t j = i + 1; j < v->n; j++)
				if (!strcmp(v->f[i].orig_name, v->f[j].orig_name))
					return tsdl_error(p->err, line, "duplicate %s '%.64s'",
							  what, v->f[i].orig_name);
		return 0;
	}
	sorted = malloc(v->n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++)
		sorted[i] = &v->f[i];
	qsort(sorted, v->n, sizeof(*sorted), cmp_field_names);
	for (size_t i = 1; i < v->n && !ret; i++)
		if (!strcmp(sorted[i - 1]->orig_name, sorted[i]->orig_name))
			ret = tsdl_error(p->err, line, "duplicate %s '%.64s'", what,
					 sorted[i]->orig_name);
	free(sorted);
	return ret;
}

/* `{ declarations }` of a struct or variant; the '{' is current. */
static int parse_body(struct tsdl_parser *p, enum tsdl_decl_ctx ctx, struct tsdl_field_vec *v)
{
	int ret;

	p->pos++;
	ret = tsdl_scope_push(p);
	if (ret)
		return ret;
	while (!tsdl_is_punct(p, TSDL_P_RBRACE)) {
		if (tsdl_cur(p)->kind == TSDL_TOK_EOF) {
			ret = tsdl_unexpected(p, "'}'");
			break;
		}
		ret = tsdl_parse_declaration(p, ctx, v);
		if (ret)
			break;
	}
	tsdl_scope_pop(p);
	if (ret)
		return ret;
	p->pos++;
	return 0;
}

static int optional_name(struct tsdl_parser *p, const char **name)
{
	const struct tsdl_token *t = tsdl_cur(p);

	*name = NULL;
	if (t->kind == TSDL_TOK_IDENT && t->kw == TSDL_KW_NONE) {
		*name = t->str;
		p->pos++;
	}
	return 0;
}

/* Registers a copy of a named definition in the current scope. */
static int register_copy(struct tsdl_parser *p, uint32_t kind, const char *name,
			 const struct ctf_type *t, unsigned line)
{
	int ret = 0;
	struct ctf_type *c = copy_type(p, t, &ret);

	if (!c)
		return ret;
	return scope_register(p, kind, name, c, line);
}

static int lookup_copy(struct tsdl_parser *p, uint32_t kind, const char *name, unsigned line,
		       struct ctf_type **ret_t)
{
	const struct tsdl_decl *d = scope_lookup(p, kind, name);
	int ret = 0;

	if (!d) {
		if (kind == TSDL_DECL_ALIAS)
			return tsdl_error(p->err, line, "unknown type name '%.128s'", name);
		return tsdl_error(p->err, line, "unknown %s '%.128s'", decl_kind_name(kind), name);
	}
	*ret_t = copy_type(p, d->type, &ret);
	return *ret_t ? 0 : ret;
}

static int parse_struct(struct tsdl_parser *p, struct ctf_type **ret_t)
{
	unsigned line = tsdl_cur(p)->line;
	const char *name;
	struct ctf_type *t = NULL;
	struct tsdl_field_vec v = { 0 };
	uint64_t min_align = 1;
	bool has_body = false;
	int ret;

	p->pos++;
	optional_name(p, &name);
	if (!tsdl_is_punct(p, TSDL_P_LBRACE)) {
		if (!name)
			return tsdl_unexpected(p, "struct name or '{'");
		ret = lookup_copy(p, TSDL_DECL_STRUCT, name, line, &t);
		if (ret)
			return ret;
	} else {
		has_body = true;
		ret = enter(p);
		if (!ret)
			ret = parse_body(p, TSDL_CTX_STRUCT, &v);
		p->depth--;
		if (!ret)
			ret = check_duplicates(p, &v, line, "struct member");
		if (!ret)
			t = tsdl_new_type(p, CTF_TYPE_STRUCT, &ret);
		if (ret) {
			tsdl_field_vec_release(&v);
			return ret;
		}
		t->structure.fields = v.f;
		t->structure.n_fields = v.n;
		t->align = 1;
		for (size_t i = 0; i < v.n; i++)
			t->align = MAX(t->align, v.f[i].type->align);
	}
	if (is_kw(p, TSDL_KW_ALIGN)) {
		struct tsdl_val val;

		p->pos++;
		ret = tsdl_expect(p, TSDL_P_LPAREN, "'(' after 'align'");
		if (!ret)
			ret = tsdl_parse_value(p, &val);
		if (!ret &&
		    (val.kind != TSDL_VAL_UINT || !tsdl_is_pow2(val.u) || val.u > (1u << 30)))
			ret = tsdl_error(p->err, val.line, "struct `align` must be a power of two");
		if (!ret)
			ret = tsdl_expect(p, TSDL_P_RPAREN, "')'");
		if (ret)
			goto fail;
		min_align = val.u;
		t->align = (uint32_t)MAX(t->align, min_align);
	}
	ret = check_type_depth(p, t, line);
	if (ret)
		goto fail;
	if (name && has_body) {
		ret = register_copy(p, TSDL_DECL_STRUCT, name, t, line);
		if (ret)
			goto fail;
	}
	*ret_t = t;
	return 0;
fail:
	tsdl_type_destroy(t);
	return ret;
}

static int parse_variant(struct tsdl_parser *p, struct ctf_type **ret_t)
{
	unsigned line = tsdl_cur(p)->line;
	const char *name;
	char tag[TSDL_MAX_IDENT_LEN * 2 + 8];
	bool has_tag = false;
	struct ctf_type *t = NULL;
	struct tsdl_field_vec v = { 0 };
	int ret;

	p->pos++;
	optional_name(p, &name);
	if (tsdl_is_punct(p, TSDL_P_LT)) {
		p->pos++;
		ret = tsdl_parse_dotted(p, tag, sizeof(tag));
		if (!ret)
			ret = tsdl_expect(p, TSDL_P_GT, "'>'");
		if (ret)
			return ret;
		has_tag = true;
	}
	if (!tsdl_is_punct(p, TSDL_P_LBRACE)) {
		if (!name)
			return tsdl_unexpected(p, "variant name or '{'");
		ret = lookup_copy(p, TSDL_DECL_VARIANT, name, line, &t);
		if (ret)
			return ret;
	} else {
		ret = enter(p);
		if (!ret)
			ret = parse_body(p, TSDL_CTX_VARIANT, &v);
		p->depth--;
		if (!ret)
			ret = check_duplicates(p, &v, line, "variant option");
		if (!ret && !v.n)
			ret = tsdl_error(p->err, line, "variant without options");
		if (!ret)
			t = tsdl_new_type(p, CTF_TYPE_VARIANT, &ret);
		if (ret) {
			tsdl_field_vec_release(&v);
			return ret;
		}
		t->variant.options = v.f;
		t->variant.n_options = v.n;
		/* The selected option's alignment applies when decoding. */
		t->align = 1;
		ret = check_type_depth(p, t, line);
		if (ret)
			goto fail;
		/* A named variant is registered without its tag. */
		if (name) {
			ret = register_copy(p, TSDL_DECL_VARIANT, name, t, line);
			if (ret)
				goto fail;
		}
	}
	if (has_tag) {
		free(t->variant.tag_name);
		t->variant.tag_name = strdup(tag);
		if (!t->variant.tag_name) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	*ret_t = t;
	return 0;
fail:
	tsdl_type_destroy(t);
	return ret;
}

/* Both signs are stored in the 64-bit union, as babeltrace2 does. */
static int enum_value(struct tsdl_parser *p, uint64_t *ret_u)
{
	struct tsdl_val v;
	int ret = tsdl_parse_value(p, &v);

	if (ret)
		return ret;
	if (v.kind == TSDL_VAL_UINT) {
		*ret_u = v.u;
		return 0;
	}
	if (v.kind == TSDL_VAL_SINT) {
		*ret_u = (uint64_t)v.s;
		return 0;
	}
	return tsdl_error(p->err, v.line, "enumeration value must be an integer constant");
}

static int parse_enum(struct tsdl_parser *p, struct ctf_type **ret_t)
{
	unsigned line = tsdl_cur(p)->line;
	const char *name;
	struct ctf_type *t = NULL, *container = NULL;
	struct ctf_enum_mapping *m = NULL;
	size_t n = 0, cap = 0;
	uint64_t next = 0;
	bool is_signed;
	int ret;

	p->pos++;
	optional_name(p, &name);
	if (tsdl_is_punct(p, TSDL_P_COLON)) {
		p->pos++;
		ret = enter(p);
		if (!ret)
			ret = tsdl_parse_type_spec(p, false, &container);
		p->depth--;
		if (ret)
			return ret;
	} else if (!tsdl_is_punct(p, TSDL_P_LBRACE)) {
		if (!name)
			return tsdl_unexpected(p, "enum name, ':' or '{'");
		return lookup_copy(p, TSDL_DECL_ENUM, name, line, ret_t);
	} else {
		/* Default container: the type named `int`, which must exist. */
		const struct tsdl_decl *d = scope_lookup(p, TSDL_DECL_ALIAS, "int");

		if (!d)
			return tsdl_error(p->err, line,
					  "enum without container type and no `int` type declared");
		container = copy_type(p, d->type, &ret);
		if (!container)
			return ret;
	}
	if (container->kind != CTF_TYPE_INT) {
		tsdl_type_destroy(container);
		return tsdl_error(p->err, line, "enum container type must be an integer");
	}
	if (!tsdl_is_punct(p, TSDL_P_LBRACE)) {
		tsdl_type_destroy(container);
		return tsdl_unexpected(p, "'{'");
	}
	p->pos++;
	is_signed = container->integer.is_signed;
	while (!tsdl_is_punct(p, TSDL_P_RBRACE)) {
		const struct tsdl_token *tk = tsdl_cur(p);
		uint64_t lo, hi;

		if (tk->kind != TSDL_TOK_IDENT && tk->kind != TSDL_TOK_STRING) {
			ret = tsdl_unexpected(p, "enumerator label");
			goto fail;
		}
		p->pos++;
		lo = next;
		if (tsdl_is_punct(p, TSDL_P_EQ)) {
			p->pos++;
			ret = enum_value(p, &lo);
			if (ret)
				goto fail;
		}
		hi = lo;
		if (tsdl_is_punct(p, TSDL_P_ELLIPSIS)) {
			p->pos++;
			ret = enum_value(p, &hi);
			if (ret)
				goto fail;
		}
		if (is_signed ? (int64_t)lo > (int64_t)hi : lo > hi) {
			ret = tsdl_error(p->err, tk->line, "enumerator '%.64s': range start > end",
					 tk->str);
			goto fail;
		}
		if (n >= TSDL_MAX_MAPPINGS) {
			ret = tsdl_error(p->err, tk->line, "too many enumerators");
			goto fail;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct ctf_enum_mapping *nm = realloc(m, ncap * sizeof(*nm));

			if (!nm) {
				ret = -ENOMEM;
				goto fail;
			}
			m = nm;
			cap = ncap;
		}
		m[n].label = strdup(tk->str);
		if (!m[n].label) {
			ret = -ENOMEM;
			goto fail;
		}
		m[n].lo.u = lo;
		m[n].hi.u = hi;
		n++;
		next = hi + 1;
		if (tsdl_is_punct(p, TSDL_P_COMMA))
			p->pos++;
		else if (!tsdl_is_punct(p, TSDL_P_RBRACE)) {
			ret = tsdl_unexpected(p, "',' or '}'");
			goto fail;
		}
	}
	p->pos++;
	t = tsdl_new_type(p, CTF_TYPE_ENUM, &ret);
	if (!t)
		goto fail;
	t->enumeration.container = container;
	t->enumeration.mappings = m;
	t->enumeration.n_mappings = n;
	t->align = container->align;
	tsdl_type_update_depth(t);
	if (name) {
		ret = register_copy(p, TSDL_DECL_ENUM, name, t, line);
		if (ret) {
			tsdl_type_destroy(t);
			return ret;
		}
	}
	*ret_t = t;
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		free(m[i].label);
	free(m);
	tsdl_type_destroy(container);
	return ret;
}

/* ---- type specifiers ---- */

static bool is_ctype_kw(uint8_t kw)
{
	switch (kw) {
	case TSDL_KW_CONST:
	case TSDL_KW_CHAR:
	case TSDL_KW_DOUBLE:
	case TSDL_KW_FLOAT:
	case TSDL_KW_INT:
	case TSDL_KW_LONG:
	case TSDL_KW_SHORT:
	case TSDL_KW_SIGNED:
	case TSDL_KW_UNSIGNED:
	case TSDL_KW_VOID:
	case TSDL_KW_BOOL:
	case TSDL_KW_COMPLEX:
	case TSDL_KW_IMAGINARY:
		return true;
	default:
		return false;
	}
}

static bool is_name_word(const struct tsdl_token *t)
{
	return t->kind == TSDL_TOK_IDENT && (t->kw == TSDL_KW_NONE || is_ctype_kw(t->kw));
}

static bool ends_declarator(const struct tsdl_token *t)
{
	return t->kind == TSDL_TOK_PUNCT &&
	       (t->punct == TSDL_P_SEMI || t->punct == TSDL_P_LBRACKET ||
		t->punct == TSDL_P_COLON || t->punct == TSDL_P_COMMA);
}

/*
 * An alias name made of words (`uint32_t`, `unsigned long`, `const char`).
 * With want_declarator, a trailing identifier right before ; [ : , is the
 * declarator, not part of the type name.
 */
static int parse_alias_words(struct tsdl_parser *p, bool want_declarator, char *buf, size_t size,
			     unsigned *ret_n)
{
	size_t start = p->pos, end = p->pos, len = 0;

	while (is_name_word(&p->tok[end]))
		end++;
	if (want_declarator && end - start >= 2 && p->tok[end - 1].kw == TSDL_KW_NONE &&
	    ends_declarator(&p->tok[end]))
		end--;
	if (end == start)
		return tsdl_unexpected(p, "type");
	for (size_t i = start; i < end; i++) {
		const struct tsdl_token *t = &p->tok[i];

		if (len + t->len + 2 > size)
			return tsdl_error(p->err, t->line, "type name too long");
		if (i > start)
			buf[len++] = ' ';
		memcpy(buf + len, t->str, t->len);
		len += t->len;
		buf[len] = '\0';
	}
	*ret_n = (unsigned)(end - start);
	p->pos = end;
	return 0;
}

int tsdl_parse_type_spec(struct tsdl_parser *p, bool want_declarator, struct ctf_type **ret)
{
	const struct tsdl_token *t = tsdl_cur(p);
	char name[TSDL_MAX_IDENT_LEN * 2 + 8];
	unsigned n, line = t->line;
	int r;

	*ret = NULL;
	if (t->kind == TSDL_TOK_IDENT) {
		switch (t->kw) {
		case TSDL_KW_INTEGER:
			return tsdl_parse_integer(p, ret);
		case TSDL_KW_FLOATING_POINT:
			return tsdl_parse_float(p, ret);
		case TSDL_KW_STRING:
			return tsdl_parse_string(p, ret);
		case TSDL_KW_STRUCT:
			return parse_struct(p, ret);
		case TSDL_KW_VARIANT:
			return parse_variant(p, ret);
		case TSDL_KW_ENUM:
			return parse_enum(p, ret);
		default:
			break;
		}
	}
	r = parse_alias_words(p, want_declarator, name, sizeof(name), &n);
	if (r)
		return r;
	return lookup_copy(p, TSDL_DECL_ALIAS, name, line, ret);
}

/* ---- declarators ---- */

#define MAX_DIMS 32

struct dim {
	bool is_seq;
	uint64_t len;
	char *path;
};

/*
 * `name`, then `[N]` / `[path]` suffixes or `:bits`. Consumes base; on
 * success *ret_t is the declared type and *ret_name the identifier token.
 */
static int parse_declarator(struct tsdl_parser *p, struct ctf_type *base,
			    const struct tsdl_token **ret_name, struct ctf_type **ret_t)
{
	const struct tsdl_token *nt = tsdl_cur(p);
	struct dim dims[MAX_DIMS];
	size_t nd = 0;
	int ret = 0;

	if (nt->kind != TSDL_TOK_IDENT || nt->kw != TSDL_KW_NONE) {
		tsdl_type_destroy(base);
		return tsdl_unexpected(p, "field name");
	}
	p->pos++;
	while (tsdl_is_punct(p, TSDL_P_LBRACKET)) {
		const struct tsdl_token *t;

		p->pos++;
		t = tsdl_cur(p);
		if (nd == MAX_DIMS) {
			ret = tsdl_error(p->err, t->line, "too many array dimensions");
			goto fail;
		}
		if (t->kind == TSDL_TOK_INT) {
			dims[nd].is_seq = false;
			dims[nd].len = t->u;
			dims[nd].path = NULL;
			p->pos++;
		} else if (t->kind == TSDL_TOK_IDENT) {
			char path[TSDL_MAX_IDENT_LEN * 2 + 8];

			ret = tsdl_parse_dotted(p, path, sizeof(path));
			if (ret)
				goto fail;
			dims[nd].is_seq = true;
			dims[nd].path = strdup(path);
			if (!dims[nd].path) {
				ret = -ENOMEM;
				goto fail;
			}
		} else {
			ret = tsdl_unexpected(p, "array length or sequence length field");
			goto fail;
		}
		nd++;
		ret = tsdl_expect(p, TSDL_P_RBRACKET, "']'");
		if (ret)
			goto fail;
	}
	if (tsdl_is_punct(p, TSDL_P_COLON)) {
		/* GNU bit-field `type name:bits`: an unaligned integer of that size. */
		const struct tsdl_token *t;

		p->pos++;
		t = tsdl_cur(p);
		if (t->kind != TSDL_TOK_INT || t->u < 1 || t->u > 64) {
			ret = tsdl_error(p->err, t->line, "bit-field width must be in 1..64");
			goto fail;
		}
		if (base->kind != CTF_TYPE_INT || nd) {
			ret = tsdl_error(p->err, t->line, "bit-field of a non-integer type");
			goto fail;
		}
		base->integer.size = (uint32_t)t->u;
		base->align = 1;
		p->pos++;
	}
	/* `x[2][3]` is two arrays of three: wrap from the last dimension. */
	for (size_t i = nd; i-- > 0;) {
		struct ctf_type *a =
			tsdl_new_type(p, dims[i].is_seq ? CTF_TYPE_SEQUENCE : CTF_TYPE_ARRAY, &ret);

		if (!a)
			goto fail;
		a->align = base->align;
		if (dims[i].is_seq) {
			a->sequence.elem = base;
			a->sequence.length_name = dims[i].path;
			dims[i].path = NULL;
		} else {
			a->array.elem = base;
			a->array.length = dims[i].len;
		}
		base = a;
		nd = i;
		ret = check_type_depth(p, base, nt->line);
		if (ret)
			goto fail;
	}
	*ret_name = nt;
	*ret_t = base;
	return 0;
fail:
	for (size_t i = 0; i < nd; i++)
		free(dims[i].path);
	tsdl_type_destroy(base);
	return ret;
}

bool tsdl_starts_declaration(const struct tsdl_parser *p)
{
	const struct tsdl_token *t = tsdl_cur(p), *n = t + 1;

	if (t->kind != TSDL_TOK_IDENT)
		return false;
	switch (t->kw) {
	case TSDL_KW_TYPEALIAS:
	case TSDL_KW_TYPEDEF:
	case TSDL_KW_STRUCT:
	case TSDL_KW_VARIANT:
	case TSDL_KW_ENUM:
	case TSDL_KW_INTEGER:
	case TSDL_KW_FLOATING_POINT:
	case TSDL_KW_STRING:
		return true;
	default:
		break;
	}
	/* Attributes are `word =`, `word :=` or `word.word ...`. */
	return !(
		n->kind == TSDL_TOK_PUNCT &&
		(n->punct == TSDL_P_EQ || n->punct == TSDL_P_TYPEASSIGN || n->punct == TSDL_P_DOT));
}

static int parse_typealias(struct tsdl_parser *p)
{
	unsigned line = tsdl_cur(p)->line;
	char name[TSDL_MAX_IDENT_LEN * 2 + 8];
	struct ctf_type *t;
	unsigned n;
	int ret;

	p->pos++;
	ret = tsdl_parse_type_spec(p, false, &t);
	if (ret)
		return ret;
	if (tsdl_is_punct(p, TSDL_P_STAR) || tsdl_is_punct(p, TSDL_P_LBRACKET)) {
		tsdl_type_destroy(t);
		return tsdl_unsupported(p->err, tsdl_cur(p)->line,
					"declarators in typealias are not supported");
	}
	ret = tsdl_expect(p, TSDL_P_TYPEASSIGN, "':=' in typealias");
	if (!ret)
		ret = parse_alias_words(p, false, name, sizeof(name), &n);
	if (!ret && !tsdl_is_punct(p, TSDL_P_SEMI))
		ret = tsdl_unexpected(p, "';' after typealias");
	if (ret) {
		tsdl_type_destroy(t);
		return ret;
	}
	p->pos++;
	return scope_register(p, TSDL_DECL_ALIAS, name, t, line);
}

/* Whether the declarator at the cursor is the last of its list. */
static bool last_declarator(const struct tsdl_parser *p)
{
	for (size_t i = p->pos; i < p->n_tok; i++) {
		const struct tsdl_token *t = &p->tok[i];

		if (t->kind == TSDL_TOK_EOF)
			return true;
		if (t->kind == TSDL_TOK_PUNCT && t->punct == TSDL_P_COMMA)
			return false;
		if (t->kind == TSDL_TOK_PUNCT && t->punct == TSDL_P_SEMI)
			return true;
	}
	return true;
}

/*
 * Declarator list after a type specifier: each declarator gets its own
 * copy of base (the last one takes base itself). Consumes base.
 */
static int parse_declarators(struct tsdl_parser *p, struct ctf_type *base,
			     struct tsdl_field_vec *fields)
{
	int ret = 0;

	for (;;) {
		const struct tsdl_token *nt;
		struct ctf_type *one, *t;

		if (last_declarator(p)) {
			one = base;
			base = NULL;
		} else {
			one = copy_type(p, base, &ret);
			if (!one)
				break;
		}
		ret = parse_declarator(p, one, &nt, &t);
		if (ret)
			break;
		if (fields)
			ret = field_vec_add(p, fields, nt->str, t, nt->line);
		else
			ret = scope_register(p, TSDL_DECL_ALIAS, nt->str, t, nt->line);
		if (ret)
			break;
		if (base && tsdl_is_punct(p, TSDL_P_COMMA)) {
			p->pos++;
			continue;
		}
		ret = tsdl_expect(p, TSDL_P_SEMI, "';' after declaration");
		break;
	}
	tsdl_type_destroy(base);
	return ret;
}

static int parse_typedef(struct tsdl_parser *p)
{
	struct ctf_type *base;
	int ret;

	p->pos++;
	ret = tsdl_parse_type_spec(p, true, &base);
	if (ret)
		return ret;
	return parse_declarators(p, base, NULL);
}

int tsdl_parse_declaration(struct tsdl_parser *p, enum tsdl_decl_ctx ctx,
			   struct tsdl_field_vec *fields)
{
	struct ctf_type *base;
	int ret;

	if (is_kw(p, TSDL_KW_TYPEALIAS))
		return parse_typealias(p);
	if (is_kw(p, TSDL_KW_TYPEDEF))
		return parse_typedef(p);
	ret = tsdl_parse_type_spec(p, true, &base);
	if (ret)
		return ret;
	if (tsdl_is_punct(p, TSDL_P_SEMI)) {
		/* A type definition alone (`struct name { ... };`). */
		p->pos++;
		tsdl_type_destroy(base);
		return 0;
	}
	if (ctx == TSDL_CTX_ROOT) {
		tsdl_type_destroy(base);
		return tsdl_unexpected(p, "';' after type declaration");
	}
	return parse_declarators(p, base, fields);
}
