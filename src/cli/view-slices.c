/* SPDX-License-Identifier: MIT */
/*
 * strata view --decode-only on several threads: one reader per slice of the
 * timeline (strata_ctf_reader_slice()), each opened and read on its own
 * thread, with no exchange between them until they end. Only the
 * discarded-item notices are printed; each slice keeps its own, and they
 * are printed in slice order once every slice has succeeded, which is the
 * whole trace's order. On any failure nothing has been printed, and the
 * caller reads the trace whole, which reports the error exactly as without
 * slices. So is a trace whose stream files change size while the readers
 * open (a session recording): every reader must see the same packets to
 * cut the timeline in the same places, which is checked once all are done.
 *
 * The threads start first and open their readers themselves: waking a
 * CPU of this kind of VM can take milliseconds, which the opening of the
 * calling thread's own reader then covers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <strata/ctf.h>

#include "view-slices.h"

struct slice {
	const char *const *paths;
	unsigned n_paths;
	const struct strata_ctf_reader_options *opts;
	struct strata_ctf_reader *reader;
	unsigned k, n;
	bool keep_notices;
	struct strata_ctf_msg *notices;
	size_t n_notices, cap_notices;
	uint64_t stream_bytes; /* what the reader found when it opened */
	unsigned stream_count;
	int ret; /* 0, or why the slice failed */
	pthread_t thread;
	bool started;
};

static int keep(struct slice *sl, const struct strata_ctf_msg *msg)
{
	if (sl->n_notices == sl->cap_notices) {
		size_t cap = sl->cap_notices ? sl->cap_notices * 2 : 16;
		struct strata_ctf_msg *n = realloc(sl->notices, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		sl->notices = n;
		sl->cap_notices = cap;
	}
	/* Notices borrow only the reader's trace names and paths: they outlive it here. */
	sl->notices[sl->n_notices++] = *msg;
	return 0;
}

static void *slice_main(void *arg)
{
	struct slice *sl = arg;

	sl->ret = strata_ctf_reader_create(sl->paths, sl->n_paths, sl->opts, &sl->reader, NULL);
	if (sl->ret < 0)
		return NULL;
	sl->stream_bytes = strata_ctf_reader_stream_bytes(sl->reader);
	sl->stream_count = strata_ctf_reader_stream_count(sl->reader);
	sl->ret = strata_ctf_reader_slice(sl->reader, sl->k, sl->n);
	if (sl->ret < 0)
		return NULL;
	for (;;) {
		struct strata_ctf_msg msg;
		enum strata_ctf_status st = strata_ctf_reader_next_notice(sl->reader, &msg);

		if (st == STRATA_CTF_END)
			break;
		if (st != STRATA_CTF_OK) {
			sl->ret = strata_ctf_reader_last_code(sl->reader);
			if (sl->ret == 0)
				sl->ret = -EIO;
			break;
		}
		if (sl->keep_notices) {
			sl->ret = keep(sl, &msg);
			if (sl->ret < 0)
				break;
		}
	}
	return NULL;
}

int view_decode_slices(const char *const *paths, unsigned n_paths,
		       const struct strata_ctf_reader_options *opts, unsigned n, bool notices,
		       struct strata_ctf_pretty *pretty)
{
	struct slice *sl = calloc(n, sizeof(*sl));
	int ret = 0;

	if (!sl)
		return 0;
	for (unsigned k = 0; k < n; k++)
		sl[k] = (struct slice){ .paths = paths,
					.n_paths = n_paths,
					.opts = opts,
					.k = k,
					.n = n,
					.keep_notices = notices };
	/* Slice 0 runs on this thread, the others each on one of their own. */
	for (unsigned k = 1; k < n && ret == 0; k++) {
		ret = -pthread_create(&sl[k].thread, NULL, slice_main, &sl[k]);
		sl[k].started = ret == 0;
	}
	if (ret == 0)
		slice_main(&sl[0]);
	for (unsigned k = 1; k < n; k++)
		if (sl[k].started)
			pthread_join(sl[k].thread, NULL);
	for (unsigned k = 0; k < n && ret == 0; k++) {
		ret = sl[k].ret;
		if (ret == 0 && (sl[k].stream_bytes != sl[0].stream_bytes ||
				 sl[k].stream_count != sl[0].stream_count))
			ret = -EAGAIN;
	}
	if (ret == 0) {
		for (unsigned k = 0; k < n && ret == 0; k++)
			for (size_t i = 0; i < sl[k].n_notices && ret == 0; i++)
				ret = strata_ctf_pretty_print(pretty, &sl[k].notices[i]);
		if (ret == 0)
			ret = 1;
	} else {
		ret = 0; /* read the trace whole: it reports what went wrong */
	}
	for (unsigned k = 0; k < n; k++) {
		strata_ctf_reader_destroy(sl[k].reader);
		free(sl[k].notices);
	}
	free(sl);
	return ret;
}
