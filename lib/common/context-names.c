/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "common/context-names.h"

#define U (1u << CTX_DOMAIN_UST)
#define K (1u << CTX_DOMAIN_KERNEL)

/* lttng-tools' order; strata's domains for each. */
static const struct {
	const char *name;
	unsigned int domains;
} ctx_plain[] = {
	{ "pid", K },	   { "procname", U | K }, { "prio", K },       { "nice", K },
	{ "vpid", U | K }, { "tid", K },	  { "pthread_id", U }, { "vtid", U | K },
	{ "ppid", K },	   { "vppid", K },	  { "hostname", K },   { "ip", U },
};

#define HW_CACHE(id, op, res)                                                                \
	PERF_TYPE_HW_CACHE, (PERF_COUNT_HW_CACHE_##id | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
			     (PERF_COUNT_HW_CACHE_RESULT_##res << 16))
#define HW_CACHE6(prefix, id)                                                    \
	{ prefix "-loads", HW_CACHE(id, READ, ACCESS), false },                  \
		{ prefix "-load-misses", HW_CACHE(id, READ, MISS), false },      \
		{ prefix "-stores", HW_CACHE(id, WRITE, ACCESS), false },        \
		{ prefix "-store-misses", HW_CACHE(id, WRITE, MISS), false },    \
		{ prefix "-prefetches", HW_CACHE(id, PREFETCH, ACCESS), false }, \
	{                                                                        \
		prefix "-prefetch-misses", HW_CACHE(id, PREFETCH, MISS), false   \
	}

/* The counters after "perf:cpu:", "perf:thread:" or "perf:"; hidden: accepted, not listed. */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool hidden;
} ctx_perf_names[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  false },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  false },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  false },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, false },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, false },
	HW_CACHE6("L1-dcache", L1D),
	HW_CACHE6("L1-icache", L1I),
	HW_CACHE6("LLC", LL),
	HW_CACHE6("dTLB", DTLB),
	{ "iTLB-loads", HW_CACHE(ITLB, READ, ACCESS), false },
	{ "iTLB-load-misses", HW_CACHE(ITLB, READ, MISS), false },
	{ "branch-loads", HW_CACHE(BPU, READ, ACCESS), false },
	{ "branch-load-misses", HW_CACHE(BPU, READ, MISS), false },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, false },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false },
	{ "page-fault", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, false },
	/* perf(1)'s own spellings, which strata accepted before it took LTTng's. */
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, true },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, true },
};

int ctx_list(int (*cb)(void *opaque, const char *name, unsigned int domains), void *opaque)
{
	static const struct {
		const char *prefix;
		unsigned int domains;
	} scopes[] = { { "perf:cpu:", K }, { "perf:thread:", U } };
	char name[64];
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(ctx_plain); i++)
		if ((r = cb(opaque, ctx_plain[i].name, ctx_plain[i].domains)))
			return r;
	for (size_t s = 0; s < ARRAY_SIZE(scopes); s++) {
		for (size_t i = 0; i < ARRAY_SIZE(ctx_perf_names); i++) {
			if (ctx_perf_names[i].hidden)
				continue;
			snprintf(name, sizeof(name), "%s%s", scopes[s].prefix,
				 ctx_perf_names[i].name);
			if ((r = cb(opaque, name, scopes[s].domains)))
				return r;
		}
	}
	return 0;
}

bool ctx_plain_valid(unsigned int domain, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(ctx_plain); i++)
		if (!strcmp(ctx_plain[i].name, name))
			return (ctx_plain[i].domains >> domain) & 1;
	return false;
}

/* "rNNN:NAME" after "perf:cpu:raw:": the config in hex, then a non-empty name. */
static int ctx_perf_raw(const char *spec, struct ctx_perf *ret, char *why, size_t len)
{
	const char *colon = strchr(spec, ':');
	unsigned long long config;
	char *end;

	if (spec[0] != 'r' || !colon || colon == spec + 1) {
		snprintf(why, len,
			 "expected perf:cpu:raw:rNNN:NAME or perf:thread:raw:rNNN:NAME, "
			 "NNN a hexadecimal event number");
		return -EINVAL;
	}
	errno = 0;
	config = strtoull(spec + 1, &end, 16);
	if (errno || end != colon) {
		snprintf(why, len, "the raw event number after 'r' must be hexadecimal (rNNN)");
		return -EINVAL;
	}
	if (!colon[1] || strchr(colon + 1, ':')) {
		snprintf(why, len,
			 "a raw counter needs one name after rNNN: (perf:cpu:raw:%.*s:NAME)",
			 (int)(colon - spec), spec);
		return -EINVAL;
	}
	ret->type = PERF_TYPE_RAW;
	ret->config = config;
	ret->raw = true;
	ret->counter = colon + 1;
	return 1;
}

int ctx_perf_parse(const char *name, struct ctx_perf *ret, char *why, size_t len)
{
	struct ctx_perf p = { 0 };
	const char *rest;

	if (!strncmp(name, "perf:cpu:", 9)) {
		p.scope = CTX_PERF_CPU;
		rest = name + 9;
	} else if (!strncmp(name, "perf:thread:", 12)) {
		p.scope = CTX_PERF_THREAD;
		rest = name + 12;
	} else if (!strncmp(name, "perf:", 5)) {
		p.scope = CTX_PERF_LEGACY;
		rest = name + 5;
	} else {
		return 0;
	}
	if (!strncmp(rest, "raw:", 4)) {
		int r;

		if (p.scope == CTX_PERF_LEGACY) {
			snprintf(why, len, "raw counters are spelled perf:cpu:raw:rNNN:NAME");
			return -EINVAL;
		}
		r = ctx_perf_raw(rest + 4, &p, why, len);
		if (r < 0)
			return r;
		*ret = p;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(ctx_perf_names); i++) {
		if (!strcmp(ctx_perf_names[i].name, rest)) {
			p.type = ctx_perf_names[i].type;
			p.config = ctx_perf_names[i].config;
			p.counter = rest;
			*ret = p;
			return 1;
		}
	}
	snprintf(why, len, "unknown perf counter '%s' (run `strata add-context --list`)", rest);
	return -EINVAL;
}

void ctx_field_name(const char *name, char *out, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; name[i] && i + 1 < len; i++)
		out[i] = name[i] == ':' || name[i] == '-' ? '_' : name[i];
	out[i] = '\0';
}
