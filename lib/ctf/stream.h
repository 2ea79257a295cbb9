/* SPDX-License-Identifier: MIT */
/*
 * One data stream of a trace: the files that share a (stream class,
 * stream_instance_id), read packet by packet. A stream produces the same
 * message sequence as babeltrace2's src.ctf.fs: stream beginning, then per
 * packet the discarded-events/packets notices it derives from the packet
 * contexts (ctf.md §1.10), packet beginning, events, packet end; then stream
 * end. Only events and notices reach the reader's caller; the others take
 * part in the merge order and in babeltrace2's batching (struct
 * ctf_ec_pool), which is why a stream decodes CTF_BT_BATCH messages ahead
 * into its queue. Used by reader.c and merge.c.
 */
#ifndef STRATA_CTF_STREAM_H
#define STRATA_CTF_STREAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf/decode.h"
#include "ctf/reader-internal.h"

/* A stream file, read packet by packet (struct ctf_pkt_buf). */
struct ctf_stream_file {
	char *path; /* absolute, normalized */
	uint64_t size; /* at discovery: packets must fit in it */
	bool has_begin;
	int64_t begin_ns; /* first packet's timestamp_begin */
	/* Its size bytes mapped, once events are read (map_tried), or NULL. */
	const uint8_t *map;
	bool map_tried;
	/*
	 * Live readers (struct ctf_stream.live): each packet handed over is a
	 * "file" of its own whose size bytes are in memory (mem, read as with
	 * pread(), so that the stream's buffers hold copies and mem can go as
	 * soon as the stream moved past it), decoded with the trace class rt
	 * (a new one after each metadata update); or, when inactive, a pause
	 * promising no event of the stream before inactive_raw (clock cycles).
	 */
	const uint8_t *mem;
	const struct ctf_reader_trace *rt;
	bool inactive;
	uint64_t inactive_raw;
};

/*
 * babeltrace2 2.0.4 recycles event objects per event class, and a string
 * (or text array/sequence) field decoded empty keeps the text of the
 * recycled object's previous use: its output shows that stale text. To
 * print the same, the reader models the objects when asked to
 * (strata_ctf_reader_options.bt_stale_strings; else rt->pools is NULL and
 * no event holds an object): which one each event gets follows
 * babeltrace2's message batching (15 messages per upstream refill and per
 * muxer call) and its LIFO pools. Every text field of the stream event
 * context, event context and payload is modeled: top-level members by
 * their value offsets, deeper ones (in structs, arrays, sequences and
 * variant options) by walking the values (struct ctf_stale_node).
 */
struct ctf_stale {
	const char *ptr; /* into a packet buffer, or own when owned */
	uint32_t len;
	bool set;
	bool owned;
	uint32_t own_cap;
	char *own; /* the pool's copy, made when the packet buffer is reused */
};

/*
 * Where a text field sits in an event object, for the classes with text
 * below the top level of a scope (struct ctf_ec_pool.nested): one node per
 * struct member, array or sequence element and variant option reached so
 * far, in babeltrace2's object tree. An object keeps its sequences'
 * element fields once created and every variant option's field, so a path
 * names the same field object from one event to the next.
 */
struct ctf_stale_node {
	uint32_t slot; /* text field: its slot, else UINT32_MAX */
	bool no_text; /* nothing below holds text: not walked */
	uint32_t n_kids;
	uint32_t *kids; /* per member/element/option: node index + 1, 0 if not reached */
};

struct ctf_ec_pool {
	bool init;
	uint32_t n_slots;
	uint8_t *slot_scope;
	uint32_t *slot_member;
	uint32_t *slot_off; /* value index from the scope root, or CTF_DEC_NO_OFF */
	/*
	 * Text below a top level: slots come from nodes[0..2], the scope
	 * roots, n_used of them so far; n_slots is then the room each object
	 * has, grown by doubling (the slots past n_used are unset).
	 */
	bool nested;
	uint32_t n_used;
	struct ctf_stale_node *nodes;
	uint32_t n_nodes, cap_nodes;
	struct ctf_stale *objs; /* n_objs * n_slots */
	uint32_t n_objs, cap_objs;
	uint32_t *free; /* LIFO of recycled objects */
	uint32_t n_free, cap_free;
};

/*
 * Tracer bugs babeltrace2 2.0.4 works around, known from the trace's env
 * (tracer_name, tracer_major/minor/patch): its packet end times then come
 * from the last event when the packet context's end time is wrong
 * (lttng-ust before 2.11 and lttng-modules before 2.9.13/2.10.10 could
 * write an event after its packet's end; any LTTng packet left by a crash
 * has an end time of 0). barectf before 2.3.1 could write events before
 * their packet's beginning, which babeltrace2 hides by delaying the packet
 * beginning until the first event, and giving it that event's time when
 * earlier (packet_begin_time() in stream.c).
 */
struct ctf_quirks {
	bool event_after_packet, lttng_crash, barectf_event_before_packet;
};

/* A trace as the reader holds it. */
struct ctf_reader_trace {
	struct ctf_trace t; /* what events point to */
	struct ctf_trace_dec *td;
	struct ctf_ec_pool **pools; /* [stream class index][event class index] */
	struct ctf_quirks quirks;
};

/* babeltrace2's message kinds, invisible ones included: they take part in
 * the muxer's ordering and batching. */
enum ctf_kind {
	CTF_K_STREAM_BEGIN,
	CTF_K_PACKET_BEGIN,
	CTF_K_EVENT,
	CTF_K_DISC_EVENTS,
	CTF_K_PACKET_END,
	CTF_K_DISC_PACKETS,
	CTF_K_STREAM_END,
	/* babeltrace2's iterator inactivity (live readers): a time, no stream. */
	CTF_K_INACTIVITY,
};

/* Messages per upstream refill and per muxer call in babeltrace2 2.0.4. */
#define CTF_BT_BATCH 15
/* Slots a worker thread decodes ahead per stream (decode-ahead.h). */
#define CTF_AHEAD_SLOTS 1024u
/* Packet-context values babeltrace2 calls "snapshots" (absent unless has_*). */
struct ctf_snapshots {
	uint64_t ts_begin, ts_end, disc, seq;
	bool has_ts_begin, has_ts_end, has_disc, has_seq;
};

/* A discarded-events/packets notice waiting to be returned. */
struct ctf_pending {
	enum strata_ctf_msg_type type;
	struct strata_ctf_discarded d;
	uint64_t begin_raw, end_raw; /* clock values, for tie-breaking */
};

/*
 * What the merge reads of a queued message. The queue keeps its own copy
 * (struct ctf_stream.qkey), and a worker's ring a dense array of them
 * (decode-ahead.h), so that ordering messages decoded on another CPU
 * reads a few bytes per message instead of the slot's cache lines.
 */
struct ctf_slot_key {
	int64_t ns;
	uint8_t kind; /* enum ctf_kind */
	bool last; /* ns is the merge's last returned time, set when queued */
};

/* One queued message of a stream. */
struct ctf_slot {
	struct ctf_slot_key key; /* as produced: key.last not applied yet */
	uint32_t obj;
	const struct ctf_ec_dec *ecd; /* events */
	struct ctf_ec_pool *pool; /* events: the recycled object they hold */
	struct ctf_values ev_vals;
	struct strata_ctf_event ev;
	struct strata_ctf_msg msg; /* visible kinds */
	struct ctf_pending pend;
};

/* Properties of a stream file's first packet (discovery). */
struct ctf_packet_props {
	uint64_t sc_id;
	bool has_instance_id;
	uint64_t instance_id;
	bool has_begin;
	uint64_t begin_raw;
	int64_t begin_ns;
};

/*
 * Packet buffers. A stream decodes each packet whole (header and context
 * included) from its stream file mapped once, read-only: each packet's
 * pages are populated in one call before it is decoded (faulting them in
 * one by one costs more, on this kind of VM, than copying them), and their
 * page table entries dropped once done packets add up to 2 MiB, so that
 * what a stream holds mapped stays bounded (docs/benchmarks.md). Where
 * a file cannot be mapped so, its packets are read with pread() into the
 * buffers' own memory. Each packet takes one of the stream's CTF_PKT_BUFS
 * buffers. Values point into its bytes (strings) and into its `vals`
 * (packet header and context), so a buffer lives until no message can
 * reach it any more:
 *
 *   slots, numbered by the stream as produced (32 bits, wrapping):
 *
 *     ... P1 events | PE(P1) | PB(P2) P2 events | PE(P2) | PB(P3) P3 events ...
 *   ────────────────────┬─────────────────────────────┬─────────────────────►
 *                       dead                    produced
 *     buffer of P1: DONE, end_seq <= dead   ──► FREE (stale strings copied out)
 *     buffer of P2: DONE, end_seq >  dead   (queued events still point in)
 *     buffer of P3: CURRENT                 (being decoded; end_seq unset)
 *
 *   end_seq: one past the slot of the packet's end (PE), set by the
 *            producer before it marks the buffer DONE (release);
 *   dead:    slots below it are neither queued nor borrowed: at a refill
 *            of the stream, everything it produced (no worker), or the
 *            ahead ring's tail (decode-ahead.h), the slots the reader has
 *            returned and is done with.
 *
 * Only the reader's thread frees buffers (ctf_stream_bufs_release(), at
 * each refill: DONE and end_seq <= dead, state loaded with acquire, stored
 * FREE seq_cst); only the producer (the reader's thread, or a worker under
 * the ring's produce mutex) takes FREE ones (acquire) and makes them
 * CURRENT, then DONE (release, after end_seq). Before a buffer goes FREE,
 * the stale strings that point into it (struct ctf_stale, recycled objects
 * of babeltrace2's model, which outlive any packet) are copied into memory
 * their pool owns: once per buffer reuse, not per event. A stale string
 * lent to a new event is also copied first, since that event may be queued
 * on another stream than the buffer's.
 *
 * Bound: at a refill the buffers still in use are the current packet's
 * and those whose end slot lies in the queued window. Without a worker
 * that window is empty and a batch of CTF_BT_BATCH slots starts at most
 * 8 packets (each takes a beginning and an end slot): at most 9 buffers.
 * With a worker, it stops (as on a full ring) while no buffer is FREE, and
 * when the reader decodes itself (the ring is empty) the window is its
 * batch so far, again at most 9. Memory is O(streams x packet size).
 */
#define CTF_PKT_BUFS 16u
/* Largest packet read into memory: a lying packet_size must not allocate more. */
#define CTF_PKT_MAX_BYTES (UINT64_C(1) << 30)

enum ctf_pkt_state {
	CTF_PKT_FREE,
	CTF_PKT_CURRENT,
	CTF_PKT_DONE,
};

struct ctf_pkt_buf {
	_Atomic uint8_t state; /* enum ctf_pkt_state */
	uint32_t end_seq; /* DONE: see above */
	uint8_t *data; /* what pread() filled */
	size_t cap;
	/* The packet's bytes read so far: in data, or in its file's mapping. */
	const uint8_t *bytes;
	uint64_t n_bytes;
	bool mapped;
	uint32_t file; /* index in the stream's files */
	struct ctf_values vals; /* packet header and context values */
};

struct ctf_ahead_ring;

struct ctf_stream {
	/*
	 * Streams are allocated one after the other, and with a worker
	 * decoding ahead (decode-ahead.h) the reader's thread writes one
	 * stream's queue fields at the end while the worker decodes the next
	 * stream from its beginning: without these pads they share a cache
	 * line, and the worker decoded 3-4x slower (docs/benchmarks.md).
	 */
	char pad_head[64];
	const struct ctf_reader_trace *rt;
	const struct ctf_sc_dec *scd;
	uint64_t stream_id; /* babeltrace2's stream ID (instance id or a counter) */
	char *path; /* first file's path, for warnings */
	struct ctf_stream_file *files;
	size_t n_files;
	unsigned index; /* creation order: the last tie-breaker */
	/*
	 * Live reader's stream: packets are added to files[] as they come, and
	 * past the last one production stops with -EAGAIN (nothing changed)
	 * until another comes or live is cleared (the stream ends).
	 */
	bool live;

	/* Position. */
	size_t cur_file;
	int fd; /* of files[cur_file] when fd_open; opened on first use */
	bool fd_open;
	uint64_t pkt_off; /* byte offset of the current packet in its file */
	uint64_t read_guess; /* bytes to read first: the last packet's size */
	bool in_packet, ended;
	uint64_t pos; /* bits from packet start */
	uint64_t content_end; /* bits */
	uint64_t packet_bits;
	uint64_t clock; /* current clock value (ctf.md §1.9) */
	struct ctf_snapshots snap, prev;

	/* Packet buffers (see struct ctf_pkt_buf); cur: the current packet's. */
	struct ctf_pkt_buf bufs[CTF_PKT_BUFS];
	/* Mapped bytes of done packets not dropped yet, in file drop_file (map_drop()). */
	const uint8_t *drop_lo, *drop_hi;
	uint32_t drop_file;
	struct ctf_pkt_buf *cur;
	uint32_t produced; /* slots produced (the producer's) */
	uint64_t packet; /* strata_ctf_event.packet of the current packet */
	const uint8_t *pkt_base; /* cur->data */
	struct ctf_values *pkt_vals; /* &cur->vals */
	uint32_t ph_idx, pc_idx;
	bool has_ph, has_pc;
	const struct ctf_value *pkt_scope[2]; /* packet header and context roots, or NULL */

	struct ctf_pending pending[2];
	unsigned n_pending, next_pending;
	bool sb_done, pb_done, se_done;

	/*
	 * Messages produced ahead, as babeltrace2's upstream queue: qp[] points
	 * into q[], or into the ring of the worker decoding ahead (NULL: none).
	 */
	struct ctf_slot q[CTF_BT_BATCH];
	struct ctf_slot *qp[CTF_BT_BATCH];
	struct ctf_slot_key qkey[CTF_BT_BATCH]; /* of qp[i], ns final (last: it had no time) */
	unsigned q_head, q_len;
	int q_err; /* error met while producing after the queued messages */
	struct ctf_ahead_ring *ahead;

	/*
	 * Reading a slice of the timeline (ctf_stream_seek()): keys must not
	 * go back (slice_last: the last one queued), and no event may lie
	 * after its packet's end time (slice_pkt_end), or the slices would
	 * not add up to the whole trace.
	 */
	bool slicing;
	int64_t slice_last, slice_pkt_end;

	/* Where errors are described (the reader's buffer). */
	char *err;
	size_t errlen;
	char pad_tail[64];
};

/* Read the first packet's header and context of a file open as fd. */
int ctf_packet_props_read(const struct ctf_reader_trace *rt, const char *path, int fd,
			  uint64_t size, struct ctf_packet_props *props, char *err, size_t errlen);
/* The same of a packet in memory (live readers), named name in errors. */
int ctf_packet_props_read_mem(const struct ctf_reader_trace *rt, const char *name,
			      const uint8_t *mem, uint64_t size, struct ctf_packet_props *props,
			      char *err, size_t errlen);

/*
 * Produce the stream's next message (any kind) into slot: 1 when produced,
 * 0 after the stream end, -STRATA_ESTREAM / -STRATA_ECLOCK / -ENOMEM on
 * error (s->err filled), -EAGAIN with nothing changed when a live stream
 * needs its next packet. Messages without a clock value take the merge's
 * last returned time as their key, as in babeltrace2's muxer: slot->key.last,
 * applied by ctf_stream_refill(). Touches only the stream and the slot, so
 * a worker thread may run it (decode-ahead.h). -EAGAIN, with nothing
 * changed, when a packet must begin and no buffer is FREE: a caller that
 * produces on its own must call ctf_stream_bufs_release() between batches.
 */
int ctf_stream_produce(struct ctf_stream *s, struct ctf_slot *slot);

/*
 * Reader's thread: free the buffers whose packets end below slot dead,
 * copying out the stale strings that point into them. Returns how many
 * buffers are FREE, or -ENOMEM.
 */
int ctf_stream_bufs_release(struct ctf_stream *s, uint32_t dead);

/* Whether a packet could begin now (a worker's "room"; seq_cst loads). */
bool ctf_stream_bufs_available(const struct ctf_stream *s);

/*
 * Refill the empty queue with up to CTF_BT_BATCH messages, produced here or
 * taken from the worker decoding ahead, then finished in queue order: the
 * keys that depend on last_ns, the recycled objects (struct ctf_ec_pool).
 * Returns how many (0: the stream ended), or the error that stopped
 * production when nothing could be queued (-EAGAIN: a live stream waits
 * for a packet; fewer than a batch are queued when it runs out).
 */
int ctf_stream_refill(struct ctf_stream *s, int64_t last_ns);

static inline struct ctf_slot *ctf_stream_head(struct ctf_stream *s)
{
	return s->qp[s->q_head];
}

static inline const struct ctf_slot *ctf_stream_chead(const struct ctf_stream *s)
{
	return s->qp[s->q_head];
}

static inline const struct ctf_slot_key *ctf_stream_head_key(const struct ctf_stream *s)
{
	return &s->qkey[s->q_head];
}

/* The recycled-object pool of an event class (see struct ctf_ec_pool). */
void ctf_ec_pool_release(struct ctf_ec_pool *pool);
int ctf_ec_pool_recycle(struct ctf_ec_pool *pool, uint32_t obj);

/*
 * Back to the state before the stream's first message, for babeltrace2's
 * seek to the beginning (trim_prepass() in reader.c), without a worker
 * attached. The recycled objects keep their stale text, copied out of the
 * buffers. Returns 0 or -ENOMEM.
 */
int ctf_stream_rewind(struct ctf_stream *s);

/*
 * Slices. A trace whose packets all carry their beginning and end times can
 * be read in slices of its timeline, [T0, T1), [T1, T2)..., each by its own
 * reader on its own thread, with no exchange between them: a slice's
 * reader starts each stream at its first packet ending at or after the
 * slice's beginning, drops the messages before it and stops at the first
 * message at or after its end. The stream state that crosses packets (the
 * clock, the previous packet's snapshots for the discarded-item notices)
 * is known from the packet contexts alone, which a scan of the stream
 * reads first:
 *
 *   stream A  |--p0--|--p1--|--p2--|--p3--|
 *   stream B    |---q0---|---q1---|--q2--|
 *                      T1 ^
 *   slice 0:  p0 p1 (up to T1)      q0 q1 (up to T1)
 *   slice 1:  p1 (from T1) p2 p3    q1 (from T1) q2
 *
 * A packet straddling a cut is decoded by both slices. The messages of the
 * slices, one after the other, are those of the whole trace in its order
 * when each stream's keys never go back and every event lies within its
 * packet's end time: the slices check both (struct ctf_stream.slicing) and
 * fail with -ENOTSUP otherwise, for the caller to read the trace whole.
 */
struct ctf_pkt_entry {
	uint32_t file; /* index in the stream's files */
	uint64_t off; /* bytes */
	uint64_t bytes; /* packet size */
	int64_t begin_ns, end_ns; /* packet context times */
	uint64_t clock_before; /* the stream's clock when the packet begins */
	struct ctf_snapshots prev; /* the previous packets' snapshots, as packet_end() keeps them */
};

struct ctf_pkt_index {
	struct ctf_pkt_entry *e;
	size_t n, cap;
};

/*
 * Read every packet's header and context of a stream that has not started.
 * Returns 0, -ENOTSUP when a packet lacks a beginning or end time (or the
 * stream a clock), when they do not convert to nanoseconds or when end
 * times go back, -ENOMEM, or the error of a malformed packet (s->err).
 */
int ctf_stream_scan(struct ctf_stream *s, struct ctf_pkt_index *idx);

/* Start the stream at packet p of idx (idx->n: after its last packet), in slice mode. */
void ctf_stream_seek(struct ctf_stream *s, const struct ctf_pkt_index *idx, size_t p);

/* Frees values, buffers and the file list (closing the open file). */
void ctf_stream_release(struct ctf_stream *s);

/* --- trace-discover.c ------------------------------------------------------ */

/* A trace directory found below an input path. */
struct ctf_found_trace {
	char *dir; /* absolute, normalized */
	char *name_suffix; /* path relative to the input; NULL for the input itself */
};

/* Absolute path with ".", ".." and repeated '/' resolved (no symlink lookup). */
char *ctf_path_normalize(const char *path);

/* Every trace at or below the paths, in input then path order. */
int ctf_discover_traces(const char *const *paths, unsigned n_paths, struct ctf_found_trace **ret,
			size_t *ret_n);
void ctf_found_traces_free(struct ctf_found_trace *f, size_t n);

/* babeltrace2's trace name: "HOST/SUFFIX", "HOST", "SUFFIX" or "" (malloc'd). */
char *ctf_trace_name_make(const struct ctf_trace_class *tc, const char *suffix);

/*
 * Find the stream files of the trace directories dirs (several when
 * babeltrace2 would merge traces sharing a UUID), group them into streams
 * decoded with rt's metadata and append those to *streams. err receives a
 * description on failure.
 */
int ctf_trace_open_streams(const struct ctf_reader_trace *rt, char *const *dirs, size_t n_dirs,
			   struct ctf_stream ***streams, size_t *n_streams, char *err,
			   size_t errlen);

#endif
