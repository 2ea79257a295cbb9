/* SPDX-License-Identifier: MIT */
/*
 * The hello provider: the event of the LTTng 2.0 article's hello example,
 * written by hand the way a port from lttng-ust would look.
 */
#undef STRATA_TRACEPOINT_PROVIDER
#define STRATA_TRACEPOINT_PROVIDER hello

#undef STRATA_TRACEPOINT_INCLUDE
#define STRATA_TRACEPOINT_INCLUDE "./hello-tp.h"

#if !defined(HELLO_TP_H) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)
#define HELLO_TP_H

#include <stddef.h>

#include <strata/tracepoint.h>

/* clang-format off */
STRATA_TRACEPOINT_EVENT(hello, tptest,
	STRATA_TP_ARGS(int, anint, int, netint, long *, values,
		       char *, text, size_t, textlen,
		       double, doublearg, float, floatarg),
	STRATA_TP_FIELDS(
		strata_field_integer(int, intfield, anint)
		strata_field_integer_hex(int, intfield2, anint)
		strata_field_integer(long, longfield, anint)
		strata_field_integer_network(int, netintfield, netint)
		strata_field_integer_network_hex(int, netintfieldhex, netint)
		strata_field_array(long, arrfield1, values, 3)
		strata_field_array_text(char, arrfield2, text, 10)
		strata_field_sequence(char, seqfield1, text, size_t, textlen)
		strata_field_sequence_text(char, seqfield2, text, size_t, textlen)
		strata_field_string(stringfield, text)
		strata_field_float(float, floatfield, floatarg)
		strata_field_float(double, doublefield, doublearg)
	)
)
/* clang-format on */

#endif /* HELLO_TP_H */

#include <strata/tracepoint-event.h>
