/* SPDX-License-Identifier: MIT */
/* Test provider: every field macro of <strata/tracepoint.h>. */
#undef STRATA_TRACEPOINT_PROVIDER
#define STRATA_TRACEPOINT_PROVIDER strata_test

#undef STRATA_TRACEPOINT_INCLUDE
#define STRATA_TRACEPOINT_INCLUDE "tp-all.h"

#if !defined(STRATA_TEST_TP_ALL_H) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)
#define STRATA_TEST_TP_ALL_H

#include <stddef.h>
#include <stdint.h>

#include <strata/tracepoint.h>

/* clang-format off */
STRATA_TRACEPOINT_ENUM(strata_test, color,
	STRATA_TP_ENUM_VALUES(
		strata_field_enum_value("RED", 0)
		strata_field_enum_range("RANGE", 10, 20)
		strata_field_enum_auto("AUTO")
		strata_tp_enum_value("NEG", -5)
		strata_tp_enum_range("OVERLAP", 15, 16)
	)
)

STRATA_TRACEPOINT_EVENT(strata_test, allfields,
	STRATA_TP_ARGS(int, i, int64_t, l, uint32_t, netv, const int16_t *, arr,
		       const char *, text, size_t, textlen, const char *, str,
		       double, d, float, f, int, color),
	STRATA_TP_FIELDS(
		strata_field_integer(int, intfield, i)
		strata_field_integer_hex(int, intfield2, i)
		strata_field_integer(int64_t, longfield, l)
		strata_field_integer(uint8_t, u8field, i)
		strata_field_integer(int8_t, s8field, i)
		strata_field_integer(uint16_t, u16field, i)
		strata_field_integer_network(uint32_t, netintfield, netv)
		strata_field_integer_network_hex(uint32_t, netintfieldhex, netv)
		strata_field_float(float, floatfield, f)
		strata_field_float(double, doublefield, d)
		strata_field_string(stringfield, str)
		strata_field_array(int16_t, arrfield, arr, 3)
		strata_field_array_hex(int16_t, arrhex, arr, 2)
		strata_field_array_text(char, arrtext, text, 8)
		strata_field_array_network(uint16_t, arrnet, arr, 2)
		strata_field_array_network_hex(uint16_t, arrnethex, arr, 2)
		strata_field_sequence(int16_t, seqfield, arr, size_t, 3)
		strata_field_sequence_hex(uint8_t, seqhex, text, uint32_t, textlen)
		strata_field_sequence_text(char, seqtext, text, uint16_t, textlen)
		strata_field_sequence_network(uint16_t, seqnet, arr, uint8_t, 1)
		strata_field_enum(strata_test, color, int, colorfield, color)
		strata_field_integer_nowrite(int, hidden, i)
		strata_field_string_nowrite(hiddenstr, str)
		strata_field_unused(i)
	)
)
STRATA_TRACEPOINT_LOGLEVEL(strata_test, allfields, STRATA_TRACEPOINT_LOGLEVEL_WARNING)
STRATA_TRACEPOINT_MODEL_EMF_URI(strata_test, allfields, "http://example.com/strata")

STRATA_TRACEPOINT_EVENT(strata_test, empty, STRATA_TP_ARGS(), STRATA_TP_FIELDS())

STRATA_TRACEPOINT_EVENT_CLASS(strata_test, pair,
	STRATA_TP_ARGS(uint64_t, a, uint64_t, b),
	STRATA_TP_FIELDS(
		strata_field_integer(uint64_t, a, a)
		strata_field_integer_hex(uint64_t, b, b)
	)
)
STRATA_TRACEPOINT_EVENT_INSTANCE(strata_test, pair, strata_test, first,
	STRATA_TP_ARGS(uint64_t, a, uint64_t, b))
STRATA_TRACEPOINT_EVENT_INSTANCE(strata_test, pair, strata_test, second,
	STRATA_TP_ARGS(uint64_t, a, uint64_t, b))
STRATA_TRACEPOINT_LOGLEVEL(strata_test, second, STRATA_TRACEPOINT_LOGLEVEL_INFO)

/* Never enabled by the tests: its arguments must never be evaluated. */
STRATA_TRACEPOINT_EVENT(strata_test, disabled,
	STRATA_TP_ARGS(int, v),
	STRATA_TP_FIELDS(strata_field_integer(int, v, v)))
/* clang-format on */

#endif

#include <strata/tracepoint-event.h>
