/* SPDX-License-Identifier: MIT */
/*
 * The lttng-ust 2.13 provider of relay-app.c (the relay e2e tests): events
 * with an integer, a string and a 64-bit value, never an empty string (an
 * empty one prints babeltrace2's stale text, which live readers differ on).
 */
/* clang-format off */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER relaytest

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./relay-tp.h"

#if !defined(RELAY_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define RELAY_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(relaytest, event,
	LTTNG_UST_TP_ARGS(int, seq, const char *, who, uint64_t, value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, seq, seq)
		lttng_ust_field_string(who, who)
		lttng_ust_field_integer_hex(uint64_t, value, value)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(relaytest, done,
	LTTNG_UST_TP_ARGS(int, count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, count, count)
	)
)

#endif /* RELAY_TP_H */

#include <lttng/tracepoint-event.h>
/* clang-format on */
