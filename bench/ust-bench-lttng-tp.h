/* SPDX-License-Identifier: MIT */
/*
 * bench/ust-vs-lttng: the lttng-ust 2.13 provider (the peer the strata
 * provider in ust-bench-strata-tp.h is measured against).
 */
/* clang-format off */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ustbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ust-bench-lttng-tp.h"

#if !defined(UST_BENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define UST_BENCH_LTTNG_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ustbench, ev,
	LTTNG_UST_TP_ARGS(uint64_t, a, uint64_t, b),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, a, a)
		lttng_ust_field_integer(uint64_t, b, b)
	)
)

/* Enabled instead of ev to measure ev's disabled cost inside a session. */
LTTNG_UST_TRACEPOINT_EVENT(ustbench, idle,
	LTTNG_UST_TP_ARGS(uint64_t, a),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, a, a)
	)
)

#endif /* UST_BENCH_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
/* clang-format on */
