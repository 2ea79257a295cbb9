/* SPDX-License-Identifier: MIT */
/* The filter oracle's lttng-ust provider: fo:ev, a field of every type. */
/* clang-format off */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fo

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./oracle-tp.h"

#if !defined(FILTER_ORACLE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FILTER_ORACLE_TP_H

#include <arpa/inet.h>
#include <stdint.h>

#include <lttng/tracepoint.h>

#include "oracle-rows.h"

LTTNG_UST_TRACEPOINT_ENUM(fo, color,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("RED", 0)
		lttng_ust_field_enum_value("GREEN", 1)
		lttng_ust_field_enum_value("BLUE", 2)
		lttng_ust_field_enum_range("HIGH", 3, 10)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(fo, ev,
	LTTNG_UST_TP_ARGS(uint32_t, i, const struct fo_row *, r),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, i, i)
		lttng_ust_field_integer(int8_t, s8, r->s8)
		lttng_ust_field_integer(int16_t, s16, r->s16)
		lttng_ust_field_integer(int32_t, s32, r->s32)
		lttng_ust_field_integer(int64_t, s64, r->s64)
		lttng_ust_field_integer(uint8_t, u8, r->u8)
		lttng_ust_field_integer(uint16_t, u16, r->u16)
		lttng_ust_field_integer(uint32_t, u32, r->u32)
		lttng_ust_field_integer(uint64_t, u64, r->u64)
		lttng_ust_field_integer_hex(uint32_t, h32, r->h32)
		lttng_ust_field_integer_network(uint16_t, port, htons(r->port))
		lttng_ust_field_integer_network(int32_t, net32, (int32_t)htonl((uint32_t)r->net32))
		lttng_ust_field_enum(fo, color, int32_t, en, r->en)
		lttng_ust_field_float(float, f, r->f)
		lttng_ust_field_float(double, d, r->d)
		lttng_ust_field_string(str, r->str)
		lttng_ust_field_array_text(char, txt, r->txt, 8)
		lttng_ust_field_sequence_text(char, tseq, r->tseq, uint32_t, r->tseq_len)
		lttng_ust_field_array(int32_t, iarr, r->iarr, 4)
		lttng_ust_field_sequence(uint16_t, iseq, r->iseq, uint32_t, r->iseq_len)
	)
)

#endif /* FILTER_ORACLE_TP_H */

#include <lttng/tracepoint-event.h>
/* clang-format on */
