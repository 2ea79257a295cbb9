/* SPDX-License-Identifier: MIT */
/*
 * The one cleanup pattern for daemons and tools (STYLE.md): variables marked
 * _cleanup_free_ / _cleanup_close_ / _cleanup_fclose_ are released when they go
 * out of scope; TAKE_PTR()/TAKE_FD() hand ownership out of such a variable.
 * lib/ust does not use these: it uses a single exit with goto err.
 */
#ifndef STRATA_COMMON_CLEANUP_H
#define STRATA_COMMON_CLEANUP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void strata_freep(void *p)
{
	free(*(void **)p);
}

static inline void strata_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void strata_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(fn) __attribute__((cleanup(fn)))
#define _cleanup_free_ _cleanup_(strata_freep)
#define _cleanup_close_ _cleanup_(strata_closep)
#define _cleanup_fclose_ _cleanup_(strata_fclosep)

#define TAKE_PTR(p)                      \
	({                               \
		__typeof__(p) _tp = (p); \
		(p) = NULL;              \
		_tp;                     \
	})

#define TAKE_FD(fd)              \
	({                       \
		int _tfd = (fd); \
		(fd) = -1;       \
		_tfd;            \
	})

#endif
