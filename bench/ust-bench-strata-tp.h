/* SPDX-License-Identifier: MIT */
/*
 * bench/ust-vs-lttng: the strata provider. ust-bench-lttng-tp.h is the same
 * provider written for lttng-ust 2.13 (this file is its mechanical rename).
 */
/* clang-format off */
#undef STRATA_TRACEPOINT_PROVIDER
#define STRATA_TRACEPOINT_PROVIDER ustbench

#undef STRATA_TRACEPOINT_INCLUDE
#define STRATA_TRACEPOINT_INCLUDE "./ust-bench-strata-tp.h"

#if !defined(UST_BENCH_STRATA_TP_H) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)
#define UST_BENCH_STRATA_TP_H

#include <stdint.h>

#include <strata/tracepoint.h>

STRATA_TRACEPOINT_EVENT(ustbench, ev,
	STRATA_TP_ARGS(uint64_t, a, uint64_t, b),
	STRATA_TP_FIELDS(
		strata_field_integer(uint64_t, a, a)
		strata_field_integer(uint64_t, b, b)
	)
)

/* Enabled instead of ev to measure ev's disabled cost inside a session. */
STRATA_TRACEPOINT_EVENT(ustbench, idle,
	STRATA_TP_ARGS(uint64_t, a),
	STRATA_TP_FIELDS(
		strata_field_integer(uint64_t, a, a)
	)
)

#endif /* UST_BENCH_STRATA_TP_H */

#include <strata/tracepoint-event.h>
/* clang-format on */
