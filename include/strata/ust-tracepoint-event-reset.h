/* SPDX-License-Identifier: MIT */
/*
 * Between two generation stages of <strata/ust-tracepoint-event.h>: every
 * provider-header macro expands to nothing until the next stage redefines
 * the ones it uses. No include guard: included once per stage.
 */

#undef STRATA__TRACEPOINT_EVENT_CLASS
#define STRATA__TRACEPOINT_EVENT_CLASS(_provider, _name, _args, _fields)

#undef STRATA__TRACEPOINT_EVENT_INSTANCE
#define STRATA__TRACEPOINT_EVENT_INSTANCE(_template_provider, _template_name, _provider, _name, \
					  _args)

#undef STRATA_TRACEPOINT_ENUM
#define STRATA_TRACEPOINT_ENUM(_provider, _name, _values)

#undef STRATA_TP_ARGS
#define STRATA_TP_ARGS(...)

#undef STRATA_TP_FIELDS
#define STRATA_TP_FIELDS(...)

#undef STRATA_TRACEPOINT_LOGLEVEL
#define STRATA_TRACEPOINT_LOGLEVEL(provider, name, loglevel)

#undef STRATA_TRACEPOINT_MODEL_EMF_URI
#define STRATA_TRACEPOINT_MODEL_EMF_URI(provider, name, uri)

#undef strata__field_integer_ext
#define strata__field_integer_ext(_type, _item, _src, _network, _base)

#undef strata__field_float
#define strata__field_float(_type, _item, _src)

#undef strata__field_array_encoded
#define strata__field_array_encoded(_type, _item, _src, _network, _length, _encoding, _base)

#undef strata__field_sequence_encoded
#define strata__field_sequence_encoded(_type, _item, _src, _network, _length_type, _src_length, \
				       _encoding, _base)

#undef strata__field_string
#define strata__field_string(_item, _src)

#undef strata__field_enum
#define strata__field_enum(_provider, _name, _type, _item, _src)

#undef strata__field_unused
#define strata__field_unused(_src)
