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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf/decode.h"
#include "ctf/reader-internal.h"

/* A stream file, mapped read-only for the reader's life. */
struct ctf_stream_file {
	char *path; /* absolute, normalized */
	const uint8_t *map;
	uint64_t size;
	bool has_begin;
	int64_t begin_ns; /* first packet's timestamp_begin */
};

/*
 * babeltrace2 2.0.4 recycles event objects per event class, and a string
 * (or text array/sequence) field decoded empty keeps the text of the
 * recycled object's previous use: its output shows that stale text. To
 * print the same, the reader models the objects: which one each event gets
 * follows babeltrace2's message batching (15 messages per upstream refill
 * and per muxer call) and its LIFO pools. Only top-level members of the
 * stream event context, event context and payload are modeled.
 */
struct ctf_stale {
	const char *ptr;
	uint32_t len;
	bool set;
};

struct ctf_ec_pool {
	bool init;
	uint32_t n_slots;
	uint8_t *slot_scope;
	uint32_t *slot_member;
	uint32_t *slot_off; /* value index from the scope root, or CTF_DEC_NO_OFF */
	struct ctf_stale *objs; /* n_objs * n_slots */
	uint32_t n_objs, cap_objs;
	uint32_t *free; /* LIFO of recycled objects */
	uint32_t n_free, cap_free;
};

/* A trace as the reader holds it. */
struct ctf_reader_trace {
	struct ctf_trace t; /* what events point to */
	struct ctf_trace_dec *td;
	struct ctf_ec_pool **pools; /* [stream class index][event class index] */
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
};

/* Messages per upstream refill and per muxer call in babeltrace2 2.0.4. */
#define CTF_BT_BATCH 15
/* Slots a worker thread decodes ahead per stream (decode-ahead.h). */
#define CTF_AHEAD_SLOTS 1024u
/*
 * Packets whose values may still be referenced by queued events: every
 * packet takes at least two slots (its beginning and end), so the slots
 * decoded ahead and queued span at most half as many packets, plus the one
 * being decoded and the one of the message last returned.
 */
#define CTF_PKT_RING (CTF_AHEAD_SLOTS / 2 + 8)

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

/* One queued message of a stream. */
struct ctf_slot {
	/* What the merge and ctf_stream_refill() read first, together. */
	uint8_t kind; /* enum ctf_kind */
	/* key_ns is the merge's last returned time, set when the slot is queued. */
	bool key_last;
	uint32_t obj;
	int64_t key_ns;
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

struct ctf_ahead_ring;

struct ctf_stream {
	const struct ctf_reader_trace *rt;
	const struct ctf_sc_dec *scd;
	uint64_t stream_id; /* babeltrace2's stream ID (instance id or a counter) */
	char *path; /* first file's path, for warnings */
	struct ctf_stream_file *files;
	size_t n_files;
	unsigned index; /* creation order: the last tie-breaker */

	/* Position. */
	size_t cur_file;
	uint64_t pkt_off; /* byte offset of the current packet in its file */
	uint64_t populated; /* bytes of the current file asked to be mapped in */
	bool in_packet, ended;
	uint64_t pos; /* bits from packet start */
	uint64_t content_end; /* bits */
	uint64_t packet_bits;
	uint64_t clock; /* current clock value (ctf.md §1.9) */
	struct ctf_snapshots snap, prev;

	/* Packet header+context values, in a ring (queued events point there). */
	struct ctf_values pkt_ring[CTF_PKT_RING];
	struct ctf_values *pkt_vals;
	unsigned pkt_n;
	uint32_t ph_idx, pc_idx;
	bool has_ph, has_pc;

	struct ctf_pending pending[2];
	unsigned n_pending, next_pending;
	bool sb_done, pb_done, se_done;

	/*
	 * Messages produced ahead, as babeltrace2's upstream queue: qp[] points
	 * into q[], or into the ring of the worker decoding ahead (NULL: none).
	 */
	struct ctf_slot q[CTF_BT_BATCH];
	struct ctf_slot *qp[CTF_BT_BATCH];
	unsigned q_head, q_len;
	int q_err; /* error met while producing after the queued messages */
	struct ctf_ahead_ring *ahead;

	/* Where errors are described (the reader's buffer). */
	char *err;
	size_t errlen;
};

/* Read the first packet's header and context of a mapped file. */
int ctf_packet_props_read(const struct ctf_reader_trace *rt, const char *path, const uint8_t *map,
			  uint64_t size, struct ctf_packet_props *props, char *err, size_t errlen);

/*
 * Produce the stream's next message (any kind) into slot: 1 when produced,
 * 0 after the stream end, -STRATA_ESTREAM / -STRATA_ECLOCK / -ENOMEM on
 * error (s->err filled). Messages without a clock value take the merge's
 * last returned time as their key, as in babeltrace2's muxer: slot->key_last,
 * applied by ctf_stream_refill(). Touches only the stream and the slot, so
 * a worker thread may run it (decode-ahead.h).
 */
int ctf_stream_produce(struct ctf_stream *s, struct ctf_slot *slot);

/*
 * Refill the empty queue with up to CTF_BT_BATCH messages, produced here or
 * taken from the worker decoding ahead, then finished in queue order: the
 * keys that depend on last_ns, the recycled objects (struct ctf_ec_pool).
 * Returns how many (0: the stream ended), or the error that stopped
 * production when nothing could be queued.
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

/* The recycled-object pool of an event class (see struct ctf_ec_pool). */
void ctf_ec_pool_release(struct ctf_ec_pool *pool);
int ctf_ec_pool_recycle(struct ctf_ec_pool *pool, uint32_t obj);

/* Frees values and the file list (unmapping files). */
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
 * Map the stream files of the trace directories dirs (several when
 * babeltrace2 would merge traces sharing a UUID), group them into streams
 * decoded with rt's metadata and append those to *streams. err receives a
 * description on failure.
 */
int ctf_trace_open_streams(const struct ctf_reader_trace *rt, char *const *dirs, size_t n_dirs,
			   struct ctf_stream ***streams, size_t *n_streams, char *err,
			   size_t errlen);

#endif
