/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 field decoding: packet bytes into pre-order ctf_value arrays, with
 * the tables decode-compile.c builds (see decode.h, ctf.md §1.6).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/decode.h"
#include "common/common.h"

__extension__ typedef unsigned __int128 u128;

/* A value whose subtree is still being decoded. */
#define NSUB_OPEN UINT32_MAX

/* --- clocks --------------------------------------------------------------- */

uint64_t ctf_clock_value_ns(uint64_t freq, uint64_t value)
{
	double d;

	if (freq == UINT64_C(1000000000))
		return value;
	/* babeltrace2: double precision, truncated (ctf.md §1.8). */
	d = (1e9 * (double)value) / (double)freq;
	if (d >= (double)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)d;
}

void ctf_clock_apply_offset(struct ctf_clock_class *cc, int64_t offset_s, int64_t offset_ns)
{
	uint64_t ns_to_apply, cycles;
	int64_t s = cc->offset_s;

	if (offset_s == 0 && offset_ns == 0)
		return;
	/* As babeltrace2's apply_clock_class_offset(): keep ns positive. */
	if (offset_ns < 0) {
		uint64_t abs_ns = UINT64_C(0) - (uint64_t)offset_ns;
		int64_t extra_s = -(int64_t)(abs_ns / UINT64_C(1000000000) + 1);

		ns_to_apply = (uint64_t)offset_ns + (uint64_t)(-extra_s) * UINT64_C(1000000000);
		offset_s += extra_s;
	} else {
		int64_t extra_s = offset_ns / INT64_C(1000000000);

		ns_to_apply = (uint64_t)(offset_ns - extra_s * INT64_C(1000000000));
		offset_s += extra_s;
	}
	s += offset_s;
	/* babeltrace2's cycles_from_ns(): in double precision, truncated. */
	cycles = cc->offset_cycles +
		 (cc->freq == UINT64_C(1000000000) ?
			  ns_to_apply :
			  (uint64_t)(((double)ns_to_apply * (double)cc->freq) / 1e9));
	if (cc->freq && cycles >= cc->freq) {
		s += (int64_t)(cycles / cc->freq);
		cycles %= cc->freq;
	}
	cc->offset_s = s;
	cc->offset_cycles = cycles;
}

/* --- bit reading ---------------------------------------------------------- */

uint64_t ctf_read_bits_le(const uint8_t *base, uint64_t pos, unsigned size)
{
	const uint8_t *p = base + (pos >> 3);
	unsigned shift = (unsigned)(pos & 7);
	unsigned nbytes = (shift + size + 7) / 8;
	u128 x = 0;

	for (unsigned i = nbytes; i-- > 0;)
		x = (x << 8) | p[i];
	x >>= shift;
	return size == 64 ? (uint64_t)x : (uint64_t)x & ((UINT64_C(1) << size) - 1);
}

uint64_t ctf_read_bits_be(const uint8_t *base, uint64_t pos, unsigned size)
{
	const uint8_t *p = base + (pos >> 3);
	unsigned shift = (unsigned)(pos & 7);
	unsigned nbytes = (shift + size + 7) / 8;
	u128 x = 0;

	for (unsigned i = 0; i < nbytes; i++)
		x = (x << 8) | p[i];
	x >>= nbytes * 8 - shift - size;
	return size == 64 ? (uint64_t)x : (uint64_t)x & ((UINT64_C(1) << size) - 1);
}

/* --- decoding ------------------------------------------------------------- */

void ctf_values_release(struct ctf_values *vals)
{
	free(vals->v);
	vals->v = NULL;
	vals->n = vals->cap = 0;
}

static int fail(struct ctf_dec *d, const char *msg)
{
	d->err = msg;
	d->err_pos = d->pos;
	return -STRATA_ESTREAM;
}

static int grow(struct ctf_dec *d)
{
	struct ctf_values *o = d->out;
	uint32_t cap = o->cap ? o->cap * 2 : 32; /* per slot and packet: keep small */
	struct ctf_value *nv;

	if (o->cap >= CTF_DEC_MAX_VALUES)
		return fail(d, "too many fields in one event");
	nv = realloc(o->v, (size_t)cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	o->v = nv;
	o->cap = cap;
	return 0;
}

static inline __attribute__((always_inline)) int vpush(struct ctf_dec *d, const struct ctf_type *t,
						       uint32_t *ret)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v;

	if (unlikely(o->n == o->cap)) {
		int r = grow(d);

		if (r < 0)
			return r;
	}
	*ret = o->n;
	v = &o->v[o->n++];
	v->type = t;
	v->nsub = 0;
	v->option = 0;
	v->u = 0;
	return 0;
}

static inline int align_to(struct ctf_dec *d, uint32_t align)
{
	uint64_t p = (d->pos + align - 1) & ~((uint64_t)align - 1);

	if (unlikely(p > d->end))
		return fail(d, "alignment padding goes past the end of the packet content");
	d->pos = p;
	return 0;
}

/* raw, the low size bits of a signed integer (size < 64), sign-extended. */
static inline uint64_t sign_extend(uint64_t raw, unsigned size)
{
	uint64_t m = UINT64_C(1) << (size - 1);

	return (raw ^ m) - m;
}

/* Notes raw as the last value of an integer with this meaning. */
static inline void note_meaning(struct ctf_dec *d, unsigned meaning, uint64_t raw)
{
	d->meaning_val[meaning] = raw;
	d->meaning_set |= 1u << meaning;
}

/*
 * babeltrace2's clock update with wrap detection (ctf.md §1.9), from a
 * field of mask's bits: a 64-bit mask makes it cur = raw.
 */
static inline void clock_advance(struct ctf_dec *d, uint64_t raw, uint64_t mask)
{
	uint64_t cur = *d->clock;

	if (raw < (cur & mask))
		cur += mask + 1;
	*d->clock = (cur & ~mask) | raw;
}

static inline __attribute__((always_inline)) void note_int(struct ctf_dec *d,
							   const struct dnode *dn, uint64_t raw)
{
	if (dn->meaning)
		note_meaning(d, dn->meaning, raw);
	/* timestamp_end only takes effect at the end of the packet (stream.c). */
	if (dn->clock >= 0 && d->clock && dn->meaning != CTF_MEANING_TS_END)
		clock_advance(d, raw, dn->size == 64 ? UINT64_MAX : (UINT64_C(1) << dn->size) - 1);
}

/* A byte-aligned 8/16/32/64-bit load (dn->fast). */
static inline __attribute__((always_inline)) uint64_t load_fast(const uint8_t *p,
								const struct dnode *dn)
{
	switch (dn->size) {
	case 8:
		return *p;
	case 16: {
		uint16_t x;

		memcpy(&x, p, 2);
		return dn->swap ? __builtin_bswap16(x) : x;
	}
	case 32: {
		uint32_t x;

		memcpy(&x, p, 4);
		return dn->swap ? __builtin_bswap32(x) : x;
	}
	default: {
		uint64_t x;

		memcpy(&x, p, 8);
		return dn->swap ? __builtin_bswap64(x) : x;
	}
	}
}

/* The bits of an integer or float at d->pos, which the caller checked; moves past them. */
static inline __attribute__((always_inline)) uint64_t read_raw(struct ctf_dec *d,
							       const struct dnode *dn)
{
	uint64_t raw;

	if (likely(dn->fast))
		raw = load_fast(d->base + (d->pos >> 3), dn);
	else if (dn->bo == CTF_BO_LE)
		raw = ctf_read_bits_le(d->base, d->pos, dn->size);
	else
		raw = ctf_read_bits_be(d->base, d->pos, dn->size);
	d->pos += dn->size;
	return raw;
}

static inline __attribute__((always_inline)) int dec_int(struct ctf_dec *d, const struct dnode *dn)
{
	uint64_t raw;
	uint32_t idx;
	int r;

	if (unlikely(d->pos & (dn->align - 1))) {
		r = align_to(d, dn->align);
		if (r < 0)
			return r;
	}
	if (unlikely(d->end - d->pos < dn->size))
		return fail(d, "integer goes past the end of the packet content");
	raw = read_raw(d, dn);
	r = vpush(d, dn->type, &idx);
	if (unlikely(r < 0))
		return r;
	d->out->v[idx].u = dn->is_signed && dn->size < 64 ? sign_extend(raw, dn->size) : raw;
	if (unlikely(dn->notes))
		note_int(d, dn, raw);
	return 0;
}

static int dec_float(struct ctf_dec *d, const struct dnode *dn)
{
	uint64_t raw;
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	if (d->end - d->pos < dn->size)
		return fail(d, "floating point number goes past the end of the packet content");
	raw = read_raw(d, dn);
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	if (dn->size == 32) {
		uint32_t x = (uint32_t)raw;
		float f;

		memcpy(&f, &x, sizeof(f));
		d->out->v[idx].d = f;
	} else {
		double f;

		memcpy(&f, &raw, sizeof(f));
		d->out->v[idx].d = f;
	}
	return 0;
}

/*
 * memchr(p, 0, avail) for the short strings of most events: eight bytes at
 * a time within avail, without a libc call per string.
 */
static inline const uint8_t *find_nul(const uint8_t *p, uint64_t avail)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);
	uint64_t k = 0;

	for (; k + 8 <= avail && k < 32; k += 8) {
		uint64_t x, z;

		memcpy(&x, p + k, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
		x = __builtin_bswap64(x); /* the first byte in memory lowest */
#endif
		/* Exact up to the lowest zero byte, which is all we use. */
		z = (x - ones) & ~x & (ones << 7);
		if (z)
			return p + k + (unsigned)__builtin_ctzll(z) / 8;
	}
	return memchr(p + k, 0, avail - k);
}

static inline int dec_string(struct ctf_dec *d, const struct dnode *dn)
{
	const uint8_t *p, *nul;
	uint64_t avail;
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	p = d->base + (d->pos >> 3);
	avail = (d->end - d->pos) >> 3;
	nul = find_nul(p, avail);
	if (!nul)
		return fail(d, "string is not terminated before the end of the packet content");
	if ((uint64_t)(nul - p) > UINT32_MAX)
		return fail(d, "string too long");
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].str.ptr = (const char *)p;
	d->out->v[idx].str.len = (uint32_t)(nul - p);
	d->pos += (uint64_t)(nul - p + 1) * 8;
	return 0;
}

static inline int dec_text(struct ctf_dec *d, const struct dnode *dn, uint64_t len)
{
	const uint8_t *p, *nul;
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	if (len > (d->end - d->pos) / 8 || len > UINT32_MAX)
		return fail(d, "text array goes past the end of the packet content");
	p = d->base + (d->pos >> 3);
	nul = find_nul(p, len);
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].str.ptr = (const char *)p;
	d->out->v[idx].str.len = (uint32_t)(nul ? (uint64_t)(nul - p) : len);
	d->pos += len * 8;
	return 0;
}

/* Index of the element being (or last) decoded in array value i, or UINT32_MAX. */
static uint32_t last_elem(const struct ctf_values *vals, uint32_t i, uint32_t n)
{
	const struct ctf_value *v = vals->v;
	uint32_t end = v[i].nsub == NSUB_OPEN ? n : i + v[i].nsub + 1;
	uint32_t c = i + 1;

	if (c >= end)
		return UINT32_MAX;
	for (;;) {
		uint32_t next;

		if (v[c].nsub == NSUB_OPEN)
			return c;
		next = c + v[c].nsub + 1;
		if (next >= end)
			return c;
		c = next;
	}
}

/* The decoded integer a field path designates (ctf-ir.h, struct ctf_field_path). */
static int resolve(struct ctf_dec *d, const struct ctf_field_path *path,
		   const struct ctf_value **ret)
{
	const struct ctf_scope_root *root;
	const struct ctf_values *vals;
	uint32_t i, n;

	if (path->scope >= CTF_SCOPE_COUNT || !(d->roots & (1u << path->scope)))
		return fail(d, "field path refers to an absent scope");
	root = &d->root[path->scope];
	vals = root->vals;
	n = vals->n;
	i = root->idx;
	for (uint32_t s = 0; s <= path->len; s++) {
		const struct ctf_type *t;

		if (i >= n)
			return fail(d, "field path refers to a field not decoded yet");
		t = vals->v[i].type;
		while ((t->kind == CTF_TYPE_ARRAY && !t->array.is_text) ||
		       (t->kind == CTF_TYPE_SEQUENCE && !t->sequence.is_text)) {
			i = last_elem(vals, i, n);
			if (i == UINT32_MAX)
				return fail(d, "field path crosses an empty array");
			t = vals->v[i].type;
		}
		if (s == path->len)
			break;
		if (t->kind == CTF_TYPE_STRUCT) {
			uint32_t c = i + 1;

			for (uint32_t k = 0; k < path->index[s]; k++) {
				if (c >= n || vals->v[c].nsub == NSUB_OPEN)
					return fail(d,
						    "field path refers to a field not decoded yet");
				c += vals->v[c].nsub + 1;
			}
			i = c;
		} else if (t->kind == CTF_TYPE_VARIANT) {
			if (vals->v[i].option != path->index[s])
				return fail(d,
					    "field path goes through an unselected variant option");
			i = i + 1;
		} else {
			return fail(d, "invalid field path");
		}
	}
	if (vals->v[i].type->kind != CTF_TYPE_INT && vals->v[i].type->kind != CTF_TYPE_ENUM)
		return fail(d, "field path does not lead to an integer");
	*ret = &vals->v[i];
	return 0;
}

static int dec_node(struct ctf_dec *d, const struct dnode *dn, unsigned depth);

/* One value of a run (struct dn_flat) from its bytes at q. */
static inline __attribute__((always_inline)) void
flat_value(struct ctf_value *v, const struct dn_flat *f, const uint8_t *q)
{
	uint16_t x16;
	uint32_t x32;
	uint64_t x64;
	float fl;
	double db;

	v->type = f->type;
	v->nsub = 0;
	v->option = 0;
	switch (f->load) {
	case DL_U8:
		v->u = *q;
		break;
	case DL_S8:
		v->s = (int8_t)*q;
		break;
	case DL_U16:
		memcpy(&x16, q, 2);
		v->u = x16;
		break;
	case DL_S16:
		memcpy(&x16, q, 2);
		v->s = (int16_t)x16;
		break;
	case DL_U32:
		memcpy(&x32, q, 4);
		v->u = x32;
		break;
	case DL_S32:
		memcpy(&x32, q, 4);
		v->s = (int32_t)x32;
		break;
	case DL_U64:
		memcpy(&v->u, q, 8);
		break;
	case DL_F32:
		memcpy(&fl, q, 4);
		v->d = fl;
		break;
	case DL_F64:
		memcpy(&db, q, 8);
		v->d = db;
		break;
	case DL_SWAP + DL_U16:
		memcpy(&x16, q, 2);
		v->u = __builtin_bswap16(x16);
		break;
	case DL_SWAP + DL_S16:
		memcpy(&x16, q, 2);
		v->s = (int16_t)__builtin_bswap16(x16);
		break;
	case DL_SWAP + DL_U32:
		memcpy(&x32, q, 4);
		v->u = __builtin_bswap32(x32);
		break;
	case DL_SWAP + DL_S32:
		memcpy(&x32, q, 4);
		v->s = (int32_t)__builtin_bswap32(x32);
		break;
	case DL_SWAP + DL_U64:
		memcpy(&x64, q, 8);
		v->u = __builtin_bswap64(x64);
		break;
	case DL_SWAP + DL_F32:
		memcpy(&x32, q, 4);
		x32 = __builtin_bswap32(x32);
		memcpy(&fl, &x32, 4);
		v->d = fl;
		break;
	default: /* DL_SWAP + DL_F64 */
		memcpy(&x64, q, 8);
		x64 = __builtin_bswap64(x64);
		memcpy(&db, &x64, 8);
		v->d = db;
		break;
	}
}

/*
 * Decode the run of n members starting at flat[0] (struct dn_flat). Returns
 * false, having done nothing but align, when the run does not fit in the
 * packet or in the value array: the member-by-member path then reports the
 * error or grows the array exactly as it always did.
 */
static inline bool dec_run(struct ctf_dec *d, const struct dn_flat *flat, uint32_t n, uint32_t bits)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v;
	const uint8_t *p;

	if (unlikely(d->end - d->pos < bits) || unlikely(o->cap - o->n < n))
		return false;
	p = d->base + (d->pos >> 3);
	v = &o->v[o->n];
	for (uint32_t k = 0; k < n; k++, v++)
		flat_value(v, &flat[k], p + flat[k].off);
	o->n += n;
	d->pos += bits;
	return true;
}

/*
 * The same for the len elements of an array whose dn->flat is set, when the
 * first is already aligned (align <= size keeps the others aligned).
 */
static bool dec_flat_array(struct ctf_dec *d, const struct dn_flat *f, uint32_t align, uint64_t len)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v;
	const uint8_t *p;
	uint32_t stride = f->size / 8;

	/* len was checked against the content left, so len * size cannot wrap. */
	if (unlikely(d->pos & (align - 1)) || unlikely(d->end - d->pos < len * f->size) ||
	    unlikely(o->cap - o->n < len))
		return false;
	p = d->base + (d->pos >> 3);
	v = &o->v[o->n];
	for (uint64_t k = 0; k < len; k++, v++, p += stride)
		flat_value(v, f, p);
	o->n += (uint32_t)len;
	d->pos += len * f->size;
	return true;
}

static int dec_struct(struct ctf_dec *d, const struct dnode *dn, unsigned depth)
{
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = NSUB_OPEN;
	d->out->v[idx].count = dn->n_children;
	for (uint32_t i = 0; i < dn->n_children;) {
		const struct dnode *c = dn->children[i];
		uint32_t n = dn->runs[i].n;

		if (n) {
			if (unlikely(d->pos & (c->align - 1))) {
				r = align_to(d, c->align);
				if (r < 0)
					return r;
			}
			if (likely(dec_run(d, &dn->flat[i], n, dn->runs[i].bits))) {
				i += n;
				continue;
			}
			for (uint32_t e = i + n; i < e; i++) {
				c = dn->children[i];
				r = c->kind == DN_INT ? dec_int(d, c) : dec_node(d, c, depth + 1);
				if (unlikely(r < 0))
					return r;
			}
			continue;
		}
		r = c->kind == DN_INT ? dec_int(d, c) : dec_node(d, c, depth + 1);
		if (unlikely(r < 0))
			return r;
		i++;
	}
	d->out->v[idx].nsub = d->out->n - idx - 1;
	return 0;
}

/* The tag or length a variant or sequence refers to: static offset first. */
static inline int resolve_dn(struct ctf_dec *d, const struct dnode *dn,
			     const struct ctf_value **ret)
{
	if (dn->path_off != CTF_DEC_NO_OFF) {
		const struct ctf_scope_root *root = &d->root[dn->path->scope];

		/* Decoded: everything before it in pre-order is complete. */
		if ((d->roots & (1u << dn->path->scope)) &&
		    root->vals->n - root->idx > dn->path_off) {
			*ret = &root->vals->v[root->idx + dn->path_off];
			return 0;
		}
	}
	return resolve(d, dn->path, ret);
}

/* The option the tag selects, or UINT32_MAX. */
static inline uint32_t variant_pick(const struct dnode *dn, const struct ctf_value *tag)
{
	for (uint32_t i = 0; i < dn->n_ranges; i++) {
		const struct dn_range *rg = &dn->ranges[i];
		bool in = dn->ranges_signed ?
				  tag->s >= (int64_t)rg->lo && tag->s <= (int64_t)rg->hi :
				  tag->u >= rg->lo && tag->u <= rg->hi;

		if (in)
			return rg->option;
	}
	return UINT32_MAX;
}

/* Push the variant's value with the option its tag selects. */
static inline int variant_open(struct ctf_dec *d, const struct dnode *dn, uint32_t *ret_idx,
			       uint32_t *ret_opt)
{
	const struct ctf_value *tag;
	uint32_t idx, opt = UINT32_MAX;
	int r = resolve_dn(d, dn, &tag);

	if (r < 0)
		return r;
	opt = variant_pick(dn, tag);
	if (opt == UINT32_MAX)
		return fail(d, "variant tag value selects no option");
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = NSUB_OPEN;
	d->out->v[idx].option = opt;
	*ret_idx = idx;
	*ret_opt = opt;
	return 0;
}

static int dec_variant(struct ctf_dec *d, const struct dnode *dn, unsigned depth)
{
	uint32_t idx, opt;
	int r = variant_open(d, dn, &idx, &opt);

	if (r < 0)
		return r;
	r = dec_node(d, dn->children[opt], depth + 1);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = d->out->n - idx - 1;
	return 0;
}

/* The length a decoded integer lv gives a sequence: 0, or a negative one's error. */
static inline int length_of(struct ctf_dec *d, const struct ctf_value *lv, bool is_signed,
			    uint64_t *ret)
{
	if (is_signed && lv->s < 0)
		return fail(d, "negative sequence length");
	*ret = lv->u;
	return 0;
}

static int seq_length(struct ctf_dec *d, const struct dnode *dn, uint64_t *ret)
{
	const struct ctf_value *lv;
	const struct ctf_type *lt;
	int r = resolve_dn(d, dn, &lv);

	if (r < 0)
		return r;
	lt = lv->type->kind == CTF_TYPE_ENUM ? lv->type->enumeration.container : lv->type;
	return length_of(d, lv, lt->integer.is_signed, ret);
}

static int dec_array(struct ctf_dec *d, const struct dnode *dn, uint64_t len, unsigned depth)
{
	const struct dnode *elem = dn->children[0];
	uint32_t idx;
	int r = align_to(d, dn->align);

	if (r < 0)
		return r;
	/* Every element takes at least one value slot: bounded by the value limit. */
	if (len > CTF_DEC_MAX_VALUES)
		return fail(d, "array or sequence too long");
	if (elem->min_bits && len > (d->end - d->pos) / elem->min_bits)
		return fail(d, "array or sequence goes past the end of the packet content");
	r = vpush(d, dn->type, &idx);
	if (r < 0)
		return r;
	d->out->v[idx].nsub = NSUB_OPEN;
	d->out->v[idx].count = len;
	if (dn->flat && likely(dec_flat_array(d, dn->flat, elem->align, len))) {
		d->out->v[idx].nsub = d->out->n - idx - 1;
		return 0;
	}
	for (uint64_t i = 0; i < len; i++) {
		r = elem->kind == DN_INT ? dec_int(d, elem) : dec_node(d, elem, depth + 1);
		if (unlikely(r < 0))
			return r;
	}
	d->out->v[idx].nsub = d->out->n - idx - 1;
	return 0;
}

static int dec_node(struct ctf_dec *d, const struct dnode *dn, unsigned depth)
{
	uint64_t len;
	int r;

	if (unlikely(depth > CTF_DEC_MAX_DEPTH))
		return fail(d, "fields nested too deeply");
	switch (dn->kind) {
	case DN_INT:
		return dec_int(d, dn);
	case DN_FLOAT:
		return dec_float(d, dn);
	case DN_STRING:
		return dec_string(d, dn);
	case DN_STRUCT:
		return dec_struct(d, dn, depth);
	case DN_VARIANT:
		return dec_variant(d, dn, depth);
	case DN_ARRAY:
		return dec_array(d, dn, dn->length, depth);
	case DN_TEXT_ARRAY:
		return dec_text(d, dn, dn->length);
	case DN_SEQUENCE:
	case DN_TEXT_SEQUENCE:
		r = seq_length(d, dn, &len);
		if (r < 0)
			return r;
		if (dn->kind == DN_TEXT_SEQUENCE)
			return dec_text(d, dn, len);
		return dec_array(d, dn, len, depth);
	default:
		return fail(d, "unknown field kind");
	}
}

/* Run a decode program (struct dprog): the tree walk's values and errors. */
static int exec_prog(struct ctf_dec *d, const struct dprog *pg)
{
	uint32_t open[CTF_DEC_PROG_NEST + 1], n_open = 0, idx, opt;
	int r;

	for (const struct dp_insn *in = pg->insn, *e = in + pg->n; in < e; in++) {
		const struct dnode *dn = in->dn;

		switch (in->op) {
		case DP_BEGIN:
			r = align_to(d, dn->align);
			if (likely(r == 0))
				r = vpush(d, dn->type, &idx);
			if (unlikely(r < 0))
				return r;
			d->out->v[idx].nsub = NSUB_OPEN;
			d->out->v[idx].count = dn->n_children;
			open[n_open++] = idx;
			break;
		case DP_END:
			idx = open[--n_open];
			d->out->v[idx].nsub = d->out->n - idx - 1;
			break;
		case DP_RUN:
			if (unlikely(d->pos & (dn->align - 1))) {
				r = align_to(d, dn->align);
				if (r < 0)
					return r;
			}
			if (likely(dec_run(d, in->flat, in->n, in->bits)))
				break;
			for (uint32_t i = 0; i < in->n; i++) {
				const struct dnode *c = in->members[i];

				r = c->kind == DN_INT ? dec_int(d, c) : dec_node(d, c, in->depth);
				if (unlikely(r < 0))
					return r;
			}
			break;
		case DP_INT:
			r = dec_int(d, dn);
			if (unlikely(r < 0))
				return r;
			break;
		case DP_STRING:
			r = dec_string(d, dn);
			if (unlikely(r < 0))
				return r;
			break;
		case DP_TEXT_ARRAY:
			r = dec_text(d, dn, dn->length);
			if (unlikely(r < 0))
				return r;
			break;
		case DP_ARRAY:
			r = dec_array(d, dn, dn->length, in->depth);
			if (unlikely(r < 0))
				return r;
			break;
		case DP_SEQUENCE: {
			/* As seq_length(): the length is decoded, being before. */
			uint64_t len;

			r = length_of(d, &d->out->v[d->out->n - in->n], in->len_signed, &len);
			if (likely(r == 0))
				r = dn->kind == DN_TEXT_SEQUENCE ? dec_text(d, dn, len) :
								   dec_array(d, dn, len, in->depth);
			if (unlikely(r < 0))
				return r;
			break;
		}
		case DP_VARIANT:
			r = variant_open(d, dn, &idx, &opt);
			if (unlikely(r < 0))
				return r;
			open[n_open++] = idx;
			in = pg->insn + in->targets[opt] - 1;
			break;
		case DP_JUMP:
			in = pg->insn + in->n - 1;
			break;
		default:
			r = dec_node(d, dn, in->depth);
			if (unlikely(r < 0))
				return r;
			break;
		}
	}
	return 0;
}

/*
 * The value of a run member (struct dn_flat) at q, when the 8 bytes at q
 * may be read and the load is not F32: a swap or shift, then a shift.
 */
static inline __attribute__((always_inline)) uint64_t flat_bits(const struct dn_flat *f,
								const uint8_t *q)
{
	uint64_t x;

	memcpy(&x, q, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	x >>= f->shift; /* the value's bytes come first */
	x <<= f->shift;
#else
	/* The other byte order: its first byte, the most significant, on top. */
	x = f->load >= DL_SWAP ? __builtin_bswap64(x) : x << f->shift;
#endif
	return f->sx ? (uint64_t)((int64_t)x >> f->shift) : x >> f->shift;
}

/*
 * The n members of a plain run (struct ds_op.plain) at p into w[0..n), their
 * 8 bytes readable: swapped, all in the other byte order than the host's.
 * Inline with swapped constant, so that neither loop tests it.
 */
static inline __attribute__((always_inline)) void
plain_run(struct ctf_value *w, const struct dn_flat *f, uint32_t n, const uint8_t *p, bool swapped)
{
	for (uint32_t k = 0; k < n; k++) {
		uint64_t x;

		memcpy(&x, p + f[k].off, 8);
		if (swapped)
			x = __builtin_bswap64(x) >> f[k].shift;
		w[k].u = ((x & f[k].mask) ^ f[k].sign) - f[k].sign;
	}
}

/* n elements like f from p into v[0..n), one load kind for all. */
static void fill_array(struct ctf_value *v, const struct dn_flat *f, const uint8_t *p, uint32_t n)
{
	uint32_t stride = f->size / 8, k;

	switch (f->load) {
	case DL_U8:
		for (k = 0; k < n; k++)
			v[k].u = p[k];
		break;
	case DL_S8:
		for (k = 0; k < n; k++)
			v[k].s = (int8_t)p[k];
		break;
	/* One loop per load: a fixed-size load each, no shift nor test per element. */
	case DL_U16:
		for (k = 0; k < n; k++, p += 2) {
			uint16_t x;

			memcpy(&x, p, 2);
			v[k].u = x;
		}
		break;
	case DL_S16:
		for (k = 0; k < n; k++, p += 2) {
			int16_t x;

			memcpy(&x, p, 2);
			v[k].s = x;
		}
		break;
	case DL_U32:
		for (k = 0; k < n; k++, p += 4) {
			uint32_t x;

			memcpy(&x, p, 4);
			v[k].u = x;
		}
		break;
	case DL_S32:
		for (k = 0; k < n; k++, p += 4) {
			int32_t x;

			memcpy(&x, p, 4);
			v[k].s = x;
		}
		break;
	case DL_U64:
	case DL_F64: /* the same bits */
		for (k = 0; k < n; k++, p += 8)
			memcpy(&v[k].u, p, 8);
		break;
	default:
		/* flat_value() also writes what the template holds: the same. */
		for (k = 0; k < n; k++, p += stride)
			flat_value(&v[k], f, p);
		break;
	}
}

/* One integer or float of any layout (DS_LEAF) into v; false if it does not fit. */
static inline __attribute__((always_inline)) bool
shape_leaf(struct ctf_dec *d, const struct dnode *dn, struct ctf_value *v)
{
	uint64_t raw;

	if (d->end - d->pos < dn->size)
		return false;
	raw = read_raw(d, dn);
	if (dn->kind == DN_FLOAT) {
		if (dn->size == 32) {
			uint32_t x = (uint32_t)raw;
			float f;

			memcpy(&f, &x, sizeof(f));
			v->d = f;
		} else {
			memcpy(&v->d, &raw, sizeof(v->d));
		}
	} else {
		v->u = dn->is_signed && dn->size < 64 ? sign_extend(raw, dn->size) : raw;
	}
	/* Applying a note twice (after a redo) changes nothing. */
	if (unlikely(dn->notes))
		note_int(d, dn, raw);
	return true;
}

static bool shape_seq(struct ctf_dec *d, const struct ds_op *op, const struct ctf_value *tmpl,
		      uint32_t n_vals, uint32_t *extra);

/*
 * Run a shape's ops, filling v[]: false when one does not fit. With
 * sequences (SEQ, TSEQ ops), v is d->out's end, the shape's template is
 * tmpl (n_vals values) and *extra receives how many values the sequences
 * added.
 */
static inline __attribute__((always_inline)) bool
run_ops(struct ctf_dec *d, struct ctf_value *v, const struct ds_op *op, const struct ds_op *e,
	const struct ctf_value *tmpl, uint32_t n_vals, uint32_t *extra)
{
	/*
	 * The position in a local: stores to values may alias *d, which would
	 * make the compiler reload and store it for every op. Failing leaves
	 * d->pos to the caller, which puts it back.
	 */
	const uint8_t *const base = d->base, *p, *nul;
	const uint64_t end = d->end;
	uint64_t pos = d->pos, avail;

	for (; op < e; op++) {
		if (unlikely(pos & (op->align - 1))) {
			uint64_t a = (pos + op->align - 1) & ~((uint64_t)op->align - 1);

			if (a > end)
				return false;
			pos = a;
		}
		switch (op->op) {
		case DS_ALIGN:
			break;
		case DS_RUN:
			if (unlikely(end - pos < op->bits))
				return false;
			p = base + (pos >> 3);
			if (unlikely((end - pos - op->bits) / 8 < op->over)) {
				/* flat_value() writes what the template holds too. */
				for (uint32_t k = 0; k < op->n; k++)
					flat_value(&v[op->vidx + k], &op->flat[k],
						   p + op->flat[k].off);
			} else if (op->plain == DS_PLAIN_NATIVE) {
				plain_run(&v[op->vidx], op->flat, op->n, p, false);
			} else if (op->plain == DS_PLAIN_SWAPPED) {
				plain_run(&v[op->vidx], op->flat, op->n, p, true);
			} else {
				for (uint32_t k = 0; k < op->n; k++)
					v[op->vidx + k].u =
						flat_bits(&op->flat[k], p + op->flat[k].off);
			}
			pos += op->bits;
			break;
		case DS_ARRAY:
			/* n * size cannot wrap: n and size are 32-bit and 8-bit. */
			if (unlikely(end - pos < (uint64_t)op->n * op->flat->size))
				return false;
			fill_array(&v[op->vidx], op->flat, base + (pos >> 3), op->n);
			pos += (uint64_t)op->n * op->flat->size;
			break;
		case DS_STRING:
			p = base + (pos >> 3);
			avail = (end - pos) >> 3;
			nul = find_nul(p, avail);
			if (unlikely(!nul) || unlikely((uint64_t)(nul - p) > UINT32_MAX))
				return false;
			v[op->vidx].str.ptr = (const char *)p;
			v[op->vidx].str.len = (uint32_t)(nul - p);
			pos += (uint64_t)(nul - p + 1) * 8;
			break;
		case DS_TEXT:
			if (unlikely(op->n > (end - pos) / 8))
				return false;
			p = base + (pos >> 3);
			nul = find_nul(p, op->n);
			v[op->vidx].str.ptr = (const char *)p;
			v[op->vidx].str.len = nul ? (uint32_t)(nul - p) : op->n;
			pos += (uint64_t)op->n * 8;
			break;
		case DS_LEAF:
			d->pos = pos;
			if (unlikely(!shape_leaf(d, op->dn, &v[op->vidx])))
				return false;
			pos = d->pos;
			break;
		case DS_SEQ:
		case DS_TSEQ:
			d->pos = pos;
			if (unlikely(!shape_seq(d, op, tmpl, n_vals, extra)))
				return false;
			pos = d->pos;
			/* The values may have moved, and those after it did. */
			v = d->out->v + d->out->n + *extra;
			break;
		default:
			__builtin_unreachable();
		}
	}
	d->pos = pos;
	return true;
}

/* A template into place: most are a few values, not worth a libc call. */
static inline void copy_values(struct ctf_value *dst, const struct ctf_value *src, uint32_t n)
{
	if (n > 16) {
		memcpy(dst, src, (size_t)n * sizeof(*dst));
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		dst[i] = src[i];
}

/* Room for n more values after the first `used` past o->n. */
static inline bool shape_room(struct ctf_dec *d, uint32_t used, uint32_t n)
{
	struct ctf_values *o = d->out;

	while (unlikely(o->cap - o->n - used < n))
		if (grow(d) < 0)
			return false;
	return true;
}

/*
 * A SEQ or TSEQ op ("Sequences" in decode.h), the values so far shifted
 * by *extra: its elements or text, its segment of the template, and the
 * shift grown by its element count. false when it does not fit.
 */
static bool shape_seq(struct ctf_dec *d, const struct ds_op *op, const struct ctf_value *tmpl,
		      uint32_t n_vals, uint32_t *extra)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v = o->v + o->n, *vs = v + *extra;
	const struct dn_flat *f = op->flat;
	const uint8_t *p = d->base + (d->pos >> 3), *nul;
	uint64_t len;

	/*
	 * A negative signed length (length_of()'s error) is sign-extended:
	 * past any content left, it fails the checks below and the program
	 * reports it.
	 */
	len = vs[op->vidx - op->n].u;
	if (op->op == DS_TSEQ) {
		/* dec_text()'s. */
		if (len > (d->end - d->pos) / 8 || len > UINT32_MAX)
			return false;
		nul = find_nul(p, len);
		vs[op->vidx].str.ptr = (const char *)p;
		vs[op->vidx].str.len = nul ? (uint32_t)(nul - p) : (uint32_t)len;
		d->pos += len * 8;
		len = 0; /* no element values */
	} else {
		/* dec_array()'s and dec_flat_array()'s, the value limit included. */
		if (len > (d->end - d->pos) / f->size ||
		    (uint64_t)o->n + n_vals + *extra + len > CTF_DEC_MAX_VALUES ||
		    (len && (d->pos & (op->elem_align - 1))) ||
		    !shape_room(d, 0, n_vals + *extra + (uint32_t)len))
			return false;
		v = o->v + o->n; /* grown: moved */
		vs = v + *extra;
		vs[op->vidx].count = len;
		vs[op->vidx].nsub = (uint32_t)len;
		v[op->root].nsub += (uint32_t)len;
		for (uint32_t k = 1; k <= len; k++) {
			vs[op->vidx + k].type = f->type;
			vs[op->vidx + k].nsub = 0;
			vs[op->vidx + k].option = 0;
		}
		fill_array(&vs[op->vidx + 1], f, p, (uint32_t)len);
		d->pos += len * f->size;
	}
	copy_values(vs + len + op->vidx + 1, tmpl + op->vidx + 1, op->seg_end - op->vidx - 1);
	*extra += (uint32_t)len;
	return true;
}

/* A head leaf's bits from p, the scope's beginning (see struct dhead). */
static inline __attribute__((always_inline)) uint64_t head_bits(const uint8_t *p,
								const struct dh_leaf *l)
{
	uint64_t x;

	memcpy(&x, p + l->byte, 8);
	if (l->swap)
		x = __builtin_bswap64(x);
	return (x >> l->shift) & l->mask;
}

/*
 * The option of a head (struct dhead) the tag at the current position
 * picks, its bytes all readable from *ret_p (the aligned scope's
 * beginning, *ret_at in bits), or NULL when the head cannot take it.
 */
static inline __attribute__((always_inline)) const struct dh_opt *
head_option(const struct ctf_dec *d, const struct dhead *h, uint64_t *ret_at, const uint8_t **ret_p)
{
	const uint64_t at = (d->pos + h->align - 1) & ~((uint64_t)h->align - 1);
	const struct dh_opt *opt;
	const uint8_t *p;
	struct ctf_value tag;
	uint64_t avail;
	uint32_t k;

	if (unlikely(at > d->end))
		return NULL;
	p = d->base + (at >> 3);
	avail = (d->end - at) >> 3;
	if (unlikely(avail < h->tag_bytes))
		return NULL;
	tag.u = head_bits(p, &h->tag);
	if (h->tag.sx)
		tag.u = sign_extend(tag.u, h->tag.size);
	k = variant_pick(h->var, &tag);
	if (unlikely(k == UINT32_MAX))
		return NULL;
	opt = &h->opts[k];
	if (unlikely(avail < opt->bytes) || unlikely(d->end - at < opt->bits))
		return NULL;
	*ret_at = at;
	*ret_p = p;
	return opt;
}

/*
 * An option's values, from the scope's bytes at p, appended to d->out (the
 * room made), the clock moved and, if notes, the meanings noted; the
 * position after the scope, which begins at bit at.
 */
static inline __attribute__((always_inline)) void
head_fill(struct ctf_dec *d, const struct dh_opt *opt, const uint8_t *p, uint64_t at, bool notes)
{
	struct ctf_values *o = d->out;
	struct ctf_value *v = o->v + o->n;

	copy_values(v, opt->tmpl, opt->n_vals);
	for (uint32_t i = 0; i < opt->n_leaves; i++) {
		const struct dh_leaf *l = &opt->leaves[i];
		uint64_t raw = head_bits(p, l);

		v[l->vidx].u = l->sx ? sign_extend(raw, l->size) : raw;
		/* note_int()'s, with what it tests known. */
		if (notes && l->meaning)
			note_meaning(d, l->meaning, raw);
		if (l->clock && d->clock)
			clock_advance(d, raw, l->mask);
	}
	d->pos = at + opt->bits;
	o->n += opt->n_vals;
}

/* Decode a scope with its head (struct dhead): 0, or 1 for the shape to do it. */
static inline __attribute__((always_inline)) int exec_head(struct ctf_dec *d, const struct dhead *h)
{
	const struct dh_opt *opt;
	const uint8_t *p;
	uint64_t at;

	opt = head_option(d, h, &at, &p);
	if (!opt || !shape_room(d, 0, opt->n_vals))
		return 1;
	head_fill(d, opt, p, at, true);
	return 0;
}

/*
 * Decode a scope with its shape (struct dshape): 0, or 1 when the program
 * must decode it instead (nothing kept: position and values as before).
 */
static inline __attribute__((always_inline)) int exec_shape_inline(struct ctf_dec *d,
								   const struct dshape *sh)
{
	struct ctf_values *o = d->out;
	const uint64_t pos0 = d->pos;
	const struct ds_variant *var = sh->var;
	const struct dshape *sub;
	struct ctf_value *v;
	uint32_t opt, n = sh->n_vals, extra = 0;

	if (!shape_room(d, 0, n))
		goto redo;
	v = o->v + o->n;
	copy_values(v, sh->tmpl, sh->n_first);
	if (unlikely(!run_ops(d, v, sh->ops, sh->ops + sh->n_ops, sh->tmpl, n, &extra)))
		goto redo;
	if (var) {
		opt = variant_pick(var->dn, &v[var->tag]);
		if (unlikely(opt == UINT32_MAX))
			goto redo;
		sub = var->subs[opt];
		if (!shape_room(d, n, sub->n_vals))
			goto redo;
		v = o->v + o->n; /* grown: moved */
		copy_values(v + n, sub->tmpl, sub->n_vals);
		v[var->vidx].option = opt;
		v[var->vidx].nsub = sub->n_vals;
		v[0].nsub += sub->n_vals;
		/* Option shapes have no sequence: no extra values. */
		if (unlikely(!run_ops(d, v + n, sub->ops, sub->ops + sub->n_ops, sub->tmpl,
				      sub->n_vals, &extra)))
			goto redo;
		n += sub->n_vals;
	}
	o->n += n + extra;
	return 0;
redo:
	d->pos = pos0;
	return 1;
}

/* Out of line for the scope by scope paths; ctf_dec_event() has its own copy. */
static int exec_shape(struct ctf_dec *d, const struct dshape *sh)
{
	return exec_shape_inline(d, sh);
}

int ctf_dec_event(struct ctf_dec *d, const struct ctf_sc_dec *scd, struct ctf_dec_event *ret)
{
	const uint32_t n0 = d->out->n;
	const struct ctf_ec_dec *ecd;
	const struct dh_opt *opt;
	const uint8_t *p;
	uint64_t at, id;

	/* The event class first: nothing is written for an unknown one. */
	opt = head_option(d, scd->head, &at, &p);
	if (unlikely(!opt))
		return 1;
	id = opt->id_leaf != UINT32_MAX ? head_bits(p, &opt->leaves[opt->id_leaf]) :
					  scd->default_id;
	ecd = ctf_sc_dec_ec(scd, id);
	if (unlikely(!ecd) || !shape_room(d, 0, opt->n_vals))
		return 1; /* decoded scope by scope, which reports an unknown class */
	/* No meaning noted: the event id is known, and nothing else reads them. */
	head_fill(d, opt, p, at, false);
	ret->ecd = ecd;
	ret->hdr_idx = n0;
	ret->cycles = d->clock ? *d->clock : 0;
	if (!ecd->body || exec_shape_inline(d, ecd->body) != 0)
		return 2;
	ret->body_idx = n0 + opt->n_vals;
	return 0;
}

int ctf_dec_shape(struct ctf_dec *dec, const struct dshape *sh)
{
	return exec_shape(dec, sh);
}

int ctf_dec_root(struct ctf_dec *dec, enum ctf_scope scope, const struct dnode *root,
		 uint32_t *ret_idx)
{
	*ret_idx = dec->out->n;
	dec->root[scope].vals = dec->out;
	dec->root[scope].idx = dec->out->n;
	dec->roots |= 1u << scope;
	if (root->shape) {
		if (root->shape->head && likely(exec_head(dec, root->shape->head) == 0))
			return 0;
		if (likely(exec_shape(dec, root->shape) == 0))
			return 0;
	}
	if (root->prog)
		return exec_prog(dec, root->prog);
	return dec_node(dec, root, 0);
}
