/* SPDX-License-Identifier: MIT */
/*
 * libstrata-ctf internal representation: what the TSDL parser builds
 * (tsdl-*.c, metadata.c), what the stream decoder walks (stream.c), and the
 * decoded-value layout the pretty printer reads (pretty.c).
 *
 * Ownership: a ctf_trace_class owns every type, field, event class and
 * string reachable from it; ctf_trace_class_destroy() frees all of it.
 * Nothing here is thread-safe; one reader thread per trace.
 *
 * Decoded values (struct ctf_value) are stored in pre-order in one flat,
 * reused array per stream, so decoding an event allocates nothing:
 *
 *   payload struct { a; s struct { b; c; }; q[2] }
 *
 *   index: 0        1    2          3    4    5        6     7
 *          struct   a    struct(s)  b    c    seq(q)   q[0]  q[1]
 *          nsub=7   0    nsub=2     0    0    nsub=2   0     0
 *
 * The children of value i start at i + 1; the next sibling of a child c is
 * c + c->nsub + 1. A variant has exactly one child: the selected option.
 */
#ifndef STRATA_CTF_IR_H
#define STRATA_CTF_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ctf_byte_order {
	CTF_BO_LE,
	CTF_BO_BE,
};

enum ctf_encoding {
	CTF_ENC_NONE,
	CTF_ENC_UTF8,
	CTF_ENC_ASCII,
};

enum ctf_type_kind {
	CTF_TYPE_INT,
	CTF_TYPE_FLOAT,
	CTF_TYPE_STRING,
	CTF_TYPE_ENUM,
	CTF_TYPE_STRUCT,
	CTF_TYPE_VARIANT,
	CTF_TYPE_ARRAY,
	CTF_TYPE_SEQUENCE,
};

/*
 * What the reader does with an integer besides printing it (babeltrace2's
 * "meanings"). Assigned by the parser from the field's scope and name after
 * the whole metadata is parsed; see ctf.md §1.7.
 */
enum ctf_meaning {
	CTF_MEANING_NONE,
	CTF_MEANING_MAGIC,             /* trace.packet.header.magic */
	CTF_MEANING_UUID,              /* trace.packet.header.uuid (the array) */
	CTF_MEANING_STREAM_ID,         /* trace.packet.header.stream_id */
	CTF_MEANING_STREAM_INSTANCE_ID, /* trace.packet.header.stream_instance_id */
	CTF_MEANING_TS_BEGIN,          /* stream.packet.context.timestamp_begin */
	CTF_MEANING_TS_END,            /* stream.packet.context.timestamp_end */
	CTF_MEANING_CONTENT_SIZE,      /* stream.packet.context.content_size */
	CTF_MEANING_PACKET_SIZE,       /* stream.packet.context.packet_size */
	CTF_MEANING_SEQ_NUM,           /* stream.packet.context.packet_seq_num */
	CTF_MEANING_DISC_EVENTS,       /* stream.packet.context.events_discarded */
	CTF_MEANING_EVENT_ID,          /* stream.event.header ... id (any depth) */
	CTF_MEANING_TIMESTAMP,         /* stream.event.header ... timestamp */
};

/* The root scopes of a field path, in decoding order. */
enum ctf_scope {
	CTF_SCOPE_PACKET_HEADER,
	CTF_SCOPE_PACKET_CONTEXT,
	CTF_SCOPE_EVENT_HEADER,
	CTF_SCOPE_STREAM_EVENT_CONTEXT,
	CTF_SCOPE_EVENT_CONTEXT,
	CTF_SCOPE_EVENT_PAYLOAD,
	CTF_SCOPE_COUNT,
};

/*
 * A resolved reference to an earlier integer/enum field (sequence length,
 * variant tag). index[] lists member indices from the scope's root struct
 * down to the target; every step goes through a struct (or the selected
 * option of a variant, whose step is its option index). When the reference
 * crosses an array or sequence element, the element is the one currently
 * being decoded (the last one). The parser resolves relative names the way
 * babeltrace2 does: innermost enclosing struct first, then outwards, then
 * the outer scopes.
 *
 * Arrays and sequences take no step in index[]: when the type reached so far
 * is an array or sequence, descend into its element (the current one) before
 * applying the next index. E.g. payload `struct { uint8_t n; struct { uint8_t
 * len; uint8_t d[len]; } a[2]; }`: d's length is {EVENT_PAYLOAD, [1, 0]}
 * (member 1 = a, through the array to its element struct, member 0 = len).
 * The target type is an integer or an enum (variant tags: always an enum;
 * sequence lengths: unsigned).
 */
struct ctf_field_path {
	enum ctf_scope scope;
	uint32_t len;
	uint32_t *index;
};

struct ctf_type;

/* A struct member or variant option. */
struct ctf_field {
	char *name;      /* as printed: one leading '_' stripped */
	char *orig_name; /* as written in the metadata */
	struct ctf_type *type;
	/*
	 * Not printed: packet-context meaning fields, clock-mapped integers
	 * that no sequence or variant depends on (ctf.md §3.5), structs and
	 * arrays all of whose contents are hidden, every field of the event
	 * header and of the packet header. A root struct with fields all hidden
	 * is not printed at all; one declared empty prints as `{ }`.
	 */
	bool hidden;
};

struct ctf_enum_mapping {
	char *label;
	/* Inclusive range; compared as signed when the container is signed. */
	union {
		int64_t s;
		uint64_t u;
	} lo, hi;
};

/*
 * Enums: the integer properties (size, byte order, base, clock, meaning) are
 * those of enumeration.container, which the parser fills like any integer.
 */
struct ctf_type {
	enum ctf_type_kind kind;
	uint32_t align; /* bits, power of two */
	union {
		struct {
			uint32_t size; /* bits, 1..64 */
			bool is_signed;
			enum ctf_byte_order bo; /* resolved: never "native" */
			uint32_t base;          /* 2, 8, 10, 16 */
			enum ctf_encoding encoding;
			int32_t clock;        /* index in trace->clocks, or -1 */
			enum ctf_meaning meaning;
		} integer;
		struct {
			uint32_t exp_dig, mant_dig; /* (8,24) or (11,53) */
			enum ctf_byte_order bo;
		} flt;
		struct {
			enum ctf_encoding encoding;
		} string;
		struct {
			struct ctf_type *container; /* kind == CTF_TYPE_INT */
			struct ctf_enum_mapping *mappings;
			size_t n_mappings;
		} enumeration;
		struct {
			struct ctf_field *fields;
			size_t n_fields;
		} structure;
		struct {
			/*
			 * The selected option is the one whose orig_name equals a
			 * label mapping the tag value (labels are never stripped;
			 * checked against babeltrace2 2.0.4).
			 */
			struct ctf_field *options;
			size_t n_options;
			char *tag_name; /* as written */
			struct ctf_field_path tag;
		} variant;
		struct {
			struct ctf_type *elem;
			uint64_t length;
			bool is_text; /* 8-bit, 8-aligned, encoded integer elements */
		} array;
		struct {
			struct ctf_type *elem;
			char *length_name; /* as written */
			struct ctf_field_path length;
			bool is_text;
		} sequence;
	};
};

struct ctf_clock_class {
	char *name;
	char *description; /* may be NULL */
	uint8_t uuid[16];
	bool has_uuid;
	uint64_t freq;      /* Hz, default 1e9 */
	uint64_t precision;
	/* Normalized as babeltrace2 does: 0 <= offset_cycles < freq. */
	int64_t offset_s;
	uint64_t offset_cycles;
	bool absolute;
};

struct ctf_env_entry {
	char *key;
	bool is_int;
	int64_t ival;
	char *sval; /* when !is_int */
};

struct ctf_event_class {
	uint64_t id;
	char *name; /* may be NULL: printed as <unknown> */
	uint64_t stream_class_id;
	bool has_loglevel;
	int64_t loglevel;
	char *emf_uri; /* may be NULL */
	struct ctf_type *context; /* struct or NULL */
	struct ctf_type *payload; /* struct or NULL ("fields" absent) */
};

struct ctf_stream_class {
	uint64_t id;
	struct ctf_type *packet_context; /* struct or NULL */
	struct ctf_type *event_header;   /* struct or NULL */
	struct ctf_type *event_context;  /* struct or NULL */
	/* Sorted by id for bsearch. */
	struct ctf_event_class **events;
	size_t n_events;
	int32_t default_clock; /* index in trace->clocks, or -1 */
};

struct ctf_trace_class {
	uint32_t major, minor;
	uint8_t uuid[16];
	bool has_uuid;
	enum ctf_byte_order bo;
	struct ctf_type *packet_header; /* struct or NULL */
	struct ctf_env_entry *env;
	size_t n_env;
	struct ctf_clock_class *clocks;
	size_t n_clocks;
	/* Sorted by id for bsearch. */
	struct ctf_stream_class **streams;
	size_t n_streams;
};

/* Where a parse error happened, for "file:line: message" reports. */
struct ctf_parse_error {
	unsigned line; /* 1-based line in the joined metadata text; 0 if unknown */
	char msg[256];
};

/*
 * Read a `metadata` file, plain text or packetized (magic 0x75D11D57 in
 * either byte order; packet payloads are joined before parsing). On success
 * *ret_text is a NUL-terminated malloc'd string the caller frees.
 * Errors: -errno, -STRATA_EMETADATA with err->msg naming the byte offset.
 */
int ctf_metadata_read(const char *path, char **ret_text, size_t *ret_len,
		      struct ctf_parse_error *err);

/*
 * Parse TSDL text into a trace class, resolve field paths, byte orders,
 * meanings, clock mappings (including babeltrace2's implicit mapping of
 * timestamp fields) and hidden flags. Errors: -ENOMEM, -STRATA_EMETADATA
 * (err filled), -STRATA_EUNSUPPORTED (err filled).
 */
int ctf_metadata_parse(const char *text, size_t len, struct ctf_trace_class **ret_tc,
		       struct ctf_parse_error *err);

/* NULL-tolerant. */
void ctf_trace_class_destroy(struct ctf_trace_class *tc);

/* Lookups; NULL when absent. */
const struct ctf_stream_class *ctf_trace_class_stream(const struct ctf_trace_class *tc,
						      uint64_t id);
const struct ctf_event_class *ctf_stream_class_event(const struct ctf_stream_class *sc,
						     uint64_t id);
const struct ctf_env_entry *ctf_trace_class_env(const struct ctf_trace_class *tc,
						const char *key);

/* One decoded value; see the layout diagram at the top of this file. */
struct ctf_value {
	const struct ctf_type *type;
	uint32_t nsub;   /* number of descendants */
	uint32_t option; /* variant: index of the selected option */
	union {
		uint64_t u;  /* unsigned integers and enums */
		int64_t s;   /* signed integers and enums */
		double d;    /* floats (binary32 widened) */
		struct {
			const char *ptr; /* into the mapped stream file; not NUL-terminated */
			uint32_t len;    /* bytes before the first NUL */
		} str;               /* strings, text arrays, text sequences */
		uint64_t count;      /* arrays, sequences: element count; structs: member count */
	};
};

#endif
