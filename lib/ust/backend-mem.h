/* SPDX-License-Identifier: MIT */
/*
 * The in-process backend: records go to one private, fixed-size memory
 * buffer (no shared memory, no daemon). Used by the tests and by anyone who
 * wants to capture events inside the process and write them out with
 * lib/ctf/writer.h.
 *
 * Reservation is a CAS on the write offset with the timestamp read inside
 * the CAS loop, so records are in timestamp order in the buffer whatever
 * the number of writer threads. When the buffer is full, records are
 * dropped and counted (discard mode).
 *
 * The buffer's bytes are consecutive records (header, contexts, payload):
 * exactly the event area of one CTF packet.
 */
#ifndef STRATA_UST_BACKEND_MEM_H
#define STRATA_UST_BACKEND_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "ust/ust-internal.h"

struct ust_mem_backend;

extern const struct ust_backend_ops ust_mem_backend_ops;

int ust_mem_backend_create(size_t capacity, struct ust_mem_backend **ret_backend);
void ust_mem_backend_destroy(struct ust_mem_backend *mb);

/*
 * The committed records, valid while no writer is active (the caller
 * ensures it, e.g. after joining its threads).
 */
const uint8_t *ust_mem_backend_data(const struct ust_mem_backend *mb, size_t *ret_len);
uint64_t ust_mem_backend_lost(const struct ust_mem_backend *mb);
/* Timestamps of the first and last record (0 when empty). */
uint64_t ust_mem_backend_first_ts(const struct ust_mem_backend *mb);
uint64_t ust_mem_backend_last_ts(const struct ust_mem_backend *mb);
uint64_t ust_mem_backend_count(const struct ust_mem_backend *mb);

/* Forget the records (starts a new packet: the next record is extended). */
void ust_mem_backend_reset(struct ust_mem_backend *mb);

#endif
