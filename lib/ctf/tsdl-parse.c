/* SPDX-License-Identifier: MIT */
/*
 * TSDL top level: splits the token stream into top-level statements, then
 * visits them in babeltrace2's order, whatever their order in the text:
 * the trace byte order first (so `native` resolves even in typealiases
 * that precede the trace block), then clocks, root declarations, trace,
 * env, streams and events. Callsite blocks are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/tsdl-internal.h"
#include "common/common.h"

enum stmt_kind {
	STMT_DECL,
	STMT_TRACE,
	STMT_ENV,
	STMT_CLOCK,
	STMT_STREAM,
	STMT_EVENT,
	STMT_CALLSITE,
};

struct stmt {
	uint8_t kind;
	size_t start; /* first token */
};

static int grow(void **arr, size_t *cap, size_t n, size_t elem, size_t max)
{
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	if (n >= max)
		return -E2BIG;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap > max)
		ncap = max;
	na = realloc(*arr, ncap * elem);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

static const struct tsdl_token *tok_at(const struct tsdl_parser *p, size_t i)
{
	return &p->tok[i < p->n_tok ? i : p->n_tok - 1];
}

static bool punct_at(const struct tsdl_parser *p, size_t i, enum tsdl_punct pu)
{
	const struct tsdl_token *t = tok_at(p, i);

	return t->kind == TSDL_TOK_PUNCT && t->punct == pu;
}

/* Index just past the statement starting at i (braces balanced). */
static int statement_end(struct tsdl_parser *p, size_t i, bool block, size_t *ret_end)
{
	unsigned line = tok_at(p, i)->line;
	size_t depth = 0;

	for (; i < p->n_tok; i++) {
		const struct tsdl_token *t = &p->tok[i];

		if (t->kind == TSDL_TOK_EOF)
			break;
		if (t->kind != TSDL_TOK_PUNCT)
			continue;
		if (t->punct == TSDL_P_LBRACE) {
			depth++;
		} else if (t->punct == TSDL_P_RBRACE) {
			if (!depth)
				return tsdl_error(p->err, t->line, "unexpected '}'");
			depth--;
			if (!depth && block) {
				i++;
				if (punct_at(p, i, TSDL_P_SEMI))
					i++;
				*ret_end = i;
				return 0;
			}
		} else if (t->punct == TSDL_P_SEMI && !depth && !block) {
			*ret_end = i + 1;
			return 0;
		}
	}
	return tsdl_error(p->err, line, "unexpected end of metadata in statement starting here");
}

static int split_statements(struct tsdl_parser *p, struct stmt **ret, size_t *ret_n)
{
	struct stmt *st = NULL;
	size_t n = 0, cap = 0, i = 0;
	int ret_code;

	while (tok_at(p, i)->kind != TSDL_TOK_EOF) {
		const struct tsdl_token *t = tok_at(p, i);
		uint8_t kind = STMT_DECL;
		size_t end = 0;

		if (t->kind == TSDL_TOK_PUNCT && t->punct == TSDL_P_SEMI) {
			i++; /* stray ';' */
			continue;
		}
		if (t->kind == TSDL_TOK_IDENT && punct_at(p, i + 1, TSDL_P_LBRACE)) {
			switch (t->kw) {
			case TSDL_KW_TRACE:
				kind = STMT_TRACE;
				break;
			case TSDL_KW_ENV:
				kind = STMT_ENV;
				break;
			case TSDL_KW_CLOCK:
				kind = STMT_CLOCK;
				break;
			case TSDL_KW_STREAM:
				kind = STMT_STREAM;
				break;
			case TSDL_KW_EVENT:
				kind = STMT_EVENT;
				break;
			case TSDL_KW_CALLSITE:
				kind = STMT_CALLSITE;
				break;
			default:
				break;
			}
		}
		ret_code = statement_end(p, i, kind != STMT_DECL, &end);
		if (!ret_code)
			ret_code = grow((void **)&st, &cap, n, sizeof(*st), SIZE_MAX / sizeof(*st));
		if (ret_code) {
			free(st);
			return ret_code;
		}
		st[n].kind = kind;
		st[n].start = i;
		n++;
		i = end;
	}
	*ret = st;
	*ret_n = n;
	return 0;
}

/* ---- blocks ---- */

/* Runs a `kw { entries }` block: declarations go to a block scope. */
typedef int (*attr_fn)(struct tsdl_parser *p, void *ctx, const char *name, bool type_assign,
		       unsigned line);

static int parse_block(struct tsdl_parser *p, void *ctx, attr_fn fn)
{
	int ret;

	p->pos += 2; /* keyword, '{' */
	ret = tsdl_scope_push(p);
	if (ret)
		return ret;
	while (!tsdl_is_punct(p, TSDL_P_RBRACE)) {
		char name[TSDL_MAX_IDENT_LEN * 2 + 8];
		unsigned line = tsdl_cur(p)->line;
		int assign;

		if (tsdl_cur(p)->kind == TSDL_TOK_EOF) {
			ret = tsdl_expect(p, TSDL_P_RBRACE, "'}'");
			break;
		}
		if (tsdl_is_punct(p, TSDL_P_SEMI)) {
			p->pos++;
			continue;
		}
		if (tsdl_starts_declaration(p)) {
			ret = tsdl_parse_declaration(p, TSDL_CTX_ROOT, NULL);
			if (ret)
				break;
			continue;
		}
		ret = tsdl_parse_dotted(p, name, sizeof(name));
		if (ret)
			break;
		if (tsdl_is_punct(p, TSDL_P_EQ)) {
			assign = 0;
		} else if (tsdl_is_punct(p, TSDL_P_TYPEASSIGN)) {
			assign = 1;
		} else {
			ret = tsdl_expect(p, TSDL_P_EQ, "'=' or ':='");
			break;
		}
		p->pos++;
		ret = fn(p, ctx, name, assign, line);
		if (ret)
			break;
		ret = tsdl_expect(p, TSDL_P_SEMI, "';'");
		if (ret)
			break;
	}
	tsdl_scope_pop(p);
	if (ret)
		return ret;
	p->pos++;
	if (tsdl_is_punct(p, TSDL_P_SEMI))
		p->pos++;
	return 0;
}

static int value_of(struct tsdl_parser *p, bool type_assign, const char *name, struct tsdl_val *v,
		    unsigned line)
{
	if (type_assign)
		return tsdl_error(p->err, line, "unexpected ':=' for `%.64s`", name);
	return tsdl_parse_value(p, v);
}

static int uint_of(struct tsdl_parser *p, const struct tsdl_val *v, const char *name, uint64_t *ret)
{
	if (v->kind != TSDL_VAL_UINT)
		return tsdl_error(p->err, v->line, "`%.64s` must be an unsigned integer", name);
	*ret = v->u;
	return 0;
}

static int sint_of(struct tsdl_parser *p, const struct tsdl_val *v, const char *name, int64_t *ret)
{
	if (v->kind == TSDL_VAL_SINT) {
		*ret = v->s;
		return 0;
	}
	if (v->kind == TSDL_VAL_UINT && v->u <= INT64_MAX) {
		*ret = (int64_t)v->u;
		return 0;
	}
	return tsdl_error(p->err, v->line, "`%.64s` must be a signed 64-bit integer", name);
}

static int str_of(struct tsdl_parser *p, const struct tsdl_val *v, const char *name, char **ret)
{
	char *s;

	if (v->kind != TSDL_VAL_STRING && v->kind != TSDL_VAL_IDENT)
		return tsdl_error(p->err, v->line, "`%.64s` must be a string", name);
	s = strdup(v->str);
	if (!s)
		return -ENOMEM;
	free(*ret);
	*ret = s;
	return 0;
}

static int uuid_of(struct tsdl_parser *p, const struct tsdl_val *v, uint8_t uuid[16])
{
	const char *s = v->str;
	unsigned k = 0;

	if (v->kind != TSDL_VAL_STRING || strlen(s) != 36)
		return tsdl_error(p->err, v->line, "invalid UUID");
	for (unsigned i = 0; i < 36; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return tsdl_error(p->err, v->line, "invalid UUID");
			continue;
		}
		hi = s[i];
		lo = s[i + 1];
		hi = hi >= '0' && hi <= '9'		      ? hi - '0' :
		     (hi | 0x20) >= 'a' && (hi | 0x20) <= 'f' ? (hi | 0x20) - 'a' + 10 :
								-1;
		lo = lo >= '0' && lo <= '9'		      ? lo - '0' :
		     (lo | 0x20) >= 'a' && (lo | 0x20) <= 'f' ? (lo | 0x20) - 'a' + 10 :
								-1;
		if (hi < 0 || lo < 0)
			return tsdl_error(p->err, v->line, "invalid UUID");
		uuid[k++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return 0;
}

/* `name := struct {...}` for a scope root; must be a struct. */
static int scope_type(struct tsdl_parser *p, bool type_assign, const char *name,
		      struct ctf_type **slot, unsigned line)
{
	struct ctf_type *t;
	int ret;

	if (!type_assign)
		return tsdl_error(p->err, line, "`%s` needs ':=' and a type", name);
	if (*slot)
		return tsdl_error(p->err, line, "duplicate `%s`", name);
	ret = tsdl_parse_type_spec(p, false, &t);
	if (ret)
		return ret;
	if (t->kind != CTF_TYPE_STRUCT) {
		tsdl_type_destroy(t);
		return tsdl_error(p->err, line, "`%s` must be a structure", name);
	}
	*slot = t;
	return 0;
}

/* Skips any unknown attribute's value (babeltrace2 warns and ignores). */
static int ignore_attr(struct tsdl_parser *p, bool type_assign)
{
	struct tsdl_val v;
	struct ctf_type *t;
	int ret;

	if (!type_assign)
		return tsdl_parse_value(p, &v);
	ret = tsdl_parse_type_spec(p, false, &t);
	tsdl_type_destroy(t);
	return ret;
}

struct trace_ctx {
	bool major, minor, bo, uuid;
};

static int trace_attr(struct tsdl_parser *p, void *vctx, const char *name, bool type_assign,
		      unsigned line)
{
	struct trace_ctx *c = vctx;
	struct ctf_trace_class *tc = p->tc;
	struct tsdl_val v;
	uint64_t u = 0;
	int ret;

	if (!strcmp(name, "packet.header"))
		return scope_type(p, type_assign, "packet.header", &tc->packet_header, line);
	if (strcmp(name, "major") && strcmp(name, "minor") && strcmp(name, "uuid") &&
	    strcmp(name, "byte_order"))
		return ignore_attr(p, type_assign);
	ret = value_of(p, type_assign, name, &v, line);
	if (ret)
		return ret;
	if (!strcmp(name, "major")) {
		if (c->major)
			return tsdl_error(p->err, line, "duplicate `major` attribute");
		ret = uint_of(p, &v, name, &u);
		tc->major = (uint32_t)MIN(u, UINT32_MAX);
		c->major = true;
	} else if (!strcmp(name, "minor")) {
		if (c->minor)
			return tsdl_error(p->err, line, "duplicate `minor` attribute");
		ret = uint_of(p, &v, name, &u);
		tc->minor = (uint32_t)MIN(u, UINT32_MAX);
		c->minor = true;
	} else if (!strcmp(name, "uuid")) {
		if (c->uuid)
			return tsdl_error(p->err, line, "duplicate `uuid` attribute");
		ret = uuid_of(p, &v, tc->uuid);
		tc->has_uuid = c->uuid = !ret;
	} else {
		if (c->bo)
			return tsdl_error(p->err, line, "duplicate `byte_order` attribute");
		c->bo = true;
		/* Already applied by the pre-pass (find_trace_byte_order()). */
		if (v.kind != TSDL_VAL_IDENT && v.kind != TSDL_VAL_STRING)
			ret = tsdl_error(p->err, line, "invalid trace `byte_order`");
	}
	return ret;
}

static int parse_trace(struct tsdl_parser *p)
{
	struct trace_ctx c = { 0 };
	unsigned line = tsdl_cur(p)->line;
	int ret = parse_block(p, &c, trace_attr);

	if (ret)
		return ret;
	if (!c.major || !c.minor)
		return tsdl_error(p->err, line, "missing `major` or `minor` in trace block");
	if (p->tc->major != 1 || p->tc->minor != 8)
		return tsdl_unsupported(p->err, line, "unsupported CTF version %u.%u (need 1.8)",
					p->tc->major, p->tc->minor);
	return 0;
}

static int env_attr(struct tsdl_parser *p, void *vctx, const char *name, bool type_assign,
		    unsigned line)
{
	struct ctf_trace_class *tc = p->tc;
	struct ctf_env_entry *e = NULL;
	struct tsdl_val v;
	int ret;

	(void)vctx;
	ret = value_of(p, type_assign, name, &v, line);
	if (ret)
		return ret;
	/* A repeated key replaces the earlier value (as babeltrace2's trace IR does). */
	for (size_t i = 0; i < tc->n_env; i++)
		if (!strcmp(tc->env[i].key, name))
			e = &tc->env[i];
	if (!e) {
		ret = grow((void **)&tc->env, &p->cap_env, tc->n_env, sizeof(*tc->env),
			   TSDL_MAX_ENV);
		if (ret == -E2BIG)
			return tsdl_error(p->err, line, "too many env entries");
		if (ret)
			return ret;
		e = &tc->env[tc->n_env];
		memset(e, 0, sizeof(*e));
		e->key = strdup(name);
		if (!e->key)
			return -ENOMEM;
		tc->n_env++;
	}
	free(e->sval);
	e->sval = NULL;
	if (v.kind == TSDL_VAL_UINT || v.kind == TSDL_VAL_SINT) {
		e->is_int = true;
		e->ival = v.kind == TSDL_VAL_UINT ? (int64_t)v.u : v.s;
		return 0;
	}
	e->is_int = false;
	e->sval = strdup(v.str);
	return e->sval ? 0 : -ENOMEM;
}

struct clock_ctx {
	struct ctf_clock_class *c;
	unsigned set;
};

static int clock_attr(struct tsdl_parser *p, void *vctx, const char *name, bool type_assign,
		      unsigned line)
{
	struct clock_ctx *cc = vctx;
	struct ctf_clock_class *c = cc->c;
	static const char *const names[] = { "name",	  "uuid",     "description", "freq",
					     "precision", "offset_s", "offset",	     "absolute" };
	unsigned bit = 0;
	struct tsdl_val v;
	uint64_t u = 0;
	int ret;

	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			bit = 1u << i;
	if (!bit)
		return ignore_attr(p, type_assign);
	if (cc->set & bit)
		return tsdl_error(p->err, line, "duplicate `%s` attribute in clock", name);
	cc->set |= bit;
	ret = value_of(p, type_assign, name, &v, line);
	if (ret)
		return ret;
	switch (bit) {
	case 1 << 0:
		return str_of(p, &v, name, &c->name);
	case 1 << 1:
		ret = uuid_of(p, &v, c->uuid);
		c->has_uuid = !ret;
		return ret;
	case 1 << 2:
		return str_of(p, &v, name, &c->description);
	case 1 << 3:
		ret = uint_of(p, &v, name, &u);
		if (!ret && !u)
			ret = tsdl_error(p->err, line, "clock `freq` must not be zero");
		c->freq = u;
		return ret;
	case 1 << 4:
		return uint_of(p, &v, name, &c->precision);
	case 1 << 5:
		return sint_of(p, &v, name, &c->offset_s);
	case 1 << 6:
		/* babeltrace2 (and 1.5) reject a negative `offset`. */
		if (v.kind == TSDL_VAL_SINT)
			return tsdl_error(p->err, line, "negative clock `offset` (%lld)",
					  (long long)v.s);
		return uint_of(p, &v, name, &c->offset_cycles);
	default:
		return tsdl_val_bool(p, &v, name, &c->absolute);
	}
}

static int parse_clock(struct tsdl_parser *p)
{
	struct ctf_trace_class *tc = p->tc;
	unsigned line = tsdl_cur(p)->line;
	struct ctf_clock_class c = { .freq = 1000000000 };
	struct clock_ctx cc = { .c = &c };
	uint64_t secs;
	int ret;

	ret = parse_block(p, &cc, clock_attr);
	if (!ret && !c.name)
		ret = tsdl_error(p->err, line, "missing `name` attribute in clock");
	/*
	 * A name declared again is kept, as babeltrace2 2.0.4 keeps it: a
	 * `clock.NAME.value` mapping takes the first clock of that name, and
	 * the later ones still count as clocks of the trace. babeltrace2's
	 * own CTF writer (sink.ctf.fs) declares a trace's clock again before
	 * each stream class.
	 */
	if (!ret) {
		/* babeltrace2: move whole seconds out of `offset`, 0 <= offset < freq. */
		secs = c.offset_cycles / c.freq;
		if (secs > INT64_MAX ||
		    (c.offset_s > 0 && (int64_t)secs > INT64_MAX - c.offset_s)) {
			ret = tsdl_error(p->err, line, "clock offset out of range");
		} else {
			c.offset_s += (int64_t)secs;
			c.offset_cycles -= secs * c.freq;
		}
	}
	if (!ret) {
		ret = grow((void **)&tc->clocks, &p->cap_clocks, tc->n_clocks, sizeof(c),
			   TSDL_MAX_CLOCKS);
		if (ret == -E2BIG)
			ret = tsdl_error(p->err, line, "too many clocks");
	}
	if (ret) {
		free(c.name);
		free(c.description);
		return ret;
	}
	tc->clocks[tc->n_clocks++] = c;
	return 0;
}

struct stream_ctx {
	struct ctf_stream_class *sc;
	bool has_id;
};

static int stream_attr(struct tsdl_parser *p, void *vctx, const char *name, bool type_assign,
		       unsigned line)
{
	struct stream_ctx *c = vctx;
	struct tsdl_val v;
	int ret;

	if (!strcmp(name, "packet.context"))
		return scope_type(p, type_assign, name, &c->sc->packet_context, line);
	if (!strcmp(name, "event.header"))
		return scope_type(p, type_assign, name, &c->sc->event_header, line);
	if (!strcmp(name, "event.context"))
		return scope_type(p, type_assign, name, &c->sc->event_context, line);
	if (strcmp(name, "id"))
		return ignore_attr(p, type_assign);
	if (c->has_id)
		return tsdl_error(p->err, line, "duplicate `id` attribute in stream");
	ret = value_of(p, type_assign, name, &v, line);
	if (!ret)
		ret = uint_of(p, &v, name, &c->sc->id);
	c->has_id = true;
	return ret;
}

static const struct ctf_field *struct_member(const struct ctf_type *st, const char *name)
{
	if (!st || st->kind != CTF_TYPE_STRUCT)
		return NULL;
	for (size_t i = 0; i < st->structure.n_fields; i++)
		if (!strcmp(st->structure.fields[i].name, name))
			return &st->structure.fields[i];
	return NULL;
}

static int parse_stream(struct tsdl_parser *p)
{
	struct ctf_trace_class *tc = p->tc;
	unsigned line = tsdl_cur(p)->line;
	struct stream_ctx c = { 0 };
	int ret;

	c.sc = calloc(1, sizeof(*c.sc));
	if (!c.sc)
		return -ENOMEM;
	c.sc->default_clock = -1;
	ret = parse_block(p, &c, stream_attr);
	if (ret)
		goto fail;
	if (c.has_id) {
		/* As babeltrace2: an explicit id needs trace.packet.header.stream_id. */
		const struct ctf_field *f = struct_member(tc->packet_header, "stream_id");

		if (!f || (f->type->kind != CTF_TYPE_INT && f->type->kind != CTF_TYPE_ENUM)) {
			ret = tsdl_error(p->err, line,
					 "stream has an `id` but the trace packet header has no "
					 "integer `stream_id` field");
			goto fail;
		}
	} else if (tc->n_streams) {
		ret = tsdl_error(p->err, line,
				 "missing `id` attribute in stream (more than one stream)");
		goto fail;
	}
	for (size_t i = 0; i < tc->n_streams; i++) {
		if (tc->streams[i]->id == c.sc->id) {
			ret = tsdl_error(p->err, line, "duplicate stream id %llu",
					 (unsigned long long)c.sc->id);
			goto fail;
		}
	}
	ret = grow((void **)&tc->streams, &p->cap_streams, tc->n_streams, sizeof(*tc->streams),
		   TSDL_MAX_STREAMS);
	if (ret == -E2BIG)
		ret = tsdl_error(p->err, line, "too many streams");
	if (ret)
		goto fail;
	tc->streams[tc->n_streams++] = c.sc;
	return 0;
fail:
	tsdl_stream_class_destroy(c.sc);
	return ret;
}

struct event_ctx {
	struct ctf_event_class *ec;
	unsigned set;
};

static int event_attr(struct tsdl_parser *p, void *vctx, const char *name, bool type_assign,
		      unsigned line)
{
	struct event_ctx *c = vctx;
	struct ctf_event_class *ec = c->ec;
	static const char *const names[] = { "name", "id", "stream_id", "loglevel",
					     "model.emf.uri" };
	unsigned bit = 0;
	struct tsdl_val v;
	int ret;

	if (!strcmp(name, "context"))
		return scope_type(p, type_assign, name, &ec->context, line);
	if (!strcmp(name, "fields"))
		return scope_type(p, type_assign, name, &ec->payload, line);
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			bit = 1u << i;
	if (!bit)
		return ignore_attr(p, type_assign);
	if (c->set & bit)
		return tsdl_error(p->err, line, "duplicate `%s` attribute in event", name);
	c->set |= bit;
	ret = value_of(p, type_assign, name, &v, line);
	if (ret)
		return ret;
	switch (bit) {
	case 1 << 0:
		return str_of(p, &v, name, &ec->name);
	case 1 << 1:
		return uint_of(p, &v, name, &ec->id);
	case 1 << 2:
		return uint_of(p, &v, name, &ec->stream_class_id);
	case 1 << 3:
		ec->has_loglevel = true;
		return sint_of(p, &v, name, &ec->loglevel);
	default:
		return str_of(p, &v, name, &ec->emf_uri);
	}
}

static int cmp_stream(const void *a, const void *b)
{
	const struct ctf_stream_class *const *x = a, *const *y = b;

	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

static int parse_event(struct tsdl_parser *p)
{
	struct ctf_trace_class *tc = p->tc;
	unsigned line = tsdl_cur(p)->line;
	struct event_ctx c = { 0 };
	size_t si;
	int ret;

	c.ec = calloc(1, sizeof(*c.ec));
	if (!c.ec)
		return -ENOMEM;
	ret = parse_block(p, &c, event_attr);
	if (ret)
		goto fail;
	if (!(c.set & (1 << 2))) {
		/* stream_id may be omitted with zero or one stream class. */
		if (tc->n_streams > 1) {
			ret = tsdl_error(p->err, line, "missing `stream_id` attribute in event");
			goto fail;
		}
		if (!tc->n_streams) {
			/* An implicit stream class 0, as babeltrace2 creates. */
			struct ctf_stream_class *nsc = calloc(1, sizeof(*nsc));

			if (!nsc) {
				ret = -ENOMEM;
				goto fail;
			}
			nsc->default_clock = -1;
			ret = grow((void **)&tc->streams, &p->cap_streams, 0, sizeof(*tc->streams),
				   TSDL_MAX_STREAMS);
			if (!ret) {
				size_t *cnt = calloc(1, sizeof(*cnt));

				if (!cnt)
					ret = -ENOMEM;
				free(p->stream_n_events);
				p->stream_n_events = cnt;
			}
			if (ret) {
				free(nsc);
				goto fail;
			}
			tc->streams[tc->n_streams++] = nsc;
		}
		c.ec->stream_class_id = tc->streams[0]->id;
	}
	/* Streams are sorted by id by now: binary search for the index. */
	{
		size_t lo = 0, hi = tc->n_streams;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (tc->streams[mid]->id < c.ec->stream_class_id)
				lo = mid + 1;
			else
				hi = mid;
		}
		si = lo;
	}
	if (si == tc->n_streams || tc->streams[si]->id != c.ec->stream_class_id) {
		ret = tsdl_error(p->err, line, "event refers to unknown stream %llu",
				 (unsigned long long)c.ec->stream_class_id);
		goto fail;
	}
	if (!(c.set & (1 << 1)) && p->stream_n_events[si]) {
		ret = tsdl_error(p->err, line, "missing `id` attribute in event");
		goto fail;
	}
	ret = grow((void **)&p->events, &p->cap_events, p->n_events, sizeof(*p->events),
		   TSDL_MAX_EVENTS);
	if (ret == -E2BIG)
		ret = tsdl_error(p->err, line, "too many events");
	if (ret)
		goto fail;
	p->stream_n_events[si]++;
	p->events[p->n_events++] = c.ec;
	return 0;
fail:
	tsdl_event_class_destroy(c.ec);
	return ret;
}

static int cmp_event(const void *a, const void *b)
{
	const struct ctf_event_class *const *x = a, *const *y = b;

	if ((*x)->stream_class_id != (*y)->stream_class_id)
		return (*x)->stream_class_id < (*y)->stream_class_id ? -1 : 1;
	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

/* Hands the parsed events to their stream classes, sorted by id. */
static int distribute_events(struct tsdl_parser *p)
{
	struct ctf_trace_class *tc = p->tc;
	size_t i = 0;

	if (p->n_events)
		qsort(p->events, p->n_events, sizeof(*p->events), cmp_event);
	for (size_t k = 1; k < p->n_events; k++) {
		if (p->events[k]->stream_class_id == p->events[k - 1]->stream_class_id &&
		    p->events[k]->id == p->events[k - 1]->id)
			return tsdl_error(p->err, 0, "duplicate event id %llu in stream %llu",
					  (unsigned long long)p->events[k]->id,
					  (unsigned long long)p->events[k]->stream_class_id);
	}
	for (size_t s = 0; s < tc->n_streams; s++) {
		struct ctf_stream_class *sc = tc->streams[s];
		size_t n = 0;

		while (i + n < p->n_events && p->events[i + n]->stream_class_id == sc->id)
			n++;
		if (n) {
			sc->events = malloc(n * sizeof(*sc->events));
			if (!sc->events)
				return -ENOMEM;
			memcpy(sc->events, p->events + i, n * sizeof(*sc->events));
			/* The stream owns them now. */
			for (size_t k = 0; k < n; k++)
				p->events[i + k] = NULL;
			sc->n_events = n;
		}
		i += n;
	}
	return 0;
}

/* The trace block's byte_order, needed before any type is built. */
static int find_trace_byte_order(struct tsdl_parser *p, const struct stmt *st, size_t n)
{
	bool found = false;

	for (size_t k = 0; k < n; k++) {
		size_t depth = 0;

		if (st[k].kind != STMT_TRACE)
			continue;
		if (found)
			return tsdl_error(p->err, tok_at(p, st[k].start)->line,
					  "duplicate trace block");
		for (size_t i = st[k].start + 1; i < p->n_tok; i++) {
			const struct tsdl_token *t = &p->tok[i];

			if (t->kind == TSDL_TOK_PUNCT && t->punct == TSDL_P_LBRACE)
				depth++;
			if (t->kind == TSDL_TOK_PUNCT && t->punct == TSDL_P_RBRACE && !--depth)
				break;
			if (depth != 1 || t->kind != TSDL_TOK_IDENT ||
			    strcmp(t->str, "byte_order") || !punct_at(p, i + 1, TSDL_P_EQ) ||
			    (i > 0 && punct_at(p, i - 1, TSDL_P_DOT)))
				continue;
			t = tok_at(p, i + 2);
			if ((t->kind == TSDL_TOK_IDENT || t->kind == TSDL_TOK_STRING) &&
			    (!strcmp(t->str, "le") || !strcmp(t->str, "little"))) {
				p->native_bo = CTF_BO_LE;
			} else if ((t->kind == TSDL_TOK_IDENT || t->kind == TSDL_TOK_STRING) &&
				   (!strcmp(t->str, "be") || !strcmp(t->str, "big") ||
				    !strcmp(t->str, "network"))) {
				p->native_bo = CTF_BO_BE;
			} else {
				return tsdl_error(p->err, t->line,
						  "invalid trace `byte_order` (need be or le)");
			}
			found = true;
			break;
		}
		if (!found)
			return tsdl_error(p->err, tok_at(p, st[k].start)->line,
					  "missing `byte_order` attribute in trace block");
	}
	if (!found)
		return tsdl_error(p->err, 0, "missing trace block");
	p->tc->bo = p->native_bo;
	return 0;
}

int tsdl_parse_tokens(const struct tsdl_lexer *lx, struct ctf_trace_class **ret_tc,
		      struct ctf_parse_error *err)
{
	static const uint8_t order[] = { STMT_CLOCK, STMT_DECL,	  STMT_TRACE,
					 STMT_ENV,   STMT_STREAM, STMT_EVENT };
	struct tsdl_parser p = { 0 };
	struct stmt *st = NULL;
	size_t n_st = 0;
	int ret;

	p.tok = lx->tok;
	p.n_tok = lx->n_tok;
	p.err = err;
	p.budget.nodes_left =
		MIN((size_t)TSDL_MAX_NODES, MAX((size_t)TSDL_MAX_NODES_MIN, lx->n_tok * 2));
	p.tc = calloc(1, sizeof(*p.tc));
	if (!p.tc)
		return -ENOMEM;
	ret = tsdl_scope_push(&p);
	if (!ret)
		ret = split_statements(&p, &st, &n_st);
	if (!ret)
		ret = find_trace_byte_order(&p, st, n_st);
	for (size_t o = 0; !ret && o < ARRAY_SIZE(order); o++) {
		if (order[o] == STMT_EVENT && p.tc->n_streams) {
			/* Streams are complete: sort them for lookups by id. */
			qsort(p.tc->streams, p.tc->n_streams, sizeof(*p.tc->streams), cmp_stream);
			p.stream_n_events = calloc(p.tc->n_streams, sizeof(size_t));
			if (!p.stream_n_events) {
				ret = -ENOMEM;
				break;
			}
		}
		for (size_t k = 0; !ret && k < n_st; k++) {
			if (st[k].kind != order[o])
				continue;
			p.pos = st[k].start;
			p.depth = 0;
			switch (order[o]) {
			case STMT_CLOCK:
				ret = parse_clock(&p);
				break;
			case STMT_DECL:
				ret = tsdl_parse_declaration(&p, TSDL_CTX_ROOT, NULL);
				break;
			case STMT_TRACE:
				ret = parse_trace(&p);
				break;
			case STMT_ENV:
				ret = parse_block(&p, NULL, env_attr);
				break;
			case STMT_STREAM:
				ret = parse_stream(&p);
				break;
			case STMT_EVENT:
				ret = parse_event(&p);
				break;
			default:
				break;
			}
		}
	}
	if (!ret)
		ret = distribute_events(&p);

	for (size_t i = 0; i < p.n_events; i++)
		tsdl_event_class_destroy(p.events[i]);
	free(p.events);
	free(p.stream_n_events);
	free(st);
	tsdl_scope_free_all(&p);
	if (ret) {
		ctf_trace_class_destroy(p.tc);
		return ret;
	}
	*ret_tc = p.tc;
	return 0;
}
