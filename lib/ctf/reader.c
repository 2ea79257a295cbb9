/* SPDX-License-Identifier: MIT */
/*
 * The public reader API (<strata/ctf.h>): open traces, merge their streams,
 * and look into decoded events.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <strata/ctf.h>
#include <strata/error.h>

#include "ctf/decode-ahead.h"
#include "ctf/merge.h"
#include "ctf/stream.h"
#include "ctf/trim.h"
#include "ctf/tsdl-internal.h"
#include "common/common.h"

struct strata_ctf_reader {
	struct ctf_reader_trace **traces;
	size_t n_traces;
	size_t n_metadata; /* traces found; those sharing a UUID count apart */
	struct ctf_stream **streams;
	size_t n_streams;
	struct ctf_merge merge;
	int64_t last_ns;
	bool started, failed;
	int code; /* strata_ctf_reader_last_code() */
	/* babeltrace2's batching (struct ctf_ec_pool): messages taken so far,
	 * the events of the current muxer batch, streams to refill. */
	uint64_t step, released_step;
	struct {
		struct ctf_ec_pool *pool;
		uint32_t obj;
	} batch[CTF_BT_BATCH];
	unsigned n_batch;
	struct ctf_stream **refill;
	size_t n_refill;
	unsigned decode_threads;
	struct ctf_ahead *ahead;
	/*
	 * The time range (strata_ctf_reader_options.begin/end), resolved.
	 * seeking: nothing at or after begin was met yet.
	 */
	bool trimming, has_begin, has_end, seeking;
	int64_t begin_ns, end_ns;
	/* A slice (strata_ctf_reader_slice()): keys in [slice_begin, slice_end). */
	bool slicing;
	int64_t slice_begin, slice_end;
	/* Live input (strata_ctf_reader_create_live()): see "live input" below. */
	bool live;
	struct live_trace *live_traces;
	size_t n_live_traces;
	unsigned *stream_trace; /* per stream, its index in live_traces */
	struct ctf_stream *wanted; /* the stream a STRATA_CTF_AGAIN waits for */
	struct strata_ctf_reader_options opts;
	char err[1024];
};

static void live_release(struct strata_ctf_reader *r);

static void trace_destroy(struct ctf_reader_trace *rt)
{
	if (!rt)
		return;
	for (size_t i = 0; rt->pools && i < rt->t.tc->n_streams; i++) {
		for (size_t j = 0; rt->pools[i] && j < rt->t.tc->streams[i]->n_events; j++)
			ctf_ec_pool_release(&rt->pools[i][j]);
		free(rt->pools[i]);
	}
	free(rt->pools);
	ctf_trace_dec_destroy(rt->td);
	ctf_trace_class_destroy(rt->t.tc);
	free(rt->t.path);
	free(rt->t.name);
	free(rt);
}

void strata_ctf_reader_destroy(struct strata_ctf_reader *r)
{
	if (!r)
		return;
	ctf_ahead_stop(r->ahead);
	live_release(r);
	for (size_t i = 0; i < r->n_streams; i++) {
		ctf_stream_release(r->streams[i]);
		free(r->streams[i]);
	}
	free(r->streams);
	free(r->refill);
	for (size_t i = 0; i < r->n_traces; i++)
		trace_destroy(r->traces[i]);
	free(r->traces);
	ctf_merge_release(&r->merge);
	free(r);
}

/* babeltrace2 treats LTTng's (and here strata's) monotonic clock as absolute. */
static void setup_clocks(struct ctf_trace_class *tc, const struct strata_ctf_reader_options *o)
{
	const struct ctf_env_entry *tn = ctf_trace_class_env(tc, "tracer_name");
	bool lttng = tn && !tn->is_int && tn->sval &&
		     (strncmp(tn->sval, "lttng", 5) == 0 || strcmp(tn->sval, "strata") == 0);

	for (size_t i = 0; i < tc->n_clocks; i++) {
		struct ctf_clock_class *cc = &tc->clocks[i];

		/*
		 * babeltrace2 offsets the clocks the metadata declares, not the
		 * implicit 1 GHz `default` clock the parser adds for unmapped
		 * timestamp fields (recognized by its exact shape).
		 */
		bool implicit = cc->name && strcmp(cc->name, "default") == 0 &&
				cc->freq == UINT64_C(1000000000) && cc->offset_s == 0 &&
				cc->offset_cycles == 0 && !cc->has_uuid && !cc->description;

		if (o && !implicit)
			ctf_clock_apply_offset(cc, o->clock_offset_s, o->clock_offset_ns);
		if ((o && o->force_correlate) ||
		    (lttng && cc->name && strcmp(cc->name, "monotonic") == 0))
			cc->absolute = true;
	}
}

/* A parsed trace before traces sharing a UUID are merged. */
struct parsed {
	struct ctf_trace_class *tc;
	const struct ctf_found_trace *f;
	bool used;
};

/*
 * Read and parse the metadata of the trace in dir: its text (*ret_text,
 * NUL-terminated, *ret_len bytes; set as soon as the file is read, even
 * when it does not parse) and class. err describes a failure, naming the
 * file.
 */
static int metadata_load(const char *dir, char **ret_text, size_t *ret_len,
			 struct ctf_trace_class **ret_tc, char *err, size_t errlen)
{
	struct ctf_parse_error perr = { 0 };
	char *meta, *text = NULL;
	size_t len = 0, ml = strlen(dir) + sizeof("/metadata");
	int ret_code;

	meta = malloc(ml);
	if (!meta)
		return -ENOMEM;
	snprintf(meta, ml, "%s/metadata", dir);
	ret_code = ctf_metadata_read(meta, &text, &len, &perr);
	if (ret_code < 0) {
		snprintf(err, errlen, "Failed to read metadata '%.700s': %s", meta,
			 perr.msg[0] ? perr.msg : strata_strerror(ret_code));
		goto out;
	}
	*ret_text = text;
	*ret_len = len;
	text = NULL;
	ret_code = ctf_metadata_parse(*ret_text, len, ret_tc, &perr);
	if (ret_code < 0) {
		if (perr.line)
			snprintf(err, errlen, "%.700s:%u: %s", meta, perr.line,
				 perr.msg[0] ? perr.msg : strata_strerror(ret_code));
		else
			snprintf(err, errlen, "%.700s: %s", meta,
				 perr.msg[0] ? perr.msg : strata_strerror(ret_code));
	}
out:
	free(meta);
	free(text);
	return ret_code;
}

static int parse_trace(struct strata_ctf_reader *r, const struct ctf_found_trace *f,
		       const struct strata_ctf_reader_options *opts, struct ctf_trace_class **ret)
{
	char *text = NULL;
	size_t len = 0;
	int ret_code = metadata_load(f->dir, &text, &len, ret, r->err, sizeof(r->err));

	free(text);
	if (ret_code == 0)
		setup_clocks(*ret, opts);
	return ret_code;
}

int strata_ctf_metadata_text(const char *path, char **ret_text, char **ret_errmsg)
{
	struct ctf_found_trace *found = NULL;
	struct ctf_trace_class *tc = NULL;
	const char *dir = path;
	char err[1024] = "";
	size_t n_found = 0, len, ml;
	struct stat st;
	char *meta;
	int ret;

	*ret_text = NULL;
	if (ret_errmsg)
		*ret_errmsg = NULL;
	/* babeltrace2 reads PATH/metadata; below PATH, one trace is unambiguous. */
	ml = strlen(path) + sizeof("/metadata");
	meta = malloc(ml);
	if (!meta)
		return -ENOMEM;
	snprintf(meta, ml, "%s/metadata", path);
	ret = stat(meta, &st);
	free(meta);
	if (ret < 0) {
		ret = ctf_discover_traces(&path, 1, &found, &n_found);
		if (ret < 0) {
			snprintf(err, sizeof(err), "Failed to search for traces: %s",
				 strata_strerror(ret));
			goto out;
		}
		if (n_found == 0) {
			ret = -STRATA_ENOTRACE;
			snprintf(err, sizeof(err), "No CTF trace found at or below '%.700s'", path);
			goto out;
		}
		if (n_found > 1) {
			ret = -ENOTUNIQ;
			snprintf(err, sizeof(err),
				 "'%.300s' holds %zu traces: give one trace directory, such as "
				 "'%.300s'",
				 path, n_found, found[0].dir);
			goto out;
		}
		dir = found[0].dir;
	}
	ret = metadata_load(dir, ret_text, &len, &tc, err, sizeof(err));
	ctf_trace_class_destroy(tc);
	/* The text was read: a parse error is worth showing, not hiding it. */
	if (*ret_text && ret < 0) {
		if (ret_errmsg)
			*ret_errmsg = strdup(err);
		ret = 1;
	}
out:
	ctf_found_traces_free(found, n_found);
	if (ret < 0 && ret_errmsg)
		*ret_errmsg = strdup(err[0] ? err : strata_strerror(ret));
	return ret;
}

static size_t class_count(const struct ctf_trace_class *tc)
{
	size_t n = tc->n_streams;

	for (size_t i = 0; i < tc->n_streams; i++)
		n += tc->streams[i]->n_events;
	return n;
}

/* babeltrace2 2.0.4's tracer checks (src.ctf.fs, fix_packet_index_tracer_bugs()). */
static struct ctf_quirks tracer_quirks(const struct ctf_trace_class *tc)
{
	const struct ctf_env_entry *name = ctf_trace_class_env(tc, "tracer_name");
	const struct ctf_env_entry *e = ctf_trace_class_env(tc, "tracer_major");
	struct ctf_quirks q = { 0 };
	int64_t major, minor = 0, patch = 0;
	bool ust, modules;

	if (!name || name->is_int || !name->sval || !e || !e->is_int)
		return q;
	major = e->ival;
	e = ctf_trace_class_env(tc, "tracer_minor");
	if (e && e->is_int) {
		minor = e->ival;
		e = ctf_trace_class_env(tc, "tracer_patch");
		if (!e)
			e = ctf_trace_class_env(tc, "tracer_patchlevel");
		if (e && e->is_int)
			patch = e->ival;
	}
	ust = strcmp(name->sval, "lttng-ust") == 0;
	modules = strcmp(name->sval, "lttng-modules") == 0;
	q.lttng_crash = ust || modules;
	if (ust)
		q.event_after_packet = major < 2 || (major == 2 && minor < 11);
	else if (modules)
		q.event_after_packet =
			major < 2 || (major == 2 && ((minor == 10 && patch < 10) ||
						     (minor == 9 && patch < 13) || minor < 9));
	else if (strcmp(name->sval, "barectf") == 0)
		q.barectf_event_before_packet =
			major < 2 || (major == 2 && (minor < 3 || (minor == 3 && patch < 1)));
	return q;
}

/* The recycled-object pools of babeltrace2's stale strings (struct ctf_ec_pool). */
static int trace_pools_create(struct ctf_reader_trace *rt)
{
	rt->pools = calloc(rt->t.tc->n_streams ? rt->t.tc->n_streams : 1, sizeof(*rt->pools));
	if (!rt->pools)
		return -ENOMEM;
	for (size_t i = 0; i < rt->t.tc->n_streams; i++) {
		size_t ne = rt->t.tc->streams[i]->n_events;

		rt->pools[i] = calloc(ne ? ne : 1, sizeof(*rt->pools[i]));
		if (!rt->pools[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * Traces sharing a UUID (rotation chunks, snapshots) are one trace for
 * babeltrace2: the metadata with the most classes wins, streams with the
 * same instance id are joined across directories, and the trace name has
 * no path suffix.
 */
static int open_group(struct strata_ctf_reader *r, struct parsed *p, size_t n, size_t first,
		      const struct strata_ctf_reader_options *opts)
{
	struct ctf_reader_trace *rt, **nt;
	char **dirs = NULL;
	size_t n_dirs = 0, winner = first;
	int ret = -ENOMEM;

	nt = realloc(r->traces, (r->n_traces + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	r->traces = nt;
	rt = calloc(1, sizeof(*rt));
	dirs = calloc(n, sizeof(*dirs));
	if (!rt || !dirs) {
		free(rt);
		free(dirs);
		return -ENOMEM;
	}
	nt[r->n_traces++] = rt;
	for (size_t i = first; i < n; i++) {
		if (p[i].used)
			continue;
		if (i != first && (!p[first].tc->has_uuid || !p[i].tc->has_uuid ||
				   memcmp(p[first].tc->uuid, p[i].tc->uuid, 16) != 0))
			continue;
		p[i].used = true;
		dirs[n_dirs++] = p[i].f->dir;
		if (class_count(p[i].tc) > class_count(p[winner].tc))
			winner = i;
	}
	rt->t.tc = p[winner].tc;
	p[winner].tc = NULL;
	rt->quirks = tracer_quirks(rt->t.tc);
	rt->t.path = strdup(p[first].f->dir);
	rt->t.name = ctf_trace_name_make(rt->t.tc, n_dirs > 1 ? NULL : p[first].f->name_suffix);
	if (!rt->t.path || !rt->t.name)
		goto out;
	{
		char tmp[256] = "";

		ret = ctf_trace_dec_create_opts(rt->t.tc, opts && opts->generic_decode, &rt->td,
						tmp, sizeof(tmp));
		if (ret < 0) {
			snprintf(r->err, sizeof(r->err), "%.700s/metadata: %s", rt->t.path,
				 ret == -ENOMEM ? strata_strerror(ret) : tmp);
			goto out;
		}
	}
	/* Without pools, streams model no recycled object (struct ctf_ec_pool). */
	if (opts && opts->bt_stale_strings) {
		ret = trace_pools_create(rt);
		if (ret < 0)
			goto out;
	}
	ret = ctf_trace_open_streams(rt, dirs, n_dirs, &r->streams, &r->n_streams, r->err,
				     sizeof(r->err));
out:
	free(dirs);
	return ret;
}

static int trim_setup(struct strata_ctf_reader *r, const struct strata_ctf_reader_options *o);

static void free_parsed(struct parsed *p, size_t n)
{
	if (!p)
		return;
	for (size_t i = 0; i < n; i++)
		ctf_trace_class_destroy(p[i].tc);
	free(p);
}

int strata_ctf_reader_create(const char *const *paths, unsigned n_paths,
			     const struct strata_ctf_reader_options *opts,
			     struct strata_ctf_reader **ret_reader, char **ret_errmsg)
{
	struct strata_ctf_reader *r = calloc(1, sizeof(*r));
	struct ctf_found_trace *found = NULL;
	struct parsed *parsed = NULL;
	size_t n_found = 0;
	int ret;

	if (!r)
		return -ENOMEM;
	ret = ctf_discover_traces(paths, n_paths, &found, &n_found);
	if (ret < 0) {
		snprintf(r->err, sizeof(r->err), "Failed to search for traces: %s",
			 strata_strerror(ret));
		goto err;
	}
	if (n_found == 0) {
		ret = -STRATA_ENOTRACE;
		snprintf(r->err, sizeof(r->err), "No CTF trace found at or below '%s'",
			 n_paths ? paths[0] : "");
		goto err;
	}
	parsed = calloc(n_found, sizeof(*parsed));
	if (!parsed) {
		ret = -ENOMEM;
		goto err;
	}
	r->n_metadata = n_found;
	for (size_t i = 0; i < n_found; i++) {
		parsed[i].f = &found[i];
		ret = parse_trace(r, &found[i], opts, &parsed[i].tc);
		if (ret < 0)
			goto err;
	}
	for (size_t i = 0; i < n_found; i++) {
		if (parsed[i].used)
			continue;
		ret = open_group(r, parsed, n_found, i, opts);
		if (ret < 0)
			goto err;
	}
	free_parsed(parsed, n_found);
	parsed = NULL;
	for (size_t i = 0; i < r->n_streams; i++) {
		r->streams[i]->index = (unsigned)i;
		r->streams[i]->err = r->err;
		r->streams[i]->errlen = sizeof(r->err);
	}
	ctf_found_traces_free(found, n_found);
	found = NULL;
	n_found = 0;
	r->last_ns = INT64_MIN;
	r->decode_threads = opts ? opts->decode_threads : 0;
	if (opts && (opts->begin.set || opts->end.set)) {
		ret = trim_setup(r, opts);
		if (ret < 0)
			goto err;
	}
	*ret_reader = r;
	return 0;
err:
	if (ret_errmsg)
		*ret_errmsg = strdup(r->err[0] ? r->err : strata_strerror(ret));
	free_parsed(parsed, n_found);
	ctf_found_traces_free(found, n_found);
	strata_ctf_reader_destroy(r);
	return ret;
}

/* babeltrace2's sink frees a muxer batch of messages after printing it. */
static int release_batch(struct strata_ctf_reader *r)
{
	for (unsigned i = 0; i < r->n_batch; i++) {
		int ret = ctf_ec_pool_recycle(r->batch[i].pool, r->batch[i].obj);

		if (ret < 0)
			return ret;
	}
	r->n_batch = 0;
	return 0;
}

/*
 * babeltrace2's muxer stops when the first message of every stream comes
 * before the last one it returned, which only a stream whose times go back
 * makes happen; what came before is delivered. A message without a time
 * takes the last returned one there, so it never stops it (key.last: the
 * time it took when queued may be older).
 */
static int time_back(struct strata_ctf_reader *r, const struct ctf_stream *s, int64_t ns)
{
	snprintf(r->err, sizeof(r->err),
		 "stream '%.700s': a message at %" PRId64 " ns from origin comes after one at "
		 "%" PRId64 " ns: the stream's times go back",
		 s->path, ns, r->last_ns);
	return -STRATA_ESTREAM;
}

/*
 * One step of babeltrace2's muxer: refill the upstream queues that are
 * empty, then take the first head message. Returns 1 with *ret_slot and
 * its kind, 0 at the end, or an error. Only the queue's copy of the key is
 * read: the slot may have been written on a worker's CPU (decode-ahead.h).
 */
static inline __attribute__((always_inline)) int mux_step(struct strata_ctf_reader *r,
							  struct ctf_slot **ret_slot,
							  uint8_t *ret_kind,
							  struct ctf_stream **ret_stream)
{
	const struct ctf_slot_key *key;
	struct ctf_stream *top;
	struct ctf_slot *slot;
	int ret;

	/* Tested first: without the batching model (no pools) no batch fills. */
	if (unlikely(r->n_batch) && r->step % CTF_BT_BATCH == 0 && r->released_step != r->step) {
		r->released_step = r->step;
		ret = release_batch(r);
		if (ret < 0)
			return ret;
	}
	while (r->n_refill) {
		struct ctf_stream *s = r->refill[--r->n_refill];

		ret = ctf_stream_refill(s, r->last_ns);
		if (unlikely(ret == -EAGAIN)) {
			/* A live stream waits for a packet: refilled first next time. */
			r->n_refill++;
			r->wanted = s;
			return ret;
		}
		if (ret < 0)
			return ret;
		if (ret > 0) {
			ret = ctf_merge_push(&r->merge, s);
			if (ret < 0)
				return ret;
		}
	}
	top = ctf_merge_top(&r->merge);
	if (!top)
		return 0;
	slot = ctf_stream_head(top);
	key = ctf_stream_head_key(top);
	if (unlikely(key->ns < r->last_ns) && !key->last)
		return time_back(r, top, key->ns);
	top->q_head++;
	top->q_len--;
	r->step++;
	if (key->kind == CTF_K_EVENT && top->rt->pools && slot->pool) {
		r->batch[r->n_batch].pool = slot->pool;
		r->batch[r->n_batch].obj = slot->obj;
		r->n_batch++;
	}
	if (top->q_len == 0) {
		ctf_merge_pop(&r->merge);
		r->refill[r->n_refill++] = top;
	} else {
		ctf_merge_top_changed(&r->merge);
	}
	r->last_ns = key->ns;
	*ret_slot = slot;
	*ret_kind = key->kind;
	*ret_stream = top;
	return 1;
}

static bool has_time(const struct ctf_slot *slot, uint8_t kind, int64_t *ret)
{
	switch (kind) {
	case CTF_K_EVENT:
		*ret = slot->ev.ns; /* every stream has a clock (trim_setup()) */
		return true;
	case CTF_K_STREAM_BEGIN:
	case CTF_K_STREAM_END:
		return false;
	default:
		/* Packets and notices: key.last is set when they have no time. */
		*ret = slot->key.ns;
		return !slot->key.last;
	}
}

/* A notice's time cut to ns, as babeltrace2 cuts it: through a clock value. */
static int cut_time(struct strata_ctf_reader *r, const struct ctf_stream *s, int64_t ns,
		    int64_t *ret)
{
	const struct ctf_clock_class *cc = &s->rt->t.tc->clocks[s->scd->sc->default_clock];
	uint64_t raw;

	if (ctf_clock_raw_from_ns(cc->offset_s, cc->offset_cycles, cc->freq, ns, &raw) < 0 ||
	    !ctf_clock_to_ns(s->rt->td, s->scd->sc->default_clock, raw, ret)) {
		snprintf(r->err, sizeof(r->err),
			 "%.700s: the time range's %" PRId64
			 " ns from origin is out of the stream clock's range",
			 s->path, ns);
		return -STRATA_ECLOCK;
	}
	return 0;
}

enum { TRIM_SKIP, TRIM_KEEP, TRIM_END };

/* Nothing more: the merge runs dry, so the hot loop needs no flag of its own. */
static void trim_stop(struct strata_ctf_reader *r)
{
	r->merge.n = 0;
	r->n_refill = 0;
}

/*
 * The time range, as babeltrace2 2.0.4 applies it to the muxer's messages.
 * The trimmer makes its upstream (the muxer) seek to begin, which the muxer
 * cannot do by itself: the library seeks it to its beginning and drops
 * what it yields until a message has a time at or after begin
 * ("auto-seek"; the stream beginning and end have none), but for a notice
 * whose range reaches begin, kept with that range cut there. The trimmer
 * then ends everything at the first message after end and cuts the range
 * of a notice reaching past it. Dropped events release their recycled
 * objects with their muxer batch, as printed ones do, so the batching
 * model (struct ctf_ec_pool) needs nothing more. Returns TRIM_* or an
 * error; *msg is filled for a kept notice.
 */
static int trim_step(struct strata_ctf_reader *r, const struct ctf_stream *s,
		     const struct ctf_slot *slot, uint8_t kind, struct strata_ctf_msg *msg)
{
	bool notice = kind == CTF_K_DISC_EVENTS || kind == CTF_K_DISC_PACKETS;
	int64_t t = 0;
	bool timed = has_time(slot, kind, &t);
	int ret;

	if (notice)
		*msg = slot->msg;
	if (r->seeking) {
		if (!timed)
			return TRIM_SKIP;
		if (t >= r->begin_ns) {
			r->seeking = false;
		} else if (notice && msg->discarded.has_range &&
			   msg->discarded.end_ns >= r->begin_ns) {
			ret = cut_time(r, s, r->begin_ns, &msg->discarded.begin_ns);
			if (ret < 0)
				return ret;
			msg->discarded.count = 0;
			t = msg->discarded.begin_ns;
		} else {
			return TRIM_SKIP;
		}
	}
	if (r->has_end && timed && t > r->end_ns) {
		trim_stop(r);
		return TRIM_END;
	}
	if (notice && r->has_end && msg->discarded.has_range && msg->discarded.end_ns > r->end_ns) {
		ret = cut_time(r, s, r->end_ns, &msg->discarded.end_ns);
		if (ret < 0)
			return ret;
		msg->discarded.count = 0;
	}
	return kind == CTF_K_EVENT || notice ? TRIM_KEEP : TRIM_SKIP;
}

/* babeltrace2's muxer starts over: every stream is to be refilled, in port order. */
static void mux_restart(struct strata_ctf_reader *r)
{
	r->merge.n = 0;
	r->step = r->released_step = 0;
	r->n_batch = 0;
	r->last_ns = INT64_MIN;
	r->n_refill = 0;
	/* babeltrace2 validates its upstream iterators in port order. */
	for (size_t i = r->n_streams; i-- > 0;)
		r->refill[r->n_refill++] = r->streams[i];
}

/*
 * A time of day needs a date: babeltrace2's trimmer takes the muxer's
 * batches until one holds a message with a time, releases them, and makes
 * the muxer seek its beginning, which releases what its upstream queues
 * still hold, stream by stream. The events decoded on the way leave their
 * text in the recycled objects (struct ctf_ec_pool), so this does the same
 * before the streams start over. Returns 0 or an error; *ret_found is false
 * when no message has a time.
 */
static int trim_prepass(struct strata_ctf_reader *r, int64_t *ret_first, bool *ret_found)
{
	bool found = false;
	int ret;

	*ret_first = 0;
	while (!found) {
		unsigned n;

		for (n = 0; n < CTF_BT_BATCH; n++) {
			struct ctf_slot *slot;
			struct ctf_stream *s;
			uint8_t kind;

			ret = mux_step(r, &slot, &kind, &s);
			if (ret < 0)
				return ret;
			if (ret == 0)
				break;
			if (!found)
				found = has_time(slot, kind, ret_first);
		}
		ret = release_batch(r);
		if (ret < 0)
			return ret;
		r->released_step = r->step;
		if (n < CTF_BT_BATCH)
			break;
	}
	for (size_t i = 0; i < r->n_streams; i++) {
		struct ctf_stream *s = r->streams[i];

		for (unsigned q = s->q_head; q < s->q_head + s->q_len; q++) {
			const struct ctf_slot *slot = s->qp[q];

			if (s->qkey[q].kind == CTF_K_EVENT && slot->pool) {
				ret = ctf_ec_pool_recycle(slot->pool, slot->obj);
				if (ret < 0)
					return ret;
			}
		}
		ret = ctf_stream_rewind(s);
		if (ret < 0)
			return ret;
	}
	mux_restart(r);
	*ret_found = found;
	if (!found)
		*ret_first = 0;
	return 0;
}

/* The merge's first state; the decoding threads start apart (ahead_start()). */
static int reader_start(struct strata_ctf_reader *r)
{
	r->started = true;
	r->refill = calloc(r->n_streams ? r->n_streams : 1, sizeof(*r->refill));
	if (!r->refill) {
		snprintf(r->err, sizeof(r->err), "Out of memory");
		return -ENOMEM;
	}
	mux_restart(r);
	return 0;
}

/* After trim_prepass(), if any: streams rewind only without a worker. */
static int ahead_start(struct strata_ctf_reader *r)
{
	int ret;

	if (r->decode_threads > 1 && r->n_streams) {
		ret = ctf_ahead_start(r->streams, r->n_streams, r->decode_threads, &r->ahead);
		if (ret < 0) {
			snprintf(r->err, sizeof(r->err), "Failed to start the decoding threads: %s",
				 strata_strerror(ret));
			return ret;
		}
	}
	return 0;
}

/*
 * babeltrace2's trimmer refuses streams whose messages lack times, so the
 * range needs a clock and packet beginning and end times everywhere.
 */
static int trim_check_stream(struct strata_ctf_reader *r, const struct ctf_stream *s)
{
	const char *what = NULL;

	if (s->scd->sc->default_clock < 0)
		what = "has no clock";
	else if (!s->scd->has_ts_begin || !s->scd->has_ts_end)
		what = "has no packet beginning and end times";
	if (!what)
		return 0;
	snprintf(r->err, sizeof(r->err),
		 "%.700s: stream class %" PRIu64 " %s, which a time range needs", s->path,
		 s->scd->sc->id, what);
	return -EINVAL;
}

static int trim_setup(struct strata_ctf_reader *r, const struct strata_ctf_reader_options *o)
{
	struct strata_ctf_bound b[2] = { o->begin, o->end };
	bool have_first = false;
	int64_t first = 0;
	int ret;

	for (size_t i = 0; i < r->n_streams; i++) {
		ret = trim_check_stream(r, r->streams[i]);
		if (ret < 0)
			return ret;
	}
	if (b[0].time_of_day || b[1].time_of_day) {
		ret = reader_start(r);
		if (ret == 0)
			ret = trim_prepass(r, &first, &have_first);
		if (ret == 0)
			ret = ahead_start(r);
		if (ret < 0)
			return ret;
		/* babeltrace2 ends there, before it completes a time of day. */
		if (!have_first)
			trim_stop(r);
	}
	for (int i = 0; i < 2; i++) {
		if (!b[i].set || !b[i].time_of_day)
			continue;
		ret = ctf_bound_resolve(&b[i], first, o->bounds_gmt);
		if (ret < 0) {
			snprintf(r->err, sizeof(r->err),
				 "the time range's %s cannot be placed on the trace's first day",
				 i ? "end" : "beginning");
			return -EINVAL;
		}
	}
	if (b[0].set && b[1].set && b[0].ns > b[1].ns &&
	    (have_first || (!o->begin.time_of_day && !o->end.time_of_day))) {
		/* Times of day reach here: say what they became. */
		snprintf(r->err, sizeof(r->err),
			 "the time range begins after it ends: on the trace's first day, it begins "
			 "%" PRId64 ".%09" PRId64 " s and ends %" PRId64 ".%09" PRId64
			 " s after the epoch",
			 b[0].ns / 1000000000, b[0].ns % 1000000000, b[1].ns / 1000000000,
			 b[1].ns % 1000000000);
		return -EINVAL;
	}
	r->trimming = b[0].set || b[1].set;
	r->has_begin = r->seeking = b[0].set;
	r->begin_ns = b[0].ns;
	r->has_end = b[1].set;
	r->end_ns = b[1].ns;
	return 0;
}

/* strata_ctf_reader_next(), or with skip_events strata_ctf_reader_next_notice(). */
static inline __attribute__((always_inline)) enum strata_ctf_status
reader_step(struct strata_ctf_reader *r, struct strata_ctf_msg *msg, bool skip_events)
{
	struct ctf_slot *slot;
	uint8_t kind;
	int ret;

	if (r->failed)
		return STRATA_CTF_ERROR;
	if (!r->started) {
		ret = reader_start(r);
		if (ret == 0)
			ret = ahead_start(r);
		if (ret < 0)
			goto fail;
	}
	for (;;) {
		struct ctf_stream *s;

		ret = mux_step(r, &slot, &kind, &s);
		if (ret == 0)
			return STRATA_CTF_END;
		if (unlikely(ret == -EAGAIN))
			return STRATA_CTF_AGAIN;
		if (ret < 0) {
			if (ret == -ENOMEM)
				snprintf(r->err, sizeof(r->err), "Out of memory");
			goto fail;
		}
		if (unlikely(r->slicing)) {
			if (r->last_ns >= r->slice_end) {
				trim_stop(r);
				return STRATA_CTF_END;
			}
			if (r->last_ns < r->slice_begin)
				continue;
		}
		if (unlikely(r->trimming)) {
			ret = trim_step(r, s, slot, kind, msg);
			if (ret < 0)
				goto fail;
			if (ret == TRIM_END)
				return STRATA_CTF_END;
			if (ret == TRIM_SKIP)
				continue;
			if (kind != CTF_K_EVENT)
				return STRATA_CTF_OK;
		}
		/* An event's message is known without reading its slot. */
		if (kind == CTF_K_EVENT && !skip_events) {
			msg->type = STRATA_CTF_MSG_EVENT;
			msg->event = &slot->ev;
			return STRATA_CTF_OK;
		}
		if (kind == CTF_K_DISC_EVENTS || kind == CTF_K_DISC_PACKETS) {
			*msg = slot->msg;
			return STRATA_CTF_OK;
		}
	}
fail:
	r->failed = true;
	r->code = ret;
	return STRATA_CTF_ERROR;
}

enum strata_ctf_status strata_ctf_reader_next(struct strata_ctf_reader *r,
					      struct strata_ctf_msg *msg)
{
	return reader_step(r, msg, false);
}

enum strata_ctf_status strata_ctf_reader_next_notice(struct strata_ctf_reader *r,
						     struct strata_ctf_msg *msg)
{
	return reader_step(r, msg, true);
}

/* --- slices (stream.h) ----------------------------------------------------- */

struct slice_pkt {
	int64_t begin_ns;
	uint64_t bytes;
};

static int slice_pkt_cmp(const void *a, const void *b)
{
	const struct slice_pkt *x = a, *y = b;

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/*
 * Cut j of n (0 < j < n): the beginning of the first packet, in time order
 * (all[], sorted), with j/n of all packet bytes before it; INT64_MAX when
 * there is none.
 */
static int64_t slice_cut(const struct slice_pkt *all, size_t n_all, uint64_t total, unsigned j,
			 unsigned n)
{
	uint64_t acc = 0, target = total / n * j + total % n * j / n; /* no overflow: j < n */

	for (size_t p = 0; p < n_all; acc += all[p++].bytes)
		if (acc >= target)
			return all[p].begin_ns;
	return INT64_MAX;
}

/* Slice k of n runs from cut k (the first: from the beginning) to cut k + 1. */
static int slice_bounds(const struct ctf_pkt_index *idx, size_t n_streams, unsigned k, unsigned n,
			int64_t *ret_begin, int64_t *ret_end)
{
	struct slice_pkt *all;
	size_t n_all = 0, p = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < n_streams; i++)
		n_all += idx[i].n;
	all = malloc((n_all ? n_all : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < n_streams; i++)
		for (size_t e = 0; e < idx[i].n; e++) {
			all[p].begin_ns = idx[i].e[e].begin_ns;
			all[p++].bytes = idx[i].e[e].bytes;
			total += idx[i].e[e].bytes;
		}
	qsort(all, n_all, sizeof(*all), slice_pkt_cmp);
	*ret_begin = k ? slice_cut(all, n_all, total, k, n) : INT64_MIN;
	*ret_end = k + 1 < n ? slice_cut(all, n_all, total, k + 1, n) : INT64_MAX;
	free(all);
	return 0;
}

/* The first packet ending at or after ns (end times never go back). */
static size_t slice_first_packet(const struct ctf_pkt_index *idx, int64_t ns)
{
	size_t lo = 0, hi = idx->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->e[mid].end_ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int strata_ctf_reader_slice(struct strata_ctf_reader *r, unsigned k, unsigned n)
{
	struct ctf_pkt_index *idx;
	int64_t begin = INT64_MIN, end = INT64_MAX;
	int ret = 0;

	if (n == 0 || k >= n)
		return -EINVAL;
	if (r->started || r->slicing)
		return -EBUSY;
	if (r->trimming || r->decode_threads > 1)
		return -ENOTSUP;
	for (size_t i = 0; i < r->n_traces; i++)
		if (r->traces[i]->pools)
			return -ENOTSUP; /* stale strings depend on everything before */
	if (n == 1)
		return 0;
	idx = calloc(r->n_streams ? r->n_streams : 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_streams && ret == 0; i++)
		ret = ctf_stream_scan(r->streams[i], &idx[i]);
	if (ret == 0)
		ret = slice_bounds(idx, r->n_streams, k, n, &begin, &end);
	if (ret == 0) {
		for (size_t i = 0; i < r->n_streams; i++)
			ctf_stream_seek(r->streams[i], &idx[i],
					k ? slice_first_packet(&idx[i], begin) : 0);
		r->slicing = true;
		r->slice_begin = begin;
		r->slice_end = end;
	}
	for (size_t i = 0; i < r->n_streams; i++)
		free(idx[i].e);
	free(idx);
	return ret;
}

uint64_t strata_ctf_reader_stream_bytes(const struct strata_ctf_reader *r)
{
	uint64_t total = 0;

	for (size_t i = 0; i < r->n_streams; i++)
		for (size_t f = 0; f < r->streams[i]->n_files; f++)
			total += r->streams[i]->files[f].size;
	return total;
}

unsigned strata_ctf_reader_stream_count(const struct strata_ctf_reader *r)
{
	return (unsigned)r->n_streams;
}

const char *strata_ctf_reader_last_error(const struct strata_ctf_reader *r)
{
	return r->err;
}

int strata_ctf_reader_last_code(const struct strata_ctf_reader *r)
{
	return r->code;
}

unsigned strata_ctf_reader_trace_count(const struct strata_ctf_reader *r)
{
	return (unsigned)r->n_metadata;
}

/* --- events --------------------------------------------------------------- */

bool strata_ctf_event_has_clock(const struct strata_ctf_event *ev)
{
	return ev->has_clock;
}

uint64_t strata_ctf_event_cycles(const struct strata_ctf_event *ev)
{
	return ev->cycles;
}

int64_t strata_ctf_event_ns(const struct strata_ctf_event *ev)
{
	return ev->ns;
}

const char *strata_ctf_event_name(const struct strata_ctf_event *ev)
{
	return ev->ec->name;
}

uint64_t strata_ctf_event_class_id(const struct strata_ctf_event *ev)
{
	return ev->ec->id;
}

bool strata_ctf_event_env_str(const struct strata_ctf_event *ev, const char *key, const char **ret)
{
	const struct ctf_env_entry *e = ctf_trace_class_env(ev->trace->tc, key);

	if (!e || e->is_int || !e->sval)
		return false;
	*ret = e->sval;
	return true;
}

bool strata_ctf_event_env_int(const struct strata_ctf_event *ev, const char *key, int64_t *ret)
{
	const struct ctf_env_entry *e = ctf_trace_class_env(ev->trace->tc, key);

	if (!e || !e->is_int)
		return false;
	*ret = e->ival;
	return true;
}

/* A top-level member of the scopes, searched payload first. */
static const struct ctf_value *find_field(const struct strata_ctf_event *ev, const char *name)
{
	static const enum ctf_scope order[] = {
		CTF_SCOPE_EVENT_PAYLOAD,
		CTF_SCOPE_EVENT_CONTEXT,
		CTF_SCOPE_STREAM_EVENT_CONTEXT,
		CTF_SCOPE_PACKET_CONTEXT,
	};

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const struct ctf_value *root = ev->scope[order[i]], *c;

		if (!root || root->type->kind != CTF_TYPE_STRUCT)
			continue;
		c = root + 1;
		for (size_t f = 0; f < root->type->structure.n_fields; f++) {
			if (strcmp(root->type->structure.fields[f].name, name) == 0)
				return c;
			c += c->nsub + 1;
		}
	}
	return NULL;
}

bool strata_ctf_event_field_int(const struct strata_ctf_event *ev, const char *name, int64_t *ret)
{
	const struct ctf_value *v = find_field(ev, name);

	if (!v || (v->type->kind != CTF_TYPE_INT && v->type->kind != CTF_TYPE_ENUM))
		return false;
	*ret = v->s;
	return true;
}

bool strata_ctf_event_field_str(const struct strata_ctf_event *ev, const char *name,
				const char **ret, uint32_t *ret_len)
{
	const struct ctf_value *v = find_field(ev, name);
	const struct ctf_type *t;

	if (!v)
		return false;
	t = v->type;
	if (t->kind != CTF_TYPE_STRING && !(t->kind == CTF_TYPE_ARRAY && t->array.is_text) &&
	    !(t->kind == CTF_TYPE_SEQUENCE && t->sequence.is_text))
		return false;
	*ret = v->str.ptr;
	*ret_len = v->str.len;
	return true;
}

/* --- live input ------------------------------------------------------------ */

/*
 * A live reader (strata_ctf_reader_create_live()) starts empty. Each trace
 * keeps the metadata bytes received so far: an update parses them all again
 * into a new class (r->traces keeps every one: events and queued messages
 * point into them), and the packets handed over after it name that class
 * (struct ctf_stream_file.rt), so that a stream switches when it reaches
 * them. Each packet is a "file" of its own held in memory until its stream
 * moved past it:
 *
 *   files[]:  [p7 done] [p8 current] [p9] [inactive @T] [p10]  | -EAGAIN
 *              freed at the next hand-over          production stops here
 */
struct live_trace {
	uint8_t *meta; /* metadata bytes as received */
	size_t meta_len;
	struct ctf_reader_trace *rt; /* parsed from meta: the current class */
};

static void live_release(struct strata_ctf_reader *r)
{
	if (!r->live)
		return;
	for (size_t i = 0; i < r->n_streams; i++) {
		struct ctf_stream *s = r->streams[i];

		for (size_t f = 0; f < s->n_files; f++)
			free((void *)s->files[f].mem);
		free(s->path); /* a live stream's own name, not a file's path */
		s->path = NULL;
	}
	for (size_t i = 0; i < r->n_live_traces; i++)
		free(r->live_traces[i].meta);
	free(r->live_traces);
	free(r->stream_trace);
}

int strata_ctf_reader_create_live(const struct strata_ctf_reader_options *opts,
				  struct strata_ctf_reader **ret_reader)
{
	struct strata_ctf_reader *r;

	if (opts && (opts->bt_stale_strings || opts->begin.set || opts->end.set ||
		     opts->decode_threads > 1))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->live = true;
	r->last_ns = INT64_MIN;
	if (opts)
		r->opts = *opts;
	*ret_reader = r;
	return 0;
}

/* The class of a trace's metadata bytes so far; *ret_errmsg on failure. */
static int live_parse(struct strata_ctf_reader *r, const uint8_t *meta, size_t len,
		      struct ctf_reader_trace **ret_rt, char **ret_errmsg)
{
	struct ctf_parse_error perr = { 0 };
	struct ctf_reader_trace *rt = NULL;
	struct ctf_trace_class *tc = NULL;
	char *text = NULL, tmp[256] = "";
	size_t tlen = 0;
	int ret;

	ret = ctf_metadata_read_buf(meta, len, &text, &tlen, &perr);
	if (ret == 0)
		ret = ctf_metadata_parse(text, tlen, &tc, &perr);
	free(text);
	if (ret < 0) {
		if (perr.line)
			snprintf(r->err, sizeof(r->err), "live metadata:%u: %s", perr.line,
				 perr.msg[0] ? perr.msg : strata_strerror(ret));
		else
			snprintf(r->err, sizeof(r->err), "live metadata: %s",
				 perr.msg[0] ? perr.msg : strata_strerror(ret));
		goto err;
	}
	setup_clocks(tc, &r->opts);
	ret = -ENOMEM;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		goto err;
	rt->t.tc = tc;
	tc = NULL;
	rt->quirks = tracer_quirks(rt->t.tc);
	/* babeltrace2's lttng-live names no trace. */
	rt->t.path = strdup("");
	if (!rt->t.path)
		goto err;
	ret = ctf_trace_dec_create_opts(rt->t.tc, r->opts.generic_decode, &rt->td, tmp,
					sizeof(tmp));
	if (ret < 0) {
		snprintf(r->err, sizeof(r->err), "live metadata: %s",
			 ret == -ENOMEM ? strata_strerror(ret) : tmp);
		goto err;
	}
	*ret_rt = rt;
	return 0;
err:
	if (ret == -ENOMEM)
		snprintf(r->err, sizeof(r->err), "Out of memory");
	if (ret_errmsg)
		*ret_errmsg = strdup(r->err);
	ctf_trace_class_destroy(tc);
	trace_destroy(rt);
	return ret;
}

/* Append bytes to trace t's metadata and parse the whole; nothing changes on failure. */
static int live_meta_append(struct strata_ctf_reader *r, struct live_trace *t, const void *bytes,
			    size_t len, char **ret_errmsg)
{
	struct ctf_reader_trace *rt = NULL, **nt;
	uint8_t *meta;
	int ret;

	if (ret_errmsg)
		*ret_errmsg = NULL;
	if (len > SIZE_MAX - t->meta_len)
		return -EINVAL;
	meta = malloc(t->meta_len + len ? t->meta_len + len : 1);
	nt = realloc(r->traces, (r->n_traces + 1) * sizeof(*nt));
	if (nt)
		r->traces = nt;
	if (!meta || !nt) {
		free(meta);
		snprintf(r->err, sizeof(r->err), "Out of memory");
		if (ret_errmsg)
			*ret_errmsg = strdup(r->err);
		return -ENOMEM;
	}
	if (t->meta_len)
		memcpy(meta, t->meta, t->meta_len);
	memcpy(meta + t->meta_len, bytes, len);
	ret = live_parse(r, meta, t->meta_len + len, &rt, ret_errmsg);
	if (ret < 0) {
		free(meta);
		return ret;
	}
	free(t->meta);
	t->meta = meta;
	t->meta_len += len;
	r->traces[r->n_traces++] = rt;
	t->rt = rt;
	return 0;
}

int strata_ctf_live_trace_add(struct strata_ctf_reader *r, const void *metadata, size_t len,
			      unsigned *ret_trace, char **ret_errmsg)
{
	struct live_trace *nt, t = { 0 };
	int ret;

	if (!r->live || r->n_live_traces >= UINT_MAX)
		return -EINVAL;
	nt = realloc(r->live_traces, (r->n_live_traces + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	r->live_traces = nt;
	ret = live_meta_append(r, &t, metadata, len, ret_errmsg);
	if (ret < 0)
		return ret;
	r->live_traces[r->n_live_traces] = t;
	*ret_trace = (unsigned)r->n_live_traces++;
	r->n_metadata++;
	return 0;
}

int strata_ctf_live_trace_update(struct strata_ctf_reader *r, unsigned trace, const void *metadata,
				 size_t len, char **ret_errmsg)
{
	if (!r->live || trace >= r->n_live_traces)
		return -EINVAL;
	return live_meta_append(r, &r->live_traces[trace], metadata, len, ret_errmsg);
}

int strata_ctf_live_stream_add(struct strata_ctf_reader *r, unsigned trace, uint64_t id,
			       unsigned *ret_stream)
{
	struct ctf_stream *s, **ns;
	unsigned *nt;
	char name[32];

	if (!r->live || trace >= r->n_live_traces || r->n_streams >= UINT_MAX)
		return -EINVAL;
	ns = realloc(r->streams, (r->n_streams + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	r->streams = ns;
	nt = realloc(r->stream_trace, (r->n_streams + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	r->stream_trace = nt;
	nt[r->n_streams] = trace;
	if (r->started) {
		struct ctf_stream **nr = realloc(r->refill, (r->n_streams + 1) * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		r->refill = nr;
	}
	s = calloc(1, sizeof(*s));
	snprintf(name, sizeof(name), "stream-%" PRIu64, id);
	if (s)
		s->path = strdup(name);
	if (!s || !s->path) {
		free(s);
		return -ENOMEM;
	}
	s->rt = r->live_traces[trace].rt;
	s->stream_id = id;
	s->live = true;
	s->index = (unsigned)r->n_streams;
	s->err = r->err;
	s->errlen = sizeof(r->err);
	r->streams[r->n_streams++] = s;
	/* Once started, the merge learns of it at its next step. */
	if (r->started)
		r->refill[r->n_refill++] = s;
	*ret_stream = s->index;
	return 0;
}

/* Stream of a live reader that can still take something, or NULL. */
static struct ctf_stream *live_stream(struct strata_ctf_reader *r, unsigned stream)
{
	struct ctf_stream *s;

	if (!r->live || stream >= r->n_streams)
		return NULL;
	s = r->streams[stream];
	return s->live ? s : NULL;
}

/*
 * Room for one more entry in s->files[], the entries the stream moved
 * past dropped first (their packets are copied into its buffers).
 */
static struct ctf_stream_file *live_file_new(struct ctf_stream *s)
{
	struct ctf_stream_file *nf;
	size_t done = s->cur_file;

	if (done) {
		for (size_t i = 0; i < done; i++)
			free((void *)s->files[i].mem);
		memmove(s->files, s->files + done, (s->n_files - done) * sizeof(*s->files));
		s->n_files -= done;
		s->cur_file = 0;
	}
	nf = realloc(s->files, (s->n_files + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	s->files = nf;
	memset(&nf[s->n_files], 0, sizeof(*nf));
	return &nf[s->n_files];
}

int strata_ctf_live_stream_packet(struct strata_ctf_reader *r, unsigned stream, const void *packet,
				  size_t len)
{
	struct ctf_stream *s = live_stream(r, stream);
	const struct ctf_reader_trace *rt;
	struct ctf_stream_file *f;
	uint8_t *mem;

	if (!s || len == 0)
		return -EINVAL;
	if (len > CTF_PKT_MAX_BYTES) {
		snprintf(r->err, sizeof(r->err),
			 "%s: packet of %zu bytes is larger than the reader's limit (%" PRIu64
			 " bytes)",
			 s->path, len, CTF_PKT_MAX_BYTES);
		return -STRATA_ESTREAM;
	}
	rt = r->live_traces[r->stream_trace[stream]].rt;
	mem = malloc(len);
	if (!mem)
		return -ENOMEM;
	memcpy(mem, packet, len);
	/* The first packet says the stream class and its instance id. */
	if (!s->scd) {
		struct ctf_packet_props props;
		int ret = ctf_packet_props_read_mem(rt, s->path, mem, len, &props, r->err,
						    sizeof(r->err));

		if (ret < 0) {
			free(mem);
			return ret;
		}
		s->rt = rt;
		s->scd = ctf_trace_dec_sc(rt->td, props.sc_id);
		if (props.has_instance_id)
			s->stream_id = props.instance_id;
	}
	f = live_file_new(s);
	if (!f) {
		free(mem);
		return -ENOMEM;
	}
	f->mem = mem;
	f->size = len;
	f->rt = rt;
	s->n_files++;
	return 0;
}

int strata_ctf_live_stream_inactive(struct strata_ctf_reader *r, unsigned stream, uint64_t cycles)
{
	struct ctf_stream *s = live_stream(r, stream);
	struct ctf_stream_file *f;

	if (!s)
		return -EINVAL;
	f = live_file_new(s);
	if (!f)
		return -ENOMEM;
	f->inactive = true;
	f->inactive_raw = cycles;
	s->n_files++;
	return 0;
}

int strata_ctf_live_stream_end(struct strata_ctf_reader *r, unsigned stream)
{
	struct ctf_stream *s = live_stream(r, stream);

	if (!s)
		return -EINVAL;
	s->live = false;
	/* Without a packet it never began (lttng-live): nothing to say. */
	if (!s->scd)
		s->sb_done = s->se_done = s->ended = true;
	return 0;
}

int strata_ctf_live_wanted(const struct strata_ctf_reader *r, unsigned *ret_stream)
{
	if (!r->live || !r->wanted || !r->wanted->live)
		return -ENOENT;
	*ret_stream = r->wanted->index;
	return 0;
}
