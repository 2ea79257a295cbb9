/* SPDX-License-Identifier: MIT */
/*
 * Included at the end of every provider header. With
 * STRATA_TRACEPOINT_CREATE_PROBES defined it re-reads the provider header
 * (STRATA_TRACEPOINT_INCLUDE) once per generation stage of
 * <strata/ust-tracepoint-event.h>, producing the descriptors, the probes and
 * the registration constructor; then it puts the call-site definitions of
 * <strata/tracepoint.h> back. Without it, this header does nothing.
 */

#ifdef STRATA_TRACEPOINT_CREATE_PROBES

#undef STRATA_TRACEPOINT_EVENT_INSTANCE
#define STRATA_TRACEPOINT_EVENT_INSTANCE(_template_provider, _template_name, _provider, _name, \
					 _args)

#undef STRATA_TRACEPOINT_EVENT
#define STRATA_TRACEPOINT_EVENT(_provider, _name, _args, _fields)                 \
	STRATA_TRACEPOINT_EVENT_CLASS(_provider, _name, STRATA__TP_PARAMS(_args), \
				      STRATA__TP_PARAMS(_fields))                 \
	STRATA_TRACEPOINT_EVENT_INSTANCE(_provider, _name, _provider, _name,      \
					 STRATA__TP_PARAMS(_args))

#undef STRATA_TRACEPOINT_CREATE_PROBES

#define STRATA_TRACEPOINT_HEADER_MULTI_READ

#include STRATA_TRACEPOINT_INCLUDE

#include <strata/ust-tracepoint-event.h>

#undef STRATA_TRACEPOINT_HEADER_MULTI_READ
#undef STRATA_TRACEPOINT_INCLUDE

#define STRATA_TRACEPOINT_CREATE_PROBES

/* Back to the call-site definitions of <strata/tracepoint.h>. */
#undef STRATA_TP_ARGS
#define STRATA_TP_ARGS(...) __VA_ARGS__

#undef STRATA_TRACEPOINT_EVENT
#define STRATA_TRACEPOINT_EVENT(provider, name, args, fields)               \
	STRATA__DECLARE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args)) \
	STRATA__DEFINE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args))

#undef STRATA_TRACEPOINT_EVENT_CLASS
#define STRATA_TRACEPOINT_EVENT_CLASS(provider, name, args, fields)

#undef STRATA_TRACEPOINT_EVENT_INSTANCE
#define STRATA_TRACEPOINT_EVENT_INSTANCE(template_provider, template_name, provider, name, args) \
	STRATA__DECLARE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args))                      \
	STRATA__DEFINE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args))

#undef STRATA_TRACEPOINT_ENUM
#define STRATA_TRACEPOINT_ENUM(provider, name, values)

#undef STRATA_TRACEPOINT_LOGLEVEL
#define STRATA_TRACEPOINT_LOGLEVEL(provider, name, loglevel)

#undef STRATA_TRACEPOINT_MODEL_EMF_URI
#define STRATA_TRACEPOINT_MODEL_EMF_URI(provider, name, uri)

#endif /* STRATA_TRACEPOINT_CREATE_PROBES */
