/* SPDX-License-Identifier: MIT */
#include "ust/backend-ringbuf.h"

#include "common/common.h"

_Static_assert(sizeof(struct rb_reservation) <= sizeof(((struct strata_ust_ctx *)0)->slot),
	       "struct strata_ust_ctx must hold a ring buffer reservation");

static void *rb_backend_reserve(void *backend, struct strata_ust_ctx *ctx, uint32_t id, size_t len,
				enum ust_clock_kind clock)
{
	(void)clock; /* read by the ring buffer: see ust_ringbuf_backend_prepare() */
	return ust_ringbuf_reserve(backend, ctx, id, len);
}

static void rb_backend_commit(void *backend, struct strata_ust_ctx *ctx)
{
	ust_ringbuf_commit(backend, ctx);
}

const struct ust_backend_ops ust_ringbuf_backend_ops = {
	.reserve = rb_backend_reserve,
	.commit = rb_backend_commit,
};

void ust_ringbuf_backend_prepare(struct rb_channel *ch, enum ust_clock_kind clock)
{
	rb_channel_set_clock(ch, clock == UST_CLOCK_TSC		  ? ust_clock_read_tsc :
				 clock == UST_CLOCK_MONOTONIC_TSC ? ust_clock_read_monotonic_tsc :
								    ust_clock_read_monotonic);
}
