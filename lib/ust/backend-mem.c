/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "ust/backend-mem.h"
#include "ust/header.h"

#include "common/common.h"

struct ust_mem_backend {
	uint8_t *buf;
	size_t capacity;
	uint64_t offset; /* reserved bytes (CAS) */
	uint64_t committed; /* committed bytes */
	uint64_t last_ts; /* of the latest reservation; stale = older = safe */
	uint64_t first_ts;
	uint64_t lost;
	uint64_t count;
};

int ust_mem_backend_create(size_t capacity, struct ust_mem_backend **ret_backend)
{
	struct ust_mem_backend *mb;

	if (!capacity)
		return -EINVAL;
	mb = calloc(1, sizeof(*mb));
	if (!mb)
		return -ENOMEM;
	mb->buf = calloc(1, capacity);
	if (!mb->buf) {
		free(mb);
		return -ENOMEM;
	}
	mb->capacity = capacity;
	*ret_backend = mb;
	return 0;
}

void ust_mem_backend_destroy(struct ust_mem_backend *mb)
{
	if (!mb)
		return;
	free(mb->buf);
	free(mb);
}

static void *mem_reserve(void *backend, struct strata_ust_ctx *ctx, uint32_t id, size_t len,
			 enum ust_clock_kind clock)
{
	struct ust_mem_backend *mb = backend;
	uint64_t old, end, ts;
	bool ext;

	old = __atomic_load_n(&mb->offset, __ATOMIC_RELAXED);
	do {
		/* Read the clock after the offset: a CAS success orders both. */
		ts = ust_clock_read(clock);
		ext = ust_header_extended(id, ts, __atomic_load_n(&mb->last_ts, __ATOMIC_RELAXED));
		end = old + ust_header_len(ext) + len;
		if (end > mb->capacity || end < old) {
			__atomic_fetch_add(&mb->lost, 1, __ATOMIC_RELAXED);
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&mb->offset, &old, end, true, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	__atomic_store_n(&mb->last_ts, ts, __ATOMIC_RELAXED);
	if (old == 0)
		__atomic_store_n(&mb->first_ts, ts, __ATOMIC_RELAXED);
	ctx->buf = mb->buf + old;
	ctx->slot[0] = end - old;
	return ust_header_write(mb->buf + old, id, ts, ext);
}

static void mem_commit(void *backend, struct strata_ust_ctx *ctx)
{
	struct ust_mem_backend *mb = backend;

	/* Pairs with the acquire load in ust_mem_backend_data(). */
	__atomic_fetch_add(&mb->committed, ctx->slot[0], __ATOMIC_RELEASE);
	__atomic_fetch_add(&mb->count, 1, __ATOMIC_RELAXED);
}

const struct ust_backend_ops ust_mem_backend_ops = {
	.reserve = mem_reserve,
	.commit = mem_commit,
};

const uint8_t *ust_mem_backend_data(const struct ust_mem_backend *mb, size_t *ret_len)
{
	*ret_len = (size_t)__atomic_load_n(&mb->committed, __ATOMIC_ACQUIRE);
	return mb->buf;
}

uint64_t ust_mem_backend_lost(const struct ust_mem_backend *mb)
{
	return __atomic_load_n(&mb->lost, __ATOMIC_RELAXED);
}

uint64_t ust_mem_backend_first_ts(const struct ust_mem_backend *mb)
{
	return mb->offset ? mb->first_ts : 0;
}

uint64_t ust_mem_backend_last_ts(const struct ust_mem_backend *mb)
{
	return mb->offset ? mb->last_ts : 0;
}

uint64_t ust_mem_backend_count(const struct ust_mem_backend *mb)
{
	return __atomic_load_n(&mb->count, __ATOMIC_RELAXED);
}

void ust_mem_backend_reset(struct ust_mem_backend *mb)
{
	mb->offset = 0;
	mb->committed = 0;
	mb->last_ts = 0;
	mb->first_ts = 0;
	mb->count = 0;
}
