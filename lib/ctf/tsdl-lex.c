/* SPDX-License-Identifier: MIT */
/*
 * TSDL lexer: the whole text becomes one token array up front, so the
 * parser can look ahead freely and report lines. Identifiers and decoded
 * string literals go into one arena no larger than the text itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/tsdl-internal.h"
#include "common/common.h"

static const struct {
	const char *name;
	enum tsdl_kw kw;
} keywords[] = {
	{ "align", TSDL_KW_ALIGN },
	{ "callsite", TSDL_KW_CALLSITE },
	{ "const", TSDL_KW_CONST },
	{ "char", TSDL_KW_CHAR },
	{ "clock", TSDL_KW_CLOCK },
	{ "double", TSDL_KW_DOUBLE },
	{ "enum", TSDL_KW_ENUM },
	{ "env", TSDL_KW_ENV },
	{ "event", TSDL_KW_EVENT },
	{ "floating_point", TSDL_KW_FLOATING_POINT },
	{ "float", TSDL_KW_FLOAT },
	{ "integer", TSDL_KW_INTEGER },
	{ "int", TSDL_KW_INT },
	{ "long", TSDL_KW_LONG },
	{ "short", TSDL_KW_SHORT },
	{ "signed", TSDL_KW_SIGNED },
	{ "stream", TSDL_KW_STREAM },
	{ "string", TSDL_KW_STRING },
	{ "struct", TSDL_KW_STRUCT },
	{ "trace", TSDL_KW_TRACE },
	{ "typealias", TSDL_KW_TYPEALIAS },
	{ "typedef", TSDL_KW_TYPEDEF },
	{ "unsigned", TSDL_KW_UNSIGNED },
	{ "variant", TSDL_KW_VARIANT },
	{ "void", TSDL_KW_VOID },
	{ "_Bool", TSDL_KW_BOOL },
	{ "_Complex", TSDL_KW_COMPLEX },
	{ "_Imaginary", TSDL_KW_IMAGINARY },
};

int tsdl_error(struct ctf_parse_error *err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -STRATA_EMETADATA;
}

int tsdl_unsupported(struct ctf_parse_error *err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -STRATA_EUNSUPPORTED;
}

static bool is_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(unsigned char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static enum tsdl_kw keyword_of(const char *s, size_t n)
{
	/* Keywords are 3..14 characters and start with a letter in [_a-v]. */
	if (n < 3 || n > 14 || !((s[0] >= 'a' && s[0] <= 'v') || s[0] == '_'))
		return TSDL_KW_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
		if (keywords[i].name[0] == s[0] && strlen(keywords[i].name) == n &&
		    memcmp(keywords[i].name, s, n) == 0)
			return keywords[i].kw;
	return TSDL_KW_NONE;
}

static struct tsdl_token *push(struct tsdl_lexer *lx, unsigned line)
{
	struct tsdl_token *t;

	if (lx->n_tok == lx->cap_tok) {
		size_t cap = lx->cap_tok ? lx->cap_tok * 2 : lx->cap_hint;
		struct tsdl_token *n = realloc(lx->tok, cap * sizeof(*n));

		if (!n)
			return NULL;
		lx->tok = n;
		lx->cap_tok = cap;
	}
	t = &lx->tok[lx->n_tok++];
	memset(t, 0, sizeof(*t));
	t->line = line;
	return t;
}

/* Integer literal at s[*i]: decimal, octal (0...), hex (0x...), C suffixes. */
static int lex_number(const char *s, size_t len, size_t *i, uint64_t *ret, unsigned line,
		      struct ctf_parse_error *err)
{
	size_t p = *i;
	uint64_t v = 0;
	unsigned base = 10;

	if (s[p] == '0' && p + 1 < len && (s[p + 1] == 'x' || s[p + 1] == 'X')) {
		base = 16;
		p += 2;
		if (p >= len || hexval((unsigned char)s[p]) < 0)
			return tsdl_error(err, line, "invalid hexadecimal constant");
	} else if (s[p] == '0') {
		base = 8;
	}
	for (; p < len; p++) {
		int d = hexval((unsigned char)s[p]);

		if (d < 0 || (base != 16 && s[p] > '9'))
			break;
		if ((unsigned)d >= base)
			return tsdl_error(err, line, "invalid digit '%c' in %s constant", s[p],
					  base == 8 ? "octal" : "decimal");
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return tsdl_error(err, line, "integer constant out of range");
		v = v * base + (uint64_t)d;
	}
	/* Suffixes: any mix of u/U and up to two l/L, as C allows. */
	while (p < len && (s[p] == 'u' || s[p] == 'U' || s[p] == 'l' || s[p] == 'L'))
		p++;
	if (p < len && is_ident_char((unsigned char)s[p]))
		return tsdl_error(err, line, "invalid suffix on integer constant");
	*i = p;
	*ret = v;
	return 0;
}

/*
 * Decode a string or character literal starting after the opening quote;
 * writes into out, returns the decoded length in *ret_n.
 */
static int lex_quoted(const char *s, size_t len, size_t *i, char quote, char *out, size_t *ret_n,
		      unsigned *linep, struct ctf_parse_error *err)
{
	unsigned line = *linep;
	size_t p = *i, n = 0;

	for (;;) {
		unsigned char c;

		if (p >= len)
			return tsdl_error(err, line, "unterminated %s literal",
					  quote == '"' ? "string" : "character");
		c = (unsigned char)s[p++];
		if (c == (unsigned char)quote)
			break;
		if (c == '\n' || c == '\0')
			return tsdl_error(err, line, "unterminated %s literal",
					  quote == '"' ? "string" : "character");
		if (c == '\\') {
			if (p >= len)
				return tsdl_error(err, line, "unterminated string literal");
			c = (unsigned char)s[p++];
			switch (c) {
			case 'a':
				c = '\a';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			case 't':
				c = '\t';
				break;
			case 'v':
				c = '\v';
				break;
			case 'e':
				c = 0x1b;
				break;
			case 'x': {
				unsigned v = 0, k = 0;

				while (k < 2 && p < len && hexval((unsigned char)s[p]) >= 0) {
					v = v * 16 + (unsigned)hexval((unsigned char)s[p++]);
					k++;
				}
				if (!k)
					return tsdl_error(err, line, "invalid \\x escape");
				c = (unsigned char)v;
				break;
			}
			case '0':
			case '1':
			case '2':
			case '3':
			case '4':
			case '5':
			case '6':
			case '7': {
				unsigned v = c - '0', k = 1;

				while (k < 3 && p < len && s[p] >= '0' && s[p] <= '7') {
					v = v * 8 + (unsigned)(s[p++] - '0');
					k++;
				}
				c = (unsigned char)v;
				break;
			}
			case '\n':
				/* Line continuation: dropped, as in C. */
				line++;
				continue;
			default:
				/* \\ \" \' \? and anything else: the character itself. */
				break;
			}
		}
		out[n++] = (char)c;
	}
	*linep = line;
	*i = p;
	*ret_n = n;
	return 0;
}

int tsdl_lex(struct tsdl_lexer *lx, const char *s, size_t len, struct ctf_parse_error *err)
{
	size_t i = 0, a = 0;
	unsigned line = 1;
	int ret;

	memset(lx, 0, sizeof(*lx));
	if (len > TSDL_MAX_TEXT)
		return tsdl_error(err, 0, "metadata text too large (%zu bytes)", len);
	lx->arena = malloc(len + 1);
	if (!lx->arena)
		return -ENOMEM;
	/* LTTng metadata has about one token per 3.5 bytes. */
	lx->cap_hint = len / 3 + 64;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		struct tsdl_token *t;

		if (c == '\n') {
			line++;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			unsigned start = line;
			const char *end;

			i += 2;
			for (;;) {
				end = memchr(s + i, '*', len - i);
				if (!end || (size_t)(end - s) + 1 >= len) {
					ret = tsdl_error(err, start, "unterminated comment");
					goto fail;
				}
				for (const char *q = s + i; q < end; q++)
					line += *q == '\n';
				i = (size_t)(end - s) + 1;
				if (s[i] == '/') {
					i++;
					break;
				}
			}
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			const char *nl = memchr(s + i, '\n', len - i);

			i = nl ? (size_t)(nl - s) : len;
			continue;
		}

		t = push(lx, line);
		if (!t) {
			ret = -ENOMEM;
			goto fail;
		}
		if (is_ident_start(c)) {
			size_t st = i;

			while (i < len && is_ident_char((unsigned char)s[i]))
				i++;
			if (i - st > TSDL_MAX_IDENT_LEN) {
				ret = tsdl_error(err, line, "identifier too long (%zu characters)",
						 i - st);
				goto fail;
			}
			t->kind = TSDL_TOK_IDENT;
			t->kw = (uint8_t)keyword_of(s + st, i - st);
			memcpy(lx->arena + a, s + st, i - st);
			t->str = lx->arena + a;
			t->len = (uint32_t)(i - st);
			lx->arena[a + (i - st)] = '\0';
			a += i - st + 1;
			continue;
		}
		if (c >= '0' && c <= '9') {
			t->kind = TSDL_TOK_INT;
			ret = lex_number(s, len, &i, &t->u, line, err);
			if (ret)
				goto fail;
			continue;
		}
		if (c == '"' || c == '\'') {
			size_t n = 0;
			unsigned st_line = line;

			i++;
			ret = lex_quoted(s, len, &i, (char)c, lx->arena + a, &n, &line, err);
			if (ret)
				goto fail;
			if (c == '\'') {
				if (n != 1) {
					ret = tsdl_error(err, line, "invalid character constant");
					goto fail;
				}
				t->kind = TSDL_TOK_INT;
				t->u = (unsigned char)lx->arena[a];
				continue;
			}
			t->kind = TSDL_TOK_STRING;
			t->str = lx->arena + a;
			t->len = (uint32_t)n;
			t->line = st_line;
			lx->arena[a + n] = '\0';
			a += n + 1;
			continue;
		}

		t->kind = TSDL_TOK_PUNCT;
		i++;
		switch (c) {
		case '{':
			t->punct = TSDL_P_LBRACE;
			break;
		case '}':
			t->punct = TSDL_P_RBRACE;
			break;
		case '[':
			t->punct = TSDL_P_LBRACKET;
			break;
		case ']':
			t->punct = TSDL_P_RBRACKET;
			break;
		case '(':
			t->punct = TSDL_P_LPAREN;
			break;
		case ')':
			t->punct = TSDL_P_RPAREN;
			break;
		case ';':
			t->punct = TSDL_P_SEMI;
			break;
		case ',':
			t->punct = TSDL_P_COMMA;
			break;
		case '=':
			t->punct = TSDL_P_EQ;
			break;
		case '<':
			t->punct = TSDL_P_LT;
			break;
		case '>':
			t->punct = TSDL_P_GT;
			break;
		case '+':
			t->punct = TSDL_P_PLUS;
			break;
		case '*':
			t->punct = TSDL_P_STAR;
			break;
		case ':':
			if (i < len && s[i] == '=') {
				i++;
				t->punct = TSDL_P_TYPEASSIGN;
			} else {
				t->punct = TSDL_P_COLON;
			}
			break;
		case '-':
			if (i < len && s[i] == '>') {
				i++;
				t->punct = TSDL_P_ARROW;
			} else {
				t->punct = TSDL_P_MINUS;
			}
			break;
		case '.':
			if (i + 1 < len && s[i] == '.' && s[i + 1] == '.') {
				i += 2;
				t->punct = TSDL_P_ELLIPSIS;
			} else {
				t->punct = TSDL_P_DOT;
			}
			break;
		default:
			if (c >= 0x20 && c < 0x7f)
				ret = tsdl_error(err, line, "unexpected character '%c'", c);
			else
				ret = tsdl_error(err, line, "unexpected byte 0x%02x", c);
			goto fail;
		}
	}
	if (!push(lx, line)) {
		ret = -ENOMEM;
		goto fail;
	}
	lx->tok[lx->n_tok - 1].kind = TSDL_TOK_EOF;
	return 0;

fail:
	tsdl_lexer_release(lx);
	return ret;
}

void tsdl_lexer_release(struct tsdl_lexer *lx)
{
	free(lx->tok);
	free(lx->arena);
	memset(lx, 0, sizeof(*lx));
}
