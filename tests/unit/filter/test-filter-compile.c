/* SPDX-License-Identifier: MIT */
/*
 * The compiler accepts exactly what lttng 2.13.9 accepts
 * (`lttng enable-event -u 'x:*' --filter EXPR`: A = rc 0, R = rc 106), and
 * says what is wrong and where when it refuses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "filter/filter.h"

#include "common/common.h"

struct row {
	const char *expr;
	bool accepted;
};

/* lttng 2.13.9's checklist, row by row. */
static const struct row checklist[] = {
	{ "a == 1", true },
	{ "a == -1", true },
	{ "a == 0x1F", true },
	{ "a == 017", true },
	{ "a == 10UL", true },
	{ "a == 99999999999999999999", true },
	{ "a == 0X1f", false },
	{ "a == 08", false },
	{ "a == 1e", false },
	{ "a.1 == 2", false },
	{ "a == 0b101", false },
	{ "a == 1_000", false },
	{ "a == 1.5", true },
	{ "a == .5", true },
	{ "a == 1.", true },
	{ "a == 1e3", true },
	{ "a == 0x1p3", true },
	{ "a == 1.0f", true },
	{ "x == 1e400", true },
	{ "a", true },
	{ "1", true },
	{ "$ctx.vpid", true },
	{ "1.5", false },
	{ "!1.5", false },
	{ "\"abc\"", false },
	{ "'ab'", false },
	{ "!a", true },
	{ "-a == 1", true },
	{ "+a == 1", true },
	{ "~a == 0", true },
	{ "~1.5 == 1", true },
	{ "a + 1 == 2", false },
	{ "a - 1 == 2", false },
	{ "a * 1 == 2", false },
	{ "a / 1 == 2", false },
	{ "a % 1 == 2", false },
	{ "a & 0xff == 0x10", true },
	{ "a | 1 == 1", true },
	{ "a ^ 1 == 0", true },
	{ "a << 2 == 8", true },
	{ "a >> 64 == 0", true },
	{ "a & 1.5", false },
	{ "(a == 1) == (b == 2)", true },
	{ "a == 1 == 1", true },
	{ "a == 1 && b == 2 || c == 3", true },
	{ "a == 1 && 2", true },
	{ "name && a == 1", true },
	{ "a == 1 || \"x\"", false },
	{ "a.b == 1", true },
	{ "a->b == 1", true },
	{ "a.b[2].c == 1", true },
	{ "a[3][4] == 1", true },
	{ "a[0x10] == 1", true },
	{ "a:b == 1", true },
	{ "\\u0041 == 1", true },
	{ "a[b] == 1", false },
	{ "a[-1] == 1", false },
	{ "name == \"foo\"", true },
	{ "name != \"foo\"", true },
	{ "name == 'foo'", true },
	{ "name == L\"abc\"", true },
	{ "name == \"\"", true },
	{ "name == \"*foo*bar\"", true },
	{ "name == \"fo\\*o\"", true },
	{ "name == \"a\\\\b\"", true },
	{ "name == \"a\\\"b\"", false },
	{ "name == \"a\\nb\"", false },
	{ "name == \"a\\qb\"", false },
	{ "name == \"a\\\"", false },
	{ "name == \"xESCSEQy\"", false },
	{ "name < \"abc\"", true },
	{ "name > \"ab*\"", true },
	{ "\"ab*\" == \"cd*\"", true },
	{ "\"*a*\" == \"b\"", true },
	{ "1 == 1.5", true },
	{ "name < \"*ab\"", false },
	{ "\"*a*\" == \"*b*\"", false },
	{ "\"abc\" == 1", false },
	{ "1 == \"1\"", false },
	{ "name == 1", true },
	{ "name == 1.5", true },
	{ "!\"x\"", false },
	{ "-\"x\" == 1", false },
	{ "$ctx.procname == \"my*\"", true },
	{ "$ctx.perf:cpu:cycles > 0", true },
	{ "$app.myprov:myctx == 3", true },
	{ "$app.a == 1", true },
	{ "$ctx.perf:cpu:stalled-cycles-frontend > 0", false },
	{ "$ctx == 1", false },
	{ "$foo.bar == 1", false },
	{ "a == 1;", false },
	{ "a = 1", false },
	{ "a ? 1 : 2", false },
	{ "a == 1 # x", false },
	{ "(a == 1", false },
	{ "a == 1)", false },
	{ "   ", false },
	{ "\t\n", false },
	{ "", false },
	{ "a == 1 // c", true },
	{ "/* c */ a == 1", true },
	{ "a == 1 /* unterminated", true },
	{ "a == 1 &&\nb == 2", true },
	{ "name == \"ab\ncd\"", true },
};

/* More rows of strata's own, each run through lttng 2.13.9 too. */
static const struct row extra[] = {
	{ "a >= 1 && a <= 9 && !(a == 5)", true },
	{ "(a)", true },
	{ "((((a == 1))))", true },
	{ "a == 1 && b == 2 && c == 3 && d == 4", true },
	{ "a || b", true },
	{ "a == 0x7fffffffffffffff", true },
	{ "a == 18446744073709551615", true },
	{ "a == 1ull", true },
	{ "a == 1LLU", true },
	{ "a == 1lL", false },
	{ "a == 0x", false },
	{ "a == 1e+3", true },
	{ "a == 1E-2", true },
	{ "a == 1.5L", true },
	{ "-1.5 == a", true },
	{ "-1.5", false },
	{ "~1.5", false },
	{ "a | 1.5 == 1", false },
	{ "1.5 << a == 1", false },
	{ "a && 1.5", true },
	{ "\"x\" && a", false },
	{ "a == \"x\" && b", true },
	{ "a == \"*x\" || b == \"y*\"", true },
	{ "\"*x\" != name", true },
	{ "name >= \"a*b\"", false },
	{ "name == \"a**b**\"", true },
	{ "name == \"a\\\\*\"", true },
	{ "\"abc\" == 1.5", false },
	{ "\"abc\" == name", true },
	{ "\"abc\" < \"abd\"", true },
	{ "$ctx.vpid == 1 && $ctx.procname == \"a*\"", true },
	{ "$ctx", false },
	{ "$ctx.", false },
	{ "$ctx.a.b == 1", true },
	{ "$app", false },
	{ "$", false },
	{ "$1 == 1", false },
	{ "a.", false },
	{ "a->", false },
	{ "a[", false },
	{ "a[1", false },
	{ "a[]", false },
	{ "a[1.5] == 1", false },
	{ "a[\"x\"] == 1", false },
	{ "a[(1)] == 1", false },
	{ "a[017] == 1", true },
	{ "a[1] [2] == 1", true },
	{ "a . b == 1", true },
	{ "a.$ctx == 1", true },
	{ "1.a == 1", false },
	{ "a @ 1", false },
	{ "a == `1`", false },
	{ "a { 1", false },
	{ "a, b", false },
	{ "a ... b", false },
	{ "a == 1 /* c */ && /* d */ b == 2", true },
	{ "a == 'it''s'", false },
	{ "name == \"unterminated", false },
	{ "name == 'x\"y'", true },
	{ "!!!!a", true },
	{ "- - a == 1", true },
	{ "~ ~ a == 1", true },
	{ "+ + a == 1", true },
	{ "+\"x\" == 1", false },
	{ "a == +1.5", true },
	{ "!a == !b", true },
	{ "a & b | c ^ d == 1", true },
	{ "a << b >> c", true },
	{ "a +", false },
	{ "a == -", false },
	{ "a < b < c", true },
	{ "a == 1 &&", false },
	{ "|| a", false },
	{ "a == 1 || b == 2 || \"s\" == name", true },
	{ "\xc3\xa9 == 1", false },
};

static void check_rows(const struct row *rows, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct flt_error err;
		void *bc = NULL;
		size_t len = 0;
		int r = flt_compile(rows[i].expr, &bc, &len, &err);

		if ((r == 0) != rows[i].accepted) {
			fprintf(stderr, "'%s': expected %s, got %d (%s at %zu)\n", rows[i].expr,
				rows[i].accepted ? "accepted" : "refused", r, err.msg, err.offset);
			bad++;
		}
		if (r == 0) {
			struct flt_program *p = NULL;
			const char *why = NULL;
			int v = flt_validate(bc, len, &p, &why);

			if (v) {
				fprintf(stderr, "'%s': compiled but not valid: %s\n", rows[i].expr,
					why);
				bad++;
			}
			flt_program_destroy(p);
		} else if (r != -EINVAL && r != -E2BIG) {
			fprintf(stderr, "'%s': unexpected error %d\n", rows[i].expr, r);
			bad++;
		} else if (!err.msg[0] || err.offset > strlen(rows[i].expr)) {
			fprintf(stderr, "'%s': refused without message or offset\n", rows[i].expr);
			bad++;
		}
		free(bc);
	}
	assert_int_equal(bad, 0);
}

static void test_lttng_checklist(void **state _unused_)
{
	check_rows(checklist, ARRAY_SIZE(checklist));
}

static void test_more_rows(void **state _unused_)
{
	check_rows(extra, ARRAY_SIZE(extra));
}

/* Refusals name what is wrong and point at it. */
static void test_error_messages(void **state _unused_)
{
	static const struct {
		const char *expr;
		size_t offset;
		const char *needle;
	} cases[] = {
		{ "a + 1 == 2", 2, "Arithmetic operator '+'" },
		{ "a == 1 && b % 2", 12, "Arithmetic" },
		{ "(a == 1", 7, "end of expression" },
		{ "a == 1)", 6, "')'" },
		{ "a == 1 # x", 7, "'#'" },
		{ "a == 0X1f", 5, "0x" },
		{ "\"abc\"", 0, "string" },
		{ "1.5", 0, "floating-point" },
		{ "a & 1.5", 2, "floating-point" },
		{ "name == \"a\\qb\"", 8, "escape" },
		{ "name == \"xESCSEQy\"", 10, "ESCSEQ" },
		{ "name < \"*ab\"", 7, "'=='" },
		{ "\"*a*\" == \"*b*\"", 6, "Two star-glob" },
		{ "1 == \"1\"", 2, "string with a number" },
		{ "!\"x\"", 0, "Unary operator '!'" },
		{ "a[b] == 1", 2, "constant integer" },
		{ "$foo.bar == 1", 0, "$foo" },
		{ "$ctx == 1", 0, "$ctx" },
		{ "a == 1 || \"x\"", 7, "Logical operator '||'" },
		{ "  ", 2, "Empty" },
		{ "name == \"abc", 8, "Unterminated" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct flt_error err;
		void *bc = NULL;
		size_t len;
		const char *expr = cases[i].expr;

		assert_int_equal(flt_compile(expr, &bc, &len, &err), -EINVAL);
		if (err.offset != cases[i].offset || !strstr(err.msg, cases[i].needle))
			fail_msg("'%s': got '%s' at %zu, expected '%s' at %zu", expr, err.msg,
				 err.offset, cases[i].needle, cases[i].offset);
	}
}

static void test_caret(void **state _unused_)
{
	struct flt_error err;
	void *bc;
	size_t len;
	char buf[256];
	int n;

	assert_int_equal(flt_compile("a == 1 && b + 2", &bc, &len, &err), -EINVAL);
	n = flt_error_caret("a == 1 && b + 2", &err, buf, sizeof(buf));
	assert_string_equal(buf, "a == 1 && b + 2\n            ^\n");
	assert_int_equal(n, (int)strlen(buf));

	/* The caret is under the right line, and tabs stay tabs. */
	assert_int_equal(flt_compile("a == 1 &&\n\tb ? 2", &bc, &len, &err), -EINVAL);
	flt_error_caret("a == 1 &&\n\tb ? 2", &err, buf, sizeof(buf));
	assert_string_equal(buf, "\tb ? 2\n\t  ^\n");

	/* Truncated output stays a terminated string. */
	n = flt_error_caret("a == 1 &&\n\tb ? 2", &err, buf, 5);
	assert_int_equal(strlen(buf), 4);
	assert_int_equal(n, 4);

	/* One space per UTF-8 character. */
	assert_int_equal(flt_compile("s == \"h\xc3\xa9\" ? 1", &bc, &len, &err), -EINVAL);
	flt_error_caret("s == \"h\xc3\xa9\" ? 1", &err, buf, sizeof(buf));
	assert_string_equal(buf, "s == \"h\xc3\xa9\" ? 1\n          ^\n");

	/* A long line is cut to a window around the error. */
	{
		char expr[400];
		size_t o = 0;

		for (int i = 0; i < 30; i++)
			o += (size_t)snprintf(expr + o, sizeof(expr) - o, "a%d == %d && ", i, i);
		snprintf(expr + o, sizeof(expr) - o, "b + 1");
		assert_int_equal(flt_compile(expr, &bc, &len, &err), -EINVAL);
		flt_error_caret(expr, &err, buf, sizeof(buf));
		assert_memory_equal(buf, "...", 3);
		assert_non_null(strstr(buf, "b + 1\n"));
		/* The caret sits under the '+'. */
		assert_int_equal(strchr(buf, '\n') + 1 + (strchr(buf, '+') - buf),
				 strchr(buf, '^'));
		assert_true(strlen(buf) < 200);
	}
}

/* Limits: lttng refuses an expression of 65536 bytes and more, and bytecode over 64 KiB. */
static void test_limits(void **state _unused_)
{
	struct flt_error err;
	size_t n = 70000, len;
	char *big = malloc(n + 1);
	void *bc = NULL;

	assert_non_null(big);
	/* A 65,510-character literal: lttng refuses it (bytecode too long). */
	memcpy(big, "s == \"", 6);
	memset(big + 6, 'x', 65510);
	memcpy(big + 6 + 65510, "\"", 2);
	assert_int_equal(flt_compile(big, &bc, &len, &err), -E2BIG);
	/* Short enough literal: accepted. */
	big[6 + 60000] = '"';
	big[6 + 60001] = 0;
	assert_int_equal(flt_compile(big, &bc, &len, &err), 0);
	free(bc);
	/* Over the expression length limit. */
	memset(big, ' ', n);
	big[0] = 'a';
	big[n] = 0;
	assert_int_equal(flt_compile(big, &bc, &len, &err), -E2BIG);
	/* Just under it: whitespace is fine. */
	big[FLT_EXPR_MAX_LEN] = 0;
	assert_int_equal(flt_compile(big, &bc, &len, &err), 0);
	free(bc);
	/* Deep nesting is refused, not a stack overflow. */
	memset(big, '(', 50000);
	big[50000] = 0;
	assert_int_equal(flt_compile(big, &bc, &len, &err), -EINVAL);
	memset(big, '!', 50000);
	assert_int_equal(flt_compile(big, &bc, &len, &err), -EINVAL);
	/* A long chain compiles (left-deep trees are walked without recursion). */
	{
		size_t o = 0;

		for (int i = 0; o + 40 < n && i < 2500; i++)
			o += (size_t)snprintf(big + o, n - o, "%sa == %d", i ? " || " : "", i);
		assert_int_equal(flt_compile(big, &bc, &len, &err), 0);
		free(bc);
	}
	free(big);
}

/* Runs of stars collapse; a lone final star is a prefix string, others are globs. */
static void test_glob_classes(void **state _unused_)
{
	static const struct {
		const char *expr;
		bool full_glob;
	} cases[] = {
		{ "n == \"abc\"", false },    { "n == \"ab*\"", false },
		{ "n == \"ab**\"", false },   { "n == \"*ab\"", true },
		{ "n == \"a*b\"", true },     { "n == \"ab\\\\*\"", false },
		{ "n == \"ab\\**\"", false }, { "n == \"*\"", false },
		{ "n == \"**\"", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct flt_error err;
		void *bc;
		size_t len;
		bool glob = false;

		assert_int_equal(flt_compile(cases[i].expr, &bc, &len, &err), 0);
		/* Find the literal's load instruction. */
		for (size_t k = sizeof(struct flt_bc_header); k + 8 <= len; k += 8) {
			const struct flt_bc_insn *in = (const void *)((char *)bc + k);

			if (in->op == FLT_OP_RET)
				break;
			glob |= in->op == FLT_OP_LOAD_GLOB;
		}
		if (glob != cases[i].full_glob)
			fail_msg("'%s': glob %d", cases[i].expr, glob);
		free(bc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lttng_checklist), cmocka_unit_test(test_more_rows),
		cmocka_unit_test(test_error_messages),	cmocka_unit_test(test_caret),
		cmocka_unit_test(test_limits),		cmocka_unit_test(test_glob_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
