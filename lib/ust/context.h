/* SPDX-License-Identifier: MIT */
/*
 * Stream event context fields a channel may record before every payload
 * (`strata add-context -u -t NAME`). Their wire size, their descriptor (for
 * the metadata writer) and their name are defined here once, so the probe
 * side (lib/ust) and the consumer side (sessiond + lib/ctf/writer) cannot
 * disagree. Types are those lttng-ust 2.13 declares.
 */
#ifndef STRATA_UST_CONTEXT_H
#define STRATA_UST_CONTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <strata/ust-abi.h>
#include <strata/ust-events.h>

enum ust_context_type {
	UST_CTX_VPID = 0, /* s32 */
	UST_CTX_VTID = 1, /* s32, cached per thread */
	UST_CTX_PROCNAME = 2, /* char[17] text, cached per thread */
	UST_CTX_PTHREAD_ID = 3, /* u64 (unsigned long) */
	UST_CTX_IP = 4, /* u64: the call site's return address */
	UST_CTX_VUID = 5, /* u32 */
	UST_CTX_VGID = 6, /* u32 */
	/* u64: a per-thread perf counter (type and config per channel context) */
	UST_CTX_PERF_THREAD = 7,
	UST_CTX_COUNT,
};

/* A per-thread perf counter context: what perf_event_open(2) counts. */
struct ust_perf_ctx {
	uint32_t type; /* PERF_TYPE_* */
	uint64_t config;
};

/* Most contexts one channel records, and their most bytes (each once). */
#define UST_CTX_MAX STRATA_UST_MAX_CONTEXTS
#define UST_PROCNAME_LEN 17
#define UST_CTX_BYTES_MAX 64

static inline const struct strata_field_desc *ust_context_desc(enum ust_context_type type)
{
	static const struct strata_field_desc descs[UST_CTX_COUNT] = {
		[UST_CTX_VPID] = { "vpid",
				   STRATA_TYPE_INTEGER,
				   0,
				   0,
				   0,
				   { 32, 1, 10, 0 },
				   0,
				   NULL },
		[UST_CTX_VTID] = { "vtid",
				   STRATA_TYPE_INTEGER,
				   0,
				   0,
				   0,
				   { 32, 1, 10, 0 },
				   0,
				   NULL },
		[UST_CTX_PROCNAME] = { "procname",
				       STRATA_TYPE_ARRAY,
				       STRATA_ENCODING_UTF8,
				       0,
				       0,
				       { 8, 1, 10, 0 },
				       UST_PROCNAME_LEN,
				       NULL },
		[UST_CTX_PTHREAD_ID] = { "pthread_id",
					 STRATA_TYPE_INTEGER,
					 0,
					 0,
					 0,
					 { 64, 0, 10, 0 },
					 0,
					 NULL },
		[UST_CTX_IP] = { "ip", STRATA_TYPE_INTEGER, 0, 0, 0, { 64, 0, 10, 0 }, 0, NULL },
		[UST_CTX_VUID] = { "vuid",
				   STRATA_TYPE_INTEGER,
				   0,
				   0,
				   0,
				   { 32, 0, 10, 0 },
				   0,
				   NULL },
		[UST_CTX_VGID] = { "vgid",
				   STRATA_TYPE_INTEGER,
				   0,
				   0,
				   0,
				   { 32, 0, 10, 0 },
				   0,
				   NULL },
		/* The field name depends on the counter: the daemon names it. */
		[UST_CTX_PERF_THREAD] = { "perf_thread",
					  STRATA_TYPE_INTEGER,
					  0,
					  0,
					  0,
					  { 64, 0, 10, 0 },
					  0,
					  NULL },
	};

	if ((unsigned int)type >= UST_CTX_COUNT)
		return NULL;
	return &descs[type];
}

/* Bytes the context occupies in a record (byte-packed). */
static inline size_t ust_context_size(enum ust_context_type type)
{
	static const uint8_t sizes[UST_CTX_COUNT] = {
		[UST_CTX_VPID] = 4,
		[UST_CTX_VTID] = 4,
		[UST_CTX_PROCNAME] = UST_PROCNAME_LEN,
		[UST_CTX_PTHREAD_ID] = 8,
		[UST_CTX_IP] = 8,
		[UST_CTX_VUID] = 4,
		[UST_CTX_VGID] = 4,
		[UST_CTX_PERF_THREAD] = 8,
	};

	return (unsigned int)type < UST_CTX_COUNT ? sizes[type] : 0;
}

/* "vpid" -> UST_CTX_VPID; -1 when unknown. */
static inline int ust_context_from_name(const char *name)
{
	for (int i = 0; i < UST_CTX_COUNT; i++)
		if (strcmp(ust_context_desc((enum ust_context_type)i)->name, name) == 0)
			return i;
	return -1;
}

#endif
