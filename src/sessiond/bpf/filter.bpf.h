/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Trackers and filters in the recorder (filter-abi.h says what the maps
 * hold). Included by recorder.bpf.c after struct kr_scratch, which it
 * hooks at two points:
 *
 *   want = kr_channels_for(key);
 *   want = kf_track_want(want);          trackers: before any work
 *   ... header, payload, user strings built in the per-CPU scratch ...
 *   want = kf_filter_want(sc, key, want, off);   filters: before output
 *   kr_output(sc, size, want);
 *
 * Both cost one load and a branch when no channel uses them.
 *
 * Filters run as an interpreter (kf_step(), one instruction per bpf_loop()
 * iteration) over a program the loader translated for this event's record
 * layout: verified once, whatever the program, and bounded (KF_MAX_INSN
 * steps, string comparisons KF_STR_STEPS, globs KF_GLOB_STEPS). Generating
 * a BPF program per filter instead would need one program, one load and
 * one verifier pass per rule and event (thousands for `--all`), each
 * attached in place of the generic recorder; the interpreter's cost per
 * event is measured in docs/benchmarks.md (kernel filters).
 */
#ifndef STRATA_KERNEL_FILTER_BPF_H
#define STRATA_KERNEL_FILTER_BPF_H

#include "filter-abi.h"

struct kf_globals kf_g;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KF_MAX_TRACKED);
	__type(key, struct kf_track_key);
	__type(value, __u8);
} kr_track SEC(".maps");

/* An array (its lookups are inlined): 0 is "no filter", else KF_FILTERED | mask. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KR_MAX_CHAN * KR_MAX_KEYS);
	__type(key, __u32); /* chan * KR_MAX_KEYS + key */
	__type(value, __u32);
} kr_filt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KF_MAX_PROGS);
	__type(key, struct kf_prog_key);
	__type(value, struct kf_prog);
} kr_fprog SEC(".maps");

/*
 * The interpreter's state, per CPU (tracing programs never nest on a CPU,
 * as for kr_scratch): on the stack it would pass the 512-byte limit of the
 * call chain recorder -> filter -> interpreter -> string comparison.
 */
struct kf_run;
struct kf_state;

/* ---- trackers ---- */

#define KF_OVERFLOW_ID 65534 /* what the kernel shows for an id a namespace cannot map */

/* from_kuid()/from_kgid() for maps of up to 5 extents (inline in the map). */
static __always_inline __u32 kf_map_id(struct uid_gid_map *m, __u32 kid)
{
	__u32 n = m->nr_extents;

	if (n > 5)
		return KF_OVERFLOW_ID;
	for (int i = 0; i < 5; i++) {
		__u32 first, lower, count;

		if (i >= n)
			break;
		first = m->extent[i].first;
		lower = m->extent[i].lower_first;
		count = m->extent[i].count;
		if (kid - lower < count)
			return first + (kid - lower);
	}
	return KF_OVERFLOW_ID;
}

__noinline unsigned int kf_track_check(unsigned int want)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 uid_gid = bpf_get_current_uid_gid();
	struct user_namespace *ns = t->cred->user_ns;
	struct pid *gp = t->group_leader->thread_pid;
	unsigned int level = gp->level;
	__u32 ids[KF_NATTR];

	ids[KF_PID] = (__u32)(bpf_get_current_pid_tgid() >> 32);
	ids[KF_VPID] = level ? (__u32)kr_pid_nr_at(gp, level) : ids[KF_PID];
	ids[KF_UID] = (__u32)uid_gid;
	ids[KF_GID] = (__u32)(uid_gid >> 32);
	if (ns->level) {
		ids[KF_VUID] = kf_map_id(&ns->uid_map, ids[KF_UID]);
		ids[KF_VGID] = kf_map_id(&ns->gid_map, ids[KF_GID]);
	} else {
		ids[KF_VUID] = ids[KF_UID];
		ids[KF_VGID] = ids[KF_GID];
	}
	for (int c = 0; c < KR_MAX_CHAN; c++) {
		unsigned int pol;

		if (!(want & (1U << c)))
			continue;
		pol = kf_g.track_pol[c & (KR_MAX_CHAN - 1)];
		for (int a = 0; a < KF_NATTR && pol; a++, pol >>= 2) {
			struct kf_track_key k = { .chan_attr = c * KF_NATTR + a, .id = ids[a] };

			if ((pol & 3) == KF_POL_ALL)
				continue;
			if ((pol & 3) == KF_POL_NONE || !bpf_map_lookup_elem(&kr_track, &k)) {
				want &= ~(1U << c);
				break;
			}
		}
	}
	return want;
}

static __always_inline unsigned int kf_track_want(unsigned int want)
{
	unsigned int any = 0;

#pragma unroll
	for (int c = 0; c < KR_MAX_CHAN; c++)
		if (want & (1U << c))
			any |= kf_g.track_pol[c];
	return any ? kf_track_check(want) : want;
}

/* ---- filters ---- */

/* Interpreter state: scalars only (a global function may change any of it). */
struct kf_run {
	__u32 off; /* payload offset in the scratch */
	__u32 pc;
	__u32 sp;
	int res; /* 1 record, 0 drop */
	__s64 v[KF_STACK];
};

/* A string value: base (0 scratch, 1 program text) << 40 | max length << 20 | start. */
static __always_inline __s64 kf_str(__u32 base, __u32 start, __u32 max)
{
	return (__s64)(((__u64)base << 40) | ((__u64)(max & 0xfffff) << 20) | (start & 0xfffff));
}

static __always_inline int kf_char(struct kr_scratch *s, struct kf_prog *p, __s64 v, __u32 i)
{
	__u32 start = v & 0xfffff, max = (v >> 20) & 0xfffff;

	if (i >= max)
		return 0;
	if ((__u64)v >> 40)
		return (signed char)p->text[(start + i) & (KF_TEXT - 1)];
	return (signed char)s->buf[(start + i) & (KR_SCRATCH - 1)];
}

/* size bytes at pos of the scratch, sign- or zero-extended. */
static __always_inline __s64 kf_load(struct kr_scratch *s, __u32 pos, __u32 size, int sign)
{
	__u64 v = 0;
	unsigned int shift;

	pos &= KR_SCRATCH - 1;
	if (pos > KR_SCRATCH - 8)
		return 0;
	__builtin_memcpy(&v, &s->buf[pos], 8);
	if (size >= 8)
		return (__s64)v;
	shift = 64 - 8 * (size & 7);
	return sign ? ((__s64)(v << shift) >> shift) : (__s64)((v << shift) >> shift);
}

struct kf_cmp {
	__s64 a, b;
	__u32 i, j;
	__u32 alit, blit;
	__u32 star_p, star_c, has_star;
	int res;
};

/*
 * The bpf_loop() callbacks only call a global function (verified once, with
 * unknown values): a static callback whose state the verifier tracks
 * precisely never converges over thousands of iterations. The pointers the
 * callback passes on live in a context of their own, which the global
 * function never receives: memory given to a global function turns into
 * unknown scalars for the verifier, pointers included.
 */
struct kf_loop {
	struct kr_scratch *s;
	struct kf_prog *p;
	void *state; /* struct kf_run or struct kf_cmp */
};

/* One character of flt_strcmp() (lib/filter/run.c): lttng-ust's string order. */
__noinline int kf_scmp_g(struct kf_cmp *c, struct kr_scratch *s, struct kf_prog *p)
{
	if (!c || !s || !p)
		return 1;
	int ca = kf_char(s, p, c->a, c->i), cb = kf_char(s, p, c->b, c->j);

	if (!ca) {
		c->res = (!cb || (c->blit && cb == '*')) ? 0 : -1;
		return 1;
	}
	if (!cb) {
		c->res = c->alit && ca == '*' ? 0 : 1;
		return 1;
	}
	if (c->alit) {
		if (ca == '*') {
			c->res = 0;
			return 1;
		}
		if (ca == '\\')
			ca = kf_char(s, p, c->a, ++c->i);
	}
	if (c->blit) {
		if (cb == '*') {
			c->res = 0;
			return 1;
		}
		if (cb == '\\')
			cb = kf_char(s, p, c->b, ++c->j);
	}
	if (ca != cb) {
		c->res = ca - cb;
		return 1;
	}
	c->i++;
	c->j++;
	return 0;
}

static long kf_scmp_step(__u64 n, void *ctx)
{
	struct kf_loop *l = ctx;

	return kf_scmp_g(l->state, l->s, l->p) ? 1 : 0;
}

/* One step of flt_glob_match(): pattern a, candidate b. */
__noinline int kf_glob_g(struct kf_cmp *c, struct kr_scratch *s, struct kf_prog *p)
{
	if (!c || !s || !p)
		return 1;
	int pc = kf_char(s, p, c->a, c->i), cc;

	if (pc) {
		__u32 adv = 1;

		if (pc == '*') {
			c->star_p = ++c->i;
			c->star_c = c->j;
			c->has_star = 1;
			return 0;
		}
		if (pc == '\\') {
			int e = kf_char(s, p, c->a, c->i + 1);

			if (e) {
				pc = e;
				adv = 2;
			}
		}
		cc = kf_char(s, p, c->b, c->j);
		if (cc && cc == pc) {
			c->i += adv;
			c->j++;
			return 0;
		}
	} else if (!kf_char(s, p, c->b, c->j)) {
		c->res = 1;
		return 1;
	}
	if (!c->has_star || !kf_char(s, p, c->b, c->star_c)) {
		c->res = 0;
		return 1;
	}
	c->i = c->star_p;
	c->j = ++c->star_c;
	return 0;
}

static long kf_glob_step(__u64 n, void *ctx)
{
	struct kf_loop *l = ctx;

	return kf_glob_g(l->state, l->s, l->p) ? 1 : 0;
}

static __always_inline int kf_compare(int sub, __s64 x, __s64 y)
{
	switch (sub) {
	case KF_CMP_EQ:
		return x == y;
	case KF_CMP_NE:
		return x != y;
	case KF_CMP_LT:
		return x < y;
	case KF_CMP_LE:
		return x <= y;
	case KF_CMP_GT:
		return x > y;
	default:
		return x >= y;
	}
}

static __always_inline __s64 kf_load_str(struct kf_run *r, struct kr_scratch *s,
					  struct kf_insn *in)
{
	__u32 loc;

	switch (in->sub) {
	case KF_S_FIXED:
		return kf_str(0, r->off + in->a, in->b);
	case KF_S_DL:
		loc = (__u32)kf_load(s, r->off + in->a, 4, 0);
		if ((loc & 0xffff) < 8)
			return kf_str(0, 0, 0);
		return kf_str(0, r->off + (loc & 0xffff) - 8, loc >> 16);
	case KF_S_USER:
		return kf_str(0, s->stroff[in->a & 7], KR_MAX_STR);
	case KF_S_HDR:
		return kf_str(0, in->a, in->b);
	case KF_S_LIT:
		return kf_str(1, in->a, in->b);
	default:
		return kf_str(0, r->off + in->a, KR_MAX_STR);
	}
}

__noinline int kf_step_g(struct kf_run *r, struct kf_prog *p, struct kr_scratch *s)
{
	__u32 pc, sp, loc, cnt;
	struct kf_insn *in;
	struct kf_loop l;
	struct kf_cmp c;
	__s64 x, y;

	if (!r)
		return 1;
	pc = r->pc;
	sp = r->sp;
	if (!p || !s || pc >= KF_MAX_INSN || pc >= p->n || sp > KF_STACK - 1) {
		r->res = 0;
		return 1;
	}
	in = &p->insn[pc & (KF_MAX_INSN - 1)];
	r->pc = pc + 1;
	/* The loader's programs keep sp in [0, FLT_STACK_MAX]; masks are for the verifier. */
	x = sp ? r->v[(sp - 1) & (KF_STACK - 1)] : 0;
	y = sp > 1 ? r->v[(sp - 2) & (KF_STACK - 1)] : 0;
	switch (in->op) {
	case KF_RET:
		r->res = sp && x != 0;
		return 1;
	case KF_DROP:
		r->res = 0;
		return 1;
	case KF_IMM:
		r->v[sp & (KF_STACK - 1)] = in->imm;
		r->sp = sp + 1;
		return 0;
	case KF_LD_INT:
		r->v[sp & (KF_STACK - 1)] = kf_load(s, r->off + in->a, in->size, in->flags & KF_F_SIGNED);
		r->sp = sp + 1;
		return 0;
	case KF_LD_HDR:
		r->v[sp & (KF_STACK - 1)] = kf_load(s, in->a, 4, !(in->flags & KF_F_UNSIGNED));
		r->sp = sp + 1;
		return 0;
	case KF_LD_DLINT:
		loc = (__u32)kf_load(s, r->off + in->a, 4, 0);
		cnt = in->size ? (loc >> 16) / in->size : 0;
		if ((loc & 0xffff) < 8 || (__u64)in->imm >= cnt) {
			r->res = 0; /* past the array: the event is dropped */
			return 1;
		}
		r->v[sp & (KF_STACK - 1)] = kf_load(s, r->off + (loc & 0xffff) - 8 + (__u32)in->imm * in->size,
						    in->size, in->flags & KF_F_SIGNED);
		r->sp = sp + 1;
		return 0;
	case KF_LD_STR:
		r->v[sp & (KF_STACK - 1)] = kf_load_str(r, s, in);
		r->sp = sp + 1;
		return 0;
	case KF_NEG:
		r->v[(sp - 1) & (KF_STACK - 1)] = (__s64)(0 - (__u64)x);
		return 0;
	case KF_NOT:
		r->v[(sp - 1) & (KF_STACK - 1)] = !x;
		return 0;
	case KF_BITNOT:
		r->v[(sp - 1) & (KF_STACK - 1)] = (__s64) ~(__u64)x;
		return 0;
	case KF_AND:
		if (!x) {
			r->pc = in->a;
			return 0;
		}
		r->sp = sp - 1;
		return 0;
	case KF_OR:
		if (x) {
			r->v[(sp - 1) & (KF_STACK - 1)] = 1;
			r->pc = in->a;
			return 0;
		}
		r->sp = sp - 1;
		return 0;
	default:
		break;
	}
	/* Binary: y (left) op x (right). */
	switch (in->op) {
	case KF_BAND:
		y = (__s64)((__u64)y & (__u64)x);
		break;
	case KF_BOR:
		y = (__s64)((__u64)y | (__u64)x);
		break;
	case KF_BXOR:
		y = (__s64)((__u64)y ^ (__u64)x);
		break;
	case KF_SHL:
	case KF_SHR:
		if (x < 0 || x > 63) {
			r->res = 0; /* lttng drops the event */
			return 1;
		}
		y = in->op == KF_SHL ? (__s64)((__u64)y << (x & 63)) : (__s64)((__u64)y >> (x & 63));
		break;
	case KF_CMP:
		y = kf_compare(in->sub, y, x);
		break;
	case KF_SCMP:
		__builtin_memset(&c, 0, sizeof(c));
		c.a = y;
		c.b = x;
		c.alit = in->flags & KF_F_LEFT_LIT;
		c.blit = in->flags & KF_F_RIGHT_LIT;
		l.s = s;
		l.p = p;
		l.state = &c;
		bpf_loop(KF_STR_STEPS, kf_scmp_step, &l, 0);
		y = kf_compare(in->sub, c.res, 0);
		break;
	case KF_GLOB:
		__builtin_memset(&c, 0, sizeof(c));
		l.s = s;
		l.p = p;
		l.state = &c;
		c.a = (in->flags & KF_F_LEFT_PATTERN) ? y : x;
		c.b = (in->flags & KF_F_LEFT_PATTERN) ? x : y;
		bpf_loop(KF_GLOB_STEPS, kf_glob_step, &l, 0);
		y = in->sub == KF_CMP_EQ ? c.res : !c.res;
		break;
	default:
		r->res = 0;
		return 1;
	}
	r->v[(sp - 2) & (KF_STACK - 1)] = y;
	r->sp = sp - 1;
	return 0;
}

struct kf_state {
	struct kf_run r;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kf_state);
} kr_fstate SEC(".maps");

__noinline int kf_exec(struct kf_prog *p, struct kr_scratch *s, unsigned int off)
{
	__u32 zero = 0;
	struct kf_state *st = bpf_map_lookup_elem(&kr_fstate, &zero);

	if (!p || !s || !st)
		return 0;
	__builtin_memset(&st->r, 0, sizeof(st->r));
	st->r.off = off;
	/* A bounded loop of direct calls: cheaper than bpf_loop()'s callbacks here. */
	for (int i = 0; i < KF_MAX_INSN; i++)
		if (kf_step_g(&st->r, p, s))
			break;
	return st->r.res;
}

/* Channels of want whose filters on key reject the record in s are removed. */
__noinline unsigned int kf_filter_check(struct kr_scratch *s, __u32 key, unsigned int want,
					unsigned int off)
{
	if (!s)
		return 0;
	for (int c = 0; c < KR_MAX_CHAN; c++) {
		__u32 fk = c * KR_MAX_KEYS + key, *mask, m;
		int pass = 0;

		if (!(want & kf_g.filtered & (1U << c)))
			continue;
		mask = bpf_map_lookup_elem(&kr_filt, &fk);
		if (!mask || !(*mask & KF_FILTERED))
			continue; /* recorded unfiltered */
		m = *mask;
		for (int rule = 0; rule < KF_MAX_RULES && !pass; rule++) {
			struct kf_prog_key pk = { .key = key, .chan_rule = c * KF_MAX_RULES + rule };
			struct kf_prog *p;

			if (!(m & (1U << rule)))
				continue;
			p = bpf_map_lookup_elem(&kr_fprog, &pk);
			if (p && kf_exec(p, s, off))
				pass = 1;
		}
		if (!pass)
			want &= ~(1U << c);
	}
	return want;
}

static __always_inline unsigned int kf_filter_want(struct kr_scratch *s, __u32 key,
						   unsigned int want, unsigned int off)
{
	return (want & kf_g.filtered) ? kf_filter_check(s, key, want, off) : want;
}

#endif
