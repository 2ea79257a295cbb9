/* SPDX-License-Identifier: MIT */
/*
 * bench/filter-run: what flt_run() costs per event, user space, for a few
 * expressions, each evaluated on an event it accepts and one it rejects.
 * The event has the fields of a typical probe (integers, a string); the
 * arguments are filled once, as a probe would before reserving. Each row
 * is the best of `reps` runs of `iters` evaluations (the machine may be
 * shared). The comparison with lttng-ust's filter on the same expressions
 * needs the probe side of libstrata-ust (not written yet).
 *
 * Usage: filter-run [iterations] [reps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filter/filter.h"

#include "common/common.h"

static const struct strata_field_desc fields[] = {
	{ .name = "a", .kind = STRATA_TYPE_INTEGER, .integer = { 32, 1, 10, 0 } },
	{ .name = "b", .kind = STRATA_TYPE_INTEGER, .integer = { 64, 0, 10, 0 } },
	{ .name = "c", .kind = STRATA_TYPE_INTEGER, .integer = { 16, 0, 10, 0 } },
	{ .name = "s", .kind = STRATA_TYPE_STRING },
	{ .name = "d", .kind = STRATA_TYPE_FLOAT, .integer = { 64 } },
};

static const struct flt_ctx_desc ctxs[] = {
	{ "vpid", FLT_ROOT_CTX, FLT_CTX_INT, 0 },
};

static int get_ctx(void *opaque, uint32_t id, union strata_filter_arg *ret)
{
	(void)opaque;
	(void)id;
	ret->s64 = 4242;
	return 0;
}

static const char *const exprs[] = {
	"a == 1",
	"a > 10 && b < 5 || c == 3",
	"(a & 0xff) == 1 && !(b >> 3 == 7)",
	"d > 1.5",
	"s == \"hello\"",
	"s == \"hello*\"",
	"s == \"*ll*o\"",
	"$ctx.vpid == 4242 && a == 1",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double best_ns(const struct flt_linked *l, const union strata_filter_arg *args,
		      const struct flt_env *env, long iters, int reps, int *ret_result)
{
	double best = 1e18;
	volatile int sink = 0;

	for (int r = 0; r < reps; r++) {
		uint64_t t0 = now_ns();

		for (long i = 0; i < iters; i++)
			sink += flt_run(l, args, env);
		best = MIN(best, (double)(now_ns() - t0) / (double)iters);
	}
	*ret_result = sink ? 1 : 0;
	return best;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 10000000;
	int reps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3;
	const struct flt_env env = { get_ctx, NULL };
	union strata_filter_arg pass[5], fail[5];

	memset(pass, 0, sizeof(pass));
	pass[0].s64 = 1;
	pass[1].u64 = 2;
	pass[2].u64 = 3;
	pass[3].ref.ptr = "hello";
	pass[3].ref.len = 5;
	pass[4].d = 2.5;
	memcpy(fail, pass, sizeof(fail));
	fail[0].s64 = 0x110;
	fail[1].u64 = 60;
	fail[2].u64 = 4;
	fail[3].ref.ptr = "hellp world";
	fail[3].ref.len = 11;
	fail[4].d = 0.5;
	printf("flt_run(), ns per event, best of %d x %ld\n", reps, iters);
	printf("%-40s %10s %10s\n", "expression", "accepted", "rejected");
	for (size_t i = 0; i < ARRAY_SIZE(exprs); i++) {
		struct flt_program *p = NULL;
		struct flt_linked *l = NULL;
		struct flt_error err;
		double ta, tr;
		int ra, rr;
		void *bc;
		size_t len;

		if (flt_compile(exprs[i], &bc, &len, &err) || flt_validate(bc, len, &p, NULL) ||
		    flt_link_ust(p, fields, ARRAY_SIZE(fields), ctxs, ARRAY_SIZE(ctxs), &l)) {
			fprintf(stderr, "filter-run: '%s' does not link\n", exprs[i]);
			return 1;
		}
		free(bc);
		flt_program_destroy(p);
		ta = best_ns(l, pass, &env, iters, reps, &ra);
		tr = best_ns(l, fail, &env, iters, reps, &rr);
		if (!ra || rr) {
			fprintf(stderr, "filter-run: '%s' gives %d/%d on its events\n", exprs[i],
				ra, rr);
			return 1;
		}
		printf("%-40s %10.1f %10.1f\n", exprs[i], ta, tr);
		flt_linked_destroy(l);
	}
	return 0;
}
