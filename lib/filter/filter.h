/* SPDX-License-Identifier: MIT */
/*
 * Filters: LTTng 2.13's filter expression language, compiled once to
 * strata's bytecode (bytecode.h), validated and linked by whoever runs it.
 *
 *   CLI / daemon              traced app (lib/ust) or kernel domain
 *   flt_compile(text)  ---->  flt_validate(bytes)    hostile input: checked
 *   flt_error_caret()         flt_link_ust() / flt_link(resolver)
 *                             flt_run(linked, args)  per event, signal-safe
 *
 * Two static libraries: filter_dep (everything) for the CLI and the daemon,
 * filter_rt_dep (validate, link, run: no compiler) for libstrata-ust.
 *
 * Semantics are LTTng-UST 2.13's: comparisons are signed 64-bit, an
 * integer against a double compares as doubles, strings compare byte-wise
 * and a literal's unescaped final `*` matches any rest, && and || give
 * their last evaluated operand cast to int64 (|| gives 1 when it jumps).
 * Whatever makes LTTng never record an event with a rule (a payload field
 * the event lacks, named anywhere; a missing context; a string compared
 * with a number; a double or string as the result) makes flt_link() fail,
 * and whatever makes LTTng drop one event (shift count outside [0, 63], an
 * index outside the array or sequence) makes flt_run() return 0.
 *
 * Thread-safety: a program or linked program is immutable once built;
 * flt_run() may run on any number of threads and in signal handlers (no
 * allocation, no lock, no errno). Everything else allocates.
 *
 * Errors: >= 0 or -errno. Libraries never print: messages come back in
 * struct flt_error or as static strings.
 */
#ifndef STRATA_FILTER_FILTER_H
#define STRATA_FILTER_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <strata/ust-events.h>

#include "filter/bytecode.h"

/* ---- Compiler (filter_dep) ---- */

struct flt_error {
	size_t offset; /* byte offset of the error in the expression */
	char msg[200]; /* "Unexpected ')'", "Arithmetic operator '+' is not supported", ... */
};

/*
 * Compile a NUL-terminated expression. On success *ret_bc (malloc'ed,
 * *ret_len bytes) holds a program that flt_validate() accepts unless it
 * needs more than FLT_STACK_MAX stack values (LTTng accepts those too and
 * its tracer never runs them: flt_validate() says why).
 * Returns 0; -EINVAL when the expression is refused (err filled: what and
 * where), -E2BIG when it is too long (err filled), -ENOMEM.
 */
int flt_compile(const char *expr, void **ret_bc, size_t *ret_len, struct flt_error *err);

/*
 * Write the two-line display of an error into buf: the line of the
 * expression holding the error, then a caret under the byte at fault
 * (tabs kept so that it lines up), each ending with '\n'. Long lines are
 * cut to a window around the error, marked with "...". Returns the length
 * written (truncated to len - 1 like snprintf), or -EINVAL.
 */
int flt_error_caret(const char *expr, const struct flt_error *err, char *buf, size_t len);

/* ---- Runtime (filter_rt_dep) ---- */

struct flt_program;

/*
 * Check bytecode received from elsewhere (the daemon) and keep a private,
 * validated copy. Never crashes, whatever the bytes; allocates at most a
 * few times len. Returns 0, -EINVAL (*ret_why, if given, points at a static
 * reason), -ENOMEM.
 */
int flt_validate(const void *bc, size_t len, struct flt_program **ret, const char **ret_why);
void flt_program_destroy(struct flt_program *p);
/* Whether the program has a floating-point literal (the kernel never matches those). */
bool flt_program_has_float(const struct flt_program *p);

/* A reference of the program, as the linker's resolver sees it. */
struct flt_symref {
	uint8_t root; /* enum flt_root */
	uint8_t ncomp;
	struct {
		uint8_t kind; /* enum flt_comp_kind */
		const char *name; /* FLT_COMP_NAME: not NUL-terminated */
		uint32_t len;
		uint64_t index; /* FLT_COMP_INDEX */
	} comp[FLT_BC_MAX_COMPS];
};

/* How a reference is read at run time. */
enum flt_bind_kind {
	/* args[index].s64: an integer, sign- or zero-extended by the probe. */
	FLT_B_INT,
	/* args[index]: an integer given in network byte order, `size` bytes. */
	FLT_B_INT_NET,
	FLT_B_DOUBLE, /* args[index].d */
	/* args[index].ref: (pointer, strlen); NULL reads as "(null)". */
	FLT_B_STRING,
	/* args[index].ref: (pointer, count) of text; ends at NUL or count; NULL drops. */
	FLT_B_TEXT,
	/* Element `elem` of args[index].ref (pointer, count) of `size`-byte integers. */
	FLT_B_ELEM,
	/* Contexts through flt_env.get_ctx(id). */
	FLT_B_CTX_INT,
	FLT_B_CTX_DOUBLE,
	FLT_B_CTX_STRING,
	FLT_B_COUNT_
};

#define FLT_BF_SIGNED 0x1 /* FLT_B_INT_NET, FLT_B_ELEM */
#define FLT_BF_NETWORK 0x2 /* FLT_B_ELEM: elements in network byte order */

struct flt_binding {
	uint8_t kind; /* enum flt_bind_kind */
	uint8_t size; /* bytes: 1, 2, 4, 8 (FLT_B_INT_NET, FLT_B_ELEM) */
	uint8_t flags; /* FLT_BF_* */
	uint32_t index; /* argument index, or context id */
	uint64_t elem; /* FLT_B_ELEM */
};

/* Returns 0 with *ret filled, or -ENOENT (the reference cannot be read). */
typedef int (*flt_resolve_fn)(void *opaque, const struct flt_symref *ref, struct flt_binding *ret);

struct flt_linked;

/*
 * Bind every reference through resolve and type the program. Returns 0;
 * -ENOENT (a reference the event lacks) and -EINVAL (types that cannot
 * evaluate, such as a string compared with a number): the rule never
 * records this event, as in LTTng; -ENOMEM.
 */
int flt_link(const struct flt_program *p, flt_resolve_fn resolve, void *opaque,
	     struct flt_linked **ret);
void flt_linked_destroy(struct flt_linked *l);

/* A context the runtime can supply, for flt_link_ust(). */
enum flt_ctx_type {
	FLT_CTX_INT,
	FLT_CTX_DOUBLE,
	FLT_CTX_STRING,
};

struct flt_ctx_desc {
	const char *name; /* "vpid", "procname"; for $app: "provider:name" */
	uint8_t root; /* FLT_ROOT_CTX or FLT_ROOT_APP */
	uint8_t type; /* enum flt_ctx_type */
	uint32_t id; /* passed back to flt_env.get_ctx */
};

/*
 * Link against a user-space event: payload references resolve to its
 * fields (arguments in field order, see union strata_filter_arg), $ctx and
 * $app ones to ctx[0, nctx). A sequence's length field cannot be named (as
 * in LTTng); text arrays and sequences read as strings; integer arrays and
 * sequences only through a constant index.
 */
int flt_link_ust(const struct flt_program *p, const struct strata_field_desc *fields,
		 uint32_t nfields, const struct flt_ctx_desc *ctx, size_t nctx,
		 struct flt_linked **ret);

struct flt_env {
	/*
	 * Read context id into *ret: integers as s64, doubles as d, strings
	 * as ref (pointer, length; NULL reads as "(null)"). Non-zero: the
	 * context cannot be read now, the event is dropped. Must be
	 * async-signal-safe when flt_run() runs in signal handlers.
	 */
	int (*get_ctx)(void *opaque, uint32_t id, union strata_filter_arg *ret);
	void *opaque;
};

/*
 * Evaluate for one event: args are the event's payload values (one per
 * field, see flt_link_ust()), env may be NULL when the program reads no
 * context. Returns 1 to record the event, 0 to drop it (false, or a run-time
 * error). Async-signal-safe, no allocation, at most FLT_BC_MAX_INSN steps.
 */
int flt_run(const struct flt_linked *l, const union strata_filter_arg *args,
	    const struct flt_env *env);

#endif
