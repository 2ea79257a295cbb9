/* SPDX-License-Identifier: MIT */
/*
 * perf counters of kernel contexts: opening one counter on every CPU, and
 * checking a context name before anything changes (add-context).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/context-names.h"
#include "kernel-internal.h"

#include "common/common.h"

int kt_counter_open(uint32_t type, uint64_t config, const char *name, unsigned int ncpu, int *fds,
		    char *why, size_t len)
{
	int err = 0;

	for (unsigned int c = 0; c < ncpu; c++)
		fds[c] = -1;
	for (unsigned int c = 0; c < ncpu; c++) {
		/* Pinned: a counter multiplexed with others would skip counts silently. */
		struct perf_event_attr attr = {
			.type = type,
			.size = sizeof(attr),
			.config = config,
			.pinned = 1,
		};

		fds[c] = (int)syscall(__NR_perf_event_open, &attr, -1, (int)c, -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (fds[c] >= 0)
			continue;
		err = -errno;
		if (type != PERF_TYPE_SOFTWARE &&
		    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -EINVAL))
			snprintf(why, len,
				 "Failed to open perf counter '%s': no hardware PMU on this "
				 "machine can count it (perf_event_open: %s; "
				 "/sys/bus/event_source/devices has no 'cpu' PMU, as in a VM "
				 "without PMU passthrough): only software counters work here",
				 name, strerror(-err));
		else
			snprintf(why, len, "Failed to open perf counter '%s' on CPU %u: %s", name,
				 c, strerror(-err));
		break;
	}
	if (err) {
		for (unsigned int c = 0; c < ncpu; c++)
			if (fds[c] >= 0)
				close(fds[c]);
	}
	return err;
}

int kt_context_parse(const char *name, struct kt_ctx *ret, struct ctx_perf *ret_perf, char *why,
		     size_t len)
{
	static const struct {
		const char *name;
		enum kt_ctx_type type;
	} simple[] = {
		{ "pid", KT_CTX_PID },		 { "tid", KT_CTX_TID },
		{ "procname", KT_CTX_PROCNAME }, { "ppid", KT_CTX_PPID },
		{ "vpid", KT_CTX_VPID },	 { "vtid", KT_CTX_VTID },
		{ "vppid", KT_CTX_VPPID },	 { "prio", KT_CTX_PRIO },
		{ "nice", KT_CTX_NICE },	 { "hostname", KT_CTX_HOSTNAME },
	};
	struct ctx_perf p;
	struct kt_ctx c = { 0 };
	int r;

	if (strlen(name) >= sizeof(c.field)) {
		snprintf(why, len, "Context type '%.64s...' is too long (%zu bytes at most)", name,
			 sizeof(c.field) - 1);
		return -ENAMETOOLONG;
	}
	r = ctx_perf_parse(name, &p, why, len);
	if (r < 0)
		return r;
	if (r > 0) {
		if (p.scope == CTX_PERF_THREAD) {
			snprintf(why, len,
				 "'%s' is a per-thread user-space counter: kernel events take "
				 "perf:cpu:%s",
				 name, p.counter);
			return -EINVAL;
		}
		c.type = KT_CTX_PERF;
		*ret_perf = p;
	} else {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(simple); i++)
			if (!strcmp(simple[i].name, name))
				break;
		if (i == ARRAY_SIZE(simple)) {
			snprintf(why, len,
				 "Unknown kernel context '%s' (run `strata add-context --list`)",
				 name);
			return -EINVAL;
		}
		c.type = simple[i].type;
	}
	ctx_field_name(name, c.field, sizeof(c.field));
	*ret = c;
	return 0;
}

int kernel_context_check(const char *name, char *why, size_t len)
{
	struct ctx_perf p;
	struct kt_ctx c;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int ncpu = n > 0 && n <= KR_MAX_CPU ? (unsigned int)n : 1;
	int fds[KR_MAX_CPU];
	int err = kt_context_parse(name, &c, &p, why, len);

	if (err || c.type != KT_CTX_PERF)
		return err;
	/* Open it on every CPU as start will, then close it: sessions open their own. */
	err = kt_counter_open(p.type, p.config, name, ncpu, fds, why, len);
	if (err)
		return err;
	for (unsigned int i = 0; i < ncpu; i++)
		close(fds[i]);
	return 0;
}
