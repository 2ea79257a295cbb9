/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the CTF stream decoder: the first input byte picks one of
 * a few built-in metadata texts (LTTng UST large header, kernel-style
 * compact header with variants, big-endian bit-fields), the rest is written
 * as the trace's only stream file; then every message is read. Any outcome
 * but a crash or a sanitizer report is fine.
 *
 * Two bits of the first byte widen it: 0x80 cuts the rest in two stream
 * files at the offset bytes 1-2 give (the merge of two streams: ties,
 * discarded notices, refills), 0x40 has a worker thread decode ahead
 * (reader option decode_threads = 2, its ring and key hand-off).
 *
 * The low six bits pick the metadata modulo 3; their quotient, when not 0,
 * sets a time range (begin, end, both; absolute or times of day, which
 * read the first batches and rewind the streams), its ends taken from the
 * input's last 8 bytes around the metadata's clock offset.
 *
 * Without a range or a worker, the input is also read in 2 and 3 slices of
 * its timeline (strata_ctf_reader_slice()) and printed as text: when every
 * slice succeeds, the whole reading must succeed and print the same bytes,
 * or the target aborts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strata/ctf.h>

#include "common/common.h"

static const char meta_ust[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"trace { major = 1; minor = 8; uuid = \"5887661f-c6a1-401c-b5c6-7da1597a8d24\";\n"
	"  byte_order = le;\n"
	"  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;\n"
	"    uint64_t stream_instance_id; }; };\n"
	"env { hostname = \"fz\"; domain = \"ust\"; tracer_name = \"lttng-ust\"; tracer_major = 2;\n"
	"  tracer_minor = 13; };\n"
	"clock { name = \"monotonic\"; freq = 1000000000; offset = 1796278581571687245; };\n"
	"typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; }\n"
	"  := uint32_clock_monotonic_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }\n"
	"  := uint64_clock_monotonic_t;\n"
	"struct packet_context { uint64_clock_monotonic_t timestamp_begin;\n"
	"  uint64_clock_monotonic_t timestamp_end; uint64_t content_size; uint64_t packet_size;\n"
	"  uint64_t packet_seq_num; uint64_t events_discarded; uint32_t cpu_id; };\n"
	"struct event_header_large { enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
	"  variant <id> { struct { uint32_clock_monotonic_t timestamp; } compact;\n"
	"  struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v; } align(8);\n"
	"stream { id = 0; event.header := struct event_header_large;\n"
	"  packet.context := struct packet_context;\n"
	"  event.context := struct { integer { size = 32; align = 8; signed = 1; } _vpid;\n"
	"    integer { size = 8; align = 8; signed = 1; encoding = UTF8; } _procname[17]; }; };\n"
	"event { name = \"t:ints\"; id = 0; stream_id = 0; loglevel = 13;\n"
	"  fields := struct { integer { size = 8; align = 8; signed = 1; } _s8;\n"
	"    integer { size = 64; align = 8; signed = 0; base = 16; } _h64;\n"
	"    integer { size = 16; align = 8; signed = 0; byte_order = be; } _n16; }; };\n"
	"event { name = \"t:str\"; id = 1; stream_id = 0;\n"
	"  fields := struct { string _s; integer { size = 8; align = 8; signed = 0; encoding = UTF8; } _t[4];\n"
	"    uint32_t __q_length; integer { size = 8; align = 8; signed = 0; encoding = UTF8; } _q[ __q_length ];\n"
	"    uint16_t __n_length; uint32_t _n[ __n_length ];\n"
	"    floating_point { exp_dig = 8; mant_dig = 24; align = 8; } _f;\n"
	"    floating_point { exp_dig = 11; mant_dig = 53; align = 8; } _d;\n"
	"    enum : uint8_t { \"A\" = 0, \"B\" = 1 ... 9 } _e; }; };\n"
	"event { name = \"t:empty\"; id = 2; stream_id = 0; fields := struct { }; };\n";

static const char meta_compact[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	"trace { major = 1; minor = 8; byte_order = le;\n"
	"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
	"env { hostname = \"k\"; domain = \"kernel\"; };\n"
	"clock { name = \"monotonic\"; freq = 1000; offset_s = 100; };\n"
	"typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; }\n"
	"  := uint27_clock_monotonic_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }\n"
	"  := uint64_clock_monotonic_t;\n"
	"struct event_header_compact { enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
	"  variant <id> { struct { uint27_clock_monotonic_t timestamp; } compact;\n"
	"  struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended; } v; } align(8);\n"
	"stream { id = 0; event.header := struct event_header_compact;\n"
	"  packet.context := struct { uint64_clock_monotonic_t timestamp_begin;\n"
	"    uint64_clock_monotonic_t timestamp_end; uint32_t content_size; uint32_t packet_size;\n"
	"    uint64_t packet_seq_num; uint32_t events_discarded; }; };\n"
	"stream { id = 1; packet.context := struct { uint32_t packet_size; }; };\n"
	"event { name = \"k:var\"; id = 0; stream_id = 0;\n"
	"  fields := struct { enum : uint8_t { a, b, c } _tag;\n"
	"    variant <_tag> { uint32_t a; string b; struct { uint8_t x; uint64_t y; } c; } _v;\n"
	"    struct { uint8_t __l_length; uint32_t _l[__l_length]; } _st; }; };\n"
	"event { name = \"k:arr\"; id = 40; stream_id = 0;\n"
	"  fields := struct { uint8_t _m[2][3]; string _names[2]; }; };\n"
	"event { name = \"k:other\"; stream_id = 1; fields := struct { uint32_t _x; }; };\n";

static const char meta_be[] =
	"/* CTF 1.8 */\n"
	"trace { major = 1; minor = 8; byte_order = be;\n"
	"  packet.header := struct { integer { size = 32; align = 8; } magic; }; };\n"
	"clock { name = c; freq = 1234567; offset_s = -3; };\n"
	"stream { packet.context := struct {\n"
	"    integer { size = 64; align = 8; map = clock.c.value; } timestamp_begin;\n"
	"    integer { size = 64; align = 8; map = clock.c.value; } timestamp_end;\n"
	"    integer { size = 32; align = 8; } content_size;\n"
	"    integer { size = 32; align = 8; } packet_size; };\n"
	"  event.header := struct { integer { size = 3; align = 1; } id;\n"
	"    integer { size = 13; align = 1; map = clock.c.value; } timestamp; }; };\n"
	"event { name = bits; id = 0;\n"
	"  fields := struct { integer { size = 3; align = 1; signed = true; } a;\n"
	"    integer { size = 5; align = 1; base = 2; } b; integer { size = 12; align = 1; base = 8; } c;\n"
	"    integer { size = 4; align = 1; signed = true; base = 16; } d;\n"
	"    integer { size = 61; align = 1; byte_order = le; } e; }; };\n"
	"event { name = nest; id = 1;\n"
	"  fields := struct { enum : integer { size = 2; align = 1; } { X, Y, Z } t;\n"
	"    variant <t> { integer { size = 7; align = 1; } X;\n"
	"      struct { integer { size = 9; align = 1; } p; integer { size = 1; align = 1; } q; } Y;\n"
	"      string Z; } v;\n"
	"    integer { size = 4; align = 1; } n; integer { size = 4; align = 1; } s[n]; }; };\n";

static const char *const metas[] = { meta_ust, meta_compact, meta_be };
/* About where each metadata's clock starts, in ns from the epoch. */
static const int64_t clock_base[] = { INT64_C(1796278581571687245), INT64_C(100000000000),
				      INT64_C(-3000000000) };

/* A time range from mode (1 to 21) and the input's last 8 bytes. */
static void set_range(struct strata_ctf_reader_options *o, unsigned mode, unsigned which,
		      const uint8_t *data, size_t size)
{
	int32_t a = 0, b = 0;

	if (size >= 9) {
		memcpy(&a, data + size - 8, 4);
		memcpy(&b, data + size - 4, 4);
	}
	if (mode & 4) {
		/* Times of day: whatever day the first packet says. */
		o->begin =
			(struct strata_ctf_bound){ .set = true,
						   .time_of_day = true,
						   .hour = (uint8_t)((uint32_t)a % 100),
						   .minute = (uint8_t)((uint32_t)a / 100 % 100),
						   .second = (uint8_t)((uint32_t)a / 10000 % 100),
						   .ns = (uint32_t)b % 1000000000 };
		o->end = o->begin;
		o->end.hour = (uint8_t)((o->begin.hour + (uint32_t)b % 5) % 100);
	} else {
		/* Microseconds around the clock's start. */
		o->begin = (struct strata_ctf_bound){ .set = true,
						      .ns = clock_base[which] + (int64_t)a * 1000 };
		o->end = (struct strata_ctf_bound){
			.set = true, .ns = o->begin.ns + (int64_t)(uint32_t)b * 1000
		};
	}
	o->bounds_gmt = mode & 8;
	if (!(mode & 1))
		o->begin.set = false;
	if (!(mode & 2))
		o->end.set = false;
}
static char dirs[ARRAY_SIZE(metas)][64];

static void cleanup(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(metas); i++) {
		char p[256];

		if (!dirs[i][0])
			continue;
		snprintf(p, sizeof(p), "%s/metadata", dirs[i]);
		unlink(p);
		snprintf(p, sizeof(p), "%s/stream", dirs[i]);
		unlink(p);
		snprintf(p, sizeof(p), "%s/stream2", dirs[i]);
		unlink(p);
		rmdir(dirs[i]);
	}
}

static int write_all(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const uint8_t *p = data;

	if (fd < 0)
		return -errno;
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0) {
			close(fd);
			return -EIO;
		}
		p += n;
		size -= (size_t)n;
	}
	close(fd);
	return 0;
}

static int setup(void)
{
	static bool done;

	if (done)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(metas); i++) {
		char p[256];

		snprintf(dirs[i], sizeof(dirs[i]), "/tmp/strata-fuzz-stream-XXXXXX");
		if (!mkdtemp(dirs[i]))
			return -errno;
		snprintf(p, sizeof(p), "%s/metadata", dirs[i]);
		if (write_all(p, metas[i], strlen(metas[i])) < 0)
			return -EIO;
	}
	atexit(cleanup);
	done = true;
	return 0;
}

/* The text of every message of r (slice k of n when n > 1): 0, or 1 when reading failed. */
static int read_text(const char *path, unsigned k, unsigned n, struct strata_ctf_pretty *p,
		     struct strata_ctf_reader **keep)
{
	struct strata_ctf_reader_options opts = { 0 };
	struct strata_ctf_reader *r;
	struct strata_ctf_msg msg;
	enum strata_ctf_status st = STRATA_CTF_ERROR;

	if (strata_ctf_reader_create(&path, 1, &opts, &r, NULL) < 0)
		return 1;
	*keep = r; /* the printer caches by trace: it lives until printing ends */
	if (n > 1 && strata_ctf_reader_slice(r, k, n) < 0)
		return 1;
	for (unsigned i = 0; i < 100000; i++) {
		st = strata_ctf_reader_next(r, &msg);
		if (st != STRATA_CTF_OK)
			break;
		if (strata_ctf_pretty_print(p, &msg) < 0)
			return 1;
	}
	return st == STRATA_CTF_END ? 0 : 1;
}

/* Slices that all succeed must print what the whole reading prints. */
static void check_slices(const char *path, unsigned n)
{
	struct strata_ctf_pretty_options po = { 0 };
	struct strata_ctf_reader *readers[4] = { NULL };
	char *text[2] = { NULL }, *err[2] = { NULL };
	size_t n_text[2] = { 0 }, n_err[2] = { 0 };
	int failed[2] = { 0 };

	for (int w = 0; w < 2; w++) {
		FILE *out = open_memstream(&text[w], &n_text[w]);
		FILE *er = open_memstream(&err[w], &n_err[w]);
		struct strata_ctf_pretty *p =
			out && er ? strata_ctf_pretty_create(&po, out, er) : NULL;

		if (!p) {
			failed[0] = failed[1] = 1;
		} else if (w == 0) {
			failed[0] = read_text(path, 0, 1, p, &readers[0]);
		} else {
			for (unsigned k = 0; k < n && !failed[1]; k++)
				failed[1] = read_text(path, k, n, p, &readers[1 + k]);
		}
		strata_ctf_pretty_destroy(p);
		if (out)
			fclose(out);
		if (er)
			fclose(er);
		for (unsigned i = 0; i < ARRAY_SIZE(readers); i++) {
			strata_ctf_reader_destroy(readers[i]);
			readers[i] = NULL;
		}
	}
	if (!failed[1] && (failed[0] || n_text[0] != n_text[1] || n_err[0] != n_err[1] ||
			   memcmp(text[0], text[1], n_text[0]) || memcmp(err[0], err[1], n_err[0])))
		abort();
	for (int w = 0; w < 2; w++) {
		free(text[w]);
		free(err[w]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* As `strata view` reads to print: the recycled-object model too. */
	struct strata_ctf_reader_options opts = { .bt_stale_strings = true };
	struct strata_ctf_reader *r = NULL;
	struct strata_ctf_msg msg;
	const char *path;
	char sp[256], sp2[256];
	size_t head = 1, cut = size;
	unsigned which;
	int64_t v;

	if (size < 1 || setup() < 0)
		return 0;
	which = (data[0] & 0x3f) % ARRAY_SIZE(metas);
	if ((data[0] & 0x3f) / ARRAY_SIZE(metas))
		set_range(&opts, (data[0] & 0x3f) / ARRAY_SIZE(metas), which, data, size);
	if (data[0] & 0x40)
		opts.decode_threads = 2;
	if ((data[0] & 0x80) && size >= 3) {
		head = 3;
		cut = head + ((size_t)data[1] | (size_t)data[2] << 8) % (size - head + 1);
	}
	path = dirs[which];
	snprintf(sp, sizeof(sp), "%s/stream", path);
	snprintf(sp2, sizeof(sp2), "%s/stream2", path);
	if (write_all(sp, data + head, cut - head) < 0)
		return 0;
	if (cut < size) {
		if (write_all(sp2, data + cut, size - cut) < 0)
			return 0;
	} else {
		unlink(sp2);
	}
	if (strata_ctf_reader_create(&path, 1, &opts, &r, NULL) < 0)
		return 0;
	for (unsigned n = 0; n < 100000; n++) {
		if (strata_ctf_reader_next(r, &msg) != STRATA_CTF_OK)
			break;
		if (msg.type == STRATA_CTF_MSG_EVENT) {
			const char *s;
			uint32_t len;

			/* Touch what a printer would read. */
			(void)strata_ctf_event_field_int(msg.event, "s8", &v);
			if (strata_ctf_event_field_str(msg.event, "q", &s, &len) && len)
				v += s[len - 1];
			(void)strata_ctf_event_name(msg.event);
		}
	}
	strata_ctf_reader_destroy(r);
	if (!opts.begin.set && !opts.end.set && !opts.decode_threads) {
		check_slices(path, 2);
		check_slices(path, 3);
	}
	return 0;
}
