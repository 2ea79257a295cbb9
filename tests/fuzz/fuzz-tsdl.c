/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the metadata reader: packet joining, TSDL lexing, parsing
 * and resolution. Writes nothing to disk. Every trace class that parses is
 * checked against the invariants the decoder relies on (field paths lead to
 * integers/enums, alignments are powers of two, lookups are sorted).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf-ir.h"
#include "ctf/tsdl-internal.h"
#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static const struct ctf_type *follow(const struct ctf_type *const roots[CTF_SCOPE_COUNT],
				     const struct ctf_field_path *fp)
{
	const struct ctf_type *t;

	check(fp->scope < CTF_SCOPE_COUNT);
	t = roots[fp->scope];
	check(t != NULL);
	for (uint32_t k = 0; k < fp->len; k++) {
		while (t->kind == CTF_TYPE_ARRAY || t->kind == CTF_TYPE_SEQUENCE)
			t = t->kind == CTF_TYPE_ARRAY ? t->array.elem : t->sequence.elem;
		if (t->kind == CTF_TYPE_STRUCT) {
			check(fp->index[k] < t->structure.n_fields);
			t = t->structure.fields[fp->index[k]].type;
		} else {
			check(t->kind == CTF_TYPE_VARIANT);
			check(fp->index[k] < t->variant.n_options);
			t = t->variant.options[fp->index[k]].type;
		}
	}
	return t;
}

static void check_type(const struct ctf_type *const roots[CTF_SCOPE_COUNT],
		       const struct ctf_type *t, unsigned depth, size_t n_clocks)
{
	const struct ctf_type *target;

	check(t && depth < 200);
	check(t->align && !(t->align & (t->align - 1)));
	switch (t->kind) {
	case CTF_TYPE_INT:
		check(t->integer.size >= 1 && t->integer.size <= 64);
		check(t->integer.clock < (int32_t)n_clocks);
		break;
	case CTF_TYPE_FLOAT:
		check((t->flt.exp_dig == 8 && t->flt.mant_dig == 24) ||
		      (t->flt.exp_dig == 11 && t->flt.mant_dig == 53));
		break;
	case CTF_TYPE_STRING:
		break;
	case CTF_TYPE_ENUM:
		check(t->enumeration.container->kind == CTF_TYPE_INT);
		check_type(roots, t->enumeration.container, depth + 1, n_clocks);
		for (size_t i = 0; i < t->enumeration.n_mappings; i++)
			check(t->enumeration.mappings[i].label != NULL);
		break;
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++) {
			check(t->structure.fields[i].name && t->structure.fields[i].orig_name);
			check_type(roots, t->structure.fields[i].type, depth + 1, n_clocks);
		}
		break;
	case CTF_TYPE_VARIANT:
		target = follow(roots, &t->variant.tag);
		check(target->kind == CTF_TYPE_ENUM);
		for (size_t i = 0; i < t->variant.n_options; i++)
			check_type(roots, t->variant.options[i].type, depth + 1, n_clocks);
		break;
	case CTF_TYPE_ARRAY:
		check_type(roots, t->array.elem, depth + 1, n_clocks);
		break;
	case CTF_TYPE_SEQUENCE:
		target = follow(roots, &t->sequence.length);
		if (target->kind == CTF_TYPE_ENUM)
			target = target->enumeration.container;
		check(target->kind == CTF_TYPE_INT && !target->integer.is_signed);
		check_type(roots, t->sequence.elem, depth + 1, n_clocks);
		break;
	default:
		check(false);
	}
}

static void check_trace(const struct ctf_trace_class *tc)
{
	const struct ctf_type *roots[CTF_SCOPE_COUNT] = { tc->packet_header };

	if (tc->packet_header)
		check_type(roots, tc->packet_header, 0, tc->n_clocks);
	for (size_t s = 0; s < tc->n_streams; s++) {
		const struct ctf_stream_class *sc = tc->streams[s];

		check(!s || tc->streams[s - 1]->id < sc->id);
		check(ctf_trace_class_stream(tc, sc->id) == sc);
		check(sc->default_clock < (int32_t)tc->n_clocks);
		roots[CTF_SCOPE_PACKET_CONTEXT] = sc->packet_context;
		roots[CTF_SCOPE_EVENT_HEADER] = sc->event_header;
		roots[CTF_SCOPE_STREAM_EVENT_CONTEXT] = sc->event_context;
		for (int k = CTF_SCOPE_PACKET_CONTEXT; k <= CTF_SCOPE_STREAM_EVENT_CONTEXT; k++)
			if (roots[k])
				check_type(roots, roots[k], 0, tc->n_clocks);
		for (size_t e = 0; e < sc->n_events; e++) {
			const struct ctf_event_class *ec = sc->events[e];

			check(!e || sc->events[e - 1]->id < ec->id);
			check(ec->stream_class_id == sc->id);
			roots[CTF_SCOPE_EVENT_CONTEXT] = ec->context;
			roots[CTF_SCOPE_EVENT_PAYLOAD] = ec->payload;
			if (ec->context)
				check_type(roots, ec->context, 0, tc->n_clocks);
			if (ec->payload)
				check_type(roots, ec->payload, 0, tc->n_clocks);
		}
		roots[CTF_SCOPE_EVENT_CONTEXT] = roots[CTF_SCOPE_EVENT_PAYLOAD] = NULL;
	}
	for (size_t i = 0; i < tc->n_clocks; i++)
		check(tc->clocks[i].freq && tc->clocks[i].offset_cycles < tc->clocks[i].freq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_parse_error err;
	struct ctf_trace_class *tc = NULL;
	char *text = NULL;
	size_t len = 0;

	if (ctf_metadata_read_buf(data, size, &text, &len, &err) == 0) {
		if (ctf_metadata_parse(text, len, &tc, &err) == 0) {
			check_trace(tc);
			ctf_trace_class_destroy(tc);
		} else {
			check(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		}
		free(text);
	}
	return 0;
}
