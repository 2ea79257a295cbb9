/* SPDX-License-Identifier: MIT */
/*
 * Probe generation: included by <strata/tracepoint-event.h> when
 * STRATA_TRACEPOINT_CREATE_PROBES is defined. The provider header
 * (STRATA_TRACEPOINT_INCLUDE) is re-read once per stage, each stage giving
 * the field macros another meaning:
 *
 *   0   provider check   every event names the STRATA_TRACEPOINT_PROVIDER
 *   1   enums            struct strata_enum_desc per STRATA_TRACEPOINT_ENUM
 *   2   descriptors      struct strata_field_desc[] per event class
 *   3   size             payload size of one record (dynamic lengths kept)
 *   3.5 filter arguments one value per field, for channels that filter
 *   4   probe            per recording channel: reserve, serialize, commit
 *   5   loglevel/EMF     hidden symbols found through weak references
 *   6   event descs      struct strata_event_desc per instance
 *   7   provider         struct strata_probe_desc + constructor/destructor
 *
 * Record encoding (must match what lib/ctf/writer.c declares): fields are
 * byte-packed in declaration order, host byte order except network fields
 * (whose bytes are copied as given: the caller passes network-order
 * values, as with lttng-ust), a sequence is its length (as _length_type)
 * then its elements, a string is its bytes and a NUL ("(null)" for NULL),
 * a text array/sequence is the bytes up to the first NUL then zeros.
 *
 * _nowrite fields are neither recorded nor described (strata has no
 * filter to feed them to).
 */
#include <stdint.h>
#include <string.h>

#include <strata/tracepoint.h>
#include <strata/ust-events.h>

/* Field macros of STRATA_TP_FIELDS(), shared by every stage. */
#undef strata_field_integer
#define strata_field_integer(_type, _item, _src) \
	strata__field_integer_ext(_type, _item, _src, 0, 10)
#undef strata_field_integer_hex
#define strata_field_integer_hex(_type, _item, _src) \
	strata__field_integer_ext(_type, _item, _src, 0, 16)
#undef strata_field_integer_network
#define strata_field_integer_network(_type, _item, _src) \
	strata__field_integer_ext(_type, _item, _src, 1, 10)
#undef strata_field_integer_network_hex
#define strata_field_integer_network_hex(_type, _item, _src) \
	strata__field_integer_ext(_type, _item, _src, 1, 16)
#undef strata_field_float
#define strata_field_float(_type, _item, _src) strata__field_float(_type, _item, _src)
#undef strata_field_array
#define strata_field_array(_type, _item, _src, _length) \
	strata__field_array_encoded(_type, _item, _src, 0, _length, NONE, 10)
#undef strata_field_array_hex
#define strata_field_array_hex(_type, _item, _src, _length) \
	strata__field_array_encoded(_type, _item, _src, 0, _length, NONE, 16)
#undef strata_field_array_network
#define strata_field_array_network(_type, _item, _src, _length) \
	strata__field_array_encoded(_type, _item, _src, 1, _length, NONE, 10)
#undef strata_field_array_network_hex
#define strata_field_array_network_hex(_type, _item, _src, _length) \
	strata__field_array_encoded(_type, _item, _src, 1, _length, NONE, 16)
#undef strata_field_array_text
#define strata_field_array_text(_type, _item, _src, _length) \
	strata__field_array_encoded(_type, _item, _src, 0, _length, UTF8, 10)
#undef strata_field_sequence
#define strata_field_sequence(_type, _item, _src, _length_type, _src_length) \
	strata__field_sequence_encoded(_type, _item, _src, 0, _length_type, _src_length, NONE, 10)
#undef strata_field_sequence_hex
#define strata_field_sequence_hex(_type, _item, _src, _length_type, _src_length) \
	strata__field_sequence_encoded(_type, _item, _src, 0, _length_type, _src_length, NONE, 16)
#undef strata_field_sequence_network
#define strata_field_sequence_network(_type, _item, _src, _length_type, _src_length) \
	strata__field_sequence_encoded(_type, _item, _src, 1, _length_type, _src_length, NONE, 10)
#undef strata_field_sequence_network_hex
#define strata_field_sequence_network_hex(_type, _item, _src, _length_type, _src_length) \
	strata__field_sequence_encoded(_type, _item, _src, 1, _length_type, _src_length, NONE, 16)
#undef strata_field_sequence_text
#define strata_field_sequence_text(_type, _item, _src, _length_type, _src_length) \
	strata__field_sequence_encoded(_type, _item, _src, 0, _length_type, _src_length, UTF8, 10)
#undef strata_field_string
#define strata_field_string(_item, _src) strata__field_string(_item, _src)
#undef strata_field_enum
#define strata_field_enum(_provider, _name, _type, _item, _src) \
	strata__field_enum(_provider, _name, _type, _item, _src)
#undef strata_field_unused
#define strata_field_unused(_src) strata__field_unused(_src)

#undef strata_field_integer_nowrite
#define strata_field_integer_nowrite(_type, _item, _src) strata__field_unused(_src)
#undef strata_field_float_nowrite
#define strata_field_float_nowrite(_type, _item, _src) strata__field_unused(_src)
#undef strata_field_array_nowrite
#define strata_field_array_nowrite(_type, _item, _src, _length) strata__field_unused(_src)
#undef strata_field_array_nowrite_hex
#define strata_field_array_nowrite_hex(_type, _item, _src, _length) strata__field_unused(_src)
#undef strata_field_array_network_nowrite
#define strata_field_array_network_nowrite(_type, _item, _src, _length) strata__field_unused(_src)
#undef strata_field_array_network_nowrite_hex
#define strata_field_array_network_nowrite_hex(_type, _item, _src, _length) \
	strata__field_unused(_src)
#undef strata_field_array_text_nowrite
#define strata_field_array_text_nowrite(_type, _item, _src, _length) strata__field_unused(_src)
#undef strata_field_sequence_nowrite
#define strata_field_sequence_nowrite(_type, _item, _src, _length_type, _src_length) \
	strata__field_unused(_src)
#undef strata_field_sequence_nowrite_hex
#define strata_field_sequence_nowrite_hex(_type, _item, _src, _length_type, _src_length) \
	strata__field_unused(_src)
#undef strata_field_sequence_network_nowrite
#define strata_field_sequence_network_nowrite(_type, _item, _src, _length_type, _src_length) \
	strata__field_unused(_src)
#undef strata_field_sequence_network_nowrite_hex
#define strata_field_sequence_network_nowrite_hex(_type, _item, _src, _length_type, _src_length) \
	strata__field_unused(_src)
#undef strata_field_sequence_text_nowrite
#define strata_field_sequence_text_nowrite(_type, _item, _src, _length_type, _src_length) \
	strata__field_unused(_src)
#undef strata_field_string_nowrite
#define strata_field_string_nowrite(_item, _src) strata__field_unused(_src)
#undef strata_field_unused_nowrite
#define strata_field_unused_nowrite(_src) strata__field_unused(_src)
#undef strata_field_enum_nowrite
#define strata_field_enum_nowrite(_provider, _name, _type, _item, _src) strata__field_unused(_src)

/* Class/instance plumbing: EVENT = CLASS + INSTANCE of the same name. */
#undef STRATA_TRACEPOINT_EVENT
#define STRATA_TRACEPOINT_EVENT(_provider, _name, _args, _fields)                  \
	STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, STRATA__TP_PARAMS(_args), \
				       STRATA__TP_PARAMS(_fields))                 \
	STRATA__TRACEPOINT_EVENT_INSTANCE(_provider, _name, _provider, _name,      \
					  STRATA__TP_PARAMS(_args))
#undef STRATA_TRACEPOINT_EVENT_CLASS
#define STRATA_TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields)            \
	STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, STRATA__TP_PARAMS(_args), \
				       STRATA__TP_PARAMS(_fields))
#undef STRATA_TRACEPOINT_EVENT_INSTANCE
#define STRATA_TRACEPOINT_EVENT_INSTANCE(_template_provider, _template_name, _provider, _name,  \
					 _args)                                                 \
	STRATA__TRACEPOINT_EVENT_INSTANCE(_template_provider, _template_name, _provider, _name, \
					  STRATA__TP_PARAMS(_args))

#define STRATA__TP_ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#define strata__is_signed_type(type) ((type)-1 < (type)1)
#define STRATA__INTEGER_TYPE(_type, _network, _base)                                           \
	{                                                                                      \
		(uint8_t)(sizeof(_type) * 8), (uint8_t)strata__is_signed_type(_type), (_base), \
			(_network)                                                             \
	}

/*
 * Stage 0: an event whose provider differs from STRATA_TRACEPOINT_PROVIDER
 * calls an undeclared function, which is a compile error.
 */
#include <strata/ust-tracepoint-event-reset.h>

static inline void STRATA__TP_COMBINE_TOKENS(strata__provider_mismatch_,
					     STRATA_TRACEPOINT_PROVIDER)(void)
{
}

#undef STRATA__TRACEPOINT_EVENT_CLASS
#define STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields) \
	strata__provider_mismatch_##_provider();
#undef STRATA__TRACEPOINT_EVENT_INSTANCE
#define STRATA__TRACEPOINT_EVENT_INSTANCE(_template_provider, _template_name, _provider, _name, \
					  _args)                                                \
	strata__provider_mismatch_##_provider();

static inline __attribute__((unused)) void
STRATA__TP_COMBINE_TOKENS(strata__provider_check_, STRATA_TRACEPOINT_PROVIDER)(void)
{
#include STRATA_TRACEPOINT_INCLUDE
}

/* Stage 0.1: the class signature string, compared with call sites. */
#include <strata/ust-tracepoint-event-reset.h>
#undef STRATA_TP_ARGS
#define STRATA_TP_ARGS(...) __VA_ARGS__
#define STRATA__TP_EXTRACT_STRING2(...) #__VA_ARGS__
#undef STRATA__TRACEPOINT_EVENT_CLASS
#define STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields)        \
	static const char strata__event_signature___##_provider##___##_name[] = \
		STRATA__TP_EXTRACT_STRING2(_args);
#include STRATA_TRACEPOINT_INCLUDE
#undef STRATA__TP_EXTRACT_STRING2

/* Stage 1: enumerations. */
#include <strata/ust-tracepoint-event-reset.h>

#undef strata_field_enum_value
#define strata_field_enum_value(_label, _value)            \
	{ { (uint64_t)(_value), (uint8_t)((_value) < 0) }, \
	  { (uint64_t)(_value), (uint8_t)((_value) < 0) }, \
	  (_label),                                        \
	  0 },
#undef strata_field_enum_range
#define strata_field_enum_range(_label, _start, _end)      \
	{ { (uint64_t)(_start), (uint8_t)((_start) < 0) }, \
	  { (uint64_t)(_end), (uint8_t)((_end) < 0) },     \
	  (_label),                                        \
	  0 },
#undef strata_field_enum_auto
#define strata_field_enum_auto(_label) { { 0, 0 }, { 0, 0 }, (_label), 1 },
/* The names the strata brief also uses. */
#undef strata_tp_enum_value
#define strata_tp_enum_value strata_field_enum_value
#undef strata_tp_enum_range
#define strata_tp_enum_range strata_field_enum_range
#undef strata_tp_enum_auto
#define strata_tp_enum_auto strata_field_enum_auto
#undef STRATA_TP_ENUM_VALUES
#define STRATA_TP_ENUM_VALUES(...) __VA_ARGS__

#undef STRATA_TRACEPOINT_ENUM
#define STRATA_TRACEPOINT_ENUM(_provider, _name, _values)                                        \
	static const struct strata_enum_entry strata__enum_entries___##_provider##_##_name[] = { \
		_values{ { 0, 0 }, { 0, 0 }, NULL, 0 }                                           \
	};                                                                                       \
	static const struct strata_enum_desc strata__enum___##_provider##_##_name = {            \
		#_provider "_" #_name,                                                           \
		strata__enum_entries___##_provider##_##_name,                                    \
		(uint32_t)(STRATA__TP_ARRAY_SIZE(strata__enum_entries___##_provider##_##_name) - \
			   1),                                                                   \
	};
#include STRATA_TRACEPOINT_INCLUDE

/* Stage 2: field descriptors, one array per class. */
#include <strata/ust-tracepoint-event-reset.h>

#undef strata__field_integer_ext
#define strata__field_integer_ext(_type, _item, _src, _network, _base) \
	{ #_item,                                                      \
	  STRATA_TYPE_INTEGER,                                         \
	  STRATA_ENCODING_NONE,                                        \
	  0,                                                           \
	  0,                                                           \
	  STRATA__INTEGER_TYPE(_type, _network, _base),                \
	  0,                                                           \
	  NULL },
#undef strata__field_float
#define strata__field_float(_type, _item, _src)       \
	{ #_item,                                     \
	  STRATA_TYPE_FLOAT,                          \
	  STRATA_ENCODING_NONE,                       \
	  0,                                          \
	  0,                                          \
	  { (uint8_t)(sizeof(_type) * 8), 1, 10, 0 }, \
	  0,                                          \
	  NULL },
#undef strata__field_array_encoded
#define strata__field_array_encoded(_type, _item, _src, _network, _length, _encoding, _base) \
	{ #_item,                                                                            \
	  STRATA_TYPE_ARRAY,                                                                 \
	  STRATA_ENCODING_##_encoding,                                                       \
	  0,                                                                                 \
	  0,                                                                                 \
	  STRATA__INTEGER_TYPE(_type, _network, _base),                                      \
	  (uint32_t)(_length),                                                               \
	  NULL },
#undef strata__field_sequence_encoded
#define strata__field_sequence_encoded(_type, _item, _src, _network, _length_type, _src_length, \
				       _encoding, _base)                                        \
	{ "_" #_item "_length",                                                                 \
	  STRATA_TYPE_INTEGER,                                                                  \
	  STRATA_ENCODING_NONE,                                                                 \
	  0,                                                                                    \
	  0,                                                                                    \
	  STRATA__INTEGER_TYPE(_length_type, 0, 10),                                            \
	  0,                                                                                    \
	  NULL },                                                                               \
		{ #_item,                                                                       \
		  STRATA_TYPE_SEQUENCE,                                                         \
		  STRATA_ENCODING_##_encoding,                                                  \
		  0,                                                                            \
		  0,                                                                            \
		  STRATA__INTEGER_TYPE(_type, _network, _base),                                 \
		  0,                                                                            \
		  NULL },
#undef strata__field_string
#define strata__field_string(_item, _src) \
	{ #_item, STRATA_TYPE_STRING, STRATA_ENCODING_UTF8, 0, 0, { 8, 0, 10, 0 }, 0, NULL },
#undef strata__field_enum
#define strata__field_enum(_provider, _name, _type, _item, _src) \
	{ #_item,                                                \
	  STRATA_TYPE_ENUM,                                      \
	  STRATA_ENCODING_NONE,                                  \
	  0,                                                     \
	  0,                                                     \
	  STRATA__INTEGER_TYPE(_type, 0, 10),                    \
	  0,                                                     \
	  &strata__enum___##_provider##_##_name },

#undef STRATA_TP_FIELDS
#define STRATA_TP_FIELDS(...) __VA_ARGS__
#undef STRATA__TRACEPOINT_EVENT_CLASS
#define STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields)                           \
	static const struct strata_field_desc strata__event_fields___##_provider##___##_name[] = { \
		_fields{ NULL, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0, NULL }                               \
	};
#include STRATA_TRACEPOINT_INCLUDE

/* Stage 3: record payload size; dynamic lengths go to __dyn[]. */
#include <strata/ust-tracepoint-event-reset.h>

#undef strata__field_integer_ext
#define strata__field_integer_ext(_type, _item, _src, _network, _base) \
	if (0)                                                         \
		(void)(_src);                                          \
	__len += sizeof(_type);
#undef strata__field_float
#define strata__field_float(_type, _item, _src) \
	if (0)                                  \
		(void)(_src);                   \
	__len += sizeof(_type);
#undef strata__field_array_encoded
#define strata__field_array_encoded(_type, _item, _src, _network, _length, _encoding, _base) \
	if (0)                                                                               \
		(void)(_src);                                                                \
	__len += sizeof(_type) * (size_t)(_length);
#undef strata__field_sequence_encoded
#define strata__field_sequence_encoded(_type, _item, _src, _network, _length_type, _src_length, \
				       _encoding, _base)                                        \
	if (0)                                                                                  \
		(void)(_src);                                                                   \
	__dyn[__di] = (size_t)(_length_type)(_src_length);                                      \
	__len += sizeof(_length_type) + sizeof(_type) * __dyn[__di++];
#undef strata__field_string
#define strata__field_string(_item, _src)                       \
	{                                                       \
		const char *__s = (_src);                       \
		__dyn[__di] = strlen(__s ? __s : "(null)") + 1; \
		__len += __dyn[__di++];                         \
	}
#undef strata__field_enum
#define strata__field_enum(_provider, _name, _type, _item, _src) \
	strata__field_integer_ext(_type, _item, _src, 0, 10)
#undef strata__field_unused
#define strata__field_unused(_src) \
	if (0)                     \
		(void)(_src);

#undef STRATA_TP_ARGS
#define STRATA_TP_ARGS(...) __VA_ARGS__
#undef STRATA_TP_FIELDS
#define STRATA_TP_FIELDS(...) __VA_ARGS__
#undef STRATA__TRACEPOINT_EVENT_CLASS
#define STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields)                           \
	static inline __attribute__((always_inline))                                               \
	size_t strata__event_get_size___##_provider##___##_name(size_t *__dyn,                     \
								STRATA__TP_ARGS_DATA_PROTO(_args)) \
	{                                                                                          \
		size_t __len = 0;                                                                  \
		unsigned int __di = 0;                                                             \
		(void)__tp_data;                                                                   \
		(void)__dyn;                                                                       \
		(void)__di;                                                                        \
		_fields return __len;                                                              \
	}
#include STRATA_TRACEPOINT_INCLUDE

/*
 * Stage 3.5: the filter arguments (union strata_filter_arg), one per field
 * descriptor of stage 2, filled only when a channel filters the event.
 */
#include <strata/ust-tracepoint-event-reset.h>

#undef strata__field_integer_ext
#define strata__field_integer_ext(_type, _item, _src, _network, _base) \
	if (strata__is_signed_type(_type))                             \
		__fa[__fi++].s64 = (int64_t)(_type)(_src);             \
	else                                                           \
		__fa[__fi++].u64 = (uint64_t)(_type)(_src);
#undef strata__field_float
#define strata__field_float(_type, _item, _src) __fa[__fi++].d = (double)(_src);
#undef strata__field_array_encoded
#define strata__field_array_encoded(_type, _item, _src, _network, _length, _encoding, _base) \
	__fa[__fi].ref.ptr = (const void *)(_src);                                           \
	__fa[__fi++].ref.len = (uint64_t)(_length);
#undef strata__field_sequence_encoded
#define strata__field_sequence_encoded(_type, _item, _src, _network, _length_type, _src_length, \
				       _encoding, _base)                                        \
	if (0)                                                                                  \
		(void)(_src_length);                                                            \
	__fa[__fi++].u64 = (uint64_t)__dyn[__di];                                               \
	__fa[__fi].ref.ptr = (const void *)(_src);                                              \
	__fa[__fi++].ref.len = (uint64_t)__dyn[__di++];
#undef strata__field_string
#define strata__field_string(_item, _src)                                  \
	{                                                                  \
		const char *__s = (_src);                                  \
		__fa[__fi].ref.ptr = __s;                                  \
		__fa[__fi++].ref.len = __s ? (uint64_t)__dyn[__di] - 1 : 0; \
		__di++;                                                    \
	}
#undef strata__field_enum
#define strata__field_enum(_provider, _name, _type, _item, _src) \
	strata__field_integer_ext(_type, _item, _src, 0, 10)
#undef strata__field_unused
#define strata__field_unused(_src) \
	if (0)                     \
		(void)(_src);

#undef STRATA_TP_ARGS
#define STRATA_TP_ARGS(...) __VA_ARGS__
#undef STRATA_TP_FIELDS
#define STRATA_TP_FIELDS(...) __VA_ARGS__
#undef STRATA__TRACEPOINT_EVENT_CLASS
#define STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields)                     \
	static inline __attribute__((always_inline)) void                                    \
	strata__event_filter_args___##_provider##___##_name(                                 \
		union strata_filter_arg *__fa, const size_t *__dyn,                          \
		STRATA__TP_ARGS_DATA_PROTO(_args))                                           \
	{                                                                                    \
		unsigned int __fi = 0, __di = 0;                                             \
		(void)__tp_data;                                                             \
		(void)__fa;                                                                  \
		(void)__dyn;                                                                 \
		(void)__fi;                                                                  \
		(void)__di;                                                                  \
		_fields                                                                      \
	}
#include STRATA_TRACEPOINT_INCLUDE

/* Stage 4: the probe. */
#include <strata/ust-tracepoint-event-reset.h>

#undef strata__field_integer_ext
#define strata__field_integer_ext(_type, _item, _src, _network, _base) \
	{                                                              \
		_type __tmp = (_src);                                  \
		memcpy(__p, &__tmp, sizeof(__tmp));                    \
		__p += sizeof(__tmp);                                  \
	}
#undef strata__field_float
#define strata__field_float(_type, _item, _src)     \
	{                                           \
		_type __tmp = (_src);               \
		memcpy(__p, &__tmp, sizeof(__tmp)); \
		__p += sizeof(__tmp);               \
	}
#undef strata__field_array_encoded
#define strata__field_array_encoded(_type, _item, _src, _network, _length, _encoding, _base) \
	if (STRATA_ENCODING_##_encoding == STRATA_ENCODING_NONE) {                           \
		memcpy(__p, (_src), sizeof(_type) * (size_t)(_length));                      \
		__p += sizeof(_type) * (size_t)(_length);                                    \
	} else {                                                                             \
		__p = strata_ust_copy_text(__p, (const char *)(_src),                        \
					   sizeof(_type) * (size_t)(_length));               \
	}
#undef strata__field_sequence_encoded
#define strata__field_sequence_encoded(_type, _item, _src, _network, _length_type, _src_length, \
				       _encoding, _base)                                        \
	{                                                                                       \
		_length_type __l = (_length_type)__dyn[__di];                                   \
		memcpy(__p, &__l, sizeof(__l));                                                 \
		__p += sizeof(__l);                                                             \
		if (STRATA_ENCODING_##_encoding == STRATA_ENCODING_NONE) {                      \
			if (__dyn[__di])                                                        \
				memcpy(__p, (_src), sizeof(_type) * __dyn[__di]);               \
			__p += sizeof(_type) * __dyn[__di];                                     \
		} else {                                                                        \
			__p = strata_ust_copy_text(__p, (const char *)(_src),                   \
						   sizeof(_type) * __dyn[__di]);                \
		}                                                                               \
		__di++;                                                                         \
	}
#undef strata__field_string
#define strata__field_string(_item, _src)                                               \
	{                                                                               \
		const char *__s = (_src);                                               \
		__p = strata_ust_copy_string(__p, __s ? __s : "(null)", __dyn[__di++]); \
	}
#undef strata__field_enum
#define strata__field_enum(_provider, _name, _type, _item, _src) \
	strata__field_integer_ext(_type, _item, _src, 0, 10)

#undef STRATA_TP_ARGS
#define STRATA_TP_ARGS(...) __VA_ARGS__
#undef STRATA_TP_FIELDS
#define STRATA_TP_FIELDS(...) __VA_ARGS__
#undef STRATA__TRACEPOINT_EVENT_CLASS
#define STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields)                           \
	static void strata__event_probe___##_provider##___##_name(                                 \
		STRATA__TP_ARGS_DATA_PROTO(_args))                                                 \
	{                                                                                          \
		size_t __dyn[STRATA__TP_ARRAY_SIZE(                                                \
			strata__event_fields___##_provider##___##_name)];                          \
		union strata_filter_arg __fargs[STRATA__TP_ARRAY_SIZE(                             \
			strata__event_fields___##_provider##___##_name)];                          \
		const union strata_filter_arg *__fa = NULL;                                        \
		unsigned int __di;                                                                 \
		struct strata_ust_ctx __ctx;                                                       \
		size_t __len = strata__event_get_size___##_provider##___##_name(                   \
			__dyn, STRATA__TP_ARGS_DATA_VAR(_args));                                   \
		char *__p;                                                                         \
		if (strata_ust__tp_unlikely(strata_ust_event_filtered(__tp_data))) {               \
			strata__event_filter_args___##_provider##___##_name(                       \
				__fargs, __dyn, STRATA__TP_ARGS_DATA_VAR(_args));                  \
			__fa = __fargs;                                                            \
		}                                                                                  \
		for (__p = (char *)strata_ust_event_reserve(&__ctx, __tp_data, __len,              \
							    __builtin_return_address(0), __fa);    \
		     __p; __p = (char *)strata_ust_event_commit_next(&__ctx)) {                    \
			__di = 0;                                                                  \
			(void)__di;                                                                \
			_fields                                                                    \
		}                                                                                  \
	}
#include STRATA_TRACEPOINT_INCLUDE

/* Stage 5: loglevel and EMF URI, as hidden symbols (weakly referenced). */
#include <strata/ust-tracepoint-event-reset.h>

#undef STRATA_TRACEPOINT_LOGLEVEL
#define STRATA_TRACEPOINT_LOGLEVEL(__provider, __name, __loglevel)                          \
	static const int strata__loglevel_value___##__provider##___##__name = (__loglevel); \
	const int *const strata__loglevel___##__provider##___##__name                       \
		__attribute__((visibility("hidden"))) =                                     \
			&strata__loglevel_value___##__provider##___##__name;
#include STRATA_TRACEPOINT_INCLUDE

#include <strata/ust-tracepoint-event-reset.h>
#undef STRATA_TRACEPOINT_MODEL_EMF_URI
#define STRATA_TRACEPOINT_MODEL_EMF_URI(__provider, __name, __uri)          \
	const char *const strata__model_emf_uri___##__provider##___##__name \
		__attribute__((visibility("hidden"))) = (__uri);
#include STRATA_TRACEPOINT_INCLUDE

/* Stage 6: one event descriptor per instance. */
extern const struct strata_probe_desc STRATA__TP_COMBINE_TOKENS(strata__probe_desc___,
								STRATA_TRACEPOINT_PROVIDER)
	__attribute__((visibility("hidden")));

#include <strata/ust-tracepoint-event-reset.h>
#undef STRATA__TRACEPOINT_EVENT_INSTANCE
#define STRATA__TRACEPOINT_EVENT_INSTANCE(_template_provider, _template_name, _provider, _name,        \
					  _args)                                                       \
	static const int *strata__ref_loglevel___##_provider##___##_name                               \
		__attribute__((weakref("strata__loglevel___" #_provider "___" #_name)));               \
	static const char *strata__ref_model_emf_uri___##_provider##___##_name                         \
		__attribute__((weakref("strata__model_emf_uri___" #_provider "___" #_name)));          \
	static const struct strata_event_desc strata__event_desc___##_provider##___##_name = {         \
		#_name,                                                                                \
		&strata__probe_desc___##_provider,                                                     \
		strata__event_fields___##_template_provider##___##_template_name,                      \
		(uint32_t)(STRATA__TP_ARRAY_SIZE(                                                      \
				   strata__event_fields___##_template_provider##___##_template_name) - \
			   1),                                                                         \
		&strata__ref_loglevel___##_provider##___##_name,                                       \
		&strata__ref_model_emf_uri___##_provider##___##_name,                                  \
		(void (*)(void)) &                                                                     \
			strata__event_probe___##_template_provider##___##_template_name,               \
		strata__event_signature___##_template_provider##___##_template_name,                   \
	};
#include STRATA_TRACEPOINT_INCLUDE

/* Stage 7: the provider descriptor and its registration. */
#include <strata/ust-tracepoint-event-reset.h>
#undef STRATA__TRACEPOINT_EVENT_INSTANCE
#define STRATA__TRACEPOINT_EVENT_INSTANCE(_template_provider, _template_name, _provider, _name, \
					  _args)                                                \
	&strata__event_desc___##_provider##___##_name,

static const struct strata_event_desc *const
	STRATA__TP_COMBINE_TOKENS(strata__event_descs___, STRATA_TRACEPOINT_PROVIDER)[] = {
#include STRATA_TRACEPOINT_INCLUDE
		NULL,
	};

const struct strata_probe_desc STRATA__TP_COMBINE_TOKENS(strata__probe_desc___,
							 STRATA_TRACEPOINT_PROVIDER) = {
	STRATA_UST_ABI_MAJOR,
	strata_ust__tp_stringify(STRATA_TRACEPOINT_PROVIDER),
	STRATA__TP_COMBINE_TOKENS(strata__event_descs___, STRATA_TRACEPOINT_PROVIDER),
	(uint32_t)(STRATA__TP_ARRAY_SIZE(STRATA__TP_COMBINE_TOKENS(strata__event_descs___,
								   STRATA_TRACEPOINT_PROVIDER)) -
		   1),
};

static void STRATA__TP_COMBINE_TOKENS(strata__events_init___, STRATA_TRACEPOINT_PROVIDER)(void)
	__attribute__((constructor));
static void STRATA__TP_COMBINE_TOKENS(strata__events_init___, STRATA_TRACEPOINT_PROVIDER)(void)
{
	/* A failure (out of memory, ABI mismatch) leaves the events unregistered. */
	(void)strata_ust_probe_register(
		&STRATA__TP_COMBINE_TOKENS(strata__probe_desc___, STRATA_TRACEPOINT_PROVIDER));
}

static void STRATA__TP_COMBINE_TOKENS(strata__events_exit___, STRATA_TRACEPOINT_PROVIDER)(void)
	__attribute__((destructor));
static void STRATA__TP_COMBINE_TOKENS(strata__events_exit___, STRATA_TRACEPOINT_PROVIDER)(void)
{
	strata_ust_probe_unregister(
		&STRATA__TP_COMBINE_TOKENS(strata__probe_desc___, STRATA_TRACEPOINT_PROVIDER));
}
