/* SPDX-License-Identifier: MIT */
/*
 * Live reader tests (strata_ctf_reader_create_live()): LTTng traces of the
 * committed corpus handed over packet by packet, cut at their index files'
 * entries, print what the same traces print read from their files; the
 * merge waits (STRATA_CTF_AGAIN) for the stream it needs, an inactivity
 * lets the other streams through, streams added late join, and metadata
 * updates take effect for the packets that follow them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <strata/ctf.h>
#include <strata/error.h>

#include "common/common.h"

static char traces[1024];

/* --- a trace directory cut into packets by its index files --------------- */

struct pkt {
	uint8_t *bytes;
	size_t len;
};

struct src_stream {
	struct pkt *pkts;
	size_t n, next;
	unsigned handle; /* in the live reader */
	bool ended;
};

struct src_trace {
	uint8_t *meta;
	size_t meta_len;
	struct src_stream streams[16];
	size_t n_streams;
};

static uint8_t *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*ret_len = (size_t)len;
	return buf;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* dir/CHANNEL and dir/index/CHANNEL.idx: one packet per index entry. */
static void load_stream(struct src_stream *st, const char *dir, const char *channel)
{
	char path[1400];
	uint8_t *data, *idx;
	size_t data_len, idx_len, entry_len;

	snprintf(path, sizeof(path), "%s/%s", dir, channel);
	data = slurp(path, &data_len);
	snprintf(path, sizeof(path), "%s/index/%s.idx", dir, channel);
	idx = slurp(path, &idx_len);
	assert_true(idx_len >= 16);
	assert_int_equal(be32(idx), 0xC1F1DCC1);
	entry_len = be32(idx + 12);
	st->n = (idx_len - 16) / entry_len;
	st->pkts = calloc(st->n ? st->n : 1, sizeof(*st->pkts));
	assert_non_null(st->pkts);
	for (size_t i = 0; i < st->n; i++) {
		const uint8_t *e = idx + 16 + i * entry_len;
		uint64_t off = be64(e), bits = be64(e + 8);

		assert_true(off + bits / 8 <= data_len);
		st->pkts[i].len = bits / 8;
		st->pkts[i].bytes = malloc(st->pkts[i].len);
		assert_non_null(st->pkts[i].bytes);
		memcpy(st->pkts[i].bytes, data + off, st->pkts[i].len);
	}
	free(data);
	free(idx);
}

static void load_trace(struct src_trace *t, const char *rel, const char *const *channels)
{
	char dir[1200], path[1300];

	snprintf(dir, sizeof(dir), "%s/%s", traces, rel);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	memset(t, 0, sizeof(*t));
	t->meta = slurp(path, &t->meta_len);
	for (; *channels; channels++)
		load_stream(&t->streams[t->n_streams++], dir, *channels);
}

static void free_trace(struct src_trace *t)
{
	for (size_t i = 0; i < t->n_streams; i++) {
		for (size_t p = 0; p < t->streams[i].n; p++)
			free(t->streams[i].pkts[p].bytes);
		free(t->streams[i].pkts);
	}
	free(t->meta);
}

/* --- printing ---------------------------------------------------------------- */

struct out {
	char *text, *warn;
	size_t text_len, warn_len;
	FILE *f, *w;
	struct strata_ctf_pretty *p;
};

static void out_open(struct out *o)
{
	struct strata_ctf_pretty_options po = { 0 };

	memset(o, 0, sizeof(*o));
	o->f = open_memstream(&o->text, &o->text_len);
	o->w = open_memstream(&o->warn, &o->warn_len);
	assert_non_null(o->f);
	assert_non_null(o->w);
	o->p = strata_ctf_pretty_create(&po, o->f, o->w);
	assert_non_null(o->p);
}

static void out_close(struct out *o)
{
	assert_int_equal(strata_ctf_pretty_flush(o->p), 0);
	strata_ctf_pretty_destroy(o->p);
	fclose(o->f);
	fclose(o->w);
}

static void out_free(struct out *o)
{
	free(o->text);
	free(o->warn);
}

/* The trace read from its files, as strata view prints it without stale strings. */
static void read_files(const char *rel, struct out *o)
{
	struct strata_ctf_reader *r = NULL;
	char dir[1200];
	const char *p = dir;
	struct strata_ctf_msg msg;
	enum strata_ctf_status st;

	snprintf(dir, sizeof(dir), "%s/%s", traces, rel);
	assert_int_equal(strata_ctf_reader_create(&p, 1, NULL, &r, NULL), 0);
	out_open(o);
	while ((st = strata_ctf_reader_next(r, &msg)) == STRATA_CTF_OK)
		assert_int_equal(strata_ctf_pretty_print(o->p, &msg), 0);
	assert_int_equal(st, STRATA_CTF_END);
	out_close(o);
	strata_ctf_reader_destroy(r);
}

/* Number of lines of text holding needle. */
static unsigned count_lines(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (memmem(l, len, needle, strlen(needle)))
			n++;
		l = e ? e + 1 : NULL;
	}
	return n;
}

/*
 * Read t live: every AGAIN hands the wanted stream its next packet, or its
 * end once none is left. Returns the number of AGAINs.
 */
static unsigned read_live(struct src_trace *t, struct out *o)
{
	struct strata_ctf_reader *r = NULL;
	struct strata_ctf_msg msg;
	unsigned trace, again = 0;

	assert_int_equal(strata_ctf_reader_create_live(NULL, &r), 0);
	assert_int_equal(strata_ctf_live_trace_add(r, t->meta, t->meta_len, &trace, NULL), 0);
	for (size_t i = 0; i < t->n_streams; i++) {
		assert_int_equal(
			strata_ctf_live_stream_add(r, trace, 100 + i, &t->streams[i].handle), 0);
		t->streams[i].next = 0;
		t->streams[i].ended = false;
	}
	out_open(o);
	for (;;) {
		enum strata_ctf_status st = strata_ctf_reader_next(r, &msg);
		struct src_stream *s = NULL;
		unsigned want;

		if (st == STRATA_CTF_END)
			break;
		if (st == STRATA_CTF_OK) {
			assert_int_equal(strata_ctf_pretty_print(o->p, &msg), 0);
			continue;
		}
		assert_int_equal(st, STRATA_CTF_AGAIN);
		again++;
		assert_int_equal(strata_ctf_live_wanted(r, &want), 0);
		for (size_t i = 0; i < t->n_streams; i++)
			if (t->streams[i].handle == want)
				s = &t->streams[i];
		assert_non_null(s);
		assert_false(s->ended);
		if (s->next < s->n) {
			struct pkt *p = &s->pkts[s->next++];

			assert_int_equal(strata_ctf_live_stream_packet(r, want, p->bytes, p->len),
					 0);
		} else {
			assert_int_equal(strata_ctf_live_stream_end(r, want), 0);
			s->ended = true;
			/* Nothing more once it ended. */
			assert_int_equal(strata_ctf_live_stream_packet(r, want, "x", 1), -EINVAL);
		}
	}
	out_close(o);
	strata_ctf_reader_destroy(r);
	return again;
}

static void live_matches_files(const char *rel, const char *const *channels)
{
	struct src_trace t;
	struct out files, live;
	unsigned again, packets = 0;

	load_trace(&t, rel, channels);
	read_files(rel, &files);
	again = read_live(&t, &live);
	for (size_t i = 0; i < t.n_streams; i++)
		packets += (unsigned)t.streams[i].n;
	/* One wait per packet and per stream end, no more. */
	assert_int_equal(again, packets + t.n_streams);
	assert_true(files.text_len > 0);
	assert_int_equal(live.text_len, files.text_len);
	assert_memory_equal(live.text, files.text, files.text_len);
	/* The notices are the same ones, named as lttng-live names them. */
	assert_int_equal(count_lines(live.warn, "WARNING"), count_lines(files.warn, "WARNING"));
	assert_int_equal(count_lines(live.warn, "in trace \"(unknown)\""),
			 count_lines(live.warn, "WARNING"));
	if (count_lines(live.warn, "WARNING"))
		assert_true(strstr(live.warn, "within stream \"stream-") != NULL);
	out_free(&files);
	out_free(&live);
	free_trace(&t);
}

static void test_uid_trace(void **state)
{
	static const char *const ch[] = { "channel0_0", "channel0_1", NULL };

	(void)state;
	live_matches_files("lttng/uid-ctx/ust/uid/0/64-bit", ch);
}

static void test_discarded_events(void **state)
{
	static const char *const ch[] = { "chd_0", "chd_1", NULL };

	(void)state;
	live_matches_files("lttng/discard/ust/uid/0/64-bit", ch);
}

/* --- waiting, inactivity, late streams, metadata updates -------------------- */

/* A reader on the uid-ctx trace with its two streams, nothing handed over yet. */
static struct strata_ctf_reader *two_streams(struct src_trace *t, unsigned *ret_trace)
{
	static const char *const ch[] = { "channel0_0", "channel0_1", NULL };
	struct strata_ctf_reader *r = NULL;

	load_trace(t, "lttng/uid-ctx/ust/uid/0/64-bit", ch);
	assert_int_equal(strata_ctf_reader_create_live(NULL, &r), 0);
	assert_int_equal(strata_ctf_live_trace_add(r, t->meta, t->meta_len, ret_trace, NULL), 0);
	return r;
}

/*
 * A packet's end time: LTTng's packet header is 32 bytes (magic, uuid,
 * stream_id, stream_instance_id), then the context's timestamp_begin and
 * timestamp_end, little-endian here.
 */
static uint64_t packet_ts_end(const struct pkt *p)
{
	uint64_t v = 0;

	assert_true(p->len >= 48);
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p->bytes[40 + i];
	return v;
}

static void test_waits_for_wanted_stream(void **state)
{
	struct strata_ctf_reader *r;
	struct src_trace t;
	struct strata_ctf_msg msg;
	unsigned trace, a, b, want;

	(void)state;
	r = two_streams(&t, &trace);
	assert_int_equal(strata_ctf_live_stream_add(r, trace, 1, &a), 0);
	assert_int_equal(strata_ctf_live_stream_add(r, trace, 2, &b), 0);
	/* Nothing yet: it waits, naming a stream. */
	assert_int_equal(strata_ctf_reader_next(r, &msg), STRATA_CTF_AGAIN);
	assert_int_equal(strata_ctf_live_wanted(r, &want), 0);
	assert_true(want == a || want == b);
	/* One stream's packet is not enough: the other one is wanted now. */
	assert_int_equal(strata_ctf_live_stream_packet(r, a, t.streams[0].pkts[0].bytes,
						       t.streams[0].pkts[0].len),
			 0);
	assert_int_equal(strata_ctf_reader_next(r, &msg), STRATA_CTF_AGAIN);
	assert_int_equal(strata_ctf_live_wanted(r, &want), 0);
	assert_int_equal(want, b);
	/*
	 * An inactivity of b after all of a's first packet lets that packet
	 * through, then a is wanted again.
	 */
	assert_int_equal(
		strata_ctf_live_stream_inactive(r, b, packet_ts_end(&t.streams[0].pkts[0]) + 1), 0);
	for (unsigned n = 0;; n++) {
		enum strata_ctf_status st = strata_ctf_reader_next(r, &msg);

		if (st == STRATA_CTF_AGAIN) {
			assert_true(n > 0);
			break;
		}
		assert_int_equal(st, STRATA_CTF_OK);
		assert_int_equal(msg.type, STRATA_CTF_MSG_EVENT);
	}
	assert_int_equal(strata_ctf_live_wanted(r, &want), 0);
	assert_int_equal(want, a);
	/* Unknown streams, and handing over to a stream that ended, are refused. */
	assert_int_equal(strata_ctf_live_stream_packet(r, 99, "x", 1), -EINVAL);
	assert_int_equal(strata_ctf_live_stream_end(r, a), 0);
	assert_int_equal(strata_ctf_live_stream_inactive(r, a, 1), -EINVAL);
	assert_int_equal(strata_ctf_live_stream_end(r, b), 0);
	while (strata_ctf_reader_next(r, &msg) == STRATA_CTF_OK)
		;
	assert_int_equal(strata_ctf_reader_next(r, &msg), STRATA_CTF_END);
	strata_ctf_reader_destroy(r);
	free_trace(&t);
}

/* A packet's begin time (see packet_ts_end()). */
static uint64_t packet_ts_begin(const struct pkt *p)
{
	uint64_t v = 0;

	assert_true(p->len >= 48);
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p->bytes[32 + i];
	return v;
}

static void test_stream_added_late(void **state)
{
	struct strata_ctf_reader *r;
	struct src_trace t;
	struct strata_ctf_msg msg;
	unsigned trace, a, b, events = 0, want;
	enum strata_ctf_status st;
	size_t late = 0;

	static const char *const ch[] = { "chd_0", NULL };

	(void)state;
	/* Stream a is chd_0's first packet, the late ones its later packets. */
	load_trace(&t, "lttng/discard/ust/uid/0/64-bit", ch);
	assert_true(t.streams[0].n > 2);
	t.streams[1] = t.streams[0];
	assert_int_equal(strata_ctf_reader_create_live(NULL, &r), 0);
	assert_int_equal(strata_ctf_live_trace_add(r, t.meta, t.meta_len, &trace, NULL), 0);
	assert_int_equal(strata_ctf_live_stream_add(r, trace, 1, &a), 0);
	assert_int_equal(strata_ctf_live_stream_packet(r, a, t.streams[0].pkts[0].bytes,
						       t.streams[0].pkts[0].len),
			 0);
	assert_int_equal(strata_ctf_live_stream_end(r, a), 0);
	while ((st = strata_ctf_reader_next(r, &msg)) == STRATA_CTF_OK)
		events++;
	assert_int_equal(st, STRATA_CTF_END);
	assert_true(events > 0);
	/* A stream added after the end, with a later packet: the reader goes on. */
	while (late < t.streams[1].n &&
	       packet_ts_begin(&t.streams[1].pkts[late]) <= packet_ts_end(&t.streams[0].pkts[0]))
		late++;
	assert_true(late < t.streams[1].n);
	assert_int_equal(strata_ctf_live_stream_add(r, trace, 2, &b), 0);
	assert_int_equal(strata_ctf_reader_next(r, &msg), STRATA_CTF_AGAIN);
	assert_int_equal(strata_ctf_live_wanted(r, &want), 0);
	assert_int_equal(want, b);
	assert_int_equal(strata_ctf_live_stream_packet(r, b, t.streams[1].pkts[late].bytes,
						       t.streams[1].pkts[late].len),
			 0);
	assert_int_equal(strata_ctf_live_stream_end(r, b), 0);
	events = 0;
	while ((st = strata_ctf_reader_next(r, &msg)) == STRATA_CTF_OK)
		events++;
	assert_int_equal(st, STRATA_CTF_END);
	assert_true(events > 0);
	/* A stream that ends before any packet says nothing. */
	assert_int_equal(strata_ctf_live_stream_add(r, trace, 3, &b), 0);
	assert_int_equal(strata_ctf_live_stream_end(r, b), 0);
	assert_int_equal(strata_ctf_reader_next(r, &msg), STRATA_CTF_END);
	/* One whose packet comes before what was printed stops the reader, as in lttng-live. */
	assert_int_equal(strata_ctf_live_stream_add(r, trace, 4, &b), 0);
	assert_int_equal(strata_ctf_live_stream_packet(r, b, t.streams[1].pkts[0].bytes,
						       t.streams[1].pkts[0].len),
			 0);
	assert_int_equal(strata_ctf_live_stream_end(r, b), 0);
	assert_int_equal(strata_ctf_reader_next(r, &msg), STRATA_CTF_ERROR);
	assert_non_null(strstr(strata_ctf_reader_last_error(r), "stream-4"));
	strata_ctf_reader_destroy(r);
	t.n_streams = 1; /* streams[1] shares streams[0]'s packets */
	free_trace(&t);
}

static void test_metadata_update(void **state)
{
	static const char *const ch[] = { "channel0_0", "channel0_1", NULL };
	struct strata_ctf_reader *r = NULL;
	struct src_trace t;
	struct out files, live;
	struct strata_ctf_msg msg;
	char dir[1200], *text = NULL, *err = NULL, *cut;
	unsigned trace, s[2];
	enum strata_ctf_status st;
	size_t head;

	(void)state;
	load_trace(&t, "lttng/uid-ctx/ust/uid/0/64-bit", ch);
	read_files("lttng/uid-ctx/ust/uid/0/64-bit", &files);
	snprintf(dir, sizeof(dir), "%s/lttng/uid-ctx/ust/uid/0/64-bit", traces);
	assert_int_equal(strata_ctf_metadata_text(dir, &text, NULL), 0);
	/* The text up to its last event class parses alone. */
	cut = strstr(text, "\nevent {");
	assert_non_null(cut);
	while (strstr(cut + 1, "\nevent {"))
		cut = strstr(cut + 1, "\nevent {");
	head = (size_t)(cut - text) + 1;
	assert_int_equal(strata_ctf_reader_create_live(NULL, &r), 0);
	assert_int_equal(strata_ctf_live_trace_add(r, text, head, &trace, NULL), 0);
	/* Garbage does not parse and changes nothing. */
	assert_int_equal(strata_ctf_live_trace_update(r, trace, "event { oops", 12, &err),
			 -STRATA_EMETADATA);
	assert_non_null(err);
	free(err);
	assert_int_equal(
		strata_ctf_live_trace_update(r, trace, text + head, strlen(text + head), NULL), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(strata_ctf_live_stream_add(r, trace, (uint64_t)i, &s[i]), 0);
		for (size_t p = 0; p < t.streams[i].n; p++)
			assert_int_equal(strata_ctf_live_stream_packet(r, s[i],
								       t.streams[i].pkts[p].bytes,
								       t.streams[i].pkts[p].len),
					 0);
		assert_int_equal(strata_ctf_live_stream_end(r, s[i]), 0);
	}
	out_open(&live);
	while ((st = strata_ctf_reader_next(r, &msg)) == STRATA_CTF_OK)
		assert_int_equal(strata_ctf_pretty_print(live.p, &msg), 0);
	assert_int_equal(st, STRATA_CTF_END);
	out_close(&live);
	assert_int_equal(live.text_len, files.text_len);
	assert_memory_equal(live.text, files.text, files.text_len);
	assert_int_equal(strata_ctf_reader_trace_count(r), 1);
	strata_ctf_reader_destroy(r);
	out_free(&files);
	out_free(&live);
	free(text);
	free_trace(&t);
}

static void test_bad_input(void **state)
{
	struct strata_ctf_reader_options o = { .bt_stale_strings = true };
	struct strata_ctf_reader *r = NULL;
	struct src_trace t;
	struct strata_ctf_msg msg;
	const char *path = traces;
	unsigned trace, a, want;
	char *err = NULL;
	uint8_t junk[64];

	(void)state;
	assert_int_equal(strata_ctf_reader_create_live(&o, &r), -EINVAL);
	o = (struct strata_ctf_reader_options){ .decode_threads = 2 };
	assert_int_equal(strata_ctf_reader_create_live(&o, &r), -EINVAL);
	assert_int_equal(strata_ctf_reader_create_live(NULL, &r), 0);
	assert_int_equal(strata_ctf_live_trace_add(r, "nope", 4, &trace, &err), -STRATA_EMETADATA);
	assert_non_null(err);
	free(err);
	assert_int_equal(strata_ctf_live_stream_add(r, 0, 1, &a), -EINVAL);
	assert_int_equal(strata_ctf_live_wanted(r, &want), -ENOENT);
	strata_ctf_reader_destroy(r);

	/* A garbage first packet is refused; one that fails later stops the reader. */
	r = two_streams(&t, &trace);
	assert_int_equal(strata_ctf_live_stream_add(r, trace, 1, &a), 0);
	memset(junk, 0xA5, sizeof(junk));
	assert_int_equal(strata_ctf_live_stream_packet(r, a, junk, sizeof(junk)), -STRATA_ESTREAM);
	assert_true(strlen(strata_ctf_reader_last_error(r)) > 0);
	assert_int_equal(strata_ctf_live_stream_packet(r, a, t.streams[0].pkts[0].bytes,
						       t.streams[0].pkts[0].len),
			 0);
	assert_int_equal(strata_ctf_live_stream_packet(r, a, junk, sizeof(junk)), 0);
	assert_int_equal(strata_ctf_live_stream_end(r, a), 0);
	while (strata_ctf_reader_next(r, &msg) == STRATA_CTF_OK)
		;
	assert_int_equal(strata_ctf_reader_last_code(r), -STRATA_ESTREAM);
	strata_ctf_reader_destroy(r);
	free_trace(&t);

	/* A file reader never waits and refuses live calls. */
	(void)path;
	{
		char dir[1200];
		const char *p = dir;

		snprintf(dir, sizeof(dir), "%s/lttng/uid-ctx", traces);
		assert_int_equal(strata_ctf_reader_create(&p, 1, NULL, &r, NULL), 0);
		assert_int_equal(strata_ctf_live_trace_add(r, "x", 1, &trace, NULL), -EINVAL);
		assert_int_equal(strata_ctf_live_wanted(r, &want), -ENOENT);
		strata_ctf_reader_destroy(r);
	}
}

int main(void)
{
	const char *src = getenv("STRATA_SOURCE_ROOT");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uid_trace),
		cmocka_unit_test(test_discarded_events),
		cmocka_unit_test(test_waits_for_wanted_stream),
		cmocka_unit_test(test_stream_added_late),
		cmocka_unit_test(test_metadata_update),
		cmocka_unit_test(test_bad_input),
	};

	snprintf(traces, sizeof(traces), "%s/tests/traces", src ? src : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
