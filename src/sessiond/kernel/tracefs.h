/* SPDX-License-Identifier: MIT */
/* tracefs discovery: where it is mounted and which tracepoints it offers. */
#ifndef STRATA_KERNEL_TRACEFS_H
#define STRATA_KERNEL_TRACEFS_H

#include <stddef.h>

struct kt_tracepoint {
	char *system;
	char *name;
};

struct kt_tracepoint_list {
	struct kt_tracepoint *tp; /* in available_events order: index = event key */
	size_t n;
};

/*
 * Find a mounted tracefs: /sys/kernel/tracing, else /sys/kernel/debug/tracing,
 * else a tracefs line of /proc/self/mounts. Copies the path into buf. When
 * none is mounted, mounts one at /sys/kernel/tracing as trace-cmd does (which
 * takes root; systemd mounts it at boot, minimal systems and containers may
 * not). Returns 0, or -ENOENT when tracefs is not mounted anywhere and could
 * not be.
 */
int kt_tracefs_find(char *buf, size_t len);

/* Read <tracefs>/available_events ("sys:name" lines). */
int kt_tracefs_list(const char *tracefs, struct kt_tracepoint_list *ret);
void kt_tracepoint_list_release(struct kt_tracepoint_list *l);

/* Index of sys:name in the list, or -ENOENT. */
int kt_tracepoint_lookup(const struct kt_tracepoint_list *l, const char *system, const char *name);

/*
 * Read a whole (pseudo-)file, which may report size 0 (tracefs, /proc).
 * *ret is NUL-terminated; *ret_len (optional) excludes the NUL.
 */
int kt_read_file(const char *path, char **ret, size_t *ret_len);

#endif
