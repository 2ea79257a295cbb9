/* SPDX-License-Identifier: MIT */
/*
 * strata view --decode-only on several threads: one reader per slice of the
 * timeline (strata_ctf_reader_slice()), each on its own thread, with no
 * exchange between them until they end. Only the discarded-item notices are
 * printed; each slice keeps its own, and they are printed in slice order
 * once every slice has succeeded, which is the whole trace's order. On any
 * failure nothing has been printed, and the caller reads the trace whole,
 * which reports the error exactly as without slices. So is a trace whose
 * stream files change size while the readers open (a session recording).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <strata/ctf.h>

#include "view-slices.h"

struct slice {
	struct strata_ctf_reader *reader;
	unsigned k, n;
	bool keep_notices;
	struct strata_ctf_msg *notices;
	size_t n_notices, cap_notices;
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

	for (;;) {
		struct strata_ctf_msg msg;
		enum strata_ctf_status st = strata_ctf_reader_next(sl->reader, &msg);

		if (st == STRATA_CTF_END)
			break;
		if (st != STRATA_CTF_OK) {
			sl->ret = strata_ctf_reader_last_code(sl->reader);
			if (sl->ret == 0)
				sl->ret = -EIO;
			break;
		}
		if (msg.type != STRATA_CTF_MSG_EVENT && sl->keep_notices) {
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
	for (unsigned k = 0; k < n && ret == 0; k++) {
		sl[k].k = k;
		sl[k].n = n;
		sl[k].keep_notices = notices;
		ret = strata_ctf_reader_create(paths, n_paths, opts, &sl[k].reader, NULL);
		/*
		 * Every reader must see the same packets to cut the timeline in
		 * the same places: a trace still being written grows between
		 * two of them, and is read whole.
		 */
		if (ret == 0 && k > 0 &&
		    (strata_ctf_reader_stream_bytes(sl[k].reader) !=
			     strata_ctf_reader_stream_bytes(sl[0].reader) ||
		     strata_ctf_reader_stream_count(sl[k].reader) !=
			     strata_ctf_reader_stream_count(sl[0].reader)))
			ret = -EAGAIN;
		if (ret == 0)
			ret = strata_ctf_reader_slice(sl[k].reader, k, n);
	}
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
	for (unsigned k = 0; k < n && ret == 0; k++)
		ret = sl[k].ret;
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
