/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2 2.0.4 sink.text.pretty, byte for byte (ctf.md PART 3).
 *
 * One event becomes one line built in a reusable buffer and handed to
 * stdio with a single fwrite, as babeltrace2 does; discarded-item warnings
 * go to the error stream the same way. The order of the pieces and every
 * separator follow babeltrace2's print.c, including its 2.0.4 quirks
 * (glued `-f trace` name, ", , " with names, variant option names never
 * printed).
 *
 * Per-type facts that babeltrace2 gets from its trace IR (is a struct
 * member printed at all, in which order an enum's labels come out) are
 * computed once per type and kept in a small pointer-keyed table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/decode.h"
#include "ctf/pretty-internal.h"
#include "ctf/reader-internal.h"
#include "ctf/writer.h"
#include "common/common.h"

/* babeltrace2 2.0.4's codes: "bright" colors are bold + the normal color. */
#define COLOR_RST "\033[0m"
#define COLOR_BOLD "\033[1m"
#define COLOR_FIELD_NAME "\033[36m"
#define COLOR_EVENT_NAME "\033[1m\033[1m\033[35m"
#define COLOR_TIMESTAMP "\033[1m\033[1m\033[33m"
#define COLOR_UNKNOWN "\033[1m\033[1m\033[31m"
#define COLOR_YELLOW "\033[33m"

#define NSEC_PER_SEC 1000000000ULL

/* Separator, name and " = " of a member, when the name is short enough. */
#define MEMBER_PRE 40

/* Most bytes a struct's fast path writes for one member (simple_int(): 21). */
#define MEMBER_MAX (MEMBER_PRE + 24)

/*
 * Structs up to this bound reserve once for all their simple members; it
 * stays below the scratch area of an out-of-memory buffer (4096 bytes).
 */
#define STRUCT_BOUND_MAX 3072

/* A struct member as the printer needs it. */
struct member_info {
	const char *name;
	uint32_t name_len;
	bool visible;
	uint8_t sep_len; /* 1: " " before the first visible member, else 2: ", " */
	uint8_t pre_len; /* separator + name + " = " in pre[]; 0 when too long */
	char pre[MEMBER_PRE];
};

/*
 * bound: the most bytes the members written in place (numbers, names,
 * separators) take, or 0 when above STRUCT_BOUND_MAX (every member then
 * takes the general path).
 */
struct struct_info {
	uint32_t bound;
	struct member_info m[];
};

/*
 * What babeltrace2's trace IR knows about a type, computed on first use;
 * also, keyed by event class, the event's header text after the timestamp.
 */
struct type_info {
	const void *key;
	bool visible; /* part of babeltrace2's IR: printed */
	/* enums: canon[i] = index of the first mapping with mapping i's label */
	uint32_t *canon;
	/* structs: one entry per member, NULL until first printed */
	struct struct_info *members;
	/* event classes: cached header, valid for this trace and clock presence */
	const struct ctf_trace *hdr_trace;
	bool hdr_has_clock;
	/* event classes: per scope, whether its root type is known / visible */
	uint8_t scope_known, scope_visible;
	uint32_t hdr_len;
	char *hdr;
	/* context scope roots: the last instances printed */
	struct scope_cache *cache;
};

/*
 * Context scopes (cpu_id; vpid, vtid, procname) mostly repeat from one
 * event of a stream to the next: a root type keeps its last instances
 * and their text, which is reused when the values and strings are the
 * same (the text is a function of them and of the options alone). Two
 * instances, because events of two streams (CPUs) often alternate. Only
 * small scopes are kept, so that comparing stays cheaper than formatting.
 */
#define CACHE_VALS 16 /* at most 32: scope_instance.text_mask */
#define CACHE_STRS 128
#define CACHE_TEXT 256
#define CACHE_WAYS 2

struct scope_instance {
	bool valid;
	uint32_t n;
	uint32_t text_len;
	uint32_t text_mask; /* bit i: vals[i] is text */
	/* Every instance of the root type has the same value tree: its types follow from it. */
	bool fixed;
	/*
	 * fixed: the indices of the numbers and of the texts; structs and
	 * static arrays count the same members in every instance.
	 */
	uint8_t n_nums, n_texts;
	uint8_t nums[CACHE_VALS], texts[CACHE_VALS];
	struct ctf_value vals[CACHE_VALS]; /* text values: str.ptr unused */
	char strs[CACHE_STRS]; /* the bytes of the text values, in order */
	char text[CACHE_TEXT];
};

struct scope_cache {
	struct scope_instance way[CACHE_WAYS];
	unsigned next; /* the way a miss replaces: the older one */
};

/* Lines are handed to stdio in chunks of about this size. */
#define BATCH_SIZE (64 * 1024)

/* Cached environment of the trace of the previous event. */
struct trace_info {
	const struct ctf_trace *trace;
	const char *hostname, *domain, *procname;
	bool has_vpid;
	int64_t vpid;
};

struct strata_ctf_pretty {
	FILE *out, *err;
	bool color, color_warnings;
	bool delta, cycles;
	bool names_payload, names_context, names_scope, names_header;
	bool f_trace, f_hostname, f_domain, f_procname, f_vpid, f_loglevel, f_emf;

	struct ctf_pbuf line; /* pending event lines */
	struct ctf_pbuf warn; /* one discarded-item warning */
	struct ctf_pretty_clock clock;

	struct ctf_pretty_times times;

	struct type_info *types; /* open addressing, power-of-two size */
	size_t n_types, cap_types;
	uint32_t *matches; /* scratch for enum label indices */
	size_t cap_matches;
	struct trace_info tinfo;
	bool start_line;
};

static const char *const loglevel_names[] = {
	"TRACE_EMERG",		"TRACE_ALERT",	       "TRACE_CRIT",	     "TRACE_ERR",
	"TRACE_WARNING",	"TRACE_NOTICE",	       "TRACE_INFO",	     "TRACE_DEBUG_SYSTEM",
	"TRACE_DEBUG_PROGRAM",	"TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE", "TRACE_DEBUG_UNIT",
	"TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",    "TRACE_DEBUG",
};

static bool resolve(bool dflt, bool is_set, bool value)
{
	return is_set ? value : dflt;
}

struct strata_ctf_pretty *strata_ctf_pretty_create(const struct strata_ctf_pretty_options *opts,
						   FILE *out, FILE *err)
{
	struct strata_ctf_pretty *p;
	bool np, nc, nh, ns;
	bool ft, fh, fd, fp, fv, fl, fe;

	if (!opts || !out) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->out = out;
	p->err = err;
	p->color = opts->color;
	p->color_warnings = opts->color_warnings;
	p->delta = !opts->no_delta;
	p->cycles = opts->clock_cycles;

	/* babeltrace2's pretty.c apply_params(): defaults, then explicit values. */
	switch (opts->name_default) {
	case STRATA_CTF_SHOW:
		np = nc = nh = ns = true;
		break;
	case STRATA_CTF_HIDE:
		np = nc = nh = ns = false;
		break;
	default:
		np = nc = true;
		nh = ns = false;
		break;
	}
	p->names_payload = resolve(np, opts->name_payload_set, opts->name_payload);
	p->names_context = resolve(nc, opts->name_context_set, opts->name_context);
	p->names_scope = resolve(ns, opts->name_scope_set, opts->name_scope);
	p->names_header = resolve(nh, opts->name_header_set, opts->name_header);

	switch (opts->field_default) {
	case STRATA_CTF_SHOW:
		ft = fh = fd = fp = fv = fl = fe = true;
		break;
	case STRATA_CTF_HIDE:
		ft = fh = fd = fp = fv = fl = fe = false;
		break;
	default:
		ft = fd = fl = fe = false;
		fh = fp = fv = true;
		break;
	}
	p->f_trace = resolve(ft, opts->field_trace_set, opts->field_trace);
	p->f_hostname = resolve(fh, opts->field_hostname_set, opts->field_hostname);
	p->f_domain = resolve(fd, opts->field_domain_set, opts->field_domain);
	p->f_procname = resolve(fp, opts->field_procname_set, opts->field_procname);
	p->f_vpid = resolve(fv, opts->field_vpid_set, opts->field_vpid);
	p->f_loglevel = resolve(fl, opts->field_loglevel_set, opts->field_loglevel);
	p->f_emf = resolve(fe, opts->field_emf_set, opts->field_emf);
	/* field-callsite is accepted and has no effect in babeltrace2 2.0.4. */

	ctf_pretty_clock_init(&p->clock, opts->clock_gmt, opts->clock_date, opts->clock_seconds,
			      err);
	ctf_pretty_times_init(&p->times);
	return p;
}

void strata_ctf_pretty_destroy(struct strata_ctf_pretty *p)
{
	if (!p)
		return;
	if (p->out) /* clones never write */
		strata_ctf_pretty_flush(p);
	for (size_t i = 0; i < p->cap_types; i++) {
		free(p->types[i].canon);
		free(p->types[i].members);
		free(p->types[i].hdr);
		free(p->types[i].cache);
	}
	free(p->types);
	free(p->matches);
	ctf_pbuf_release(&p->line);
	ctf_pbuf_release(&p->warn);
	free(p);
}

/* --- per-type facts ------------------------------------------------------ */

static size_t ptr_hash(const void *key, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);

	return (size_t)(h >> 32) & mask;
}

/* The slot for key, created (zeroed, key set) when absent; NULL on ENOMEM. */
static struct type_info *type_slot(struct strata_ctf_pretty *p, const void *key, bool *created)
{
	size_t mask, i;

	*created = false;
	if (p->cap_types) {
		mask = p->cap_types - 1;
		for (i = ptr_hash(key, mask);; i = (i + 1) & mask) {
			if (p->types[i].key == key)
				return &p->types[i];
			if (!p->types[i].key)
				break;
		}
	}
	if ((p->n_types + 1) * 2 > p->cap_types) {
		size_t ncap = p->cap_types ? p->cap_types * 2 : 64;
		struct type_info *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t j = 0; j < p->cap_types; j++) {
			if (!p->types[j].key)
				continue;
			for (i = ptr_hash(p->types[j].key, ncap - 1); nt[i].key;
			     i = (i + 1) & (ncap - 1))
				;
			nt[i] = p->types[j];
		}
		free(p->types);
		p->types = nt;
		p->cap_types = ncap;
	}
	mask = p->cap_types - 1;
	for (i = ptr_hash(key, mask); p->types[i].key; i = (i + 1) & mask)
		;
	p->types[i].key = key;
	p->n_types++;
	*created = true;
	return &p->types[i];
}

static bool type_visible(struct strata_ctf_pretty *p, const struct ctf_type *t);

static bool field_visible(struct strata_ctf_pretty *p, const struct ctf_field *f)
{
	return !f->hidden && type_visible(p, f->type);
}

static bool compute_visible(struct strata_ctf_pretty *p, const struct ctf_type *t)
{
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		/* An originally empty struct stays; one whose members all vanished goes. */
		if (t->structure.n_fields == 0)
			return true;
		for (size_t i = 0; i < t->structure.n_fields; i++)
			if (field_visible(p, &t->structure.fields[i]))
				return true;
		return false;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			if (field_visible(p, &t->variant.options[i]))
				return true;
		return false;
	case CTF_TYPE_ARRAY:
		return t->array.is_text || type_visible(p, t->array.elem);
	case CTF_TYPE_SEQUENCE:
		return t->sequence.is_text || type_visible(p, t->sequence.elem);
	default:
		return true;
	}
}

/* Whether babeltrace2 keeps a field of this type (ctf-meta-update-in-ir.c). */
static bool type_visible(struct strata_ctf_pretty *p, const struct ctf_type *t)
{
	struct type_info *ti;
	bool created, v;

	switch (t->kind) {
	case CTF_TYPE_STRUCT:
	case CTF_TYPE_VARIANT:
	case CTF_TYPE_ARRAY:
	case CTF_TYPE_SEQUENCE:
		break;
	default:
		return true;
	}
	ti = type_slot(p, t, &created);
	if (ti && !created)
		return ti->visible;
	v = compute_visible(p, t);
	/* The recursion may have grown the table: look the slot up again. */
	ti = type_slot(p, t, &created);
	if (ti)
		ti->visible = v;
	return v;
}

/*
 * babeltrace2 merges the ranges of mappings that share a label into one
 * mapping placed at the label's first declaration; canon[] maps each
 * declared range to that position.
 */
static const uint32_t *enum_canon(struct strata_ctf_pretty *p, const struct ctf_type *t)
{
	size_t n = t->enumeration.n_mappings;
	struct type_info *ti;
	bool created;
	uint32_t *canon;

	ti = type_slot(p, t, &created);
	if (!ti)
		return NULL;
	if (!created && ti->canon)
		return ti->canon;
	ti->visible = true;
	canon = malloc(MAX(n, (size_t)1) * sizeof(*canon));
	if (!canon)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *label = t->enumeration.mappings[i].label;

		canon[i] = (uint32_t)i;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(t->enumeration.mappings[j].label, label) == 0) {
				canon[i] = (uint32_t)j;
				break;
			}
		}
	}
	ti->canon = canon;
	return canon;
}

/* --- values ---------------------------------------------------------------- */

static void print_value(struct strata_ctf_pretty *p, const struct ctf_value *v, bool names);

static void color_on(struct strata_ctf_pretty *p, const char *code, size_t len)
{
	if (p->color)
		ctf_pbuf_add(&p->line, code, len);
}

#define COLOR(p, code) color_on((p), "" code, sizeof(code) - 1)

static void print_int(struct strata_ctf_pretty *p, const struct ctf_type *it, uint64_t raw)
{
	COLOR(p, COLOR_BOLD);
	if (it->integer.base == 10) {
		char *w = ctf_pbuf_reserve(&p->line, 21);

		if (it->integer.is_signed)
			p->line.len += ctf_fmt_s64(w, (int64_t)raw);
		else
			p->line.len += ctf_fmt_u64(w, raw);
	} else {
		ctf_fmt_int(&p->line, raw, it->integer.is_signed, it->integer.size,
			    it->integer.base);
	}
	COLOR(p, COLOR_RST);
}

static bool mapping_matches(const struct ctf_enum_mapping *m, bool is_signed, uint64_t raw)
{
	if (is_signed) {
		int64_t s = (int64_t)raw;

		return s >= m->lo.s && s <= m->hi.s;
	}
	return raw >= m->lo.u && raw <= m->hi.u;
}

static void print_enum(struct strata_ctf_pretty *p, const struct ctf_type *t, uint64_t raw)
{
	const struct ctf_type *it = t->enumeration.container;
	const struct ctf_enum_mapping *maps = t->enumeration.mappings;
	size_t n = t->enumeration.n_mappings;
	bool is_signed = it->integer.is_signed;
	const uint32_t *canon = NULL;
	size_t nm = 0;

	ctf_pbuf_lit(&p->line, "( ");
	for (size_t i = 0; i < n; i++) {
		uint32_t c;
		size_t k;

		if (!mapping_matches(&maps[i], is_signed, raw))
			continue;
		if (!canon) {
			canon = enum_canon(p, t);
			if (!canon) {
				p->line.oom = true;
				break;
			}
		}
		if (p->cap_matches <= nm) {
			size_t ncap = MAX(n, (size_t)16);
			uint32_t *nmx = realloc(p->matches, ncap * sizeof(*nmx));

			if (!nmx) {
				p->line.oom = true;
				break;
			}
			p->matches = nmx;
			p->cap_matches = ncap;
		}
		/* Insert in order of first declaration, once per label. */
		c = canon[i];
		for (k = 0; k < nm && p->matches[k] < c; k++)
			;
		if (k < nm && p->matches[k] == c)
			continue;
		memmove(&p->matches[k + 1], &p->matches[k], (nm - k) * sizeof(*p->matches));
		p->matches[k] = c;
		nm++;
	}
	if (nm == 0) {
		COLOR(p, COLOR_UNKNOWN);
		ctf_pbuf_lit(&p->line, "<unknown>");
		COLOR(p, COLOR_RST);
	}
	for (size_t k = 0; k < nm; k++) {
		const char *label = maps[p->matches[k]].label;

		if (k)
			ctf_pbuf_lit(&p->line, ", ");
		COLOR(p, COLOR_BOLD);
		ctf_fmt_string(&p->line, label, strlen(label));
		COLOR(p, COLOR_RST);
	}
	ctf_pbuf_lit(&p->line, " : container = ");
	print_int(p, it, raw);
	ctf_pbuf_lit(&p->line, " )");
}

/* The slot of key, or NULL. */
static struct type_info *type_find(struct strata_ctf_pretty *p, const void *key)
{
	size_t mask, i;

	if (!p->cap_types)
		return NULL;
	mask = p->cap_types - 1;
	for (i = ptr_hash(key, mask);; i = (i + 1) & mask) {
		if (p->types[i].key == key)
			return &p->types[i];
		if (!p->types[i].key)
			return NULL;
	}
}

/* The members of a struct type with their printed names and visibility. */
static const struct struct_info *struct_members(struct strata_ctf_pretty *p,
						const struct ctf_type *t)
{
	size_t n = t->structure.n_fields;
	struct struct_info *si;
	struct type_info *ti;
	bool created, first = true;
	size_t bound = 0;

	ti = type_find(p, t);
	if (ti && ti->members)
		return ti->members;
	si = malloc(sizeof(*si) + MAX(n, (size_t)1) * sizeof(si->m[0]));
	if (!si)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ctf_field *f = &t->structure.fields[i];
		struct member_info *m = &si->m[i];

		m->name = f->name;
		m->name_len = (uint32_t)strlen(f->name);
		m->visible = field_visible(p, f);
		memcpy(m->pre, first ? " " : ", ", 2);
		m->sep_len = first ? 1 : 2;
		m->pre_len = 0;
		if (m->sep_len + m->name_len + 3 <= MEMBER_PRE) {
			memcpy(m->pre + m->sep_len, m->name, m->name_len);
			memcpy(m->pre + m->sep_len + m->name_len, " = ", 3);
			m->pre_len = (uint8_t)(m->sep_len + m->name_len + 3);
		}
		if (m->visible) {
			first = false;
			bound += MEMBER_MAX;
		}
	}
	si->bound = bound + MEMBER_MAX <= STRUCT_BOUND_MAX ? (uint32_t)(bound + MEMBER_MAX) : 0;
	/* Creates the slot with its visibility; may grow the table. */
	type_visible(p, t);
	ti = type_slot(p, t, &created);
	if (!ti) {
		free(si);
		return NULL;
	}
	ti->members = si;
	return si;
}

/* Separator, optional name and the value of one member, any type, colors. */
static void print_member(struct strata_ctf_pretty *p, const struct member_info *m,
			 const struct ctf_value *c, bool names)
{
	ctf_pbuf_add(&p->line, m->pre, m->sep_len);
	if (names) {
		COLOR(p, COLOR_FIELD_NAME);
		ctf_pbuf_add(&p->line, m->name, m->name_len);
		COLOR(p, COLOR_RST);
		ctf_pbuf_lit(&p->line, " = ");
	}
	print_value(p, c, names);
}

/*
 * Writes a decimal or hex integer at w without colors; returns the bytes
 * written (at most 21), or 0 when c needs print_value().
 */
static inline size_t simple_int(char *w, const struct ctf_value *c)
{
	const struct ctf_type *t = c->type;

	if (t->kind != CTF_TYPE_INT)
		return 0;
	if (t->integer.base == 10)
		return t->integer.is_signed ? ctf_fmt_s64(w, c->s) : ctf_fmt_u64(w, c->u);
	if (t->integer.base == 16)
		return ctf_fmt_x64(w, c->u & ctf_hex_mask(t->integer.size));
	return 0;
}

static void print_struct(struct strata_ctf_pretty *p, const struct ctf_value *v, bool names)
{
	const struct ctf_type *t = v->type;
	const struct struct_info *si = struct_members(p, t);
	const struct ctf_value *c = v + 1;
	uint32_t bound;
	char *w;

	if (!si) {
		p->line.oom = true;
		return;
	}
	bound = p->color ? 0 : si->bound;
	ctf_pbuf_addc(&p->line, '{');
	/*
	 * Members written in place (numbers, the bulk of trace fields) share
	 * one reservation; any other takes the general path and the
	 * reservation is renewed after it.
	 */
	w = ctf_pbuf_reserve(&p->line, bound);
	for (size_t i = 0; i < t->structure.n_fields; i++, c += c->nsub + 1) {
		const struct member_info *m = &si->m[i];
		size_t n;

		if (!m->visible)
			continue;
		if (bound && m->pre_len) {
			/* A fixed-size copy: a few moves; the tail is overwritten. */
			memcpy(w, m->pre, MEMBER_PRE);
			n = names ? m->pre_len : m->sep_len;
			w += n;
			n = simple_int(w, c);
			if (n) {
				w += n;
				continue;
			}
			p->line.len = (size_t)(w - p->line.data);
			print_value(p, c, names);
		} else {
			p->line.len = (size_t)(w - p->line.data);
			print_member(p, m, c, names);
		}
		w = ctf_pbuf_reserve(&p->line, bound);
	}
	p->line.len = (size_t)(w - p->line.data);
	ctf_pbuf_lit(&p->line, " }");
}

static void print_elements(struct strata_ctf_pretty *p, const struct ctf_value *v, bool names)
{
	const struct ctf_value *c = v + 1;

	ctf_pbuf_addc(&p->line, '[');
	for (uint64_t i = 0; i < v->count; i++) {
		/* Separator, "[i] = " and a decimal or hex integer in one reservation. */
		char *w = ctf_pbuf_reserve(&p->line, 2 + 26 + 21);
		size_t n;

		if (i) {
			w[0] = ',';
			w[1] = ' ';
			w += 2;
		} else {
			*w++ = ' ';
		}
		if (names) {
			w[0] = '[';
			w += 1 + ctf_fmt_u64(w + 1, i);
			memcpy(w, "] = ", 4);
			w += 4;
		}
		n = p->color ? 0 : simple_int(w, c);
		if (n) {
			w += n;
			p->line.len = (size_t)(w - p->line.data);
		} else {
			p->line.len = (size_t)(w - p->line.data);
			print_value(p, c, names);
		}
		c += c->nsub + 1;
	}
	ctf_pbuf_lit(&p->line, " ]");
}

static void print_text(struct strata_ctf_pretty *p, const struct ctf_value *v)
{
	COLOR(p, COLOR_BOLD);
	ctf_fmt_string(&p->line, v->str.ptr, v->str.len);
	COLOR(p, COLOR_RST);
}

static void print_value(struct strata_ctf_pretty *p, const struct ctf_value *v, bool names)
{
	const struct ctf_type *t = v->type;

	switch (t->kind) {
	case CTF_TYPE_INT:
		print_int(p, t, v->u);
		break;
	case CTF_TYPE_ENUM:
		print_enum(p, t, v->u);
		break;
	case CTF_TYPE_FLOAT:
		COLOR(p, COLOR_BOLD);
		ctf_fmt_double(&p->line, v->d);
		COLOR(p, COLOR_RST);
		break;
	case CTF_TYPE_STRING:
		print_text(p, v);
		break;
	case CTF_TYPE_STRUCT:
		print_struct(p, v, names);
		break;
	case CTF_TYPE_VARIANT:
		/* The option's name is never printed (babeltrace2 2.0.4 TODO). */
		ctf_pbuf_lit(&p->line, "{ ");
		print_value(p, v + 1, names);
		ctf_pbuf_lit(&p->line, " }");
		break;
	case CTF_TYPE_ARRAY:
		if (t->array.is_text)
			print_text(p, v);
		else
			print_elements(p, v, names);
		break;
	case CTF_TYPE_SEQUENCE:
		if (t->sequence.is_text)
			print_text(p, v);
		else
			print_elements(p, v, names);
		break;
	}
}

/* --- event header ------------------------------------------------------------ */

static void print_name_equal(struct strata_ctf_pretty *p, const char *name, size_t len)
{
	COLOR(p, COLOR_BOLD);
	ctf_pbuf_add(&p->line, name, len);
	COLOR(p, COLOR_RST);
	ctf_pbuf_lit(&p->line, " = ");
}

#define NAME_EQUAL(p, s) print_name_equal((p), "" s, sizeof(s) - 1)

void ctf_pretty_times_init(struct ctf_pretty_times *t)
{
	t->last_real = t->delta_real = UINT64_MAX;
	t->last_cycles = t->delta_cycles = UINT64_MAX;
}

void ctf_pretty_track(const struct strata_ctf_pretty *p, struct ctf_pretty_times *t,
		      const struct strata_ctf_event *ev)
{
	if (!ev->has_clock)
		return;
	if (p->cycles) {
		if (t->last_cycles != UINT64_MAX)
			t->delta_cycles = ev->cycles - t->last_cycles;
		t->last_cycles = ev->cycles;
	} else {
		if (t->last_real != UINT64_MAX)
			t->delta_real = (uint64_t)ev->ns - t->last_real;
		t->last_real = (uint64_t)ev->ns;
	}
}

static void print_timestamp(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev)
{
	bool names = p->names_header;
	char *w;

	if (names)
		NAME_EQUAL(p, "timestamp");
	else
		ctf_pbuf_addc(&p->line, '[');
	ctf_pretty_track(p, &p->times, ev);
	COLOR(p, COLOR_TIMESTAMP);
	if (p->cycles) {
		w = ctf_pbuf_reserve(&p->line, 20);
		p->line.len += ctf_fmt_u64_pad(w, ev->cycles, 20);
	} else {
		ctf_fmt_wall(&p->clock, &p->line, ev->ns);
	}
	COLOR(p, COLOR_RST);
	if (!names)
		ctf_pbuf_lit(&p->line, "] ");

	if (p->delta) {
		if (names) {
			ctf_pbuf_lit(&p->line, ", ");
			NAME_EQUAL(p, "delta");
		} else {
			ctf_pbuf_addc(&p->line, '(');
		}
		if (p->cycles) {
			if (p->times.delta_cycles == UINT64_MAX) {
				ctf_pbuf_lit(&p->line, "+????????????");
			} else {
				w = ctf_pbuf_reserve(&p->line, 21);
				*w = '+';
				p->line.len +=
					1 + ctf_fmt_u64_pad(w + 1, p->times.delta_cycles, 12);
			}
		} else if (p->times.delta_real == UINT64_MAX) {
			ctf_pbuf_lit(&p->line, "+?.?????????");
		} else {
			ctf_fmt_delta(&p->line, p->times.delta_real);
		}
		if (!names)
			ctf_pbuf_lit(&p->line, ") ");
	}
	p->start_line = !names;
}

static const struct trace_info *trace_info(struct strata_ctf_pretty *p, const struct ctf_trace *tr)
{
	struct trace_info *ti = &p->tinfo;
	const struct ctf_env_entry *e;

	if (ti->trace == tr)
		return ti;
	memset(ti, 0, sizeof(*ti));
	ti->trace = tr;
	if (!tr || !tr->tc)
		return ti;
	e = ctf_trace_class_env(tr->tc, "hostname");
	if (e && !e->is_int)
		ti->hostname = e->sval;
	e = ctf_trace_class_env(tr->tc, "domain");
	if (e && !e->is_int)
		ti->domain = e->sval;
	e = ctf_trace_class_env(tr->tc, "procname");
	if (e && !e->is_int)
		ti->procname = e->sval;
	e = ctf_trace_class_env(tr->tc, "vpid");
	if (e && e->is_int) {
		ti->has_vpid = true;
		ti->vpid = e->ival;
	}
	return ti;
}

/* Separator and optional "key = " before a header item (print_event_header()). */
static void header_item(struct strata_ctf_pretty *p, const char *name, size_t len, bool dom_print)
{
	if (!p->start_line)
		ctf_pbuf_lit(&p->line, ", ");
	if (p->names_header)
		print_name_equal(p, name, len);
	else if (dom_print)
		ctf_pbuf_addc(&p->line, ':');
}

#define HEADER_ITEM(p, s, dom) header_item((p), "" s, sizeof(s) - 1, (dom))

/* Everything of the header after the timestamp and delta, up to the first scope. */
static void print_header_fields(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev)
{
	bool names = p->names_header;
	bool dom_print = false;
	const struct trace_info *ti = NULL;
	const char *ev_name;

	if (p->f_hostname || p->f_domain || p->f_procname || p->f_vpid)
		ti = trace_info(p, ev->trace);

	if (p->f_trace && ev->trace && ev->trace->name) {
		/* 2.0.4: no separator after the name and dom_print unchanged. */
		if (!p->start_line)
			ctf_pbuf_lit(&p->line, ", ");
		if (names)
			NAME_EQUAL(p, "trace");
		ctf_pbuf_str(&p->line, ev->trace->name);
		if (names)
			ctf_pbuf_lit(&p->line, ", ");
	}
	if (p->f_hostname && ti->hostname) {
		if (!p->start_line)
			ctf_pbuf_lit(&p->line, ", ");
		if (names)
			NAME_EQUAL(p, "trace:hostname");
		ctf_pbuf_str(&p->line, ti->hostname);
		dom_print = true;
	}
	if (p->f_domain && ti->domain) {
		HEADER_ITEM(p, "trace:domain", dom_print);
		ctf_pbuf_str(&p->line, ti->domain);
		dom_print = true;
	}
	if (p->f_procname && ti->procname) {
		HEADER_ITEM(p, "trace:procname", dom_print);
		ctf_pbuf_str(&p->line, ti->procname);
		dom_print = true;
	}
	if (p->f_vpid && ti->has_vpid) {
		char *w;

		HEADER_ITEM(p, "trace:vpid", dom_print);
		w = ctf_pbuf_reserve(&p->line, 24);
		w[0] = '(';
		w += 1 + ctf_fmt_s64(w + 1, ti->vpid);
		*w++ = ')';
		p->line.len = (size_t)(w - p->line.data);
		dom_print = true;
	}
	if (p->f_loglevel && ev->ec && ev->ec->has_loglevel && ev->ec->loglevel >= 0 &&
	    ev->ec->loglevel < (int64_t)ARRAY_SIZE(loglevel_names)) {
		char *w;

		HEADER_ITEM(p, "loglevel", dom_print);
		ctf_pbuf_str(&p->line, loglevel_names[ev->ec->loglevel]);
		w = ctf_pbuf_reserve(&p->line, 8);
		w[0] = ' ';
		w[1] = '(';
		w += 2 + ctf_fmt_s64(w + 2, ev->ec->loglevel);
		*w++ = ')';
		p->line.len = (size_t)(w - p->line.data);
		dom_print = true;
	}
	if (p->f_emf && ev->ec && ev->ec->emf_uri) {
		HEADER_ITEM(p, "model.emf.uri", dom_print);
		ctf_pbuf_str(&p->line, ev->ec->emf_uri);
		dom_print = true;
	}
	if (dom_print && !names)
		ctf_pbuf_addc(&p->line, ' ');
	if (!p->start_line)
		ctf_pbuf_lit(&p->line, ", ");
	p->start_line = true;
	if (names)
		NAME_EQUAL(p, "name");
	ev_name = ev->ec ? ev->ec->name : NULL;
	if (ev_name) {
		COLOR(p, COLOR_EVENT_NAME);
		ctf_pbuf_str(&p->line, ev_name);
	} else {
		COLOR(p, COLOR_UNKNOWN);
		ctf_pbuf_lit(&p->line, "<unknown>");
	}
	COLOR(p, COLOR_RST);
	if (!names)
		ctf_pbuf_lit(&p->line, ": ");
	else
		ctf_pbuf_lit(&p->line, ", ");
}

/*
 * The header fields depend only on the trace, the event class and whether
 * the line starts with a timestamp: they are formatted once per event
 * class and copied afterwards.
 */
static void print_header(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev)
{
	struct type_info *ti;
	size_t start;
	bool created;
	char *copy;

	if (ev->has_clock)
		print_timestamp(p, ev);
	ti = ev->ec ? type_find(p, ev->ec) : NULL;
	if (ti && ti->hdr && ti->hdr_trace == ev->trace && ti->hdr_has_clock == ev->has_clock) {
		ctf_pbuf_add(&p->line, ti->hdr, ti->hdr_len);
		p->start_line = true;
		return;
	}
	start = p->line.len;
	print_header_fields(p, ev);
	if (!ev->ec || p->line.oom || p->line.len < start)
		return;
	ti = type_slot(p, ev->ec, &created);
	copy = ti ? malloc(p->line.len - start) : NULL;
	if (!copy)
		return;
	memcpy(copy, p->line.data + start, p->line.len - start);
	free(ti->hdr);
	ti->hdr = copy;
	ti->hdr_len = (uint32_t)(p->line.len - start);
	ti->hdr_trace = ev->trace;
	ti->hdr_has_clock = ev->has_clock;
}

/*
 * Bit s set when scope s of ev is present and printed. Whether a scope's
 * type is printed at all is remembered with the event class.
 */
static unsigned scope_mask(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev)
{
	struct type_info *ti = ev->ec ? type_find(p, ev->ec) : NULL;
	unsigned mask = 0;

	for (unsigned sc = CTF_SCOPE_PACKET_CONTEXT; sc <= CTF_SCOPE_EVENT_PAYLOAD; sc++) {
		unsigned bit = 1U << sc;
		bool v;

		if (!ev->scope[sc] || sc == CTF_SCOPE_EVENT_HEADER)
			continue;
		if (ti && (ti->scope_known & bit)) {
			mask |= ti->scope_visible & bit;
			continue;
		}
		v = type_visible(p, ev->scope[sc]->type);
		/* type_visible() may have grown the table. */
		ti = ev->ec ? type_find(p, ev->ec) : NULL;
		if (ti) {
			ti->scope_known |= (uint8_t)bit;
			if (v)
				ti->scope_visible |= (uint8_t)bit;
		}
		if (v)
			mask |= bit;
	}
	return mask;
}

static bool is_text_type(const struct ctf_type *t)
{
	return t->kind == CTF_TYPE_STRING || (t->kind == CTF_TYPE_ARRAY && t->array.is_text) ||
	       (t->kind == CTF_TYPE_SEQUENCE && t->sequence.is_text);
}

/* Whether root[0..n) prints as the cached instance does. */
static bool cache_match(const struct scope_instance *sc, const struct ctf_value *v, size_t n)
{
	const char *s = sc->strs;

	if (!sc->valid || sc->n != n)
		return false;
	/* The same root type as the cached one (print_cached()): only the data can differ. */
	if (sc->fixed) {
		for (unsigned k = 0; k < sc->n_nums; k++)
			if (v[sc->nums[k]].u != sc->vals[sc->nums[k]].u)
				return false;
		for (unsigned k = 0; k < sc->n_texts; k++) {
			const struct ctf_value *t = &v[sc->texts[k]];

			if (t->str.len != sc->vals[sc->texts[k]].str.len ||
			    memcmp(t->str.ptr, s, t->str.len) != 0)
				return false;
			s += t->str.len;
		}
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ctf_value *c = &sc->vals[i];

		if (v[i].type != c->type)
			return false;
		/* The same type as the cached value's: its kind is known. */
		if (sc->text_mask >> i & 1) {
			if (v[i].str.len != c->str.len || memcmp(v[i].str.ptr, s, c->str.len) != 0)
				return false;
			s += c->str.len;
		} else if (v[i].u != c->u) {
			/* Numbers (floats by their bits), element and member counts. */
			return false;
		}
	}
	return true;
}

/* Keeps root[0..n) and its text, line[start..], when they fit. */
static void cache_fill(struct scope_instance *sc, const struct ctf_value *v, size_t n,
		       const struct ctf_pbuf *line, size_t start)
{
	size_t text_len = line->len - start, used = 0;

	sc->valid = false;
	if (n > CACHE_VALS || text_len > CACHE_TEXT || line->oom || line->len < start)
		return;
	sc->text_mask = 0;
	sc->fixed = ctf_dec_fixed_values(v[0].type) != UINT64_MAX;
	sc->n_nums = sc->n_texts = 0;
	for (size_t i = 0; i < n; i++) {
		enum ctf_type_kind kind = v[i].type->kind;

		sc->vals[i] = v[i];
		if (!is_text_type(v[i].type)) {
			if (kind != CTF_TYPE_STRUCT && kind != CTF_TYPE_ARRAY)
				sc->nums[sc->n_nums++] = (uint8_t)i;
			continue;
		}
		sc->texts[sc->n_texts++] = (uint8_t)i;
		sc->text_mask |= UINT32_C(1) << i;
		if (v[i].str.len > CACHE_STRS - used)
			return;
		memcpy(sc->strs + used, v[i].str.ptr, v[i].str.len);
		used += v[i].str.len;
	}
	memcpy(sc->text, line->data + start, text_len);
	sc->text_len = (uint32_t)text_len;
	sc->n = (uint32_t)n;
	sc->valid = true;
}

/* print_value() of a context scope's root through its type's scope_cache. */
static void print_cached(struct strata_ctf_pretty *p, const struct ctf_value *root, bool names)
{
	size_t n = (size_t)root->nsub + 1, start;
	struct type_info *ti;
	bool created;

	if (n > CACHE_VALS) {
		print_value(p, root, names);
		return;
	}
	ti = type_find(p, root->type);
	if (ti && ti->cache) {
		for (unsigned w = 0; w < CACHE_WAYS; w++) {
			const struct scope_instance *in = &ti->cache->way[w];

			if (cache_match(in, root, n)) {
				ctf_pbuf_add(&p->line, in->text, in->text_len);
				return;
			}
		}
	}
	start = p->line.len;
	print_value(p, root, names);
	/* Makes sure the slot exists with its visibility; may grow the table. */
	type_visible(p, root->type);
	ti = type_slot(p, root->type, &created);
	if (!ti)
		return;
	if (!ti->cache) {
		ti->cache = calloc(1, sizeof(*ti->cache));
		if (!ti->cache)
			return;
	}
	cache_fill(&ti->cache->way[ti->cache->next], root, n, &p->line, start);
	ti->cache->next = (ti->cache->next + 1) % CACHE_WAYS;
}

static void print_scope(struct strata_ctf_pretty *p, const struct ctf_value *root, const char *name,
			size_t name_len, bool names, bool visible, bool cached)
{
	if (!visible)
		return;
	if (!p->start_line)
		ctf_pbuf_lit(&p->line, ", ");
	p->start_line = false;
	if (p->names_scope)
		print_name_equal(p, name, name_len);
	if (cached)
		print_cached(p, root, names);
	else
		print_value(p, root, names);
}

#define PRINT_SCOPE(p, sc, s, names)                                                       \
	print_scope((p), ev->scope[sc], "" s, sizeof(s) - 1, (names), mask & (1U << (sc)), \
		    (sc) != CTF_SCOPE_EVENT_PAYLOAD)

/*
 * A large buffer goes to f's file descriptor itself, after what stdio
 * holds: through fwrite() every output byte would be copied once more
 * (about 10 % of `strata view` on the benchmark trace), and the text of a
 * batch formatted by pretty-run.c's helper read across CPUs. Returns 1
 * when f has no descriptor (a memory stream), for fwrite() to take it.
 */
static int write_direct(FILE *f, const char *data, size_t len)
{
	int fd = fileno(f);

	if (fd < 0)
		return 1;
	errno = 0;
	if (fflush_unlocked(f) != 0)
		return errno ? -errno : -EIO;
	return ctf_write_full(fd, data, len);
}

static int write_buf(struct ctf_pbuf *b, FILE *f)
{
	size_t len = b->len;
	int ret;

	b->len = 0;
	if (b->oom) {
		/* What was formatted since the failure is lost; start afresh. */
		ctf_pbuf_release(b);
		return -ENOMEM;
	}
	if (len >= BATCH_SIZE) {
		ret = write_direct(f, b->data, len);
		if (ret <= 0)
			return ret;
	}
	errno = 0;
	if (len && fwrite_unlocked(b->data, len, 1, f) != 1)
		return errno ? -errno : -EIO;
	return 0;
}

int strata_ctf_pretty_flush(struct strata_ctf_pretty *p)
{
	return write_buf(&p->line, p->out);
}

void ctf_pretty_format(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev)
{
	unsigned mask;

	p->start_line = true;
	print_header(p, ev);
	mask = scope_mask(p, ev);
	PRINT_SCOPE(p, CTF_SCOPE_PACKET_CONTEXT, "stream.packet.context", p->names_context);
	PRINT_SCOPE(p, CTF_SCOPE_STREAM_EVENT_CONTEXT, "stream.event.context", p->names_context);
	PRINT_SCOPE(p, CTF_SCOPE_EVENT_CONTEXT, "event.context", p->names_context);
	PRINT_SCOPE(p, CTF_SCOPE_EVENT_PAYLOAD, "event.fields", p->names_payload);
	ctf_pbuf_addc(&p->line, '\n');
}

static int print_event(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev)
{
	ctf_pretty_format(p, ev);
	if (p->line.len < BATCH_SIZE && !p->line.oom)
		return 0;
	return strata_ctf_pretty_flush(p);
}

struct strata_ctf_pretty *ctf_pretty_clone(const struct strata_ctf_pretty *p)
{
	struct strata_ctf_pretty *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	/* The options; caches, buffers and times start empty. */
	c->out = NULL;
	c->err = p->err;
	c->color = p->color;
	c->color_warnings = p->color_warnings;
	c->delta = p->delta;
	c->cycles = p->cycles;
	c->names_payload = p->names_payload;
	c->names_context = p->names_context;
	c->names_scope = p->names_scope;
	c->names_header = p->names_header;
	c->f_trace = p->f_trace;
	c->f_hostname = p->f_hostname;
	c->f_domain = p->f_domain;
	c->f_procname = p->f_procname;
	c->f_vpid = p->f_vpid;
	c->f_loglevel = p->f_loglevel;
	c->f_emf = p->f_emf;
	ctf_pretty_clock_init(&c->clock, p->clock.gmt, p->clock.date, p->clock.seconds, p->err);
	ctf_pretty_times_init(&c->times);
	return c;
}

void ctf_pretty_set_times(struct strata_ctf_pretty *p, const struct ctf_pretty_times *t)
{
	p->times = *t;
}

size_t ctf_pretty_line_len(const struct strata_ctf_pretty *p)
{
	return p->line.len;
}

void ctf_pretty_swap_line(struct strata_ctf_pretty *p, struct ctf_pbuf *b)
{
	struct ctf_pbuf tmp = p->line;

	p->line = *b;
	*b = tmp;
}

int ctf_pretty_write(struct strata_ctf_pretty *p, struct ctf_pbuf *text)
{
	int ret = strata_ctf_pretty_flush(p);

	if (ret < 0)
		return ret;
	return write_buf(text, p->out);
}

/* --- discarded items ------------------------------------------------------------ */

static void wcolor(struct strata_ctf_pretty *p, const char *code)
{
	if (p->color_warnings)
		ctf_pbuf_str(&p->warn, code);
}

static int print_discarded(struct strata_ctf_pretty *p, const struct strata_ctf_discarded *d,
			   const char *elem)
{
	struct ctf_pbuf *b = &p->warn;
	char *w;
	int ret;

	b->len = 0;
	wcolor(p, COLOR_YELLOW);
	wcolor(p, COLOR_BOLD);
	ctf_pbuf_lit(b, "WARNING");
	wcolor(p, COLOR_RST);
	wcolor(p, COLOR_YELLOW);
	ctf_pbuf_lit(b, ": ");
	if (d->count == 0) {
		ctf_pbuf_lit(b, "Tracer may have discarded ");
		ctf_pbuf_str(b, elem);
		ctf_pbuf_addc(b, 's');
	} else {
		ctf_pbuf_lit(b, "Tracer discarded ");
		w = ctf_pbuf_reserve(b, 21);
		b->len += ctf_fmt_u64(w, d->count);
		ctf_pbuf_addc(b, ' ');
		ctf_pbuf_str(b, elem);
		if (d->count != 1)
			ctf_pbuf_addc(b, 's');
	}
	ctf_pbuf_addc(b, ' ');
	if (d->has_range) {
		ctf_pbuf_lit(b, "between [");
		ctf_fmt_wall(&p->clock, b, d->begin_ns);
		ctf_pbuf_lit(b, "] and [");
		ctf_fmt_wall(&p->clock, b, d->end_ns);
		ctf_pbuf_addc(b, ']');
	} else {
		ctf_pbuf_lit(b, "(unknown time range)");
	}
	ctf_pbuf_lit(b, " in trace \"");
	ctf_pbuf_str(b, d->trace_name ? d->trace_name : "(unknown)");
	ctf_pbuf_lit(b, "\" ");
	if (d->trace_uuid) {
		ctf_pbuf_lit(b, "(UUID: ");
		ctf_fmt_uuid(b, d->trace_uuid);
		ctf_pbuf_lit(b, ") ");
	} else {
		ctf_pbuf_lit(b, "(no UUID) ");
	}
	ctf_pbuf_lit(b, "within stream \"");
	ctf_pbuf_str(b, d->stream_path ? d->stream_path : "(unknown)");
	ctf_pbuf_lit(b, "\" (stream class ID: ");
	w = ctf_pbuf_reserve(b, 21);
	b->len += ctf_fmt_u64(w, d->stream_class_id);
	ctf_pbuf_lit(b, ", ");
	if (d->has_stream_id) {
		ctf_pbuf_lit(b, "stream ID: ");
		w = ctf_pbuf_reserve(b, 21);
		b->len += ctf_fmt_u64(w, d->stream_id);
	} else {
		ctf_pbuf_lit(b, "no stream ID");
	}
	ctf_pbuf_lit(b, ").");
	wcolor(p, COLOR_RST);
	ctf_pbuf_addc(b, '\n');
	/* Lines printed before the warning reach `out` first, as in babeltrace2. */
	ret = strata_ctf_pretty_flush(p);
	if (ret < 0 || !p->err) {
		b->len = 0;
		return ret;
	}
	return write_buf(b, p->err);
}

int strata_ctf_pretty_print(struct strata_ctf_pretty *p, const struct strata_ctf_msg *msg)
{
	switch (msg->type) {
	case STRATA_CTF_MSG_EVENT:
		return print_event(p, msg->event);
	case STRATA_CTF_MSG_DISCARDED_EVENTS:
		return print_discarded(p, &msg->discarded, "event");
	case STRATA_CTF_MSG_DISCARDED_PACKETS:
		return print_discarded(p, &msg->discarded, "packet");
	}
	return -EINVAL;
}
