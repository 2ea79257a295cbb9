/*
 * lttng-ust tracepoint provider "rtest": one event per field family, so the
 * golden LTTng traces exercise every babeltrace2 printing rule that an
 * lttng-ust 2.13 trace can reach (see tests/traces/README.md).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER rtest

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./rtest-tp.h"

#if !defined(RTEST_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define RTEST_TP_H

#include <lttng/tracepoint.h>

#include "rtest-types.h"

TRACEPOINT_EVENT(
	rtest, ints, TP_ARGS(const struct rtest_ints *, v),
	TP_FIELDS(
		ctf_integer(int8_t, s8, v->s8) ctf_integer(uint8_t, u8, v->u8) ctf_integer(
			int16_t, s16,
			v->s16) ctf_integer(uint16_t, u16,
					    v->u16) ctf_integer(int32_t, s32,
								v->s32) ctf_integer(uint32_t, u32,
										    v->u32)
			ctf_integer(int64_t, s64, v->s64) ctf_integer(
				uint64_t, u64,
				v->u64) ctf_integer(char, ch, v->ch) ctf_integer_hex(int8_t, hs8,
										     v->s8)
				ctf_integer_hex(uint8_t, hu8, v->u8) ctf_integer_hex(
					int16_t, hs16,
					v->s16) ctf_integer_hex(uint16_t, hu16, v->u16)
					ctf_integer_hex(int32_t, hs32, v->s32) ctf_integer_hex(
						uint32_t,
						hu32, v->u32) ctf_integer_hex(int64_t, hs64, v->s64)
						ctf_integer_hex(uint64_t, hu64, v->u64) ctf_integer_network(
							int16_t, ns16,
							v
								->s16) ctf_integer_network(uint16_t,
											   nu16, v->u16)
							ctf_integer_network(int32_t, ns32, v->s32)
								ctf_integer_network(uint64_t, nu64,
										    v->u64)
									ctf_integer_network_hex(
										uint32_t, nh32,
										v->u32)
										ctf_integer_network_hex(
											int64_t,
											nhs64,
											v->s64)))
TRACEPOINT_LOGLEVEL(rtest, ints, TRACE_DEBUG_LINE)
TRACEPOINT_MODEL_EMF_URI(rtest, ints, "http://example.com/rtest/ints")

TRACEPOINT_EVENT(rtest, floats, TP_ARGS(float, f, double, d),
		 TP_FIELDS(ctf_float(float, f, f) ctf_float(double, d, d)))
TRACEPOINT_LOGLEVEL(rtest, floats, TRACE_INFO)

TRACEPOINT_EVENT(rtest, string, TP_ARGS(const char *, s), TP_FIELDS(ctf_string(str, s)))
TRACEPOINT_LOGLEVEL(rtest, string, TRACE_WARNING)

TRACEPOINT_EVENT(
	rtest, arrays, TP_ARGS(const struct rtest_arrays *, a),
	TP_FIELDS(ctf_array_text(char, arrtext, a->text,
				 8) ctf_sequence_text(char, seqtext, a->text, size_t, a->text_len)
			  ctf_array(int32_t, arr, a->arr, 4) ctf_array_hex(int32_t, harr, a->arr, 4)
				  ctf_sequence(uint16_t, seq, a->seq, size_t, a->seq_len)
					  ctf_sequence_network(uint16_t, nseq, a->seq, size_t,
							       a->seq_len)
						  ctf_array(uint8_t, bytes, a->bytes, 6)
							  ctf_array(char, chars, a->text, 3)))
TRACEPOINT_LOGLEVEL(rtest, arrays, TRACE_DEBUG)

TRACEPOINT_ENUM(rtest, color,
		TP_ENUM_VALUES(ctf_enum_value("RED", 0) ctf_enum_value("GREEN", 1) ctf_enum_value(
			"BLUE", 2) ctf_enum_range("RANGE", 10, 20) ctf_enum_range("OVERLAP", 15, 25)
				       ctf_enum_auto("AUTO") ctf_enum_value("NEG", -5)
					       ctf_enum_value("quote\"back\\slash", 100)))

TRACEPOINT_ENUM(rtest, flags,
		TP_ENUM_VALUES(ctf_enum_value("NONE", 0) ctf_enum_value("READ", 1)
				       ctf_enum_value("WRITE", 2) ctf_enum_value("EXEC", 4)
					       ctf_enum_range("HIGH", 0x80000000, 0xFFFFFFFF)))

TRACEPOINT_EVENT(rtest, enums, TP_ARGS(int, c, uint32_t, f),
		 TP_FIELDS(ctf_enum(rtest, color, int, color, c)
				   ctf_enum(rtest, flags, uint32_t, flags, f)
					   ctf_enum(rtest, color, int8_t, small, c)))
TRACEPOINT_LOGLEVEL(rtest, enums, TRACE_NOTICE)

TRACEPOINT_EVENT(rtest, empty, TP_ARGS(), TP_FIELDS())

TRACEPOINT_EVENT(rtest, emerg, TP_ARGS(int, v), TP_FIELDS(ctf_integer(int, v, v)))
TRACEPOINT_LOGLEVEL(rtest, emerg, TRACE_EMERG)

TRACEPOINT_EVENT(rtest, err, TP_ARGS(int, v), TP_FIELDS(ctf_integer(int, v, v)))
TRACEPOINT_LOGLEVEL(rtest, err, TRACE_ERR)

TRACEPOINT_EVENT(rtest, dbgsys, TP_ARGS(int, v), TP_FIELDS(ctf_integer(int, v, v)))
TRACEPOINT_LOGLEVEL(rtest, dbgsys, TRACE_DEBUG_SYSTEM)

/* Fixed-size event for bursts and benchmarks: a mixed, realistic payload. */
TRACEPOINT_EVENT(rtest, load,
		 TP_ARGS(uint64_t, seq, int32_t, val, const char *, name, double, ratio),
		 TP_FIELDS(ctf_integer(uint64_t, seq, seq) ctf_integer(int32_t, val, val)
				   ctf_integer_hex(uint32_t, addr, (uint32_t)seq * 2654435761u)
					   ctf_string(name, name) ctf_float(double, ratio, ratio)))

#endif /* RTEST_TP_H */

#include <lttng/tracepoint-event.h>
