/* SPDX-License-Identifier: MIT */
/*
 * The ABI between instrumented code and libstrata-ust, and the event
 * descriptors every other part of strata reads.
 *
 * Three parties meet here:
 *
 *   provider code     STRATA_TRACEPOINT_EVENT() expanded with
 *   (the app)         STRATA_TRACEPOINT_CREATE_PROBES: constant descriptors
 *                     (struct strata_probe_desc -> strata_event_desc ->
 *                     strata_field_desc) plus one probe function per event
 *                     that sizes, reserves, serializes and commits a record.
 *   call sites        STRATA_TRACEPOINT_DEFINE: one struct strata_tracepoint
 *   (the app)         per event, whose first word is the enable state.
 *   libstrata-ust     matches call sites to probes by "provider:name", keeps
 *                     the per-event runtime state (enabled, channel, id) and
 *                     writes the record header and context fields.
 *
 * The descriptors are plain data (names, integer layouts, enum mappings) so
 * the session daemon can receive them over IPC and feed them unchanged to
 * the CTF metadata writer (lib/ctf/writer.h).
 *
 * Record layout (what strata_ust_event_reserve() hands back and what the
 * generated metadata declares): byte-packed on every architecture, so every
 * type is declared with align = 8 bits, exactly like LTTng on x86:
 *
 *   event header (large: u16 id [+ u32 id + u64 ts] | u32 ts)
 *   stream event context fields, in the order the channel lists them
 *   payload fields, in STRATA_TP_FIELDS() order
 *
 * Thread-safety: registration functions may be called from any thread and
 * from constructors; strata_ust_event_reserve()/commit_next() are lock-free and
 * async-signal-safe (they drop the record rather than block).
 */
#ifndef STRATA_UST_EVENTS_H
#define STRATA_UST_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a descriptor layout changes; checked at registration. */
#define STRATA_UST_ABI_MAJOR 2

enum strata_type_kind {
	STRATA_TYPE_INTEGER = 0,
	STRATA_TYPE_FLOAT = 1,
	STRATA_TYPE_STRING = 2,
	STRATA_TYPE_ENUM = 3,
	STRATA_TYPE_ARRAY = 4,
	/* Length comes from the field just before it (an unsigned integer). */
	STRATA_TYPE_SEQUENCE = 5,
};

enum strata_encoding {
	STRATA_ENCODING_NONE = 0,
	STRATA_ENCODING_UTF8 = 1,
};

/*
 * An integer layout: a scalar, an enum container, or the element of an
 * array or sequence. For floats only size (32 or 64) is meaningful.
 */
struct strata_integer_type {
	uint8_t size; /* bits: 8, 16, 32, 64 */
	uint8_t is_signed;
	uint8_t base; /* 10 or 16 */
	/*
	 * The value is in network (big-endian) byte order. As in lttng-ust the
	 * probe copies the bytes it is given, so the caller passes a value
	 * already converted with htonl() & co.
	 */
	uint8_t network;
};

struct strata_enum_value {
	uint64_t value; /* two's complement when is_signed */
	uint8_t is_signed;
};

struct strata_enum_entry {
	struct strata_enum_value start, end; /* inclusive */
	const char *label;
	/* strata_field_enum_auto(): value = previous end + 1 (CTF rule). */
	uint8_t is_auto;
};

struct strata_enum_desc {
	const char *name; /* "provider_name" */
	const struct strata_enum_entry *entries;
	uint32_t nr_entries;
};

struct strata_field_desc {
	const char *name; /* as written in the source, without the '_' prefix */
	uint8_t kind; /* enum strata_type_kind */
	uint8_t encoding; /* arrays/sequences of 8-bit integers: text */
	uint8_t nowrite; /* never set by strata's macros: _nowrite fields are not recorded */
	uint8_t reserved;
	struct strata_integer_type integer; /* scalar, container or element */
	uint32_t length; /* STRATA_TYPE_ARRAY: element count */
	const struct strata_enum_desc *enum_desc; /* STRATA_TYPE_ENUM */
};

struct strata_probe_desc;

struct strata_event_desc {
	const char *name; /* event name without the provider */
	const struct strata_probe_desc *probe_desc;
	const struct strata_field_desc *fields;
	uint32_t nr_fields;
	/* Resolved through weak references: NULL target = not declared. */
	const int *const *loglevel;
	const char *const *model_emf_uri;
	void (*probe_callback)(void);
	const char *signature; /* the STRATA_TP_ARGS() text, checked at match */
};

struct strata_probe_desc {
	uint32_t abi_major;
	const char *provider;
	const struct strata_event_desc *const *events;
	uint32_t nr_events;
};

/*
 * One per call-site event (STRATA_TRACEPOINT_DEFINE). state is the only
 * word a disabled tracepoint reads; probe/data are written before state is
 * set (release) and read after it (acquire).
 */
struct strata_tracepoint {
	int32_t state;
	uint32_t struct_size;
	const char *provider;
	const char *name;
	void (*probe)(void);
	void *data;
	const char *signature;
};

/* Default loglevel of an event without STRATA_TRACEPOINT_LOGLEVEL. */
#define STRATA_UST_DEFAULT_LOGLEVEL 13

/* Returns >= 0 or -errno; never aborts, never prints. */
int strata_ust_probe_register(const struct strata_probe_desc *desc);
void strata_ust_probe_unregister(const struct strata_probe_desc *desc);
int strata_ust_tracepoints_register(struct strata_tracepoint *const *start, size_t count);
void strata_ust_tracepoints_unregister(struct strata_tracepoint *const *start);

/*
 * One payload field's value as a filter sees it. The probe fills one per
 * field of its event descriptor, in descriptor order (a sequence's length
 * field included), only when strata_ust_event_filtered() says a filter may
 * read them, and before anything is reserved:
 *   integers and enums  s64 (signed types, sign-extended) or u64 (unsigned,
 *                       zero-extended); network-order integers as given
 *   floats              d
 *   strings             ref: (pointer, strlen), ptr NULL for a NULL string
 *   arrays, sequences   ref: (pointer to the elements, element count)
 */
union strata_filter_arg {
	int64_t s64;
	uint64_t u64;
	double d;
	struct {
		const void *ptr;
		uint64_t len;
	} ref;
};

/*
 * Non-zero while some channel that records the event filters it: the probe
 * then fills the filter arguments. The first 32-bit word behind a call
 * site's data pointer holds it (an ABI of this header): one load, no call.
 */
static inline int strata_ust_event_filtered(const void *event)
{
	return event && __atomic_load_n((const uint32_t *)event, __ATOMIC_RELAXED) != 0;
}

/*
 * The records of one event being written, one per channel that records
 * it. Lives on the probe's stack; only the library reads its fields.
 */
struct strata_ust_ctx {
	void *chan;
	void *buf;
	uint64_t slot[8];
	const void *bindings;
	const union strata_filter_arg *args;
	const void *ip;
	size_t payload_len;
	uint32_t next;
	uint32_t pad;
};

/*
 * Every channel that records an event gets its own record of it, written
 * by the same probe code in a loop:
 *
 *   for (p = strata_ust_event_reserve(&ctx, event, len, ip, args); p;
 *        p = strata_ust_event_commit_next(&ctx))
 *           serialize the payload at p;
 *
 * strata_ust_event_reserve() reserves room for a record whose payload is
 * payload_len bytes in the first channel whose filters accept args (NULL
 * when the probe filled none: a filtered channel then records nothing),
 * writes its header and context fields and returns where the payload goes;
 * NULL when no channel takes it (disabled, filtered out, buffers full,
 * nested too deep; a loss is counted by the buffer). ip is the call site's
 * return address (the "ip" context). strata_ust_event_commit_next()
 * publishes that record and does the same for the next channel.
 */
void *strata_ust_event_reserve(struct strata_ust_ctx *ctx, void *event, size_t payload_len,
			       const void *ip, const union strata_filter_arg *args);
void *strata_ust_event_commit_next(struct strata_ust_ctx *ctx);

/*
 * Copy a string into a fixed-size text field: bytes up to the first NUL,
 * then zero padding (lttng-ust's pstrcpy_pad), so a short string never
 * leaks stale bytes into the trace.
 */
static inline char *strata_ust_copy_text(char *dst, const char *src, size_t len)
{
	size_t i = 0;

	if (src)
		for (; i < len && src[i]; i++)
			dst[i] = src[i];
	if (i < len)
		memset(dst + i, 0, len - i);
	return dst + len;
}

/*
 * Copy a NUL-terminated string into len bytes (len includes the NUL, as
 * computed by the size pass); a string that grew meanwhile is truncated.
 */
static inline char *strata_ust_copy_string(char *dst, const char *src, size_t len)
{
	size_t i = 0;

	for (; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	memset(dst + i, 0, len - i);
	return dst + len;
}

#ifdef __cplusplus
}
#endif
#endif
