/* SPDX-License-Identifier: MIT */
/*
 * TSDL metadata of the kernel/ trace, shaped like lttng-modules 2.13's
 * (reference/ctf.md §2.2) with tracer_name = "strata": byte-packed fields,
 * monotonic clock, packet context with cpu_id, one stream class per channel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel-internal.h"
#include "strata-config.h"

#include "common/common.h"

static void kt_quoted(struct kt_strbuf *sb, const char *s)
{
	kt_strbuf_printf(sb, "\"");
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			kt_strbuf_printf(sb, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			kt_strbuf_printf(sb, " ");
		else
			kt_strbuf_printf(sb, "%c", *s);
	}
	kt_strbuf_printf(sb, "\"");
}

static void kt_uuid(struct kt_strbuf *sb, const uint8_t u[16])
{
	kt_strbuf_printf(sb, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
			 u[12], u[13], u[14], u[15]);
}

static void kt_header(struct kt_strbuf *sb, const struct kernel_trace_info *info)
{
	struct utsname un;
	unsigned int maj = 0, min = 0, patch = 0;

	if (uname(&un))
		memset(&un, 0, sizeof(un));
	sscanf(STRATA_VERSION, "%u.%u.%u", &maj, &min, &patch);
	kt_strbuf_printf(
		sb,
		"/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
		"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
		"typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	kt_uuid(sb, info->uuid);
	kt_strbuf_printf(sb, "\";\n\tbyte_order = le;\n"
			     "\tpacket.header := struct {\n"
			     "\t\tuint32_t magic;\n"
			     "\t\tuint8_t  uuid[16];\n"
			     "\t\tuint32_t stream_id;\n"
			     "\t\tuint64_t stream_instance_id;\n"
			     "\t};\n};\n\nenv {\n\thostname = ");
	kt_quoted(sb, info->hostname ? info->hostname : un.nodename);
	kt_strbuf_printf(sb, ";\n\tdomain = \"kernel\";\n\tsysname = ");
	kt_quoted(sb, un.sysname);
	kt_strbuf_printf(sb, ";\n\tkernel_release = ");
	kt_quoted(sb, un.release);
	kt_strbuf_printf(sb, ";\n\tkernel_version = ");
	kt_quoted(sb, un.version);
	kt_strbuf_printf(
		sb,
		";\n\ttracer_name = \"strata\";\n\ttracer_major = %u;\n\ttracer_minor = %u;\n"
		"\ttracer_patchlevel = %u;\n\ttrace_buffering_scheme = \"global\";\n"
		"\ttrace_name = ",
		maj, min, patch);
	kt_quoted(sb, info->trace_name ? info->trace_name : "");
	kt_strbuf_printf(sb, ";\n\ttrace_creation_datetime = ");
	kt_quoted(sb, info->creation_datetime ? info->creation_datetime : "");
	kt_strbuf_printf(sb, ";\n};\n\nclock {\n\tname = \"monotonic\";\n");
	if (info->clock_uuid) {
		kt_strbuf_printf(sb, "\tuuid = ");
		kt_quoted(sb, info->clock_uuid);
		kt_strbuf_printf(sb, ";\n");
	}
	kt_strbuf_printf(
		sb,
		"\tdescription = \"Monotonic Clock\";\n"
		"\tfreq = 1000000000; /* Frequency, in Hz */\n"
		"\t/* clock value offset from Epoch is: offset * (1/freq) */\n"
		"\toffset = %lld;\n};\n\n"
		"typealias integer {\n\tsize = 27; align = 1; signed = false;\n"
		"\tmap = clock.monotonic.value;\n} := uint27_clock_monotonic_t;\n\n"
		"typealias integer {\n\tsize = 32; align = 8; signed = false;\n"
		"\tmap = clock.monotonic.value;\n} := uint32_clock_monotonic_t;\n\n"
		"typealias integer {\n\tsize = 64; align = 8; signed = false;\n"
		"\tmap = clock.monotonic.value;\n} := uint64_clock_monotonic_t;\n\n"
		"struct packet_context {\n"
		"\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\tuint64_clock_monotonic_t timestamp_end;\n"
		"\tuint64_t content_size;\n"
		"\tuint64_t packet_size;\n"
		"\tuint64_t packet_seq_num;\n"
		"\tunsigned long events_discarded;\n"
		"\tuint32_t cpu_id;\n"
		"};\n\n"
		"struct event_header_compact {\n"
		"\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
		"\tvariant <id> {\n"
		"\t\tstruct {\n\t\t\tuint27_clock_monotonic_t timestamp;\n\t\t} compact;\n"
		"\t\tstruct {\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_monotonic_t timestamp;\n"
		"\t\t} extended;\n"
		"\t} v;\n} align(8);\n\n"
		"struct event_header_large {\n"
		"\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
		"\tvariant <id> {\n"
		"\t\tstruct {\n\t\t\tuint32_clock_monotonic_t timestamp;\n\t\t} compact;\n"
		"\t\tstruct {\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_monotonic_t timestamp;\n"
		"\t\t} extended;\n"
		"\t} v;\n} align(8);\n\n",
		(long long)info->clock_offset);
}

static void kt_context_tsdl(struct kt_strbuf *sb, const struct kernel_channel *ch)
{
	for (unsigned int i = 0; i < ch->nctx; i++) {
		const struct kt_ctx *c = &ch->ctx[i];

		switch (c->type) {
		case KT_CTX_PROCNAME:
			kt_strbuf_printf(
				sb,
				"\t\tinteger { size = 8; align = 8; signed = 1; encoding = "
				"UTF8; base = 10; } _%s[16];\n",
				c->field);
			break;
		case KT_CTX_HOSTNAME:
			kt_strbuf_printf(sb, "\t\tstring _%s;\n", c->field);
			break;
		case KT_CTX_PERF:
			kt_strbuf_printf(
				sb,
				"\t\tinteger { size = 64; align = 8; signed = 0; encoding = "
				"none; base = 10; } _%s;\n",
				c->field);
			break;
		default:
			kt_strbuf_printf(
				sb,
				"\t\tinteger { size = 32; align = 8; signed = 1; encoding = "
				"none; base = 10; } _%s;\n",
				c->field);
			break;
		}
	}
}

int kernel_metadata(struct kernel_channel *const *chans, size_t n,
		    const struct kernel_trace_info *info, char **ret)
{
	struct kt_strbuf sb = { 0 };

	kt_header(&sb, info);
	for (size_t s = 0; s < n; s++) {
		const struct kernel_channel *ch = chans[s];
		unsigned int nids = atomic_load(&ch->nids);

		kt_strbuf_printf(
			&sb,
			"stream {\n\tid = %zu;\n\tevent.header := struct event_header_%s;\n"
			"\tpacket.context := struct packet_context;\n",
			s, kernel_channel_compact_header(ch) ? "compact" : "large");
		if (ch->nctx) {
			kt_strbuf_printf(&sb, "\tevent.context := struct {\n");
			kt_context_tsdl(&sb, ch);
			kt_strbuf_printf(&sb, "\t};\n");
		}
		kt_strbuf_printf(&sb, "};\n\n");
		for (unsigned int id = 0; id < nids; id++) {
			const struct kt_class *c = atomic_load(&ch->kt->classes[ch->key_of_id[id]]);

			if (!c)
				continue;
			kt_strbuf_printf(&sb, "event {\n\tname = ");
			kt_quoted(&sb, c->name);
			kt_strbuf_printf(
				&sb, ";\n\tid = %u;\n\tstream_id = %zu;\n\tfields := struct {\n",
				id, s);
			kt_class_fields_tsdl(c, &sb);
			kt_strbuf_printf(&sb, "\t};\n};\n\n");
		}
	}
	if (sb.err) {
		free(sb.s);
		return sb.err;
	}
	*ret = sb.s;
	return 0;
}
