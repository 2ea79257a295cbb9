/* SPDX-License-Identifier: MIT */
/*
 * Whole lines of the text printer, from hand-made types and decoded values,
 * against the lines babeltrace2 2.0.4 prints for the same content (ctf.md
 * §3.2-3.10).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ctf/reader-internal.h"
#include "common/common.h"

/* --- a small trace, built by hand ------------------------------------------ */

static struct ctf_type t_u32 = { .kind = CTF_TYPE_INT,
				 .integer = { .size = 32, .base = 10, .clock = -1 } };
static struct ctf_type t_s8 = {
	.kind = CTF_TYPE_INT,
	.integer = { .size = 8, .is_signed = true, .base = 10, .clock = -1 }
};
static struct ctf_type t_hex16 = {
	.kind = CTF_TYPE_INT,
	.integer = { .size = 16, .is_signed = true, .base = 16, .clock = -1 }
};
static struct ctf_type t_u64_clock = { .kind = CTF_TYPE_INT,
				       .integer = { .size = 64, .base = 10, .clock = 0 } };
static struct ctf_type t_string = { .kind = CTF_TYPE_STRING };
static struct ctf_type t_double = { .kind = CTF_TYPE_FLOAT, .flt = { 11, 53, CTF_BO_LE } };
static struct ctf_type t_u8 = { .kind = CTF_TYPE_INT,
				.integer = { .size = 8, .base = 10, .clock = -1 } };

static struct ctf_enum_mapping color_maps[] = {
	{ .label = "RED", .lo.u = 0, .hi.u = 0 },
	{ .label = "RANGE", .lo.u = 10, .hi.u = 20 },
	{ .label = "OVERLAP", .lo.u = 15, .hi.u = 25 },
	/* A second range of RED: printed at RED's place, once. */
	{ .label = "RED", .lo.u = 18, .hi.u = 18 },
};
static struct ctf_type t_enum = { .kind = CTF_TYPE_ENUM,
				  .enumeration = { .container = &t_u32,
						   .mappings = color_maps,
						   .n_mappings = ARRAY_SIZE(color_maps) } };

static struct ctf_type t_arr = { .kind = CTF_TYPE_ARRAY, .array = { .elem = &t_u8, .length = 2 } };
static struct ctf_type t_text = { .kind = CTF_TYPE_ARRAY,
				  .array = { .elem = &t_u8, .length = 4, .is_text = true } };
static struct ctf_type t_seq = { .kind = CTF_TYPE_SEQUENCE, .sequence = { .elem = &t_hex16 } };

static struct ctf_field var_opts[] = {
	{ .name = "A", .type = &t_u32 },
	{ .name = "B", .type = &t_string },
};
static struct ctf_type t_var = { .kind = CTF_TYPE_VARIANT,
				 .variant = { .options = var_opts, .n_options = 2 } };

static struct ctf_field inner_fields[] = {
	{ .name = "x", .type = &t_u32 },
	{ .name = "ts", .type = &t_u64_clock, .hidden = true },
};
static struct ctf_type t_inner = { .kind = CTF_TYPE_STRUCT,
				   .structure = { .fields = inner_fields, .n_fields = 2 } };
static struct ctf_type t_empty = { .kind = CTF_TYPE_STRUCT };
static struct ctf_field gone_fields[] = {
	{ .name = "ts", .type = &t_u64_clock, .hidden = true },
};
/* Every member hidden: babeltrace2 drops the struct itself. */
static struct ctf_type t_gone = { .kind = CTF_TYPE_STRUCT,
				  .structure = { .fields = gone_fields, .n_fields = 1 } };

static struct ctf_field payload_fields[] = {
	{ .name = "s8", .type = &t_s8 },       { .name = "h", .type = &t_hex16 },
	{ .name = "inner", .type = &t_inner }, { .name = "col", .type = &t_enum },
	{ .name = "arr", .type = &t_arr },     { .name = "_seq_length", .type = &t_u32 },
	{ .name = "seq", .type = &t_seq },     { .name = "txt", .type = &t_text },
	{ .name = "v", .type = &t_var },       { .name = "d", .type = &t_double },
	{ .name = "e", .type = &t_empty },     { .name = "gone", .type = &t_gone },
	{ .name = "str", .type = &t_string },
};
static struct ctf_type t_payload = { .kind = CTF_TYPE_STRUCT,
				     .structure = { .fields = payload_fields,
						    .n_fields = ARRAY_SIZE(payload_fields) } };

static struct ctf_field pctx_fields[] = {
	{ .name = "timestamp_begin", .type = &t_u64_clock, .hidden = true },
	{ .name = "cpu_id", .type = &t_u32 },
};
static struct ctf_type t_pctx = { .kind = CTF_TYPE_STRUCT,
				  .structure = { .fields = pctx_fields, .n_fields = 2 } };
static struct ctf_type t_pctx_hidden = { .kind = CTF_TYPE_STRUCT,
					 .structure = { .fields = pctx_fields, .n_fields = 1 } };

static struct ctf_field sectx_fields[] = {
	{ .name = "vpid", .type = &t_u32 },
	{ .name = "procname", .type = &t_string },
};
static struct ctf_type t_sectx = { .kind = CTF_TYPE_STRUCT,
				   .structure = { .fields = sectx_fields, .n_fields = 2 } };

static struct ctf_env_entry env[] = {
	{ .key = "hostname", .sval = "vm" },
	{ .key = "domain", .sval = "ust" },
	{ .key = "procname", .sval = "app" },
	{ .key = "vpid", .is_int = true, .ival = 13584 },
};
static struct ctf_trace_class tc = { .env = env, .n_env = ARRAY_SIZE(env) };
static struct ctf_trace trace = { .tc = &tc, .name = "vm/ust/pid/app-13584" };
static struct ctf_event_class ec = { .name = "rtest:ints", .has_loglevel = true, .loglevel = 13 };
static struct ctf_event_class ec_empty = { .name = NULL };

static struct ctf_value pctx_vals[] = {
	{ .type = &t_pctx, .nsub = 2, .count = 2 },
	{ .type = &t_u64_clock, .u = 123 },
	{ .type = &t_u32, .u = 3 },
};
static struct ctf_value pctx_hidden_vals[] = {
	{ .type = &t_pctx_hidden, .nsub = 1, .count = 1 },
	{ .type = &t_u64_clock, .u = 123 },
};
static struct ctf_value sectx_vals[] = {
	{ .type = &t_sectx, .nsub = 2, .count = 2 },
	{ .type = &t_u32, .u = 12578 },
	{ .type = &t_string, .str = { "app", 3 } },
};
static struct ctf_value payload_vals[] = {
	{ .type = &t_payload, .nsub = 21, .count = 13 },
	{ .type = &t_s8, .s = -1 },
	{ .type = &t_hex16, .s = -1 },
	{ .type = &t_inner, .nsub = 2, .count = 2 },
	{ .type = &t_u32, .u = 7 },
	{ .type = &t_u64_clock, .u = 99 },
	{ .type = &t_enum, .u = 18 },
	{ .type = &t_arr, .nsub = 2, .count = 2 },
	{ .type = &t_u8, .u = 104 },
	{ .type = &t_u8, .u = 105 },
	{ .type = &t_u32, .u = 2 },
	{ .type = &t_seq, .nsub = 2, .count = 2 },
	{ .type = &t_hex16, .s = 10 },
	{ .type = &t_hex16, .s = -20 },
	{ .type = &t_text, .str = { "hi\"\t", 4 } },
	{ .type = &t_var, .nsub = 1, .option = 1 },
	{ .type = &t_string, .str = { "hello\tworld", 11 } },
	{ .type = &t_double, .d = -123456789.0 },
	{ .type = &t_empty, .nsub = 0, .count = 0 },
	{ .type = &t_gone, .nsub = 1, .count = 1 },
	{ .type = &t_u64_clock, .u = 1 },
	{ .type = &t_string, .str = { "caf\xc3\xa9?", 6 } },
};

static struct ctf_value empty_payload_vals[] = {
	{ .type = &t_empty, .nsub = 0, .count = 0 },
};

/* 2026-12-03 08:21:54.544845565 UTC. */
#define T0 INT64_C(1796286114544845565)

static struct strata_ctf_event make_event(int64_t ns)
{
	struct strata_ctf_event ev = {
		.trace = &trace,
		.ec = &ec,
		.has_clock = true,
		.cycles = (uint64_t)ns - 1000,
		.ns = ns,
	};

	ev.scope[CTF_SCOPE_PACKET_CONTEXT] = pctx_vals;
	ev.scope[CTF_SCOPE_STREAM_EVENT_CONTEXT] = sectx_vals;
	ev.scope[CTF_SCOPE_EVENT_PAYLOAD] = payload_vals;
	return ev;
}

/* --- printing helpers -------------------------------------------------------- */

static char *out_buf, *err_buf;
static size_t out_len, err_len;
static FILE *out_f, *err_f;

static struct strata_ctf_pretty *open_printer(const struct strata_ctf_pretty_options *o)
{
	struct strata_ctf_pretty *p;

	out_f = open_memstream(&out_buf, &out_len);
	err_f = open_memstream(&err_buf, &err_len);
	assert_non_null(out_f);
	assert_non_null(err_f);
	p = strata_ctf_pretty_create(o, out_f, err_f);
	assert_non_null(p);
	return p;
}

static void print_ev(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev)
{
	struct strata_ctf_msg msg = { .type = STRATA_CTF_MSG_EVENT, .event = ev };

	assert_int_equal(strata_ctf_pretty_print(p, &msg), 0);
}

/* Closes the printer; out_buf / err_buf hold what it wrote. */
static void close_printer(struct strata_ctf_pretty *p)
{
	strata_ctf_pretty_destroy(p);
	fclose(out_f);
	fclose(err_f);
}

static void free_bufs(void)
{
	free(out_buf);
	free(err_buf);
	out_buf = err_buf = NULL;
}

/* One event printed with options o. */
static void check_line(const struct strata_ctf_pretty_options *o, const char *want)
{
	struct strata_ctf_pretty *p = open_printer(o);
	struct strata_ctf_event ev = make_event(T0);

	print_ev(p, &ev);
	close_printer(p);
	assert_string_equal(out_buf, want);
	free_bufs();
}

#define PAYLOAD_NAMED                                                                              \
	"{ s8 = -1, h = 0xFFFF, inner = { x = 7 }, col = ( \"RED\", \"RANGE\", \"OVERLAP\" : "     \
	"container = 18 ), arr = [ [0] = 104, [1] = 105 ], _seq_length = 2, seq = [ [0] = 0xA, "   \
	"[1] = 0xFFEC ], txt = \"hi\\\"\\t\", v = { \"hello\\tworld\" }, d = -1.23457e+08, e = { " \
	"}, str = \"caf\xc3\xa9\\?\" }"
#define PAYLOAD_BARE                                                                                \
	"{ -1, 0xFFFF, { 7 }, ( \"RED\", \"RANGE\", \"OVERLAP\" : container = 18 ), [ 104, 105 ], " \
	"2, [ 0xA, 0xFFEC ], \"hi\\\"\\t\", { \"hello\\tworld\" }, -1.23457e+08, { }, "             \
	"\"caf\xc3\xa9\\?\" }"

static void test_default(void **state)
{
	struct strata_ctf_pretty_options o = { 0 };

	(void)state;
	check_line(&o, "[08:21:54.544845565] (+?.????????\?) vm:app:(13584) rtest:ints: "
		       "{ cpu_id = 3 }, { vpid = 12578, procname = \"app\" }, " PAYLOAD_NAMED "\n");
}

static void test_names(void **state)
{
	struct strata_ctf_pretty_options o = { 0 };

	(void)state;
	o.name_default = STRATA_CTF_SHOW;
	check_line(&o, "timestamp = 08:21:54.544845565, delta = +?.?????????, trace:hostname = vm, "
		       "trace:procname = app, trace:vpid = (13584), name = rtest:ints, "
		       "stream.packet.context = { cpu_id = 3 }, stream.event.context = { vpid = "
		       "12578, procname = \"app\" }, event.fields = " PAYLOAD_NAMED "\n");

	o.name_default = STRATA_CTF_HIDE;
	check_line(&o, "[08:21:54.544845565] (+?.????????\?) vm:app:(13584) rtest:ints: { 3 }, "
		       "{ 12578, \"app\" }, " PAYLOAD_BARE "\n");

	/* -n scope: the explicit item plus babeltrace2's implicit hide. */
	o.name_scope = o.name_scope_set = true;
	check_line(&o, "[08:21:54.544845565] (+?.????????\?) vm:app:(13584) rtest:ints: "
		       "stream.packet.context = { 3 }, stream.event.context = { 12578, \"app\" }, "
		       "event.fields = " PAYLOAD_BARE "\n");

	/* -n context */
	memset(&o, 0, sizeof(o));
	o.name_default = STRATA_CTF_HIDE;
	o.name_context = o.name_context_set = true;
	check_line(&o, "[08:21:54.544845565] (+?.????????\?) vm:app:(13584) rtest:ints: "
		       "{ cpu_id = 3 }, { vpid = 12578, procname = \"app\" }, " PAYLOAD_BARE "\n");
}

static void test_fields(void **state)
{
	struct strata_ctf_pretty_options o = { 0 };

	(void)state;
	/* -f trace: 2.0.4 glues the trace name to the next item. */
	o.field_default = STRATA_CTF_HIDE;
	o.field_trace = o.field_trace_set = true;
	o.no_delta = true;
	check_line(&o, "[08:21:54.544845565] vm/ust/pid/app-13584rtest:ints: { cpu_id = 3 }, "
		       "{ vpid = 12578, procname = \"app\" }, " PAYLOAD_NAMED "\n");

	/* -f loglevel hides the default hostname/procname/vpid. */
	memset(&o, 0, sizeof(o));
	o.field_default = STRATA_CTF_HIDE;
	o.field_loglevel = o.field_loglevel_set = true;
	o.no_delta = true;
	check_line(&o, "[08:21:54.544845565] TRACE_DEBUG_LINE (13) rtest:ints: { cpu_id = 3 }, "
		       "{ vpid = 12578, procname = \"app\" }, " PAYLOAD_NAMED "\n");

	/* -f callsite: no header field at all. */
	o.field_loglevel = false;
	o.field_callsite = o.field_callsite_set = true;
	check_line(&o, "[08:21:54.544845565] rtest:ints: { cpu_id = 3 }, { vpid = 12578, "
		       "procname = \"app\" }, " PAYLOAD_NAMED "\n");

	/* -f all */
	memset(&o, 0, sizeof(o));
	o.field_default = STRATA_CTF_SHOW;
	check_line(&o,
		   "[08:21:54.544845565] (+?.????????\?) vm/ust/pid/app-13584vm:ust:app:(13584):"
		   "TRACE_DEBUG_LINE (13) rtest:ints: { cpu_id = 3 }, { vpid = 12578, "
		   "procname = \"app\" }, " PAYLOAD_NAMED "\n");

	/* -n all -f all: the ", , " after the trace name. */
	o.name_default = STRATA_CTF_SHOW;
	check_line(&o, "timestamp = 08:21:54.544845565, delta = +?.?????????, trace = "
		       "vm/ust/pid/app-13584, , trace:hostname = vm, trace:domain = ust, "
		       "trace:procname = app, trace:vpid = (13584), loglevel = TRACE_DEBUG_LINE "
		       "(13), name = rtest:ints, stream.packet.context = { cpu_id = 3 }, "
		       "stream.event.context = { vpid = 12578, procname = \"app\" }, event.fields "
		       "= " PAYLOAD_NAMED "\n");
}

static void test_delta_and_clock_modes(void **state)
{
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_pretty *p;
	struct strata_ctf_event ev;
	struct strata_ctf_msg disc = { .type = STRATA_CTF_MSG_DISCARDED_EVENTS };

	(void)state;
	o.field_default = STRATA_CTF_HIDE;
	o.field_callsite_set = o.field_callsite = true;
	o.clock_seconds = true;
	p = open_printer(&o);
	ev = make_event(T0);
	ev.scope[CTF_SCOPE_STREAM_EVENT_CONTEXT] = NULL;
	ev.scope[CTF_SCOPE_EVENT_PAYLOAD] = empty_payload_vals;
	print_ev(p, &ev);
	/* A warning does not move the delta's reference. */
	disc.discarded.count = 3;
	assert_int_equal(strata_ctf_pretty_print(p, &disc), 0);
	ev.ns = T0 + 54087;
	print_ev(p, &ev);
	ev.ns = T0 + INT64_C(134217729054087);
	print_ev(p, &ev);
	/* An event without a clock neither prints nor updates times. */
	ev.has_clock = false;
	ev.ec = &ec_empty;
	ev.scope[CTF_SCOPE_PACKET_CONTEXT] = pctx_hidden_vals;
	ev.scope[CTF_SCOPE_EVENT_PAYLOAD] = NULL;
	print_ev(p, &ev);
	ev.has_clock = true;
	ev.ns = T0 + INT64_C(134217729054087) + 1;
	print_ev(p, &ev);
	close_printer(p);
	assert_string_equal(
		out_buf,
		"[1796286114.544845565] (+?.????????\?) rtest:ints: { cpu_id = 3 }, { }\n"
		"[1796286114.544899652] (+0.000054087) rtest:ints: { cpu_id = 3 }, { }\n"
		"[1796420332.273899652] (+134217.729000000) rtest:ints: { cpu_id = 3 }, { }\n"
		"<unknown>: \n"
		"[1796420332.273899653] (+0.000000001) <unknown>: \n");
	free_bufs();

	/* --clock-cycles: 20 digits, deltas in cycles with 12 digits. */
	memset(&o, 0, sizeof(o));
	o.clock_cycles = true;
	o.field_default = STRATA_CTF_HIDE;
	p = open_printer(&o);
	ev = make_event(T0);
	ev.cycles = UINT64_C(7532973158320);
	ev.scope[CTF_SCOPE_STREAM_EVENT_CONTEXT] = NULL;
	ev.scope[CTF_SCOPE_EVENT_PAYLOAD] = NULL;
	print_ev(p, &ev);
	ev.cycles += 193;
	print_ev(p, &ev);
	close_printer(p);
	assert_string_equal(out_buf,
			    "[00000007532973158320] (+???????????\?) rtest:ints: { cpu_id = 3 }\n"
			    "[00000007532973158513] (+000000000193) rtest:ints: { cpu_id = 3 }\n");
	free_bufs();

	/* Names mode with cycles and no delta. */
	o.no_delta = true;
	o.name_default = STRATA_CTF_SHOW;
	p = open_printer(&o);
	print_ev(p, &ev);
	close_printer(p);
	assert_string_equal(out_buf, "timestamp = 00000007532973158513, name = rtest:ints, "
				     "stream.packet.context = { cpu_id = 3 }\n");
	free_bufs();
}

static void test_colors(void **state)
{
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_pretty *p;
	struct strata_ctf_event ev = make_event(T0);

	(void)state;
	o.color = true;
	o.no_delta = true;
	o.field_default = STRATA_CTF_HIDE;
	o.field_callsite_set = o.field_callsite = true;
	ev.scope[CTF_SCOPE_STREAM_EVENT_CONTEXT] = NULL;
	p = open_printer(&o);
	ev.scope[CTF_SCOPE_EVENT_PAYLOAD] = NULL;
	print_ev(p, &ev);
	ev.ec = &ec_empty;
	ev.scope[CTF_SCOPE_PACKET_CONTEXT] = sectx_vals;
	print_ev(p, &ev);
	close_printer(p);
	/* Observed from babeltrace2 2.0.4 on an xterm. */
	assert_string_equal(
		out_buf,
		"[\033[1m\033[1m\033[33m08:21:54.544845565\033[0m] "
		"\033[1m\033[1m\033[35mrtest:ints\033[0m: { \033[36mcpu_id\033[0m = "
		"\033[1m3\033[0m }\n"
		"[\033[1m\033[1m\033[33m08:21:54.544845565\033[0m] "
		"\033[1m\033[1m\033[31m<unknown>\033[0m: { \033[36mvpid\033[0m = "
		"\033[1m12578\033[0m, \033[36mprocname\033[0m = \033[1m\"app\"\033[0m }\n");
	free_bufs();
}

static void test_discarded(void **state)
{
	static const uint8_t uuid[16] = { 0x21, 0xc4, 0x8d, 0xe8, 0x65, 0x0e, 0x44, 0x1a,
					  0x94, 0x81, 0xbb, 0x2d, 0xfb, 0x49, 0x51, 0x95 };
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_pretty *p;
	struct strata_ctf_msg m = { .type = STRATA_CTF_MSG_DISCARDED_EVENTS };

	(void)state;
	m.discarded.count = 705;
	m.discarded.has_range = true;
	m.discarded.begin_ns = T0;
	m.discarded.end_ns = T0 + 138521;
	m.discarded.trace_name = "vm/ust/uid/0/64-bit";
	m.discarded.trace_uuid = uuid;
	m.discarded.stream_path = "/t/ust/uid/0/64-bit/chd_0";
	m.discarded.has_stream_id = true;
	o.clock_cycles = true; /* ranges stay wall-clock */
	p = open_printer(&o);
	assert_int_equal(strata_ctf_pretty_print(p, &m), 0);
	m.type = STRATA_CTF_MSG_DISCARDED_PACKETS;
	m.discarded.count = 1;
	assert_int_equal(strata_ctf_pretty_print(p, &m), 0);
	m.discarded.count = 0;
	m.discarded.has_range = false;
	m.discarded.trace_uuid = NULL;
	m.discarded.trace_name = NULL;
	m.discarded.has_stream_id = false;
	m.discarded.stream_class_id = 2;
	assert_int_equal(strata_ctf_pretty_print(p, &m), 0);
	close_printer(p);
	assert_string_equal(out_buf, "");
	assert_string_equal(
		err_buf,
		"WARNING: Tracer discarded 705 events between [08:21:54.544845565] and "
		"[08:21:54.544984086] in trace \"vm/ust/uid/0/64-bit\" (UUID: "
		"21c48de8-650e-441a-9481-bb2dfb495195) within stream \"/t/ust/uid/0/64-bit/chd_0\" "
		"(stream class ID: 0, stream ID: 0).\n"
		"WARNING: Tracer discarded 1 packet between [08:21:54.544845565] and "
		"[08:21:54.544984086] in trace \"vm/ust/uid/0/64-bit\" (UUID: "
		"21c48de8-650e-441a-9481-bb2dfb495195) within stream \"/t/ust/uid/0/64-bit/chd_0\" "
		"(stream class ID: 0, stream ID: 0).\n"
		"WARNING: Tracer may have discarded packets (unknown time range) in trace "
		"\"(unknown)\" (no UUID) within stream \"/t/ust/uid/0/64-bit/chd_0\" (stream class "
		"ID: 2, no stream ID).\n");
	free_bufs();

	/* Colored warnings. */
	o.color_warnings = true;
	m.discarded.count = 2;
	p = open_printer(&o);
	assert_int_equal(strata_ctf_pretty_print(p, &m), 0);
	close_printer(p);
	assert_string_equal(err_buf,
			    "\033[33m\033[1mWARNING\033[0m\033[33m: Tracer discarded 2 "
			    "packets (unknown time range) in trace \"(unknown)\" (no UUID) "
			    "within stream \"/t/ust/uid/0/64-bit/chd_0\" (stream class ID: "
			    "2, no stream ID).\033[0m\n");
	free_bufs();
}

static void test_write_error(void **state)
{
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_pretty *p;
	struct strata_ctf_event ev = make_event(T0);
	struct strata_ctf_msg msg = { .type = STRATA_CTF_MSG_EVENT, .event = &ev };
	FILE *full = fopen("/dev/full", "w");
	int ret = 0;

	(void)state;
	if (!full)
		skip();
	setvbuf(full, NULL, _IONBF, 0);
	p = strata_ctf_pretty_create(&o, full, NULL);
	assert_non_null(p);
	/* Lines are batched: the failure shows when they are handed over. */
	ret = strata_ctf_pretty_print(p, &msg);
	assert_int_equal(ret, 0);
	ret = strata_ctf_pretty_flush(p);
	assert_int_equal(ret, -ENOSPC);
	strata_ctf_pretty_destroy(p);
	fclose(full);
}

/*
 * Prints "prefix\n" with stdio, an event, a warning, then 5000 events, all
 * to f: more than a batch, so with a file descriptor the lines go to it
 * directly (write_direct()), after what stdio holds.
 */
static void print_ordering(FILE *f)
{
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_pretty *p;
	struct strata_ctf_event ev = make_event(T0);
	struct strata_ctf_msg disc = { .type = STRATA_CTF_MSG_DISCARDED_PACKETS };

	assert_non_null(f);
	assert_true(fputs("prefix\n", f) >= 0);
	o.no_delta = true;
	o.field_default = STRATA_CTF_HIDE;
	p = strata_ctf_pretty_create(&o, f, f);
	assert_non_null(p);
	ev.scope[CTF_SCOPE_STREAM_EVENT_CONTEXT] = NULL;
	ev.scope[CTF_SCOPE_EVENT_PAYLOAD] = NULL;
	print_ev(p, &ev);
	disc.discarded.count = 1;
	assert_int_equal(strata_ctf_pretty_print(p, &disc), 0);
	/* Enough lines to cross the batch size several times. */
	for (int i = 0; i < 5000; i++)
		print_ev(p, &ev);
	assert_int_equal(strata_ctf_pretty_flush(p), 0);
	strata_ctf_pretty_destroy(p);
}

static void check_ordering(const char *buf)
{
	int n = 0;

	assert_memory_equal(
		buf,
		"prefix\n[08:21:54.544845565] rtest:ints: { cpu_id = 3 }\n"
		"WARNING: Tracer discarded 1 packet (unknown time range) in trace "
		"\"(unknown)\" (no UUID) within stream \"(unknown)\" (stream class ID: 0, "
		"no stream ID).\n[08:21:54.544845565] rtest:ints: { cpu_id = 3 }\n",
		7 + 48 + 149 + 48);
	for (const char *c = buf; *c; c++)
		n += *c == '\n';
	assert_int_equal(n, 5003);
	assert_int_equal(strlen(buf), 7 + 5001 * 48 + 149);
}

/* A warning comes after the lines printed before it, even on one stream. */
static void test_ordering(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	print_ordering(f);
	fclose(f);
	check_ordering(buf);
	free(buf);
}

/* The same through a file descriptor, and its write errors. */
static void test_ordering_fd(void **state)
{
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_event ev = make_event(T0);
	struct strata_ctf_msg msg = { .type = STRATA_CTF_MSG_EVENT, .event = &ev };
	struct strata_ctf_pretty *p;
	FILE *f = tmpfile(), *full;
	char *buf;
	long size;
	int ret = 0;

	(void)state;
	print_ordering(f);
	assert_int_equal(fflush(f), 0);
	size = ftell(f);
	assert_true(size > 0);
	buf = calloc(1, (size_t)size + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	check_ordering(buf);
	free(buf);

	full = fopen("/dev/full", "w");
	if (!full)
		skip();
	p = strata_ctf_pretty_create(&o, full, NULL);
	assert_non_null(p);
	for (int i = 0; i < 5000 && ret == 0; i++)
		ret = strata_ctf_pretty_print(p, &msg);
	if (ret == 0)
		ret = strata_ctf_pretty_flush(p);
	assert_int_equal(ret, -ENOSPC);
	strata_ctf_pretty_destroy(p);
	fclose(full);
}

/*
 * Context scopes print from a cache of their last instances: every change
 * of a number or of a string's bytes (same length) must show, with two
 * and three instances alternating.
 */
static void test_context_cache(void **state)
{
	static const struct {
		uint64_t vpid;
		const char *procname;
	} seq[] = {
		{ 1, "app" }, { 1, "app" }, { 1, "apq" }, { 2, "apq" }, { 1, "app" },
		{ 2, "apq" }, { 3, "xyz" }, { 1, "app" }, { 3, "xyz" }, { 2, "apq" },
		{ 2, "ap" },  { 2, "apq" }, { 1, "app" }, { 1, "app" },
	};
	struct strata_ctf_pretty_options o = { 0 };
	struct strata_ctf_pretty *p;
	char want[4096], *w = want;

	(void)state;
	o.no_delta = true;
	o.field_default = STRATA_CTF_HIDE;
	p = open_printer(&o);
	for (size_t i = 0; i < ARRAY_SIZE(seq); i++) {
		struct ctf_value vals[3];
		struct strata_ctf_event ev = make_event(T0);
		char name[8];

		memcpy(vals, sectx_vals, sizeof(vals));
		vals[1].u = seq[i].vpid;
		/* A fresh buffer each time: the cache must compare bytes, not pointers. */
		snprintf(name, sizeof(name), "%s", seq[i].procname);
		vals[2].str.ptr = name;
		vals[2].str.len = (uint32_t)strlen(name);
		ev.scope[CTF_SCOPE_STREAM_EVENT_CONTEXT] = vals;
		ev.scope[CTF_SCOPE_EVENT_PAYLOAD] = NULL;
		print_ev(p, &ev);
		w += snprintf(w, sizeof(want) - (size_t)(w - want),
			      "[08:21:54.544845565] rtest:ints: { cpu_id = 3 }, "
			      "{ vpid = %u, procname = \"%s\" }\n",
			      (unsigned)seq[i].vpid, seq[i].procname);
	}
	close_printer(p);
	assert_string_equal(out_buf, want);
	free_bufs();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),	    cmocka_unit_test(test_names),
		cmocka_unit_test(test_fields),	    cmocka_unit_test(test_delta_and_clock_modes),
		cmocka_unit_test(test_colors),	    cmocka_unit_test(test_discarded),
		cmocka_unit_test(test_write_error), cmocka_unit_test(test_ordering),
		cmocka_unit_test(test_ordering_fd), cmocka_unit_test(test_context_cache),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
