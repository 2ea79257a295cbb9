/* SPDX-License-Identifier: MIT */
/* The filter oracle's strata provider: fo:ev as oracle-tp.h declares it for lttng-ust. */
/* clang-format off */
#undef STRATA_TRACEPOINT_PROVIDER
#define STRATA_TRACEPOINT_PROVIDER fo

#undef STRATA_TRACEPOINT_INCLUDE
#define STRATA_TRACEPOINT_INCLUDE "./oracle-tp-strata.h"

#if !defined(FILTER_ORACLE_STRATA_TP_H) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)
#define FILTER_ORACLE_STRATA_TP_H

#include <arpa/inet.h>
#include <stdint.h>

#include <strata/tracepoint.h>

#include "oracle-rows.h"

STRATA_TRACEPOINT_ENUM(fo, color,
	STRATA_TP_ENUM_VALUES(
		strata_field_enum_value("RED", 0)
		strata_field_enum_value("GREEN", 1)
		strata_field_enum_value("BLUE", 2)
		strata_field_enum_range("HIGH", 3, 10)
	)
)

STRATA_TRACEPOINT_EVENT(fo, ev,
	STRATA_TP_ARGS(uint32_t, i, const struct fo_row *, r),
	STRATA_TP_FIELDS(
		strata_field_integer(uint32_t, i, i)
		strata_field_integer(int8_t, s8, r->s8)
		strata_field_integer(int16_t, s16, r->s16)
		strata_field_integer(int32_t, s32, r->s32)
		strata_field_integer(int64_t, s64, r->s64)
		strata_field_integer(uint8_t, u8, r->u8)
		strata_field_integer(uint16_t, u16, r->u16)
		strata_field_integer(uint32_t, u32, r->u32)
		strata_field_integer(uint64_t, u64, r->u64)
		strata_field_integer_hex(uint32_t, h32, r->h32)
		strata_field_integer_network(uint16_t, port, htons(r->port))
		strata_field_integer_network(int32_t, net32, (int32_t)htonl((uint32_t)r->net32))
		strata_field_enum(fo, color, int32_t, en, r->en)
		strata_field_float(float, f, r->f)
		strata_field_float(double, d, r->d)
		strata_field_string(str, r->str)
		strata_field_array_text(char, txt, r->txt, 8)
		strata_field_sequence_text(char, tseq, r->tseq, uint32_t, r->tseq_len)
		strata_field_array(int32_t, iarr, r->iarr, 4)
		strata_field_sequence(uint16_t, iseq, r->iseq, uint32_t, r->iseq_len)
	)
)

#endif /* FILTER_ORACLE_STRATA_TP_H */

#include <strata/tracepoint-event.h>
/* clang-format on */
