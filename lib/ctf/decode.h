/* SPDX-License-Identifier: MIT */
/*
 * Binary decoding of CTF 1.8 packets (ctf.md §1.6, §1.7, §1.9).
 *
 * The IR types (ctf-ir.h) are compiled once per trace into a mirror tree of
 * `struct dnode`, which carries everything the hot loop needs precomputed:
 * fast-path flags for byte-aligned native integers, variant tag ranges,
 * event-class lookup tables. Decoding writes `struct ctf_value` entries in
 * pre-order into a reused array and allocates nothing once warmed up.
 *
 * Each scope root also gets a decode program (struct dprog): the tree
 * flattened into a linear list of instructions, so the common layouts
 * (nested structs, runs of fixed-layout members, strings, text arrays,
 * variants whose tag sits at a fixed value offset) decode in one loop
 * without recursion; anything else falls back to the tree walk for that
 * subtree. Both paths produce the same values and the same errors; tests
 * compare them (ctf_trace_dec_create_opts(generic = true) turns programs,
 * runs and static field paths off: every field then decodes on its own).
 *
 * Invariant: every read is checked against the packet's content end, which
 * the caller has already checked against the mapped file size.
 */
#ifndef STRATA_CTF_DECODE_H
#define STRATA_CTF_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf-ir.h"

/* Limits on what untrusted input can make the decoder do. */
#define CTF_DEC_MAX_VALUES (1u << 22) /* values per event or per packet header+context */
#define CTF_DEC_MAX_DEPTH 128u /* type nesting */

enum dn_kind {
	DN_INT,
	DN_FLOAT,
	DN_STRING,
	DN_STRUCT,
	DN_VARIANT,
	DN_ARRAY,
	DN_SEQUENCE,
	DN_TEXT_ARRAY,
	DN_TEXT_SEQUENCE,
};

/*
 * A run of consecutive struct members that are byte-aligned 8/16/32/64-bit
 * integers (without meaning or clock) or floats, none aligned more than the
 * first: once the first is aligned, every member sits at a fixed offset, so
 * the run decodes with one alignment and one bounds check.
 */
/* How a dn_flat value loads: one switch case each, no flag tests. */
enum dn_load {
	DL_U8,
	DL_S8,
	DL_U16,
	DL_S16,
	DL_U32,
	DL_S32,
	DL_U64, /* and s64: stored as is */
	DL_F32,
	DL_F64,
	DL_SWAP, /* the same in the other byte order: DL_SWAP + one of the above */
};

struct dn_flat {
	const struct ctf_type *type;
	uint32_t off; /* bytes from the run start */
	uint8_t size; /* bits: 8, 16, 32 or 64 */
	uint8_t load; /* enum dn_load */
	/*
	 * Loads but F32, of 8 bytes x at once: value = x << shift >> shift, or
	 * bswap(x) >> shift in the other byte order (little-endian hosts),
	 * sign-extending if sx.
	 */
	uint8_t shift;
	bool sx;
	/*
	 * Plain runs (struct ds_op.plain) on little-endian hosts: value =
	 * ((x & mask) ^ sign) - sign, sign the value's top bit if sx, else 0,
	 * x the 8 bytes loaded (swapped runs: bswap(x) >> shift).
	 */
	uint64_t mask, sign;
};

/* The run starting at a struct member: n members (0: none), bits long. */
struct dn_run {
	uint32_t n;
	uint32_t bits;
};

/* One range of a variant's tag enumeration mapped to an option. */
struct dn_range {
	uint64_t lo, hi;
	uint32_t option;
};

/* No static value offset for a field path (see dnode.path_off). */
#define CTF_DEC_NO_OFF UINT32_MAX
/* Struct nesting a program opens inline; deeper structs use the tree walk. */
#define CTF_DEC_PROG_NEST 16u

struct dprog;
struct dshape;

struct dnode {
	uint8_t kind; /* enum dn_kind */
	uint8_t bo; /* enum ctf_byte_order (ints, floats) */
	uint8_t meaning; /* enum ctf_meaning (ints, enums) */
	bool is_signed;
	bool fast; /* int/float: 8/16/32/64 bits, always byte-aligned */
	bool swap; /* fast, in the other byte order than the host's */
	bool notes; /* int with a meaning or a clock: see note_int() */
	bool is_enum;
	int32_t clock; /* ints/enums: clock index or -1 */
	uint32_t align; /* bits */
	uint32_t size; /* ints: bits; floats: 32 or 64 */
	const struct ctf_type *type; /* stored in ctf_value.type */
	uint32_t n_children; /* struct members, variant options; arrays: 1 */
	struct dnode **children;
	uint64_t length; /* static arrays */
	const struct ctf_field_path *path; /* sequence length, variant tag */
	/*
	 * The path's target is always this many values after its scope's
	 * root value (every value before it in pre-order has a fixed count),
	 * or CTF_DEC_NO_OFF.
	 */
	uint32_t path_off;
	const struct dprog *prog; /* scope roots: the decode program, or NULL */
	const struct dshape *shape; /* scope roots: the template, or NULL */
	uint64_t min_bits; /* least bits one instance takes (saturating) */
	struct dn_range *ranges; /* variants, in babeltrace2's search order */
	uint32_t n_ranges;
	bool ranges_signed;
	struct dn_run *runs; /* structs: per member, see struct dn_flat */
	struct dn_flat *flat; /* structs: per member in a run */
};

enum dp_op {
	DP_BEGIN, /* open a struct value (dn) */
	DP_END, /* close the innermost struct opened by DP_BEGIN */
	DP_RUN, /* n members of a run (struct dn_flat), tree walk if it does not fit */
	DP_INT, /* an integer or enum, any layout */
	DP_STRING,
	DP_TEXT_ARRAY,
	DP_ARRAY, /* a static array (dn) */
	DP_SEQUENCE, /* its length n values back, an earlier member of its struct */
	DP_VARIANT, /* tag at a static offset: open it, jump to the option's code */
	DP_JUMP, /* to insn n (an option's code ends: to the variant's DP_END) */
	DP_NODE, /* anything else: the tree walk of dn */
};

struct dp_insn {
	uint8_t op; /* enum dp_op */
	uint32_t depth; /* nesting of dn, as the tree walk counts it */
	/* DP_RUN: members, bits (struct dn_run); DP_JUMP: n; DP_SEQUENCE: n back */
	uint32_t n, bits;
	bool len_signed; /* DP_SEQUENCE: the length's type */
	const struct dnode *dn; /* DP_RUN: the first member */
	struct dnode *const *members; /* DP_RUN: members[0..n) */
	const struct dn_flat *flat; /* DP_RUN: flat[0..n) */
	const uint32_t *targets; /* DP_VARIANT: where each option's code starts */
};

struct dprog {
	uint32_t n;
	const struct dp_insn *insn;
};

/*
 * A scope root whose values always form the same tree (no variant, no
 * sequence, no integer with a meaning or a clock: most event payloads and
 * contexts) decodes from a template, its "shape": the whole value array is
 * copied at once with every type, descendant count and member count in
 * place, then a short list of ops writes what the bytes say into the
 * leaves, at value indices fixed at compile time. No struct is opened or
 * closed at run time and no value is pushed one by one:
 *
 *   template   [root][a][b][s][c]        copied (n_vals x 32 bytes)
 *   ops        RUN a,b (fixed offsets)   STRING s   RUN c
 *   bytes      |a |b   |s t r \0|c       each op aligns, checks, fills
 *
 * Any op that fails (short packet, misalignment a run cannot take, value
 * limit) makes the whole scope decode again with its program, which reports
 * the error exactly as the tree walk does; shapes never report errors.
 */
enum ds_kind {
	DS_ALIGN, /* align to align bits (a struct's beginning) */
	DS_RUN, /* n members of a struct run (struct dn_flat) */
	DS_ARRAY, /* n elements of an array whose dn->flat is set */
	DS_STRING,
	DS_TEXT, /* text array of n bytes */
	DS_LEAF, /* one integer or float of another layout (dn) */
	DS_SEQ, /* a sequence of flat elements (struct dn_flat), see below */
	DS_TSEQ, /* a text sequence */
};

enum ds_plain {
	DS_PLAIN_NO,
	DS_PLAIN_NATIVE,
	DS_PLAIN_SWAPPED,
};

struct ds_op {
	uint8_t op; /* enum ds_kind */
	uint32_t align; /* bits, applied first (RUN: the first member's) */
	uint32_t n, bits; /* see enum ds_kind; RUN: bits long */
	uint32_t vidx; /* the first value it writes, from the scope root */
	/*
	 * RUN: bytes past the run's end that reading each member as 8 bytes
	 * touches, or UINT32_MAX when some member needs its own load (a
	 * binary32, a swap on a big-endian host): see struct dn_flat.shift.
	 */
	uint32_t over;
	/*
	 * RUN, on a little-endian host: every member an integer or binary64,
	 * all of more than a byte in the host's order (DS_PLAIN_NATIVE) or all
	 * in the other (DS_PLAIN_SWAPPED), so that they load without a test
	 * per member (struct dn_flat.mask); else DS_PLAIN_NO.
	 */
	uint8_t plain;
	const struct dn_flat *flat; /* RUN, ARRAY, SEQ: the element's */
	const struct dnode *dn; /* LEAF */
	/* SEQ, TSEQ: see "Sequences" below; n is how many values back the length is. */
	uint32_t elem_align; /* SEQ: bits */
	uint32_t root; /* the scope root's value */
	uint32_t seg_end; /* the template values copied after it: [vidx + 1, seg_end) */
};

/*
 * Sequences. A scope root whose members are fixed but for sequences
 * (LTTng's `_x_length, x` pairs: the length a fixed number of values
 * before the sequence, elements of one flat integer type, or text) also
 * has a shape. Its template is the values with every sequence empty, cut
 * after each sequence's value; the values after a sequence move by its
 * element count, so the template is copied a segment at a time:
 *
 *   template  [root][n][seq]|[m][seq2]|[z]      n_first = 3
 *   values    [root][n][seq][e0][e1]|[m][seq2]|[z]
 *                            ^ written by the SEQ op, which then copies
 *                              its segment [m][seq2] and shifts the ops after it
 *
 * Each SEQ op writes the elements, its value's count and nsub, adds the
 * count to the root's nsub (the root comes first, so it never moves) and
 * copies the next segment. Only a scope root's own members may be
 * sequences, and in a body shape only the last scope may have them, so
 * that scope roots keep fixed value indices.
 */

/* Values and ops of a shape: bounded so templates stay small. */
#define CTF_DEC_SHAPE_MAX_VALUES 4096u
#define CTF_DEC_SHAPE_MAX_OPS 1024u

/*
 * A variant ending the root (event headers: id, then a variant on it) is
 * decoded after the rest: its tag is value `tag` of the scope, and the
 * option's own shape is appended after the root's template, the root's and
 * the variant's nsub growing by its values.
 */
struct ds_variant {
	uint32_t vidx; /* the variant's value */
	uint32_t tag; /* the tag's value */
	const struct dnode *dn;
	const struct dshape *const *subs; /* per option */
};

/*
 * A shape with a tail variant whose every field sits at a bit offset fixed
 * from the scope's (aligned) beginning, once the option is known: event
 * headers such as LTTng's. Its "head" decodes it without ops: read the
 * tag, pick the option, one bounds check, copy that option's whole
 * template (the variant's option and counts in place), then each field is
 * an 8-byte load, a shift and a mask:
 *
 *   bytes   |id|ts      |            option "compact": id @0, ts @16 bits
 *   leaves  { vidx 1, byte 0, shift 0, 16 bits } { vidx 4, byte 2, shift 0, 32 bits }
 *
 * Anything a head cannot take at run time (misaligned start, fewer than 8
 * readable bytes past a field, no option) leaves the scope to the shape.
 */
struct dh_leaf {
	uint64_t mask; /* of size bits */
	uint32_t vidx; /* the value it writes, from the scope root */
	uint32_t byte; /* of its 8-byte load, from the scope's beginning */
	uint8_t size; /* bits, 1 to 64 */
	uint8_t shift; /* right, after the load (and swap) */
	bool swap; /* the bytes are in the other order than the host's */
	bool sx; /* sign-extend */
	uint8_t meaning; /* enum ctf_meaning: its value is noted */
	bool clock; /* it updates the stream's clock (as note_int()) */
};

struct dh_opt {
	uint32_t n_vals;
	const struct ctf_value *tmpl; /* the root's, then the option's values */
	uint32_t n_leaves;
	const struct dh_leaf *leaves;
	uint32_t bits; /* the scope's length */
	uint32_t bytes; /* readable bytes each leaf's 8-byte load needs */
	uint32_t id_leaf; /* the last leaf meaning the event id, or UINT32_MAX */
};

struct dhead {
	uint32_t align; /* the root's, in bits: at least 8 */
	struct dh_leaf tag; /* the variant's tag, in the root's fixed part */
	uint32_t tag_bytes;
	const struct dnode *var; /* the variant, for its ranges */
	const struct dh_opt *opts; /* per option */
};

struct dshape {
	uint32_t n_vals; /* with every sequence empty */
	uint32_t n_first; /* template values before the first SEQ/TSEQ op's segment */
	const struct ctf_value *tmpl;
	uint32_t n_ops;
	const struct ds_op *ops;
	const struct ds_variant *var; /* or NULL */
	const struct dhead *head; /* with var: the fixed-layout path, or NULL */
};

/* The scopes after the event header, in decoding order. */
enum ctf_body_scope {
	CTF_BODY_STREAM_CONTEXT,
	CTF_BODY_CONTEXT,
	CTF_BODY_PAYLOAD,
	CTF_BODY_COUNT,
};
_Static_assert(CTF_SCOPE_EVENT_CONTEXT == CTF_SCOPE_STREAM_EVENT_CONTEXT + CTF_BODY_CONTEXT &&
		       CTF_SCOPE_EVENT_PAYLOAD == CTF_SCOPE_STREAM_EVENT_CONTEXT + CTF_BODY_PAYLOAD,
	       "body scopes follow the ctf_scope order");

/* Decoding tables for one event class. */
struct ctf_ec_dec {
	const struct ctf_event_class *ec;
	struct dnode *context;
	struct dnode *payload;
	/*
	 * The stream event context, event context and payload as one shape,
	 * when each present one has a shape without a variant (or NULL): the
	 * three decode with one template copy and one op list, and a field
	 * path never needs resolving in them. body_idx[] is each scope root's
	 * value index in it, UINT32_MAX when the scope is absent.
	 */
	const struct dshape *body;
	uint32_t body_idx[CTF_BODY_COUNT];
};

/* Decoding tables for one stream class. */
struct ctf_sc_dec {
	const struct ctf_stream_class *sc;
	struct dnode *packet_context;
	struct dnode *event_header;
	struct dnode *event_context;
	struct ctf_ec_dec *ecs; /* parallel to sc->events */
	/* Dense id → index+1 table when ids are small; 0 means absent. */
	uint32_t *ec_dense;
	uint64_t n_dense;
	/*
	 * The default clock, known here so that the event loop converts its
	 * values without walking to the clock class: has_clock, and when the
	 * clock runs at 1 GHz with a base that converts, that base (clock_ns):
	 * ns = clock_base_ns + cycles (see ctf_sc_clock_to_ns()).
	 */
	bool has_clock, clock_ns;
	int64_t clock_base_ns;
	/*
	 * The event header's head (struct dhead), for ctf_dec_event(), or
	 * NULL; default_id: the event id when the header has none.
	 */
	const struct dhead *head;
	uint64_t default_id;
	/* What the packet context provides (babeltrace2's stream class config). */
	bool has_ts_begin, has_ts_end, has_disc_events, has_seq_num;
	bool has_content_size, has_packet_size;
};

struct ctf_dec_arena;

/* Compiled decoding tables of one trace class. */
struct ctf_trace_dec {
	const struct ctf_trace_class *tc;
	struct dnode *packet_header;
	struct ctf_sc_dec *scs; /* parallel to tc->streams */
	int64_t *clock_base_ns; /* per clock: offset_s * 1e9 + conv(offset_cycles) */
	bool *clock_base_ok;
	struct ctf_dec_arena *arena;
};

/*
 * Compile the decoding tables. Returns 0, -ENOMEM, or -STRATA_EMETADATA with
 * a description in errbuf (e.g. a variant tag path that does not lead to an
 * enumeration).
 */
int ctf_trace_dec_create(const struct ctf_trace_class *tc, struct ctf_trace_dec **ret, char *errbuf,
			 size_t errlen);
/*
 * The same; generic = true compiles no programs, runs nor static field
 * paths, so every field decodes on its own (the reference for tests).
 */
int ctf_trace_dec_create_opts(const struct ctf_trace_class *tc, bool generic,
			      struct ctf_trace_dec **ret, char *errbuf, size_t errlen);
void ctf_trace_dec_destroy(struct ctf_trace_dec *td);

/*
 * The value index of member m of struct st from the struct's own value
 * when the members before it always take the same number of values, else
 * CTF_DEC_NO_OFF.
 */
uint32_t ctf_dec_member_offset(const struct ctf_type *st, uint32_t m);

/*
 * The number of values every instance of t decodes to (its subtree
 * included), or UINT64_MAX when that varies (variants, sequences but
 * text ones) or is past the decoder's limits.
 */
uint64_t ctf_dec_fixed_values(const struct ctf_type *t);

/* The stream class decoding tables for stream class id, or NULL. */
const struct ctf_sc_dec *ctf_trace_dec_sc(const struct ctf_trace_dec *td, uint64_t id);
/* ctf_sc_dec_ec() for ids past the dense table. */
const struct ctf_ec_dec *ctf_sc_dec_ec_search(const struct ctf_sc_dec *scd, uint64_t id);

/* The event class decoding tables for id, or NULL. Inline: once per event. */
static inline const struct ctf_ec_dec *ctf_sc_dec_ec(const struct ctf_sc_dec *scd, uint64_t id)
{
	if (id < scd->n_dense) {
		uint32_t i = scd->ec_dense[id];

		return i ? &scd->ecs[i - 1] : NULL;
	}
	return ctf_sc_dec_ec_search(scd, id);
}

/* A growable, reused array of decoded values. */
struct ctf_values {
	struct ctf_value *v;
	uint32_t n, cap;
};

void ctf_values_release(struct ctf_values *vals);

/* Where a scope's root value lives, for field path resolution. */
struct ctf_scope_root {
	const struct ctf_values *vals;
	uint32_t idx;
};

/* Decoding state for one packet region. */
struct ctf_dec {
	const uint8_t *base; /* packet start */
	uint64_t pos; /* bits from packet start */
	uint64_t end; /* bits: decoding may not go past this */
	struct ctf_values *out;
	struct ctf_scope_root root[CTF_SCOPE_COUNT];
	uint32_t roots; /* bit s: root[s] is set (one store clears them all) */
	uint64_t *clock; /* the stream's current clock value */
	/* Last value decoded for each meaning, valid when the bit is set. */
	uint64_t meaning_val[CTF_MEANING_TIMESTAMP + 1];
	uint32_t meaning_set;
	const char *err; /* static description of the failure */
	uint64_t err_pos; /* bit position of the failure */
};

/*
 * Decode the root (a struct) of scope at the current position into
 * dec->out, registering it in dec->root for field paths.
 * *ret_idx receives the index of the root value. Returns 0 or
 * -STRATA_ESTREAM (dec->err, dec->err_pos set) or -ENOMEM.
 */
int ctf_dec_root(struct ctf_dec *dec, enum ctf_scope scope, const struct dnode *root,
		 uint32_t *ret_idx);

/* What ctf_dec_event() decoded. */
struct ctf_dec_event {
	const struct ctf_ec_dec *ecd;
	uint64_t cycles; /* the clock after the header: the event's time */
	uint32_t hdr_idx; /* the header's root value */
	uint32_t body_idx; /* returned 0: the body shape's first value (struct ctf_ec_dec.body) */
};

/*
 * An event of a stream class whose header has a head (struct
 * ctf_sc_dec.head), in one call: the header, its event class, and the
 * body's shape when the class has one. Returns 0 when all is decoded, 2
 * when only the header is (ecd, cycles and hdr_idx set, the position
 * after the header: the body is to be decoded scope by scope), and 1 when
 * nothing is (values and position as before, the clock too): the event is
 * then to be decoded scope by scope, which reports what is wrong. Meanings
 * are not noted.
 */
int ctf_dec_event(struct ctf_dec *dec, const struct ctf_sc_dec *scd, struct ctf_dec_event *ret);

/*
 * Decode the values of a shape without a tail variant (struct ctf_ec_dec
 * .body) at the current position, appended to dec->out: 0, or 1 with
 * nothing kept (position and values as before) when it does not fit, to
 * be decoded scope by scope with ctf_dec_root(), which reports the error.
 */
int ctf_dec_shape(struct ctf_dec *dec, const struct dshape *sh);

/*
 * babeltrace2's conversion of a clock value to ns from origin (ctf.md §1.8).
 * Returns false on int64 overflow.
 */
/* Conversion of a clock value to ns with a 0 offset, as babeltrace2 does. */
uint64_t ctf_clock_value_ns(uint64_t freq, uint64_t value);

/* Inline: the reader converts every event's time. */
static inline bool ctf_clock_to_ns(const struct ctf_trace_dec *td, int32_t clock, uint64_t cycles,
				   int64_t *ret_ns)
{
	uint64_t freq, v;

	if (clock < 0 || (size_t)clock >= td->tc->n_clocks || !td->clock_base_ok[clock])
		return false;
	freq = td->tc->clocks[clock].freq;
	v = freq == UINT64_C(1000000000) ? cycles : ctf_clock_value_ns(freq, cycles);
	if (v >= (uint64_t)INT64_MAX)
		return false;
	return !__builtin_add_overflow(td->clock_base_ns[clock], (int64_t)v, ret_ns);
}

/* ctf_clock_to_ns() of scd's default clock, which the class has (has_clock). */
static inline bool ctf_sc_clock_to_ns(const struct ctf_trace_dec *td, const struct ctf_sc_dec *scd,
				      uint64_t cycles, int64_t *ret_ns)
{
	if (__builtin_expect(scd->clock_ns, 1))
		return cycles < (uint64_t)INT64_MAX &&
		       !__builtin_add_overflow(scd->clock_base_ns, (int64_t)cycles, ret_ns);
	return ctf_clock_to_ns(td, scd->sc->default_clock, cycles, ret_ns);
}

/* Apply the reader's clock offset and correlation options to a clock class. */
void ctf_clock_apply_offset(struct ctf_clock_class *cc, int64_t offset_s, int64_t offset_ns);

/* Bit-level integer reads (ctf.md §1.6); bits must be available. */
uint64_t ctf_read_bits_le(const uint8_t *base, uint64_t pos, unsigned size);
uint64_t ctf_read_bits_be(const uint8_t *base, uint64_t pos, unsigned size);

#endif
