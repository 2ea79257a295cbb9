/* SPDX-License-Identifier: MIT */
/*
 * The filter lexer: LTTng 2.13's tokens, longest match first as its flex
 * scanner does, so that the same texts split the same way ("08" is "0"
 * then "8", "1e" is "1" then "e", "a.1" is "a" then ".1": syntax errors).
 *
 * String literals keep LTTng 2.13's behaviour: a backslash is an ordinary
 * character (so `\"` cannot be written), a newline inside is dropped, and
 * the text ESCSEQ is refused (its escape rule matches that literal word).
 * The escapes that survive (`\*`, `\\`) are checked later (check.c).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile-internal.h"

#include "common/common.h"

void flt_set_error(struct flt_error *err, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->offset = off;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

const char *flt_tok_name(enum flt_tok t)
{
	static const char *const names[] = {
		[TK_EOF] = "end of expression",
		[TK_INT] = "integer",
		[TK_FLOAT] = "number",
		[TK_STRING] = "string",
		[TK_IDENT] = "identifier",
		[TK_GIDENT] = "'$' identifier",
		[TK_LBRACKET] = "'['",
		[TK_RBRACKET] = "']'",
		[TK_LPAREN] = "'('",
		[TK_RPAREN] = "')'",
		[TK_DOT] = "'.'",
		[TK_ARROW] = "'->'",
		[TK_NOT] = "'!'",
		[TK_TILDE] = "'~'",
		[TK_SHL] = "'<<'",
		[TK_SHR] = "'>>'",
		[TK_AMP] = "'&'",
		[TK_CARET] = "'^'",
		[TK_PIPE] = "'|'",
		[TK_LT] = "'<'",
		[TK_LE] = "'<='",
		[TK_GT] = "'>'",
		[TK_GE] = "'>='",
		[TK_EQ] = "'=='",
		[TK_NE] = "'!='",
		[TK_ANDAND] = "'&&'",
		[TK_OROR] = "'||'",
		[TK_PLUS] = "'+'",
		[TK_MINUS] = "'-'",
		[TK_STAR] = "'*'",
		[TK_SLASH] = "'/'",
		[TK_PERCENT] = "'%'",
		[TK_LBRACE] = "'{'",
		[TK_RBRACE] = "'}'",
		[TK_COLON] = "':'",
		[TK_SEMI] = "';'",
		[TK_ELLIPSIS] = "'...'",
		[TK_ASSIGN] = "'='",
		[TK_COMMA] = "','",
	};

	return (size_t)t < ARRAY_SIZE(names) && names[t] ? names[t] : "token";
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_id_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int at(const struct flt_lexer *lx, size_t i)
{
	return i < lx->len ? (unsigned char)lx->src[i] : -1;
}

/* Length of a \uXXXX or \UXXXXXXXX escape at i, or 0. */
static size_t ucn_len(const struct flt_lexer *lx, size_t i)
{
	size_t n;

	if (at(lx, i) != '\\')
		return 0;
	if (at(lx, i + 1) == 'u')
		n = 4;
	else if (at(lx, i + 1) == 'U')
		n = 8;
	else
		return 0;
	for (size_t k = 0; k < n; k++)
		if (!is_hex(at(lx, i + 2 + k)))
			return 0;
	return n + 2;
}

/* Identifier characters from i: [A-Za-z_:0-9] and UCNs (digits only after the first). */
static size_t ident_len(const struct flt_lexer *lx, size_t i)
{
	size_t start = i, u;

	for (;;) {
		int c = at(lx, i);

		if (is_id_start(c) || (i > start && is_digit(c)))
			i++;
		else if ((u = ucn_len(lx, i)))
			i += u;
		else
			break;
	}
	return i - start;
}

/* C integer suffix (u, l, ul, lu, ll, ull, llu in either case, LL/ll not mixed). */
static size_t int_suffix_len(const struct flt_lexer *lx, size_t i)
{
	size_t best = 0;
	static const char *const suffixes[] = { "u",  "l",  "ul",  "lu",  "ll",	 "ull", "llu", "U",
						"L",  "UL", "LU",  "LL",  "ULL", "LLU", "Ul",  "uL",
						"Lu", "lU", "Ull", "uLL", "LLu", "llU" };

	for (size_t k = 0; k < ARRAY_SIZE(suffixes); k++) {
		size_t n = strlen(suffixes[k]);

		if (n > best && i + n <= lx->len && !memcmp(lx->src + i, suffixes[k], n))
			best = n;
	}
	return best;
}

/* Exponent [eE][+-]?digits (or [pP] for hex floats) at i: its length, or 0. */
static size_t exp_len(const struct flt_lexer *lx, size_t i, bool hex)
{
	size_t j = i;
	int c = at(lx, j);

	if (hex ? (c != 'p' && c != 'P') : (c != 'e' && c != 'E'))
		return 0;
	j++;
	if (at(lx, j) == '+' || at(lx, j) == '-')
		j++;
	if (!is_digit(at(lx, j)))
		return 0;
	while (is_digit(at(lx, j)))
		j++;
	return j - i;
}

static size_t float_suffix_len(const struct flt_lexer *lx, size_t i)
{
	int c = at(lx, i);

	return c == 'f' || c == 'F' || c == 'l' || c == 'L';
}

/*
 * The longest float at i (decimal or hex), without its suffix in *ret_body;
 * 0 when none matches.
 */
static size_t float_len(const struct flt_lexer *lx, size_t i, size_t *ret_body)
{
	size_t j = i, ndig = 0, e, body = 0;

	if (at(lx, i) == '0' && (at(lx, i + 1) == 'x' || at(lx, i + 1) == 'X')) {
		bool dot = false;

		j = i + 2;
		while (is_hex(at(lx, j)) || (!dot && at(lx, j) == '.')) {
			if (at(lx, j) == '.')
				dot = true;
			else
				ndig++;
			j++;
		}
		if (!ndig || !(e = exp_len(lx, j, true)))
			return 0;
		body = j + e - i;
	} else {
		size_t before = 0, after = 0;
		bool dot = false;

		while (is_digit(at(lx, j))) {
			j++;
			before++;
		}
		if (at(lx, j) == '.') {
			dot = true;
			j++;
			while (is_digit(at(lx, j))) {
				j++;
				after++;
			}
		}
		if (!before && !after)
			return 0;
		e = exp_len(lx, j, false);
		if (!dot && !e)
			return 0; /* an integer */
		body = j + e - i;
	}
	*ret_body = body;
	return body + float_suffix_len(lx, i + body);
}

/* The longest integer at i, without its suffix in *ret_body. */
static size_t int_len(const struct flt_lexer *lx, size_t i, size_t *ret_body)
{
	size_t j = i;

	if (at(lx, i) == '0' && (at(lx, i + 1) == 'x' || at(lx, i + 1) == 'X') &&
	    is_hex(at(lx, i + 2))) {
		j = i + 2;
		while (is_hex(at(lx, j)))
			j++;
	} else if (at(lx, i) == '0') {
		j = i + 1;
		while (at(lx, j) >= '0' && at(lx, j) <= '7')
			j++;
	} else if (is_digit(at(lx, i))) {
		while (is_digit(at(lx, j)))
			j++;
	} else {
		return 0;
	}
	*ret_body = j - i;
	return j - i + int_suffix_len(lx, j);
}

/* Value of the digits [i, i + n) in base, saturating at UINT64_MAX as strtoull does. */
static uint64_t int_value(const char *s, size_t n, unsigned int base)
{
	uint64_t v = 0;

	for (size_t k = 0; k < n; k++) {
		int c = (unsigned char)s[k];
		unsigned int d = is_digit(c) ? (unsigned int)(c - '0') :
					       (unsigned int)((c | 0x20) - 'a' + 10);

		if (v > (UINT64_MAX - d) / base)
			return UINT64_MAX;
		v = v * base + d;
	}
	return v;
}

static int lex_number(struct flt_lexer *lx, struct flt_token *tok, struct flt_error *err)
{
	size_t fbody = 0, ibody = 0;
	size_t flen = float_len(lx, lx->pos, &fbody);
	size_t ilen = int_len(lx, lx->pos, &ibody);
	const char *s = lx->src + lx->pos;

	tok->off = lx->pos;
	if (flen > ilen) {
		char buf[512];

		if (fbody >= sizeof(buf)) {
			flt_set_error(err, lx->pos, "Floating-point constant too long");
			return -EINVAL;
		}
		memcpy(buf, s, fbody);
		buf[fbody] = 0;
		tok->type = TK_FLOAT;
		tok->dval = strtod(buf, NULL);
		tok->len = flen;
	} else {
		tok->type = TK_INT;
		tok->len = ilen;
		if (ibody > 1 && s[0] == '0' && s[1] == 'X') {
			/* lttng 2.13 converts with a lowercase "0x" format only. */
			flt_set_error(err, lx->pos,
				      "Invalid hexadecimal constant (write the prefix as '0x')");
			return -EINVAL;
		}
		if (ibody > 1 && s[0] == '0' && s[1] == 'x')
			tok->ival = int_value(s + 2, ibody - 2, 16);
		else if (s[0] == '0')
			tok->ival = int_value(s + 1, ibody - 1, 8);
		else
			tok->ival = int_value(s, ibody, 10);
	}
	lx->pos += tok->len;
	return 0;
}

static int lex_string(struct flt_lexer *lx, struct flt_token *tok, struct flt_error *err)
{
	size_t start = lx->pos;
	size_t i = lx->pos;
	int quote;

	if (at(lx, i) == 'L')
		i++;
	quote = at(lx, i++);
	tok->type = TK_STRING;
	tok->off = start;
	tok->text = lx->src + i;
	for (;; i++) {
		int c = at(lx, i);

		if (c < 0) {
			flt_set_error(err, start, "Unterminated string literal");
			return -EINVAL;
		}
		if (c == quote)
			break;
		if (c == 'E' && i + 6 <= lx->len && !memcmp(lx->src + i, "ESCSEQ", 6)) {
			/* LTTng 2.13's escape rule matches this word and fails. */
			flt_set_error(err, i, "Invalid text 'ESCSEQ' in a string literal");
			return -EINVAL;
		}
	}
	tok->text_len = (size_t)(lx->src + i - tok->text);
	tok->len = i + 1 - start;
	lx->pos = i + 1;
	return 0;
}

int flt_lex_next(struct flt_lexer *lx, struct flt_token *tok, struct flt_error *err)
{
	static const struct {
		const char *s;
		enum flt_tok t;
	} puncts[] = {
		/* Longest first. */
		{ "...", TK_ELLIPSIS }, { "->", TK_ARROW },   { "<<", TK_SHL },
		{ ">>", TK_SHR },	{ "<=", TK_LE },      { ">=", TK_GE },
		{ "==", TK_EQ },	{ "!=", TK_NE },      { "&&", TK_ANDAND },
		{ "||", TK_OROR },	{ "[", TK_LBRACKET }, { "]", TK_RBRACKET },
		{ "(", TK_LPAREN },	{ ")", TK_RPAREN },   { ".", TK_DOT },
		{ "!", TK_NOT },	{ "~", TK_TILDE },    { "&", TK_AMP },
		{ "^", TK_CARET },	{ "|", TK_PIPE },     { "<", TK_LT },
		{ ">", TK_GT },		{ "+", TK_PLUS },     { "-", TK_MINUS },
		{ "*", TK_STAR },	{ "/", TK_SLASH },    { "%", TK_PERCENT },
		{ "{", TK_LBRACE },	{ "}", TK_RBRACE },   { ";", TK_SEMI },
		{ "=", TK_ASSIGN },	{ ",", TK_COMMA },
	};
	int c;

	memset(tok, 0, sizeof(*tok));
	for (;;) {
		c = at(lx, lx->pos);
		if (c >= 0 && is_space(c)) {
			lx->pos++;
		} else if (c == '/' && at(lx, lx->pos + 1) == '*') {
			const char *end = NULL;

			if (lx->pos + 2 <= lx->len)
				end = memmem(lx->src + lx->pos + 2, lx->len - lx->pos - 2, "*/", 2);
			/* An unterminated comment runs to the end (LTTng accepts it). */
			lx->pos = end ? (size_t)(end - lx->src) + 2 : lx->len;
		} else if (c == '/' && at(lx, lx->pos + 1) == '/') {
			while (at(lx, lx->pos) >= 0 && at(lx, lx->pos) != '\n')
				lx->pos++;
		} else {
			break;
		}
	}
	tok->off = lx->pos;
	if (c < 0) {
		tok->type = TK_EOF;
		return 0;
	}
	if (c == '"' || c == '\'' ||
	    (c == 'L' && (at(lx, lx->pos + 1) == '"' || at(lx, lx->pos + 1) == '\'')))
		return lex_string(lx, tok, err);
	if (is_digit(c) || (c == '.' && is_digit(at(lx, lx->pos + 1))))
		return lex_number(lx, tok, err);
	if (is_id_start(c) || ucn_len(lx, lx->pos)) {
		tok->type = TK_IDENT;
		tok->len = ident_len(lx, lx->pos);
		tok->text = lx->src + lx->pos;
		tok->text_len = tok->len;
		lx->pos += tok->len;
		return 0;
	}
	if (c == '$') {
		size_t n = ident_len(lx, lx->pos + 1);

		if (!n) {
			flt_set_error(err, lx->pos, "Expecting an identifier after '$'");
			return -EINVAL;
		}
		tok->type = TK_GIDENT;
		tok->len = n + 1;
		tok->text = lx->src + lx->pos;
		tok->text_len = tok->len;
		lx->pos += tok->len;
		return 0;
	}
	for (size_t k = 0; k < ARRAY_SIZE(puncts); k++) {
		size_t n = strlen(puncts[k].s);

		if (lx->pos + n <= lx->len && !memcmp(lx->src + lx->pos, puncts[k].s, n)) {
			tok->type = puncts[k].t;
			tok->len = n;
			lx->pos += n;
			return 0;
		}
	}
	if (c >= 0x20 && c < 0x7f)
		flt_set_error(err, lx->pos, "Unexpected character '%c'", c);
	else
		flt_set_error(err, lx->pos, "Unexpected byte 0x%02x", (unsigned int)c);
	return -EINVAL;
}
