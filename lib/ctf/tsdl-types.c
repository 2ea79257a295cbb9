/* SPDX-License-Identifier: MIT */
/*
 * Type nodes of the trace class: allocation (counted against a budget, since
 * every use of an alias copies it), deep copy and destruction. Recursion here
 * is bounded by TSDL_MAX_DEPTH, which the parser enforces on every type it
 * builds (tsdl_type_update_depth()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/tsdl-internal.h"
#include "common/common.h"

struct ctf_type *tsdl_type_new(struct tsdl_budget *b, enum ctf_type_kind kind)
{
	struct tsdl_type *tt;

	if (b) {
		if (!b->nodes_left) {
			errno = E2BIG;
			return NULL;
		}
		b->nodes_left--;
	}
	tt = calloc(1, sizeof(*tt));
	if (!tt) {
		errno = ENOMEM;
		return NULL;
	}
	tt->t.kind = kind;
	tt->t.align = 8;
	tt->depth = 1;
	if (kind == CTF_TYPE_INT || kind == CTF_TYPE_ENUM)
		tt->t.integer.clock = -1;
	return &tt->t;
}

void tsdl_field_release(struct ctf_field *f)
{
	free(f->name);
	free(f->orig_name);
	tsdl_type_destroy(f->type);
	memset(f, 0, sizeof(*f));
}

static void fields_free(struct ctf_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tsdl_field_release(&fields[i]);
	free(fields);
}

void tsdl_type_destroy(struct ctf_type *t)
{
	if (!t)
		return;
	switch (t->kind) {
	case CTF_TYPE_ENUM:
		tsdl_type_destroy(t->enumeration.container);
		for (size_t i = 0; i < t->enumeration.n_mappings; i++)
			free(t->enumeration.mappings[i].label);
		free(t->enumeration.mappings);
		break;
	case CTF_TYPE_STRUCT:
		fields_free(t->structure.fields, t->structure.n_fields);
		break;
	case CTF_TYPE_VARIANT:
		fields_free(t->variant.options, t->variant.n_options);
		free(t->variant.tag_name);
		free(t->variant.tag.index);
		break;
	case CTF_TYPE_ARRAY:
		tsdl_type_destroy(t->array.elem);
		break;
	case CTF_TYPE_SEQUENCE:
		tsdl_type_destroy(t->sequence.elem);
		free(t->sequence.length_name);
		free(t->sequence.length.index);
		break;
	default:
		break;
	}
	free(tsdl_type_of(t));
}

static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

static int fields_copy(struct tsdl_budget *b, struct ctf_field **dst, const struct ctf_field *src,
		       size_t n)
{
	struct ctf_field *f;
	bool fail = false;

	*dst = NULL;
	if (!n)
		return 0;
	f = calloc(n, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		f[i].name = dup_or_null(src[i].name, &fail);
		f[i].orig_name = dup_or_null(src[i].orig_name, &fail);
		f[i].hidden = src[i].hidden;
		if (!fail) {
			f[i].type = tsdl_type_copy(b, src[i].type);
			fail = !f[i].type;
		}
		if (fail) {
			int e = errno == E2BIG ? -E2BIG : -ENOMEM;

			fields_free(f, i + 1);
			return e;
		}
	}
	*dst = f;
	return 0;
}

/*
 * Deep copy, as babeltrace2 does for every use of a type alias, so each
 * field gets its own clock mapping, meaning and hidden flag. Resolved
 * field paths are not copied: resolution runs after parsing.
 */
struct ctf_type *tsdl_type_copy(struct tsdl_budget *b, const struct ctf_type *src)
{
	struct ctf_type *t = tsdl_type_new(b, src->kind);
	bool fail = false;
	int ret;

	if (!t)
		return NULL;
	tsdl_type_of(t)->depth = tsdl_type_of((struct ctf_type *)src)->depth;
	switch (src->kind) {
	case CTF_TYPE_INT:
	case CTF_TYPE_FLOAT:
	case CTF_TYPE_STRING:
		*t = *src;
		return t;
	case CTF_TYPE_ENUM:
		t->align = src->align;
		t->enumeration.container = tsdl_type_copy(b, src->enumeration.container);
		if (!t->enumeration.container)
			goto fail;
		if (src->enumeration.n_mappings) {
			if (b) {
				/* A mapping costs about as much as a node. */
				if (b->nodes_left < src->enumeration.n_mappings / 4) {
					errno = E2BIG;
					goto fail;
				}
				b->nodes_left -= src->enumeration.n_mappings / 4;
			}
			t->enumeration.mappings = calloc(src->enumeration.n_mappings,
							 sizeof(struct ctf_enum_mapping));
			if (!t->enumeration.mappings) {
				errno = ENOMEM;
				goto fail;
			}
			for (size_t i = 0; i < src->enumeration.n_mappings; i++) {
				t->enumeration.mappings[i] = src->enumeration.mappings[i];
				t->enumeration.mappings[i].label =
					dup_or_null(src->enumeration.mappings[i].label, &fail);
				t->enumeration.n_mappings = i + 1;
				if (fail) {
					errno = ENOMEM;
					goto fail;
				}
			}
		}
		return t;
	case CTF_TYPE_STRUCT:
		t->align = src->align;
		ret = fields_copy(b, &t->structure.fields, src->structure.fields,
				  src->structure.n_fields);
		if (ret)
			goto fail_ret;
		t->structure.n_fields = src->structure.n_fields;
		return t;
	case CTF_TYPE_VARIANT:
		t->align = src->align;
		t->variant.tag_name = dup_or_null(src->variant.tag_name, &fail);
		if (fail) {
			errno = ENOMEM;
			goto fail;
		}
		ret = fields_copy(b, &t->variant.options, src->variant.options,
				  src->variant.n_options);
		if (ret)
			goto fail_ret;
		t->variant.n_options = src->variant.n_options;
		return t;
	case CTF_TYPE_ARRAY:
		t->align = src->align;
		t->array.length = src->array.length;
		t->array.is_text = src->array.is_text;
		t->array.elem = tsdl_type_copy(b, src->array.elem);
		if (!t->array.elem)
			goto fail;
		return t;
	case CTF_TYPE_SEQUENCE:
		t->align = src->align;
		t->sequence.is_text = src->sequence.is_text;
		t->sequence.length_name = dup_or_null(src->sequence.length_name, &fail);
		if (fail) {
			errno = ENOMEM;
			goto fail;
		}
		t->sequence.elem = tsdl_type_copy(b, src->sequence.elem);
		if (!t->sequence.elem)
			goto fail;
		return t;
	}
	errno = EINVAL;
	goto fail;

fail_ret:
	errno = -ret;
fail : {
	int e = errno;

	tsdl_type_destroy(t);
	errno = e;
	return NULL;
}
}

void tsdl_type_update_depth(struct ctf_type *t)
{
	uint32_t d = 0;

	switch (t->kind) {
	case CTF_TYPE_ENUM:
		d = tsdl_type_of(t->enumeration.container)->depth;
		break;
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++)
			d = MAX(d, tsdl_type_of(t->structure.fields[i].type)->depth);
		break;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			d = MAX(d, tsdl_type_of(t->variant.options[i].type)->depth);
		break;
	case CTF_TYPE_ARRAY:
		d = tsdl_type_of(t->array.elem)->depth;
		break;
	case CTF_TYPE_SEQUENCE:
		d = tsdl_type_of(t->sequence.elem)->depth;
		break;
	default:
		break;
	}
	tsdl_type_of(t)->depth = d + 1;
}

void tsdl_event_class_destroy(struct ctf_event_class *ec)
{
	if (!ec)
		return;
	free(ec->name);
	free(ec->emf_uri);
	tsdl_type_destroy(ec->context);
	tsdl_type_destroy(ec->payload);
	free(ec);
}

void tsdl_stream_class_destroy(struct ctf_stream_class *sc)
{
	if (!sc)
		return;
	tsdl_type_destroy(sc->packet_context);
	tsdl_type_destroy(sc->event_header);
	tsdl_type_destroy(sc->event_context);
	for (size_t i = 0; i < sc->n_events; i++)
		tsdl_event_class_destroy(sc->events[i]);
	free(sc->events);
	free(sc);
}

void ctf_trace_class_destroy(struct ctf_trace_class *tc)
{
	if (!tc)
		return;
	tsdl_type_destroy(tc->packet_header);
	for (size_t i = 0; i < tc->n_env; i++) {
		free(tc->env[i].key);
		free(tc->env[i].sval);
	}
	free(tc->env);
	for (size_t i = 0; i < tc->n_clocks; i++) {
		free(tc->clocks[i].name);
		free(tc->clocks[i].description);
	}
	free(tc->clocks);
	for (size_t i = 0; i < tc->n_streams; i++)
		tsdl_stream_class_destroy(tc->streams[i]);
	free(tc->streams);
	free(tc);
}
