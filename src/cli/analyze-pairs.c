/* SPDX-License-Identifier: MIT */
/*
 * Entry/return pairing for `strata analyze entry-return` (analyze.h).
 *
 * The perf counter contexts of a trace are found in its metadata (fields
 * named perf_*, with LTTng's leading '_' or not), since the reader's API
 * looks fields up by name. Each thread keeps a stack of its open entries
 * (time, CPU, counter values): a return closes the top one. Per-CPU
 * counters compare only on one CPU, so a pair whose cpu_id changed is
 * counted and left out, as the article's analysis does.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/ctf.h>
#include <strata/error.h>

#include "analyze.h"
#include "cli.h"

#include "common/common.h"

/* An open entry: its values follow in the thread's value array. */
struct an_open {
	int64_t ts;
	int64_t cpu;
	uint64_t present; /* bit i: field i was in the entry */
};

struct an_thread {
	int64_t tid;
	bool used;
	uint32_t depth, cap;
	struct an_open *open;
	int64_t *values; /* cap x nfields */
};

struct an_state {
	struct an_result *res;
	struct an_thread *threads;
	size_t nthreads, cap; /* open addressing, cap a power of two */
	int64_t *scratch;
};

double an_stat_stddev(const struct an_stat *s)
{
	return s->count < 2 ? NAN : sqrt(s->m2 / (double)(s->count - 1));
}

double an_stat_mean(const struct an_stat *s)
{
	return s->count ? (double)((long double)s->sum / (long double)s->count) : NAN;
}

static void an_stat_add(struct an_stat *s, int64_t v)
{
	double d;

	s->sum += v;
	if (!s->count || v < s->min)
		s->min = v;
	if (!s->count || v > s->max)
		s->max = v;
	s->count++;
	d = (double)v - s->mean;
	s->mean += d / (double)s->count;
	s->m2 += d * ((double)v - s->mean);
}

void an_result_release(struct an_result *res)
{
	for (unsigned int i = 0; i < res->nfields; i++)
		free(res->fields[i]);
	memset(res, 0, sizeof(*res));
}

/* --- the perf_* fields of the traces' metadata --------------------------- */

static struct an_result *an_walk_res; /* nftw has no opaque pointer */
static int an_walk_err;

static void an_add_field(struct an_result *res, const char *name, size_t n)
{
	if (res->nfields == AN_MAX_FIELDS)
		return;
	for (unsigned int i = 0; i < res->nfields; i++)
		if (strlen(res->fields[i]) == n && !strncmp(res->fields[i], name, n))
			return;
	res->fields[res->nfields] = strndup(name, n);
	if (res->fields[res->nfields])
		res->nfields++;
}

static bool an_ident_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* Fields perf_X or _perf_X declared in a metadata text ("... _perf_X;"). */
static void an_scan_metadata(struct an_result *res, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *start, *end;

		if (!an_ident_char(*p)) {
			p++;
			continue;
		}
		start = p;
		while (an_ident_char(*p))
			p++;
		end = p;
		if (*start == '_')
			start++;
		if (end - start <= 5 || strncmp(start, "perf_", 5))
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ';')
			an_add_field(res, start, (size_t)(end - start));
	}
}

static int an_walk(const char *path, const struct stat *sb _unused_, int type,
		   struct FTW *ftw _unused_)
{
	char *text = NULL, *err = NULL, *dir;
	const char *base = strrchr(path, '/');

	if (type != FTW_F || strcmp(base ? base + 1 : path, "metadata"))
		return 0;
	dir = strndup(path, base ? (size_t)(base - path) : 0);
	if (!dir)
		return an_walk_err = -ENOMEM;
	if (strata_ctf_metadata_text(dir[0] ? dir : ".", &text, &err) >= 0 && text)
		an_scan_metadata(an_walk_res, text);
	free(text);
	free(err);
	free(dir);
	return 0;
}

static int an_find_fields(const char *path, struct an_result *res)
{
	an_walk_res = res;
	an_walk_err = 0;
	if (nftw(path, an_walk, 16, FTW_PHYS) < 0)
		return -errno;
	return an_walk_err;
}

/* --- threads --------------------------------------------------------------- */

static uint64_t an_hash(int64_t tid)
{
	uint64_t h = (uint64_t)tid * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 29);
}

static struct an_thread *an_thread_get(struct an_state *st, int64_t tid)
{
	size_t i;

	if ((st->nthreads + 1) * 2 > st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 64;
		struct an_thread *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t j = 0; j < st->cap; j++) {
			if (!st->threads[j].used)
				continue;
			for (i = an_hash(st->threads[j].tid) & (ncap - 1); nt[i].used;
			     i = (i + 1) & (ncap - 1))
				;
			nt[i] = st->threads[j];
		}
		free(st->threads);
		st->threads = nt;
		st->cap = ncap;
	}
	for (i = an_hash(tid) & (st->cap - 1); st->threads[i].used; i = (i + 1) & (st->cap - 1))
		if (st->threads[i].tid == tid)
			return &st->threads[i];
	st->threads[i] = (struct an_thread){ .tid = tid, .used = true };
	st->nthreads++;
	return &st->threads[i];
}

static int an_push(struct an_state *st, struct an_thread *t, const struct an_open *o,
		   const int64_t *values)
{
	unsigned int nf = MAX(st->res->nfields, 1u);

	if (t->depth == AN_MAX_DEPTH) {
		/* A runaway stack (returns lost): the oldest entry can no longer pair. */
		st->res->unmatched_entries++;
		memmove(t->open, t->open + 1, (t->depth - 1) * sizeof(*t->open));
		memmove(t->values, t->values + nf, (size_t)(t->depth - 1) * nf * sizeof(int64_t));
		t->depth--;
	}
	if (t->depth == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 8;
		struct an_open *no = realloc(t->open, ncap * sizeof(*no));
		int64_t *nv;

		if (!no)
			return -ENOMEM;
		t->open = no;
		nv = realloc(t->values, (size_t)ncap * nf * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->values = nv;
		t->cap = ncap;
	}
	t->open[t->depth] = *o;
	memcpy(t->values + (size_t)t->depth * nf, values, st->res->nfields * sizeof(*values));
	t->depth++;
	return 0;
}

static void an_pop(struct an_state *st, struct an_thread *t, const struct an_open *r,
		   const int64_t *values)
{
	struct an_result *res = st->res;
	unsigned int nf = MAX(res->nfields, 1u);
	const struct an_open *e;
	const int64_t *ev;

	if (!t->depth) {
		res->unmatched_returns++;
		return;
	}
	t->depth--;
	e = &t->open[t->depth];
	ev = t->values + (size_t)t->depth * nf;
	if (e->cpu != r->cpu) {
		res->migrated++;
		return;
	}
	res->pairs++;
	an_stat_add(&res->duration, r->ts - e->ts);
	for (unsigned int i = 0; i < res->nfields; i++)
		if ((e->present & r->present) & (1ull << i))
			an_stat_add(&res->stat[i], values[i] - ev[i]);
}

static int an_event(struct an_state *st, const struct strata_ctf_event *ev, bool is_entry,
		    const char *name)
{
	struct an_result *res = st->res;
	struct an_open o = { .ts = strata_ctf_event_ns(ev) };
	struct an_thread *t;
	int64_t tid;

	if (!strata_ctf_event_field_int(ev, "tid", &tid) &&
	    !strata_ctf_event_field_int(ev, "vtid", &tid)) {
		cli_error("Event '%s' has no tid or vtid context, so its thread is unknown: record "
			  "it with `strata add-context -k -t tid` (kernel) or -u -t vtid",
			  name);
		return CLI_EXIT_USAGE;
	}
	if (!strata_ctf_event_field_int(ev, "cpu_id", &o.cpu))
		o.cpu = -1;
	for (unsigned int i = 0; i < res->nfields; i++)
		if (strata_ctf_event_field_int(ev, res->fields[i], &st->scratch[i]))
			o.present |= 1ull << i;
	t = an_thread_get(st, tid);
	if (!t) {
		cli_error("Out of memory");
		return CLI_EXIT_USAGE;
	}
	if (!is_entry) {
		an_pop(st, t, &o, st->scratch);
		return 0;
	}
	if (an_push(st, t, &o, st->scratch) < 0) {
		cli_error("Out of memory");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static int an_open_error(const char *path, int err, char *msg)
{
	cli_error("Cannot read a trace at '%s': %s", path,
		  msg			  ? msg :
		  err == -STRATA_ENOTRACE ? "no CTF trace (no 'metadata' file) found there" :
					    strata_strerror(err));
	free(msg);
	return err == -STRATA_EMETADATA || err == -STRATA_ESTREAM ? CLI_EXIT_MALFORMED :
								    CLI_EXIT_NOTRACE;
}

int an_pairs_run(const char *path, const char *entry, const char *ret, struct an_result *res)
{
	struct strata_ctf_reader_options opts = { 0 };
	struct strata_ctf_reader *reader = NULL;
	struct an_state st = { .res = res };
	enum strata_ctf_status s;
	struct strata_ctf_msg msg;
	char *errmsg = NULL;
	int err, status = 0;

	memset(res, 0, sizeof(*res));
	err = strata_ctf_reader_create(&path, 1, &opts, &reader, &errmsg);
	if (err < 0)
		return an_open_error(path, err, errmsg);
	err = an_find_fields(path, res);
	st.scratch = calloc(AN_MAX_FIELDS, sizeof(*st.scratch));
	if (err < 0 || !st.scratch) {
		cli_error("Failed to read the metadata of '%s': %s", path,
			  strerror(err < 0 ? -err : ENOMEM));
		status = CLI_EXIT_NOTRACE;
		goto out;
	}
	while ((s = strata_ctf_reader_next(reader, &msg)) == STRATA_CTF_OK) {
		const char *name;

		if (msg.type != STRATA_CTF_MSG_EVENT)
			continue;
		name = strata_ctf_event_name(msg.event);
		if (!name)
			continue;
		if (!strcmp(name, entry))
			status = an_event(&st, msg.event, true, name);
		else if (!strcmp(name, ret))
			status = an_event(&st, msg.event, false, name);
		if (status)
			goto out;
	}
	if (s == STRATA_CTF_ERROR) {
		cli_error("Failed to read the trace at '%s': %s", path,
			  strata_ctf_reader_last_error(reader));
		status = CLI_EXIT_MALFORMED;
		goto out;
	}
	for (size_t i = 0; i < st.cap; i++)
		if (st.threads[i].used)
			res->unmatched_entries += st.threads[i].depth;
out:
	for (size_t i = 0; i < st.cap; i++) {
		free(st.threads[i].open);
		free(st.threads[i].values);
	}
	free(st.threads);
	free(st.scratch);
	strata_ctf_reader_destroy(reader);
	if (status)
		an_result_release(res); /* *res is filled only on success */
	return status;
}
