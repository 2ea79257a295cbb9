/* SPDX-License-Identifier: MIT */
/* The probes of the ustbench provider, for strata or (-DUSTBENCH_LTTNG) lttng-ust. */
#ifdef USTBENCH_LTTNG
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "ust-bench-lttng-tp.h"
#else
#define STRATA_TRACEPOINT_CREATE_PROBES
#define STRATA_TRACEPOINT_DEFINE
#include "ust-bench-strata-tp.h"
#endif
