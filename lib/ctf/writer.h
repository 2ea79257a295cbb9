/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 writer: TSDL metadata text for strata's user-space traces and the
 * binary pieces around the event records, in the shapes lttng-tools 2.13
 * writes (reference/ctf.md PART 2), so babeltrace2, Trace Compass and
 * `strata view` read them as they read LTTng's. Used by strata-sessiond's
 * consumer, and by tests that record in-process.
 *
 * Metadata is built as text, append-only, because it grows while tracing
 * (new apps, new events, new channels): the consumer keeps how much it has
 * already written and writes the rest as new packets:
 *
 *   struct ctf_metadata md;
 *   ctf_metadata_init(&md, uuid);
 *   ctf_metadata_add_preamble(&md, &env, &clock);    typealiases .. headers
 *   ctf_metadata_add_stream(&md, 0, ctx, n_ctx);     one per channel
 *   ctf_metadata_add_event(&md, &ev);                one per (event, channel)
 *   ctf_metadata_write_packets(fd, &md, written, md.len); written = md.len;
 *
 * The record layout the metadata declares is the one lib/ust writes
 * (include/strata/ust-events.h): large event header, the stream's context
 * fields, the payload; byte-packed, so every align is 8; host byte order
 * (byte_order = le on x86-64) except network fields (be).
 *
 * Errors: int functions return >= 0 or -errno (-ENOMEM, -EINVAL for a
 * descriptor the metadata cannot express, -EIO/-errno from write). A failed
 * append leaves md.len unchanged. Nothing here prints. Not thread-safe:
 * one struct ctf_metadata per trace, used by one thread.
 */
#ifndef STRATA_CTF_WRITER_H
#define STRATA_CTF_WRITER_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <strata/ust-events.h>

/* ---- Metadata text ------------------------------------------------------- */

/* The env block. NULL strings and negative numbers are left out. */
struct ctf_writer_env {
	const char *hostname;
	const char *domain; /* "ust" */
	const char *tracer_name; /* "strata" */
	int tracer_major, tracer_minor, tracer_patchlevel;
	const char *buffering_scheme; /* "uid" or "pid" */
	int64_t buffering_id; /* uid or pid */
	int architecture_bit_width; /* 64 */
	const char *trace_name; /* session name */
	const char *trace_creation_datetime; /* ctf_format_datetime() */
	/* Per-process (per-PID buffering) traces only: */
	int64_t vpid; /* <= 0: left out */
	const char *procname;
	const char *vpid_datetime;
};

/*
 * The clock block. Wall time of value v is
 * offset_s + (offset + v) / freq seconds since the Epoch. offset is kept in
 * [0, freq) (babeltrace2 rejects a negative one): see ctf_clock_set_offset_ns().
 */
struct ctf_writer_clock {
	const char *name; /* "monotonic" */
	const char *uuid; /* "8-4-4-4-12" or NULL */
	const char *description; /* "Monotonic Clock" */
	uint64_t freq; /* Hz; 1000000000 for ns */
	uint64_t precision; /* cycles; 0: left out */
	int64_t offset_s;
	uint64_t offset;
	/*
	 * babeltrace2 only merges traces whose clocks are all absolute or share
	 * a UUID, and only treats LTTng's "monotonic" as absolute by itself.
	 */
	bool absolute;
};

/* Set offset_s/offset from an offset in ns from the Epoch (may be negative). */
void ctf_clock_set_offset_ns(struct ctf_writer_clock *clock, int64_t offset_ns);

/*
 * LTTng's measure of CLOCK_REALTIME - CLOCK_MONOTONIC in ns: best of 10
 * (monotonic, realtime, monotonic) reads, realtime minus the middle of the
 * narrowest monotonic window.
 */
int64_t ctf_clock_measure_monotonic_offset(void);

/* One event class (one event in one channel). */
struct ctf_writer_event {
	const char *name; /* "provider:event" */
	uint32_t id; /* unique in its stream class, < 2^32 - 1 */
	uint32_t stream_id;
	int loglevel; /* < 0: left out (kernel style) */
	const char *model_emf_uri; /* NULL: left out */
	const struct strata_field_desc *fields;
	uint32_t nr_fields;
};

struct ctf_metadata {
	char *text; /* NUL-terminated */
	size_t len;
	size_t cap;
	uint8_t uuid[16];
	bool big_endian; /* the host's, which lib/ust writes in */
};

int ctf_metadata_init(struct ctf_metadata *md, const uint8_t uuid[16]);
void ctf_metadata_release(struct ctf_metadata *md);

/*
 * "/" "* CTF 1.8 *" "/", the typealiases, the trace block (uuid, byte order,
 * packet.header), env, clock, the clock-mapped typealiases, struct
 * packet_context, struct event_header_compact/_large. Once, first.
 */
int ctf_metadata_add_preamble(struct ctf_metadata *md, const struct ctf_writer_env *env,
			      const struct ctf_writer_clock *clock);

/*
 * A stream class (one channel): large event header, LTTng's packet context,
 * and ctx[] as stream event context (n_ctx may be 0: no event.context).
 */
int ctf_metadata_add_stream(struct ctf_metadata *md, uint32_t stream_id,
			    const struct strata_field_desc *const *ctx, uint32_t n_ctx);

int ctf_metadata_add_event(struct ctf_metadata *md, const struct ctf_writer_event *ev);

/* ---- Packetized metadata (what LTTng writes to the `metadata` file) ------ */

#define CTF_METADATA_PACKET_SIZE 4096
#define CTF_METADATA_HEADER_LEN 37
#define CTF_METADATA_PACKET_PAYLOAD (CTF_METADATA_PACKET_SIZE - CTF_METADATA_HEADER_LEN)

/* Packets needed for len bytes of text. */
size_t ctf_metadata_packet_count(size_t len);

/*
 * Packetize text[0..len) into out (ctf_metadata_packet_count(len) * 4096
 * bytes): 37-byte header (magic 0x75D11D57, uuid, content_size and
 * packet_size in bits, version 1.8), text, zero padding.
 */
void ctf_metadata_packetize(const uint8_t uuid[16], bool big_endian, const char *text, size_t len,
			    uint8_t *out);

/* Append md->text[from..to) to fd as packets. */
int ctf_metadata_write_packets(int fd, const struct ctf_metadata *md, size_t from, size_t to);

/*
 * Append md->text[from..to) to fd as is: a plain-text `metadata` file
 * (it starts with the CTF 1.8 signature comment readers look for).
 */
int ctf_metadata_write_text(int fd, const struct ctf_metadata *md, size_t from, size_t to);

/* ---- Data packets -------------------------------------------------------- */

/* trace.packet.header + stream.packet.context as declared by the preamble. */
#define CTF_PACKET_HEADER_LEN 84
#define CTF_PACKET_MAGIC 0xC1FC1FC1u
/* LTTng pads every packet to a multiple of the page size. */
#define CTF_PACKET_ALIGN 4096

struct ctf_packet_info {
	uint8_t uuid[16];
	uint32_t stream_id;
	uint64_t stream_instance_id; /* LTTng: the CPU */
	uint64_t timestamp_begin; /* <= first event; >= previous packet's */
	uint64_t timestamp_end; /* >= last event */
	uint64_t content_size; /* bits, header included */
	uint64_t packet_size; /* bits, padding included */
	uint64_t packet_seq_num;
	uint64_t events_discarded; /* cumulative for the stream */
	uint32_t cpu_id;
};

/* Bytes of a packet holding event_bytes of records: header + events, page-rounded. */
size_t ctf_packet_size(size_t event_bytes);

/* Serialize the 84-byte header + context (host byte order). */
void ctf_packet_header_write(uint8_t out[CTF_PACKET_HEADER_LEN], const struct ctf_packet_info *pi,
			     bool big_endian);

/* ---- Index files (index/<stream>.idx, big-endian, format 1.1) ------------ */

#define CTF_INDEX_HEADER_LEN 16
#define CTF_INDEX_ENTRY_LEN 72

void ctf_index_header_write(uint8_t out[CTF_INDEX_HEADER_LEN]);
/* offset: the packet's byte offset in the stream file. */
void ctf_index_entry_write(uint8_t out[CTF_INDEX_ENTRY_LEN], uint64_t offset,
			   const struct ctf_packet_info *pi);

/* ---- Helpers ------------------------------------------------------------- */

/* Random (version 4) UUID; -errno from getrandom. */
int ctf_uuid_generate(uint8_t ret_uuid[16]);
/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" + NUL. */
void ctf_uuid_format(const uint8_t uuid[16], char out[37]);
/* ISO 8601 basic with the local UTC offset, "20261203T082154+0000". */
int ctf_format_datetime(time_t t, char out[32]);
/* write() all of buf, retrying short writes and EINTR. */
int ctf_write_full(int fd, const void *buf, size_t len);

/*
 * Take back a packet whose write failed (a full disk): cut the stream file
 * at offset and the index file at idx_off (its size before the packet's
 * entry; < 0: leave it), so both end on a whole packet and the trace stays
 * readable. Returns 0 or -errno.
 */
int ctf_write_rewind(int fd, uint64_t offset, int idx_fd, off_t idx_off);

/* A piece of a packet for ctf_write_packet(). */
struct ctf_write_piece {
	const void *data;
	size_t len;
};

/*
 * Append a packet, given as n pieces, to a stream file whose end is offset,
 * and its entry for pi to the index file. Returns 0, or -errno with both
 * files taken back to whole packets (ctf_write_rewind()); *ret_broken is
 * set when even that failed and the files can take no more packets.
 */
int ctf_write_packet(int fd, uint64_t offset, int idx_fd, const struct ctf_write_piece *pieces,
		     unsigned int n, const struct ctf_packet_info *pi, bool *ret_broken);

#endif
