/* SPDX-License-Identifier: MIT */
/*
 * Ring buffer shared-memory layout and concurrency design.
 *
 * Memory (one memfd per channel, mapped at different addresses by each
 * process; every cross-process reference is an offset from the mapping start,
 * and every process recomputes them from its own validated geometry):
 *
 *   0                 ctl_offset                              data_offset
 *   +-----------------+---------------------------------------+----------------
 *   | rb_shm_header   | rb_cpu_ctl[cpu] (cache-line aligned)  | cpu 0 data ...
 *   | magic, version, |   write_pos   (own cache line)        | cpu 1 data ...
 *   | word size,      |   consumed_pos|lost_overwrite (one    |
 *   | geometry,       |     16-byte word, own cache line)     |
 *   |                 |   other lost_* counters               |
 *   | wakeup_armed    |   rb_subbuf_ctl[num_subbufs]          |
 *   |                 |     (ts at open/close, lost at close) |
 *   +-----------------+---------------------------------------+----------------
 *
 *   cpu data = num_subbufs sub-buffers of subbuf_size bytes (cpu_buf_size):
 *
 *   +--------------------------+--------------------------+----
 *   | hdr|payload hdr|payload  | hdr|payload ... hdr|PAD   | ...   sub-buffer k
 *   +--------------------------+--------------------------+----
 *   ^ pos P (logical, free-running; physical = P & (cpu_buf_size-1))
 *
 * Positions. write_pos and consumed_pos are 64-bit free-running byte counts
 * that never wrap in practice; a physical offset is pos & (cpu_buf_size - 1).
 * Sub-buffer "seq" = pos / subbuf_size; its "pass" = pos / cpu_buf_size.
 *
 * Record header (one 64-bit word at an 8-aligned position, payload after it,
 * the next record at pos + 8 + align8(len)):
 *
 *    63         48 47                 26 25                     2 1   0
 *   +-------------+---------------------+------------------------+-----+
 *   | tag (16)    | owner pid (22)      | len (24)               |state|
 *   +-------------+---------------------+------------------------+-----+
 *   state: 1 RESERVED (written at reserve), 2 COMMITTED, 3 PADDING, 0 invalid
 *   len: payload bytes (PADDING: bytes after the header up to the sub-buffer end)
 *   tag: pass & 0xffff, so a stale header from an earlier pass never validates
 *
 * Producer (rb_reserve/rb_commit, lock-free, fallback-free: this CAS path is
 * the only path; see "rseq" below):
 *   1. o = write_pos; ts = clock() (after the load: per-buffer monotonic ts);
 *      fit the record in the current sub-buffer, else begin at the next one
 *      and pad the rest of this one;
 *   2. discard: refuse (lost_full++) if end - consumed_pos > cpu_buf_size;
 *      overwrite: if entering a sub-buffer from an older pass not yet read,
 *      walk its old headers: a RESERVED record of a live writer, or a hole
 *      not yet declared dead by the consumer, blocks (lost_wrap++): their
 *      writers' late stores would corrupt the new data; otherwise push
 *      consumed_pos past it, counting its records as overwritten in the
 *      same instruction (below);
 *   3. CAS write_pos o -> end (retry from 1 on failure);
 *   4. write our RESERVED header (first: it closes the hole window), then
 *      the PADDING header of the previous sub-buffer if we switched;
 *   5. caller writes payload; commit = store-release of the COMMITTED header.
 * One locked instruction per record. The record's length is in its own header,
 * so the consumer walks each sub-buffer as a chain of headers and never needs
 * a commit counter that a dead writer could leave short forever.
 *
 * Consumer (rb_consumer_read): a sub-buffer is readable once write_pos is past
 * its end. Walk the chain:
 *   COMMITTED  copy payload out (bounds-checked against the sub-buffer);
 *   PADDING    skip;
 *   RESERVED   writer alive (kill(pid, 0), not a zombie) -> -EAGAIN, retry
 *              later; dead -> skip, count lost (RB_READ_FORCE: skip anyway);
 *   invalid    a hole: its writer died, or is still between its CAS and its
 *              header store. -EAGAIN until the same hole persisted
 *              hole_timeout_ms; then scan 8-byte steps for the next header
 *              whose tag/state/len are valid for its position, rewrite the
 *              hole's first word (CAS against the stale value, so a late
 *              header store of its writer wins) as a dead record (RESERVED,
 *              pid 0), skip it and count it lost. A hole reaching the
 *              sub-buffer end becomes padding and is not counted: it is most
 *              likely the padding of a writer that died right after its CAS,
 *              whose own record (a hole at the start of the next sub-buffer)
 *              is counted there. So a killed writer makes at most one record
 *              counted lost, possibly zero (an exact fit killed before its
 *              header store). Residual risk, by design: a writer stalled
 *              longer than hole_timeout_ms inside that two-store window
 *              writes into a sub-buffer already released.
 * Every step advances >= 8 bytes inside one sub-buffer: bounded.
 * rb_consumer_flush closes a partial sub-buffer like a producer would: CAS
 * write_pos to the sub-buffer end, then a PADDING header with owner pid 0.
 * Each header word is loaded once, validated, and only that local copy is
 * used to bound the payload copy into consumer memory (no TOCTOU on lengths);
 * packets are handed out from the copy, never from shared memory.
 *
 * A killed writer thus loses its unfinished record only; other writers never
 * wait for it (they CAS past it); the consumer skips it as soon as the owner
 * is dead (RESERVED) or after hole_timeout_ms (no header yet). A stopped
 * (SIGSTOP) writer with a RESERVED record delays that CPU buffer's delivery
 * until it resumes or the consumer reads with RB_READ_FORCE; writers keep
 * going and drop (counted) when the buffer is full. pids are read in the
 * consumer's pid namespace: daemon and apps must share it.
 *
 * Overwrite mode reading: the consumer copies the sub-buffer, then re-reads
 * write_pos (seqlock style, acquire fence between) and CASes consumed_pos
 * forward; a producer about to lap the sub-buffer first CASes consumed_pos
 * forward itself ("push", before its write_pos CAS, so the reader position
 * never lags by more than the buffer) and counts the overwritten records.
 * Exactly one of the two CASes wins, so each record is either delivered or
 * counted lost, never both. Both CASes are on the 16-byte word
 * {consumed_pos, lost_overwrite} (rb_reader_cas): the push moves the reader
 * and adds the count in one instruction, so a producer killed at any
 * instruction has done both or neither. (Layout 2 added the count with a
 * fetch_add after a CAS of consumed_pos alone: a producer SIGKILLed between
 * the two left a whole sub-buffer's records neither delivered nor counted,
 * the rare ringbuf-stress failure "recorded + lost vs emitted" short by
 * ~90 records; tests/unit/ringbuf kills a pusher right after its CAS.) The
 * consumer's CAS leaves lost_overwrite as it is; only pushes change it, so
 * a CAS failing with consumed_pos unchanged only saw a torn pair, and is
 * retried once with the pair it returned.
 *
 * Loss accounting: the lost_* counters only grow. Whoever closes a
 * sub-buffer (the reserver that moves past its end, an exact fit, or the
 * consumer's flush) stores ts_end and lost_end = their sum, then end_seq
 * (store-release, D), before the PADDING/COMMITTED store that makes the
 * sub-buffer readable. The consumer reports, per packet, the cumulative
 * losses as of its close: max(previous packet's, min(lost_end, sum now) +
 * records it skipped itself); untrusted lost_end is bounded by the sum now
 * and monotonic by the max. Consecutive packets' differences thus partition
 * the losses exactly (a loss racing with a close is in that packet or a
 * later one, never two), and losses after the last close are reported by
 * rb_consumer_lost() for a final packet.
 *
 *   losses:         x         x  x     x x x x    x
 *   sub-buffers: [   k    ][  k+1   ][  k+2   ][ k+3 (open)
 *   lost_end:             1         3         7   (rb_consumer_lost: 8)
 *
 * Wakeups: wakeup_armed in the header is set by the consumer before it sleeps
 * on the wakeup socket; the producer whose reservation closes a sub-buffer does, in
 * rb_commit, fence(seq_cst); if (armed && xchg(armed, 0)) send(wake socket).
 * The consumer does armed = 1; fence(seq_cst); re-check buffers (Dekker pair).
 *
 * rb_reserve_ts (header size chosen from the timestamp): last_ts, next to
 * write_pos, is stored (relaxed) after each successful CAS. A reserver reads
 * it before its own CAS, so it can only see timestamps of records before its
 * own: at worst older than its predecessor's, which only makes the extended
 * form more frequent, never wrong.
 *
 * rseq: not used. A per-CPU rseq critical section would replace the CAS by a
 * plain store, but that is only correct if every writer of a buffer runs on
 * its CPU inside such a section: the consumer's flush (another process, any
 * CPU), rb_reserve(cpu >= 0) and threads without registered rseq would need a
 * cooperative protocol (flush requests honoured by producers, membarrier is
 * per process), plus per-architecture asm around the record copy. This CAS
 * design is the required fallback and is what ships; the record header
 * layout does not depend on how the reservation is made.
 *
 * Memory ordering pairs (each site names its pair with "pairs with"):
 *   A. producer load-acquire consumed_pos  <-> consumer store-release consumed_pos
 *      (overwrite: its rb_reader_cas, a full barrier)
 *   B. producer store-release COMMITTED hdr <-> consumer load-acquire hdr
 *   C. producer CAS write_pos (acq_rel)     <-> consumer load-acquire write_pos
 *   D. producer store-release begin_seq/end_seq (after ts, lost_end)
 *                                           <-> consumer load-acquire of them
 *   E. wakeup: seq_cst fences on both sides (Dekker)
 *   F. overwrite: producer CAS write_pos + release fence before payload
 *      stores <-> consumer acquire fence after copy, then load write_pos
 */
#ifndef STRATA_RINGBUF_LAYOUT_H
#define STRATA_RINGBUF_LAYOUT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ringbuf/ringbuf.h"

#define RB_SHM_MAGIC 0x42525453u /* "STRB" little-endian */
#define RB_SHM_VERSION 3u /* 2: rb_subbuf_ctl.lost_end; 3: consumed_pos|lost_overwrite */
#define RB_CACHELINE 64u
#define RB_PAGE 4096u

struct rb_shm_header {
	uint32_t magic;
	uint32_t version;
	uint32_t word_size; /* sizeof(long) of the creator */
	uint32_t header_size; /* sizeof(struct rb_shm_header) */
	uint64_t subbuf_size;
	uint32_t num_subbufs;
	uint32_t nr_cpus;
	uint32_t mode;
	uint32_t cpu_ctl_size; /* stride of rb_cpu_ctl + its subbuf ctls */
	uint64_t ctl_offset;
	uint64_t data_offset;
	uint64_t total_size;
	_Alignas(RB_CACHELINE) _Atomic uint32_t wakeup_armed;
};

/*
 * Per sub-buffer: published by the writers that open/close it (the
 * consumer's flush closes too). end_seq guards ts_end and lost_end together.
 */
struct rb_subbuf_ctl {
	_Atomic uint64_t ts_begin;
	_Atomic uint64_t begin_seq; /* seq+1 of the sub-buffer ts_begin belongs to */
	_Atomic uint64_t ts_end;
	_Atomic uint64_t lost_end; /* rb_lost_shared() when it closed */
	_Atomic uint64_t end_seq; /* seq+1 of the sub-buffer ts_end belongs to */
};

struct rb_cpu_ctl {
	_Alignas(RB_CACHELINE) _Atomic uint64_t write_pos;
	_Atomic uint64_t last_ts; /* rb_reserve_ts: ts of a recent record (same line:
				     written right after the write_pos CAS) */
	/* One 16-byte word in overwrite mode, changed only by rb_reader_cas(). */
	_Alignas(RB_CACHELINE) _Atomic uint64_t consumed_pos;
	_Atomic uint64_t lost_overwrite; /* overwrite: records overwritten unread */
	_Alignas(RB_CACHELINE) _Atomic uint64_t lost_full; /* discard: buffer full */
	_Atomic uint64_t lost_big; /* record larger than a sub-buffer */
	_Atomic uint64_t lost_wrap; /* overwrite: oldest still being written */
	/* followed by struct rb_subbuf_ctl[num_subbufs] */
};

_Static_assert(offsetof(struct rb_cpu_ctl, lost_overwrite) ==
		       offsetof(struct rb_cpu_ctl, consumed_pos) + sizeof(uint64_t),
	       "rb_reader_cas: the pair is one 16-byte word");

#ifndef __GCC_HAVE_SYNC_COMPARE_AND_SWAP_16
#error "lib/ringbuf needs a 16-byte compare-and-swap (x86-64: -mcx16, see meson.build)"
#endif

__extension__ typedef unsigned __int128 rb_u128;

/*
 * Overwrite mode: {*pos, *lost} -> {new_pos, new_lost} as one word if
 * consumed_pos and lost_overwrite still hold *pos and *lost; else 0 with the
 * pair as found in *pos, *lost. A full barrier (lock cmpxchg16b on x86-64;
 * the build refuses targets without a 16-byte CAS rather than fall back to a
 * lock that a killed process could hold). Loads of either half alone stay
 * plain 64-bit atomic loads.
 */
static inline int rb_reader_cas(struct rb_cpu_ctl *ctl, uint64_t *pos, uint64_t *lost,
				uint64_t new_pos, uint64_t new_lost)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	rb_u128 old = (rb_u128)*lost << 64 | *pos, nw = (rb_u128)new_lost << 64 | new_pos, cur;
#else
	rb_u128 old = (rb_u128)*pos << 64 | *lost, nw = (rb_u128)new_pos << 64 | new_lost, cur;
#endif

	/* consumed_pos is cache-line aligned: the pair is 16-byte aligned. */
	cur = __sync_val_compare_and_swap((rb_u128 *)(void *)&ctl->consumed_pos, old, nw);
	if (cur == old)
		return 1;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	*pos = (uint64_t)cur;
	*lost = (uint64_t)(cur >> 64);
#else
	*pos = (uint64_t)(cur >> 64);
	*lost = (uint64_t)cur;
#endif
	return 0;
}

/* Sum of the buffer's shared loss counters (each only grows). */
static inline uint64_t rb_lost_shared(struct rb_cpu_ctl *ctl)
{
	return atomic_load_explicit(&ctl->lost_full, memory_order_relaxed) +
	       atomic_load_explicit(&ctl->lost_big, memory_order_relaxed) +
	       atomic_load_explicit(&ctl->lost_wrap, memory_order_relaxed) +
	       atomic_load_explicit(&ctl->lost_overwrite, memory_order_relaxed);
}

/* Record header word. */
#define RB_REC_INVALID 0u
#define RB_REC_RESERVED 1u
#define RB_REC_COMMITTED 2u
#define RB_REC_PADDING 3u

#define RB_HDR_LEN_SHIFT 2
#define RB_HDR_LEN_BITS 24
#define RB_HDR_PID_SHIFT 26
#define RB_HDR_PID_BITS 22
#define RB_HDR_TAG_SHIFT 48
#define RB_HDR_LEN_MAX ((1u << RB_HDR_LEN_BITS) - 1)
#define RB_HDR_PID_MASK ((1u << RB_HDR_PID_BITS) - 1)

static inline uint64_t rb_hdr_make(unsigned int state, uint64_t len, uint32_t pid, uint64_t pass)
{
	return (uint64_t)state | (len << RB_HDR_LEN_SHIFT) |
	       ((uint64_t)(pid & RB_HDR_PID_MASK) << RB_HDR_PID_SHIFT) |
	       ((pass & 0xffffu) << RB_HDR_TAG_SHIFT);
}

static inline unsigned int rb_hdr_state(uint64_t h)
{
	return (unsigned int)(h & 3u);
}

static inline uint64_t rb_hdr_len(uint64_t h)
{
	return (h >> RB_HDR_LEN_SHIFT) & RB_HDR_LEN_MAX;
}

static inline uint32_t rb_hdr_pid(uint64_t h)
{
	return (uint32_t)((h >> RB_HDR_PID_SHIFT) & RB_HDR_PID_MASK);
}

static inline uint64_t rb_hdr_tag(uint64_t h)
{
	return h >> RB_HDR_TAG_SHIFT;
}

/* Bytes a record with a payload of len occupies. */
static inline uint64_t rb_rec_size(uint64_t len)
{
	return RB_RECORD_HEADER_SIZE + ((len + 7) & ~(uint64_t)7);
}

/* Process-local channel handle. Geometry here is validated, never re-read. */
struct rb_channel {
	uint8_t *base; /* mapping start */
	uint64_t map_size;
	struct rb_shm_header *hdr;
	uint64_t subbuf_size;
	uint64_t cpu_buf_size;
	uint32_t subbuf_shift;
	uint32_t cpu_buf_shift;
	uint32_t num_subbufs;
	uint32_t nr_cpus;
	enum rb_mode mode;
	uint64_t ctl_offset;
	uint64_t cpu_ctl_size;
	uint64_t data_offset;
	int shm_fd; /* owned; -1 if not kept */
	int wake_fd; /* producers' end of the wakeup socket pair; owned; -1 if none */
	int cons_wake_fd; /* the creator's (consumer's) end; owned; -1 if none */
	rb_clock_fn clock;
};

static inline struct rb_cpu_ctl *rb_cpu_ctl(const struct rb_channel *ch, uint32_t cpu)
{
	return (struct rb_cpu_ctl *)(ch->base + ch->ctl_offset + (uint64_t)cpu * ch->cpu_ctl_size);
}

static inline struct rb_subbuf_ctl *rb_subbuf_ctl(const struct rb_channel *ch, uint32_t cpu,
						  uint64_t seq)
{
	struct rb_subbuf_ctl *sb = (struct rb_subbuf_ctl *)(rb_cpu_ctl(ch, cpu) + 1);

	return &sb[seq & (ch->num_subbufs - 1)];
}

/* The one accessor from a logical position to memory: always inside cpu's data. */
static inline uint8_t *rb_data_at(const struct rb_channel *ch, uint32_t cpu, uint64_t pos)
{
	return ch->base + ch->data_offset + (uint64_t)cpu * ch->cpu_buf_size +
	       (pos & (ch->cpu_buf_size - 1));
}

/* Header word at pos (8-aligned, inside cpu's data by construction). */
static inline _Atomic uint64_t *rb_hdr_at(const struct rb_channel *ch, uint32_t cpu, uint64_t pos)
{
	return (_Atomic uint64_t *)(void *)rb_data_at(ch, cpu, pos & ~(uint64_t)7);
}

/*
 * Walk result used by both the consumer and the overwrite-mode producer: is
 * the header h at pos a valid record start inside the sub-buffer ending at
 * sb_end?
 */
static inline int rb_hdr_valid(const struct rb_channel *ch, uint64_t h, uint64_t pos,
			       uint64_t sb_end)
{
	unsigned int state = rb_hdr_state(h);

	if (state == RB_REC_INVALID)
		return 0;
	if (rb_hdr_tag(h) != ((pos >> ch->cpu_buf_shift) & 0xffffu))
		return 0;
	if (state == RB_REC_PADDING)
		return pos + RB_RECORD_HEADER_SIZE + rb_hdr_len(h) == sb_end;
	return rb_rec_size(rb_hdr_len(h)) <= sb_end - pos;
}

/* Producer side, overwrite mode (producer.c); also used by tests. */
int rb_pid_alive(uint32_t pid);

#endif
