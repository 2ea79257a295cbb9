/* SPDX-License-Identifier: MIT */
/*
 * strata's side of the filter oracle: for each expression of the table,
 * compile, validate and link it (lib/filter) against the strata
 * descriptors of fo:ev and run it on every row of oracle-rows.h, with the
 * arguments a strata probe passes (union strata_filter_arg). Prints one
 * line per expression: the indexes of the rows it records, or "none".
 *
 *   oracle-check EXPRESSIONS.txt
 *
 * Contexts: vpid = vtid = 1234, procname "fo-app", cpu_id 0 (the oracle's
 * expressions only need these to be consistent with one process).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"
#include "oracle-rows.h"

#include "common/common.h"

#define INT(n, sz, sg)                                                               \
	{                                                                            \
		.name = n, .kind = STRATA_TYPE_INTEGER, .integer = { sz, sg, 10, 0 } \
	}

static const struct strata_field_desc fields[] = {
	INT("i", 32, 0),
	INT("s8", 8, 1),
	INT("s16", 16, 1),
	INT("s32", 32, 1),
	INT("s64", 64, 1),
	INT("u8", 8, 0),
	INT("u16", 16, 0),
	INT("u32", 32, 0),
	INT("u64", 64, 0),
	{ .name = "h32", .kind = STRATA_TYPE_INTEGER, .integer = { 32, 0, 16, 0 } },
	{ .name = "port", .kind = STRATA_TYPE_INTEGER, .integer = { 16, 0, 10, 1 } },
	{ .name = "net32", .kind = STRATA_TYPE_INTEGER, .integer = { 32, 1, 10, 1 } },
	{ .name = "en", .kind = STRATA_TYPE_ENUM, .integer = { 32, 1, 10, 0 } },
	{ .name = "f", .kind = STRATA_TYPE_FLOAT, .integer = { 32 } },
	{ .name = "d", .kind = STRATA_TYPE_FLOAT, .integer = { 64 } },
	{ .name = "str", .kind = STRATA_TYPE_STRING },
	{ .name = "txt",
	  .kind = STRATA_TYPE_ARRAY,
	  .encoding = STRATA_ENCODING_UTF8,
	  .integer = { 8, 1, 10, 0 },
	  .length = 8 },
	INT("_tseq_length", 32, 0),
	{ .name = "tseq",
	  .kind = STRATA_TYPE_SEQUENCE,
	  .encoding = STRATA_ENCODING_UTF8,
	  .integer = { 8, 1, 10, 0 } },
	{ .name = "iarr", .kind = STRATA_TYPE_ARRAY, .integer = { 32, 1, 10, 0 }, .length = 4 },
	INT("_iseq_length", 32, 0),
	{ .name = "iseq", .kind = STRATA_TYPE_SEQUENCE, .integer = { 16, 0, 10, 0 } },
};

enum { NF = ARRAY_SIZE(fields) };

/* lttng-ust's contexts that need no add-context (filters.md §2). */
static const struct flt_ctx_desc ctxs[] = {
	{ "vpid", FLT_ROOT_CTX, FLT_CTX_INT, 0 },	 { "vtid", FLT_ROOT_CTX, FLT_CTX_INT, 1 },
	{ "procname", FLT_ROOT_CTX, FLT_CTX_STRING, 2 }, { "cpu_id", FLT_ROOT_CTX, FLT_CTX_INT, 3 },
	{ "pthread_id", FLT_ROOT_CTX, FLT_CTX_INT, 4 },
};

static int get_ctx(void *opaque _unused_, uint32_t id, union strata_filter_arg *ret)
{
	switch (id) {
	case 0:
	case 1:
		ret->s64 = 1234;
		return 0;
	case 2:
		ret->ref.ptr = "fo-app";
		ret->ref.len = 6;
		return 0;
	case 3:
		ret->s64 = 0;
		return 0;
	default:
		ret->u64 = 0x7f0000001000ull;
		return 0;
	}
}

/* What a strata probe puts in the filter's arguments for row r (ust-events.h). */
static void fill(uint32_t i, const struct fo_row *r, union strata_filter_arg *a)
{
	memset(a, 0, NF * sizeof(*a));
	a[0].u64 = i;
	a[1].s64 = r->s8;
	a[2].s64 = r->s16;
	a[3].s64 = r->s32;
	a[4].s64 = r->s64;
	a[5].u64 = r->u8;
	a[6].u64 = r->u16;
	a[7].u64 = r->u32;
	a[8].u64 = r->u64;
	a[9].u64 = r->h32;
	a[10].u64 = htons(r->port); /* network fields: the bytes as given */
	a[11].s64 = (int32_t)htonl((uint32_t)r->net32);
	a[12].s64 = r->en;
	a[13].d = r->f;
	a[14].d = r->d;
	a[15].ref.ptr = r->str;
	a[15].ref.len = r->str ? strlen(r->str) : 0;
	a[16].ref.ptr = r->txt;
	a[16].ref.len = sizeof(r->txt);
	a[17].u64 = r->tseq_len;
	a[18].ref.ptr = r->tseq;
	a[18].ref.len = r->tseq_len;
	a[19].ref.ptr = r->iarr;
	a[19].ref.len = 4;
	a[20].u64 = r->iseq_len;
	a[21].ref.ptr = r->iseq;
	a[21].ref.len = r->iseq_len;
}

static int check(const char *expr)
{
	const struct flt_env env = { get_ctx, NULL };
	struct flt_program *p = NULL;
	struct flt_linked *l = NULL;
	struct flt_error err;
	union strata_filter_arg args[NF];
	bool any = false;
	void *bc;
	size_t len;
	int r;

	r = flt_compile(expr, &bc, &len, &err);
	if (r) {
		fprintf(stderr, "oracle-check: '%s' refused: %s\n", expr, err.msg);
		return r;
	}
	r = flt_validate(bc, len, &p, NULL);
	free(bc);
	if (!r)
		r = flt_link_ust(p, fields, NF, ctxs, ARRAY_SIZE(ctxs), &l);
	flt_program_destroy(p);
	for (uint32_t i = 0; !r && i < FO_NROWS; i++) {
		fill(i, &fo_rows[i], args);
		if (flt_run(l, args, &env)) {
			printf("%s%u", any ? " " : "", i);
			any = true;
		}
	}
	flt_linked_destroy(l);
	printf("%s\n", any ? "" : "none");
	return 0;
}

int main(int argc, char **argv)
{
	char line[4096];
	FILE *f;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: oracle-check EXPRESSIONS\n");
		return 2;
	}
	f = fopen(argv[1], "re");
	if (!f) {
		fprintf(stderr, "oracle-check: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (check(line))
			bad++;
	}
	fclose(f);
	return bad ? 1 : 0;
}
