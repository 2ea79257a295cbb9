/* SPDX-License-Identifier: MIT */
/*
 * strata instrumentation API: call sites.
 *
 * Shaped like lttng-ust 2.13's <lttng/tracepoint.h> so that instrumentation
 * ports by renaming LTTNG_UST_ -> STRATA_, lttng_ust_ -> strata_ and
 * <lttng/...> -> <strata/...>. A provider header looks like:
 *
 *   #undef STRATA_TRACEPOINT_PROVIDER
 *   #define STRATA_TRACEPOINT_PROVIDER hello
 *   #undef STRATA_TRACEPOINT_INCLUDE
 *   #define STRATA_TRACEPOINT_INCLUDE "./hello-tp.h"
 *   #if !defined(HELLO_TP_H) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)
 *   #define HELLO_TP_H
 *   #include <strata/tracepoint.h>
 *   STRATA_TRACEPOINT_EVENT(hello, tptest,
 *           STRATA_TP_ARGS(int, anint),
 *           STRATA_TP_FIELDS(strata_field_integer(int, intfield, anint)))
 *   #endif
 *   #include <strata/tracepoint-event.h>
 *
 * One .c file defines STRATA_TRACEPOINT_CREATE_PROBES before including the
 * provider header (the probes and descriptors) and one defines
 * STRATA_TRACEPOINT_DEFINE (the call-site state); often the same file. The
 * program links -lstrata-ust (pkg-config strata-ust).
 *
 * Cost: strata_tracepoint() on a disabled event is one load and a branch
 * predicted not taken; the arguments are not evaluated. Enabled, it calls the
 * provider's probe through one pointer; the probe makes no system call,
 * takes no lock and allocates nothing.
 *
 * Environment read by libstrata-ust at startup:
 *   STRATA_RUNDIR                where the session daemon listens (see
 *                                <strata/ust-abi.h> for the default)
 *   STRATA_UST_REGISTER=0        never register with a session daemon
 *   STRATA_UST_REGISTER_TIMEOUT  ms the program's startup may wait for the
 *                                daemon's commands (default 3000, 0: never
 *                                wait, -1: wait forever), so that a short
 *                                program is traced from its first event
 *   STRATA_UST_DEBUG=1           debug messages on stderr
 */
#ifndef STRATA_TRACEPOINT_H
#define STRATA_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include <strata/ust-events.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_TRACEPOINT_NAME_LEN_MAX 256

#define strata_ust__tp_likely(x) __builtin_expect(!!(x), 1)
#define strata_ust__tp_unlikely(x) __builtin_expect(!!(x), 0)

#define strata_tracepoint_enabled(provider, name) \
	strata_ust__tp_unlikely(                  \
		__atomic_load_n(&strata_tracepoint_##provider##___##name.state, __ATOMIC_RELAXED))

#define strata_do_tracepoint(provider, name, ...) \
	strata_tracepoint_cb_##provider##___##name(__VA_ARGS__)

#define strata_tracepoint(provider, name, ...)                               \
	do {                                                                 \
		if (strata_tracepoint_enabled(provider, name))               \
			strata_do_tracepoint(provider, name, ##__VA_ARGS__); \
	} while (0)

#define STRATA_TP_ARGS(...) __VA_ARGS__

/* Token pasting and argument counting (up to 10 "type, name" pairs). */
#define STRATA__TP_COMBINE_TOKENS_(a, b) a##b
#define STRATA__TP_COMBINE_TOKENS(a, b) STRATA__TP_COMBINE_TOKENS_(a, b)
#define STRATA__TP_PARAMS(...) __VA_ARGS__

#define STRATA__TP_EXVAR0()
#define STRATA__TP_EXVAR1(a)
#define STRATA__TP_EXVAR2(a, b) b
#define STRATA__TP_EXVAR4(a, b, c, d) b, d
#define STRATA__TP_EXVAR6(a, b, c, d, e, f) b, d, f
#define STRATA__TP_EXVAR8(a, b, c, d, e, f, g, h) b, d, f, h
#define STRATA__TP_EXVAR10(a, b, c, d, e, f, g, h, i, j) b, d, f, h, j
#define STRATA__TP_EXVAR12(a, b, c, d, e, f, g, h, i, j, k, l) b, d, f, h, j, l
#define STRATA__TP_EXVAR14(a, b, c, d, e, f, g, h, i, j, k, l, m, n) b, d, f, h, j, l, n
#define STRATA__TP_EXVAR16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) b, d, f, h, j, l, n, p
#define STRATA__TP_EXVAR18(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r) \
	b, d, f, h, j, l, n, p, r
#define STRATA__TP_EXVAR20(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t) \
	b, d, f, h, j, l, n, p, r, t

#define STRATA__TP_EXDATA_VAR0() __tp_data
#define STRATA__TP_EXDATA_VAR1(a) __tp_data
#define STRATA__TP_EXDATA_VAR2(a, b) __tp_data, b
#define STRATA__TP_EXDATA_VAR4(a, b, c, d) __tp_data, b, d
#define STRATA__TP_EXDATA_VAR6(a, b, c, d, e, f) __tp_data, b, d, f
#define STRATA__TP_EXDATA_VAR8(a, b, c, d, e, f, g, h) __tp_data, b, d, f, h
#define STRATA__TP_EXDATA_VAR10(a, b, c, d, e, f, g, h, i, j) __tp_data, b, d, f, h, j
#define STRATA__TP_EXDATA_VAR12(a, b, c, d, e, f, g, h, i, j, k, l) __tp_data, b, d, f, h, j, l
#define STRATA__TP_EXDATA_VAR14(a, b, c, d, e, f, g, h, i, j, k, l, m, n) \
	__tp_data, b, d, f, h, j, l, n
#define STRATA__TP_EXDATA_VAR16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
	__tp_data, b, d, f, h, j, l, n, p
#define STRATA__TP_EXDATA_VAR18(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r) \
	__tp_data, b, d, f, h, j, l, n, p, r
#define STRATA__TP_EXDATA_VAR20(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t) \
	__tp_data, b, d, f, h, j, l, n, p, r, t

#define STRATA__TP_EXPROTO0() void
#define STRATA__TP_EXPROTO1(a) void
#define STRATA__TP_EXPROTO2(a, b) a b
#define STRATA__TP_EXPROTO4(a, b, c, d) a b, c d
#define STRATA__TP_EXPROTO6(a, b, c, d, e, f) a b, c d, e f
#define STRATA__TP_EXPROTO8(a, b, c, d, e, f, g, h) a b, c d, e f, g h
#define STRATA__TP_EXPROTO10(a, b, c, d, e, f, g, h, i, j) a b, c d, e f, g h, i j
#define STRATA__TP_EXPROTO12(a, b, c, d, e, f, g, h, i, j, k, l) a b, c d, e f, g h, i j, k l
#define STRATA__TP_EXPROTO14(a, b, c, d, e, f, g, h, i, j, k, l, m, n) \
	a b, c d, e f, g h, i j, k l, m n
#define STRATA__TP_EXPROTO16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
	a b, c d, e f, g h, i j, k l, m n, o p
#define STRATA__TP_EXPROTO18(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r) \
	a b, c d, e f, g h, i j, k l, m n, o p, q r
#define STRATA__TP_EXPROTO20(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t) \
	a b, c d, e f, g h, i j, k l, m n, o p, q r, s t

#define STRATA__TP_EXDATA_PROTO0() void *__tp_data
#define STRATA__TP_EXDATA_PROTO1(a) void *__tp_data
#define STRATA__TP_EXDATA_PROTO2(a, b) void *__tp_data, a b
#define STRATA__TP_EXDATA_PROTO4(a, b, c, d) void *__tp_data, a b, c d
#define STRATA__TP_EXDATA_PROTO6(a, b, c, d, e, f) void *__tp_data, a b, c d, e f
#define STRATA__TP_EXDATA_PROTO8(a, b, c, d, e, f, g, h) void *__tp_data, a b, c d, e f, g h
#define STRATA__TP_EXDATA_PROTO10(a, b, c, d, e, f, g, h, i, j) \
	void *__tp_data, a b, c d, e f, g h, i j
#define STRATA__TP_EXDATA_PROTO12(a, b, c, d, e, f, g, h, i, j, k, l) \
	void *__tp_data, a b, c d, e f, g h, i j, k l
#define STRATA__TP_EXDATA_PROTO14(a, b, c, d, e, f, g, h, i, j, k, l, m, n) \
	void *__tp_data, a b, c d, e f, g h, i j, k l, m n
#define STRATA__TP_EXDATA_PROTO16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
	void *__tp_data, a b, c d, e f, g h, i j, k l, m n, o p
#define STRATA__TP_EXDATA_PROTO18(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r) \
	void *__tp_data, a b, c d, e f, g h, i j, k l, m n, o p, q r
#define STRATA__TP_EXDATA_PROTO20(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t) \
	void *__tp_data, a b, c d, e f, g h, i j, k l, m n, o p, q r, s t

#define STRATA__TP_NARGS(...)                                                                     \
	STRATA__TP_NARGS_(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, \
			  4, 3, 2, 1, 0)
#define STRATA__TP_NARGS_(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, \
			  _16, _17, _18, _19, _20, N, ...)                                      \
	N
#define STRATA__TP_PROTO_N(N, ...) \
	STRATA__TP_PARAMS(STRATA__TP_COMBINE_TOKENS(STRATA__TP_EXPROTO, N)(__VA_ARGS__))
#define STRATA__TP_VAR_N(N, ...) \
	STRATA__TP_PARAMS(STRATA__TP_COMBINE_TOKENS(STRATA__TP_EXVAR, N)(__VA_ARGS__))
#define STRATA__TP_DATA_PROTO_N(N, ...) \
	STRATA__TP_PARAMS(STRATA__TP_COMBINE_TOKENS(STRATA__TP_EXDATA_PROTO, N)(__VA_ARGS__))
#define STRATA__TP_DATA_VAR_N(N, ...) \
	STRATA__TP_PARAMS(STRATA__TP_COMBINE_TOKENS(STRATA__TP_EXDATA_VAR, N)(__VA_ARGS__))
#define STRATA__TP_ARGS_PROTO(...) \
	STRATA__TP_PROTO_N(STRATA__TP_NARGS(0, ##__VA_ARGS__), ##__VA_ARGS__)
#define STRATA__TP_ARGS_VAR(...) STRATA__TP_VAR_N(STRATA__TP_NARGS(0, ##__VA_ARGS__), ##__VA_ARGS__)
#define STRATA__TP_ARGS_DATA_PROTO(...) \
	STRATA__TP_DATA_PROTO_N(STRATA__TP_NARGS(0, ##__VA_ARGS__), ##__VA_ARGS__)
#define STRATA__TP_ARGS_DATA_VAR(...) \
	STRATA__TP_DATA_VAR_N(STRATA__TP_NARGS(0, ##__VA_ARGS__), ##__VA_ARGS__)

#define strata_ust__tp_stringify_(x) #x
#define strata_ust__tp_stringify(x) strata_ust__tp_stringify_(x)

#define strata_tracepoint_validate_name_len(_provider, _name)                                 \
	_Static_assert(sizeof(#_provider) + sizeof(#_name) <= STRATA_TRACEPOINT_NAME_LEN_MAX, \
		       "Tracepoint name length is too long")

/*
 * The call-site callback: always inlined into the caller so that the
 * probe's return address is the call site (the "ip" context).
 */
#define STRATA__DECLARE_TRACEPOINT(_provider, _name, ...)                                        \
	extern struct strata_tracepoint strata_tracepoint_##_provider##___##_name                \
		STRATA__TRACEPOINT_DEFINITION_VISIBILITY;                                        \
	static inline __attribute__((always_inline, unused)) void                                \
		strata_tracepoint_cb_##_provider##___##_name(STRATA__TP_ARGS_PROTO(__VA_ARGS__)) \
	{                                                                                        \
		struct strata_tracepoint *__tp = &strata_tracepoint_##_provider##___##_name;     \
		void (*__tp_cb)(void) = __atomic_load_n(&__tp->probe, __ATOMIC_ACQUIRE);         \
		void *__tp_data = __atomic_load_n(&__tp->data, __ATOMIC_RELAXED);                \
		if (strata_ust__tp_likely(__tp_cb != NULL))                                      \
			((void (*)(STRATA__TP_ARGS_DATA_PROTO(__VA_ARGS__)))__tp_cb)(            \
				STRATA__TP_ARGS_DATA_VAR(__VA_ARGS__));                          \
	}

#ifdef STRATA_TRACEPOINT_DEFINE

extern struct strata_tracepoint *const __start_strata_tracepoints_ptrs[]
	__attribute__((weak, visibility("hidden")));
extern struct strata_tracepoint *const __stop_strata_tracepoints_ptrs[]
	__attribute__((weak, visibility("hidden")));

/*
 * clang's ASan pads instrumented globals with redzones, which would put
 * holes in the section-collected pointer array (GCC leaves globals with an
 * explicit section alone, and has no such variable attribute).
 */
#if defined(__clang__)
#if __has_feature(address_sanitizer)
#define STRATA__TP_NO_SANITIZE_ADDRESS __attribute__((no_sanitize("address")))
#endif
#endif
#ifndef STRATA__TP_NO_SANITIZE_ADDRESS
#define STRATA__TP_NO_SANITIZE_ADDRESS
#endif

#define STRATA__TP_EXTRACT_STRING(...) #__VA_ARGS__
#define STRATA__DEFINE_TRACEPOINT(_provider, _name, _args)                                \
	strata_tracepoint_validate_name_len(_provider, _name);                            \
	struct strata_tracepoint strata_tracepoint_##_provider##___##_name                \
		__attribute__((section("strata_tracepoints")))                            \
		STRATA__TRACEPOINT_DEFINITION_VISIBILITY = {                              \
			0,    sizeof(struct strata_tracepoint), #_provider, #_name, NULL, \
			NULL, STRATA__TP_EXTRACT_STRING(_args),                           \
		};                                                                        \
	static struct strata_tracepoint *strata_tracepoint_ptr_##_provider##___##_name    \
		__attribute__((section("strata_tracepoints_ptrs"), used))                 \
		STRATA__TP_NO_SANITIZE_ADDRESS = &strata_tracepoint_##_provider##___##_name;

/*
 * Weak hidden counters: however many compile units of one module define
 * tracepoints, the module registers its section once.
 */
int strata_tracepoint_ptrs_registered __attribute__((weak, visibility("hidden")));

static void strata_ust__tracepoints__ptrs_init(void) __attribute__((constructor, unused));
static void strata_ust__tracepoints__ptrs_init(void)
{
	if (strata_tracepoint_ptrs_registered++)
		return;
	if (&__start_strata_tracepoints_ptrs[0] != &__stop_strata_tracepoints_ptrs[0])
		(void)strata_ust_tracepoints_register(
			__start_strata_tracepoints_ptrs,
			(size_t)(__stop_strata_tracepoints_ptrs - __start_strata_tracepoints_ptrs));
}

static void strata_ust__tracepoints__ptrs_destroy(void) __attribute__((destructor, unused));
static void strata_ust__tracepoints__ptrs_destroy(void)
{
	if (--strata_tracepoint_ptrs_registered)
		return;
	if (&__start_strata_tracepoints_ptrs[0] != &__stop_strata_tracepoints_ptrs[0])
		strata_ust_tracepoints_unregister(__start_strata_tracepoints_ptrs);
}

#else /* STRATA_TRACEPOINT_DEFINE */
#define STRATA__DEFINE_TRACEPOINT(_provider, _name, _args)
#endif /* STRATA_TRACEPOINT_DEFINE */

#ifdef __cplusplus
}
#endif
#endif /* STRATA_TRACEPOINT_H */

/* The following declarations are outside the include guard on purpose. */

/*
 * STRATA_TRACEPOINT_HIDDEN_DEFINITION: hide the call-site state symbols
 * (every user of the tracepoints is inside this module).
 */
#undef STRATA__TRACEPOINT_DEFINITION_VISIBILITY
#ifdef STRATA_TRACEPOINT_HIDDEN_DEFINITION
#define STRATA__TRACEPOINT_DEFINITION_VISIBILITY __attribute__((visibility("hidden")))
#else
#define STRATA__TRACEPOINT_DEFINITION_VISIBILITY __attribute__((visibility("default")))
#endif

#ifndef STRATA_TRACEPOINT_ENUM
/*
 * STRATA_TRACEPOINT_ENUM(provider, name,
 *         STRATA_TP_ENUM_VALUES(
 *                 strata_field_enum_value("even", 0)
 *                 strata_field_enum_range("twoto4", 2, 4)
 *                 strata_field_enum_auto("next")))
 * then strata_field_enum(provider, name, int, field, value) in a payload.
 */
#define STRATA_TRACEPOINT_ENUM(provider, name, values)
#endif

#ifndef STRATA_TRACEPOINT_EVENT
/*
 * STRATA_TRACEPOINT_EVENT(provider, name,
 *         STRATA_TP_ARGS(type, arg, ...),       -- 0 to 10 pairs
 *         STRATA_TP_FIELDS(strata_field_...(...) ...))
 *
 * STRATA_TRACEPOINT_EVENT_CLASS(provider, class, args, fields) declares a
 * layout once; STRATA_TRACEPOINT_EVENT_INSTANCE(provider, class, provider,
 * name, args) declares an event using it. "provider:name" is at most 255
 * characters.
 */
#define STRATA_TRACEPOINT_EVENT(provider, name, args, fields)               \
	STRATA__DECLARE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args)) \
	STRATA__DEFINE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args))

#define STRATA_TRACEPOINT_EVENT_CLASS(provider, name, args, fields)

#define STRATA_TRACEPOINT_EVENT_INSTANCE(template_provider, template_name, provider, name, args) \
	STRATA__DECLARE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args))                      \
	STRATA__DEFINE_TRACEPOINT(provider, name, STRATA__TP_PARAMS(args))
#endif

#ifndef STRATA_TRACEPOINT_LOGLEVEL
/* Loglevels as in lttng-ust and syslog(3): lower is more severe. */
enum {
	STRATA_TRACEPOINT_LOGLEVEL_EMERG = 0,
	STRATA_TRACEPOINT_LOGLEVEL_ALERT = 1,
	STRATA_TRACEPOINT_LOGLEVEL_CRIT = 2,
	STRATA_TRACEPOINT_LOGLEVEL_ERR = 3,
	STRATA_TRACEPOINT_LOGLEVEL_WARNING = 4,
	STRATA_TRACEPOINT_LOGLEVEL_NOTICE = 5,
	STRATA_TRACEPOINT_LOGLEVEL_INFO = 6,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG_SYSTEM = 7,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG_PROGRAM = 8,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS = 9,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG_MODULE = 10,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG_UNIT = 11,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG_FUNCTION = 12,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG_LINE = 13,
	STRATA_TRACEPOINT_LOGLEVEL_DEBUG = 14,
};
/* STRATA_TRACEPOINT_LOGLEVEL(provider, name, STRATA_TRACEPOINT_LOGLEVEL_...) */
#define STRATA_TRACEPOINT_LOGLEVEL(provider, name, loglevel)
#endif

#ifndef STRATA_TRACEPOINT_MODEL_EMF_URI
#define STRATA_TRACEPOINT_MODEL_EMF_URI(provider, name, uri)
#endif
