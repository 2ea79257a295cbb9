/* SPDX-License-Identifier: MIT */
/*
 * TSDL scalar types: `integer { ... }`, `floating_point { ... }` and
 * `string [{ ... }]`, with every attribute spelling babeltrace2 accepts.
 * Unknown attributes are ignored (babeltrace2 warns); duplicates are errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/tsdl-internal.h"
#include "common/common.h"

static bool val_is_text(const struct tsdl_val *v)
{
	return v->kind == TSDL_VAL_STRING || v->kind == TSDL_VAL_IDENT;
}

static int byte_order_of(struct tsdl_parser *p, const struct tsdl_val *v, enum ctf_byte_order *ret)
{
	if (val_is_text(v)) {
		const char *s = v->str;

		if (!strcmp(s, "le") || !strcmp(s, "little")) {
			*ret = CTF_BO_LE;
			return 0;
		}
		if (!strcmp(s, "be") || !strcmp(s, "big") || !strcmp(s, "network")) {
			*ret = CTF_BO_BE;
			return 0;
		}
		if (!strcmp(s, "native")) {
			*ret = p->native_bo;
			return 0;
		}
	}
	return tsdl_error(p->err, v->line, "invalid `byte_order` attribute");
}

static int encoding_of(struct tsdl_parser *p, const struct tsdl_val *v, enum ctf_encoding *ret)
{
	if (val_is_text(v)) {
		const char *s = v->str;

		if (!strcmp(s, "UTF8") || !strcmp(s, "utf8") || !strcmp(s, "UTF-8") ||
		    !strcmp(s, "utf-8")) {
			*ret = CTF_ENC_UTF8;
			return 0;
		}
		if (!strcmp(s, "ASCII") || !strcmp(s, "ascii")) {
			*ret = CTF_ENC_ASCII;
			return 0;
		}
		if (!strcmp(s, "none")) {
			*ret = CTF_ENC_NONE;
			return 0;
		}
	}
	return tsdl_error(p->err, v->line, "invalid `encoding` attribute");
}

static int base_of(struct tsdl_parser *p, const struct tsdl_val *v, uint32_t *ret)
{
	static const struct {
		const char *name;
		uint32_t base;
	} names[] = {
		{ "decimal", 10 },     { "dec", 10 }, { "d", 10 }, { "i", 10 },	    { "u", 10 },
		{ "hexadecimal", 16 }, { "hex", 16 }, { "x", 16 }, { "X", 16 },	    { "p", 16 },
		{ "octal", 8 },	       { "oct", 8 },  { "o", 8 },  { "binary", 2 }, { "b", 2 },
	};

	if (v->kind == TSDL_VAL_UINT) {
		if (v->u == 2 || v->u == 8 || v->u == 10 || v->u == 16) {
			*ret = (uint32_t)v->u;
			return 0;
		}
	} else if (val_is_text(v)) {
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			if (!strcmp(names[i].name, v->str)) {
				*ret = names[i].base;
				return 0;
			}
		}
	}
	return tsdl_error(p->err, v->line, "invalid `base` attribute");
}

/*
 * One `name = value` attribute of an integer, floating_point or string
 * block (`what`), up to the value; a `:=` there is an error.
 */
static int parse_attr(struct tsdl_parser *p, const char *what, char *buf, size_t size,
		      struct tsdl_val *v)
{
	unsigned line = tsdl_cur(p)->line;
	int ret = tsdl_parse_dotted(p, buf, size);

	if (ret)
		return ret;
	if (tsdl_is_punct(p, TSDL_P_TYPEASSIGN))
		return tsdl_error(p->err, line, "unexpected ':=' in %s", what);
	if (!tsdl_is_punct(p, TSDL_P_EQ))
		return tsdl_unexpected(p, "'=' or ':='");
	p->pos++;
	return tsdl_parse_value(p, v);
}

/* ---- scalar types ---- */

enum {
	SET_SIZE = 1 << 0,
	SET_ALIGN = 1 << 1,
	SET_SIGNED = 1 << 2,
	SET_BO = 1 << 3,
	SET_BASE = 1 << 4,
	SET_ENC = 1 << 5,
	SET_MAP = 1 << 6,
	SET_EXP = 1 << 7,
	SET_MANT = 1 << 8,
};

static int dup_attr(struct tsdl_parser *p, unsigned *set, unsigned bit, const char *name,
		    unsigned line)
{
	if (*set & bit)
		return tsdl_error(p->err, line, "duplicate `%s` attribute", name);
	*set |= bit;
	return 0;
}

static int need_uint(struct tsdl_parser *p, const struct tsdl_val *v, const char *name)
{
	if (v->kind != TSDL_VAL_UINT)
		return tsdl_error(p->err, v->line, "`%s` attribute must be an unsigned integer",
				  name);
	return 0;
}

/* map = clock.NAME.value: only clocks declared earlier (clocks are parsed first). */
static int clock_of_map(struct tsdl_parser *p, const struct tsdl_val *v, int32_t *ret)
{
	const char *s = v->str;
	size_t n;

	if (v->kind != TSDL_VAL_IDENT || strncmp(s, "clock.", 6) != 0)
		return tsdl_error(p->err, v->line, "invalid `map` attribute");
	s += 6;
	n = strlen(s);
	if (n <= 6 || strcmp(s + n - 6, ".value") != 0)
		return tsdl_error(p->err, v->line, "invalid `map` attribute");
	n -= 6;
	for (size_t i = 0; i < p->tc->n_clocks; i++) {
		const char *name = p->tc->clocks[i].name;

		if (strlen(name) == n && memcmp(name, s, n) == 0) {
			*ret = (int32_t)i;
			return 0;
		}
	}
	return tsdl_error(p->err, v->line, "`map` attribute: unknown clock '%.*s'", (int)MIN(n, 64),
			  s);
}

int tsdl_parse_integer(struct tsdl_parser *p, struct ctf_type **ret_t)
{
	unsigned set = 0, line = tsdl_cur(p)->line;
	struct ctf_type *t;
	int ret;

	p->pos++; /* integer */
	ret = tsdl_expect(p, TSDL_P_LBRACE, "'{' after 'integer'");
	if (ret)
		return ret;
	t = tsdl_new_type(p, CTF_TYPE_INT, &ret);
	if (!t)
		return ret;
	t->integer.bo = p->native_bo;
	t->integer.base = 10;
	while (!tsdl_is_punct(p, TSDL_P_RBRACE)) {
		char name[TSDL_MAX_IDENT_LEN + 8];
		struct tsdl_val v;
		unsigned aline = tsdl_cur(p)->line;

		ret = parse_attr(p, "integer", name, sizeof(name), &v);
		if (ret)
			goto fail;
		if (!strcmp(name, "size")) {
			ret = dup_attr(p, &set, SET_SIZE, name, aline);
			if (!ret)
				ret = need_uint(p, &v, name);
			if (!ret && (v.u < 1 || v.u > 64))
				ret = tsdl_unsupported(p->err, aline,
						       "integer size %llu not in 1..64",
						       (unsigned long long)v.u);
			t->integer.size = (uint32_t)v.u;
		} else if (!strcmp(name, "align")) {
			ret = dup_attr(p, &set, SET_ALIGN, name, aline);
			if (!ret)
				ret = need_uint(p, &v, name);
			if (!ret && (!tsdl_is_pow2(v.u) || v.u > (1u << 30)))
				ret = tsdl_error(p->err, aline,
						 "`align` must be a power of two, got %llu",
						 (unsigned long long)v.u);
			t->align = (uint32_t)v.u;
		} else if (!strcmp(name, "signed")) {
			bool b = false;

			ret = dup_attr(p, &set, SET_SIGNED, name, aline);
			if (!ret)
				ret = tsdl_val_bool(p, &v, name, &b);
			t->integer.is_signed = b;
		} else if (!strcmp(name, "byte_order")) {
			ret = dup_attr(p, &set, SET_BO, name, aline);
			if (!ret)
				ret = byte_order_of(p, &v, &t->integer.bo);
		} else if (!strcmp(name, "base")) {
			ret = dup_attr(p, &set, SET_BASE, name, aline);
			if (!ret)
				ret = base_of(p, &v, &t->integer.base);
		} else if (!strcmp(name, "encoding")) {
			ret = dup_attr(p, &set, SET_ENC, name, aline);
			if (!ret)
				ret = encoding_of(p, &v, &t->integer.encoding);
		} else if (!strcmp(name, "map")) {
			ret = dup_attr(p, &set, SET_MAP, name, aline);
			if (!ret)
				ret = clock_of_map(p, &v, &t->integer.clock);
		}
		/* Unknown attributes are ignored, as babeltrace2 does (with a warning). */
		if (ret)
			goto fail;
		ret = tsdl_expect(p, TSDL_P_SEMI, "';'");
		if (ret)
			goto fail;
	}
	p->pos++;
	if (!(set & SET_SIZE)) {
		ret = tsdl_error(p->err, line, "missing `size` attribute in integer");
		goto fail;
	}
	if (!(set & SET_ALIGN))
		t->align = t->integer.size % 8 ? 1 : 8;
	*ret_t = t;
	return 0;
fail:
	tsdl_type_destroy(t);
	return ret;
}

int tsdl_parse_float(struct tsdl_parser *p, struct ctf_type **ret_t)
{
	unsigned set = 0, line = tsdl_cur(p)->line;
	struct ctf_type *t;
	int ret;

	p->pos++;
	ret = tsdl_expect(p, TSDL_P_LBRACE, "'{' after 'floating_point'");
	if (ret)
		return ret;
	t = tsdl_new_type(p, CTF_TYPE_FLOAT, &ret);
	if (!t)
		return ret;
	t->flt.bo = p->native_bo;
	while (!tsdl_is_punct(p, TSDL_P_RBRACE)) {
		char name[TSDL_MAX_IDENT_LEN + 8];
		struct tsdl_val v;
		unsigned aline = tsdl_cur(p)->line;

		ret = parse_attr(p, "floating_point", name, sizeof(name), &v);
		if (ret)
			goto fail;
		if (!strcmp(name, "exp_dig")) {
			ret = dup_attr(p, &set, SET_EXP, name, aline);
			if (!ret)
				ret = need_uint(p, &v, name);
			t->flt.exp_dig = (uint32_t)MIN(v.u, 1024);
		} else if (!strcmp(name, "mant_dig")) {
			ret = dup_attr(p, &set, SET_MANT, name, aline);
			if (!ret)
				ret = need_uint(p, &v, name);
			t->flt.mant_dig = (uint32_t)MIN(v.u, 1024);
		} else if (!strcmp(name, "byte_order")) {
			ret = dup_attr(p, &set, SET_BO, name, aline);
			if (!ret)
				ret = byte_order_of(p, &v, &t->flt.bo);
		} else if (!strcmp(name, "align")) {
			ret = dup_attr(p, &set, SET_ALIGN, name, aline);
			if (!ret)
				ret = need_uint(p, &v, name);
			if (!ret && (!tsdl_is_pow2(v.u) || v.u > (1u << 30)))
				ret = tsdl_error(p->err, aline,
						 "`align` must be a power of two, got %llu",
						 (unsigned long long)v.u);
			t->align = (uint32_t)v.u;
		}
		if (ret)
			goto fail;
		ret = tsdl_expect(p, TSDL_P_SEMI, "';'");
		if (ret)
			goto fail;
	}
	p->pos++;
	if (!(set & SET_EXP) || !(set & SET_MANT)) {
		ret = tsdl_error(p->err, line, "missing `exp_dig` or `mant_dig` in floating_point");
		goto fail;
	}
	if (!((t->flt.exp_dig == 8 && t->flt.mant_dig == 24) ||
	      (t->flt.exp_dig == 11 && t->flt.mant_dig == 53))) {
		ret = tsdl_unsupported(p->err, line,
				       "floating_point with exp_dig %u, mant_dig %u (only 8/24 "
				       "and 11/53 are supported)",
				       t->flt.exp_dig, t->flt.mant_dig);
		goto fail;
	}
	if (!(set & SET_ALIGN))
		t->align = 8;
	*ret_t = t;
	return 0;
fail:
	tsdl_type_destroy(t);
	return ret;
}

int tsdl_parse_string(struct tsdl_parser *p, struct ctf_type **ret_t)
{
	unsigned set = 0;
	struct ctf_type *t;
	int ret = 0;

	p->pos++;
	t = tsdl_new_type(p, CTF_TYPE_STRING, &ret);
	if (!t)
		return ret;
	t->string.encoding = CTF_ENC_UTF8;
	if (tsdl_is_punct(p, TSDL_P_LBRACE)) {
		p->pos++;
		while (!tsdl_is_punct(p, TSDL_P_RBRACE)) {
			char name[TSDL_MAX_IDENT_LEN + 8];
			struct tsdl_val v;
			unsigned aline = tsdl_cur(p)->line;

			ret = parse_attr(p, "string", name, sizeof(name), &v);
			if (ret)
				goto fail;
			if (!strcmp(name, "encoding")) {
				ret = dup_attr(p, &set, SET_ENC, name, aline);
				if (!ret)
					ret = encoding_of(p, &v, &t->string.encoding);
			}
			if (ret)
				goto fail;
			ret = tsdl_expect(p, TSDL_P_SEMI, "';'");
			if (ret)
				goto fail;
		}
		p->pos++;
	}
	*ret_t = t;
	return 0;
fail:
	tsdl_type_destroy(t);
	return ret;
}
