/* SPDX-License-Identifier: MIT */
/* strata analyze: analyses of recorded traces (entry-return). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"

#include "common/common.h"

static const char analyze_help[] =
	"Usage: strata analyze entry-return TRACE --entry ENTRY --return RETURN\n"
	"                     [--baseline BASELINE_TRACE] [--json]\n"
	"\n"
	"Pair each ENTRY event with the next RETURN event of the same thread (a return\n"
	"closes the innermost open entry, so nested and recursive calls pair as they\n"
	"ran) in the traces at or below TRACE, and for every perf_* context field and\n"
	"the duration, print the count, mean, standard deviation (of the sample),\n"
	"minimum and maximum of RETURN - ENTRY over the pairs.\n"
	"\n"
	"Per-CPU counters compare only on one CPU: pairs whose cpu_id changed are left\n"
	"out and counted as migrated. Entries never returned from and returns without\n"
	"an entry are counted as unmatched. Threads are told apart by the tid context\n"
	"(kernel: `strata add-context -k -t tid`) or vtid (user space).\n"
	"\n"
	"With --baseline, the mean of each field over the calibrate_entry/\n"
	"calibrate_return pairs of BASELINE_TRACE (recorded with `strata calibrate`)\n"
	"is subtracted from the mean, minimum and maximum: what remains is the\n"
	"function's own, without the cost of the probes and contexts.\n"
	"\n"
	"Options:\n"
	"      --entry=NAME       entry event (e.g. myfunc_entry)\n"
	"      --return=NAME      return event (e.g. myfunc_return)\n"
	"      --baseline=TRACE   subtract the calibrate_* means of TRACE\n"
	"      --json             print one JSON object: {\"pairs\": N, \"migrated\": M,\n"
	"                         \"unmatched\": U, \"fields\": {\"NAME\": {\"mean\": ..,\n"
	"                         \"stddev\": .., \"min\": .., \"max\": ..}, ...}}\n"
	"                         (stddev null below two pairs)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on a usage error, 2 when no trace can be read,\n"
	"3 when a trace is malformed.\n";

struct an_out {
	const char *name;
	double mean, stddev, min, max;
	uint64_t count;
	double baseline; /* subtracted from mean, min, max */
	bool has_baseline;
};

static void an_fill(struct an_out *o, const char *name, const struct an_stat *s,
		    const struct an_result *base, int base_idx)
{
	*o = (struct an_out){ .name = name,
			      .mean = an_stat_mean(s),
			      .stddev = an_stat_stddev(s),
			      .min = (double)s->min,
			      .max = (double)s->max,
			      .count = s->count };
	if (!base)
		return;
	if (base_idx == -2) {
		o->baseline = an_stat_mean(&base->duration);
		o->has_baseline = base->duration.count > 0;
	} else if (base_idx >= 0 && base->stat[base_idx].count) {
		o->baseline = an_stat_mean(&base->stat[base_idx]);
		o->has_baseline = true;
	}
	if (o->has_baseline) {
		o->mean -= o->baseline;
		o->min -= o->baseline;
		o->max -= o->baseline;
	}
}

static int an_field_index(const struct an_result *r, const char *name)
{
	for (unsigned int i = 0; i < r->nfields; i++)
		if (!strcmp(r->fields[i], name))
			return (int)i;
	return -1;
}

static void an_json_num(double v)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.17g", v);
}

static void an_print_json(const struct an_result *r, const struct an_out *outs, unsigned int n)
{
	printf("{\"pairs\": %llu, \"migrated\": %llu, \"unmatched\": %llu, \"fields\": {",
	       (unsigned long long)r->pairs, (unsigned long long)r->migrated,
	       (unsigned long long)(r->unmatched_entries + r->unmatched_returns));
	for (unsigned int i = 0; i < n; i++) {
		printf("%s\"%s\": {\"mean\": ", i ? ", " : "", outs[i].name);
		an_json_num(outs[i].mean);
		printf(", \"stddev\": ");
		an_json_num(outs[i].stddev);
		printf(", \"min\": ");
		an_json_num(outs[i].min);
		printf(", \"max\": ");
		an_json_num(outs[i].max);
		printf("}");
	}
	printf("}}\n");
}

/* A table cell: 3 decimals, never "-0.000". */
static double an_cell(double v)
{
	v = round(v * 1000) / 1000;
	return v == 0 ? 0 : v;
}

static void an_print_text(const struct an_result *r, const struct an_out *outs, unsigned int n,
			  const char *entry, const char *ret, const char *baseline,
			  const struct an_result *base)
{
	int w = 12;

	for (unsigned int i = 0; i < n; i++)
		w = MAX(w, (int)strlen(outs[i].name) + 1);
	printf("%s -> %s: %llu pairs on one CPU; %llu migrated between CPUs (left out); "
	       "%llu unmatched (%llu entries without return, %llu returns without entry)\n",
	       entry, ret, (unsigned long long)r->pairs, (unsigned long long)r->migrated,
	       (unsigned long long)(r->unmatched_entries + r->unmatched_returns),
	       (unsigned long long)r->unmatched_entries, (unsigned long long)r->unmatched_returns);
	if (base)
		printf("Baseline: the means of %llu calibrate_entry/calibrate_return pairs of %s, "
		       "subtracted from average, min and max\n",
		       (unsigned long long)base->pairs, baseline);
	if (!r->pairs) {
		printf("No pair to summarize.\n");
		return;
	}
	printf("\n    %-*s %10s %12s %12s %12s %12s%s\n", w, "", "Count", "Average", "Std.Dev.",
	       "Min", "Max", base ? "     Baseline" : "");
	for (unsigned int i = 0; i < n; i++) {
		char label[128];

		snprintf(label, sizeof(label), "%s:", outs[i].name);
		printf("    %-*s %10llu %12.3f ", w, label, (unsigned long long)outs[i].count,
		       an_cell(outs[i].mean));
		if (isnan(outs[i].stddev))
			printf("%12s", "-");
		else
			printf("%12.3f", an_cell(outs[i].stddev));
		printf(" %12.3f %12.3f", an_cell(outs[i].min), an_cell(outs[i].max));
		if (outs[i].has_baseline)
			printf(" %12.3f", an_cell(outs[i].baseline));
		else if (base)
			printf(" %12s", "-");
		printf("\n");
	}
}

static int entry_return_run(int argc, char **argv)
{
	enum { OPT_ENTRY = 256, OPT_RETURN, OPT_BASELINE, OPT_JSON };
	static const struct option opts[] = {
		{ "entry", required_argument, NULL, OPT_ENTRY },
		{ "return", required_argument, NULL, OPT_RETURN },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const char *entry = NULL, *ret = NULL, *baseline = NULL, *trace;
	struct an_result res, base;
	struct an_out outs[AN_MAX_FIELDS + 1];
	unsigned int n = 0;
	bool json = false;
	int c, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case OPT_ENTRY:
			entry = optarg;
			break;
		case OPT_RETURN:
			ret = optarg;
			break;
		case OPT_BASELINE:
			baseline = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		default:
			return cli_usage_error("analyze");
		}
	}
	if (optind + 1 != argc || !entry || !ret) {
		cli_error("analyze entry-return takes one TRACE, --entry NAME and --return NAME");
		return cli_usage_error("analyze");
	}
	if (!strcmp(entry, ret)) {
		cli_error("--entry and --return name the same event '%s'", entry);
		return cli_usage_error("analyze");
	}
	trace = argv[optind];
	memset(&base, 0, sizeof(base));
	if (baseline) {
		status = an_pairs_run(baseline, "calibrate_entry", "calibrate_return", &base);
		if (status)
			return status;
		if (!base.pairs) {
			cli_error("The baseline trace '%s' has no calibrate_entry/calibrate_return "
				  "pair on one CPU: record one with `strata calibrate`",
				  baseline);
			an_result_release(&base);
			return CLI_EXIT_USAGE;
		}
	}
	status = an_pairs_run(trace, entry, ret, &res);
	if (status) {
		an_result_release(&base);
		return status;
	}
	if (res.pairs) {
		for (unsigned int i = 0; i < res.nfields; i++)
			if (res.stat[i].count)
				an_fill(&outs[n++], res.fields[i], &res.stat[i],
					baseline ? &base : NULL,
					an_field_index(&base, res.fields[i]));
		an_fill(&outs[n++], "duration_ns", &res.duration, baseline ? &base : NULL, -2);
	}
	if (json)
		an_print_json(&res, outs, n);
	else
		an_print_text(&res, outs, n, entry, ret, baseline, baseline ? &base : NULL);
	an_result_release(&res);
	an_result_release(&base);
	return fflush(stdout) ? CLI_EXIT_OUTPUT : CLI_EXIT_OK;
}

static int analyze_run(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		if (argc < 2)
			cli_error("Give an analysis: entry-return");
		fputs(analyze_help, argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "entry-return"))
		return entry_return_run(argc - 1, argv + 1);
	cli_error("Unknown analysis '%s': the one there is is entry-return", argv[1]);
	return cli_usage_error("analyze");
}

const struct cli_command cli_cmd_analyze = {
	.name = "analyze",
	.run = analyze_run,
	.help = analyze_help,
	.summary = "analyze recorded traces (entry-return)",
};
