/* SPDX-License-Identifier: MIT */
/*
 * flt_run(): the interpreter, on the traced application's fast path. Only
 * forward progress (jumps go forward: at most n steps), a fixed stack of
 * FLT_STACK_MAX values that the validator proved enough, no allocation, no
 * lock, no errno: async-signal-safe.
 */
#include <string.h>

#include "filter/runtime.h"

#include "common/common.h"

struct rval {
	union {
		int64_t i;
		double d;
		const char *s;
	};
	uint64_t len; /* strings: bytes readable at s (the string ends earlier at a NUL) */
};

static const char null_string[] = "(null)";

/* The character at i of a string that ends at len or at its first NUL; 0 past the end. */
static inline int char_at(const char *s, uint64_t len, uint64_t i)
{
	return i < len ? (signed char)s[i] : 0;
}

/*
 * strcmp() as LTTng-UST compares filter strings: byte-wise with the
 * platform's char signedness, each side ending at its NUL or its length; in
 * a plain literal, `\x` stands for x and an unescaped `*` ends the
 * comparison as equal (so "ab*" is a prefix match).
 */
int flt_strcmp(const char *a, uint64_t alen, int alit, const char *b, uint64_t blen, int blit)
{
	uint64_t i = 0, j = 0;

	for (;;) {
		int ca = char_at(a, alen, i), cb = char_at(b, blen, j);

		if (!ca) {
			if (!cb || (blit && cb == '*'))
				return 0;
			return -1;
		}
		if (!cb)
			return alit && ca == '*' ? 0 : 1;
		if (alit) {
			if (ca == '*')
				return 0;
			if (ca == '\\')
				ca = char_at(a, alen, ++i);
		}
		if (blit) {
			if (cb == '*')
				return 0;
			if (cb == '\\')
				cb = char_at(b, blen, ++j);
		}
		if (ca != cb)
			return ca - cb;
		i++;
		j++;
	}
}

/*
 * Star-glob match: `*` matches any run (empty included), `\x` stands for x.
 * Backtracks to the last star only, so time is O(pattern x candidate).
 */
int flt_glob_match(const char *pat, uint64_t plen, const char *cand, uint64_t clen)
{
	uint64_t pi = 0, ci = 0, star_p = UINT64_MAX, star_c = 0;

	plen = strnlen(pat, plen);
	clen = strnlen(cand, clen);
	for (;;) {
		if (pi < plen) {
			char pc = pat[pi];
			uint64_t adv = 1;

			if (pc == '*') {
				star_p = ++pi;
				star_c = ci;
				continue;
			}
			if (pc == '\\' && pi + 1 < plen) {
				pc = pat[pi + 1];
				adv = 2;
			}
			if (ci < clen && cand[ci] == pc) {
				pi += adv;
				ci++;
				continue;
			}
		} else if (ci == clen) {
			return 1;
		}
		if (star_p == UINT64_MAX || star_c >= clen)
			return 0;
		pi = star_p;
		ci = ++star_c;
	}
}

static inline uint64_t swap_n(uint64_t v, unsigned int size)
{
	switch (size) {
	case 2:
		return __builtin_bswap16((uint16_t)v);
	case 4:
		return __builtin_bswap32((uint32_t)v);
	case 8:
		return __builtin_bswap64(v);
	default:
		return v & 0xff;
	}
}

static inline int64_t extend(uint64_t v, unsigned int size, int is_signed)
{
	unsigned int shift = 64 - 8 * size;

	if (shift == 0)
		return (int64_t)v;
	v &= UINT64_MAX >> shift;
	if (is_signed)
		return (int64_t)(v << shift) >> shift;
	return (int64_t)v;
}

/* Load a binding; 0, or -1 to drop the event. */
static inline int load(const struct flt_binding *b, const union strata_filter_arg *args,
		       const struct flt_env *env, struct rval *v)
{
	const union strata_filter_arg *a = &args[b->index];
	union strata_filter_arg c;
	uint64_t raw = 0;

	switch (b->kind) {
	case FLT_B_INT:
		v->i = a->s64;
		return 0;
	case FLT_B_INT_NET:
		v->i = extend(swap_n(a->u64, b->size), b->size, b->flags & FLT_BF_SIGNED);
		return 0;
	case FLT_B_DOUBLE:
		v->d = a->d;
		return 0;
	case FLT_B_STRING:
		if (!a->ref.ptr) {
			v->s = null_string;
			v->len = sizeof(null_string) - 1;
		} else {
			v->s = a->ref.ptr;
			v->len = a->ref.len;
		}
		return 0;
	case FLT_B_TEXT:
		if (!a->ref.ptr)
			return -1;
		v->s = a->ref.ptr;
		v->len = a->ref.len;
		return 0;
	case FLT_B_ELEM:
		if (!a->ref.ptr || b->elem >= a->ref.len)
			return -1;
		memcpy(&raw, (const char *)a->ref.ptr + b->elem * b->size, b->size);
		if (b->flags & FLT_BF_NETWORK)
			raw = swap_n(raw, b->size);
		v->i = extend(raw, b->size, b->flags & FLT_BF_SIGNED);
		return 0;
	case FLT_B_CTX_INT:
	case FLT_B_CTX_DOUBLE:
	case FLT_B_CTX_STRING:
		if (!env || !env->get_ctx || env->get_ctx(env->opaque, b->index, &c))
			return -1;
		if (b->kind == FLT_B_CTX_INT) {
			v->i = c.s64;
		} else if (b->kind == FLT_B_CTX_DOUBLE) {
			v->d = c.d;
		} else if (!c.ref.ptr) {
			v->s = null_string;
			v->len = sizeof(null_string) - 1;
		} else {
			v->s = c.ref.ptr;
			v->len = c.ref.len;
		}
		return 0;
	default:
		return -1;
	}
}

/* Top of stack and the value under it; top is the next free slot. */
#define TOS top[-1]
#define NOS top[-2]

#define CMP(sub, x, y)                      \
	((sub) == FLT_CMP_EQ ? (x) == (y) : \
	 (sub) == FLT_CMP_NE ? (x) != (y) : \
	 (sub) == FLT_CMP_LT ? (x) < (y) :  \
	 (sub) == FLT_CMP_LE ? (x) <= (y) : \
	 (sub) == FLT_CMP_GT ? (x) > (y) :  \
			       (x) >= (y))

int flt_run(const struct flt_linked *l, const union strata_filter_arg *args,
	    const struct flt_env *env)
{
	struct rval st[FLT_STACK_MAX];
	struct rval *top = st; /* next free slot: the validator proved FLT_STACK_MAX enough */
	uint32_t pc = 0;

	if (!l)
		return 0;
	while (pc < l->n) {
		const struct flt_linsn *in = &l->insn[pc++];
		int c;

		switch (in->op) {
		case FLT_L_RET:
			return TOS.i != 0;
		case FLT_L_IMM_INT:
			top->i = in->u.i;
			top++;
			break;
		case FLT_L_IMM_DOUBLE:
			top->d = in->u.d;
			top++;
			break;
		case FLT_L_IMM_STR:
			top->s = in->u.s;
			top->len = in->a;
			top++;
			break;
		case FLT_L_LOAD:
			if (load(&in->u.b, args, env, top++))
				return 0;
			break;
		case FLT_L_NEG_INT:
			TOS.i = (int64_t)(0 - (uint64_t)TOS.i);
			break;
		case FLT_L_NEG_DOUBLE:
			TOS.d = -TOS.d;
			break;
		case FLT_L_NOT_INT:
			TOS.i = !TOS.i;
			break;
		case FLT_L_NOT_DOUBLE:
			TOS.i = !TOS.d;
			break;
		case FLT_L_BITNOT:
			TOS.i = (int64_t) ~(uint64_t)TOS.i;
			break;
		case FLT_L_BAND:
			NOS.i = (int64_t)((uint64_t)NOS.i & (uint64_t)TOS.i);
			top--;
			break;
		case FLT_L_BOR:
			NOS.i = (int64_t)((uint64_t)NOS.i | (uint64_t)TOS.i);
			top--;
			break;
		case FLT_L_BXOR:
			NOS.i = (int64_t)((uint64_t)NOS.i ^ (uint64_t)TOS.i);
			top--;
			break;
		case FLT_L_SHL:
		case FLT_L_SHR:
			/* LTTng drops the event for a count outside [0, 63]. */
			if (TOS.i < 0 || TOS.i > 63)
				return 0;
			NOS.i = (int64_t)(in->op == FLT_L_SHL ? (uint64_t)NOS.i << TOS.i :
								(uint64_t)NOS.i >> TOS.i);
			top--;
			break;
		case FLT_L_CMP_II:
			NOS.i = CMP(in->sub, NOS.i, TOS.i);
			top--;
			break;
		case FLT_L_CMP_ID:
			NOS.i = CMP(in->sub, (double)NOS.i, TOS.d);
			top--;
			break;
		case FLT_L_CMP_DI:
			NOS.i = CMP(in->sub, NOS.d, (double)TOS.i);
			top--;
			break;
		case FLT_L_CMP_DD:
			NOS.i = CMP(in->sub, NOS.d, TOS.d);
			top--;
			break;
		case FLT_L_CMP_SS:
			c = flt_strcmp(NOS.s, NOS.len, in->flags & FLT_LF_LEFT_LIT, TOS.s, TOS.len,
				       in->flags & FLT_LF_RIGHT_LIT);
			NOS.i = CMP(in->sub, c, 0);
			top--;
			break;
		case FLT_L_GLOB:
			c = in->flags & FLT_LF_LEFT_PATTERN ?
				    flt_glob_match(NOS.s, NOS.len, TOS.s, TOS.len) :
				    flt_glob_match(TOS.s, TOS.len, NOS.s, NOS.len);
			NOS.i = in->sub == FLT_CMP_EQ ? c : !c;
			top--;
			break;
		case FLT_L_D2I:
			/* Out-of-range doubles convert as x86-64 does (LTTng casts), without UB. */
			if (TOS.d >= -9223372036854775808.0 && TOS.d < 9223372036854775808.0)
				TOS.i = (int64_t)TOS.d;
			else
				TOS.i = INT64_MIN; /* what x86-64 gives, NaN included */
			break;
		case FLT_L_AND:
			if (!TOS.i) {
				pc = in->a;
				break;
			}
			top--;
			break;
		case FLT_L_OR:
			if (TOS.i) {
				TOS.i = 1;
				pc = in->a;
				break;
			}
			top--;
			break;
		default:
			return 0;
		}
	}
	return 0;
}
