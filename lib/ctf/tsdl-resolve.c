/* SPDX-License-Identifier: MIT */
/*
 * Whole-trace-class passes after parsing, in babeltrace2's order:
 * implicit clock mapping of timestamp fields, meanings, stream default
 * clocks, text arrays, field paths of sequence lengths and variant tags,
 * then which fields are printed (babeltrace2's "in IR" -> !hidden).
 *
 * Every pass walks types recursively; depth is bounded by
 * TSDL_MAX_TYPE_DEPTH, enforced by the parser.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "ctf/tsdl-internal.h"
#include "common/common.h"

/* The integer part of an integer or enum (enums keep it in their container). */
static struct ctf_type *int_part(struct ctf_type *t)
{
	if (t->kind == CTF_TYPE_INT)
		return t;
	if (t->kind == CTF_TYPE_ENUM)
		return t->enumeration.container;
	return NULL;
}

/* ---- implicit clock mapping ---- */

static int implicit_clock(struct ctf_trace_class *tc, struct ctf_parse_error *err, int32_t *ret)
{
	struct ctf_clock_class *nc;

	if (tc->n_clocks > 1)
		return tsdl_error(err, 0,
				  "timestamp field not mapped to a clock, and more than one clock "
				  "is declared");
	if (tc->n_clocks == 1) {
		*ret = 0;
		return 0;
	}
	/* babeltrace2: an implicit 1 GHz clock named `default`, offset 0. */
	nc = calloc(1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	nc->name = strdup("default");
	if (!nc->name) {
		free(nc);
		return -ENOMEM;
	}
	nc->freq = 1000000000;
	free(tc->clocks);
	tc->clocks = nc;
	tc->n_clocks = 1;
	*ret = 0;
	return 0;
}

/* Maps unmapped integers named `name` (struct/variant members, any depth). */
static int auto_map(struct ctf_trace_class *tc, struct ctf_type *t, const char *name,
		    struct ctf_parse_error *err)
{
	struct ctf_field *f;
	size_t n;
	int ret;

	if (!t)
		return 0;
	if (t->kind == CTF_TYPE_STRUCT) {
		f = t->structure.fields;
		n = t->structure.n_fields;
	} else if (t->kind == CTF_TYPE_VARIANT) {
		f = t->variant.options;
		n = t->variant.n_options;
	} else {
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct ctf_type *it = int_part(f[i].type);

		if (it && it->integer.clock < 0 && !strcmp(f[i].name, name)) {
			ret = implicit_clock(tc, err, &it->integer.clock);
			if (ret)
				return ret;
		}
		ret = auto_map(tc, f[i].type, name, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- meanings ---- */

static struct ctf_field *member(struct ctf_type *st, const char *name)
{
	if (!st || st->kind != CTF_TYPE_STRUCT)
		return NULL;
	for (size_t i = 0; i < st->structure.n_fields; i++)
		if (!strcmp(st->structure.fields[i].name, name))
			return &st->structure.fields[i];
	return NULL;
}

static void set_member_meaning(struct ctf_type *st, const char *name, enum ctf_meaning m)
{
	struct ctf_field *f = member(st, name);
	struct ctf_type *it = f ? int_part(f->type) : NULL;

	if (it)
		it->integer.meaning = m;
}

/* Event header: integers named `name` at any depth (not array elements). */
static void set_meaning_deep(struct ctf_type *t, const char *fname, const char *name,
			     enum ctf_meaning m)
{
	struct ctf_type *it = int_part(t);

	if (it) {
		if (fname && !strcmp(fname, name))
			it->integer.meaning = m;
		return;
	}
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++)
			set_meaning_deep(t->structure.fields[i].type, t->structure.fields[i].name,
					 name, m);
		break;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			set_meaning_deep(t->variant.options[i].type, t->variant.options[i].name,
					 name, m);
		break;
	case CTF_TYPE_ARRAY:
		set_meaning_deep(t->array.elem, NULL, name, m);
		break;
	case CTF_TYPE_SEQUENCE:
		set_meaning_deep(t->sequence.elem, NULL, name, m);
		break;
	default:
		break;
	}
}

static void update_meanings(struct ctf_trace_class *tc)
{
	struct ctf_field *f;

	set_member_meaning(tc->packet_header, "magic", CTF_MEANING_MAGIC);
	set_member_meaning(tc->packet_header, "stream_id", CTF_MEANING_STREAM_ID);
	set_member_meaning(tc->packet_header, "stream_instance_id", CTF_MEANING_STREAM_INSTANCE_ID);
	f = member(tc->packet_header, "uuid");
	if (f && f->type->kind == CTF_TYPE_ARRAY) {
		struct ctf_type *it = int_part(f->type->array.elem);

		if (it)
			it->integer.meaning = CTF_MEANING_UUID;
	}
	for (size_t s = 0; s < tc->n_streams; s++) {
		struct ctf_stream_class *sc = tc->streams[s];

		set_member_meaning(sc->packet_context, "timestamp_begin", CTF_MEANING_TS_BEGIN);
		set_member_meaning(sc->packet_context, "timestamp_end", CTF_MEANING_TS_END);
		set_member_meaning(sc->packet_context, "events_discarded", CTF_MEANING_DISC_EVENTS);
		set_member_meaning(sc->packet_context, "packet_seq_num", CTF_MEANING_SEQ_NUM);
		set_member_meaning(sc->packet_context, "packet_size", CTF_MEANING_PACKET_SIZE);
		set_member_meaning(sc->packet_context, "content_size", CTF_MEANING_CONTENT_SIZE);
		if (sc->event_header) {
			set_meaning_deep(sc->event_header, NULL, "id", CTF_MEANING_EVENT_ID);
			set_meaning_deep(sc->event_header, NULL, "timestamp",
					 CTF_MEANING_TIMESTAMP);
		}
	}
}

static bool is_uuid_array(const struct ctf_type *t)
{
	const struct ctf_type *e;

	if (t->kind != CTF_TYPE_ARRAY)
		return false;
	e = t->array.elem;
	if (e->kind == CTF_TYPE_ENUM)
		e = e->enumeration.container;
	return e->kind == CTF_TYPE_INT && e->integer.meaning == CTF_MEANING_UUID;
}

/* ---- default clocks ---- */

static int find_clock(struct ctf_type *t, int32_t *clock, const struct ctf_trace_class *tc,
		      struct ctf_parse_error *err)
{
	struct ctf_type *it;
	int ret;

	if (!t)
		return 0;
	it = int_part(t);
	if (it) {
		if (it->integer.clock < 0)
			return 0;
		if (*clock >= 0 && *clock != it->integer.clock)
			return tsdl_error(
				err, 0, "stream uses more than one clock ('%.64s' and '%.64s')",
				tc->clocks[*clock].name, tc->clocks[it->integer.clock].name);
		*clock = it->integer.clock;
		return 0;
	}
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++)
			if ((ret = find_clock(t->structure.fields[i].type, clock, tc, err)))
				return ret;
		return 0;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			if ((ret = find_clock(t->variant.options[i].type, clock, tc, err)))
				return ret;
		return 0;
	case CTF_TYPE_ARRAY:
		return find_clock(t->array.elem, clock, tc, err);
	case CTF_TYPE_SEQUENCE:
		return find_clock(t->sequence.elem, clock, tc, err);
	default:
		return 0;
	}
}

static int update_default_clocks(struct ctf_trace_class *tc, struct ctf_parse_error *err)
{
	int32_t clock = -1;
	int ret;

	ret = find_clock(tc->packet_header, &clock, tc, err);
	if (ret)
		return ret;
	if (clock >= 0)
		return tsdl_error(err, 0,
				  "the trace packet header cannot contain clock-mapped "
				  "fields");
	for (size_t s = 0; s < tc->n_streams; s++) {
		struct ctf_stream_class *sc = tc->streams[s];

		clock = -1;
		ret = find_clock(sc->packet_context, &clock, tc, err);
		if (!ret)
			ret = find_clock(sc->event_header, &clock, tc, err);
		if (!ret)
			ret = find_clock(sc->event_context, &clock, tc, err);
		for (size_t e = 0; !ret && e < sc->n_events; e++) {
			ret = find_clock(sc->events[e]->context, &clock, tc, err);
			if (!ret)
				ret = find_clock(sc->events[e]->payload, &clock, tc, err);
		}
		if (ret)
			return ret;
		sc->default_clock = clock;
	}
	return 0;
}

/* ---- text arrays ---- */

static void update_text(struct ctf_type *t)
{
	const struct ctf_type *e;

	if (!t)
		return;
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++)
			update_text(t->structure.fields[i].type);
		return;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			update_text(t->variant.options[i].type);
		return;
	case CTF_TYPE_ARRAY:
	case CTF_TYPE_SEQUENCE:
		e = t->kind == CTF_TYPE_ARRAY ? t->array.elem : t->sequence.elem;
		update_text((struct ctf_type *)e);
		if (e->kind == CTF_TYPE_INT && e->integer.size == 8 && e->align == 8 &&
		    e->integer.encoding != CTF_ENC_NONE) {
			if (t->kind == CTF_TYPE_ARRAY)
				t->array.is_text = true;
			else
				t->sequence.is_text = true;
		}
		return;
	default:
		return;
	}
}

/* ---- field paths ---- */

struct frame {
	struct ctf_type *t;
	uint32_t index; /* member/option being visited */
};

struct rctx {
	struct ctf_type *roots[CTF_SCOPE_COUNT];
	enum ctf_scope scope;
	struct frame stack[TSDL_MAX_TYPE_DEPTH + 2];
	size_t depth;
	uint64_t work; /* field-name comparisons left */
	struct ctf_parse_error *err;
};

static const char *const scope_prefixes[CTF_SCOPE_COUNT] = {
	[CTF_SCOPE_PACKET_HEADER] = "trace.packet.header.",
	[CTF_SCOPE_PACKET_CONTEXT] = "stream.packet.context.",
	[CTF_SCOPE_EVENT_HEADER] = "stream.event.header.",
	[CTF_SCOPE_STREAM_EVENT_CONTEXT] = "stream.event.context.",
	[CTF_SCOPE_EVENT_CONTEXT] = "event.context.",
	[CTF_SCOPE_EVENT_PAYLOAD] = "event.fields.",
};

static const char *const scope_names[CTF_SCOPE_COUNT] = {
	[CTF_SCOPE_PACKET_HEADER] = "trace.packet.header",
	[CTF_SCOPE_PACKET_CONTEXT] = "stream.packet.context",
	[CTF_SCOPE_EVENT_HEADER] = "stream.event.header",
	[CTF_SCOPE_STREAM_EVENT_CONTEXT] = "stream.event.context",
	[CTF_SCOPE_EVENT_CONTEXT] = "event.context",
	[CTF_SCOPE_EVENT_PAYLOAD] = "event.fields",
};

struct path_buf {
	uint32_t idx[TSDL_MAX_TYPE_DEPTH + 2];
	uint32_t len;
};

static struct ctf_type *skip_arrays(struct ctf_type *t)
{
	while (t->kind == CTF_TYPE_ARRAY || t->kind == CTF_TYPE_SEQUENCE)
		t = t->kind == CTF_TYPE_ARRAY ? t->array.elem : t->sequence.elem;
	return t;
}

static int find_named(uint64_t *work, struct ctf_type *t, const char *name, size_t n)
{
	struct ctf_field *f;
	size_t cnt;

	if (t->kind == CTF_TYPE_STRUCT) {
		f = t->structure.fields;
		cnt = t->structure.n_fields;
	} else if (t->kind == CTF_TYPE_VARIANT) {
		f = t->variant.options;
		cnt = t->variant.n_options;
	} else {
		return -1;
	}
	/* Each lookup is linear: *work bounds the total (see TSDL_MAX_LOOKUP_WORK). */
	for (size_t i = 0; i < cnt; i++) {
		if (!*work)
			return -1;
		--*work;
		if (f[i].orig_name[0] == name[0] && strlen(f[i].orig_name) == n &&
		    !memcmp(f[i].orig_name, name, n))
			return (int)i;
	}
	return -1;
}

static struct ctf_type *child(struct ctf_type *t, uint32_t i)
{
	return t->kind == CTF_TYPE_STRUCT ? t->structure.fields[i].type :
					    t->variant.options[i].type;
}

/* Follows dotted `rest` from compound t, appending indices; target or NULL. */
static struct ctf_type *descend(uint64_t *work, struct ctf_type *t, const char *rest,
				struct path_buf *pb)
{
	while (*rest) {
		const char *dot = strchr(rest, '.');
		size_t n = dot ? (size_t)(dot - rest) : strlen(rest);
		int i;

		t = skip_arrays(t);
		i = find_named(work, t, rest, n);
		if (i < 0 || pb->len >= ARRAY_SIZE(pb->idx))
			return NULL;
		pb->idx[pb->len++] = (uint32_t)i;
		t = child(t, (uint32_t)i);
		rest = dot ? dot + 1 : rest + n;
	}
	return t;
}

/* Path of the field being visited: struct/variant frames' indices. */
static void source_path(const struct rctx *c, size_t upto, struct path_buf *pb)
{
	pb->len = 0;
	for (size_t k = 0; k < upto; k++) {
		const struct ctf_type *ft = c->stack[k].t;

		if (ft->kind == CTF_TYPE_STRUCT || ft->kind == CTF_TYPE_VARIANT)
			pb->idx[pb->len++] = c->stack[k].index;
	}
}

static int resolve_path(struct rctx *c, const char *name, struct ctf_field_path *out,
			struct ctf_type **ret_target)
{
	struct path_buf pb, src;
	struct ctf_type *target = NULL;
	enum ctf_scope scope = c->scope;
	bool found = false;

	for (int s = 0; s < CTF_SCOPE_COUNT && !found; s++) {
		size_t pl = strlen(scope_prefixes[s]);

		if (strncmp(name, scope_prefixes[s], pl))
			continue;
		found = true;
		scope = (enum ctf_scope)s;
		if (scope > c->scope)
			return tsdl_error(c->err, 0, "'%.128s' refers to a later scope (%s)", name,
					  scope_names[s]);
		if (!c->roots[s])
			return tsdl_error(c->err, 0, "'%.128s': scope %s does not exist", name,
					  scope_names[s]);
		pb.len = 0;
		target = descend(&c->work, c->roots[s], name + pl, &pb);
		if (!target && !c->work)
			return tsdl_error(c->err, 0, "metadata too complex (field lookups)");
		if (!target)
			return tsdl_error(c->err, 0, "cannot find field '%.128s'", name);
		if (scope == c->scope) {
			/* Must precede the source: compare at the lowest common ancestor. */
			size_t k = 0;

			source_path(c, c->depth, &src);
			while (k < pb.len && k < src.len && pb.idx[k] == src.idx[k])
				k++;
			if (k == pb.len || k == src.len || pb.idx[k] > src.idx[k])
				return tsdl_error(
					c->err, 0,
					"'%.128s' does not precede the field that uses it", name);
		}
	}
	if (!strncmp(name, "env.", 4))
		return tsdl_unsupported(c->err, 0, "'%.128s': env lengths are not supported", name);
	if (!found) {
		/* Relative: innermost struct first, then outwards (babeltrace2). */
		const char *dot = strchr(name, '.');
		size_t n0 = dot ? (size_t)(dot - name) : strlen(name);

		for (size_t k = c->depth; k-- > 0 && !found;) {
			struct ctf_type *ft = c->stack[k].t;
			int i;

			if (ft->kind != CTF_TYPE_STRUCT)
				continue;
			i = find_named(&c->work, ft, name, n0);
			if (i < 0 || (uint32_t)i >= c->stack[k].index)
				continue;
			source_path(c, k, &pb);
			pb.idx[pb.len++] = (uint32_t)i;
			target = descend(&c->work, child(ft, (uint32_t)i), dot ? dot + 1 : "", &pb);
			if (target)
				found = true;
		}
		/* Then the root of each earlier scope, nearest first. */
		for (int s = (int)c->scope - 1; s >= 0 && !found; s--) {
			if (!c->roots[s])
				continue;
			pb.len = 0;
			target = descend(&c->work, c->roots[s], name, &pb);
			if (target) {
				found = true;
				scope = (enum ctf_scope)s;
			}
		}
		if (!found && !c->work)
			return tsdl_error(c->err, 0, "metadata too complex (field lookups)");
		if (!found)
			return tsdl_error(c->err, 0, "cannot find field '%.128s' (in %s)", name,
					  scope_names[c->scope]);
	}
	out->scope = scope;
	out->len = pb.len;
	out->index = malloc((pb.len ? pb.len : 1) * sizeof(uint32_t));
	if (!out->index)
		return -ENOMEM;
	memcpy(out->index, pb.idx, pb.len * sizeof(uint32_t));
	*ret_target = target;
	return 0;
}

static int push(struct rctx *c, struct ctf_type *t)
{
	if (c->depth >= ARRAY_SIZE(c->stack))
		return tsdl_error(c->err, 0, "type nesting too deep");
	c->stack[c->depth].t = t;
	c->stack[c->depth].index = 0;
	c->depth++;
	return 0;
}

static int resolve_type(struct rctx *c, struct ctf_type *t)
{
	struct ctf_type *target;
	int ret;

	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		if ((ret = push(c, t)))
			return ret;
		for (size_t i = 0; i < t->structure.n_fields; i++) {
			c->stack[c->depth - 1].index = (uint32_t)i;
			if ((ret = resolve_type(c, t->structure.fields[i].type)))
				return ret;
		}
		c->depth--;
		return 0;
	case CTF_TYPE_VARIANT:
		if (!t->variant.tag_name)
			return tsdl_error(c->err, 0, "variant without a tag");
		free(t->variant.tag.index);
		t->variant.tag.index = NULL;
		ret = resolve_path(c, t->variant.tag_name, &t->variant.tag, &target);
		if (ret)
			return ret;
		if (target->kind != CTF_TYPE_ENUM)
			return tsdl_error(c->err, 0, "variant tag '%.128s' is not an enumeration",
					  t->variant.tag_name);
		if ((ret = push(c, t)))
			return ret;
		for (size_t i = 0; i < t->variant.n_options; i++) {
			c->stack[c->depth - 1].index = (uint32_t)i;
			if ((ret = resolve_type(c, t->variant.options[i].type)))
				return ret;
		}
		c->depth--;
		return 0;
	case CTF_TYPE_SEQUENCE:
		free(t->sequence.length.index);
		t->sequence.length.index = NULL;
		ret = resolve_path(c, t->sequence.length_name, &t->sequence.length, &target);
		if (ret)
			return ret;
		target = int_part(target);
		if (!target || target->integer.is_signed)
			return tsdl_error(c->err, 0,
					  "sequence length '%.128s' is not an unsigned integer",
					  t->sequence.length_name);
		/* fall through */
	case CTF_TYPE_ARRAY:
		if ((ret = push(c, t)))
			return ret;
		ret = resolve_type(c, t->kind == CTF_TYPE_ARRAY ? t->array.elem : t->sequence.elem);
		c->depth--;
		return ret;
	default:
		return 0;
	}
}

static int resolve_root(struct rctx *c, enum ctf_scope scope)
{
	c->scope = scope;
	c->depth = 0;
	return c->roots[scope] ? resolve_type(c, c->roots[scope]) : 0;
}

/* Target type of a resolved path (NULL if it does not lead anywhere). */
static struct ctf_type *follow(struct ctf_type *const roots[CTF_SCOPE_COUNT],
			       const struct ctf_field_path *fp)
{
	struct ctf_type *t = roots[fp->scope];

	for (uint32_t k = 0; t && k < fp->len; k++) {
		t = skip_arrays(t);
		if (t->kind == CTF_TYPE_STRUCT && fp->index[k] < t->structure.n_fields)
			t = t->structure.fields[fp->index[k]].type;
		else if (t->kind == CTF_TYPE_VARIANT && fp->index[k] < t->variant.n_options)
			t = t->variant.options[fp->index[k]].type;
		else
			t = NULL;
	}
	return t;
}

/* ---- printed fields (babeltrace2's update-in-IR pass) ---- */

static void force_in_ir(struct ctf_type *t, bool v)
{
	if (!t)
		return;
	tsdl_type_of(t)->in_ir = v;
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++)
			force_in_ir(t->structure.fields[i].type, v);
		break;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			force_in_ir(t->variant.options[i].type, v);
		break;
	case CTF_TYPE_ARRAY:
		force_in_ir(t->array.elem, v);
		break;
	case CTF_TYPE_SEQUENCE:
		force_in_ir(t->sequence.elem, v);
		break;
	default:
		break;
	}
}

static void mark_depended(struct ctf_type *const roots[CTF_SCOPE_COUNT],
			  const struct ctf_field_path *fp)
{
	struct ctf_type *t = follow(roots, fp);

	if (t)
		tsdl_type_of(t)->depended = true;
}

/* Reverse member order: dependents come after what they depend on. */
static void update_in_ir(struct ctf_type *const roots[CTF_SCOPE_COUNT], struct ctf_type *t)
{
	struct tsdl_type *tt;
	struct ctf_type *it;

	if (!t)
		return;
	tt = tsdl_type_of(t);
	it = int_part(t);
	if (it) {
		if ((it->integer.clock < 0 && (it->integer.meaning == CTF_MEANING_NONE ||
					       it->integer.meaning == CTF_MEANING_TIMESTAMP)) ||
		    tt->depended)
			tt->in_ir = true;
		return;
	}
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		if (!t->structure.n_fields)
			tt->in_ir = true;
		for (size_t i = t->structure.n_fields; i-- > 0;) {
			struct ctf_field *f = &t->structure.fields[i];

			update_in_ir(roots, f->type);
			if (tsdl_type_of(f->type)->in_ir)
				tt->in_ir = true;
		}
		break;
	case CTF_TYPE_VARIANT:
		for (size_t i = t->variant.n_options; i-- > 0;) {
			update_in_ir(roots, t->variant.options[i].type);
			if (tsdl_type_of(t->variant.options[i].type)->in_ir)
				tt->in_ir = true;
		}
		if (tt->in_ir) {
			/* Any option can be selected: all of them stay. */
			for (size_t i = 0; i < t->variant.n_options; i++)
				tsdl_type_of(t->variant.options[i].type)->in_ir = true;
			mark_depended(roots, &t->variant.tag);
		}
		break;
	case CTF_TYPE_ARRAY:
		update_in_ir(roots, t->array.elem);
		tt->in_ir = tsdl_type_of(t->array.elem)->in_ir;
		if (is_uuid_array(t)) {
			tt->in_ir = false;
			tsdl_type_of(t->array.elem)->in_ir = false;
		}
		break;
	case CTF_TYPE_SEQUENCE:
		update_in_ir(roots, t->sequence.elem);
		tt->in_ir = tsdl_type_of(t->sequence.elem)->in_ir;
		if (tt->in_ir)
			mark_depended(roots, &t->sequence.length);
		break;
	default:
		tt->in_ir = true;
		break;
	}
}

static void set_hidden(struct ctf_type *t)
{
	if (!t)
		return;
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++) {
			struct ctf_field *f = &t->structure.fields[i];

			f->hidden = !tsdl_type_of(f->type)->in_ir;
			set_hidden(f->type);
		}
		break;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++) {
			struct ctf_field *f = &t->variant.options[i];

			f->hidden = !tsdl_type_of(f->type)->in_ir;
			set_hidden(f->type);
		}
		break;
	case CTF_TYPE_ARRAY:
		set_hidden(t->array.elem);
		break;
	case CTF_TYPE_SEQUENCE:
		set_hidden(t->sequence.elem);
		break;
	default:
		break;
	}
}

static void stream_roots(const struct ctf_trace_class *tc, const struct ctf_stream_class *sc,
			 const struct ctf_event_class *ec, struct ctf_type *roots[CTF_SCOPE_COUNT])
{
	roots[CTF_SCOPE_PACKET_HEADER] = tc->packet_header;
	roots[CTF_SCOPE_PACKET_CONTEXT] = sc ? sc->packet_context : NULL;
	roots[CTF_SCOPE_EVENT_HEADER] = sc ? sc->event_header : NULL;
	roots[CTF_SCOPE_STREAM_EVENT_CONTEXT] = sc ? sc->event_context : NULL;
	roots[CTF_SCOPE_EVENT_CONTEXT] = ec ? ec->context : NULL;
	roots[CTF_SCOPE_EVENT_PAYLOAD] = ec ? ec->payload : NULL;
}

static void update_hidden(struct ctf_trace_class *tc)
{
	struct ctf_type *roots[CTF_SCOPE_COUNT];

	for (size_t s = 0; s < tc->n_streams; s++) {
		struct ctf_stream_class *sc = tc->streams[s];

		for (size_t e = 0; e < sc->n_events; e++) {
			struct ctf_event_class *ec = sc->events[e];

			stream_roots(tc, sc, ec, roots);
			update_in_ir(roots, ec->payload);
			update_in_ir(roots, ec->context);
			set_hidden(ec->payload);
			set_hidden(ec->context);
		}
		stream_roots(tc, sc, NULL, roots);
		update_in_ir(roots, sc->event_context);
		force_in_ir(sc->event_header, false);
		update_in_ir(roots, sc->packet_context);
		set_hidden(sc->event_context);
		set_hidden(sc->event_header);
		set_hidden(sc->packet_context);
	}
	force_in_ir(tc->packet_header, false);
	set_hidden(tc->packet_header);
}

static int resolve_paths(struct ctf_trace_class *tc, struct ctf_parse_error *err)
{
	struct rctx *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	c->err = err;
	c->work = TSDL_MAX_LOOKUP_WORK;
	stream_roots(tc, NULL, NULL, c->roots);
	ret = resolve_root(c, CTF_SCOPE_PACKET_HEADER);
	for (size_t s = 0; !ret && s < tc->n_streams; s++) {
		struct ctf_stream_class *sc = tc->streams[s];

		stream_roots(tc, sc, NULL, c->roots);
		ret = resolve_root(c, CTF_SCOPE_PACKET_CONTEXT);
		if (!ret)
			ret = resolve_root(c, CTF_SCOPE_EVENT_HEADER);
		if (!ret)
			ret = resolve_root(c, CTF_SCOPE_STREAM_EVENT_CONTEXT);
		for (size_t e = 0; !ret && e < sc->n_events; e++) {
			stream_roots(tc, sc, sc->events[e], c->roots);
			ret = resolve_root(c, CTF_SCOPE_EVENT_CONTEXT);
			if (!ret)
				ret = resolve_root(c, CTF_SCOPE_EVENT_PAYLOAD);
			if (ret && err && ret != -ENOMEM) {
				char msg[sizeof(err->msg)];
				const char *n = sc->events[e]->name;
				int k = snprintf(msg, sizeof(msg),
						 "event '%.64s': ", n ? n : "<unknown>");

				if (k > 0 && (size_t)k < sizeof(msg)) {
					memcpy(msg + k, err->msg,
					       MIN(strlen(err->msg) + 1, sizeof(msg) - (size_t)k));
					msg[sizeof(msg) - 1] = '\0';
					memcpy(err->msg, msg, sizeof(msg));
				}
			}
		}
	}
	free(c);
	return ret;
}

int tsdl_resolve(struct ctf_trace_class *tc, struct ctf_parse_error *err)
{
	const struct ctf_env_entry *tn;
	int ret;

	for (size_t s = 0; s < tc->n_streams; s++) {
		struct ctf_stream_class *sc = tc->streams[s];

		ret = auto_map(tc, sc->packet_context, "timestamp_begin", err);
		if (!ret)
			ret = auto_map(tc, sc->packet_context, "timestamp_end", err);
		if (!ret)
			ret = auto_map(tc, sc->event_header, "timestamp", err);
		if (ret)
			return ret;
	}
	update_meanings(tc);
	ret = update_default_clocks(tc, err);
	if (ret)
		return ret;
	update_text(tc->packet_header);
	for (size_t s = 0; s < tc->n_streams; s++) {
		struct ctf_stream_class *sc = tc->streams[s];

		update_text(sc->packet_context);
		update_text(sc->event_header);
		update_text(sc->event_context);
		for (size_t e = 0; e < sc->n_events; e++) {
			update_text(sc->events[e]->context);
			update_text(sc->events[e]->payload);
		}
	}
	ret = resolve_paths(tc, err);
	if (ret)
		return ret;
	update_hidden(tc);

	/* babeltrace2 treats LTTng's `monotonic` clock as absolute (never written). */
	tn = ctf_trace_class_env(tc, "tracer_name");
	if (tn && !tn->is_int && !strncmp(tn->sval, "lttng", 5))
		for (size_t i = 0; i < tc->n_clocks; i++)
			if (!strcmp(tc->clocks[i].name, "monotonic"))
				tc->clocks[i].absolute = true;
	return 0;
}
