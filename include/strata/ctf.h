/* SPDX-License-Identifier: MIT */
/*
 * libstrata-ctf: read CTF 1.8 traces (strata's and LTTng's) and print them
 * as babeltrace2 2.0.4's sink.text.pretty does.
 *
 * A strata_ctf_reader opens one or more paths, finds every trace below them
 * (a directory holding a `metadata` file), maps their stream files and yields
 * one timestamp-ordered sequence of messages: events, and discarded-event /
 * discarded-packet notices, merged across all streams of all traces with the
 * tie-breaking rules of babeltrace2's muxer.
 *
 * Memory is O(streams): stream files are mmap'd, and decoding an event
 * allocates nothing. A message and everything borrowed from it stay valid
 * until the next call to strata_ctf_reader_next() on the same reader.
 *
 * Thread-safety: a reader is used by one thread at a time.
 * Errors: negative -errno or -STRATA_E* (see <strata/error.h>);
 * strata_ctf_reader_last_error() describes the last failure with the file
 * and byte offset involved.
 */
#ifndef STRATA_CTF_H
#define STRATA_CTF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strata_ctf_reader;
struct strata_ctf_event;

/*
 * One end of a time range, as babeltrace2 2.0.4's trimmer takes it
 * (`--begin`, `--end`): see strata_ctf_bound_parse().
 */
struct strata_ctf_bound {
	bool set;
	/*
	 * A time of day, hour:minute:second.ns as written (each up to 99):
	 * the date is the one of the first message that has a time, in the
	 * local time zone or UTC (bounds_gmt).
	 */
	bool time_of_day;
	uint8_t hour, minute, second;
	int64_t ns; /* from the clocks' origin (the Unix epoch); time of day: below 1 s */
};

struct strata_ctf_reader_options {
	/* Added to every clock's offset (babeltrace2 --clock-offset/-ns). */
	int64_t clock_offset_s;
	int64_t clock_offset_ns;
	/* Treat every clock as absolute (babeltrace2 --clock-force-correlate). */
	bool force_correlate;
	/*
	 * Decode every field on its own with the generic tree walk instead of
	 * the compiled decode programs and runs: slower, the same messages;
	 * the reference the tests compare the fast paths with.
	 */
	bool generic_decode;
	/*
	 * Worker threads decoding streams ahead of the caller (at most one per
	 * stream; 0 or 1: none, everything runs in the caller's thread). The
	 * messages are the same; wall time drops, CPU time rises a little.
	 */
	unsigned decode_threads;
	/*
	 * Read strings as babeltrace2 2.0.4 prints them: it recycles event
	 * objects, and a string (or text array or sequence) decoded empty
	 * keeps the text its field object held in the object's previous use
	 * (fields in structs, array and sequence elements and variant options
	 * included). With this set, the reader models those objects and such a
	 * string reads as that stale text; text output then matches
	 * babeltrace2's byte for byte. Off (the default), every string reads
	 * as the trace holds it, and the model costs nothing.
	 */
	bool bt_stale_strings;
	/*
	 * Keep only the messages of a time range, both ends included, as
	 * babeltrace2 2.0.4 does with --begin/--end: what precedes begin is
	 * skipped up to the first message at or after it, everything stops at
	 * the first message after end, and a discarded-events/packets notice
	 * straddling an end is cut there, its count then unknown. Every stream
	 * must have a clock and packets with beginning and end times, else
	 * strata_ctf_reader_create() fails with -EINVAL. bounds_gmt: a time of
	 * day is in UTC rather than the local time zone.
	 */
	struct strata_ctf_bound begin, end;
	bool bounds_gmt;
};

/*
 * Parse a time as babeltrace2's trimmer does: "YYYY-MM-DD hh:mm[:ss[.ns]]"
 * and "YYYY-MM-DD" (local time, or UTC when gmt), "hh:mm[:ss[.ns]]" (a time
 * of day, see struct strata_ctf_bound) or "[-]SECONDS[.ns]" from the epoch,
 * with 1 to 9 digits of fraction (".5" is half a second). Returns 0, or
 * -EINVAL for another format and -ERANGE for a time out of range (before
 * the epoch for dates, or past what 64-bit nanoseconds hold), *ret
 * untouched then.
 */
int strata_ctf_bound_parse(const char *text, bool gmt, struct strata_ctf_bound *ret);

enum strata_ctf_status {
	STRATA_CTF_OK = 0,
	STRATA_CTF_END = 1,
	STRATA_CTF_ERROR = -1,
	/* Live readers only: a stream needs its next packet (see "live input"). */
	STRATA_CTF_AGAIN = 2,
};

enum strata_ctf_msg_type {
	STRATA_CTF_MSG_EVENT,
	STRATA_CTF_MSG_DISCARDED_EVENTS,
	STRATA_CTF_MSG_DISCARDED_PACKETS,
};

struct strata_ctf_discarded {
	uint64_t count; /* 0: unknown ("may have discarded") */
	bool has_range;
	int64_t begin_ns; /* from origin, valid when has_range */
	int64_t end_ns;
	const char *trace_name; /* babeltrace2's trace name, e.g. "vm/ust/uid/0/64-bit" */
	const uint8_t *trace_uuid; /* 16 bytes or NULL */
	const char *stream_path; /* absolute normalized path of the stream's first file */
	uint64_t stream_class_id;
	bool has_stream_id;
	uint64_t stream_id;
};

struct strata_ctf_msg {
	enum strata_ctf_msg_type type;
	const struct strata_ctf_event *event; /* STRATA_CTF_MSG_EVENT */
	struct strata_ctf_discarded discarded; /* the other two */
};

/*
 * Open every CTF trace found at or below paths[0..n_paths). Fails with
 * -STRATA_ENOTRACE when none is found, -STRATA_EMETADATA / -STRATA_ESTREAM
 * on malformed input (last_error names the file and offset).
 * On failure *ret_reader is untouched and, if ret_errmsg is not NULL, it
 * receives a malloc'd description the caller frees.
 */
int strata_ctf_reader_create(const char *const *paths, unsigned n_paths,
			     const struct strata_ctf_reader_options *opts,
			     struct strata_ctf_reader **ret_reader, char **ret_errmsg);

/* NULL-tolerant. */
void strata_ctf_reader_destroy(struct strata_ctf_reader *reader);

/*
 * Next message in timestamp order. Returns STRATA_CTF_OK and fills *msg,
 * STRATA_CTF_END when every stream is exhausted, STRATA_CTF_ERROR on a
 * decoding error (see last_error; the reader cannot continue).
 */
enum strata_ctf_status strata_ctf_reader_next(struct strata_ctf_reader *reader,
					      struct strata_ctf_msg *msg);

/*
 * strata_ctf_reader_next() that decodes events without returning them:
 * the next message that is not an event (a discarded-events or
 * discarded-packets notice), every event before it decoded and dropped,
 * with the same checks and errors. For a pass that only validates a trace
 * or counts its losses, as `strata view --decode-only` does; mixing both
 * calls on one reader is allowed.
 */
enum strata_ctf_status strata_ctf_reader_next_notice(struct strata_ctf_reader *reader,
						     struct strata_ctf_msg *msg);

/*
 * Restrict a reader that has not started to slice k of n of the timeline,
 * to read a large trace on n threads with one reader each: slice k yields
 * the events and notices of the whole trace whose times lie between cut k
 * and cut k+1 (the first slice from the beginning, the last to the end),
 * each stream starting at its first packet that reaches the slice, and the
 * n slices one after the other yield what one reader yields, in its order.
 * The cuts fall on packet beginnings so that each slice has about the same
 * bytes to decode; every reader of the same traces computes the same ones.
 * Returns 0 (n = 1: nothing changes); -ENOTSUP when the trace cannot be
 * read in slices (a stream without a clock or without packet beginning and
 * end times, end times going back, a time range, bt_stale_strings or
 * decode_threads set); -EBUSY once reading started; -EINVAL when k >= n;
 * -ENOMEM; or the error met reading a packet's header or context. On
 * failure the reader reads the whole trace as before.
 * While reading, a slice fails with last_code -ENOTSUP when times go back
 * within a stream or an event lies after its packet's end time: slices
 * would not then add up to the trace. Read it whole instead, as after any
 * failure of a slice: the whole reading reports errors in their order.
 */
int strata_ctf_reader_slice(struct strata_ctf_reader *reader, unsigned k, unsigned n);

/* Bytes of every stream file of the traces, as found when opening them. */
uint64_t strata_ctf_reader_stream_bytes(const struct strata_ctf_reader *reader);

/*
 * Number of streams of the traces. A reader holds a packet or two of each
 * in memory at a time, so readers of slices decoding at once hold that many
 * times as much.
 */
unsigned strata_ctf_reader_stream_count(const struct strata_ctf_reader *reader);

/* Borrowed; describes the last error ("" if none). */
const char *strata_ctf_reader_last_error(const struct strata_ctf_reader *reader);

/*
 * What stopped the reader (0 if nothing did): -STRATA_ESTREAM for malformed
 * stream data, -STRATA_ECLOCK for a time that cannot be converted, or a
 * negative errno when a file could not be read (-EISDIR, -EMFILE, -EIO...)
 * or memory ran out (-ENOMEM). last_error says more.
 */
int strata_ctf_reader_last_code(const struct strata_ctf_reader *reader);

/* Number of traces found (each `metadata` file is one trace). */
unsigned strata_ctf_reader_trace_count(const struct strata_ctf_reader *reader);

/*
 * The TSDL metadata text of the trace at path (path/metadata, or the one
 * trace below path), as babeltrace2's `-o ctf-metadata` prints it:
 * packets joined, up to the first NUL. Returns 0 and *ret_text (malloc'd)
 * when the text parses as the reader parses it; 1 and *ret_text when it
 * was read but does not parse, *ret_errmsg saying why; or
 * -STRATA_ENOTRACE, -STRATA_EMETADATA (unreadable packets, no signature),
 * -ENOTUNIQ (several traces below path) or -errno, with *ret_errmsg. The
 * message is malloc'd (NULL when memory ran out; ret_errmsg may be NULL).
 */
int strata_ctf_metadata_text(const char *path, char **ret_text, char **ret_errmsg);

/* --- live input ---------------------------------------------------------- */

/*
 * A live reader reads traces whose metadata, streams and packets are handed
 * to it as they arrive (as an LTTng relay daemon serves them to live
 * viewers) and merges them with babeltrace2 2.0.4's lttng-live rules: a
 * message goes out once every stream has its next one, or has promised to
 * stay silent until a later time (an inactivity), or has ended. When a
 * stream has none of them, strata_ctf_reader_next() returns
 * STRATA_CTF_AGAIN and strata_ctf_live_wanted() names the stream: hand it
 * its next packet, an inactivity or its end, then call next() again. Once
 * every stream ended, next() returns STRATA_CTF_END, and goes on if streams
 * are added later.
 *
 * As lttng-live names them, traces have no name and a stream is named
 * "stream-ID" in discarded-item notices. Not for live readers: the options
 * bt_stale_strings (babeltrace2's live source batches messages otherwise,
 * and nothing models it: empty strings read as empty), begin/end and
 * decode_threads, strata_ctf_reader_slice() and strata_ctf_pretty_run()
 * (use strata_ctf_reader_next() and strata_ctf_pretty_print()).
 * Memory: each stream holds the packets handed over that it has not moved
 * past yet, and each trace its metadata bytes and one parsed class per
 * update (until the reader is destroyed).
 * Thread-safety: as any reader, one thread at a time.
 */

/* An empty live reader. Returns 0, -EINVAL for options live readers lack, -ENOMEM. */
int strata_ctf_reader_create_live(const struct strata_ctf_reader_options *opts,
				  struct strata_ctf_reader **ret_reader);

/*
 * A trace and the metadata bytes received for it so far (plain TSDL text
 * starting with its signature, or whole metadata packets), which must
 * parse: returns 0 and *ret_trace, else -STRATA_EMETADATA or
 * -STRATA_EUNSUPPORTED with *ret_errmsg (malloc'd; ret_errmsg may be NULL),
 * -EINVAL (not a live reader), -ENOMEM.
 */
int strata_ctf_live_trace_add(struct strata_ctf_reader *reader, const void *metadata, size_t len,
			      unsigned *ret_trace, char **ret_errmsg);

/*
 * Metadata that followed for trace: appended to what came before, and the
 * whole must parse (errors as strata_ctf_live_trace_add(); nothing changes
 * on failure). Packets handed over from now on decode with it.
 */
int strata_ctf_live_trace_update(struct strata_ctf_reader *reader, unsigned trace,
				 const void *metadata, size_t len, char **ret_errmsg);

/*
 * A stream of trace, named "stream-ID"; id is also its stream ID (as
 * babeltrace2 prints it) unless its packets carry a stream instance id.
 * Returns 0 and *ret_stream, -EINVAL, -ENOMEM.
 */
int strata_ctf_live_stream_add(struct strata_ctf_reader *reader, unsigned trace, uint64_t id,
			       unsigned *ret_stream);

/*
 * The stream's next packet, whole (len bytes, copied). Returns 0; -EINVAL
 * for an unknown or ended stream or an empty packet; -STRATA_ESTREAM when
 * the stream's first packet's header or context cannot be read (last_error
 * says why; later packets are checked when decoded, as from files);
 * -ENOMEM.
 */
int strata_ctf_live_stream_packet(struct strata_ctf_reader *reader, unsigned stream,
				  const void *packet, size_t len);

/*
 * The stream promises no event before cycles of its trace's clock (the
 * default clock of the trace's first stream class, as babeltrace2 takes
 * it), which lets the other streams' messages before that time go out.
 * Returns 0, -EINVAL, -ENOMEM.
 */
int strata_ctf_live_stream_inactive(struct strata_ctf_reader *reader, unsigned stream,
				    uint64_t cycles);

/* The stream ended after what was handed over. Returns 0 or -EINVAL. */
int strata_ctf_live_stream_end(struct strata_ctf_reader *reader, unsigned stream);

/*
 * After STRATA_CTF_AGAIN: the stream the reader waits for. Returns 0, or
 * -ENOENT when it waits for none (it ended meanwhile: call next() again).
 */
int strata_ctf_live_wanted(const struct strata_ctf_reader *reader, unsigned *ret_stream);

/* --- events ------------------------------------------------------------ */

/* False when the event's stream has no clock: then the times below are 0. */
bool strata_ctf_event_has_clock(const struct strata_ctf_event *ev);
/* Raw clock value (cycles). */
uint64_t strata_ctf_event_cycles(const struct strata_ctf_event *ev);
/* Nanoseconds from the clock's origin (Unix epoch for LTTng/strata traces). */
int64_t strata_ctf_event_ns(const struct strata_ctf_event *ev);
/* Event class name, or NULL. Borrowed. */
const char *strata_ctf_event_name(const struct strata_ctf_event *ev);
uint64_t strata_ctf_event_class_id(const struct strata_ctf_event *ev);
/* Trace environment entry (e.g. "hostname", "procname", "vpid"); false if absent. */
bool strata_ctf_event_env_str(const struct strata_ctf_event *ev, const char *key, const char **ret);
bool strata_ctf_event_env_int(const struct strata_ctf_event *ev, const char *key, int64_t *ret);

/*
 * Look a field up by its printed name, first in the payload, then the event
 * context, the stream event context and the packet context. Integers and
 * enums only for _int; strings and text arrays/sequences for _str (the
 * result is not NUL-terminated: *ret_len bytes). False when absent or of
 * another kind.
 */
bool strata_ctf_event_field_int(const struct strata_ctf_event *ev, const char *name, int64_t *ret);
bool strata_ctf_event_field_str(const struct strata_ctf_event *ev, const char *name,
				const char **ret, uint32_t *ret_len);

/* --- babeltrace2-compatible text output ---------------------------------- */

struct strata_ctf_pretty;

enum strata_ctf_tri {
	STRATA_CTF_DEFAULT = 0,
	STRATA_CTF_SHOW,
	STRATA_CTF_HIDE,
};

/* The parameters of babeltrace2 2.0.4's sink.text.pretty (ctf.md §3.8). */
struct strata_ctf_pretty_options {
	bool no_delta;
	bool clock_cycles;
	bool clock_seconds;
	bool clock_date;
	bool clock_gmt;
	bool color; /* resolved by the caller: ANSI colors on/off */
	enum strata_ctf_tri name_default;
	bool name_payload, name_context, name_scope, name_header; /* when set explicitly */
	bool name_payload_set, name_context_set, name_scope_set, name_header_set;
	enum strata_ctf_tri field_default;
	bool field_trace, field_hostname, field_domain, field_procname, field_vpid;
	bool field_loglevel, field_emf, field_callsite;
	bool field_trace_set, field_hostname_set, field_domain_set, field_procname_set,
		field_vpid_set, field_loglevel_set, field_emf_set, field_callsite_set;
	/*
	 * ANSI colors on the discarded-item warnings. babeltrace2 decides
	 * these from the terminal alone (TERM, both stdout and stderr TTYs,
	 * BABELTRACE_TERM_COLOR), whatever --color says.
	 */
	bool color_warnings;
};

/*
 * A printer writing events to out and discarded-item warnings to err,
 * byte for byte as babeltrace2 does (for events read by a reader created
 * with bt_stale_strings: babeltrace2 prints some empty strings as stale
 * text). Returns NULL with errno set.
 */
struct strata_ctf_pretty *strata_ctf_pretty_create(const struct strata_ctf_pretty_options *opts,
						   FILE *out, FILE *err);
/* NULL-tolerant. Hands pending lines to `out`, ignoring write errors. */
void strata_ctf_pretty_destroy(struct strata_ctf_pretty *p);
/*
 * Returns 0 or -errno (e.g. -EPIPE, -ENOSPC when writing fails). Event
 * lines are batched and handed to `out` in large chunks; call
 * strata_ctf_pretty_flush() before writing anything else to `out`.
 * Warnings are written to `err` at once, after the pending lines.
 */
int strata_ctf_pretty_print(struct strata_ctf_pretty *p, const struct strata_ctf_msg *msg);
/* Hands the pending lines to `out` (no fflush). Returns 0 or -errno. */
int strata_ctf_pretty_flush(struct strata_ctf_pretty *p);

/*
 * Prints every remaining message of reader through p, decoding on a
 * helper thread while the calling thread formats (the reader must not be
 * used elsewhere meanwhile). Returns 0 at the end of the traces, -errno
 * when writing fails (e.g. -EPIPE), -ENOMEM, or -STRATA_ESTREAM when
 * decoding fails: strata_ctf_reader_last_error() then says why. The
 * messages before a failure are printed; call strata_ctf_pretty_flush().
 */
int strata_ctf_pretty_run(struct strata_ctf_pretty *p, struct strata_ctf_reader *reader);

#ifdef __cplusplus
}
#endif
#endif
