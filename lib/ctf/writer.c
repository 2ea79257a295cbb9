/* SPDX-License-Identifier: MIT */
/*
 * TSDL metadata text, in lttng-tools 2.13's UST shapes (ust-metadata.c):
 * same typealiases, header structs, field spellings and indentation, so a
 * diff against an LTTng trace's metadata shows only the env and clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctf/writer.h"

#include "common/common.h"

static int md_reserve(struct ctf_metadata *md, size_t extra)
{
	size_t need = md->len + extra + 1;
	char *p;

	if (need <= md->cap)
		return 0;
	if (need < md->len)
		return -ENOMEM;
	need = MAX(need, md->cap * 2);
	need = MAX(need, (size_t)4096);
	p = realloc(md->text, need);
	if (!p)
		return -ENOMEM;
	md->text = p;
	md->cap = need;
	return 0;
}

static int _printf_(2, 3) md_printf(struct ctf_metadata *md, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if (md_reserve(md, (size_t)n) < 0)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(md->text + md->len, md->cap - md->len, fmt, ap);
	va_end(ap);
	md->len += (size_t)n;
	return 0;
}

/* A TSDL string literal body: backslash and double quote escaped. */
static int md_print_escaped(struct ctf_metadata *md, const char *s)
{
	int ret = 0;

	for (; *s && ret == 0; s++) {
		if (*s == '"' || *s == '\\')
			ret = md_printf(md, "\\%c", *s);
		else if (*s == '\n')
			ret = md_printf(md, "\\n");
		else
			ret = md_printf(md, "%c", *s);
	}
	return ret;
}

int ctf_metadata_init(struct ctf_metadata *md, const uint8_t uuid[16])
{
	uint16_t probe = 1;

	memset(md, 0, sizeof(*md));
	memcpy(md->uuid, uuid, 16);
	md->big_endian = *(const uint8_t *)&probe == 0;
	return md_reserve(md, 0);
}

void ctf_metadata_release(struct ctf_metadata *md)
{
	if (!md)
		return;
	free(md->text);
	md->text = NULL;
	md->len = md->cap = 0;
}

void ctf_clock_set_offset_ns(struct ctf_writer_clock *clock, int64_t offset_ns)
{
	int64_t s = offset_ns / 1000000000;
	int64_t rem = offset_ns % 1000000000;
	__extension__ typedef unsigned __int128 u128;

	/* Floor division: the remainder (the `offset` field) is never negative. */
	if (rem < 0) {
		rem += 1000000000;
		s -= 1;
	}
	clock->offset_s = s;
	clock->offset = (uint64_t)((u128)(uint64_t)rem * clock->freq / 1000000000u);
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

int64_t ctf_clock_measure_monotonic_offset(void)
{
	int64_t best_offset = 0, best_window = INT64_MAX;

	for (int i = 0; i < 10; i++) {
		struct timespec m0, r, m1;
		int64_t window;

		clock_gettime(CLOCK_MONOTONIC, &m0);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		window = ts_ns(&m1) - ts_ns(&m0);
		if (window < best_window) {
			best_window = window;
			best_offset = ts_ns(&r) - (ts_ns(&m0) + window / 2);
		}
	}
	return best_offset;
}

static const char preamble_types[] =
	"/* CTF 1.8 */\n"
	"\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
	"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	"typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n"
	"\n";

static int add_trace_block(struct ctf_metadata *md)
{
	char uuid[37];

	ctf_uuid_format(md->uuid, uuid);
	return md_printf(md,
			 "trace {\n"
			 "\tmajor = 1;\n"
			 "\tminor = 8;\n"
			 "\tuuid = \"%s\";\n"
			 "\tbyte_order = %s;\n"
			 "\tpacket.header := struct {\n"
			 "\t\tuint32_t magic;\n"
			 "\t\tuint8_t  uuid[16];\n"
			 "\t\tuint32_t stream_id;\n"
			 "\t\tuint64_t stream_instance_id;\n"
			 "\t};\n"
			 "};\n"
			 "\n",
			 uuid, md->big_endian ? "be" : "le");
}

static int env_string(struct ctf_metadata *md, const char *key, const char *value)
{
	int ret;

	if (!value)
		return 0;
	ret = md_printf(md, "\t%s = \"", key);
	if (ret == 0)
		ret = md_print_escaped(md, value);
	if (ret == 0)
		ret = md_printf(md, "\";\n");
	return ret;
}

static int env_int(struct ctf_metadata *md, const char *key, int64_t value)
{
	if (value < 0)
		return 0;
	return md_printf(md, "\t%s = %" PRId64 ";\n", key, value);
}

static int add_env_block(struct ctf_metadata *md, const struct ctf_writer_env *env)
{
	int ret = md_printf(md, "env {\n");

	if (!ret)
		ret = env_string(md, "domain", env->domain);
	if (!ret)
		ret = env_string(md, "tracer_name", env->tracer_name);
	if (!ret)
		ret = env_int(md, "tracer_major", env->tracer_major);
	if (!ret)
		ret = env_int(md, "tracer_minor", env->tracer_minor);
	if (!ret)
		ret = env_int(md, "tracer_patchlevel", env->tracer_patchlevel);
	if (!ret)
		ret = env_string(md, "tracer_buffering_scheme", env->buffering_scheme);
	if (!ret)
		ret = env_int(md, "tracer_buffering_id", env->buffering_id);
	if (!ret)
		ret = env_int(md, "architecture_bit_width", env->architecture_bit_width);
	if (env->vpid > 0) {
		if (!ret)
			ret = env_int(md, "vpid", env->vpid);
		if (!ret)
			ret = env_string(md, "procname", env->procname);
		if (!ret)
			ret = env_string(md, "vpid_datetime", env->vpid_datetime);
	}
	if (!ret)
		ret = env_string(md, "trace_name", env->trace_name);
	if (!ret)
		ret = env_string(md, "trace_creation_datetime", env->trace_creation_datetime);
	if (!ret)
		ret = env_string(md, "hostname", env->hostname);
	if (!ret)
		ret = md_printf(md, "};\n\n");
	return ret;
}

static int add_clock_block(struct ctf_metadata *md, const struct ctf_writer_clock *clock)
{
	int ret = md_printf(md, "clock {\n");

	if (!ret)
		ret = env_string(md, "name", clock->name);
	if (!ret)
		ret = env_string(md, "uuid", clock->uuid);
	if (!ret)
		ret = env_string(md, "description", clock->description);
	if (!ret)
		ret = md_printf(md, "\tfreq = %" PRIu64 "; /* Frequency, in Hz */\n", clock->freq);
	if (clock->precision)
		if (!ret)
			ret = md_printf(md, "\tprecision = %" PRIu64 ";\n", clock->precision);
	if (!ret)
		ret = md_printf(
			md,
			"\t/* clock value offset from Epoch is: offset_s + offset * (1/freq) */\n"
			"\toffset_s = %" PRId64 ";\n"
			"\toffset = %" PRIu64 ";\n",
			clock->offset_s, clock->offset);
	if (clock->absolute)
		if (!ret)
			ret = md_printf(md, "\tabsolute = true;\n");
	if (!ret)
		ret = md_printf(md, "};\n\n");
	return ret;
}

static int add_clock_types(struct ctf_metadata *md, const char *clock)
{
	static const struct {
		unsigned int size, align;
	} types[] = { { 27, 1 }, { 32, 8 }, { 64, 8 } };
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(types) && ret == 0; i++)
		ret = md_printf(md,
				"typealias integer {\n"
				"\tsize = %u; align = %u; signed = false;\n"
				"\tmap = clock.%s.value;\n"
				"} := uint%u_clock_%s_t;\n"
				"\n",
				types[i].size, types[i].align, clock, types[i].size, clock);
	return ret;
}

static int add_header_structs(struct ctf_metadata *md, const char *clock)
{
	return md_printf(md,
			 "struct packet_context {\n"
			 "\tuint64_clock_%s_t timestamp_begin;\n"
			 "\tuint64_clock_%s_t timestamp_end;\n"
			 "\tuint64_t content_size;\n"
			 "\tuint64_t packet_size;\n"
			 "\tuint64_t packet_seq_num;\n"
			 "\tunsigned long events_discarded;\n"
			 "\tuint32_t cpu_id;\n"
			 "};\n"
			 "\n"
			 "struct event_header_compact {\n"
			 "\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
			 "\tvariant <id> {\n"
			 "\t\tstruct {\n"
			 "\t\t\tuint27_clock_%s_t timestamp;\n"
			 "\t\t} compact;\n"
			 "\t\tstruct {\n"
			 "\t\t\tuint32_t id;\n"
			 "\t\t\tuint64_clock_%s_t timestamp;\n"
			 "\t\t} extended;\n"
			 "\t} v;\n"
			 "} align(8);\n"
			 "\n"
			 "struct event_header_large {\n"
			 "\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
			 "\tvariant <id> {\n"
			 "\t\tstruct {\n"
			 "\t\t\tuint32_clock_%s_t timestamp;\n"
			 "\t\t} compact;\n"
			 "\t\tstruct {\n"
			 "\t\t\tuint32_t id;\n"
			 "\t\t\tuint64_clock_%s_t timestamp;\n"
			 "\t\t} extended;\n"
			 "\t} v;\n"
			 "} align(8);\n"
			 "\n",
			 clock, clock, clock, clock, clock, clock);
}

/* Clock names become part of type names: keep them identifiers. */
static bool is_identifier(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

int ctf_metadata_add_preamble(struct ctf_metadata *md, const struct ctf_writer_env *env,
			      const struct ctf_writer_clock *clock)
{
	size_t saved = md->len;
	int ret;

	if (!env || !clock || !is_identifier(clock->name) || !clock->freq)
		return -EINVAL;
	ret = md_printf(md, "%s", preamble_types);
	if (!ret)
		ret = add_trace_block(md);
	if (!ret)
		ret = add_env_block(md, env);
	if (!ret)
		ret = add_clock_block(md, clock);
	if (!ret)
		ret = add_clock_types(md, clock->name);
	if (!ret)
		ret = add_header_structs(md, clock->name);
	if (ret < 0) {
		md->len = saved;
		md->text[saved] = '\0';
	}
	return ret;
}

/* `integer { ... }` for an integer layout, as lttng-tools spells it. */
static int print_integer(struct ctf_metadata *md, const struct strata_integer_type *it,
			 uint8_t encoding)
{
	if (it->size != 8 && it->size != 16 && it->size != 32 && it->size != 64)
		return -EINVAL;
	if (it->base != 10 && it->base != 16 && it->base != 8 && it->base != 2)
		return -EINVAL;
	return md_printf(
		md, "integer { size = %u; align = 8; signed = %u; encoding = %s; base = %u;%s }",
		it->size, it->is_signed ? 1 : 0, encoding == STRATA_ENCODING_UTF8 ? "UTF8" : "none",
		it->base, it->network && !md->big_endian ? " byte_order = be;" : "");
}

static int print_enum_value(struct ctf_metadata *md, const struct strata_enum_value *v)
{
	if (v->is_signed)
		return md_printf(md, "%" PRId64, (int64_t)v->value);
	return md_printf(md, "%" PRIu64, v->value);
}

static int print_enum(struct ctf_metadata *md, const struct strata_field_desc *f,
		      const char *indent)
{
	const struct strata_enum_desc *ed = f->enum_desc;
	int ret;

	if (!ed || (ed->nr_entries && !ed->entries))
		return -EINVAL;
	ret = md_printf(md, "enum : ");
	if (!ret)
		ret = print_integer(md, &f->integer, STRATA_ENCODING_NONE);
	if (!ret)
		ret = md_printf(md, " {\n");
	for (uint32_t i = 0; i < ed->nr_entries && ret == 0; i++) {
		const struct strata_enum_entry *e = &ed->entries[i];

		if (!e->label)
			return -EINVAL;
		ret = md_printf(md, "%s\t\"", indent);
		if (!ret)
			ret = md_print_escaped(md, e->label);
		if (!ret)
			ret = md_printf(md, "\"");
		if (!e->is_auto) {
			if (!ret)
				ret = md_printf(md, " = ");
			if (!ret)
				ret = print_enum_value(md, &e->start);
			if (e->start.value != e->end.value ||
			    e->start.is_signed != e->end.is_signed) {
				if (!ret)
					ret = md_printf(md, " ... ");
				if (!ret)
					ret = print_enum_value(md, &e->end);
			}
		}
		if (!ret)
			ret = md_printf(md, ",\n");
	}
	if (!ret)
		ret = md_printf(md, "%s}", indent);
	return ret;
}

static int print_field(struct ctf_metadata *md, const struct strata_field_desc *fields, uint32_t i,
		       const char *indent)
{
	const struct strata_field_desc *f = &fields[i];
	int ret;

	if (!f->name || !*f->name)
		return -EINVAL;
	ret = md_printf(md, "%s", indent);
	switch (f->kind) {
	case STRATA_TYPE_INTEGER:
		if (!ret)
			ret = print_integer(md, &f->integer, STRATA_ENCODING_NONE);
		if (!ret)
			ret = md_printf(md, " _%s;\n", f->name);
		break;
	case STRATA_TYPE_FLOAT:
		if (f->integer.size != 32 && f->integer.size != 64)
			return -EINVAL;
		if (!ret)
			ret = md_printf(
				md,
				"floating_point { exp_dig = %u; mant_dig = %u; align = 8; } "
				"_%s;\n",
				f->integer.size == 32 ? 8 : 11, f->integer.size == 32 ? 24 : 53,
				f->name);
		break;
	case STRATA_TYPE_STRING:
		if (!ret)
			ret = md_printf(md, "string _%s;\n", f->name);
		break;
	case STRATA_TYPE_ENUM:
		if (!ret)
			ret = print_enum(md, f, indent);
		if (!ret)
			ret = md_printf(md, " _%s;\n", f->name);
		break;
	case STRATA_TYPE_ARRAY:
		if (!ret)
			ret = print_integer(md, &f->integer, f->encoding);
		if (!ret)
			ret = md_printf(md, " _%s[%" PRIu32 "];\n", f->name, f->length);
		break;
	case STRATA_TYPE_SEQUENCE:
		/* The length is the field just before, which must be unsigned. */
		if (i == 0 || fields[i - 1].kind != STRATA_TYPE_INTEGER ||
		    fields[i - 1].integer.is_signed || fields[i - 1].integer.network)
			return -EINVAL;
		if (!ret)
			ret = print_integer(md, &f->integer, f->encoding);
		if (!ret)
			ret = md_printf(md, " _%s[ _%s ];\n", f->name, fields[i - 1].name);
		break;
	default:
		return -EINVAL;
	}
	return ret;
}

int ctf_metadata_add_stream(struct ctf_metadata *md, uint32_t stream_id,
			    const struct strata_field_desc *const *ctx, uint32_t n_ctx)
{
	size_t saved = md->len;
	int ret;

	if (n_ctx && !ctx)
		return -EINVAL;
	ret = md_printf(md,
			"stream {\n"
			"\tid = %" PRIu32 ";\n"
			"\tevent.header := struct event_header_large;\n"
			"\tpacket.context := struct packet_context;\n",
			stream_id);
	if (n_ctx) {
		if (!ret)
			ret = md_printf(md, "\tevent.context := struct {\n");
		for (uint32_t i = 0; i < n_ctx && ret == 0; i++) {
			if (!ctx[i] || ctx[i]->kind == STRATA_TYPE_SEQUENCE)
				ret = -EINVAL;
			else
				ret = print_field(md, ctx[i], 0, "\t\t");
		}
		if (!ret)
			ret = md_printf(md, "\t};\n");
	}
	if (!ret)
		ret = md_printf(md, "};\n\n");
	if (ret < 0) {
		md->len = saved;
		md->text[saved] = '\0';
	}
	return ret;
}

int ctf_metadata_add_event(struct ctf_metadata *md, const struct ctf_writer_event *ev)
{
	size_t saved = md->len;
	int ret;

	if (!ev || !ev->name || (ev->nr_fields && !ev->fields) || ev->id == UINT32_MAX)
		return -EINVAL;
	ret = md_printf(md, "event {\n\tname = \"");
	if (!ret)
		ret = md_print_escaped(md, ev->name);
	if (!ret)
		ret = md_printf(md, "\";\n\tid = %" PRIu32 ";\n\tstream_id = %" PRIu32 ";\n",
				ev->id, ev->stream_id);
	if (ev->loglevel >= 0)
		if (!ret)
			ret = md_printf(md, "\tloglevel = %d;\n", ev->loglevel);
	if (ev->model_emf_uri) {
		if (!ret)
			ret = md_printf(md, "\tmodel.emf.uri = \"");
		if (!ret)
			ret = md_print_escaped(md, ev->model_emf_uri);
		if (!ret)
			ret = md_printf(md, "\";\n");
	}
	if (!ret)
		ret = md_printf(md, "\tfields := struct {\n");
	for (uint32_t i = 0; i < ev->nr_fields && ret == 0; i++)
		if (!ev->fields[i].nowrite)
			ret = print_field(md, ev->fields, i, "\t\t");
	if (!ret)
		ret = md_printf(md, "\t};\n};\n\n");
	if (ret < 0) {
		md->len = saved;
		md->text[saved] = '\0';
	}
	return ret;
}
