/* SPDX-License-Identifier: MIT */
/*
 * `strata analyze entry-return`: pair entry and return events of each
 * thread in a trace and summarize what each perf counter context (and the
 * time) moved between them. analyze-pairs.c does the pairing and the
 * statistics, analyze.c the command line and the output.
 */
#ifndef STRATA_CLI_ANALYZE_H
#define STRATA_CLI_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>

#define AN_MAX_FIELDS 64 /* perf_* contexts followed */
#define AN_MAX_DEPTH 65536 /* open entries per thread (deeper ones count as unmatched) */

/* Running statistics of one field's deltas (Welford). */
struct an_stat {
	uint64_t count;
	__extension__ __int128 sum; /* exact: the mean is sum / count */
	double mean, m2; /* running mean and squared deviations, for the variance */
	int64_t min, max;
};

/* The mean, from the exact sum. */
double an_stat_mean(const struct an_stat *s);

struct an_result {
	uint64_t pairs; /* entry/return pairs on one CPU, the ones summarized */
	uint64_t migrated; /* pairs whose cpu_id changed: left out */
	uint64_t unmatched_entries; /* entries never returned from */
	uint64_t unmatched_returns; /* returns without an entry */
	unsigned int nfields;
	char *fields[AN_MAX_FIELDS]; /* "perf_cpu_page_fault", owned */
	struct an_stat stat[AN_MAX_FIELDS];
	struct an_stat duration; /* ns */
};

/*
 * Pair entry events named entry with return events named ret in the
 * traces at or below path: each return closes the innermost open entry of
 * its thread (tid, else vtid), so nesting and recursion pair as calls do.
 * Returns 0, or a CLI exit status (enum cli_exit) after printing an error
 * (*res is then empty).
 */
int an_pairs_run(const char *path, const char *entry, const char *ret, struct an_result *res);
void an_result_release(struct an_result *res);

/* Sample standard deviation (n - 1); NaN below two values. */
double an_stat_stddev(const struct an_stat *s);

#endif
