/* SPDX-License-Identifier: MIT */
/*
 * TSDL parser and resolver: LTTng UST and kernel-style metadata, byte
 * orders, bit-fields, variants, enums, named types, arrays, sequences,
 * clocks, meanings and hidden fields.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsdl-test.h"
#include "common/common.h"

static char *load_data(const char *name, size_t *len)
{
	const char *root = getenv("STRATA_SOURCE_ROOT");
	char path[4096];
	struct ctf_parse_error err;
	char *text = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/tests/unit/tsdl/data/%s", root ? root : ".", name);
	ret = ctf_metadata_read(path, &text, len, &err);
	if (ret)
		fail_msg("cannot read %s: %d %s", path, ret, err.msg);
	return text;
}

static struct ctf_trace_class *parse_data(const char *name)
{
	struct ctf_parse_error err;
	struct ctf_trace_class *tc = NULL;
	size_t len;
	char *text = load_data(name, &len);
	int ret = ctf_metadata_parse(text, len, &tc, &err);

	free(text);
	if (ret)
		fail_msg("%s: parse failed (%d): line %u: %s", name, ret, err.line, err.msg);
	return tc;
}

static void test_ust_metadata(void **state)
{
	struct ctf_trace_class *tc = parse_data("ust.metadata");
	const struct ctf_stream_class *sc;
	const struct ctf_event_class *ec;
	const struct ctf_env_entry *env;
	const struct ctf_type *t, *v;
	const struct ctf_field *f;
	static const uint8_t uuid[16] = { 0x58, 0x87, 0x66, 0x1f, 0xc6, 0xa1, 0x40, 0x1c,
					  0xb5, 0xc6, 0x7d, 0xa1, 0x59, 0x7a, 0x8d, 0x24 };

	(void)state;
	assert_int_equal(tc->major, 1);
	assert_int_equal(tc->minor, 8);
	assert_true(tc->has_uuid);
	assert_memory_equal(tc->uuid, uuid, 16);
	assert_int_equal(tc->bo, CTF_BO_LE);

	/* env: strings and integers, in order */
	assert_int_equal(tc->n_env, 10);
	env = ctf_trace_class_env(tc, "hostname");
	assert_non_null(env);
	assert_false(env->is_int);
	assert_string_equal(env->sval, "vm");
	env = ctf_trace_class_env(tc, "tracer_major");
	assert_true(env->is_int);
	assert_int_equal(env->ival, 2);
	assert_string_equal(tc->env[0].key, "domain");
	assert_null(ctf_trace_class_env(tc, "nope"));

	/* clock: offset normalized into seconds + cycles; LTTng monotonic is absolute */
	assert_int_equal(tc->n_clocks, 1);
	assert_string_equal(tc->clocks[0].name, "monotonic");
	assert_string_equal(tc->clocks[0].description, "Monotonic Clock");
	assert_int_equal(tc->clocks[0].freq, 1000000000);
	assert_int_equal(tc->clocks[0].offset_s, 1796278581);
	assert_int_equal(tc->clocks[0].offset_cycles, 571687245);
	assert_true(tc->clocks[0].has_uuid);
	assert_int_equal(tc->clocks[0].uuid[0], 0xa5);
	assert_true(tc->clocks[0].absolute);

	/* packet header: meanings, everything hidden */
	t = tc->packet_header;
	assert_int_equal(t->structure.n_fields, 4);
	f = tsdl_field(t, "magic");
	assert_int_equal(f->type->integer.meaning, CTF_MEANING_MAGIC);
	assert_true(f->hidden);
	f = tsdl_field(t, "uuid");
	assert_int_equal(f->type->kind, CTF_TYPE_ARRAY);
	assert_int_equal(f->type->array.length, 16);
	assert_false(f->type->array.is_text);
	assert_int_equal(f->type->array.elem->integer.meaning, CTF_MEANING_UUID);
	assert_int_equal(tsdl_field(t, "stream_id")->type->integer.meaning, CTF_MEANING_STREAM_ID);
	assert_int_equal(tsdl_field(t, "stream_instance_id")->type->integer.meaning,
			 CTF_MEANING_STREAM_INSTANCE_ID);

	assert_int_equal(tc->n_streams, 1);
	sc = ctf_trace_class_stream(tc, 0);
	assert_non_null(sc);
	assert_int_equal(sc->default_clock, 0);

	/* packet context: six hidden meaning fields, cpu_id printed */
	t = sc->packet_context;
	assert_int_equal(t->structure.n_fields, 7);
	f = tsdl_field(t, "timestamp_begin");
	assert_int_equal(f->type->integer.meaning, CTF_MEANING_TS_BEGIN);
	assert_int_equal(f->type->integer.clock, 0);
	assert_true(f->hidden);
	assert_int_equal(tsdl_field(t, "timestamp_end")->type->integer.meaning, CTF_MEANING_TS_END);
	assert_int_equal(tsdl_field(t, "content_size")->type->integer.meaning,
			 CTF_MEANING_CONTENT_SIZE);
	assert_int_equal(tsdl_field(t, "packet_size")->type->integer.meaning,
			 CTF_MEANING_PACKET_SIZE);
	assert_int_equal(tsdl_field(t, "packet_seq_num")->type->integer.meaning,
			 CTF_MEANING_SEQ_NUM);
	f = tsdl_field(t, "events_discarded");
	assert_int_equal(f->type->integer.meaning, CTF_MEANING_DISC_EVENTS);
	assert_int_equal(f->type->integer.size, 64); /* `unsigned long` alias */
	assert_true(f->hidden);
	f = tsdl_field(t, "cpu_id");
	assert_false(f->hidden);
	assert_int_equal(f->type->integer.meaning, CTF_MEANING_NONE);
	assert_int_equal(f->type->integer.clock, -1);

	/* event header (large): enum id, variant v on it, nested id/timestamp */
	t = sc->event_header;
	assert_int_equal(t->align, 8);
	f = tsdl_field(t, "id");
	assert_int_equal(f->type->kind, CTF_TYPE_ENUM);
	assert_int_equal(f->type->enumeration.container->integer.size, 16);
	assert_int_equal(f->type->enumeration.container->integer.meaning, CTF_MEANING_EVENT_ID);
	assert_int_equal(f->type->enumeration.n_mappings, 2);
	assert_string_equal(f->type->enumeration.mappings[1].label, "extended");
	assert_int_equal(f->type->enumeration.mappings[0].hi.u, 65534);
	v = tsdl_field(t, "v")->type;
	assert_int_equal(v->kind, CTF_TYPE_VARIANT);
	assert_string_equal(v->variant.tag_name, "id");
	tsdl_assert_path(&v->variant.tag, CTF_SCOPE_EVENT_HEADER, 1, (uint32_t[]){ 0 });
	f = tsdl_field(tsdl_field(v, "compact")->type, "timestamp");
	assert_int_equal(f->type->integer.size, 32);
	assert_int_equal(f->type->integer.clock, 0);
	assert_int_equal(f->type->integer.meaning, CTF_MEANING_TIMESTAMP);
	f = tsdl_field(tsdl_field(v, "extended")->type, "id");
	assert_int_equal(f->type->integer.meaning, CTF_MEANING_EVENT_ID);
	assert_true(f->hidden);

	/* stream event context: one underscore stripped, procname a text array */
	t = sc->event_context;
	f = tsdl_field(t, "vpid");
	assert_string_equal(f->orig_name, "_vpid");
	assert_true(f->type->integer.is_signed);
	assert_false(f->hidden);
	f = tsdl_field(t, "procname");
	assert_int_equal(f->type->kind, CTF_TYPE_ARRAY);
	assert_int_equal(f->type->array.length, 17);
	assert_true(f->type->array.is_text);
	assert_int_equal(f->type->array.elem->integer.encoding, CTF_ENC_UTF8);

	/* events: sorted lookups, loglevel, emf */
	assert_int_equal(sc->n_events, 5);
	for (size_t i = 0; i < sc->n_events; i++)
		assert_int_equal(sc->events[i]->id, i);
	ec = tsdl_event(tc, 0, 0);
	assert_string_equal(ec->name, "rtest:ints");
	assert_true(ec->has_loglevel);
	assert_int_equal(ec->loglevel, 13);
	assert_null(ec->emf_uri);
	assert_null(ec->context);
	f = tsdl_field(ec->payload, "hs8");
	assert_int_equal(f->type->integer.base, 16);
	assert_int_equal(f->type->integer.size, 8);
	f = tsdl_field(ec->payload, "n16");
	assert_int_equal(f->type->integer.bo, CTF_BO_BE);
	assert_int_equal(tsdl_field(ec->payload, "u64")->type->integer.bo, CTF_BO_LE);

	ec = tsdl_event(tc, 0, 1);
	f = tsdl_field(ec->payload, "d");
	assert_int_equal(f->type->kind, CTF_TYPE_FLOAT);
	assert_int_equal(f->type->flt.exp_dig, 11);
	assert_int_equal(f->type->flt.mant_dig, 53);
	assert_int_equal(f->type->align, 8);

	ec = tsdl_event(tc, 0, 2);
	assert_string_equal(ec->emf_uri, "http://example.com/strings");
	assert_int_equal(tsdl_field(ec->payload, "str")->type->string.encoding, CTF_ENC_UTF8);
	assert_int_equal(tsdl_field(ec->payload, "astr")->type->string.encoding, CTF_ENC_ASCII);
	assert_true(tsdl_field(ec->payload, "arrtext")->type->array.is_text);
	f = tsdl_field(ec->payload, "_seqtext_length");
	assert_false(f->hidden);
	f = tsdl_field(ec->payload, "seqtext");
	assert_int_equal(f->type->kind, CTF_TYPE_SEQUENCE);
	assert_true(f->type->sequence.is_text);
	assert_string_equal(f->type->sequence.length_name, "__seqtext_length");
	tsdl_assert_path(&f->type->sequence.length, CTF_SCOPE_EVENT_PAYLOAD, 1, (uint32_t[]){ 3 });
	f = tsdl_field(ec->payload, "seqnum");
	assert_false(f->type->sequence.is_text);
	tsdl_assert_path(&f->type->sequence.length, CTF_SCOPE_EVENT_PAYLOAD, 1, (uint32_t[]){ 5 });

	ec = tsdl_event(tc, 0, 3);
	t = tsdl_field(ec->payload, "e")->type;
	assert_int_equal(t->enumeration.n_mappings, 3);
	assert_string_equal(t->enumeration.mappings[2].label, "AUTO");
	assert_int_equal(t->enumeration.mappings[2].lo.s, 21);
	f = tsdl_field(ec->payload, "v_padding");
	assert_int_equal(f->type->kind, CTF_TYPE_STRUCT);
	assert_int_equal(f->type->structure.n_fields, 0);
	assert_int_equal(f->type->align, 8);
	assert_false(f->hidden);
	v = tsdl_field(ec->payload, "v")->type;
	tsdl_assert_path(&v->variant.tag, CTF_SCOPE_EVENT_PAYLOAD, 1, (uint32_t[]){ 0 });
	assert_int_equal(v->variant.n_options, 3);
	assert_int_equal(v->align, 1);

	ec = tsdl_event(tc, 0, 4);
	assert_non_null(ec->payload);
	assert_int_equal(ec->payload->structure.n_fields, 0);
	assert_null(ctf_stream_class_event(sc, 5));
	assert_null(ctf_trace_class_stream(tc, 1));
	ctf_trace_class_destroy(tc);
}

/* lttng-modules style: compact header, kernel env, nested types. */
static void test_kernel_metadata(void **state)
{
	/* lttng-modules writes 4 KiB packets, text cut mid-token, no signature. */
	struct ctf_trace_class *tc = parse_data("kernel-packetized.metadata");
	const struct ctf_stream_class *sc = ctf_trace_class_stream(tc, 0);
	const struct ctf_event_class *ec;
	const struct ctf_type *v, *t;
	const struct ctf_field *f;

	(void)state;
	assert_non_null(sc);
	assert_string_equal(ctf_trace_class_env(tc, "domain")->sval, "kernel");
	assert_true(tc->clocks[0].absolute);
	v = tsdl_field(sc->event_header, "v")->type;
	f = tsdl_field(sc->event_header, "id");
	assert_int_equal(f->type->enumeration.container->integer.size, 5);
	assert_int_equal(f->type->enumeration.container->align, 1);
	f = tsdl_field(tsdl_field(v, "compact")->type, "timestamp");
	assert_int_equal(f->type->integer.size, 27);
	assert_int_equal(f->type->align, 1);
	assert_int_equal(f->type->integer.clock, 0);
	assert_int_equal(sc->n_events, 3);

	ec = tsdl_event(tc, 0, 0);
	assert_string_equal(ec->name, "sched_switch");
	assert_false(ec->has_loglevel);
	assert_true(tsdl_field(ec->payload, "prev_comm")->type->array.is_text);

	/* arrays of structs, sequences of variants tagged by a field in the element */
	ec = tsdl_event(tc, 0, 2);
	t = tsdl_field(ec->payload, "fds")->type;
	assert_int_equal(t->kind, CTF_TYPE_SEQUENCE);
	tsdl_assert_path(&t->sequence.length, CTF_SCOPE_EVENT_PAYLOAD, 1, (uint32_t[]){ 0 });
	t = t->sequence.elem;
	assert_int_equal(t->kind, CTF_TYPE_STRUCT);
	v = tsdl_field(t, "value")->type;
	assert_int_equal(v->kind, CTF_TYPE_VARIANT);
	tsdl_assert_path(&v->variant.tag, CTF_SCOPE_EVENT_PAYLOAD, 2, (uint32_t[]){ 1, 0 });
	ctf_trace_class_destroy(tc);
}

static void test_big_endian(void **state)
{
	/* The typealiases precede the trace block: native still means be. */
	struct ctf_trace_class *tc = tsdl_parse_ok(
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 16; align = 8; byte_order = native; } := u16n;\n"
		"typealias integer { size = 16; align = 8; byte_order = network; } := u16be;\n"
		"typealias integer { size = 16; align = 8; byte_order = le; } := u16le;\n"
		"typealias floating_point { exp_dig = 8; mant_dig = 24; } := float;\n"
		"trace { major = 1; minor = 8; byte_order = be; packet.header := struct { uint32_t "
		"magic; }; };\n"
		"event { name = \"x\"; fields := struct { uint32_t a; u16n b; u16be c; u16le d; "
		"float f; "
		"integer { size = 8; byte_order = little; } e; integer { size = 8; byte_order = big; "
		"} g; }; };\n");
	const struct ctf_event_class *ec = tsdl_event(tc, 0, 0);

	(void)state;
	assert_int_equal(tc->bo, CTF_BO_BE);
	assert_int_equal(tsdl_field(tc->packet_header, "magic")->type->integer.bo, CTF_BO_BE);
	assert_int_equal(tsdl_field(ec->payload, "a")->type->integer.bo, CTF_BO_BE);
	assert_int_equal(tsdl_field(ec->payload, "b")->type->integer.bo, CTF_BO_BE);
	assert_int_equal(tsdl_field(ec->payload, "c")->type->integer.bo, CTF_BO_BE);
	assert_int_equal(tsdl_field(ec->payload, "d")->type->integer.bo, CTF_BO_LE);
	assert_int_equal(tsdl_field(ec->payload, "e")->type->integer.bo, CTF_BO_LE);
	assert_int_equal(tsdl_field(ec->payload, "g")->type->integer.bo, CTF_BO_BE);
	assert_int_equal(tsdl_field(ec->payload, "f")->type->flt.bo, CTF_BO_BE);
	/* One implicit stream class, id 0. */
	assert_int_equal(tc->n_streams, 1);
	assert_int_equal(tc->streams[0]->id, 0);
	ctf_trace_class_destroy(tc);
}

static void test_bitfields_and_alignment(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE "event { name = \"bits\"; fields := struct {\n"
			      "  integer { size = 3; signed = true; } a;\n"
			      "  integer { size = 5; base = binary; } b;\n"
			      "  integer { size = 12; base = oct; } c;\n"
			      "  integer { size = 4; signed = 1; base = x; } d;\n"
			      "  uint32_t e:7, f:1;\n"
			      "  integer { size = 16; align = 32; base = 16; } g;\n"
			      "  struct { uint8_t x; } align(64) h;\n"
			      "  struct { integer { size = 64; align = 64; } y; } i;\n"
			      "}; };\n");
	const struct ctf_type *p = tsdl_event(tc, 0, 0)->payload;

	(void)state;
	assert_int_equal(tsdl_field(p, "a")->type->align, 1);
	assert_true(tsdl_field(p, "a")->type->integer.is_signed);
	assert_int_equal(tsdl_field(p, "b")->type->integer.base, 2);
	assert_int_equal(tsdl_field(p, "c")->type->integer.base, 8);
	assert_int_equal(tsdl_field(p, "c")->type->integer.size, 12);
	assert_int_equal(tsdl_field(p, "d")->type->integer.base, 16);
	assert_int_equal(tsdl_field(p, "e")->type->integer.size, 7);
	assert_int_equal(tsdl_field(p, "e")->type->align, 1);
	assert_int_equal(tsdl_field(p, "f")->type->integer.size, 1);
	assert_int_equal(tsdl_field(p, "g")->type->align, 32);
	assert_int_equal(tsdl_field(p, "h")->type->align, 64);
	assert_int_equal(tsdl_field(p, "i")->type->align, 64);
	assert_int_equal(p->align, 64);
	ctf_trace_class_destroy(tc);
}

static void test_variants(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE
		"enum sel : uint8_t { A, B, C };\n"
		"variant named { uint8_t A; uint16_t B; string C; };\n"
		"stream { event.context := struct { enum sel ctx_tag; }; };\n"
		"event { name = \"v\"; fields := struct {\n"
		"  enum sel tag;\n"
		"  struct {\n"
		"    uint8_t pad;\n"
		"    variant <tag> { uint8_t A; struct { enum sel t2; variant <t2> { uint8_t A; "
		"uint8_t B; uint8_t C; } in; } B; string C; } outer;\n"
		"  } s;\n"
		"  variant named <event.fields.tag> byname;\n"
		"  variant <stream.event.context.ctx_tag> { uint8_t A; uint8_t B; uint8_t C; } "
		"fromctx;\n"
		"}; };\n");
	const struct ctf_type *p = tsdl_event(tc, 0, 0)->payload, *s, *o, *in;

	(void)state;
	s = tsdl_field(p, "s")->type;
	o = tsdl_field(s, "outer")->type;
	/* Tag in an outer struct: found by walking outwards. */
	tsdl_assert_path(&o->variant.tag, CTF_SCOPE_EVENT_PAYLOAD, 1, (uint32_t[]){ 0 });
	in = tsdl_field(tsdl_field(o, "B")->type, "in")->type;
	/* Path through the selected variant option: s, outer, B, t2. */
	tsdl_assert_path(&in->variant.tag, CTF_SCOPE_EVENT_PAYLOAD, 4, (uint32_t[]){ 1, 1, 1, 0 });
	o = tsdl_field(p, "byname")->type;
	assert_string_equal(o->variant.tag_name, "event.fields.tag");
	assert_int_equal(o->variant.n_options, 3);
	tsdl_assert_path(&o->variant.tag, CTF_SCOPE_EVENT_PAYLOAD, 1, (uint32_t[]){ 0 });
	o = tsdl_field(p, "fromctx")->type;
	tsdl_assert_path(&o->variant.tag, CTF_SCOPE_STREAM_EVENT_CONTEXT, 1, (uint32_t[]){ 0 });
	/* The tag stays printed; variants themselves too. */
	assert_false(tsdl_field(p, "tag")->hidden);
	ctf_trace_class_destroy(tc);
}

static void test_enums(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE
		"typealias integer { size = 32; align = 8; signed = true; } := int;\n"
		"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
		"event { name = \"e\"; fields := struct {\n"
		"  enum { ZERO, ONE, TEN = 10, ELEVEN, \"quoted label\" = 20 ... 29, OVER = 25 ... 35, "
		"NEXT } dflt;\n"
		"  enum : int8_t { NEG = -128 ... -1, Z = 0, P = 1 ... 127 } sgn;\n"
		"  enum : int8_t { M3 = -3, M2, M1, } impl;\n"
		"  enum : uint64_t { BIG = 0xFFFFFFFFFFFFFFFF } big;\n"
		"  enum : integer { size = 8; } { _under = 1, struct = 2 } kw;\n"
		"}; };\n");
	const struct ctf_type *p = tsdl_event(tc, 0, 0)->payload, *e;

	(void)state;
	e = tsdl_field(p, "dflt")->type;
	assert_int_equal(e->enumeration.container->integer.size, 32);
	assert_true(e->enumeration.container->integer.is_signed);
	assert_int_equal(e->enumeration.n_mappings, 7);
	assert_int_equal(e->enumeration.mappings[0].lo.s, 0);
	assert_int_equal(e->enumeration.mappings[1].lo.s, 1);
	assert_int_equal(e->enumeration.mappings[3].lo.s, 11);
	assert_string_equal(e->enumeration.mappings[4].label, "quoted label");
	assert_int_equal(e->enumeration.mappings[4].lo.s, 20);
	assert_int_equal(e->enumeration.mappings[4].hi.s, 29);
	assert_int_equal(e->enumeration.mappings[5].lo.s, 25);
	assert_int_equal(e->enumeration.mappings[6].lo.s, 36);
	assert_int_equal(e->align, 8);

	e = tsdl_field(p, "sgn")->type;
	assert_int_equal(e->enumeration.mappings[0].lo.s, -128);
	assert_int_equal(e->enumeration.mappings[0].hi.s, -1);
	assert_int_equal(e->enumeration.mappings[2].hi.s, 127);
	e = tsdl_field(p, "impl")->type;
	assert_int_equal(e->enumeration.n_mappings, 3);
	assert_int_equal(e->enumeration.mappings[1].lo.s, -2);
	assert_int_equal(e->enumeration.mappings[2].lo.s, -1);
	e = tsdl_field(p, "big")->type;
	assert_true(e->enumeration.mappings[0].lo.u == UINT64_MAX);
	/* Labels are kept as written (babeltrace2 prints "_under"). */
	e = tsdl_field(p, "kw")->type;
	assert_string_equal(e->enumeration.mappings[0].label, "_under");
	assert_string_equal(e->enumeration.mappings[1].label, "struct");
	assert_int_equal(e->enumeration.container->align, 8);
	ctf_trace_class_destroy(tc);
}

static void test_enum_errors(void **state)
{
	struct ctf_parse_error err;

	(void)state;
	/* No container and no `int` declared. */
	assert_int_equal(tsdl_parse_fail(TSDL_PROLOGUE "enum e { A };\n", &err), -STRATA_EMETADATA);
	assert_int_equal(err.line, 8);
	assert_non_null(strstr(err.msg, "int"));
	/* Container must be an integer. */
	tsdl_parse_fail(TSDL_PROLOGUE "typealias floating_point { exp_dig = 8; mant_dig = 24; } := "
				      "flt;\nenum e : flt { A };\n",
			&err);
	assert_non_null(strstr(err.msg, "integer"));
	/* Range start after its end. */
	tsdl_parse_fail(TSDL_PROLOGUE "enum e : uint8_t { A = 5 ... 1 };\n", &err);
	assert_non_null(strstr(err.msg, "range"));
}

static void test_typedef_struct_refs(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE
		"typedef uint8_t byte_t;\n"
		"typedef byte_t mac_t[6];\n"
		"typedef struct { uint16_t port; mac_t mac; } ep_t;\n"
		"struct pair { ep_t src; ep_t dst; };\n"
		"typealias struct pair := pair_t;\n"
		"event { name = \"n\"; fields := struct {\n"
		"  struct pair p;\n"
		"  pair_t q;\n"
		"  struct local { typealias integer { size = 24; } := u24; u24 x; } l;\n"
		"  struct local again;\n"
		"  byte_t b;\n"
		"}; };\n");
	const struct ctf_type *p = tsdl_event(tc, 0, 0)->payload, *t;

	(void)state;
	t = tsdl_field(p, "p")->type;
	assert_int_equal(t->kind, CTF_TYPE_STRUCT);
	t = tsdl_field(tsdl_field(t, "dst")->type, "mac")->type;
	assert_int_equal(t->kind, CTF_TYPE_ARRAY);
	assert_int_equal(t->array.length, 6);
	assert_int_equal(t->array.elem->integer.size, 8);
	t = tsdl_field(tsdl_field(p, "q")->type, "src")->type;
	assert_int_equal(tsdl_field(t, "port")->type->integer.size, 16);
	assert_int_equal(tsdl_field(tsdl_field(p, "again")->type, "x")->type->integer.size, 24);
	/* Types are copies: meanings/flags on one use do not leak to another. */
	assert_ptr_not_equal(tsdl_field(p, "p")->type, tsdl_field(p, "q")->type);
	ctf_trace_class_destroy(tc);
}

static void test_scoped_aliases(void **state)
{
	struct ctf_parse_error err;

	(void)state;
	/* An alias declared inside a struct is not visible outside. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"s\"; fields := struct {\n"
				      "  struct { typealias uint8_t := inner_t; inner_t a; } s;\n"
				      "  inner_t b;\n"
				      "}; };\n",
			&err);
	assert_int_equal(err.line, 10);
	assert_non_null(strstr(err.msg, "inner_t"));
}

static void test_arrays_and_sequences(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_TYPES
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  packet.header := struct { uint32_t magic; uint32_t stream_id; uint8_t hlen; "
		"}; };\n"
		"stream { id = 3; packet.context := struct { uint16_t plen; };\n"
		"  event.header := struct { uint8_t id; uint8_t elen; };\n"
		"  event.context := struct { uint8_t clen; }; };\n"
		"stream { id = 1; };\n"
		"event { name = \"a\"; id = 7; stream_id = 3; context := struct { uint8_t xlen; };\n"
		" fields := struct {\n"
		"  uint8_t m[2][3];\n"
		"  uint8_t cube[2][3][4];\n"
		"  uint8_t n;\n"
		"  uint8_t rel[n];\n"
		"  uint8_t h[trace.packet.header.hlen];\n"
		"  uint8_t pc[stream.packet.context.plen];\n"
		"  uint8_t eh[stream.event.header.elen];\n"
		"  uint8_t sec[stream.event.context.clen];\n"
		"  uint8_t ec[event.context.xlen];\n"
		"  uint8_t ef[event.fields.n];\n"
		"  struct { uint8_t len; uint8_t d[len]; } items[n];\n"
		"  uint8_t grid[n][2];\n"
		"}; };\n");
	const struct ctf_event_class *ec = tsdl_event(tc, 3, 7);
	const struct ctf_type *p = ec->payload, *t;

	(void)state;
	assert_int_equal(tc->n_streams, 2);
	assert_int_equal(tc->streams[0]->id, 1);
	assert_int_equal(tc->streams[1]->id, 3);
	t = tsdl_field(p, "m")->type;
	assert_int_equal(t->kind, CTF_TYPE_ARRAY);
	assert_int_equal(t->array.length, 2);
	assert_int_equal(t->array.elem->kind, CTF_TYPE_ARRAY);
	assert_int_equal(t->array.elem->array.length, 3);
	assert_int_equal(t->array.elem->array.elem->kind, CTF_TYPE_INT);
	t = tsdl_field(p, "cube")->type;
	assert_int_equal(t->array.length, 2);
	assert_int_equal(t->array.elem->array.length, 3);
	assert_int_equal(t->array.elem->array.elem->array.length, 4);

	tsdl_assert_path(&tsdl_field(p, "rel")->type->sequence.length, CTF_SCOPE_EVENT_PAYLOAD, 1,
			 (uint32_t[]){ 2 });
	tsdl_assert_path(&tsdl_field(p, "h")->type->sequence.length, CTF_SCOPE_PACKET_HEADER, 1,
			 (uint32_t[]){ 2 });
	tsdl_assert_path(&tsdl_field(p, "pc")->type->sequence.length, CTF_SCOPE_PACKET_CONTEXT, 1,
			 (uint32_t[]){ 0 });
	tsdl_assert_path(&tsdl_field(p, "eh")->type->sequence.length, CTF_SCOPE_EVENT_HEADER, 1,
			 (uint32_t[]){ 1 });
	tsdl_assert_path(&tsdl_field(p, "sec")->type->sequence.length,
			 CTF_SCOPE_STREAM_EVENT_CONTEXT, 1, (uint32_t[]){ 0 });
	tsdl_assert_path(&tsdl_field(p, "ec")->type->sequence.length, CTF_SCOPE_EVENT_CONTEXT, 1,
			 (uint32_t[]){ 0 });
	tsdl_assert_path(&tsdl_field(p, "ef")->type->sequence.length, CTF_SCOPE_EVENT_PAYLOAD, 1,
			 (uint32_t[]){ 2 });
	/* Crossing the array: items (10), its element struct, len (0). */
	t = tsdl_field(p, "items")->type;
	tsdl_assert_path(&t->sequence.length, CTF_SCOPE_EVENT_PAYLOAD, 1, (uint32_t[]){ 2 });
	t = tsdl_field(t->sequence.elem, "d")->type;
	tsdl_assert_path(&t->sequence.length, CTF_SCOPE_EVENT_PAYLOAD, 2, (uint32_t[]){ 10, 0 });
	/* grid is n sequences of 2-arrays. */
	t = tsdl_field(p, "grid")->type;
	assert_int_equal(t->kind, CTF_TYPE_SEQUENCE);
	assert_int_equal(t->sequence.elem->kind, CTF_TYPE_ARRAY);
	assert_int_equal(t->sequence.elem->array.length, 2);
	/* Not a meaning field: the packet header's hlen is still hidden (header). */
	assert_true(tsdl_field(tc->packet_header, "hlen")->hidden);
	ctf_trace_class_destroy(tc);
}

static void test_path_errors(void **state)
{
	struct ctf_parse_error err;

	(void)state;
	/* Length declared after the sequence. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"p\"; fields := struct { uint8_t s[n]; "
				      "uint8_t n; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "cannot find field 'n'"));
	assert_non_null(strstr(err.msg, "event 'p'"));
	/* Signed length. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"p\"; fields := struct { int32_t n; "
				      "uint8_t s[n]; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "unsigned"));
	/* Variant tag not an enum. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"p\"; fields := struct { uint8_t t; "
				      "variant <t> { uint8_t a; } v; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "enumeration"));
	/* Absolute path to a later scope. */
	tsdl_parse_fail(TSDL_PROLOGUE "stream { event.context := struct { uint8_t "
				      "s[event.fields.n]; }; };\n"
				      "event { name = \"p\"; fields := struct { uint8_t n; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "later scope"));
	/* Absolute path in the same scope, to a later field. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"p\"; fields := struct { uint8_t "
				      "s[event.fields.n]; uint8_t n; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "precede"));
	/* Variant without tag used as a field. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"p\"; fields := struct { variant { uint8_t "
				      "a; } v; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "without a tag"));
}

static void test_clocks(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE
		"clock { name = slow; freq = 1000; offset_s = -100; offset = 2500; precision = 3; "
		"absolute = TRUE; };\n"
		"typealias integer { size = 32; map = clock.slow.value; } := slow_t;\n"
		"stream { packet.context := struct { uint64_t timestamp_begin; slow_t "
		"timestamp_end; };\n"
		"  event.header := struct { uint8_t id; uint32_t timestamp; }; };\n"
		"event { name = \"c\"; fields := struct { slow_t ts_field; uint8_t after; slow_t len; "
		"uint8_t s[len]; }; };\n");
	const struct ctf_stream_class *sc = ctf_trace_class_stream(tc, 0);
	const struct ctf_type *p = tsdl_event(tc, 0, 0)->payload;

	(void)state;
	assert_int_equal(tc->n_clocks, 1);
	assert_int_equal(tc->clocks[0].freq, 1000);
	assert_int_equal(tc->clocks[0].offset_s, -98);
	assert_int_equal(tc->clocks[0].offset_cycles, 500);
	assert_int_equal(tc->clocks[0].precision, 3);
	assert_true(tc->clocks[0].absolute);
	assert_false(tc->clocks[0].has_uuid);
	assert_null(tc->clocks[0].description);
	assert_int_equal(sc->default_clock, 0);
	/* Unmapped timestamp fields get the single clock (babeltrace2). */
	assert_int_equal(tsdl_field(sc->packet_context, "timestamp_begin")->type->integer.clock, 0);
	assert_int_equal(tsdl_field(sc->event_header, "timestamp")->type->integer.clock, 0);
	/* A clock-mapped payload field is hidden unless a sequence depends on it. */
	assert_true(tsdl_field(p, "ts_field")->hidden);
	assert_false(tsdl_field(p, "after")->hidden);
	assert_false(tsdl_field(p, "len")->hidden);
	assert_false(tsdl_field(p, "s")->hidden);
	ctf_trace_class_destroy(tc);
}

/*
 * A clock declared again under the same name (babeltrace2's CTF writer
 * does it before each stream class) is kept, and mappings take the first,
 * as in babeltrace2; the trace then has two clocks, so an unmapped
 * timestamp is ambiguous there too.
 */
static void test_clock_declared_twice(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE "clock { name = a; freq = 1000; };\n"
			      "typealias integer { size = 32; map = clock.a.value; } := a_t;\n"
			      "stream { event.header := struct { uint8_t id; a_t timestamp; }; };\n"
			      "clock { name = a; freq = 2000; };\n"
			      "typealias integer { size = 64; map = clock.a.value; } := a64_t;\n"
			      "event { name = \"e\"; fields := struct { a64_t t; }; };\n");
	const struct ctf_stream_class *sc = ctf_trace_class_stream(tc, 0);
	struct ctf_parse_error err;

	(void)state;
	assert_int_equal(tc->n_clocks, 2);
	assert_int_equal(tc->clocks[0].freq, 1000);
	assert_int_equal(tc->clocks[1].freq, 2000);
	assert_string_equal(tc->clocks[1].name, "a");
	assert_int_equal(sc->default_clock, 0);
	assert_int_equal(tsdl_field(tsdl_event(tc, 0, 0)->payload, "t")->type->integer.clock, 0);
	ctf_trace_class_destroy(tc);
	tsdl_parse_fail(TSDL_PROLOGUE
			"clock { name = a; }; clock { name = a; };\n"
			"stream { event.header := struct { uint32_t timestamp; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "more than one clock"));
}

static void test_implicit_clock_default(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE
		"stream { packet.context := struct { uint64_t timestamp_begin; uint64_t "
		"timestamp_end; uint32_t cpu; };\n"
		"  event.header := struct { enum : uint8_t { a = 0 ... 254, b = 255 } id;\n"
		"    variant <id> { struct { uint32_t timestamp; } a; struct { uint64_t timestamp; "
		"} b; } v; }; };\n"
		"event { name = \"z\"; fields := struct { uint64_t timestamp; }; };\n");
	const struct ctf_stream_class *sc = ctf_trace_class_stream(tc, 0);
	const struct ctf_type *v;

	(void)state;
	assert_int_equal(tc->n_clocks, 1);
	assert_string_equal(tc->clocks[0].name, "default");
	assert_int_equal(tc->clocks[0].freq, 1000000000);
	assert_int_equal(tc->clocks[0].offset_s, 0);
	assert_int_equal(tc->clocks[0].offset_cycles, 0);
	assert_false(tc->clocks[0].absolute);
	assert_int_equal(sc->default_clock, 0);
	assert_int_equal(tsdl_field(sc->packet_context, "timestamp_end")->type->integer.clock, 0);
	v = tsdl_field(sc->event_header, "v")->type;
	assert_int_equal(tsdl_field(tsdl_field(v, "a")->type, "timestamp")->type->integer.clock, 0);
	assert_int_equal(tsdl_field(tsdl_field(v, "b")->type, "timestamp")->type->integer.clock, 0);
	/* Only the header and packet context are auto-mapped. */
	assert_int_equal(
		tsdl_field(tsdl_event(tc, 0, 0)->payload, "timestamp")->type->integer.clock, -1);
	assert_false(tsdl_field(tsdl_event(tc, 0, 0)->payload, "timestamp")->hidden);
	/* The packet context prints only cpu. */
	assert_true(tsdl_field(sc->packet_context, "timestamp_begin")->hidden);
	assert_false(tsdl_field(sc->packet_context, "cpu")->hidden);
	ctf_trace_class_destroy(tc);
}

static void test_no_timestamps_no_clock(void **state)
{
	struct ctf_trace_class *tc =
		tsdl_parse_ok(TSDL_PROLOGUE "event { name = \"n\"; fields := struct { uint8_t x; "
					    "}; };\n");

	(void)state;
	assert_int_equal(tc->n_clocks, 0);
	assert_int_equal(tc->streams[0]->default_clock, -1);
	assert_null(tc->packet_header);
	assert_null(tc->streams[0]->packet_context);
	ctf_trace_class_destroy(tc);
}

static void test_clock_errors(void **state)
{
	struct ctf_parse_error err;

	(void)state;
	/* Negative offset: rejected like babeltrace2. */
	assert_int_equal(
		tsdl_parse_fail(TSDL_PROLOGUE "clock {\n name = c;\n offset = -500;\n};\n", &err),
		-STRATA_EMETADATA);
	assert_int_equal(err.line, 10);
	assert_non_null(strstr(err.msg, "negative"));
	/* Two clocks, unmapped timestamp. */
	tsdl_parse_fail(TSDL_PROLOGUE
			"clock { name = a; }; clock { name = b; };\n"
			"stream { event.header := struct { uint32_t timestamp; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "more than one clock"));
	/* Two clocks in one stream. */
	tsdl_parse_fail(TSDL_PROLOGUE
			"clock { name = a; }; clock { name = b; };\n"
			"stream { event.header := struct { integer { size = 32; map = "
			"clock.a.value; } timestamp; };\n"
			" packet.context := struct { integer { size = 64; map = "
			"clock.b.value; } timestamp_begin; }; };\n",
			&err);
	assert_non_null(strstr(err.msg, "more than one clock"));
	/* Unknown clock in map. */
	tsdl_parse_fail(TSDL_PROLOGUE "typealias integer { size = 8; map = clock.nope.value; } := "
				      "x;\n",
			&err);
	assert_int_equal(err.line, 8);
	assert_non_null(strstr(err.msg, "nope"));
	/* Zero frequency. */
	tsdl_parse_fail(TSDL_PROLOGUE "clock { name = a; freq = 0; };\n", &err);
	assert_non_null(strstr(err.msg, "freq"));
	/* Offset too large for int64 seconds. */
	tsdl_parse_fail(TSDL_PROLOGUE "clock { name = a; freq = 1; offset_s = 9223372036854775807; "
				      "offset = 10; };\n",
			&err);
	assert_non_null(strstr(err.msg, "out of range"));
}

static void test_lexical(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		"/* CTF 1.8 */ // line comment\n"
		"typealias integer { size = 0x20; align = 010; signed = FALSE; } := unsigned int;\n"
		"typealias integer { size = 8UL; align = 8u; signed = +0; } := const char;\n"
		"trace { major = 1; minor = 8; byte_order = \"le\"; uuid = "
		"\"0123ABCD-ef01-2345-6789-abcdefABCDEF\"; };\n"
		"env { s = \"tab\\there \\\"q\\\" \\\\ \\x41\\101\\n\"; neg = -42; big = "
		"0xFFFFFFFFFFFFFFFF; ident = some_ident; dotted.key = 1; };\n"
		"clock { name = \"c\\x31\"; offset_s = +5; offset = 'A'; };\n"
		"event {\n name = ev;\n fields := struct { unsigned int a; const char b; };\n"
		" unknown_attr = 12; another.unknown := struct { unsigned int z; };\n};\n"
		"callsite { name = \"x\"; func = \"f\"; file = \"a.c\"; line = 1; ip = 0x1; };\n");
	const struct ctf_env_entry *e;

	(void)state;
	assert_int_equal(tc->uuid[0], 0x01);
	assert_int_equal(tc->uuid[3], 0xcd);
	assert_int_equal(tc->uuid[15], 0xef);
	e = ctf_trace_class_env(tc, "s");
	assert_string_equal(e->sval, "tab\there \"q\" \\ AA\n");
	assert_int_equal(ctf_trace_class_env(tc, "neg")->ival, -42);
	assert_int_equal(ctf_trace_class_env(tc, "big")->ival, -1);
	assert_string_equal(ctf_trace_class_env(tc, "ident")->sval, "some_ident");
	assert_true(ctf_trace_class_env(tc, "dotted.key")->is_int);
	assert_string_equal(tc->clocks[0].name, "c1");
	assert_int_equal(tc->clocks[0].offset_s, 5);
	assert_int_equal(tc->clocks[0].offset_cycles, 65);
	assert_string_equal(tsdl_event(tc, 0, 0)->name, "ev");
	assert_int_equal(tsdl_field(tsdl_event(tc, 0, 0)->payload, "a")->type->integer.size, 32);
	assert_int_equal(tsdl_field(tsdl_event(tc, 0, 0)->payload, "a")->type->align, 8);
	assert_false(tsdl_event(tc, 0, 0)->has_loglevel);
	ctf_trace_class_destroy(tc);
}

static void test_env_duplicate_key(void **state)
{
	struct ctf_trace_class *tc =
		tsdl_parse_ok(TSDL_PROLOGUE "env { k = 1; j = \"x\"; k = \"two\"; };\n");

	(void)state;
	assert_int_equal(tc->n_env, 2);
	assert_false(ctf_trace_class_env(tc, "k")->is_int);
	assert_string_equal(ctf_trace_class_env(tc, "k")->sval, "two");
	ctf_trace_class_destroy(tc);
}

static void test_event_stream_defaults(void **state)
{
	struct ctf_parse_error err;
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_TYPES
		"trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint8_t stream_id; }; };\n"
		"stream { id = 5; };\n"
		"event { name = \"first\"; };\n"
		"event { name = \"second\"; id = 9; };\n");

	(void)state;
	assert_string_equal(tsdl_event(tc, 5, 0)->name, "first");
	assert_null(tsdl_event(tc, 5, 0)->payload);
	assert_string_equal(tsdl_event(tc, 5, 9)->name, "second");
	assert_int_equal(tsdl_event(tc, 5, 9)->stream_class_id, 5);
	ctf_trace_class_destroy(tc);

	/* Two streams: stream_id required. */
	tsdl_parse_fail(
		TSDL_TYPES
		"trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint8_t stream_id; }; };\n"
		"stream { id = 0; }; stream { id = 1; };\n"
		"event { name = \"e\"; id = 1; };\n",
		&err);
	assert_int_equal(err.line, 9);
	assert_non_null(strstr(err.msg, "stream_id"));
	/* Second event without id. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"a\"; }; event { name = \"b\"; };\n", &err);
	assert_non_null(strstr(err.msg, "`id`"));
	/* Duplicate event id. */
	tsdl_parse_fail(TSDL_PROLOGUE "event { name = \"a\"; id = 1; }; event { name = \"b\"; id = "
				      "1; };\n",
			&err);
	assert_non_null(strstr(err.msg, "duplicate event id 1"));
	/* Unknown stream. */
	tsdl_parse_fail(
		TSDL_TYPES
		"trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint8_t stream_id; }; };\n"
		"stream { id = 0; }; event { name = \"e\"; stream_id = 4; };\n",
		&err);
	assert_non_null(strstr(err.msg, "unknown stream 4"));
	/* Stream id without a packet header stream_id field (babeltrace2 rule). */
	tsdl_parse_fail(TSDL_PROLOGUE "stream { id = 2; };\n", &err);
	assert_non_null(strstr(err.msg, "stream_id"));
	/* Duplicate stream id. */
	tsdl_parse_fail(
		TSDL_TYPES
		"trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint8_t stream_id; }; };\n"
		"stream { id = 0; }; stream { id = 0; };\n",
		&err);
	assert_non_null(strstr(err.msg, "duplicate stream id"));
}

/*
 * What babeltrace2 2.0.4 prints for these (checked):
 * `e: { x = 5, empty = { } }` and `{ tag = ( "A" : ... ), v = { { } }, y = 9 }`.
 */
static void test_hidden_compounds(void **state)
{
	struct ctf_trace_class *tc = tsdl_parse_ok(
		TSDL_PROLOGUE
		"clock { name = c; };\n"
		"typealias integer { size = 8; map = clock.c.value; } := clk_t;\n"
		"stream { event.header := struct { uint8_t id; clk_t timestamp; }; };\n"
		"event { name = \"e\"; id = 0; fields := struct { struct { clk_t a; } s; "
		"uint8_t x; clk_t arr[2]; struct { } empty; }; };\n"
		"event { name = \"v\"; id = 1; fields := struct { enum : uint8_t { A = 0, "
		"B = 1 } tag; variant <tag> { struct { clk_t q; } A; uint8_t B; } v; "
		"uint8_t y; }; };\n");
	const struct ctf_type *p = tsdl_event(tc, 0, 0)->payload, *v, *a;

	(void)state;
	assert_true(tsdl_field(p, "s")->hidden);
	assert_false(tsdl_field(p, "x")->hidden);
	assert_true(tsdl_field(p, "arr")->hidden);
	assert_false(tsdl_field(p, "empty")->hidden);
	p = tsdl_event(tc, 0, 1)->payload;
	assert_false(tsdl_field(p, "tag")->hidden);
	v = tsdl_field(p, "v")->type;
	assert_false(tsdl_field(p, "v")->hidden);
	/* Every option of a printed variant stays, even one with nothing visible. */
	assert_false(tsdl_field(v, "A")->hidden);
	a = tsdl_field(v, "A")->type;
	assert_true(tsdl_field(a, "q")->hidden);
	assert_false(tsdl_field(v, "B")->hidden);
	ctf_trace_class_destroy(tc);
}

static void test_block_order(void **state)
{
	/* Everything backwards: events, streams, struct defs, then clock and trace. */
	struct ctf_trace_class *tc =
		tsdl_parse_ok("event { name = \"late\"; fields := struct packed; };\n"
			      "stream { event.header := struct { u32 timestamp; }; };\n"
			      "typealias integer { size = 32; map = clock.c.value; } := u32;\n"
			      "struct packed { u32 a; };\n"
			      "clock { name = c; };\n"
			      "trace { major = 1; minor = 8; byte_order = be; };\n");

	(void)state;
	assert_int_equal(tsdl_field(tsdl_event(tc, 0, 0)->payload, "a")->type->integer.bo,
			 CTF_BO_BE);
	assert_int_equal(tc->streams[0]->default_clock, 0);
	ctf_trace_class_destroy(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ust_metadata),
		cmocka_unit_test(test_kernel_metadata),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_bitfields_and_alignment),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_enum_errors),
		cmocka_unit_test(test_typedef_struct_refs),
		cmocka_unit_test(test_scoped_aliases),
		cmocka_unit_test(test_arrays_and_sequences),
		cmocka_unit_test(test_path_errors),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_clock_declared_twice),
		cmocka_unit_test(test_implicit_clock_default),
		cmocka_unit_test(test_no_timestamps_no_clock),
		cmocka_unit_test(test_clock_errors),
		cmocka_unit_test(test_lexical),
		cmocka_unit_test(test_env_duplicate_key),
		cmocka_unit_test(test_event_stream_defaults),
		cmocka_unit_test(test_hidden_compounds),
		cmocka_unit_test(test_block_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
