/* SPDX-License-Identifier: MIT */
/*
 * The contract between the BPF recorder (recorder.bpf.c) and its user-space
 * loader (src/sessiond/kernel/recorder.c): limits, event keys and the record
 * layout. Included by both sides, so it uses only fixed-width types.
 *
 * Event keys name what a record is, independently of any channel:
 *   [0, KR_MAX_TP)                 tracepoint index in tracefs available_events
 *   KR_KEY_SC_ENTRY + nr           raw_syscalls:sys_enter with id nr
 *   KR_KEY_SC_EXIT + nr            raw_syscalls:sys_exit with id nr
 *   KR_KEY_SC_ENTRY_UNKNOWN/EXIT   syscall numbers outside [0, KR_MAX_SC)
 *   KR_KEY_STATEDUMP_*             synthesized in user space, never by BPF
 *   [KR_KEY_PROBE, +KR_MAX_PROBES) kprobes and uprobes (one key per event:
 *                                  an entry and a return are two keys)
 * Each channel has an enable bitmap over keys; the loader maps keys to the
 * channel's CTF event ids.
 *
 * A record in a ring buffer:
 *   struct kr_rec                  fixed context header
 *   uint64_t ctr[popcount(ctr_mask)] if flags & KR_REC_CTR: the counters of
 *                                  slots set in kr_rec.ctr_mask, in slot order
 *   char hostname[KR_HOST_LEN]     if flags & KR_REC_HOST
 *   payload[len]                   tracepoint record minus its 8-byte header,
 *                                  or the syscall payloads described below
 * Syscall entry payload: int64 id, uint64 args[6], then one NUL-terminated
 * string per argument flagged in the string mask, in argument order.
 * Syscall exit payload: int64 id, int64 ret, then one string per string
 * argument: the entry's strings re-read when they faulted at entry, else "".
 * Probe payload: uint64 ip, then uint64 parent_ip when the probe's
 * descriptor has KR_PROBE_PARENT.
 */
#ifndef STRATA_KERNEL_RECORDER_ABI_H
#define STRATA_KERNEL_RECORDER_ABI_H

#define KR_MAX_CHAN 4
#define KR_MAX_CPU 256
#define KR_MAX_TP 4096
#define KR_MAX_SC 512
#define KR_KEY_SC_ENTRY KR_MAX_TP
#define KR_KEY_SC_EXIT (KR_KEY_SC_ENTRY + KR_MAX_SC)
#define KR_KEY_SC_ENTRY_UNKNOWN (KR_KEY_SC_EXIT + KR_MAX_SC)
#define KR_KEY_SC_EXIT_UNKNOWN (KR_KEY_SC_ENTRY_UNKNOWN + 1)
#define KR_KEY_STATEDUMP_START (KR_KEY_SC_EXIT_UNKNOWN + 1)
#define KR_KEY_STATEDUMP_PROCESS (KR_KEY_STATEDUMP_START + 1)
#define KR_KEY_STATEDUMP_FD (KR_KEY_STATEDUMP_START + 2)
#define KR_KEY_STATEDUMP_END (KR_KEY_STATEDUMP_START + 3)
#define KR_KEY_PROBE 6144
#define KR_MAX_PROBES \
	2048 /* probe keys (power of two): KR_KEY_PROBE + KR_MAX_PROBES <= KR_MAX_KEYS */
#define KR_MAX_KEYS 8192 /* power of two (verifier bound), > KR_KEY_STATEDUMP_END */
#define KR_BITMAP_WORDS (KR_MAX_KEYS / 64)

#define KR_MAX_DL 4 /* __data_loc fields per event (max seen: 4) */
#define KR_MAX_PAYLOAD 4096 /* power of two; longer records are truncated */
#define KR_MAX_CTR 8 /* perf counter slots open at once, over all channels */
#define KR_HOST_LEN 64 /* uts nodename, NUL-terminated, truncated */
#define KR_MAX_STR 1024 /* one user string argument, NUL included */
#define KR_SCRATCH 8192 /* per-CPU record assembly buffer */

/* kr_rec.flags */
#define KR_REC_CTR 0x1 /* counters follow the header */
#define KR_REC_HOST 0x2 /* hostname follows the counters */
#define KR_REC_TRUNC 0x4 /* payload was cut at KR_MAX_PAYLOAD */
#define KR_REC_STRFAULT 0x8 /* a user string could not be read (emitted empty) */

/* kr_sc_strmask[nr]: bits 0-5 flag user-string arguments, plus the flags below. */
#define KR_SC_STRINGS 0x3f
#define KR_SC_NORETRY_OK 0x40 /* exec: do not re-read strings after success */
#define KR_SC_KNOWN 0x80 /* in the table; others are recorded as unknown */

/* kr_probe_desc.flags */
#define KR_PROBE_RETURN 0x1 /* a kretprobe/uretprobe: parent_ip is the return address */
#define KR_PROBE_USER 0x2 /* a uprobe: the stack is user memory */
#define KR_PROBE_PARENT 0x4 /* record parent_ip after ip */

/* Per-probe descriptor (kr_probes[key - KR_KEY_PROBE]). */
struct kr_probe_desc {
	unsigned int flags;
};

/* Per-tracepoint descriptor (kr_descs[index]): how long a record is. */
struct kr_desc {
	unsigned short fixed_end; /* max(offset + size), header included */
	unsigned short ndl; /* number of __data_loc fields */
	unsigned short dl_off[KR_MAX_DL]; /* their offsets in the record */
};

struct kr_rec {
	unsigned long long ts; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	unsigned int key;
	unsigned short len; /* payload bytes */
	unsigned short flags;
	unsigned int cpu;
	int pid;
	int tid;
	int ppid;
	int vpid;
	int vtid;
	int vppid;
	int prio;
	int nice;
	char comm[16];
	unsigned int ctr_mask; /* counter slots whose values follow (KR_REC_CTR) */
};

#endif
