/* SPDX-License-Identifier: MIT */
/*
 * Decoding streams ahead on worker threads (strata_ctf_reader_options
 * .decode_threads). Each stream gets a ring of CTF_AHEAD_SLOTS slots that
 * one worker fills with ctf_stream_produce() and the reader's thread
 * empties, in babeltrace2's batches, through ctf_stream_refill():
 *
 *   with T threads in all (the caller's included), worker w (1..T-1)
 *   decodes the streams i with i % T == w; the caller's thread decodes
 *   those with i % T == 0 itself, as without workers.
 *
 *     produce ──► slots[head % R]                 reader thread
 *                  ┌───────────────────────────────────────────┐
 *     ring:        │ released │ queued/returned │ decoded ahead │ free
 *                  └───────────────────────────────────────────┘
 *                tail       taken            head         tail + R
 *
 *   head: stored by the producer (release), loaded by the reader (acquire):
 *         the slots below it and the stream's packet values are complete.
 *   tail: stored by the reader (release) at its next refill of the stream,
 *         once the batch it took last has been returned and is no longer
 *         borrowed; loaded by the worker (acquire) before reusing slots.
 *   tail <= taken <= head <= tail + R; taken is the reader's alone.
 *
 * Each slot's key (struct ctf_slot_key: merge time and kind) is also
 * written to keys[head % R], a dense array beside the slots. The reader
 * orders messages by those copies and builds an event's message from the
 * slot's address, so it reads 16 bytes per message, four to a cache line,
 * and not the slot's lines: those cross to its CPU only when the caller
 * reads the event (or the merge breaks a tie on it, or the stale-string
 * model runs). Reading the slots cost the reader 0.33 s instead of 0.25 s
 * with two threads on the bench trace (docs/benchmarks.md).
 *
 * The producer writes only its streams' decoding state, the slots in
 * [head, tail + R), the packet buffers it took FREE (stream.h: the reader
 * frees them at a refill once the tail passes their packet's end) and the
 * stream's own error buffer. A worker treats a stream without a FREE
 * buffer as a full ring. What depends on the merge order stays on the reader's
 * thread and runs when a slot enters the queue, in the same order as
 * without workers: keys taken from the last returned time, recycled
 * objects (stale strings), and copying the error text to the reader when
 * the failed position is reached.
 *
 * Producing is done under the ring's `produce` mutex: by the worker a
 * chunk at a time, publishing head every few slots, or by the reader
 * itself when it finds the ring empty and the mutex free (the worker is
 * behind or not scheduled: the CPUs are busy). When the worker holds the
 * mutex, the reader spins on head a while (AHEAD_SPIN pauses) before
 * blocking on the mutex: on a VM each sleep and wake-up is a round trip
 * through the hypervisor, and blocking behind every chunk cost the reader
 * more than the worker saved it. A worker sleeps when every ring it fills
 * is full (or has no FREE packet buffer), after spinning a while too,
 * setting its `sleeping` flag and checking the tails and buffers again
 * (seq_cst on both sides: either it sees the new tail or buffer, or the
 * reader sees the flag); the reader wakes it once half a ring and half
 * the packet buffers are free, so wakeups stay rare.
 */
#ifndef STRATA_CTF_DECODE_AHEAD_H
#define STRATA_CTF_DECODE_AHEAD_H

#include <stddef.h>

#include "ctf/stream.h"

struct ctf_ahead;

/*
 * Start min(threads, n) - 1 workers decoding streams[0..n) ahead (*ret
 * NULL when that is none); their streams get a ring (s->ahead). Errors are
 * still reported to each stream's s->err. Returns 0, or -errno with
 * nothing started.
 */
int ctf_ahead_start(struct ctf_stream **streams, size_t n, unsigned threads,
		    struct ctf_ahead **ret);

/* Stop and join the workers, free the rings (s->ahead = NULL). NULL-tolerant. */
void ctf_ahead_stop(struct ctf_ahead *a);

/*
 * Give the slots taken since the last release back to the worker, with the
 * packet buffers only they reached (ctf_stream_bufs_release()). 0 or -ENOMEM.
 */
int ctf_ahead_release(struct ctf_stream *s);

/*
 * The next decoded slot of s, decoding it here if the worker is behind: 1 with
 * *ret_slot and a copy of its key in *ret_key, 0 at the stream end, or the error the stream stopped at
 * (its description then copied to s->err).
 */
int ctf_ahead_take(struct ctf_stream *s, struct ctf_slot **ret_slot, struct ctf_slot_key *ret_key);

#endif
