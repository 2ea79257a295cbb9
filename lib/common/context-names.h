/* SPDX-License-Identifier: MIT */
/*
 * The context types `strata add-context` knows, in both domains, with
 * LTTng's names: the CLI lists them (`add-context --list`), the daemon
 * validates requests against them and the kernel domain takes a perf
 * counter's type and config from them.
 *
 * Perf counters are spelled as lttng-tools 2.13 spells them:
 *   perf:cpu:NAME           per-CPU counter (kernel domain)
 *   perf:thread:NAME        per-thread counter (user-space domain)
 *   perf:NAME               LTTng's older spelling of a kernel per-CPU counter
 *   perf:cpu:raw:rNNN:NAME  a raw PMU event (NNN hexadecimal), and perf:thread:raw:...
 * The trace field is the name with ':' and '-' replaced by '_'
 * ("perf:cpu:page-fault" -> "perf_cpu_page_fault"), as lttng-tools makes it.
 *
 * Thread-safety: everything here is read-only.
 */
#ifndef STRATA_COMMON_CONTEXT_NAMES_H
#define STRATA_COMMON_CONTEXT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ctx_perf_scope {
	CTX_PERF_NONE = 0, /* not a perf counter */
	CTX_PERF_CPU, /* perf:cpu:NAME */
	CTX_PERF_THREAD, /* perf:thread:NAME */
	CTX_PERF_LEGACY, /* perf:NAME (kernel, per CPU) */
};

/* A perf counter context, parsed. */
struct ctx_perf {
	enum ctx_perf_scope scope;
	uint32_t type; /* PERF_TYPE_* */
	uint64_t config;
	bool raw; /* perf:*:raw:rNNN:NAME */
	const char *counter; /* "page-fault" (points into the parsed name) */
};

/* Domains of ctx_list() (the values of enum ipc_domain). */
#define CTX_DOMAIN_UST 1
#define CTX_DOMAIN_KERNEL 2

/*
 * Call cb once per context type strata knows, in lttng-tools' order: the
 * plain types of either domain, then every perf:cpu:* and perf:thread:*
 * name (aliases included). Stops at cb's first non-zero return and returns
 * it. domains: the bits (1 << CTX_DOMAIN_*) of each type.
 */
int ctx_list(int (*cb)(void *opaque, const char *name, unsigned int domains), void *opaque);

/*
 * Parse a perf counter context name. Returns 1 and fills *ret for a valid
 * one; 0 when name is not a perf context at all ("pid"); -EINVAL for a
 * perf context that is malformed or unknown, with why saying which.
 */
int ctx_perf_parse(const char *name, struct ctx_perf *ret, char *why, size_t len);

/* Whether a plain (non-perf) context type exists in the domain. */
bool ctx_plain_valid(unsigned int domain, const char *name);

/* The trace field name of a context: "perf_cpu_page_fault", "pid". */
void ctx_field_name(const char *name, char *out, size_t len);

#endif
