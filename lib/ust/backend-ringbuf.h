/* SPDX-License-Identifier: MIT */
/*
 * The shared-memory backend: records go to a lib/ringbuf channel mapped from
 * the fds strata-sessiond sends (rb_channel_attach()), one buffer per CPU.
 *
 *   struct rb_channel *rb;
 *   rb_channel_attach(fds, n, &rb);
 *   ust_ringbuf_backend_prepare(rb, clock);        the channel's clock
 *   cfg.ops = &ust_ringbuf_backend_ops; cfg.backend = rb; cfg.clock = clock;
 *   ust_channel_create(&cfg, &chan);
 *
 * The ring buffer takes the timestamp inside its reservation, after the
 * record's size is fixed, so the event header cannot be chosen from the
 * previous record's timestamp: every record carries the 14-byte extended
 * large header (full 64-bit timestamp), which any reader decodes whatever
 * precedes it. That costs 8 bytes per record, no time.
 *
 * The consumer side (strata-sessiond) reads packets with rb_consumer_read():
 * each packet's data is the event area of one CTF packet (lib/ctf/writer.h:
 * ctf_packet_header_write() with ts_begin/ts_end/lost_total/seq/cpu).
 */
#ifndef STRATA_UST_BACKEND_RINGBUF_H
#define STRATA_UST_BACKEND_RINGBUF_H

#include "ringbuf/ringbuf.h"
#include "ust/header.h"
#include "ust/ust-internal.h"

/* backend = the struct rb_channel *. */
extern const struct ust_backend_ops ust_ringbuf_backend_ops;

/*
 * The two operations, inline: strata_ust_event_reserve()/commit() call them
 * directly for this backend (no indirect call on the fast path).
 */
static inline void *ust_ringbuf_reserve(struct rb_channel *rb, struct strata_ust_ctx *ctx,
					uint32_t id, size_t len)
{
	struct rb_reservation *res = (struct rb_reservation *)(void *)ctx->slot;

	if (rb_reserve(rb, -1, UST_HEADER_EXTENDED_LEN + len, res) < 0)
		return NULL; /* counted lost by the ring buffer */
	return ust_header_write(res->data, id, res->ts, true);
}

static inline void ust_ringbuf_commit(struct rb_channel *rb, struct strata_ust_ctx *ctx)
{
	rb_commit(rb, (struct rb_reservation *)(void *)ctx->slot);
}

/* Make the ring buffer read `clock` inside its reservations. */
void ust_ringbuf_backend_prepare(struct rb_channel *ch, enum ust_clock_kind clock);

#endif
