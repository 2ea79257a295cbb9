/* SPDX-License-Identifier: MIT */
/*
 * Time ranges (struct strata_ctf_bound) as babeltrace2 2.0.4 reads them;
 * reader.c applies them to the merged messages.
 */
#ifndef STRATA_CTF_TRIM_H
#define STRATA_CTF_TRIM_H

#include <stdbool.h>
#include <stdint.h>

#include <strata/ctf.h>

/*
 * Make a time-of-day bound absolute on the date of first_ns (the first
 * message's time), in UTC or local time. 0 (nothing to do for other
 * bounds), or -ERANGE.
 */
int ctf_bound_resolve(struct strata_ctf_bound *b, int64_t first_ns, bool gmt);

/*
 * The clock value at ns from origin for a clock of this offset and
 * frequency, computed as babeltrace2 does. 0, or -ERANGE (before the
 * clock's offset, or overflow).
 */
int ctf_clock_raw_from_ns(int64_t offset_s, uint64_t offset_cycles, uint64_t freq, int64_t ns,
			  uint64_t *ret);

#endif
