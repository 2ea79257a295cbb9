/* SPDX-License-Identifier: MIT */
/*
 * Validated and linked programs (validate.c, link.c, run.c), and what the
 * kernel domain reads to translate a linked program for its BPF side.
 *
 * A linked program is typed: the linker resolved every reference to a
 * binding, so each value's type is known where it is produced and every
 * instruction is the specialised one (integer/double/string comparison,
 * glob match). flt_run() therefore checks no type, only what depends on
 * the event's values (shift counts, indexes, NULL text).
 */
#ifndef STRATA_FILTER_RUNTIME_H
#define STRATA_FILTER_RUNTIME_H

#include <stdint.h>

#include "filter/filter.h"

struct flt_program {
	struct flt_bc_header h;
	const struct flt_bc_insn *insn;
	const uint64_t *konst;
	const struct flt_bc_str *str;
	const struct flt_bc_sym *sym;
	const struct flt_bc_comp *comp;
	const char *text;
	uint64_t data[]; /* the bytecode, copied (8-byte aligned for the sections) */
};

/* Comparisons (flt_linsn.sub). */
enum flt_cmp { FLT_CMP_EQ, FLT_CMP_NE, FLT_CMP_LT, FLT_CMP_LE, FLT_CMP_GT, FLT_CMP_GE };

enum flt_lop {
	FLT_L_RET,
	FLT_L_IMM_INT, /* u.i */
	FLT_L_IMM_DOUBLE, /* u.d */
	FLT_L_IMM_STR, /* u.s, a = length: a string or glob literal */
	FLT_L_LOAD, /* u.b: a binding */
	FLT_L_NEG_INT,
	FLT_L_NEG_DOUBLE,
	FLT_L_NOT_INT,
	FLT_L_NOT_DOUBLE, /* -> int */
	FLT_L_BITNOT,
	FLT_L_BAND,
	FLT_L_BOR,
	FLT_L_BXOR,
	FLT_L_SHL,
	FLT_L_SHR,
	FLT_L_CMP_II, /* sub: enum flt_cmp */
	FLT_L_CMP_ID, /* int (left) against double */
	FLT_L_CMP_DI,
	FLT_L_CMP_DD,
	FLT_L_CMP_SS, /* flags: FLT_LF_LEFT_LIT, FLT_LF_RIGHT_LIT */
	FLT_L_GLOB, /* sub: EQ or NE; flags: FLT_LF_LEFT_PATTERN */
	FLT_L_D2I,
	FLT_L_AND, /* a: target */
	FLT_L_OR, /* a: target */
};

#define FLT_LF_LEFT_LIT 0x1 /* left string is a plain literal (final '*', escapes) */
#define FLT_LF_RIGHT_LIT 0x2
#define FLT_LF_LEFT_PATTERN 0x1 /* FLT_L_GLOB: the pattern is the left operand */

struct flt_linsn {
	uint8_t op; /* enum flt_lop */
	uint8_t sub;
	uint8_t flags;
	uint8_t pad;
	uint32_t a;
	union {
		int64_t i;
		double d;
		const char *s;
		struct flt_binding b;
	} u;
};

struct flt_linked {
	uint32_t n;
	uint8_t max_depth;
	char *text; /* literals (owned) */
	struct flt_linsn insn[];
};

/* Literal string comparison and star-glob match, as LTTng-UST's interpreter. */
int flt_strcmp(const char *a, uint64_t alen, int alit, const char *b, uint64_t blen, int blit);
int flt_glob_match(const char *pat, uint64_t plen, const char *cand, uint64_t clen);

#endif
