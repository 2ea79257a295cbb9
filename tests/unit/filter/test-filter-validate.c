/* SPDX-License-Identifier: MIT */
/*
 * The validator treats bytecode as hostile: hand-made programs that break
 * each rule are refused with a reason, and every one-byte corruption and
 * truncation of real programs is either refused or, when still valid, runs
 * without crashing (ASan/UBSan watch).
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

/* A tiny assembler: header + sections from arrays. */
struct prog {
	struct flt_bc_insn insn[64];
	uint64_t konst[8];
	struct flt_bc_str str[8];
	struct flt_bc_sym sym[8];
	struct flt_bc_comp comp[8];
	char text[64];
	unsigned int ninsn, nconst, nstr, nsym, ncomp, ntext;
};

static size_t assemble(const struct prog *p, uint8_t *out)
{
	struct flt_bc_header h = {
		.magic = FLT_BC_MAGIC,
		.version = FLT_BC_VERSION,
		.header_size = sizeof(h),
		.ninsn = (uint16_t)p->ninsn,
		.nconst = (uint16_t)p->nconst,
		.nstr = (uint16_t)p->nstr,
		.nsym = (uint16_t)p->nsym,
		.ncomp = (uint16_t)p->ncomp,
		.text_size = p->ntext,
	};
	size_t o = sizeof(h);

	memcpy(out + o, p->insn, 8 * p->ninsn);
	o += 8 * p->ninsn;
	memcpy(out + o, p->konst, 8 * p->nconst);
	o += 8 * p->nconst;
	memcpy(out + o, p->str, 8 * p->nstr);
	o += 8 * p->nstr;
	memcpy(out + o, p->sym, 8 * p->nsym);
	o += 8 * p->nsym;
	memcpy(out + o, p->comp, 8 * p->ncomp);
	o += 8 * p->ncomp;
	memcpy(out + o, p->text, p->ntext);
	o += p->ntext;
	h.total_size = (uint32_t)o;
	memcpy(out, &h, sizeof(h));
	return o;
}

static void op(struct prog *p, uint8_t code, uint32_t a32)
{
	p->insn[p->ninsn++] = (struct flt_bc_insn){ .op = code, .a32 = a32 };
}

/* A program with one constant (1) and one reference (field "a"). */
static void base(struct prog *p)
{
	memset(p, 0, sizeof(*p));
	p->konst[p->nconst++] = 1;
	memcpy(p->text, "a", 1);
	p->ntext = 1;
	p->str[p->nstr++] = (struct flt_bc_str){ 0, 1 };
	p->comp[p->ncomp++] = (struct flt_bc_comp){ .kind = FLT_COMP_NAME, .a32 = 0 };
	p->sym[p->nsym++] = (struct flt_bc_sym){ .root = FLT_ROOT_PAYLOAD, .ncomp = 1 };
}

static int validate(const struct prog *p, const char **why)
{
	uint8_t buf[2048];
	size_t n = assemble(p, buf);
	struct flt_program *fp = NULL;
	int r = flt_validate(buf, n, &fp, why);

	flt_program_destroy(fp);
	return r;
}

static void expect_refused(const struct prog *p, const char *needle)
{
	const char *why = NULL;

	assert_int_equal(validate(p, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, needle))
		fail_msg("refused for '%s', expected '%s'", why, needle);
}

static void test_handmade(void **state _unused_)
{
	struct prog p;
	const char *why;

	/* The minimal valid program: a == 1. */
	base(&p);
	op(&p, FLT_OP_LOAD_SYM, 0);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_EQ, 0);
	op(&p, FLT_OP_RET, 0);
	assert_int_equal(validate(&p, &why), 0);

	/* RET with two values, RET in the middle, no RET. */
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "RET");
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_RET, 0);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "RET");
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	expect_refused(&p, "RET");

	/* Underflow; unknown opcode; operands out of range. */
	base(&p);
	op(&p, FLT_OP_EQ, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "underflow");
	base(&p);
	op(&p, 200, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "unknown instruction");
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 5);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "constant");
	base(&p);
	op(&p, FLT_OP_LOAD_SYM, 3);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "reference");
	base(&p);
	op(&p, FLT_OP_LOAD_STR, 9);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "string");
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_NOT, 7);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "operand");

	/* Eleven values at once: more than the interpreter's stack. */
	base(&p);
	for (int i = 0; i < 11; i++)
		op(&p, FLT_OP_LOAD_INT, 0);
	for (int i = 0; i < 10; i++)
		op(&p, FLT_OP_BOR, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "stack");
	/* Ten are fine. */
	p.ninsn = 0;
	for (int i = 0; i < 10; i++)
		op(&p, FLT_OP_LOAD_INT, 0);
	for (int i = 0; i < 9; i++)
		op(&p, FLT_OP_BOR, 0);
	op(&p, FLT_OP_RET, 0);
	assert_int_equal(validate(&p, &why), 0);

	/* Jumps: backwards, to itself, past the end, without casts, badly nested. */
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_CAST_INT, 0);
	op(&p, FLT_OP_AND, 0);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_CAST_INT, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "target");
	p.insn[2].a32 = 2;
	expect_refused(&p, "target");
	p.insn[2].a32 = 6;
	expect_refused(&p, "target");
	p.insn[2].a32 = 5; /* the good one */
	assert_int_equal(validate(&p, &why), 0);
	p.insn[1].op = FLT_OP_NOT;
	expect_refused(&p, "cast");
	p.insn[1].op = FLT_OP_CAST_INT;
	p.insn[4].op = FLT_OP_NOT;
	expect_refused(&p, "target");

	/* Merge point: the right operand pops what lies under the jump's operand. */
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_CAST_INT, 0);
	op(&p, FLT_OP_OR, 6);
	op(&p, FLT_OP_BAND, 0); /* pops the value under the OR operand */
	op(&p, FLT_OP_CAST_INT, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "underflow");
	/* Merge point: the right operand leaves another depth. */
	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_CAST_INT, 0);
	op(&p, FLT_OP_OR, 5);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_CAST_INT, 0);
	op(&p, FLT_OP_BAND, 0);
	op(&p, FLT_OP_RET, 0);
	expect_refused(&p, "");

	/* Tables: names out of the text, empty, with NUL; bad roots. */
	base(&p);
	op(&p, FLT_OP_LOAD_SYM, 0);
	op(&p, FLT_OP_RET, 0);
	assert_int_equal(validate(&p, &why), 0);
	p.str[0].len = 2;
	expect_refused(&p, "text");
	p.str[0].len = 0;
	expect_refused(&p, "name");
	p.str[0].len = 1;
	p.text[0] = 0;
	expect_refused(&p, "name");
	p.text[0] = 'a';
	p.sym[0].root = 3;
	expect_refused(&p, "root");
	p.sym[0].root = 0;
	p.sym[0].ncomp = 2;
	expect_refused(&p, "components");
	p.sym[0].ncomp = 1;
	p.comp[0].kind = FLT_COMP_INDEX;
	expect_refused(&p, "name");
	p.comp[0].kind = 9;
	expect_refused(&p, "component");
}

static void test_header(void **state _unused_)
{
	struct flt_program *fp = NULL;
	uint8_t buf[512];
	const char *why;
	struct prog p;
	size_t n;

	base(&p);
	op(&p, FLT_OP_LOAD_INT, 0);
	op(&p, FLT_OP_RET, 0);
	n = assemble(&p, buf);
	assert_int_equal(flt_validate(buf, n, &fp, &why), 0);
	flt_program_destroy(fp);
	assert_int_equal(flt_validate(NULL, 0, &fp, &why), -EINVAL);
	assert_int_equal(flt_validate(buf, 10, &fp, &why), -EINVAL);
	assert_int_equal(flt_validate(buf, n - 1, &fp, &why), -EINVAL);
	assert_int_equal(flt_validate(buf, FLT_BC_MAX_SIZE + 1, &fp, &why), -EINVAL);
	buf[0] ^= 1;
	assert_int_equal(flt_validate(buf, n, &fp, &why), -EINVAL);
	assert_non_null(strstr(why, "magic"));
	buf[0] ^= 1;
	buf[4] = 2;
	assert_int_equal(flt_validate(buf, n, &fp, &why), -EINVAL);
	assert_non_null(strstr(why, "version"));
}

static const char *const corpus[] = {
	"s8 == -5 && (u64 > 3 || str == \"a*b\")",
	"str == \"*x*\" || txt != \"ab*\" && !(iarr[2] == -7)",
	"$ctx.vpid == 42 && $ctx.procname == \"te*\" || d > 1.5",
	"(s8 | (s8 | (s8 | (s8 | 1)))) != 0 && s8 >> 3 == 1",
	"a.b[3].c == 1 || $app.p:c == 2",
};

static const struct strata_field_desc fields[] = {
	{ .name = "s8", .kind = STRATA_TYPE_INTEGER, .integer = { 8, 1, 10, 0 } },
	{ .name = "u64", .kind = STRATA_TYPE_INTEGER, .integer = { 64, 0, 10, 0 } },
	{ .name = "str", .kind = STRATA_TYPE_STRING },
	{ .name = "txt",
	  .kind = STRATA_TYPE_ARRAY,
	  .encoding = STRATA_ENCODING_UTF8,
	  .integer = { 8, 1, 10, 0 },
	  .length = 4 },
	{ .name = "iarr", .kind = STRATA_TYPE_ARRAY, .integer = { 32, 1, 10, 0 }, .length = 4 },
	{ .name = "d", .kind = STRATA_TYPE_FLOAT, .integer = { 64 } },
};

static const struct flt_ctx_desc ctxs[] = {
	{ "vpid", FLT_ROOT_CTX, FLT_CTX_INT, 0 },
	{ "procname", FLT_ROOT_CTX, FLT_CTX_STRING, 1 },
};

static int get_ctx(void *opaque _unused_, uint32_t id, union strata_filter_arg *ret)
{
	if (id == 0)
		ret->s64 = 42;
	else
		ret->ref.ptr = "test", ret->ref.len = 4;
	return 0;
}

/* Validate, link and run whatever validates; count what ran. */
static int try_bytes(const uint8_t *bc, size_t n, const union strata_filter_arg *args)
{
	struct flt_program *p = NULL;
	struct flt_linked *l = NULL;
	const struct flt_env env = { get_ctx, NULL };
	int ran = 0;

	if (flt_validate(bc, n, &p, NULL))
		return 0;
	if (!flt_link_ust(p, fields, ARRAY_SIZE(fields), ctxs, ARRAY_SIZE(ctxs), &l)) {
		int r = flt_run(l, args, &env);

		assert_true(r == 0 || r == 1);
		ran = 1;
		flt_linked_destroy(l);
	}
	flt_program_destroy(p);
	return ran;
}

static void test_corruptions(void **state _unused_)
{
	static const char txt[4] = "abcd";
	static const int32_t iarr[4] = { 1, 2, -7, 4 };
	union strata_filter_arg args[6] = {
		{ .s64 = -5 },	       { .u64 = 7 },	       { .ref = { "axb", 3 } },
		{ .ref = { txt, 4 } }, { .ref = { iarr, 4 } }, { .d = 2.5 },
	};
	size_t tried = 0, ran = 0;

	for (size_t c = 0; c < ARRAY_SIZE(corpus); c++) {
		void *bc;
		uint8_t *m;
		size_t n;

		assert_int_equal(flt_compile(corpus[c], &bc, &n, NULL), 0);
		m = malloc(n);
		assert_non_null(m);
		for (size_t i = 0; i < n; i++) {
			static const uint8_t vals[] = { 0, 1, 2, 0x7f, 0x80, 0xff };

			for (size_t v = 0; v < ARRAY_SIZE(vals); v++) {
				memcpy(m, bc, n);
				m[i] = vals[v];
				ran += (size_t)try_bytes(m, n, args);
				memcpy(m, bc, n);
				m[i] ^= (uint8_t)(1u << (v % 8));
				ran += (size_t)try_bytes(m, n, args);
				tried += 2;
			}
		}
		for (size_t k = 0; k < n; k++)
			try_bytes(bc, k, args);
		free(m);
		free(bc);
	}
	printf("%zu corrupted programs, %zu still valid and linked, ran\n", tried, ran);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_corruptions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
