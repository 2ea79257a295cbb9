/* SPDX-License-Identifier: MIT */
/*
 * Linker and interpreter semantics, as lttng-ust 2.13 evaluates filters:
 * one event with a field of every type, expressions with the result lttng
 * gives (1 recorded, 0 dropped, NEVER: the rule never records this event).
 */
#include <arpa/inet.h>
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

#define NEVER (-1)

#define INT(n, sz, sg)                                                               \
	{                                                                            \
		.name = n, .kind = STRATA_TYPE_INTEGER, .integer = { sz, sg, 10, 0 } \
	}

static const struct strata_field_desc fields[] = {
	INT("s8", 8, 1),
	INT("s16", 16, 1),
	INT("s32", 32, 1),
	INT("s64", 64, 1),
	INT("u8", 8, 0),
	INT("u16", 16, 0),
	INT("u32", 32, 0),
	INT("u64", 64, 0),
	{ .name = "hex", .kind = STRATA_TYPE_INTEGER, .integer = { 32, 0, 16, 0 } },
	{ .name = "port", .kind = STRATA_TYPE_INTEGER, .integer = { 16, 0, 10, 1 } },
	{ .name = "nets32", .kind = STRATA_TYPE_INTEGER, .integer = { 32, 1, 10, 1 } },
	{ .name = "en", .kind = STRATA_TYPE_ENUM, .integer = { 32, 1, 10, 0 } },
	{ .name = "f", .kind = STRATA_TYPE_FLOAT, .integer = { 32 } },
	{ .name = "d", .kind = STRATA_TYPE_FLOAT, .integer = { 64 } },
	{ .name = "str", .kind = STRATA_TYPE_STRING },
	{ .name = "nullstr", .kind = STRATA_TYPE_STRING },
	{ .name = "txt",
	  .kind = STRATA_TYPE_ARRAY,
	  .encoding = STRATA_ENCODING_UTF8,
	  .integer = { 8, 1, 10, 0 },
	  .length = 8 },
	INT("_tseq_length", 32, 0),
	{ .name = "tseq",
	  .kind = STRATA_TYPE_SEQUENCE,
	  .encoding = STRATA_ENCODING_UTF8,
	  .integer = { 8, 1, 10, 0 } },
	{ .name = "iarr", .kind = STRATA_TYPE_ARRAY, .integer = { 32, 1, 10, 0 }, .length = 4 },
	INT("_iseq_length", 32, 0),
	{ .name = "iseq", .kind = STRATA_TYPE_SEQUENCE, .integer = { 16, 0, 10, 0 } },
	{ .name = "netarr", .kind = STRATA_TYPE_ARRAY, .integer = { 16, 0, 10, 1 }, .length = 2 },
	{ .name = "dneg", .kind = STRATA_TYPE_FLOAT, .integer = { 64 } },
};

enum { NFIELDS = ARRAY_SIZE(fields) };

static const char txt[8] = "abc";
static const char tseq[3] = { 'x', 'y', 'z' };
static const int32_t iarr[4] = { 1, -2, -7, 2147483647 };
static const uint16_t iseq[2] = { 1, 65535 };
static uint16_t netarr[2];
static union strata_filter_arg args[NFIELDS];

static void fill_args(void)
{
	netarr[0] = htons(443);
	netarr[1] = htons(8080);
	args[0].s64 = -5;
	args[1].s64 = -300;
	args[2].s64 = 1;
	args[3].s64 = INT64_MIN;
	args[4].u64 = 0x1f;
	args[5].u64 = 65535;
	args[6].u64 = 4000000000u;
	args[7].u64 = (1ull << 63) + 5;
	args[8].u64 = 0xdeadbeef;
	args[9].u64 = htons(80); /* as given: network order */
	args[10].s64 = (int32_t)htonl((uint32_t)-2);
	args[11].s64 = 3;
	args[12].d = 1.5f;
	args[13].d = -0.25;
	args[14].ref.ptr = "hello";
	args[14].ref.len = 5;
	args[15].ref.ptr = NULL;
	args[15].ref.len = 0;
	args[16].ref.ptr = txt;
	args[16].ref.len = 8;
	args[17].u64 = 3;
	args[18].ref.ptr = tseq;
	args[18].ref.len = 3;
	args[19].ref.ptr = iarr;
	args[19].ref.len = 4;
	args[20].u64 = 2;
	args[21].ref.ptr = iseq;
	args[21].ref.len = 2;
	args[22].ref.ptr = netarr;
	args[22].ref.len = 2;
	args[23].d = -1e300;
}

enum { CTX_VPID, CTX_PROCNAME, CTX_BROKEN, CTX_APP, CTX_DBL };

static const struct flt_ctx_desc ctxs[] = {
	{ "vpid", FLT_ROOT_CTX, FLT_CTX_INT, CTX_VPID },
	{ "procname", FLT_ROOT_CTX, FLT_CTX_STRING, CTX_PROCNAME },
	{ "broken", FLT_ROOT_CTX, FLT_CTX_INT, CTX_BROKEN },
	{ "myprov:myctx", FLT_ROOT_APP, FLT_CTX_INT, CTX_APP },
	{ "load", FLT_ROOT_CTX, FLT_CTX_DOUBLE, CTX_DBL },
};

static int get_ctx(void *opaque, uint32_t id, union strata_filter_arg *ret)
{
	(void)opaque;
	switch (id) {
	case CTX_VPID:
		ret->s64 = 42;
		return 0;
	case CTX_PROCNAME:
		ret->ref.ptr = "test-app";
		ret->ref.len = 8;
		return 0;
	case CTX_APP:
		ret->s64 = 3;
		return 0;
	case CTX_DBL:
		ret->d = 0.5;
		return 0;
	default:
		return -1;
	}
}

static const struct flt_env env = { get_ctx, NULL };

/* 1 or 0 as flt_run() says, NEVER when the rule cannot link to the event. */
static int eval(const char *expr)
{
	struct flt_program *p = NULL;
	struct flt_linked *l = NULL;
	struct flt_error err;
	void *bc;
	size_t len;
	int r;

	r = flt_compile(expr, &bc, &len, &err);
	if (r)
		fail_msg("'%s' does not compile: %s", expr, err.msg);
	r = flt_validate(bc, len, &p, NULL);
	free(bc);
	if (r)
		return NEVER;
	r = flt_link_ust(p, fields, NFIELDS, ctxs, ARRAY_SIZE(ctxs), &l);
	flt_program_destroy(p);
	if (r == -ENOENT || r == -EINVAL)
		return NEVER;
	assert_int_equal(r, 0);
	r = flt_run(l, args, &env);
	flt_linked_destroy(l);
	return r;
}

struct expect {
	const char *expr;
	int result;
};

static void check(const struct expect *e, size_t n)
{
	int bad = 0;

	fill_args();
	for (size_t i = 0; i < n; i++) {
		int r = eval(e[i].expr);

		if (r != e[i].result) {
			fprintf(stderr, "'%s': got %d, expected %d\n", e[i].expr, r, e[i].result);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_integers(void **state _unused_)
{
	static const struct expect e[] = {
		{ "s8 == -5", 1 },
		{ "s8 < 0 && s16 == -300", 1 },
		{ "s64 < -9223372036854775807", 1 },
		/* Comparisons are signed 64-bit: 2^63 + 5 is negative. */
		{ "u64 < 0", 1 },
		{ "u64 == 9223372036854775813", 1 },
		{ "u64 == -9223372036854775803", 1 },
		{ "u32 == 4000000000", 1 },
		{ "u16 == 0xffff", 1 },
		{ "u8 == 037", 1 },
		{ "hex == 0xdeadbeef", 1 },
		{ "en == 3", 1 },
		{ "en", 1 },
		{ "s32", 1 },
		{ "!s32", 0 },
		{ "-s8 == 5", 1 },
		{ "+s8 == -5", 1 },
		{ "~s32 == -2", 1 },
		{ "~u8 == 0xffffffffffffffe0", 1 },
		{ "s32 == 1 == 1", 1 },
		{ "(s32 == 1) == (s8 == 2)", 0 },
		{ "99999999999999999999 == -1", 1 },
		/* Network order fields read in host order. */
		{ "port == 80", 1 },
		{ "nets32 == -2", 1 },
	};

	check(e, ARRAY_SIZE(e));
}

static void test_bitwise(void **state _unused_)
{
	static const struct expect e[] = {
		{ "u8 & 0xf0 == 0x10", 1 },
		{ "u8 | 0x20 == 0x3f", 1 },
		{ "u8 ^ 0x1f == 0", 1 },
		{ "u8 << 4 == 0x1f0", 1 },
		{ "s8 >> 60 == 15", 1 }, /* logical shift of the 64-bit value */
		{ "s8 << 63 < 0", 1 },
		/* A count outside [0, 63] drops the event, even negated. */
		{ "s8 >> 64 == 0", 0 },
		{ "!(s8 >> 64 == 0)", 0 },
		{ "s8 << s8 == 0", 0 },
		{ "u8 & 1 | 2 ^ 4 == 7", 1 }, /* ((u8 & 1) | (2 ^ 4)) == 7 */
		{ "u8 & 1 | 2 ^ 3 == 3", 0 },
	};

	check(e, ARRAY_SIZE(e));
}

static void test_doubles(void **state _unused_)
{
	static const struct expect e[] = {
		{ "s32 == 1.0", 1 },
		{ "s32 == 1.5", 0 },
		{ "f == 1.5", 1 },
		{ "f > 1.4 && f < 1.6", 1 },
		{ "d < 0", 1 },
		{ "d == -.25", 1 },
		{ "-d == 0.25", 1 },
		{ "!d", 0 },
		/* && and || cast to int64: -0.25 truncates to 0. */
		{ "d && 1", 0 },
		{ "d || 0", 0 },
		{ "f && 1", 1 },
		{ "1 == 1.5", 0 },
		{ "1.5 > 1", 1 },
		{ "u64 > 1.0", 0 }, /* as signed: negative */
		{ "dneg && 1", 1 },
		/* A double result is an error: nothing is recorded. */
		{ "d", NEVER },
		{ "f", NEVER },
		{ "~d == 0", NEVER },
		{ "d & 1 == 0", NEVER },
		{ "~1.5 == 1", NEVER },
	};

	check(e, ARRAY_SIZE(e));
}

static void test_strings(void **state _unused_)
{
	static const struct expect e[] = {
		{ "str == \"hello\"", 1 },
		{ "str == 'hello'", 1 },
		{ "str == L\"hello\"", 1 },
		{ "str != \"hello\"", 0 },
		{ "str == \"hell\"", 0 },
		{ "str == \"helloo\"", 0 },
		{ "str == \"hel*\"", 1 },
		{ "str == \"hello*\"", 1 },
		{ "str == \"*\"", 1 },
		{ "str == \"*llo\"", 1 },
		{ "str == \"h*o\"", 1 },
		{ "str == \"h*x*\"", 0 },
		{ "str != \"*x*\"", 1 },
		{ "\"*ll*\" == str", 1 },
		{ "str > \"hella\"", 1 },
		{ "str < \"hellp\"", 1 },
		{ "str < \"help*\"", 1 },
		{ "str > \"hel*\"", 0 },
		{ "str >= \"hel*\"", 1 },
		{ "str == \"\"", 0 },
		{ "str > \"\"", 1 },

		{ "nullstr == \"(null)\"", 1 },
		{ "txt == \"abc\"", 1 },
		{ "txt == \"ab*\"", 1 },
		{ "txt == \"*c\"", 1 },
		{ "txt == \"abc\\*\"", 0 },
		{ "tseq == \"xyz\"", 1 },
		{ "tseq == \"xy\"", 0 },
		{ "tseq == \"xyz*\"", 1 },
		{ "tseq == \"*z\"", 1 },
		{ "tseq > txt", 1 },
		{ "str == str", 1 },
		{ "\"ab*\" == \"abc\"", 1 },
		{ "\"abc\" < \"abd\"", 1 },
		{ "str == 1", NEVER },
		{ "str == 1.5", NEVER },
		{ "str && 1", NEVER },
		{ "!str", NEVER },
		{ "str", NEVER },
		{ "str & 1 == 0", NEVER },
		{ "-str == 1", NEVER },
	};

	check(e, ARRAY_SIZE(e));
}

static void test_arrays(void **state _unused_)
{
	static const struct expect e[] = {
		{ "iarr[0] == 1", 1 },
		{ "iarr[2] == -7", 1 },
		{ "iarr[3] == 2147483647", 1 },
		{ "iarr[0x1] == -2", 1 },
		/* Out of range: the event is dropped (lttng's man page: false). */
		{ "iarr[4] == 0", 0 },
		{ "!(iarr[4] == 0)", 0 },
		{ "iarr[4] == 0 || s8 == -5", 0 },
		{ "iseq[1] == 65535", 1 },
		{ "iseq[2] == 0", 0 },
		{ "netarr[0] == 443 && netarr[1] == 8080", 1 },
		/* Whole integer arrays, indexed text, nested indexes: never. */
		{ "iarr == 1", NEVER },
		{ "iarr == \"x\"", NEVER },
		{ "txt[0] == 97", NEVER },
		{ "iarr[0][0] == 1", NEVER },
		{ "s8[0] == 1", NEVER },
		/* A sequence's length field cannot be named. */
		{ "_tseq_length == 3", NEVER },
		{ "_iseq_length == 2", NEVER },
	};

	check(e, ARRAY_SIZE(e));
}

static void test_logical(void **state _unused_)
{
	static const struct expect e[] = {
		{ "s8 == -5 && s32 == 1", 1 },
		{ "s8 == -5 && s32 == 2", 0 },
		{ "s8 == 5 || s32 == 1", 1 },
		{ "s8 == 5 || s32 == 2", 0 },
		{ "s8 == 1 && s32 == 1 || u8 == 0x1f", 1 },
		{ "s8 == -5 && (s32 == 2 || u8 == 0x1f)", 1 },
		/* && gives its right operand as is, || jumps with 1. */
		{ "(s32 && 5) == 5", 1 },
		{ "(s32 || 0) == 1", 1 },
		{ "(s32 || 7) == 1", 1 },
		{ "(0 || s8) == -5", 1 },
		{ "(0 && s8) == 0", 1 },
		{ "s8 == -5 && 2", 1 },
		{ "!(s8 == -5) || !s32", 0 },
		/* A missing field named anywhere: never, even in an untaken branch. */
		{ "s8 == -5 || nosuch == 1", NEVER },
		{ "!nosuch", NEVER },
		{ "a.b == 1", NEVER },
		{ "s8.x == 1", NEVER },
	};

	check(e, ARRAY_SIZE(e));
}

static void test_contexts(void **state _unused_)
{
	static const struct expect e[] = {
		{ "$ctx.vpid == 42", 1 },
		{ "$ctx.vpid", 1 },
		{ "$ctx.procname == \"test*\"", 1 },
		{ "$ctx.procname == \"*app\"", 1 },
		{ "$app.myprov:myctx == 3", 1 },
		{ "$ctx.load < 1", 1 },
		{ "$ctx.vpid == 42 && s8 == -5", 1 },
		/* Unknown contexts never record; one that fails drops the event. */
		{ "$ctx.nosuch == 1", NEVER },
		{ "$ctx.myprov:myctx == 3", NEVER },
		{ "$app.vpid == 42", NEVER },
		{ "$app.a == 1", NEVER },
		{ "$ctx.vpid.x == 1", NEVER },
		{ "$ctx.broken == 1", 0 },
		{ "$ctx.broken == 1 || 1", 0 },
	};

	check(e, ARRAY_SIZE(e));
}

/* Stack depth: lttng runs <= 8 live values, crashes on 9-10, refuses more. */
static void test_depth(void **state _unused_)
{
	char expr[512];

	fill_args();
	for (int n = 1; n <= 12; n++) {
		size_t o = 0;
		int r;

		/* n nested '(s32 | ' need n + 1 values at the innermost. */
		for (int i = 0; i < n; i++)
			o += (size_t)snprintf(expr + o, sizeof(expr) - o, "(s32 | ");
		o += (size_t)snprintf(expr + o, sizeof(expr) - o, "1");
		for (int i = 0; i < n; i++)
			o += (size_t)snprintf(expr + o, sizeof(expr) - o, ")");
		snprintf(expr + o, sizeof(expr) - o, " != 0");
		r = eval(expr);
		if (n + 1 <= FLT_STACK_MAX)
			assert_int_equal(r, 1);
		else
			assert_int_equal(r, NEVER);
	}
}

/* The same linked program on many events, and without an environment. */
static void test_reuse(void **state _unused_)
{
	struct flt_program *p;
	struct flt_linked *l;
	void *bc;
	size_t len;

	fill_args();
	assert_int_equal(flt_compile("s32 >= 10 && s32 < 20", &bc, &len, NULL), 0);
	assert_int_equal(flt_validate(bc, len, &p, NULL), 0);
	free(bc);
	assert_int_equal(flt_link_ust(p, fields, NFIELDS, NULL, 0, &l), 0);
	flt_program_destroy(p);
	for (int v = 0; v < 30; v++) {
		args[2].s64 = v;
		assert_int_equal(flt_run(l, args, NULL), v >= 10 && v < 20);
	}
	flt_linked_destroy(l);
	assert_int_equal(flt_run(NULL, args, NULL), 0);

	/* A context program without an environment drops the event. */
	assert_int_equal(flt_compile("$ctx.vpid == 42", &bc, &len, NULL), 0);
	assert_int_equal(flt_validate(bc, len, &p, NULL), 0);
	free(bc);
	assert_int_equal(flt_link_ust(p, fields, NFIELDS, ctxs, ARRAY_SIZE(ctxs), &l), 0);
	flt_program_destroy(p);
	assert_int_equal(flt_run(l, args, NULL), 0);
	assert_int_equal(flt_run(l, args, &env), 1);
	flt_linked_destroy(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers), cmocka_unit_test(test_bitwise),
		cmocka_unit_test(test_doubles),	 cmocka_unit_test(test_strings),
		cmocka_unit_test(test_arrays),	 cmocka_unit_test(test_logical),
		cmocka_unit_test(test_contexts), cmocka_unit_test(test_depth),
		cmocka_unit_test(test_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
