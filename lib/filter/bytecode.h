/* SPDX-License-Identifier: MIT */
/*
 * strata filter bytecode, version 1: what the CLI compiles an expression
 * into (flt_compile()), what the daemon stores and sends, and what a traced
 * application validates (flt_validate()) before linking it to an event.
 * Only strata reads it; it is not LTTng's format.
 *
 * A program is one contiguous block in host byte order, position
 * independent (every reference is an index or an offset inside the
 * block), made of a header and five sections that follow it in this order,
 * with no gap:
 *
 *   +--------------------+ 0
 *   | flt_bc_header      | 32 bytes
 *   +--------------------+ 32
 *   | insn[ninsn]        | 8 bytes each: op, a8, a16, a32
 *   +--------------------+
 *   | konst[nconst]      | 8 bytes each: an int64 or a double's bits
 *   +--------------------+
 *   | str[nstr]          | 8 bytes each: offset and length in text
 *   +--------------------+
 *   | sym[nsym]          | 8 bytes each: a field/context reference
 *   +--------------------+
 *   | comp[ncomp]        | 8 bytes each: a reference's name or index
 *   +--------------------+
 *   | text[text_size]    | raw bytes (names, literals), no terminator
 *   +--------------------+ total_size
 *
 * Evaluation is a stack machine run once from insn[0] to the RET that ends
 * the program: no loops (the only jumps are AND/OR, forward), so a run
 * costs at most ninsn steps, each bounded except string comparisons and
 * globs (bounded by their strings' lengths). Every instruction's effect on
 * the stack is fixed, so the validator computes the depth at each
 * instruction and refuses a program deeper than FLT_STACK_MAX, the size of
 * the interpreter's real stack.
 *
 *   op          a32        stack effect, meaning
 *   RET         -          v -> (end): the event is recorded when v != 0
 *   LOAD_INT    konst      -> int64
 *   LOAD_DOUBLE konst      -> double
 *   LOAD_STR    str        -> string literal; `\*` and `\\` escape, an
 *                             unescaped final `*` matches any rest (prefix)
 *   LOAD_GLOB   str        -> star-glob literal (only under EQ/NE, against a
 *                             string)
 *   LOAD_SYM    sym        -> the value of a payload field, a context or an
 *                             application context (typed when linked)
 *   NEG NOT BITNOT  -      x -> -x, !x, ~x
 *   BAND BOR BXOR SHL SHR  a b -> a op b, unsigned 64-bit; a shift count
 *                             outside [0, 63] drops the event
 *   EQ NE LT LE GT GE      a b -> int64 0/1: signed 64-bit, as double when
 *                             either is a double, byte-wise for strings,
 *                             glob match for a glob against a string
 *   CAST_INT    -          x -> int64 (a double is truncated): && and ||
 *                             operands
 *   AND         target     x: when x == 0 jump to insn[target] keeping 0,
 *                             else pop it
 *   OR          target     x: when x != 0 jump to insn[target] with 1,
 *                             else pop it
 *
 * A reference (sym) is a root (payload, $ctx, $app) and ncomp components
 * comp[first, first + ncomp): the first is a NAME (a field name, a context
 * name such as "vpid", "perf:cpu:cycles", or "provider:name" for $app),
 * the next are NAMEs (`a.b`, `a->b`) or constant INDEXes (`a[3]`). The
 * text of a name is str[a32] of its component; an index is konst[a32].
 *
 * Limits (checked by flt_validate(); the compiler never exceeds them):
 * total_size <= FLT_BC_MAX_SIZE, ninsn <= FLT_BC_MAX_INSN, one reference
 * has at most FLT_BC_MAX_COMPS components, a name at most
 * FLT_BC_MAX_NAME bytes, and the stack never holds more than
 * FLT_STACK_MAX values.
 */
#ifndef STRATA_FILTER_BYTECODE_H
#define STRATA_FILTER_BYTECODE_H

#include <stdint.h>

#define FLT_BC_MAGIC 0x31544c46u /* "FLT1" in a little-endian dump */
#define FLT_BC_VERSION 1
#define FLT_BC_MAX_SIZE (256 * 1024)
#define FLT_BC_MAX_INSN 16384
#define FLT_BC_MAX_COMPS 16
#define FLT_BC_MAX_NAME 255
/*
 * Live values the interpreter holds. LTTng's validator allows 10 but its
 * interpreter has room for 8 (9 or 10 abort the traced app): here the
 * validator's limit is the interpreter's stack size, so expressions LTTng
 * runs (<= 8 values) run, those it crashes on (9, 10) run too, and those it
 * refuses (> 10) are refused.
 */
#define FLT_STACK_MAX 10

/* Limits of the expression text, as lttng(1). */
#define FLT_EXPR_MAX_LEN 65535

struct flt_bc_header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_size; /* sizeof(struct flt_bc_header) */
	uint32_t total_size; /* header + sections */
	uint16_t ninsn;
	uint16_t nconst;
	uint16_t nstr;
	uint16_t nsym;
	uint16_t ncomp;
	uint16_t flags; /* FLT_BC_F_* */
	uint32_t text_size;
	uint32_t reserved; /* 0 */
};

/* The program contains a floating-point literal (the kernel refuses them). */
#define FLT_BC_F_FLOAT 0x1

enum flt_bc_op {
	FLT_OP_RET = 1,
	FLT_OP_LOAD_INT,
	FLT_OP_LOAD_DOUBLE,
	FLT_OP_LOAD_STR,
	FLT_OP_LOAD_GLOB,
	FLT_OP_LOAD_SYM,
	FLT_OP_NEG,
	FLT_OP_NOT,
	FLT_OP_BITNOT,
	FLT_OP_BAND,
	FLT_OP_BOR,
	FLT_OP_BXOR,
	FLT_OP_SHL,
	FLT_OP_SHR,
	FLT_OP_EQ,
	FLT_OP_NE,
	FLT_OP_LT,
	FLT_OP_LE,
	FLT_OP_GT,
	FLT_OP_GE,
	FLT_OP_CAST_INT,
	FLT_OP_AND,
	FLT_OP_OR,
	FLT_OP_COUNT_
};

struct flt_bc_insn {
	uint8_t op;
	uint8_t a8; /* 0 */
	uint16_t a16; /* 0 */
	uint32_t a32;
};

struct flt_bc_str {
	uint32_t off; /* in text */
	uint32_t len;
};

enum flt_root {
	FLT_ROOT_PAYLOAD = 0,
	FLT_ROOT_CTX = 1, /* $ctx.NAME */
	FLT_ROOT_APP = 2, /* $app.PROVIDER:NAME */
};

struct flt_bc_sym {
	uint8_t root; /* enum flt_root */
	uint8_t ncomp;
	uint16_t first; /* index in comp */
	uint32_t reserved; /* 0 */
};

enum flt_comp_kind {
	FLT_COMP_NAME = 1, /* a32: str index */
	FLT_COMP_INDEX = 2, /* a32: konst index */
};

struct flt_bc_comp {
	uint8_t kind;
	uint8_t pad[3]; /* 0 */
	uint32_t a32;
};

#endif
