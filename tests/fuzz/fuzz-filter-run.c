/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the filter runtime with hostile bytecode: any bytes are validated;
 * whatever validates is linked against three event shapes and run on
 * argument values drawn from the input's hash. Nothing may crash, read out
 * of bounds or return anything but 0 or 1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define I(n, sz, sg, net)                                                              \
	{                                                                              \
		.name = n, .kind = STRATA_TYPE_INTEGER, .integer = { sz, sg, 10, net } \
	}

static const struct strata_field_desc shape_ints[] = {
	I("a", 32, 1, 0),
	I("b", 64, 0, 0),
	I("c", 16, 1, 1),
	I("d", 8, 0, 0),
	{ .name = "e", .kind = STRATA_TYPE_ENUM, .integer = { 32, 0, 10, 0 } },
};

static const struct strata_field_desc shape_mixed[] = {
	I("a", 64, 1, 0),
	{ .name = "d", .kind = STRATA_TYPE_FLOAT, .integer = { 64 } },
	{ .name = "s", .kind = STRATA_TYPE_STRING },
	{ .name = "name", .kind = STRATA_TYPE_STRING },
	{ .name = "x", .kind = STRATA_TYPE_FLOAT, .integer = { 32 } },
};

static const struct strata_field_desc shape_arrays[] = {
	{ .name = "a", .kind = STRATA_TYPE_ARRAY, .integer = { 32, 1, 10, 0 }, .length = 4 },
	{ .name = "t",
	  .kind = STRATA_TYPE_ARRAY,
	  .encoding = STRATA_ENCODING_UTF8,
	  .integer = { 8, 1, 10, 0 },
	  .length = 6 },
	I("_q_length", 32, 0, 0),
	{ .name = "q", .kind = STRATA_TYPE_SEQUENCE, .integer = { 16, 0, 16, 1 } },
	I("_s_length", 32, 0, 0),
	{ .name = "s",
	  .kind = STRATA_TYPE_SEQUENCE,
	  .encoding = STRATA_ENCODING_UTF8,
	  .integer = { 8, 1, 10, 0 } },
};

static const struct flt_ctx_desc ctxs[] = {
	{ "vpid", FLT_ROOT_CTX, FLT_CTX_INT, 0 },
	{ "procname", FLT_ROOT_CTX, FLT_CTX_STRING, 1 },
	{ "load", FLT_ROOT_CTX, FLT_CTX_DOUBLE, 2 },
	{ "p:c", FLT_ROOT_APP, FLT_CTX_INT, 3 },
};

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int get_ctx(void *opaque _unused_, uint32_t id, union strata_filter_arg *ret)
{
	uint64_t v = next();

	if (id == 1) {
		ret->ref.ptr = (v & 1) ? "strata" : NULL;
		ret->ref.len = 6;
	} else if (id == 2) {
		ret->d = (double)(int64_t)v / 7.0;
	} else {
		ret->u64 = v;
	}
	return (v & 0xff) == 0; /* sometimes unavailable */
}

static const char *const strings[] = { "", "a", "abc", "a*b", "\\*", "hello world", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[6] = { 'a', 'b', 0, 'c', 'd', 'e' };
	static int32_t arr[4];
	static uint16_t seq[3];
	struct {
		const struct strata_field_desc *f;
		uint32_t n;
	} shapes[] = {
		{ shape_ints, ARRAY_SIZE(shape_ints) },
		{ shape_mixed, ARRAY_SIZE(shape_mixed) },
		{ shape_arrays, ARRAY_SIZE(shape_arrays) },
	};
	const struct flt_env env = { get_ctx, NULL };
	struct flt_program *p = NULL;

	if (flt_validate(data, size, &p, NULL))
		return 0;
	rng = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < size; i++)
		rng = (rng ^ data[i]) * 0x100000001b3ull;
	rng |= 1;
	for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
		struct flt_linked *l = NULL;
		union strata_filter_arg args[8];

		if (flt_link_ust(p, shapes[s].f, shapes[s].n, ctxs, ARRAY_SIZE(ctxs), &l))
			continue;
		for (int round = 0; round < 8; round++) {
			for (size_t k = 0; k < ARRAY_SIZE(args); k++) {
				const char *str = strings[next() % ARRAY_SIZE(strings)];

				args[k].u64 = next();
				if (s == 1 && (k == 2 || k == 3)) {
					args[k].ref.ptr = str;
					args[k].ref.len = str ? strlen(str) : 0;
				} else if (s == 1 && (k == 1 || k == 4)) {
					args[k].d = (double)(int64_t)next() / 3.0;
				}
			}
			if (s == 2) {
				for (size_t k = 0; k < 4; k++)
					arr[k] = (int32_t)next();
				for (size_t k = 0; k < 3; k++)
					seq[k] = (uint16_t)next();
				args[0].ref.ptr = arr;
				args[0].ref.len = 4;
				args[1].ref.ptr = text;
				args[1].ref.len = sizeof(text);
				args[3].ref.ptr = seq;
				args[3].ref.len = next() % 4;
				args[5].ref.ptr = (next() & 1) ? text + 3 : NULL;
				args[5].ref.len = 3;
			}
			int r = flt_run(l, args, &env);

			if (r != 0 && r != 1)
				abort();
		}
		flt_linked_destroy(l);
	}
	flt_program_destroy(p);
	return 0;
}
