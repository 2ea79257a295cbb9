/* SPDX-License-Identifier: MIT */
/*
 * Reader API tests on the committed trace corpus (tests/traces/): both
 * byte orders decode to the same values, merges are time-ordered,
 * discarded-event accounting on real LTTng traces, and every malformed
 * trace fails cleanly with the file and offset named.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <strata/ctf.h>
#include <strata/error.h>

#include "ctf/reader-internal.h"
#include "common/common.h"

static char traces[1024];

static const char *trace_path(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", traces, rel);
	return buf;
}

static struct strata_ctf_reader *open_opts(const char *rel,
					   const struct strata_ctf_reader_options *opts)
{
	struct strata_ctf_reader *r = NULL;
	char buf[1200];
	const char *p = trace_path(rel, buf, sizeof(buf));
	char *err = NULL;
	int ret = strata_ctf_reader_create(&p, 1, opts, &r, &err);

	if (ret < 0)
		fail_msg("cannot open %s: %s", p, err ? err : "?");
	return r;
}

static struct strata_ctf_reader *open_one(const char *rel)
{
	return open_opts(rel, NULL);
}

static void values_equal(const struct ctf_value *a, const struct ctf_value *b)
{
	uint32_t n;

	assert_int_equal(a->nsub, b->nsub);
	n = a->nsub + 1;
	for (uint32_t i = 0; i < n; i++) {
		const struct ctf_type *t = a[i].type;

		assert_int_equal(t->kind, b[i].type->kind);
		/* Every value's descendants: the tree has the same form. */
		assert_int_equal(a[i].nsub, b[i].nsub);
		switch (t->kind) {
		case CTF_TYPE_INT:
		case CTF_TYPE_ENUM:
			assert_true(a[i].u == b[i].u);
			break;
		case CTF_TYPE_FLOAT:
			if (!(isnan(a[i].d) && isnan(b[i].d)))
				assert_memory_equal(&a[i].d, &b[i].d, sizeof(double));
			break;
		case CTF_TYPE_STRING:
			assert_int_equal(a[i].str.len, b[i].str.len);
			assert_memory_equal(a[i].str.ptr, b[i].str.ptr, a[i].str.len);
			break;
		case CTF_TYPE_ARRAY:
		case CTF_TYPE_SEQUENCE:
			if ((t->kind == CTF_TYPE_ARRAY && t->array.is_text) ||
			    (t->kind == CTF_TYPE_SEQUENCE && t->sequence.is_text)) {
				assert_int_equal(a[i].str.len, b[i].str.len);
				assert_memory_equal(a[i].str.ptr, b[i].str.ptr, a[i].str.len);
			} else {
				assert_true(a[i].count == b[i].count);
			}
			break;
		case CTF_TYPE_VARIANT:
			assert_int_equal(a[i].option, b[i].option);
			break;
		case CTF_TYPE_STRUCT:
			assert_true(a[i].count == b[i].count);
			break;
		default:
			break;
		}
	}
}

static void test_types_le_be_same(void **state)
{
	struct strata_ctf_reader *le = open_one("gen/types-le"), *be = open_one("gen/types-be");
	struct strata_ctf_msg ml, mb;
	unsigned events = 0;

	(void)state;
	for (;;) {
		enum strata_ctf_status sl = strata_ctf_reader_next(le, &ml);
		enum strata_ctf_status sb = strata_ctf_reader_next(be, &mb);

		if (sl == STRATA_CTF_ERROR)
			fail_msg("LE: %s", strata_ctf_reader_last_error(le));
		if (sb == STRATA_CTF_ERROR)
			fail_msg("BE: %s", strata_ctf_reader_last_error(be));
		assert_int_equal(sl, sb);
		if (sl == STRATA_CTF_END)
			break;
		assert_int_equal(ml.type, mb.type);
		if (ml.type != STRATA_CTF_MSG_EVENT)
			continue;
		events++;
		assert_string_equal(strata_ctf_event_name(ml.event),
				    strata_ctf_event_name(mb.event));
		assert_int_equal(strata_ctf_event_ns(ml.event), strata_ctf_event_ns(mb.event));
		for (int s = CTF_SCOPE_PACKET_CONTEXT; s < CTF_SCOPE_COUNT; s++) {
			if (s == CTF_SCOPE_EVENT_HEADER)
				continue;
			assert_true(!ml.event->scope[s] == !mb.event->scope[s]);
			if (ml.event->scope[s])
				values_equal(ml.event->scope[s], mb.event->scope[s]);
		}
	}
	assert_true(events > 5);
	strata_ctf_reader_destroy(le);
	strata_ctf_reader_destroy(be);
}

/* Every trace of the corpus reads to the end with non-decreasing times. */
static void read_all(const char *rel, unsigned *ret_events, uint64_t *ret_disc_events,
		     uint64_t *ret_disc_packets, unsigned *ret_may)
{
	struct strata_ctf_reader *r = open_one(rel);
	struct strata_ctf_msg m;
	enum strata_ctf_status st;
	int64_t last = INT64_MIN;

	*ret_events = 0;
	*ret_disc_events = *ret_disc_packets = 0;
	*ret_may = 0;
	while ((st = strata_ctf_reader_next(r, &m)) == STRATA_CTF_OK) {
		if (m.type == STRATA_CTF_MSG_EVENT) {
			(*ret_events)++;
			if (strata_ctf_event_has_clock(m.event)) {
				assert_true(strata_ctf_event_ns(m.event) >= last);
				last = strata_ctf_event_ns(m.event);
			}
		} else if (m.type == STRATA_CTF_MSG_DISCARDED_EVENTS) {
			if (m.discarded.count)
				*ret_disc_events += m.discarded.count;
			else
				(*ret_may)++;
			assert_non_null(m.discarded.stream_path);
			assert_true(m.discarded.stream_path[0] == '/');
		} else {
			*ret_disc_packets += m.discarded.count;
		}
	}
	if (st != STRATA_CTF_END)
		fail_msg("%s: %s", rel, strata_ctf_reader_last_error(r));
	strata_ctf_reader_destroy(r);
}

static void test_corpus_reads(void **state)
{
	static const char *const all[] = {
		"gen/types-le",	     "gen/types-be",   "gen/compact-wrap",   "gen/clock-neg",
		"gen/clock-odd",     "gen/noclock",    "gen/implicit-clock", "gen/minimal",
		"gen/packetized-be", "gen/multi-sc",   "gen/merge",	     "gen/nohost",
		"lttng/uid-ctx",     "lttng/pid-two",  "lttng/discard",	     "lttng/lost-packet",
		"lttng/may-discard", "lttng/snapshot", "lttng/multichan",    "lttng/rotation",
	};
	unsigned ev, may;
	uint64_t de, dp;
	char buf[1200];
	struct stat st;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (stat(trace_path(all[i], buf, sizeof(buf)), &st) < 0)
			continue; /* not generated in this checkout */
		read_all(all[i], &ev, &de, &dp, &may);
		assert_true(ev > 0);
		if (strcmp(all[i], "lttng/discard") == 0)
			assert_true(de > 0);
		if (strcmp(all[i], "lttng/lost-packet") == 0)
			assert_true(dp > 0);
		if (strcmp(all[i], "lttng/may-discard") == 0)
			assert_true(may > 0);
	}
}

static void test_field_lookup(void **state)
{
	struct strata_ctf_reader *r = open_one("lttng/uid-ctx");
	struct strata_ctf_msg m;
	const char *s;
	uint32_t len;
	int64_t v;
	bool seen = false;

	(void)state;
	while (strata_ctf_reader_next(r, &m) == STRATA_CTF_OK) {
		if (m.type != STRATA_CTF_MSG_EVENT)
			continue;
		assert_true(strata_ctf_event_field_int(m.event, "vpid", &v));
		assert_true(v > 0);
		assert_true(strata_ctf_event_field_int(m.event, "cpu_id", &v));
		assert_true(strata_ctf_event_field_str(m.event, "procname", &s, &len));
		assert_true(len > 0 && len < 17);
		assert_false(strata_ctf_event_field_str(m.event, "vpid", &s, &len));
		assert_false(strata_ctf_event_field_int(m.event, "no_such_field", &v));
		assert_true(strata_ctf_event_env_str(m.event, "hostname", &s));
		assert_true(strata_ctf_event_env_int(m.event, "tracer_major", &v));
		assert_int_equal(v, 2);
		if (strcmp(strata_ctf_event_name(m.event), "rtest:ints") == 0) {
			assert_true(strata_ctf_event_field_int(m.event, "s8", &v));
			seen = true;
		}
	}
	assert_true(seen);
	assert_int_equal(strata_ctf_reader_trace_count(r), 1);
	strata_ctf_reader_destroy(r);
}

/*
 * babeltrace2 2.0.4 shows an empty string as the stale text of the recycled
 * event object (struct ctf_ec_pool). lttng/discard logs rtest:load events
 * with empty names among others: with bt_stale_strings, every name must
 * read as babeltrace2 prints it (checked when babeltrace2 is installed);
 * without, the empty ones read empty, as the trace holds them.
 */
static void test_stale_empty_strings(void **state)
{
	static const struct strata_ctf_reader_options stale = { .bt_stale_strings = true };
	struct strata_ctf_reader *r, *plain;
	struct strata_ctf_msg m, mp;
	char buf[1200], cmd[1400], line[8192];
	unsigned checked = 0, stale_read = 0;
	FILE *bt;

	(void)state;
	if (system("babeltrace2 --version >/dev/null 2>&1") != 0)
		skip();
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>/dev/null",
		 trace_path("lttng/discard", buf, sizeof(buf)));
	bt = popen(cmd, "r");
	assert_non_null(bt);
	r = open_opts("lttng/discard", &stale);
	while (strata_ctf_reader_next(r, &m) == STRATA_CTF_OK) {
		const char *s, *p, *q;
		uint32_t len;

		if (m.type != STRATA_CTF_MSG_EVENT)
			continue;
		assert_non_null(fgets(line, sizeof(line), bt));
		if (strcmp(strata_ctf_event_name(m.event), "rtest:load") != 0)
			continue;
		assert_true(strata_ctf_event_field_str(m.event, "name", &s, &len));
		p = strstr(line, ", name = \"");
		assert_non_null(p);
		p += 10;
		q = strchr(p, '"');
		assert_non_null(q);
		if ((size_t)(q - p) != len || memcmp(p, s, len) != 0)
			fail_msg("name differs from babeltrace2's: %.*s vs %s", (int)len, s, line);
		checked++;
	}
	pclose(bt);
	assert_true(checked > 100);
	strata_ctf_reader_destroy(r);

	/*
	 * gen/stale-strings has empty strings after non-empty ones: read
	 * without the option, they stay empty; a non-empty one reads the same.
	 */
	r = open_opts("gen/stale-strings", &stale);
	plain = open_one("gen/stale-strings");
	while (strata_ctf_reader_next(r, &m) == STRATA_CTF_OK) {
		const char *s, *ps;
		uint32_t len, plen;

		assert_int_equal(strata_ctf_reader_next(plain, &mp), STRATA_CTF_OK);
		if (m.type != STRATA_CTF_MSG_EVENT ||
		    !strata_ctf_event_field_str(m.event, "s", &s, &len))
			continue;
		assert_true(strata_ctf_event_field_str(mp.event, "s", &ps, &plen));
		if (plen)
			assert_true(plen == len && memcmp(ps, s, len) == 0);
		else
			stale_read += len != 0;
	}
	assert_int_equal(strata_ctf_reader_next(plain, &mp), STRATA_CTF_END);
	assert_true(stale_read > 10);
	strata_ctf_reader_destroy(r);
	strata_ctf_reader_destroy(plain);
}

static bool text_value(const struct ctf_value *v)
{
	const struct ctf_type *t = v->type;

	return t->kind == CTF_TYPE_STRING || (t->kind == CTF_TYPE_ARRAY && t->array.is_text) ||
	       (t->kind == CTF_TYPE_SEQUENCE && t->sequence.is_text);
}

/*
 * gen/stale-nested has empty text in structs, arrays, sequences and
 * variant options: with the model, some of those read as stale text (the
 * values below the top level included), and non-empty text reads the same.
 */
static void test_stale_nested_strings(void **state)
{
	static const struct strata_ctf_reader_options stale = { .bt_stale_strings = true };
	struct strata_ctf_reader *r = open_opts("gen/stale-nested", &stale);
	struct strata_ctf_reader *plain = open_one("gen/stale-nested");
	struct strata_ctf_msg m, mp;
	unsigned deep_stale = 0, kept = 0;

	(void)state;
	while (strata_ctf_reader_next(r, &m) == STRATA_CTF_OK) {
		assert_int_equal(strata_ctf_reader_next(plain, &mp), STRATA_CTF_OK);
		if (m.type != STRATA_CTF_MSG_EVENT)
			continue;
		for (int sc = CTF_SCOPE_STREAM_EVENT_CONTEXT; sc < CTF_SCOPE_COUNT; sc++) {
			const struct ctf_value *a = m.event->scope[sc], *b = mp.event->scope[sc];

			assert_true(!a == !b);
			for (uint32_t i = 0; a && i <= a->nsub; i++) {
				assert_int_equal(a[i].type->kind, b[i].type->kind);
				assert_int_equal(a[i].nsub, b[i].nsub);
				if (!text_value(&a[i]))
					continue;
				if (b[i].str.len) {
					assert_int_equal(a[i].str.len, b[i].str.len);
					assert_memory_equal(a[i].str.ptr, b[i].str.ptr,
							    b[i].str.len);
					kept++;
				} else if (a[i].str.len && i > 0) {
					/* Not a scope's own member: below the top level. */
					const struct ctf_value *c = a + 1;

					while (c < a + i)
						c += c->nsub + 1;
					deep_stale += c != a + i;
				}
			}
		}
	}
	assert_int_equal(strata_ctf_reader_next(plain, &mp), STRATA_CTF_END);
	assert_true(kept > 100);
	assert_true(deep_stale > 20);
	strata_ctf_reader_destroy(r);
	strata_ctf_reader_destroy(plain);
}

/* Rotation chunks share a UUID: two metadata files, one merged trace. */
static void test_rotation_merge(void **state)
{
	struct strata_ctf_reader *r;
	struct strata_ctf_msg m;
	char buf[1200];
	struct stat st;

	(void)state;
	if (stat(trace_path("lttng/rotation", buf, sizeof(buf)), &st) < 0)
		skip();
	r = open_one("lttng/rotation");
	assert_int_equal(strata_ctf_reader_trace_count(r), 2);
	while (strata_ctf_reader_next(r, &m) == STRATA_CTF_OK) {
		if (m.type != STRATA_CTF_MSG_EVENT)
			continue;
		const char *host;

		/* babeltrace2 names a merged trace after its host only. */
		assert_true(strata_ctf_event_env_str(m.event, "hostname", &host));
		assert_string_equal(m.event->trace->name, host);
	}
	strata_ctf_reader_destroy(r);
}

static void expect_bad(const char *rel, const char *what)
{
	struct strata_ctf_reader *r = NULL;
	struct strata_ctf_msg m;
	enum strata_ctf_status st;
	char buf[1200];
	const char *p = trace_path(rel, buf, sizeof(buf));
	char *err = NULL;
	const char *msg;
	int ret = strata_ctf_reader_create(&p, 1, NULL, &r, &err);

	if (ret < 0) {
		msg = err;
	} else {
		while ((st = strata_ctf_reader_next(r, &m)) == STRATA_CTF_OK)
			;
		assert_int_equal(st, STRATA_CTF_ERROR);
		/* Malformed data, not a failed read: `strata view` exits 3, not 2. */
		assert_int_equal(strata_ctf_reader_last_code(r), -STRATA_ESTREAM);
		msg = strata_ctf_reader_last_error(r);
	}
	if (!msg || !strstr(msg, rel) || !strstr(msg, what))
		fail_msg("%s: unexpected error: %s", rel, msg ? msg : "(null)");
	free(err);
	strata_ctf_reader_destroy(r);
}

static void test_bad_traces(void **state)
{
	(void)state;
	expect_bad("bad/truncated", "byte offset");
	expect_bad("bad/content-gt-packet", "larger than packet size");
	expect_bad("bad/packet-beyond-file", "past the end of the file");
	expect_bad("bad/bad-magic", "bad packet magic");
	expect_bad("bad/unknown-event-id", "unknown event class id 99");
	expect_bad("bad/metadata-syntax", "metadata");
}

static void test_no_trace(void **state)
{
	char dir[] = "/tmp/strata-no-trace-XXXXXX";
	const char *p = dir;
	struct strata_ctf_reader *r = NULL;
	char *err = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(strata_ctf_reader_create(&p, 1, NULL, &r, &err), -STRATA_ENOTRACE);
	assert_null(r);
	assert_non_null(err);
	assert_non_null(strstr(err, dir));
	free(err);
	rmdir(dir);
}

/* The whole file as a string (plain-text metadata). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * strata_ctf_metadata_text(): the text as the file holds it, packets
 * joined; text that does not parse is still returned, with why; one trace
 * below a directory is found, several are refused.
 */
static void test_metadata_text(void **state)
{
	char buf[1200], file[1300];
	char *text, *err, *want;

	(void)state;
	assert_int_equal(
		strata_ctf_metadata_text(trace_path("gen/minimal", buf, sizeof(buf)), &text, &err),
		0);
	assert_null(err);
	snprintf(file, sizeof(file), "%s/metadata", buf);
	want = slurp(file);
	assert_string_equal(text, want);
	free(want);
	free(text);

	/* Packetized, below the directory given: the packets' text, joined. */
	assert_int_equal(strata_ctf_metadata_text(trace_path("lttng/discard", buf, sizeof(buf)),
						  &text, &err),
			 0);
	assert_true(strncmp(text, "/* CTF 1.8 */", 13) == 0);
	assert_non_null(strstr(text, "event {"));
	assert_null(strstr(text, "\x57\x1d\xd1\x75"));
	free(text);

	assert_int_equal(strata_ctf_metadata_text(
				 trace_path("bad/metadata-syntax", buf, sizeof(buf)), &text, &err),
			 1);
	assert_non_null(strstr(err, "metadata:8: "));
	snprintf(file, sizeof(file), "%s/metadata", buf);
	want = slurp(file);
	assert_string_equal(text, want);
	free(want);
	free(text);
	free(err);

	assert_int_equal(strata_ctf_metadata_text(trace_path("bad/no-signature", buf, sizeof(buf)),
						  &text, &err),
			 -STRATA_EMETADATA);
	assert_null(text);
	assert_non_null(strstr(err, "signature"));
	free(err);

	assert_int_equal(
		strata_ctf_metadata_text(trace_path("lttng", buf, sizeof(buf)), &text, &err),
		-ENOTUNIQ);
	assert_null(text);
	assert_non_null(strstr(err, "traces: give one trace directory"));
	free(err);

	assert_int_equal(strata_ctf_metadata_text("/nonexistent/strata", &text, &err),
			 -STRATA_ENOTRACE);
	assert_null(text);
	free(err);
	/* The message is optional. */
	assert_int_equal(strata_ctf_metadata_text("/nonexistent/strata", &text, NULL),
			 -STRATA_ENOTRACE);
}

/* --clock-offset-ns moves every time by the same amount. */
static void test_clock_offset_option(void **state)
{
	struct strata_ctf_reader_options o = { .clock_offset_s = 1, .clock_offset_ns = -250 };
	struct strata_ctf_reader *a = open_one("gen/compact-wrap"), *b = NULL;
	struct strata_ctf_msg ma, mb;
	char buf[1200];
	const char *p = trace_path("gen/compact-wrap", buf, sizeof(buf));

	(void)state;
	assert_int_equal(strata_ctf_reader_create(&p, 1, &o, &b, NULL), 0);
	while (strata_ctf_reader_next(a, &ma) == STRATA_CTF_OK) {
		assert_int_equal(strata_ctf_reader_next(b, &mb), STRATA_CTF_OK);
		if (ma.type == STRATA_CTF_MSG_EVENT)
			assert_int_equal(strata_ctf_event_ns(mb.event) -
						 strata_ctf_event_ns(ma.event),
					 999999750);
	}
	strata_ctf_reader_destroy(a);
	strata_ctf_reader_destroy(b);
}

/* Everything two readers of the same input return, compared message by message. */
static void compare_readers2(const char *rel, const char *rel2,
			     const struct strata_ctf_reader_options *oa,
			     const struct strata_ctf_reader_options *ob, unsigned *ret_events)
{
	struct strata_ctf_reader *a = NULL, *b = NULL;
	char buf[1600], buf2[1600], *ea = NULL, *eb = NULL;
	const char *p[2] = { trace_path(rel, buf, sizeof(buf)),
			     rel2 ? trace_path(rel2, buf2, sizeof(buf2)) : NULL };
	int ra = strata_ctf_reader_create(p, rel2 ? 2 : 1, oa, &a, &ea);
	int rb = strata_ctf_reader_create(p, rel2 ? 2 : 1, ob, &b, &eb);

	assert_int_equal(ra, rb);
	if (ra < 0) {
		assert_string_equal(ea, eb);
		free(ea);
		free(eb);
		return;
	}
	for (;;) {
		struct strata_ctf_msg ma, mb;
		enum strata_ctf_status sa = strata_ctf_reader_next(a, &ma);
		enum strata_ctf_status sb = strata_ctf_reader_next(b, &mb);

		assert_int_equal(sa, sb);
		if (sa == STRATA_CTF_ERROR)
			assert_string_equal(strata_ctf_reader_last_error(a),
					    strata_ctf_reader_last_error(b));
		if (sa != STRATA_CTF_OK)
			break;
		assert_int_equal(ma.type, mb.type);
		if (ma.type != STRATA_CTF_MSG_EVENT) {
			assert_true(ma.discarded.count == mb.discarded.count);
			assert_int_equal(ma.discarded.has_range, mb.discarded.has_range);
			assert_true(ma.discarded.begin_ns == mb.discarded.begin_ns);
			assert_true(ma.discarded.end_ns == mb.discarded.end_ns);
			assert_string_equal(ma.discarded.stream_path, mb.discarded.stream_path);
			continue;
		}
		(*ret_events)++;
		assert_true(ma.event->ec->id == mb.event->ec->id);
		assert_int_equal(ma.event->has_clock, mb.event->has_clock);
		assert_true(ma.event->cycles == mb.event->cycles);
		assert_true(ma.event->ns == mb.event->ns);
		for (int s = 0; s < CTF_SCOPE_COUNT; s++) {
			assert_true(!ma.event->scope[s] == !mb.event->scope[s]);
			if (ma.event->scope[s])
				values_equal(ma.event->scope[s], mb.event->scope[s]);
		}
	}
	strata_ctf_reader_destroy(a);
	strata_ctf_reader_destroy(b);
}

static void compare_readers(const char *rel, const struct strata_ctf_reader_options *oa,
			    const struct strata_ctf_reader_options *ob, unsigned *ret_events)
{
	compare_readers2(rel, NULL, oa, ob, ret_events);
}

/* Every trace of the corpus, well-formed or not, with the options a and b. */
static void compare_corpus(const struct strata_ctf_reader_options *oa,
			   const struct strata_ctf_reader_options *ob)
{
	static const char *const dirs[] = { "gen", "lttng", "bad" };
	unsigned events = 0;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char path[1200];
		struct dirent *de;
		DIR *d;

		d = opendir(trace_path(dirs[i], path, sizeof(path)));
		assert_non_null(d);
		while ((de = readdir(d))) {
			char rel[512];

			if (de->d_name[0] == '.')
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", dirs[i], de->d_name);
			compare_readers(rel, oa, ob, &events);
		}
		closedir(d);
	}
	assert_true(events > 1000);
}

/*
 * The compiled decode programs (static field paths, flattened structs,
 * runs, inline strings) against the generic tree walk: every value of
 * every event, and the same errors on the malformed traces.
 */
static void test_programs_match_tree_walk(void **state)
{
	struct strata_ctf_reader_options walk = { .generic_decode = true };

	(void)state;
	compare_corpus(NULL, &walk);
}

/*
 * Worker threads decoding ahead (decode-ahead.h) change nothing: the same
 * messages, recycled stale strings and errors, with one worker or several
 * (most corpus traces have two to eight streams).
 */
static void test_decode_threads_same(void **state)
{
	/* With the recycled-object model, which the threads must keep in order. */
	struct strata_ctf_reader_options one = { .bt_stale_strings = true };
	struct strata_ctf_reader_options two = { .decode_threads = 2, .bt_stale_strings = true };
	struct strata_ctf_reader_options four = { .decode_threads = 4, .bt_stale_strings = true };

	static const char *const bad[] = {
		"bad/truncated",	"bad/event-past-content", "bad/string-past-content",
		"bad/unknown-event-id", "bad/variant-no-option",  "bad/huge-sequence",
		"bad/bad-magic"
	};
	unsigned events = 0;

	(void)state;
	compare_corpus(&one, &two);
	compare_corpus(&one, &four);
	/* A malformed stream decoded by a worker, then by the caller's thread. */
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		compare_readers2("gen/minimal", bad[i], &one, &two, &events);
		compare_readers2(bad[i], "gen/minimal", &one, &two, &events);
	}
	assert_true(events > 0);
}

/* What a reader yields but its events: notices, then how it ended. */
struct notices {
	struct strata_ctf_msg msg[64];
	char path[64][256]; /* msg[k]'s stream path: the reader's own is gone */
	unsigned n, events;
	enum strata_ctf_status end;
	int code;
	char err[512];
};

static void read_notices(const char *rel, const struct strata_ctf_reader_options *opts,
			 bool skip_events, struct notices *out)
{
	struct strata_ctf_reader *r = open_opts(rel, opts);
	struct strata_ctf_msg msg;

	memset(out, 0, sizeof(*out));
	for (;;) {
		out->end = skip_events ? strata_ctf_reader_next_notice(r, &msg) :
					 strata_ctf_reader_next(r, &msg);
		if (out->end != STRATA_CTF_OK)
			break;
		if (msg.type == STRATA_CTF_MSG_EVENT) {
			assert_false(skip_events);
			out->events++;
			continue;
		}
		assert_true(out->n < ARRAY_SIZE(out->msg));
		snprintf(out->path[out->n], sizeof(out->path[0]), "%s", msg.discarded.stream_path);
		out->msg[out->n++] = msg;
	}
	out->code = strata_ctf_reader_last_code(r);
	snprintf(out->err, sizeof(out->err), "%s", strata_ctf_reader_last_error(r));
	strata_ctf_reader_destroy(r);
}

/*
 * strata_ctf_reader_next_notice() yields what strata_ctf_reader_next()
 * yields but the events, with the same end or error, time ranges included.
 */
static void test_next_notice(void **state)
{
	static const char *const list[] = {
		"lttng/discard",
		"lttng/lost-packet",
		"lttng/may-discard",
		"lttng/snapshot",
		"gen/merge",
		"bad/truncated",
		"bad/event-past-content",
		"bad/unknown-event-id",
		"bad/time-back",
	};
	struct strata_ctf_reader_options ranges[2] = { { 0 } };
	static struct notices all, skip;
	unsigned total = 0;

	(void)state;
	/* A range: from 1 ns after the origin of time to far ahead, both cut. */
	ranges[1].begin = (struct strata_ctf_bound){ .set = true, .ns = 1 };
	ranges[1].end = (struct strata_ctf_bound){ .set = true, .ns = INT64_MAX / 2 };
	for (size_t i = 0; i < ARRAY_SIZE(list); i++) {
		for (size_t o = 0; o < ARRAY_SIZE(ranges); o++) {
			if (o && strncmp(list[i], "bad/", 4) == 0)
				continue; /* a range needs packet times to open */
			read_notices(list[i], &ranges[o], false, &all);
			read_notices(list[i], &ranges[o], true, &skip);
			assert_int_equal(skip.end, all.end);
			assert_int_equal(skip.code, all.code);
			assert_string_equal(skip.err, all.err);
			assert_int_equal(skip.n, all.n);
			for (unsigned k = 0; k < all.n; k++) {
				const struct strata_ctf_discarded *a = &all.msg[k].discarded,
								  *b = &skip.msg[k].discarded;

				assert_int_equal(skip.msg[k].type, all.msg[k].type);
				assert_true(a->count == b->count && a->has_range == b->has_range);
				assert_true(a->begin_ns == b->begin_ns && a->end_ns == b->end_ns);
				assert_string_equal(all.path[k], skip.path[k]);
			}
			total += all.n;
		}
	}
	/* The corpus has notices to compare, and bad traces end in errors. */
	assert_true(total > 4);
}

/* Copies file src to dst; returns 0 or -1. */
static int copy_file(const char *src, const char *dst)
{
	char buf[4096];
	size_t n;
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	int ret = in && out ? 0 : -1;

	while (ret == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		ret = -1;
	return ret;
}

/*
 * A stream file that cannot be read once the trace is open (here it became
 * a directory) stops the reader with the system's error, not as malformed
 * data, and the description names the file.
 */
static void test_read_failure_code(void **state)
{
	char dir[] = "/tmp/strata-readfail-XXXXXX", src[1200], dst[1200], stream[1200];
	struct strata_ctf_reader *r = NULL;
	struct strata_ctf_msg msg;
	const char *p = dir;
	char *err = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(dst, sizeof(dst), "%s/metadata", dir);
	assert_int_equal(copy_file(trace_path("gen/minimal/metadata", src, sizeof(src)), dst), 0);
	snprintf(stream, sizeof(stream), "%s/only", dir);
	assert_int_equal(copy_file(trace_path("gen/minimal/only", src, sizeof(src)), stream), 0);
	assert_int_equal(strata_ctf_reader_create(&p, 1, NULL, &r, &err), 0);
	assert_int_equal(strata_ctf_reader_last_code(r), 0);
	assert_int_equal(unlink(stream), 0);
	assert_int_equal(mkdir(stream, 0700), 0);
	assert_int_equal(strata_ctf_reader_next(r, &msg), STRATA_CTF_ERROR);
	assert_int_equal(strata_ctf_reader_last_code(r), -EISDIR);
	if (!strstr(strata_ctf_reader_last_error(r), stream))
		fail_msg("error does not name the file: %s", strata_ctf_reader_last_error(r));
	strata_ctf_reader_destroy(r);
	assert_int_equal(rmdir(stream), 0);
	assert_int_equal(unlink(dst), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const char *src = getenv("STRATA_SOURCE_ROOT");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_le_be_same),
		cmocka_unit_test(test_corpus_reads),
		cmocka_unit_test(test_field_lookup),
		cmocka_unit_test(test_bad_traces),
		cmocka_unit_test(test_no_trace),
		cmocka_unit_test(test_metadata_text),
		cmocka_unit_test(test_clock_offset_option),
		cmocka_unit_test(test_stale_empty_strings),
		cmocka_unit_test(test_stale_nested_strings),
		cmocka_unit_test(test_rotation_merge),
		cmocka_unit_test(test_programs_match_tree_walk),
		cmocka_unit_test(test_decode_threads_same),
		cmocka_unit_test(test_read_failure_code),
		cmocka_unit_test(test_next_notice),
	};

	snprintf(traces, sizeof(traces), "%s/tests/traces", src ? src : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
