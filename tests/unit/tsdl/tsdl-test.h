/* SPDX-License-Identifier: MIT */
/* Helpers shared by the TSDL unit tests. */
#ifndef STRATA_TESTS_TSDL_TEST_H
#define STRATA_TESTS_TSDL_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <strata/error.h>

#include "ctf/ctf-ir.h"
#include "ctf/tsdl-internal.h"

/* Type aliases most test metadata use (7 lines with the trace block). */
#define TSDL_TYPES                                                                   \
	"/* CTF 1.8 */\n"                                                            \
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"   \
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n" \
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n" \
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n" \
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"

#define TSDL_PROLOGUE TSDL_TYPES "trace { major = 1; minor = 8; byte_order = le; };\n"

static inline struct ctf_trace_class *tsdl_parse_ok(const char *text)
{
	struct ctf_parse_error err;
	struct ctf_trace_class *tc = NULL;
	int ret = ctf_metadata_parse(text, strlen(text), &tc, &err);

	if (ret)
		fail_msg("parse failed (%d): line %u: %s", ret, err.line, err.msg);
	assert_non_null(tc);
	return tc;
}

/* Expects failure; returns the error and fills err. */
static inline int tsdl_parse_fail(const char *text, struct ctf_parse_error *err)
{
	struct ctf_trace_class *tc = NULL;
	int ret = ctf_metadata_parse(text, strlen(text), &tc, err);

	if (!ret) {
		ctf_trace_class_destroy(tc);
		fail_msg("parse unexpectedly succeeded");
	}
	assert_null(tc);
	return ret;
}

static inline struct ctf_field *tsdl_field(const struct ctf_type *st, const char *name)
{
	const struct ctf_field *f = NULL;
	size_t n = 0;

	assert_non_null(st);
	if (st->kind == CTF_TYPE_STRUCT) {
		f = st->structure.fields;
		n = st->structure.n_fields;
	} else if (st->kind == CTF_TYPE_VARIANT) {
		f = st->variant.options;
		n = st->variant.n_options;
	} else {
		fail_msg("'%s': not a struct or variant", name);
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return (struct ctf_field *)&f[i];
	fail_msg("no field '%s'", name);
	return NULL;
}

static inline const struct ctf_event_class *tsdl_event(const struct ctf_trace_class *tc,
						       uint64_t sid, uint64_t id)
{
	const struct ctf_stream_class *sc = ctf_trace_class_stream(tc, sid);
	const struct ctf_event_class *ec;

	assert_non_null(sc);
	ec = ctf_stream_class_event(sc, id);
	assert_non_null(ec);
	return ec;
}

static inline void tsdl_assert_path(const struct ctf_field_path *fp, enum ctf_scope scope,
				    uint32_t len, const uint32_t *idx)
{
	assert_int_equal(fp->scope, scope);
	assert_int_equal(fp->len, len);
	for (uint32_t i = 0; i < len; i++)
		assert_int_equal(fp->index[i], idx[i]);
}

#endif
