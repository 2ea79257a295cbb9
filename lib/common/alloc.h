/* SPDX-License-Identifier: MIT */
#ifndef STRATA_COMMON_ALLOC_H
#define STRATA_COMMON_ALLOC_H

#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

#define STRATA_CACHE_LINE 64u

/*
 * Zeroed memory on cache lines of its own, for objects that one thread
 * writes all the time while another thread writes its neighbours: two
 * malloc() blocks can share a line, and every write to one then costs the
 * other thread a miss (false sharing). Freed with free().
 */
static inline void *strata_calloc_lines(size_t size)
{
	size_t n = ALIGN_UP(size ? size : 1, (size_t)STRATA_CACHE_LINE);
	void *p = aligned_alloc(STRATA_CACHE_LINE, n);

	if (p)
		memset(p, 0, n);
	return p;
}

#endif
