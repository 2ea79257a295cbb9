/* SPDX-License-Identifier: MIT */
/*
 * Metadata reading (plain and packetized), lexer/parser error reports, and
 * robustness: limits, hostile inputs, speed on a large metadata.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tsdl-test.h"
#include "common/common.h"

#define HDR 37

static const char small_text[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"trace { major = 1; minor = 8; byte_order = le; };\n"
	"event { name = \"split:me\"; id = 0; fields := struct { uint32_t value; }; };\n";

struct pkt_opts {
	bool be;
	size_t packet_bytes; /* 0: header + chunk, no padding */
	int bad_magic_packet; /* -1: none */
	int bad_uuid_packet; /* -1: none */
	int lying_content_packet; /* -1: none */
	uint8_t major, minor;
	uint8_t compression, checksum_scheme;
};

static void put_u32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(be ? v >> (24 - 8 * i) : v >> (8 * i));
}

/* Packetizes text, cutting it before each offset in cuts[]. */
static uint8_t *packetize(const char *text, const size_t *cuts, size_t ncuts,
			  const struct pkt_opts *o, size_t *ret_size)
{
	size_t len = strlen(text), cap = (ncuts + 1) * (HDR + len + o->packet_bytes) + 64;
	uint8_t *buf = calloc(1, cap);
	size_t off = 0, start = 0;

	assert_non_null(buf);
	for (size_t k = 0; k <= ncuts; k++) {
		size_t end = k < ncuts ? cuts[k] : len;
		size_t chunk = end - start;
		size_t content = HDR + chunk;
		size_t packet = o->packet_bytes ? o->packet_bytes : content;
		uint8_t *h = buf + off;

		assert_true(packet >= content);
		put_u32(h, (int)k == o->bad_magic_packet ? 0xC1FC1FC1 : 0x75D11D57, o->be);
		for (int i = 0; i < 16; i++)
			h[4 + i] = (uint8_t)(0xA0 + i + ((int)k == o->bad_uuid_packet));
		put_u32(h + 20, 0, o->be);
		put_u32(h + 24,
			(uint32_t)(((int)k == o->lying_content_packet ? packet + 100 : content) *
				   8),
			o->be);
		put_u32(h + 28, (uint32_t)(packet * 8), o->be);
		h[32] = o->compression;
		h[33] = 0;
		h[34] = o->checksum_scheme;
		h[35] = o->major;
		h[36] = o->minor;
		memcpy(h + HDR, text + start, chunk);
		off += packet;
		start = end;
	}
	*ret_size = off;
	return buf;
}

static struct pkt_opts default_opts(bool be)
{
	struct pkt_opts o = { .be = be,
			      .bad_magic_packet = -1,
			      .bad_uuid_packet = -1,
			      .lying_content_packet = -1,
			      .major = 1,
			      .minor = 8 };
	return o;
}

static void check_small_trace(const char *text, size_t len)
{
	struct ctf_trace_class *tc = NULL;
	struct ctf_parse_error err;
	int ret = ctf_metadata_parse(text, len, &tc, &err);

	if (ret)
		fail_msg("parse failed: line %u: %s", err.line, err.msg);
	assert_string_equal(tsdl_event(tc, 0, 0)->name, "split:me");
	assert_int_equal(tsdl_field(tsdl_event(tc, 0, 0)->payload, "value")->type->integer.size,
			 32);
	ctf_trace_class_destroy(tc);
}

static void split_token(bool be)
{
	const char *p = strstr(small_text, "split:me");
	/* Cut inside `split:me` and inside `id = 0;`, as LTTng does. */
	size_t cuts[] = { (size_t)(p - small_text) + 3,
			  (size_t)(strstr(small_text, "id = 0") - small_text) + 4 };
	struct pkt_opts o = default_opts(be);
	struct ctf_parse_error err;
	uint8_t *buf;
	char *text;
	size_t size, len;

	o.packet_bytes = 4096;
	buf = packetize(small_text, cuts, 2, &o, &size);
	assert_int_equal(size, 3 * 4096);
	assert_int_equal(ctf_metadata_read_buf(buf, size, &text, &len, &err), 0);
	assert_int_equal(len, strlen(small_text));
	assert_string_equal(text, small_text);
	check_small_trace(text, len);
	free(text);
	/* A truncated last packet's padding is fine (babeltrace2 stops at EOF). */
	assert_int_equal(ctf_metadata_read_buf(buf, 2 * 4096 + 300, &text, &len, &err), 0);
	assert_int_equal(len, strlen(small_text));
	free(text);
	free(buf);
}

static void test_packetized_le(void **state)
{
	(void)state;
	split_token(false);
}

static void test_packetized_be(void **state)
{
	(void)state;
	split_token(true);
}

static void test_packetized_unpadded(void **state)
{
	size_t cuts[] = { 10, 11, 50 };
	struct pkt_opts o = default_opts(false);
	struct ctf_parse_error err;
	uint8_t *buf, *big;
	char *text;
	size_t size, len;

	(void)state;
	buf = packetize(small_text, cuts, 3, &o, &size);
	/* A partial trailing header is ignored, as babeltrace2 does. */
	big = calloc(1, size + 20);
	memcpy(big, buf, size);
	assert_int_equal(ctf_metadata_read_buf(big, size + 20, &text, &len, &err), 0);
	assert_string_equal(text, small_text);
	check_small_trace(text, len);
	free(text);
	free(big);
	free(buf);
}

static int packet_error(const struct pkt_opts *o, size_t trunc, struct ctf_parse_error *err)
{
	size_t cuts[] = { 40, 80 }, size, len;
	uint8_t *buf = packetize(small_text, cuts, 2, o, &size);
	char *text = NULL;
	int ret;

	ret = ctf_metadata_read_buf(buf, trunc ? trunc : size, &text, &len, err);
	free(buf);
	assert_null(text);
	return ret;
}

static void test_packetized_errors(void **state)
{
	struct ctf_parse_error err;
	struct pkt_opts o;
	char expect[64];

	(void)state;
	o = default_opts(false);
	o.packet_bytes = 512;
	o.bad_magic_packet = 1;
	assert_int_equal(packet_error(&o, 0, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "offset 512: bad magic 0xc1fc1fc1"));
	assert_int_equal(err.line, 0);

	o = default_opts(true);
	o.packet_bytes = 512;
	o.bad_uuid_packet = 2;
	assert_int_equal(packet_error(&o, 0, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "offset 1024: UUID"));

	/* content_size larger than packet_size */
	o = default_opts(false);
	o.packet_bytes = 512;
	o.lying_content_packet = 1;
	assert_int_equal(packet_error(&o, 0, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "offset 512: content size 4896 bits exceeds packet size"));

	/* content beyond the end of the file */
	o = default_opts(false);
	o.packet_bytes = 512;
	assert_int_equal(packet_error(&o, 1024 + 50, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "offset 1024"));
	assert_non_null(strstr(err.msg, "beyond the end of the file"));

	o = default_opts(false);
	o.major = 2;
	o.minor = 0;
	assert_int_equal(packet_error(&o, 0, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "offset 0: invalid version 2.0"));

	o = default_opts(true);
	o.compression = 1;
	assert_int_equal(packet_error(&o, 0, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "compression"));

	o = default_opts(false);
	o.checksum_scheme = 3;
	assert_int_equal(packet_error(&o, 0, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "checksum"));

	/* content_size smaller than the header */
	{
		uint8_t buf[HDR + 8] = { 0 };
		char *text = NULL;
		size_t len;

		put_u32(buf, 0x75D11D57, false);
		put_u32(buf + 24, 8 * 20, false);
		put_u32(buf + 28, 8 * 45, false);
		buf[35] = 1;
		buf[36] = 8;
		assert_int_equal(ctf_metadata_read_buf(buf, sizeof(buf), &text, &len, &err),
				 -STRATA_EMETADATA);
		snprintf(expect, sizeof(expect), "content size %u bits is smaller", 8 * 20);
		assert_non_null(strstr(err.msg, expect));
	}
}

static void test_plain_text_version(void **state)
{
	const char bad[] = "/* CTF 2.0 */\ntrace { major = 1; minor = 8; byte_order = le; };\n";
	const char none[] = "trace { major = 1; minor = 8; byte_order = le; };\n";
	const char sig[] = "/*CTF  1.8 tight */ trace { major = 1; minor = 8; byte_order = le; };";
	struct ctf_parse_error err;
	char *text = NULL;
	size_t len;

	(void)state;
	assert_int_equal(
		ctf_metadata_read_buf((const uint8_t *)bad, sizeof(bad) - 1, &text, &len, &err),
		-STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "offset 0: invalid version 2.0"));
	/* babeltrace2 fails on plain text without the signature too. */
	assert_int_equal(
		ctf_metadata_read_buf((const uint8_t *)none, sizeof(none) - 1, &text, &len, &err),
		-STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "offset 0: missing `/* CTF 1.8` signature"));
	assert_null(text);
	assert_int_equal(
		ctf_metadata_read_buf((const uint8_t *)sig, sizeof(sig) - 1, &text, &len, &err), 0);
	assert_int_equal(len, sizeof(sig) - 1);
	assert_string_equal(text, sig);
	free(text);
	/* TSDL version 2.0 in the trace block. */
	assert_int_equal(
		tsdl_parse_fail("trace {\n major = 2;\n minor = 0;\n byte_order = le;\n};\n", &err),
		-STRATA_EUNSUPPORTED);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.msg, "2.0"));
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/strata-tsdl-XXXXXX";
	size_t cuts[] = { 100 }, size, len;
	struct pkt_opts o = default_opts(false);
	struct ctf_parse_error err;
	uint8_t *buf;
	char *text;
	int fd;

	(void)state;
	o.packet_bytes = 4096;
	buf = packetize(small_text, cuts, 1, &o, &size);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, size), (ssize_t)size);
	close(fd);
	free(buf);
	assert_int_equal(ctf_metadata_read(path, &text, &len, &err), 0);
	assert_string_equal(text, small_text);
	free(text);
	unlink(path);
	assert_int_equal(ctf_metadata_read(path, &text, &len, &err), -ENOENT);
	assert_int_equal(ctf_metadata_read("/tmp", &text, &len, &err), -EINVAL);
}

struct err_case {
	const char *text;
	int ret;
	unsigned line;
	const char *msg;
};

static void test_error_lines(void **state)
{
	static const struct err_case cases[] = {
		{ TSDL_PROLOGUE "\n\n/* never closed\n\n", -STRATA_EMETADATA, 10,
		  "unterminated comment" },
		{ TSDL_PROLOGUE "event {\n name = \"x\";\n fields := struct {\n  uint99_t a;\n "
				"};\n};\n",
		  -STRATA_EMETADATA, 11, "unknown type name 'uint99_t'" },
		{ TSDL_PROLOGUE "event { name = \"x\nbroken\"; };\n", -STRATA_EMETADATA, 8,
		  "unterminated string" },
		{ TSDL_PROLOGUE "event { name = \"x\"; fields := struct { uint8_t a; uint8_t a; }; "
				"};\n",
		  -STRATA_EMETADATA, 8, "duplicate struct member 'a'" },
		{ TSDL_PROLOGUE "\n\nevent { name = \"x\" }\n", -STRATA_EMETADATA, 10,
		  "expected ';'" },
		{ TSDL_PROLOGUE "event { name = \"x\"; ", -STRATA_EMETADATA, 8, "unexpected end" },
		{ TSDL_PROLOGUE "typealias integer { size = 65; } := big;\n", -STRATA_EUNSUPPORTED,
		  8, "size 65" },
		{ TSDL_PROLOGUE "typealias integer { align = 8; } := nosize;\n", -STRATA_EMETADATA,
		  8, "missing `size`" },
		{ TSDL_PROLOGUE "typealias integer { size = 8; align = 3; } := x;\n",
		  -STRATA_EMETADATA, 8, "power of two" },
		{ TSDL_PROLOGUE "typealias integer { size = 8; size = 8; } := x;\n",
		  -STRATA_EMETADATA, 8, "duplicate `size`" },
		{ TSDL_PROLOGUE "typealias integer { size = 8; base = 7; } := x;\n",
		  -STRATA_EMETADATA, 8, "`base`" },
		{ TSDL_PROLOGUE "typealias integer { size = 8; encoding = ebcdic; } := x;\n",
		  -STRATA_EMETADATA, 8, "`encoding`" },
		{ TSDL_PROLOGUE "typealias integer { size = 8; signed = maybe; } := x;\n",
		  -STRATA_EMETADATA, 8, "boolean" },
		{ TSDL_PROLOGUE
		  "typealias floating_point { exp_dig = 5; mant_dig = 11; } := half;\n",
		  -STRATA_EUNSUPPORTED, 8, "exp_dig 5" },
		{ TSDL_PROLOGUE "typealias integer { size = 8; } := x;\ntypealias integer { size = "
				"16; } := x;\n",
		  -STRATA_EMETADATA, 9, "duplicate type 'x'" },
		{ TSDL_PROLOGUE "typealias integer { size = 08; } := x;\n", -STRATA_EMETADATA, 8,
		  "invalid digit" },
		{ TSDL_PROLOGUE "typealias integer { size = 99999999999999999999; } := x;\n",
		  -STRATA_EMETADATA, 8, "out of range" },
		{ TSDL_PROLOGUE "typealias integer { size = 8; } := x; @\n", -STRATA_EMETADATA, 8,
		  "unexpected character '@'" },
		{ "trace { major = 1; minor = 8; };\n", -STRATA_EMETADATA, 1, "byte_order" },
		{ "env { a = 1; };\n", -STRATA_EMETADATA, 0, "missing trace block" },
		{ "trace { major = 1; minor = 8; byte_order = native; };\n", -STRATA_EMETADATA, 1,
		  "byte_order" },
		{ TSDL_PROLOGUE "trace { major = 1; minor = 8; byte_order = le; };\n",
		  -STRATA_EMETADATA, 8, "duplicate trace block" },
		{ TSDL_PROLOGUE "event { name = \"x\"; fields := uint8_t; };\n", -STRATA_EMETADATA,
		  8, "must be a structure" },
		{ TSDL_PROLOGUE "}\n", -STRATA_EMETADATA, 8, "unexpected '}'" },
		{ TSDL_PROLOGUE "uint8_t stray;\n", -STRATA_EMETADATA, 8, "expected ';'" },
		{ TSDL_PROLOGUE "stream { id = 1; };\n", -STRATA_EMETADATA, 8, "stream_id" },
		{ TSDL_TYPES "trace { major = 1; minor = 8; byte_order = le;\n uuid = "
			     "\"not-a-uuid\"; };\n",
		  -STRATA_EMETADATA, 8, "UUID" },
	};
	struct ctf_parse_error err;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = tsdl_parse_fail(cases[i].text, &err);

		if (ret != cases[i].ret || err.line != cases[i].line ||
		    !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: got %d line %u '%s', want %d line %u '%s'", i, ret,
				 err.line, err.msg, cases[i].ret, cases[i].line, cases[i].msg);
	}
}

/* Grows a string buffer, failing the test on ENOMEM. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if (b->len + (size_t)n < b->cap)
			break;
		b->cap = (b->cap + (size_t)n) * 2 + 64;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	b->len += (size_t)n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_limits(void **state)
{
	struct sbuf b = { 0 };
	struct ctf_parse_error err;
	int ret;

	(void)state;
	/* Deep struct nesting: rejected, no stack overflow. */
	sb_add(&b, TSDL_PROLOGUE "event { name = \"deep\"; fields := ");
	for (int i = 0; i < 100000; i++)
		sb_add(&b, "struct { ");
	sb_add(&b, "uint8_t x; ");
	for (int i = 1; i < 100000; i++)
		sb_add(&b, "} s; ");
	sb_add(&b, "}; };\n");
	assert_int_equal(tsdl_parse_fail(b.s, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "too deep"));

	/* Deep enum container chains likewise. */
	b.len = 0;
	sb_add(&b, TSDL_PROLOGUE "typealias ");
	for (int i = 0; i < 10000; i++)
		sb_add(&b, "enum : ");
	sb_add(&b, "uint8_t { A } := e;\n");
	assert_int_equal(tsdl_parse_fail(b.s, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "too deep"));

	/* Array dimensions and nested arrays of structs. */
	b.len = 0;
	sb_add(&b, TSDL_PROLOGUE "event { name = \"dims\"; fields := struct { uint8_t x");
	for (int i = 0; i < 40; i++)
		sb_add(&b, "[1]");
	sb_add(&b, "; }; };\n");
	assert_int_equal(tsdl_parse_fail(b.s, &err), -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "dimensions"));

	/* Exponential alias growth: each level doubles the previous one. */
	b.len = 0;
	sb_add(&b, TSDL_PROLOGUE "typealias struct { uint8_t a; uint8_t b; } := t0;\n");
	for (int i = 1; i < 40; i++)
		sb_add(&b, "typealias struct { t%d a; t%d b; } := t%d;\n", i - 1, i - 1, i);
	ret = tsdl_parse_fail(b.s, &err);
	assert_int_equal(ret, -STRATA_EMETADATA);
	assert_non_null(strstr(err.msg, "too complex"));

	/* Huge identifier. */
	b.len = 0;
	sb_add(&b, TSDL_PROLOGUE "typealias integer { size = 8; } := ");
	for (int i = 0; i < 5000; i++)
		sb_add(&b, "x");
	sb_add(&b, ";\n");
	tsdl_parse_fail(b.s, &err);
	assert_non_null(strstr(err.msg, "identifier too long"));

	/* Too many env entries or stream classes. */
	b.len = 0;
	sb_add(&b, TSDL_PROLOGUE "env {\n");
	for (int i = 0; i < 5000; i++)
		sb_add(&b, "k%d = %d;\n", i, i);
	sb_add(&b, "};\n");
	tsdl_parse_fail(b.s, &err);
	assert_non_null(strstr(err.msg, "too many env entries"));
	b.len = 0;
	sb_add(&b, TSDL_TYPES "trace { major = 1; minor = 8; byte_order = le; packet.header := "
			      "struct { uint32_t stream_id; }; };\n");
	for (int i = 0; i < 5000; i++)
		sb_add(&b, "stream { id = %d; };\n", i);
	tsdl_parse_fail(b.s, &err);
	assert_non_null(strstr(err.msg, "too many streams"));

	/*
	 * Quadratic field lookups: each sequence names a field at the far end
	 * of a huge struct. Stopped by the lookup budget, quickly.
	 */
	{
		double t0 = now();

		b.len = 0;
		sb_add(&b, TSDL_PROLOGUE "event { name = \"q\"; fields := struct {\n");
		for (int i = 0; i < 30000; i++)
			sb_add(&b, "uint8_t f%d;\n", i);
		sb_add(&b, "uint8_t n;\n");
		for (int i = 0; i < 30000; i++)
			sb_add(&b, "uint8_t s%d[event.fields.n];\n", i);
		sb_add(&b, "}; };\n");
		tsdl_parse_fail(b.s, &err);
		assert_non_null(strstr(err.msg, "too complex"));
		assert_true(now() - t0 < 5.0);
	}

	/* A huge array length is just a number: nothing is allocated for it. */
	{
		struct ctf_trace_class *tc = tsdl_parse_ok(
			TSDL_PROLOGUE "event { name = \"a\"; fields := struct { uint8_t "
				      "x[0xFFFFFFFFFFFFFFFF]; }; };\n");

		assert_true(tsdl_field(tsdl_event(tc, 0, 0)->payload, "x")->type->array.length ==
			    UINT64_MAX);
		ctf_trace_class_destroy(tc);
	}

	/* NUL bytes inside the text. */
	{
		static const char nul[] = "trace { major = 1;\0 minor = 8; byte_order = le; };";
		struct ctf_trace_class *tc = NULL;

		assert_int_equal(ctf_metadata_parse(nul, sizeof(nul) - 1, &tc, &err),
				 -STRATA_EMETADATA);
		assert_non_null(strstr(err.msg, "0x00"));
	}
	free(b.s);
}

/* About 1 MB of LTTng-style events: parsing must stay well under a second. */
static void test_large_metadata_speed(void **state)
{
	struct sbuf b = { 0 };
	struct ctf_trace_class *tc = NULL;
	struct ctf_parse_error err;
	double t0, dt;
	int n = 0;

	(void)state;
	sb_add(&b, TSDL_PROLOGUE "stream { };\n");
	while (b.len < (1u << 20)) {
		sb_add(&b,
		       "event {\n\tname = \"prov:event_%d\";\n\tid = %d;\n\tstream_id = 0;\n"
		       "\tloglevel = 13;\n\tfields := struct {\n"
		       "\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = "
		       "10; } _a;\n"
		       "\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = "
		       "16; } _b;\n"
		       "\t\tstring _s;\n"
		       "\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = "
		       "10; } __seq_length;\n"
		       "\t\tinteger { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; "
		       "} _seq[ __seq_length ];\n"
		       "\t\tuint32_t _u;\n\t};\n};\n\n",
		       n, n);
		n++;
	}
	t0 = now();
	assert_int_equal(ctf_metadata_parse(b.s, b.len, &tc, &err), 0);
	dt = now() - t0;
	printf("# parsed %zu bytes (%d events) in %.1f ms\n", b.len, n, dt * 1e3);
	assert_int_equal(tc->streams[0]->n_events, (size_t)n);
	assert_int_equal(strncmp(tsdl_event(tc, 0, (uint64_t)n - 1)->name, "prov:event_", 11), 0);
	/* Generous bound: sanitizer builds on a loaded machine. */
	assert_true(dt < 2.0);
	ctf_trace_class_destroy(tc);
	free(b.s);
}

static unsigned corpus_ok, corpus_bad;

static int corpus_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct ctf_trace_class *tc = NULL;
	struct ctf_parse_error err;
	const char *base = path + ftw->base;
	char *text = NULL;
	size_t len;
	int ret;

	(void)st;
	if (flag != FTW_F || strcmp(base, "metadata"))
		return 0;
	ret = ctf_metadata_read(path, &text, &len, &err);
	if (!ret) {
		ret = ctf_metadata_parse(text, len, &tc, &err);
		free(text);
	}
	ctf_trace_class_destroy(tc);
	if (strstr(path, "/bad/")) {
		/* Only these two are metadata defects; the others are in stream files. */
		bool meta_bad = strstr(path, "/metadata-syntax/") || strstr(path, "/no-signature/");

		if (meta_bad != (ret != 0))
			fail_msg("%s: got %d (%s)", path, ret, err.msg);
		corpus_bad++;
	} else {
		if (ret)
			fail_msg("%s: line %u: %s", path, err.line, err.msg);
		corpus_ok++;
	}
	return 0;
}

/* Every trace of the shared corpus (LTTng-recorded and generated) parses. */
static void test_trace_corpus(void **state)
{
	const char *root = getenv("STRATA_SOURCE_ROOT");
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/traces", root ? root : ".");
	if (access(path, R_OK)) {
		printf("# no trace corpus at %s\n", path);
		skip();
	}
	assert_int_equal(nftw(path, corpus_visit, 16, FTW_PHYS), 0);
	printf("# trace corpus: %u good, %u bad metadata files\n", corpus_ok, corpus_bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packetized_le),
		cmocka_unit_test(test_packetized_be),
		cmocka_unit_test(test_packetized_unpadded),
		cmocka_unit_test(test_packetized_errors),
		cmocka_unit_test(test_plain_text_version),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_large_metadata_speed),
		cmocka_unit_test(test_trace_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
