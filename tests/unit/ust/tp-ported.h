/* SPDX-License-Identifier: MIT */
/*
 * A provider written for lttng-ust 2.13, ported by the mechanical rename
 * LTTNG_UST_ -> STRATA_, lttng_ust_ -> strata_, <lttng/ -> <strata/ (sed).
 * test-ctf-writer.c compares the metadata strata writes for it with the
 * metadata lttng-tools 2.13.9 wrote for the original.
 */
/* clang-format off */
#undef STRATA_TRACEPOINT_PROVIDER
#define STRATA_TRACEPOINT_PROVIDER hello
#undef STRATA_TRACEPOINT_INCLUDE
#define STRATA_TRACEPOINT_INCLUDE "tp-ported.h"
#if !defined(TP_PORTED_H) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)
#define TP_PORTED_H
#include <strata/tracepoint.h>
STRATA_TRACEPOINT_ENUM(hello, myenum,
	STRATA_TP_ENUM_VALUES(
		strata_field_enum_value("ZERO", 0)
		strata_field_enum_range("RANGE", 10, 20)
		strata_field_enum_auto("AUTO")
		strata_field_enum_value("NEG", -5)
	)
)
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
		strata_field_array_hex(short, arrhex, values, 2)
		strata_field_array_network(int, arrnet, values, 2)
		strata_field_sequence_hex(unsigned char, seqhex, text, unsigned int, textlen)
		strata_field_enum(hello, myenum, int, enumfield, anint)
		strata_field_integer(unsigned char, uc, anint)
		strata_field_integer(short, sh, anint)
	)
)
STRATA_TRACEPOINT_LOGLEVEL(hello, tptest, STRATA_TRACEPOINT_LOGLEVEL_WARNING)
STRATA_TRACEPOINT_MODEL_EMF_URI(hello, tptest, "http://example.com/x")
STRATA_TRACEPOINT_EVENT(hello, empty, STRATA_TP_ARGS(), STRATA_TP_FIELDS())
#endif
#include <strata/tracepoint-event.h>
/* clang-format on */
