/* SPDX-License-Identifier: MIT */
/*
 * Test helpers: turn what the in-process backend recorded into a real CTF
 * trace directory with lib/ctf/writer.h (metadata + channel0_0 + index),
 * and run a reader on it.
 */
#ifndef STRATA_TEST_UST_TRACE_UTIL_H
#define STRATA_TEST_UST_TRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf/writer.h"
#include "ust/backend-mem.h"
#include "ust/ust-control.h"

struct tu_trace {
	char dir[256];
	uint8_t uuid[16];
	struct ctf_metadata md;
	uint32_t next_id;
	bool plain_metadata; /* write the metadata file as plain text */
};

/*
 * mkdtemp a trace dir, write the preamble (hostname "testhost", clock of
 * freq/offset_ns) and stream 0 with the given contexts, then one event
 * class per name of events[] (NULL-terminated, "provider:event"), enabling
 * each into chan with its index as id.
 */
int tu_trace_begin(struct tu_trace *t, uint64_t freq, int64_t offset_ns,
		   const enum ust_context_type *ctx, uint32_t n_ctx, struct ust_channel *chan,
		   const char *const *events);

/* Write metadata (packetized), channel0_0 (one packet) and its index. */
int tu_trace_write(struct tu_trace *t, struct ust_mem_backend *mb);

/* The metadata file alone. */
int tu_trace_write_metadata(struct tu_trace *t);

/*
 * Append one packet (pi's sizes are filled in here from size) to
 * channel0_<cpu> and its index entry to index/channel0_<cpu>.idx.
 */
int tu_trace_append_packet(struct tu_trace *t, uint32_t cpu, const void *data, size_t size,
			   struct ctf_packet_info *pi);

/* rm -r the directory, release memory. */
void tu_trace_end(struct tu_trace *t);

/* Run argv (no shell), return its stdout (malloc'd) or NULL; *ret_status = exit code. */
char *tu_run(char *const argv[], int *ret_status);
/* Same, and its stderr in *ret_err (malloc'd; keep it under a pipe's capacity). */
char *tu_run2(char *const argv[], int *ret_status, char **ret_err);

/* Append to a growable string. */
struct tu_str {
	char *s;
	size_t len, cap;
};
void tu_str_printf(struct tu_str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* babeltrace2's string escaping, quotes included. */
void tu_str_escaped(struct tu_str *b, const char *s, size_t max);

#endif
