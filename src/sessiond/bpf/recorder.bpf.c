/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The generic kernel recorder. One TRACEPOINT program (kr_tp) is attached to
 * every enabled tracepoint with the tracepoint's index as BPF cookie; two more
 * (kr_sys_enter/kr_sys_exit) sit on raw_syscalls. Each run builds one record
 * (recorder-abi.h) in a per-CPU scratch buffer and copies it into the ring
 * buffer of the current CPU of every channel that wants the event.
 *
 * Why the shapes below (measured, see docs and reference/kernel.md):
 * - ctx[0..8) is a kernel pointer: the payload always starts at ctx + 8.
 * - A direct ctx load at offset N makes attaching fail on every event whose
 *   record is shorter than N, so kr_tp reads ctx only with bpf_probe_read_kernel.
 * - Contexts come from bpf_get_current_task_btf() direct loads (2x cheaper than
 *   probe reads).
 * - A consumer wakeup costs ~9 us: wake only when the unread amount crosses the
 *   channel's threshold, never per record; the consumer also polls on a timer.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "recorder-abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set before load. */
const volatile unsigned int kr_ncpu = 1;

/*
 * Runtime knobs, written by user space through the mmap'ed .bss: enabling,
 * starting and stopping are plain stores, never attach/detach.
 */
unsigned int kr_self_tgid; /* never record the daemon itself */
unsigned int kr_active; /* bit c: channel c is started */
unsigned int kr_want_host; /* bit c: channel c wants hostname */
unsigned int kr_chan_ctr[KR_MAX_CHAN]; /* bit s: channel c records counter slot s */
unsigned long long kr_wake_bytes[KR_MAX_CHAN];
unsigned long long kr_enabled[KR_MAX_CHAN][KR_BITMAP_WORDS];
unsigned char kr_sc_strmask[KR_MAX_SC]; /* KR_SC_* flags of each syscall number */
/*
 * Tests only (STRATA_SESSIOND_TEST_RECORD_DELAY): a record of key
 * kr_test_delay_key spins kr_test_delay_ns after
 * its program saw the channel active and before the ring commits it, the
 * window kernel_channel_stop() has to close.
 */
unsigned int kr_test_delay_key;
unsigned long long kr_test_delay_ns;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KR_MAX_TP);
	__type(key, __u32);
	__type(value, struct kr_desc);
} kr_descs SEC(".maps");

/*
 * User strings that faulted at syscall entry (page not resident: ~2% of path
 * reads, and every literal a freshly forked child has not touched yet), by
 * thread: re-read at exit, when the kernel has faulted the page in.
 */
struct kr_pending {
	__u64 ptr[6];
	__u32 mask;
	__u32 nr;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* a thread killed mid-syscall never exits it */
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct kr_pending);
} kr_pending SEC(".maps");

struct kr_scratch {
	unsigned char buf[KR_SCRATCH];
	unsigned short stroff[8]; /* syscalls: where argument i's user string is in buf */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kr_scratch);
} kr_scratch SEC(".maps");

/* Records lost because a ring was full, per channel and CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KR_MAX_CHAN);
	__type(key, __u32);
	__type(value, __u64);
} kr_lost SEC(".maps");

struct kr_rb_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

/* Index channel * kr_ncpu + cpu; the loader resizes it and fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, KR_MAX_CHAN);
	__type(key, __u32);
	__array(values, struct kr_rb_inner);
} kr_rbs SEC(".maps");

/*
 * The perf counters, index slot * kr_ncpu + cpu (the loader sizes it): a
 * slot is one counter opened on every CPU, shared by the channels that
 * record it and closed with the last of them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, KR_MAX_CTR);
} kr_ctrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KR_MAX_PROBES);
	__type(key, __u32);
	__type(value, struct kr_probe_desc);
} kr_probes SEC(".maps");

/*
 * What the programs return. A tracepoint's BPF program returning 0 makes the
 * kernel skip perf_tp_event() for *every* perf event on that tracepoint, so
 * `perf record` on a tracepoint strata is attached to would see nothing (even
 * while strata is stopped, or while a reaper detaches). Returning 1 keeps perf
 * working at the cost of counting our own (non-sampling) perf event;
 * kr_perf_passthrough = 0 trades that coexistence for a few ns per event.
 */
unsigned int kr_perf_passthrough = 1;
#define KR_RET ((int)(kr_perf_passthrough != 0))

#define KR_HDR_MAX (sizeof(struct kr_rec) + KR_MAX_CTR * 8 + KR_HOST_LEN)

static __always_inline unsigned int kr_channels_for(__u32 key)
{
	unsigned int want = 0;
	unsigned int active = kr_active;
	__u32 word = key / 64;
	__u64 bit = 1ULL << (key % 64);

	if (word >= KR_BITMAP_WORDS)
		return 0;
	/* A power-of-two mask the verifier can see (the compare alone gets folded). */
	asm volatile("" : "+r"(word));
	word &= KR_BITMAP_WORDS - 1;
#pragma unroll
	for (int c = 0; c < KR_MAX_CHAN; c++)
		if ((active & (1U << c)) && (kr_enabled[c][word] & bit))
			want |= 1U << c;
	return want;
}

static __always_inline int kr_pid_nr_at(struct pid *p, unsigned int level)
{
	int nr = 0;

	/* numbers[] is a flexible array: bounded probe read, not a direct load. */
	bpf_probe_read_kernel(
		&nr, sizeof(nr),
		(void *)((unsigned long)p + bpf_core_field_offset(struct pid, numbers) +
			 (unsigned long)(level & 31) * bpf_core_type_size(struct upid)));
	return nr;
}

/*
 * The counters of every slot a wanting channel records, read on this CPU,
 * after the header: returns their size.
 */
static __always_inline unsigned int kr_read_counters(struct kr_rec *r, unsigned char *out,
						     unsigned int want)
{
	unsigned int mask = 0, n = 0;
	__u64 base = (__u64)bpf_get_smp_processor_id();

#pragma unroll
	for (int c = 0; c < KR_MAX_CHAN; c++)
		if (want & (1U << c))
			mask |= kr_chan_ctr[c];
	r->ctr_mask = mask;
	if (!mask)
		return 0;
	r->flags |= KR_REC_CTR;
#pragma unroll
	for (int s = 0; s < KR_MAX_CTR; s++) {
		struct bpf_perf_event_value v;

		if (!(mask & (1U << s)))
			continue;
		if (bpf_perf_event_read_value(&kr_ctrs, (s * kr_ncpu + base) & BPF_F_INDEX_MASK, &v,
					      sizeof(v)))
			v.counter = 0;
		((__u64 *)out)[n & (KR_MAX_CTR - 1)] = v.counter;
		n++;
	}
	return n * 8;
}

/*
 * Fill the header and the optional parts; returns the payload offset in the
 * scratch buffer. kr_fill_header and kr_output are global (not inlined)
 * functions: the verifier checks each once instead of once per call site and
 * unrolled path, which took loading from ~2.5 s to well under a second.
 */
__noinline int kr_fill_header(struct kr_scratch *s, __u32 key, unsigned int want, __u64 ts)
{
	unsigned char *buf;
	struct kr_rec *r;
	if (!s)
		return 0;
	buf = s->buf;
	r = (struct kr_rec *)buf;
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct pid *tp = t->thread_pid;
	unsigned int level = tp->level;
	unsigned int off = sizeof(*r);

	r->ts = ts;
	r->key = key;
	r->flags = 0;
	r->cpu = bpf_get_smp_processor_id();
	r->pid = pid_tgid >> 32;
	r->tid = (__u32)pid_tgid;
	r->ppid = t->real_parent->tgid;
	r->prio = t->prio - 100; /* LTTng's prio context: task->prio - MAX_RT_PRIO */
	r->nice = t->static_prio - 120;
	if (level == 0) {
		r->vpid = r->pid;
		r->vtid = r->tid;
		r->vppid = r->ppid;
	} else {
		struct pid *gp = t->group_leader->thread_pid;
		struct pid *pp = t->real_parent->group_leader->thread_pid;

		r->vtid = kr_pid_nr_at(tp, level);
		r->vpid = kr_pid_nr_at(gp, level);
		/* The parent is invisible (vppid 0) unless it lives in our pid namespace. */
		r->vppid = pp->level >= level ? kr_pid_nr_at(pp, level) : 0;
	}
	bpf_get_current_comm(r->comm, sizeof(r->comm));

	off += kr_read_counters(r, buf + off, want);
	if (kr_want_host & want) {
		char *host = (char *)(buf + (off & 255));

		r->flags |= KR_REC_HOST;
		if (bpf_probe_read_kernel_str(host, KR_HOST_LEN,
					      t->nsproxy->uts_ns->name.nodename) < 0)
			host[0] = 0;
		off += KR_HOST_LEN;
	}
	return off;
}

static long kr_test_spin(__u64 i, void *until)
{
	return bpf_ktime_get_ns() >= *(__u64 *)until;
}

/* One bpf_loop() of clock reads lasts ~200 ms here: loop over loops. */
static long kr_test_spin_outer(__u64 i, void *until)
{
	bpf_loop(1 << 23, kr_test_spin, until, 0);
	return bpf_ktime_get_ns() >= *(__u64 *)until;
}

/* Copy scratch[0, size) to the current CPU's ring of every wanting channel. */
__noinline int kr_output(struct kr_scratch *s, __u32 size, unsigned int want)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (!s || cpu >= KR_MAX_CPU || size > KR_SCRATCH)
		return 0;
	if (kr_test_delay_ns && ((struct kr_rec *)s->buf)->key == kr_test_delay_key) {
		__u64 until = bpf_ktime_get_ns() + kr_test_delay_ns;

		bpf_loop(64, kr_test_spin_outer, &until, 0);
	}
	asm volatile("" : "+r"(size));
	size &= KR_SCRATCH - 1;
#pragma unroll
	for (int c = 0; c < KR_MAX_CHAN; c++) {
		__u32 idx = c * kr_ncpu + cpu;
		void *rb;
		__u64 avail, thr, flags;

		if (!(want & (1U << c)))
			continue;
		rb = bpf_map_lookup_elem(&kr_rbs, &idx);
		if (!rb)
			continue;
		/*
		 * Wake the consumer only when this record makes the unread amount
		 * cross the threshold: once per sub-buffer, not once per record.
		 */
		thr = kr_wake_bytes[c];
		avail = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);
		flags = (avail < thr && avail + size >= thr) ? BPF_RB_FORCE_WAKEUP :
							       BPF_RB_NO_WAKEUP;
		if (bpf_ringbuf_output(rb, s->buf, size, flags)) {
			__u32 k = c;
			__u64 *lost = bpf_map_lookup_elem(&kr_lost, &k);

			if (lost)
				*lost += 1;
		}
	}
	return 0;
}

static __always_inline struct kr_scratch *kr_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&kr_scratch, &zero);
}

#include "filter.bpf.h"

SEC("tracepoint")
int kr_tp(void *ctx)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	__u64 ts = bpf_ktime_get_ns();
	unsigned int want, off;
	unsigned char *buf;
	struct kr_scratch *sc;
	struct kr_desc *d;
	__u32 end, plen;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) == kr_self_tgid && kr_self_tgid)
		return KR_RET;
	want = kf_track_want(kr_channels_for(key));
	if (!want)
		return KR_RET;
	d = bpf_map_lookup_elem(&kr_descs, &key);
	sc = kr_buf();
	if (!d || !sc)
		return KR_RET;
	buf = sc->buf;

	end = d->fixed_end;
#pragma unroll
	for (int i = 0; i < KR_MAX_DL; i++) {
		__u32 loc = 0, e;

		if (i >= d->ndl)
			break;
		bpf_probe_read_kernel(&loc, sizeof(loc), (char *)ctx + d->dl_off[i]);
		e = (loc & 0xffff) + (loc >> 16);
		if (e > end)
			end = e;
	}
	off = kr_fill_header(sc, key, want, ts);
	plen = end > 8 ? end - 8 : 0;
	if (plen > KR_MAX_PAYLOAD - 1) {
		plen = KR_MAX_PAYLOAD - 1;
		((struct kr_rec *)buf)->flags |= KR_REC_TRUNC;
	}
	/* Clang drops a mask it thinks redundant; the barrier keeps the verifier's bound. */
	asm volatile("" : "+r"(plen));
	plen &= KR_MAX_PAYLOAD - 1;
	asm volatile("" : "+r"(off));
	off &= 255;
	((struct kr_rec *)buf)->len = plen;
	bpf_probe_read_kernel(buf + off, plen, (char *)ctx + 8);
	want = kf_filter_want(sc, key, want, off);
	if (want)
		kr_output(sc, off + plen, want);
	return KR_RET;
}

/*
 * An ia32 syscall (a 32-bit process, or int $0x80) carries an ia32 number that
 * the x86_64 table would misname: it is recorded as syscall_*_unknown, with
 * its number. x86's TS_COMPAT is set for the syscall's duration.
 */
#define KR_TS_COMPAT 0x0002
static __always_inline bool kr_in_compat_syscall(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return t->thread_info.status & KR_TS_COMPAT;
}

/* In the build's table (so it has a name and a class), and not an ia32 call. */
static __always_inline bool kr_sc_known(long id)
{
	return id >= 0 && id < KR_MAX_SC && (kr_sc_strmask[id & (KR_MAX_SC - 1)] & KR_SC_KNOWN) &&
	       !kr_in_compat_syscall();
}

SEC("tracepoint")
int kr_sys_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 ts = bpf_ktime_get_ns();
	long id = ctx->id;
	unsigned int want, off, pos;
	unsigned char *buf, mask = 0, failed = 0;
	struct kr_scratch *sc;
	__u32 key;
	__u64 *p, args[6];

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) == kr_self_tgid && kr_self_tgid)
		return KR_RET;
	if (kr_sc_known(id)) {
		key = KR_KEY_SC_ENTRY + id;
		mask = kr_sc_strmask[id & (KR_MAX_SC - 1)] & KR_SC_STRINGS;
	} else {
		key = KR_KEY_SC_ENTRY_UNKNOWN;
	}
	want = kf_track_want(kr_channels_for(key));
	if (!want)
		return KR_RET;
	sc = kr_buf();
	if (!sc)
		return KR_RET;
	buf = sc->buf;
	off = kr_fill_header(sc, key, want, ts);
	asm volatile("" : "+r"(off));
	off &= 255;
	p = (__u64 *)(buf + off);
	p[0] = id;
	p[1] = ctx->args[0];
	p[2] = ctx->args[1];
	p[3] = ctx->args[2];
	p[4] = ctx->args[3];
	p[5] = ctx->args[4];
	p[6] = ctx->args[5];
	args[0] = ctx->args[0];
	args[1] = ctx->args[1];
	args[2] = ctx->args[2];
	args[3] = ctx->args[3];
	args[4] = ctx->args[4];
	args[5] = ctx->args[5];
	pos = 56;
#pragma unroll
	for (int i = 0; i < 6; i++) {
		long n;

		if (!(mask & (1U << i)))
			continue;
		asm volatile("" : "+r"(pos));
		pos &= 4095;
		sc->stroff[i] = (unsigned short)(off + pos);
		n = bpf_probe_read_user_str(buf + off + pos, KR_MAX_STR, (void *)args[i]);
		if (n <= 0) {
			/* Page not resident (~2% of path reads): record an empty string. */
			buf[(off + pos) & (KR_SCRATCH - 1)] = 0;
			n = 1;
			((struct kr_rec *)buf)->flags |= KR_REC_STRFAULT;
			failed |= 1U << i;
		}
		pos += n;
	}
	if (failed) {
		struct kr_pending pend = { .mask = failed, .nr = (__u32)id };
		__u32 tid = (__u32)bpf_get_current_pid_tgid();

		for (int i = 0; i < 6; i++)
			pend.ptr[i] = args[i];
		bpf_map_update_elem(&kr_pending, &tid, &pend, BPF_ANY);
	}
	asm volatile("" : "+r"(pos));
	pos &= 4095;
	((struct kr_rec *)buf)->len = pos;
	want = kf_filter_want(sc, key, want, off);
	if (want)
		kr_output(sc, off + pos, want);
	return KR_RET;
}

SEC("tracepoint")
int kr_sys_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 ts = bpf_ktime_get_ns();
	long id = ctx->id;
	unsigned int want, off, pos;
	unsigned char *buf, mask;
	struct kr_scratch *sc;
	__u32 key;
	__u64 *p;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) == kr_self_tgid && kr_self_tgid)
		return KR_RET;
	key = kr_sc_known(id) ? KR_KEY_SC_EXIT + id : KR_KEY_SC_EXIT_UNKNOWN;
	want = kf_track_want(kr_channels_for(key));
	if (!want)
		return KR_RET;
	sc = kr_buf();
	if (!sc)
		return KR_RET;
	buf = sc->buf;
	off = kr_fill_header(sc, key, want, ts);
	asm volatile("" : "+r"(off));
	off &= 255;
	p = (__u64 *)(buf + off);
	p[0] = id;
	p[1] = ctx->ret;
	pos = 16;
	mask = key < KR_KEY_SC_EXIT_UNKNOWN ? kr_sc_strmask[id & (KR_MAX_SC - 1)] : 0;
	if (mask & KR_SC_STRINGS) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct kr_pending *pend = bpf_map_lookup_elem(&kr_pending, &tid);
		unsigned int retry = 0;

		/* After a successful exec the pointers refer to the old image. */
		if (pend && pend->nr == (__u32)id && !((mask & KR_SC_NORETRY_OK) && ctx->ret == 0))
			retry = pend->mask;
#pragma unroll
		for (int i = 0; i < 6; i++) {
			long n = 0;

			if (!(mask & (1U << i)))
				continue;
			asm volatile("" : "+r"(pos));
			pos &= 4095;
			sc->stroff[i] = (unsigned short)(off + pos);
			if ((retry & (1U << i)) && pend)
				n = bpf_probe_read_user_str(buf + off + pos, KR_MAX_STR,
							    (void *)pend->ptr[i]);
			if (n <= 0) {
				buf[(off + pos) & (KR_SCRATCH - 1)] = 0;
				n = 1;
			}
			pos += n;
		}
		if (pend)
			bpf_map_delete_elem(&kr_pending, &tid);
	}
	asm volatile("" : "+r"(pos));
	pos &= 4095;
	((struct kr_rec *)buf)->len = pos;
	want = kf_filter_want(sc, key, want, off);
	if (want)
		kr_output(sc, off + pos, want);
	return KR_RET;
}

/*
 * kprobes, kretprobes, uprobes and uretprobes (their perf events link this
 * program with the probe's key as cookie), kprobe.multi links, and fentry/
 * fexit programs. The payload is LTTng's: ip, the probed address (for a
 * return, the function's), and for function entry/return events parent_ip,
 * the caller's return address.
 */
static __always_inline void kr_probe_emit(struct kr_scratch *sc, __u32 key, unsigned int want,
					  __u64 ts, __u64 ip, bool has_parent, __u64 parent)
{
	unsigned int off = kr_fill_header(sc, key, want, ts), plen = 8;
	__u64 *p;

	asm volatile("" : "+r"(off));
	off &= 255;
	p = (__u64 *)(sc->buf + off);
	p[0] = ip;
	if (has_parent) {
		p[1] = parent;
		plen = 16;
	}
	((struct kr_rec *)sc->buf)->len = plen;
	kr_output(sc, off + plen, want);
}

/* The key's channels, descriptor and scratch buffer; 0 when nothing records it. */
static __always_inline unsigned int kr_probe_begin(__u32 key, struct kr_probe_desc **d,
						   struct kr_scratch **sc)
{
	__u32 idx = key - KR_KEY_PROBE;
	unsigned int want;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) == kr_self_tgid && kr_self_tgid)
		return 0;
	want = kr_channels_for(key);
	if (!want)
		return 0;
	*d = bpf_map_lookup_elem(&kr_probes, &idx);
	*sc = kr_buf();
	return *d && *sc ? want : 0;
}

/*
 * Probes with registers: parent_ip is read at [sp] on entry (the call just
 * pushed it) and is the instruction pointer on return (the kernel sets it to
 * the return address before running return handlers).
 */
static __always_inline int kr_probe_run(struct pt_regs *ctx)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	__u64 ts = bpf_ktime_get_ns(), parent = 0;
	struct kr_probe_desc *d = NULL;
	struct kr_scratch *sc = NULL;
	unsigned int want = kr_probe_begin(key, &d, &sc);

	if (!want || !d || !sc)
		return 0;
	if (d->flags & KR_PROBE_PARENT) {
		if (d->flags & KR_PROBE_RETURN)
			parent = PT_REGS_IP(ctx);
		else if (d->flags & KR_PROBE_USER)
			bpf_probe_read_user(&parent, sizeof(parent), (void *)PT_REGS_SP(ctx));
		else
			bpf_probe_read_kernel(&parent, sizeof(parent), (void *)PT_REGS_SP(ctx));
	}
	kr_probe_emit(sc, key, want, ts, bpf_get_func_ip(ctx), d->flags & KR_PROBE_PARENT, parent);
	return 0;
}

SEC("kprobe")
int kr_probe(struct pt_regs *ctx)
{
	return kr_probe_run(ctx);
}

SEC("kprobe.multi")
int kr_probe_multi(struct pt_regs *ctx)
{
	return kr_probe_run(ctx);
}

/*
 * fentry/fexit have no registers: the kernel stack, unwound from here,
 * passes through the traced function just after its patched first
 * instruction (the trampoline's call), and the next entry is its caller.
 */
#define KR_TRACE_STACK 8
static __always_inline __u64 kr_trace_parent(void *ctx, __u64 ip)
{
	__u64 st[KR_TRACE_STACK];
	long n = bpf_get_stack(ctx, st, sizeof(st), 0);

#pragma unroll
	for (int i = 0; i + 1 < KR_TRACE_STACK; i++)
		if ((long)(i + 2) * 8 <= n && st[i] > ip && st[i] - ip <= 16)
			return st[i + 1];
	return 0;
}

static __always_inline int kr_trace_run(void *ctx)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	__u64 ts = bpf_ktime_get_ns(), ip, parent = 0;
	struct kr_probe_desc *d = NULL;
	struct kr_scratch *sc = NULL;
	unsigned int want = kr_probe_begin(key, &d, &sc);

	if (!want || !d || !sc)
		return 0;
	ip = bpf_get_func_ip(ctx);
	if (d->flags & KR_PROBE_PARENT)
		parent = kr_trace_parent(ctx, ip);
	kr_probe_emit(sc, key, want, ts, ip, d->flags & KR_PROBE_PARENT, parent);
	return 0;
}

/* Loaded per kernel function, in another instance of this object sharing its maps. */
SEC("fentry")
int kr_fentry(void *ctx)
{
	return kr_trace_run(ctx);
}

SEC("fexit")
int kr_fexit(void *ctx)
{
	return kr_trace_run(ctx);
}
