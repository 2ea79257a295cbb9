/* SPDX-License-Identifier: MIT */
#ifndef STRATA_CLI_VIEW_SLICES_H
#define STRATA_CLI_VIEW_SLICES_H

#include <stdbool.h>

#include <strata/ctf.h>

/*
 * Decode every event of the traces at paths on n threads, one slice of the
 * timeline each, and print the discarded-item notices through pretty when
 * notices is set. Returns 1 when done; 0 when the traces could not be read
 * in slices or a slice failed, with nothing printed (read them whole then:
 * that reports any error); or the negative errno of a failed print.
 */
int view_decode_slices(const char *const *paths, unsigned n_paths,
		       const struct strata_ctf_reader_options *opts, unsigned n, bool notices,
		       struct strata_ctf_pretty *pretty);

#endif
