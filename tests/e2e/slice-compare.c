/* SPDX-License-Identifier: MIT */
/*
 * slice-compare [-r] N PATH...: read the traces whole with one reader, then
 * in N slices (strata_ctf_reader_slice()) one after the other, print both
 * through the text printer and compare every line, warnings included.
 * Prints one line: the slices' event counts, or why the traces were read
 * whole. Exit 0 when both readings agree (or the traces cannot be sliced,
 * unless -r requires it), 1 when they differ, 2 on a usage or system error.
 * Slices that all succeed on a trace that fails whole are a difference:
 * the CLI would then report success where the whole reading fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/ctf.h>
#include <strata/error.h>

struct text {
	char *out, *err;
	size_t n_out, n_err;
	FILE *fo, *fe;
	struct strata_ctf_pretty *p;
};

static int text_open(struct text *t)
{
	struct strata_ctf_pretty_options o = { 0 };

	memset(t, 0, sizeof(*t));
	t->fo = open_memstream(&t->out, &t->n_out);
	t->fe = open_memstream(&t->err, &t->n_err);
	if (!t->fo || !t->fe)
		return -ENOMEM;
	t->p = strata_ctf_pretty_create(&o, t->fo, t->fe);
	return t->p ? 0 : -ENOMEM;
}

static void text_close(struct text *t)
{
	strata_ctf_pretty_flush(t->p);
	strata_ctf_pretty_destroy(t->p);
	fclose(t->fo);
	fclose(t->fe);
}

/* Prints every message of r: 0 at the end, else the reader's last code. */
static int drain(struct strata_ctf_reader *r, struct text *t, unsigned long *ret_events)
{
	struct strata_ctf_msg msg;
	enum strata_ctf_status st;

	while ((st = strata_ctf_reader_next(r, &msg)) == STRATA_CTF_OK) {
		if (msg.type == STRATA_CTF_MSG_EVENT)
			++*ret_events;
		if (strata_ctf_pretty_print(t->p, &msg) < 0)
			return -EIO;
	}
	return st == STRATA_CTF_END ? 0 : strata_ctf_reader_last_code(r);
}

static void dump_one(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return;
	fwrite(data, 1, len, f);
	fclose(f);
}

/* Both readings' text, to diff, into dir (SLICE_COMPARE_DUMP). */
static void dump(const char *dir, const struct text *whole, const struct text *sliced)
{
	dump_one(dir, "whole.out", whole->out, whole->n_out);
	dump_one(dir, "whole.err", whole->err, whole->n_err);
	dump_one(dir, "sliced.out", sliced->out, sliced->n_out);
	dump_one(dir, "sliced.err", sliced->err, sliced->n_err);
}

int main(int argc, char **argv)
{
	struct strata_ctf_reader_options o = { 0 };
	struct strata_ctf_reader *r, **readers;
	const char *const *paths;
	unsigned n, n_paths;
	unsigned long whole_events = 0, *events;
	struct text whole, sliced;
	bool require = false, differ;
	int whole_ret, ret = 0, status;
	char *end;

	if (argc > 1 && strcmp(argv[1], "-r") == 0) {
		require = true;
		argv++;
		argc--;
	}
	if (argc < 3 || (n = (unsigned)strtoul(argv[1], &end, 10)) < 2 || *end) {
		fprintf(stderr, "usage: slice-compare [-r] N(>=2) PATH...\n");
		return 2;
	}
	paths = (const char *const *)&argv[2];
	n_paths = (unsigned)(argc - 2);
	events = calloc(n, sizeof(*events));
	readers = calloc(n, sizeof(*readers));
	if (!events || !readers || text_open(&whole) < 0 || text_open(&sliced) < 0)
		return 2;
	ret = strata_ctf_reader_create(paths, n_paths, &o, &r, NULL);
	if (ret < 0) {
		printf("%s: does not open (%s)\n", paths[0], strata_strerror(ret));
		text_close(&whole);
		text_close(&sliced);
		status = require ? 1 : 0;
		goto out;
	}
	whole_ret = drain(r, &whole, &whole_events);
	strata_ctf_reader_destroy(r);
	text_close(&whole);

	/* The printer caches by trace and type: every reader lives until it is done. */
	for (unsigned k = 0; k < n && ret == 0; k++) {
		ret = strata_ctf_reader_create(paths, n_paths, &o, &readers[k], NULL);
		if (ret < 0)
			break;
		ret = strata_ctf_reader_slice(readers[k], k, n);
		if (ret == 0)
			ret = drain(readers[k], &sliced, &events[k]);
	}
	text_close(&sliced);
	for (unsigned k = 0; k < n; k++)
		strata_ctf_reader_destroy(readers[k]);
	if (ret < 0) {
		printf("%s: read whole (%s); whole: %lu events%s\n", paths[0], strata_strerror(ret),
		       whole_events, whole_ret ? ", fails" : "");
		status = require ? 1 : 0;
		goto out;
	}
	differ = whole_ret != 0 || whole.n_out != sliced.n_out ||
		 memcmp(whole.out, sliced.out, whole.n_out) != 0 || whole.n_err != sliced.n_err ||
		 memcmp(whole.err, sliced.err, whole.n_err) != 0;
	if (differ && getenv("SLICE_COMPARE_DUMP"))
		dump(getenv("SLICE_COMPARE_DUMP"), &whole, &sliced);
	printf("%s: %u slices of", paths[0], n);
	for (unsigned k = 0; k < n; k++)
		printf(" %lu", events[k]);
	printf(" events; whole: %lu events%s; %s\n", whole_events, whole_ret ? ", fails" : "",
	       differ ? "DIFFERENT" : "identical");
	status = differ ? 1 : 0;
out:
	free(whole.out);
	free(whole.err);
	free(sliced.out);
	free(sliced.err);
	free(events);
	free(readers);
	return status;
}
