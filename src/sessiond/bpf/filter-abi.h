/* SPDX-License-Identifier: MIT */
/*
 * The contract between the BPF side of kernel filters and trackers
 * (filter.bpf.h, run by recorder.bpf.c) and the loader (kernel/filter.c,
 * kernel/tracker.c). Fixed-width types only: both sides include it.
 *
 * Trackers (per channel: the daemon gives every channel of a session the
 * session's trackers). For each of the six attributes a policy in
 * kf_globals.track_pol[chan] (2 bits per attribute):
 *   KF_POL_ALL   every process passes (the default)
 *   KF_POL_SET   only ids present in kr_track {chan, attr, id}
 *   KF_POL_NONE  no process passes
 * A hit is recorded by a channel only if it passes every attribute.
 *
 * Filters: a channel's event (key) enabled only by rules with a filter has
 * KF_FILTERED | a mask of rule slots in kr_filt[chan * KR_MAX_KEYS + key];
 * the event is recorded when one of those rules' programs, kr_fprog {key,
 * chan, rule}, returns non-zero (an empty mask records nothing). An event
 * whose entry is 0 is recorded unfiltered. A program is the rule's bytecode linked against
 * that event's record layout and translated to struct kf_prog: a stack
 * machine over 64-bit values, run by bpf_loop() one instruction per
 * iteration, forward jumps only.
 *
 * String values on the stack are (base, start, max length): base 0 is the
 * per-CPU record being built, base 1 the program's own text; a string ends
 * at its NUL or at its maximum length.
 */
#ifndef STRATA_KERNEL_FILTER_ABI_H
#define STRATA_KERNEL_FILTER_ABI_H

#define KF_MAX_RULES 16 /* filtered rules per channel */
#define KF_FILTERED 0x80000000u /* kr_filt: the event is filtered */
#define KF_MAX_INSN 64 /* power of two */
#define KF_TEXT 256 /* literal text per program, power of two */
#define KF_STACK 16 /* power of two, >= FLT_STACK_MAX */
#define KF_MAX_PROGS 16384 /* linked programs over all channels and events */
#define KF_MAX_TRACKED 4096 /* tracker ids over all channels and attributes */
#define KF_STR_STEPS 8192 /* bound on one string comparison's steps */
#define KF_GLOB_STEPS 65536 /* bound on one glob match's steps (then: no match) */

enum kf_attr { KF_PID, KF_VPID, KF_UID, KF_VUID, KF_GID, KF_VGID, KF_NATTR };

#define KF_POL_ALL 0
#define KF_POL_SET 1
#define KF_POL_NONE 2

struct kf_globals {
	unsigned int track_pol[4]; /* per channel: 2 bits per attribute */
	unsigned int filtered; /* bit c: channel c has filtered events */
};

struct kf_track_key {
	unsigned int chan_attr; /* chan * KF_NATTR + attr */
	unsigned int id;
};

struct kf_prog_key {
	unsigned int key; /* event key */
	unsigned int chan_rule; /* chan * KF_MAX_RULES + rule */
};

enum kf_op {
	KF_RET = 1,
	KF_IMM, /* imm */
	KF_LD_INT, /* payload[a], size bytes, flags & KF_F_SIGNED */
	KF_LD_HDR, /* struct kr_rec at a: 4 bytes, signed unless KF_F_UNSIGNED */
	KF_LD_DLINT, /* element imm of the __data_loc array at payload[a], size bytes */
	KF_LD_STR, /* sub: KF_S_* */
	KF_NEG,
	KF_NOT,
	KF_BITNOT,
	KF_BAND,
	KF_BOR,
	KF_BXOR,
	KF_SHL,
	KF_SHR,
	KF_CMP, /* sub: KF_CMP_*, signed 64-bit */
	KF_SCMP, /* sub: KF_CMP_*; flags: KF_F_LEFT_LIT, KF_F_RIGHT_LIT */
	KF_GLOB, /* sub: KF_CMP_EQ or NE; flags: KF_F_LEFT_PATTERN */
	KF_AND, /* a: target */
	KF_OR, /* a: target */
	KF_DROP, /* the event is dropped (e.g. an index past an array) */
};

/* KF_LD_STR kinds. */
#define KF_S_FIXED 0 /* char[b] at payload[a] */
#define KF_S_DL 1 /* __data_loc string whose u32 locator is at payload[a] */
#define KF_S_USER 2 /* user string of syscall argument a (kr_scratch.stroff) */
#define KF_S_HDR 3 /* char[b] at header offset a (procname) */
#define KF_S_LIT 4 /* program text [a, a + b) */
#define KF_S_CSTR 5 /* NUL-terminated string at payload[a] */

#define KF_CMP_EQ 0
#define KF_CMP_NE 1
#define KF_CMP_LT 2
#define KF_CMP_LE 3
#define KF_CMP_GT 4
#define KF_CMP_GE 5

#define KF_F_SIGNED 0x1
#define KF_F_UNSIGNED 0x2
#define KF_F_LEFT_LIT 0x1
#define KF_F_RIGHT_LIT 0x2
#define KF_F_LEFT_PATTERN 0x1

struct kf_insn {
	unsigned char op;
	unsigned char sub;
	unsigned char flags;
	unsigned char size;
	unsigned short a;
	unsigned short b;
	long long imm;
};

struct kf_prog {
	unsigned int n; /* instructions */
	unsigned int pad;
	struct kf_insn insn[KF_MAX_INSN];
	char text[KF_TEXT];
};

#endif
