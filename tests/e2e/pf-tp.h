/* SPDX-License-Identifier: MIT */
/* The counter test's provider: pf:entry and pf:exit around a function call. */
/* clang-format off */
#undef STRATA_TRACEPOINT_PROVIDER
#define STRATA_TRACEPOINT_PROVIDER pf

#undef STRATA_TRACEPOINT_INCLUDE
#define STRATA_TRACEPOINT_INCLUDE "./pf-tp.h"

#if !defined(PF_TP_H) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)
#define PF_TP_H

#include <strata/tracepoint.h>

STRATA_TRACEPOINT_EVENT(pf, entry,
	STRATA_TP_ARGS(int, pages),
	STRATA_TP_FIELDS(strata_field_integer(int, pages, pages)))

STRATA_TRACEPOINT_EVENT(pf, exit,
	STRATA_TP_ARGS(int, pages),
	STRATA_TP_FIELDS(strata_field_integer(int, pages, pages)))

#endif /* PF_TP_H */

#include <strata/tracepoint-event.h>
/* clang-format on */
