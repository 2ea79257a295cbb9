/* SPDX-License-Identifier: MIT */
/*
 * Kernel filters: filtered rules per channel, their bytecode linked
 * against each event's record layout (flt_link() with a resolver over the
 * event's class, then translated to the BPF interpreter's struct kf_prog),
 * and the maps that tell the recorder which programs decide (filter-abi.h).
 *
 * Which rules enable an event on a channel, and how the BPF side sees it:
 *
 *   unfiltered rule      filtered rules      kr_filt entry          enabled bit
 *   yes                  any                 0                      set
 *   no                   >= 1                KF_FILTERED | linked   set
 *   no                   none                0                      clear
 *
 * A rule whose program cannot link to an event (a field it lacks, a
 * float) covers the event with no bit in the mask: with no other rule,
 * the channel records nothing of it, as LTTng.
 *
 * Updates keep the recorder consistent at every step: a program is in
 * kr_fprog before its bit is in kr_filt, and kr_filt is written before
 * the enabled bit is set. (linked: the rules whose program linked.)
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/runtime.h"
#include "kernel-internal.h"
#include "syscalls.h"

#include "common/common.h"

static bool bit(const uint64_t *map, uint32_t k)
{
	return map[k / 64] & (1ull << (k % 64));
}

static void set_bit(uint64_t *map, uint32_t k, bool on)
{
	if (on)
		map[k / 64] |= 1ull << (k % 64);
	else
		map[k / 64] &= ~(1ull << (k % 64));
}

struct kt_filters *kt_filters_of(struct kernel_channel *ch)
{
	if (!ch->filters)
		ch->filters = calloc(1, sizeof(*ch->filters));
	return ch->filters;
}

void kt_filter_sync_key(struct kernel_channel *ch, uint32_t key)
{
	uint32_t fk = ch->slot * KR_MAX_KEYS + key, mask = 0;
	bool covered = false;

	if (!ch->filters) {
		kt_rec_set_enabled(ch->kt, ch->slot, key, ch->enabled[key]);
		return;
	}
	for (unsigned int r = 0; ch->filters && r < KF_MAX_RULES; r++) {
		const struct kt_rule *rule = &ch->filters->rule[r];

		if (!rule->used || !bit(rule->covers, key))
			continue;
		covered = true;
		if (bit(rule->linked, key))
			mask |= 1u << r;
	}
	mask = ch->enabled[key] || !covered ? 0 : mask | KF_FILTERED;
	if (kt_rec_map_update(ch->kt, KT_MAP_FILT, &fk, &mask) && mask) {
		/* Without its entry the event would pass unfiltered: keep it off. */
		covered = false;
	}
	kt_rec_set_enabled(ch->kt, ch->slot, key, ch->enabled[key] || covered);
}

/* ---- linking against a kernel event ---- */

enum kt_fctx {
	KC_PID,
	KC_TID,
	KC_PPID,
	KC_VPID,
	KC_VTID,
	KC_VPPID,
	KC_PRIO,
	KC_NICE,
	KC_CPU,
	KC_COMM
};

static const struct {
	const char *name;
	uint16_t off;
	uint8_t type; /* enum flt_ctx_type */
} kt_fctx_table[] = {
	[KC_PID] = { "pid", offsetof(struct kr_rec, pid), FLT_CTX_INT },
	[KC_TID] = { "tid", offsetof(struct kr_rec, tid), FLT_CTX_INT },
	[KC_PPID] = { "ppid", offsetof(struct kr_rec, ppid), FLT_CTX_INT },
	[KC_VPID] = { "vpid", offsetof(struct kr_rec, vpid), FLT_CTX_INT },
	[KC_VTID] = { "vtid", offsetof(struct kr_rec, vtid), FLT_CTX_INT },
	[KC_VPPID] = { "vppid", offsetof(struct kr_rec, vppid), FLT_CTX_INT },
	[KC_PRIO] = { "prio", offsetof(struct kr_rec, prio), FLT_CTX_INT },
	[KC_NICE] = { "nice", offsetof(struct kr_rec, nice), FLT_CTX_INT },
	[KC_CPU] = { "cpu_id", offsetof(struct kr_rec, cpu), FLT_CTX_INT },
	[KC_COMM] = { "procname", offsetof(struct kr_rec, comm), FLT_CTX_STRING },
};

static bool name_is(const char *name, const char *s, uint32_t len)
{
	return strlen(name) == len && !memcmp(name, s, len);
}

static int kt_resolve(void *opaque, const struct flt_symref *ref, struct flt_binding *b)
{
	const struct kt_class *c = opaque;

	if (ref->root == FLT_ROOT_CTX) {
		if (ref->ncomp != 1)
			return -ENOENT;
		for (uint32_t i = 0; i < ARRAY_SIZE(kt_fctx_table); i++) {
			if (!name_is(kt_fctx_table[i].name, ref->comp[0].name, ref->comp[0].len))
				continue;
			b->kind = kt_fctx_table[i].type == FLT_CTX_INT ? FLT_B_CTX_INT :
									 FLT_B_CTX_STRING;
			b->index = i;
			return 0;
		}
		return -ENOENT;
	}
	if (ref->root != FLT_ROOT_PAYLOAD)
		return -ENOENT; /* no $app in the kernel */
	for (uint32_t i = 0; i < c->nfields; i++) {
		const struct kt_field *f = &c->fields[i];

		if (!name_is(f->name, ref->comp[0].name, ref->comp[0].len))
			continue;
		b->index = i;
		switch (f->kind) {
		case KT_F_INT:
			if (ref->ncomp != 1)
				return -ENOENT;
			b->kind = FLT_B_INT;
			return 0;
		case KT_F_TEXT:
		case KT_F_DL_STRING:
		case KT_F_USTRING:
			if (ref->ncomp != 1)
				return -ENOENT;
			b->kind = FLT_B_STRING;
			return 0;
		case KT_F_ARRAY:
		case KT_F_DL_ARRAY:
			if (ref->ncomp != 2 || ref->comp[1].kind != FLT_COMP_INDEX)
				return -ENOENT;
			if (f->elem_size != 1 && f->elem_size != 2 && f->elem_size != 4 &&
			    f->elem_size != 8)
				return -ENOENT;
			b->kind = FLT_B_ELEM;
			b->size = (uint8_t)f->elem_size;
			b->flags = f->is_signed ? FLT_BF_SIGNED : 0;
			b->elem = ref->comp[1].index;
			return 0;
		default:
			return -ENOENT; /* statedump strings: never recorded by BPF */
		}
	}
	return -ENOENT;
}

/* The syscall argument index of user-string field f of a syscall class. */
static int kt_ustring_arg(const struct kt_class *c, const struct kt_field *f)
{
	const struct kt_syscall *sc;
	uint32_t nr;

	if (c->key >= KR_KEY_SC_ENTRY && c->key < KR_KEY_SC_EXIT)
		nr = c->key - KR_KEY_SC_ENTRY;
	else if (c->key >= KR_KEY_SC_EXIT && c->key < KR_KEY_SC_EXIT + KR_MAX_SC)
		nr = c->key - KR_KEY_SC_EXIT;
	else
		return -ENOENT;
	sc = kt_syscall_by_nr((int)nr);
	for (int i = 0; sc && i < sc->nargs && i < 6; i++)
		if (sc->args[i].is_string && !strcmp(sc->args[i].name, f->name))
			return i;
	return -ENOENT;
}

static int kt_load_insn(const struct kt_class *c, const struct flt_binding *b, struct kf_insn *out)
{
	const struct kt_field *f;
	int arg;

	if (b->kind == FLT_B_CTX_INT) {
		out->op = KF_LD_HDR;
		out->a = kt_fctx_table[b->index].off;
		out->flags = b->index == KC_CPU ? KF_F_UNSIGNED : 0;
		return 0;
	}
	if (b->kind == FLT_B_CTX_STRING) {
		out->op = KF_LD_STR;
		out->sub = KF_S_HDR;
		out->a = kt_fctx_table[b->index].off;
		out->b = sizeof(((struct kr_rec *)0)->comm);
		return 0;
	}
	if (b->index >= c->nfields)
		return -EINVAL;
	f = &c->fields[b->index];
	switch (b->kind) {
	case FLT_B_INT:
		out->op = KF_LD_INT;
		out->a = f->offset;
		out->size = (uint8_t)f->ctf_size; /* little endian: the low bytes */
		out->flags = f->is_signed ? KF_F_SIGNED : 0;
		return 0;
	case FLT_B_STRING:
		out->op = KF_LD_STR;
		if (f->kind == KT_F_TEXT) {
			out->sub = KF_S_FIXED;
			out->a = f->offset;
			out->b = (uint16_t)f->count;
		} else if (f->kind == KT_F_DL_STRING) {
			out->sub = KF_S_DL;
			out->a = f->offset;
		} else {
			arg = kt_ustring_arg(c, f);
			if (arg < 0)
				return arg;
			out->sub = KF_S_USER;
			out->a = (uint16_t)arg;
		}
		return 0;
	case FLT_B_ELEM:
		out->size = b->size;
		out->flags = b->flags & FLT_BF_SIGNED ? KF_F_SIGNED : 0;
		if (f->kind == KT_F_DL_ARRAY) {
			out->op = KF_LD_DLINT;
			out->a = f->offset;
			out->imm = (long long)b->elem;
		} else if (b->elem >= f->count) {
			out->op = KF_DROP; /* past the array: each event is dropped */
		} else {
			out->op = KF_LD_INT;
			out->a = (uint16_t)(f->offset + b->elem * f->elem_size);
		}
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Translate a linked program into the BPF interpreter's. -EINVAL: it uses
 * floating point or something else the kernel cannot evaluate (the rule
 * never records this event).
 */
static int kt_translate(const struct kt_class *c, const struct flt_linked *l, struct kf_prog *out)
{
	static const uint8_t simple[] = {
		[FLT_L_NEG_INT] = KF_NEG, [FLT_L_NOT_INT] = KF_NOT, [FLT_L_BITNOT] = KF_BITNOT,
		[FLT_L_BAND] = KF_BAND,	  [FLT_L_BOR] = KF_BOR,	    [FLT_L_BXOR] = KF_BXOR,
		[FLT_L_SHL] = KF_SHL,	  [FLT_L_SHR] = KF_SHR,
	};
	uint32_t text = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (l->n > KF_MAX_INSN)
		return -E2BIG;
	for (uint32_t i = 0; i < l->n; i++) {
		const struct flt_linsn *in = &l->insn[i];
		struct kf_insn *o = &out->insn[i];

		switch (in->op) {
		case FLT_L_RET:
			o->op = KF_RET;
			break;
		case FLT_L_IMM_INT:
			o->op = KF_IMM;
			o->imm = in->u.i;
			break;
		case FLT_L_IMM_STR:
			if (in->a > KF_TEXT - text)
				return -E2BIG;
			memcpy(out->text + text, in->u.s, in->a);
			o->op = KF_LD_STR;
			o->sub = KF_S_LIT;
			o->a = (uint16_t)text;
			o->b = (uint16_t)in->a;
			text += in->a;
			break;
		case FLT_L_LOAD:
			if ((r = kt_load_insn(c, &in->u.b, o)))
				return r;
			break;
		case FLT_L_NEG_INT:
		case FLT_L_NOT_INT:
		case FLT_L_BITNOT:
		case FLT_L_BAND:
		case FLT_L_BOR:
		case FLT_L_BXOR:
		case FLT_L_SHL:
		case FLT_L_SHR:
			o->op = simple[in->op];
			break;
		case FLT_L_CMP_II:
			o->op = KF_CMP;
			o->sub = in->sub; /* enum flt_cmp and KF_CMP_* share their values */
			break;
		case FLT_L_CMP_SS:
			o->op = KF_SCMP;
			o->sub = in->sub;
			o->flags = in->flags; /* FLT_LF_* and KF_F_*_LIT too */
			break;
		case FLT_L_GLOB:
			o->op = KF_GLOB;
			o->sub = in->sub;
			o->flags = in->flags;
			break;
		case FLT_L_AND:
		case FLT_L_OR:
			o->op = in->op == FLT_L_AND ? KF_AND : KF_OR;
			o->a = (uint16_t)in->a;
			break;
		default:
			return -EINVAL; /* doubles: the kernel has none */
		}
	}
	out->n = l->n;
	return 0;
}

/* Link rule's program to key and publish it; 0 when it cannot apply (never matches). */
static int kt_rule_link(struct kernel_channel *ch, unsigned int r, uint32_t key)
{
	struct kt_rule *rule = &ch->filters->rule[r];
	const struct kt_class *c = atomic_load(&ch->kt->classes[key]);
	struct kf_prog_key pk = { key, ch->slot * KF_MAX_RULES + r };
	struct flt_linked *l = NULL;
	struct kf_prog *prog;
	int err;

	if (!c || flt_program_has_float(rule->prog))
		return 0;
	if (flt_link(rule->prog, kt_resolve, (void *)c, &l))
		return 0;
	prog = malloc(sizeof(*prog));
	if (!prog) {
		flt_linked_destroy(l);
		return -ENOMEM;
	}
	err = kt_translate(c, l, prog);
	flt_linked_destroy(l);
	if (!err) {
		err = kt_rec_map_update(ch->kt, KT_MAP_FPROG, &pk, prog);
		if (!err)
			set_bit(rule->linked, key, true);
	} else if (err == -EINVAL) {
		err = 0;
	}
	free(prog);
	return err;
}

struct kt_add {
	unsigned int rule;
};

static int kt_add_key(struct kernel_channel *ch, uint32_t key, void *opaque)
{
	const struct kt_add *a = opaque;
	struct kt_rule *rule = &ch->filters->rule[a->rule];
	int err;

	/* Statedump records come from the daemon, which runs no filter. */
	if (key >= KR_KEY_STATEDUMP_START)
		return 0;
	err = kt_key_prepare(ch, key);
	if (!err)
		err = kt_rule_link(ch, a->rule, key);
	if (err)
		return err;
	set_bit(rule->covers, key, true);
	kt_filter_sync_key(ch, key);
	return 0;
}

static void kt_rule_clear(struct kernel_channel *ch, unsigned int r)
{
	struct kt_rule *rule = &ch->filters->rule[r];

	for (uint32_t key = 0; key < KR_MAX_KEYS; key++) {
		struct kf_prog_key pk = { key, ch->slot * KF_MAX_RULES + r };

		if (!bit(rule->covers, key) && !bit(rule->linked, key))
			continue;
		set_bit(rule->covers, key, false);
		kt_filter_sync_key(ch, key);
		if (bit(rule->linked, key)) {
			set_bit(rule->linked, key, false);
			kt_rec_map_delete(ch->kt, KT_MAP_FPROG, &pk);
		}
	}
	flt_program_destroy(rule->prog);
	memset(rule, 0, sizeof(*rule));
}

static void kt_update_filtered_bit(struct kernel_channel *ch)
{
	struct kf_globals *g = kt_rec_kf_globals(ch->kt);
	bool any = false;

	for (unsigned int r = 0; ch->filters && r < KF_MAX_RULES; r++)
		any |= ch->filters->rule[r].used;
	if (!g)
		return;
	if (any)
		__atomic_fetch_or(&g->filtered, 1u << ch->slot, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&g->filtered, ~(1u << ch->slot), __ATOMIC_RELEASE);
}

int kernel_channel_add_filter(struct kernel_channel *ch, const char *pattern,
			      enum kernel_event_type type, const void *bc, size_t bc_len, char *why,
			      size_t len)
{
	struct flt_program *prog = NULL;
	struct kt_filters *fs;
	const char *reason = NULL;
	struct kt_add a;
	int r;

	r = flt_validate(bc, bc_len, &prog, &reason);
	if (r) {
		snprintf(why, len, "Invalid filter bytecode: %s", reason ? reason : strerror(-r));
		return r;
	}
	if (prog->h.ninsn > KF_MAX_INSN || prog->h.text_size > KF_TEXT) {
		snprintf(why, len,
			 "Filter too long for the kernel: at most %d operations and %d bytes of "
			 "strings",
			 KF_MAX_INSN, KF_TEXT);
		flt_program_destroy(prog);
		return -E2BIG;
	}
	fs = kt_filters_of(ch);
	if (!fs) {
		flt_program_destroy(prog);
		return -ENOMEM;
	}
	for (a.rule = 0; a.rule < KF_MAX_RULES && fs->rule[a.rule].used; a.rule++)
		;
	if (a.rule == KF_MAX_RULES) {
		snprintf(why, len, "At most %d filtered rules per kernel channel", KF_MAX_RULES);
		flt_program_destroy(prog);
		return -ENOSPC;
	}
	fs->rule[a.rule].used = true;
	fs->rule[a.rule].prog = prog;
	/* The filtered bit first: a key enabled by the rule must already be checked. */
	kt_update_filtered_bit(ch);
	r = kt_for_each_key(ch, pattern, type, kt_add_key, &a, why, len);
	if (r < 0) {
		kt_rule_clear(ch, a.rule);
		kt_update_filtered_bit(ch);
		return r;
	}
	return (int)a.rule;
}

int kernel_channel_remove_filter(struct kernel_channel *ch, int rule)
{
	if (rule < 0 || rule >= KF_MAX_RULES || !ch->filters || !ch->filters->rule[rule].used)
		return -ENOENT;
	kt_rule_clear(ch, (unsigned int)rule);
	kt_update_filtered_bit(ch);
	return 0;
}

void kt_filter_channel_release(struct kernel_channel *ch)
{
	struct kt_filters *fs = ch->filters;

	if (!fs)
		return;
	for (unsigned int r = 0; r < KF_MAX_RULES; r++)
		if (fs->rule[r].used)
			kt_rule_clear(ch, r);
	kt_update_filtered_bit(ch);
	kt_tracker_release(ch);
	free(fs);
	ch->filters = NULL;
}
