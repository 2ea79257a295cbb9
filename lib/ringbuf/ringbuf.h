/* SPDX-License-Identifier: MIT */
/*
 * lib/ringbuf: the shared-memory ring buffer between traced apps (producers)
 * and strata-sessiond (consumer). Internal API (not installed), linked
 * statically into libstrata-ust and strata-sessiond.
 *
 * One channel = nr_cpus per-CPU buffers, each split into num_subbufs
 * sub-buffers of subbuf_size bytes (both powers of two). Every sub-buffer
 * becomes one CTF packet. The channel lives in one memfd mapped by the daemon
 * and by every app writing to it (per-user buffers: all apps of a uid map the
 * same channel; per-process: one app). layout.h describes the memory layout
 * and the concurrency design (ASCII diagram); read it before changing code.
 *
 * Roles:
 *   - the creator (sessiond) calls rb_channel_create() and sends the fds
 *     returned by rb_channel_fds() to apps (SCM_RIGHTS, in that order);
 *   - a producer (app) calls rb_channel_attach() with those fds, then
 *     rb_reserve()/rb_commit() from any thread or signal handler;
 *   - the consumer (sessiond) calls rb_consumer_create() on its channel and
 *     rb_consumer_read() per CPU to get closed sub-buffers as packets.
 *
 * Records are opaque byte blobs (the tracepoint code writes CTF event header +
 * contexts + payload into them). The library stores an 8-byte header before
 * each record; the consumer strips it, so a packet's data is exactly the
 * concatenation of the record payloads in buffer order.
 *
 * Errors: int functions return >= 0 or -errno / -STRATA_E* (strata/error.h).
 * Nothing here prints. Producer calls never block, never allocate, never make
 * a system call on the fast path (one wakeup send per sub-buffer at most, and
 * only when the consumer asked to be woken).
 */
#ifndef STRATA_RINGBUF_RINGBUF_H
#define STRATA_RINGBUF_RINGBUF_H

#include <stddef.h>
#include <stdint.h>

/* Limits; rb_channel_create() and rb_channel_attach() refuse anything else. */
#define RB_SUBBUF_SIZE_MIN (4096u) /* bytes, power of two */
#define RB_SUBBUF_SIZE_MAX (16u * 1024 * 1024) /* bytes, power of two */
#define RB_NUM_SUBBUFS_MIN 2u /* power of two */
#define RB_NUM_SUBBUFS_MAX 1024u
#define RB_NR_CPUS_MAX 4096u
#define RB_CPU_BUF_SIZE_MAX (1ull << 30) /* subbuf_size * num_subbufs */
#define RB_CHANNEL_SIZE_MAX (64ull << 30) /* whole mapping */
#define RB_RECORD_HEADER_SIZE 8u /* per record, stripped by consumer */
/* Largest payload rb_reserve() accepts for a given sub-buffer size. */
#define RB_RECORD_MAX(subbuf_size) ((size_t)(subbuf_size)-RB_RECORD_HEADER_SIZE)

/* Number of fds rb_channel_fds() returns / rb_channel_attach() takes. */
#define RB_CHANNEL_NR_FDS 2

enum rb_mode {
	RB_MODE_DISCARD = 0, /* buffer full: drop the new record, count it */
	RB_MODE_OVERWRITE = 1, /* flight recorder: overwrite the oldest sub-buffer */
};

struct rb_config {
	uint64_t subbuf_size; /* power of two, [RB_SUBBUF_SIZE_MIN, _MAX] */
	uint32_t num_subbufs; /* power of two, [RB_NUM_SUBBUFS_MIN, _MAX] */
	uint32_t nr_cpus; /* per-CPU buffers 0..nr_cpus-1, [1, RB_NR_CPUS_MAX] */
	enum rb_mode mode;
};

/*
 * A raw 64-bit clock read by the producer inside rb_reserve(), after the
 * buffer's write position is loaded and before it is advanced, so that the
 * timestamps of one per-CPU buffer never go backwards in buffer order. The
 * library never chooses the clock: the caller provides it (TSC, monotonic..).
 * Must be async-signal-safe and must not call into this library.
 */
typedef uint64_t (*rb_clock_fn)(void);

/* Process-local handle on a mapped channel. Not shared between processes. */
struct rb_channel;

/*
 * Create a channel: a sealed-size memfd (O_CLOEXEC) holding the header, the
 * per-CPU control blocks and the data, plus a datagram socket pair for
 * consumer wakeups (producers get one end, the creator keeps the other). The creator may also produce (set a clock first).
 * Returns 0, -EINVAL (config outside the limits), -ENOMEM, or -errno from
 * memfd_create/ftruncate/mmap/socketpair.
 */
int rb_channel_create(const struct rb_config *cfg, struct rb_channel **ret_ch);

/*
 * Map an existing channel from the fds the creator sent. fds[0] is the shm
 * memfd, fds[1] the producers' end of the wakeup socket pair or -1 (no
 * wakeups: the consumer polls).
 * The fds are borrowed: the function dups what it keeps, the caller closes
 * its own. The shared header is validated (magic, version, word size,
 * geometry within the limits and consistent with the mapping size).
 * Returns 0; -EPROTONOSUPPORT (other layout version or word size),
 * -STRATA_ESTREAM (corrupted header), -EINVAL, -ENOMEM, or -errno.
 */
int rb_channel_attach(const int *fds, unsigned int nr_fds, struct rb_channel **ret_ch);

/* Unmap and close. NULL-tolerant. No reservation may be in flight. */
void rb_channel_destroy(struct rb_channel *ch);

/*
 * Fds to send to producers, in rb_channel_attach() order; borrowed (owned by
 * ch). Returns the count (RB_CHANNEL_NR_FDS).
 */
int rb_channel_fds(const struct rb_channel *ch, int ret_fds[RB_CHANNEL_NR_FDS]);

/* The validated geometry (process-local copy, never re-read from shm). */
void rb_channel_config(const struct rb_channel *ch, struct rb_config *ret_cfg);

/* Set the producer clock (see rb_clock_fn). Without one, timestamps are 0. */
void rb_channel_set_clock(struct rb_channel *ch, rb_clock_fn clock);

/* ---- Producer ------------------------------------------------------------ */

/* Filled by rb_reserve(); the caller owns it on its stack until rb_commit(). */
struct rb_reservation {
	void *data; /* len writable bytes (8-byte aligned) */
	uint64_t ts; /* clock value read inside the reservation */
	size_t len; /* payload bytes reserved: rb_reserve_ts() tells the form */
	/* private to the library */
	void *priv_hdr;
	uint64_t priv_word;
	uint32_t priv_flags;
	uint32_t priv_cpu;
};

/*
 * Reserve payload_len bytes in the buffer of `cpu` (-1: the calling thread's
 * current CPU, from sched_getcpu(), which glibc >= 2.35 serves from rseq).
 * Lock-free (one CAS on the buffer's write position); safe from any thread,
 * any process mapping the channel, and signal handlers (nesting is fine).
 * The caller writes exactly payload_len bytes to res->data, then calls
 * rb_commit(). A caller killed between the two loses only that record.
 * Returns 0;
 *   -ENOBUFS: no space (discard mode full, or overwrite mode blocked by an
 *             in-flight record of a live writer, or a hole the consumer
 *             has not declared dead yet, in the oldest sub-buffer);
 *             the record is counted as lost in the buffer;
 *   -E2BIG:   payload_len > RB_RECORD_MAX(subbuf_size); counted as lost;
 *   -EINVAL:  cpu out of range (not counted).
 */
int rb_reserve(struct rb_channel *ch, int cpu, size_t payload_len, struct rb_reservation *res);

/*
 * Like rb_reserve(), for event headers whose size depends on the timestamp
 * (CTF compact vs extended headers, LTTng's rule): reserves len_ext bytes
 * (res->len == len_ext: write the extended form) when the record is the first
 * of its sub-buffer or when (ts - last_ts) >> ts_bits != 0, last_ts being the
 * timestamp of an earlier record of the same buffer (never a later one; an
 * older one only makes the extended form more frequent); else len bytes
 * (res->len == len). Pass len == len_ext to force the extended form (event id
 * too large). Returns as rb_reserve(), or -EINVAL if ts_bits is not in
 * [1, 63] or len_ext < len. Records after a dead writer's skipped record keep
 * a compact delta relative to it: a reader sees them relative to the record
 * before it (harmless unless ts_bits worth of time passed between the two).
 */
int rb_reserve_ts(struct rb_channel *ch, int cpu, size_t len, size_t len_ext, unsigned int ts_bits,
		  struct rb_reservation *res);

/*
 * Publish the record. Never fails. Wakes the consumer (one datagram) only
 * if this record closed a sub-buffer and the consumer armed its wakeup.
 */
void rb_commit(struct rb_channel *ch, struct rb_reservation *res);

/* ---- Consumer ------------------------------------------------------------ */

struct rb_consumer;

struct rb_consumer_opts {
	/*
	 * How long a hole (a reserved record whose header was never written:
	 * its writer died or is stopped between reserving and writing the
	 * header) may stay before it is skipped and counted lost. 0: 1000 ms.
	 */
	uint32_t hole_timeout_ms;
};

/*
 * Consumer state for every CPU of ch (one consumer per channel, used by one
 * thread at a time). Allocates a private copy buffer of subbuf_size bytes
 * and a record index. ch must outlive the consumer.
 */
int rb_consumer_create(struct rb_channel *ch, const struct rb_consumer_opts *opts,
		       struct rb_consumer **ret_cons);
void rb_consumer_destroy(struct rb_consumer *cons);

/*
 * One closed sub-buffer, copied out of shared memory (so later app writes
 * cannot change it). Valid until the next rb_consumer_read() on this consumer.
 */
struct rb_packet {
	const uint8_t *data; /* concatenated record payloads */
	size_t size; /* bytes at data (CTF content size of the events) */
	uint64_t nr_records; /* records in this packet */
	uint64_t seq; /* sub-buffer sequence number in this CPU buffer
				    (packet_seq_num); gaps = overwritten packets */
	uint64_t ts_begin; /* clock at the first record (or flush/prev end) */
	uint64_t ts_end; /* clock at close (>= ts_begin) */
	uint64_t lost_total; /* cumulative records lost in this CPU buffer up to
				    this packet's close: events_discarded */
	uint32_t cpu;
	uint32_t flags; /* RB_PACKET_* */
	const uint32_t *rec_end; /* nr_records offsets: record i is
				    [i ? rec_end[i-1] : 0, rec_end[i]) in data */
};

#define RB_PACKET_FLUSHED 0x1u /* closed early by rb_consumer_flush() */
#define RB_PACKET_REPAIRED 0x2u /* a dead/stuck writer's record was skipped */

/* rb_consumer_read() flags */
#define RB_READ_FORCE \
	0x1u /* skip records still in flight (live writer) too,
			      counting them lost: for destroy/stop timeouts */

/*
 * Copy out the oldest closed, fully committed sub-buffer of `cpu` and release
 * it to producers. Returns 0 (ret_pkt filled); -EAGAIN: nothing closed yet, or
 * a record is still being written (retry later: on wakeup or timer);
 * -STRATA_ESTREAM: shared control words are inconsistent (an app corrupted
 * them) - the buffer is unusable; -EINVAL: bad cpu. Never reads outside the
 * mapping, never loops unboundedly, whatever apps wrote.
 * Overwrite mode: sub-buffers overwritten before or while being copied are
 * skipped (counted in lost_total, seq shows the gap).
 */
int rb_consumer_read(struct rb_consumer *cons, unsigned int cpu, unsigned int flags,
		     struct rb_packet *ret_pkt);

/*
 * Close the current partially filled sub-buffer of `cpu` (switch timer, stop,
 * snapshot) without stopping producers: pads it to its end; it becomes
 * readable once its in-flight records are committed. Its ts_end is the
 * channel clock (rb_channel_set_clock on the consumer's handle) read after
 * the write position, so it bounds every record in it, or now_ts (same clock
 * as the producers) when no clock is set or now_ts is later. Returns 1 if a sub-buffer was closed, 0 if
 * there was nothing to close, -EINVAL / -STRATA_ESTREAM.
 */
int rb_consumer_flush(struct rb_consumer *cons, unsigned int cpu, uint64_t now_ts);

/*
 * Overwrite mode without continuous reading (flight recorder): a hole left by
 * a writer killed between reserving and writing its record header blocks
 * producers from overwriting that sub-buffer until the consumer declares it
 * dead, which rb_consumer_read() does on its way and this function does
 * without consuming anything. Call it from a slow timer (e.g. each second);
 * holes die after hole_timeout_ms. Returns 0, -EINVAL or -STRATA_ESTREAM.
 */
int rb_consumer_repair(struct rb_consumer *cons, unsigned int cpu);

/*
 * Cumulative records lost in `cpu`'s buffer so far (as lost_total would be
 * reported now). For the final count after the last packet.
 */
uint64_t rb_consumer_lost(struct rb_consumer *cons, unsigned int cpu);

/*
 * Wakeups. The consumer is woken through its end of the wakeup socket pair
 * (rb_consumer_wakeup_fd,
 * poll for POLLIN) at most once per closed sub-buffer, and only after arming:
 *   for (;;) {
 *           drain every CPU with rb_consumer_read() until -EAGAIN;
 *           rb_consumer_arm_wakeup(cons);
 *           drain again (closes the race with a producer that closed a
 *           sub-buffer just before the flag was set);
 *           poll(wakeup_fd, timeout = switch/read timer); rb_consumer_ack_wakeup();
 *   }
 * A producer that closes a sub-buffer while armed disarms the flag (exchange)
 * and sends one datagram. Keep a timer: records still in flight when the
 * wakeup came, flushes and hole timeouts need a later retry.
 */
int rb_consumer_wakeup_fd(const struct rb_consumer *cons);
void rb_consumer_arm_wakeup(struct rb_consumer *cons);
void rb_consumer_ack_wakeup(struct rb_consumer *cons);

#endif
