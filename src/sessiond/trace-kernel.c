/* SPDX-License-Identifier: MIT */
/*
 * The kernel domain of a session, on top of src/sessiond/kernel (eBPF):
 *
 *   first start   kernel_channel_create() per kernel channel of the session,
 *                 its enabled event rules and contexts; the trace directory
 *                 <output>/kernel/ with one stream file per channel and stream
 *                 (<channel>_<cpu>, the statedump stream last) and index/.
 *   recording     the kernel's consumer thread of each channel calls
 *                 on_record(): the record gets its event header and is
 *                 appended to the stream's packet buffer; a full buffer is
 *                 written as one CTF packet (LTTng's packet header/context,
 *                 page-padded) plus its index entry. In overwrite (flight
 *                 recorder) mode the BPF ring is still drained as in discard
 *                 mode, but a full packet goes into a per-stream ring of
 *                 num_subbuf packet buffers instead of the file: the oldest
 *                 one is dropped (its sequence number stays used, so readers
 *                 report it as discarded, like LTTng's overwrite mode).
 *   stop          kernel_channel_stop() delivers every pending record, those
 *                 of recorder runs in flight included (kernel.c says how); the
 *                 partial packets (and in overwrite mode the retained ones,
 *                 oldest first) are written and the metadata rewritten (it
 *                 lists the events enabled so far), so the trace on disk is
 *                 complete when `strata stop` returns.
 *   destroy       channels released (the tracer keeps its attachments).
 *
 * The packet buffers of a channel are only touched by its consumer thread
 * while recording, and by the control thread while stopped (kernel_channel_
 * stop()/start() order the two).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <strata/error.h>

#include "ctf/writer.h"
#include "kernel.h"
#include "sessiond/trace.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/common.h"

/* A finished packet kept in memory (overwrite mode). */
struct ks_packet {
	uint8_t *buf;
	size_t size;
	uint64_t nr_events;
	struct ctf_packet_info pi;
};

struct ks_stream {
	int fd;
	int idx_fd;
	uint8_t *buf; /* packet being filled: header space, then records */
	struct ks_packet *ring; /* overwrite mode: nr_slots buffers, buf is ring[cur].buf */
	unsigned int cur; /* slot being filled */
	unsigned int kept; /* finished packets retained, in the slots before cur */
	size_t len; /* bytes used, header included */
	uint64_t ts_begin;
	uint64_t ts_last;
	uint64_t seq;
	uint64_t offset; /* bytes already in the stream file */
	bool broken; /* a failed write could not be taken back: write no more */
	uint64_t lost; /* records too large for a packet, or in packets not written */
	uint64_t nr_events; /* in the packet being filled */
	bool has_events;
};

struct ks_channel {
	struct ks_session *ks;
	struct kernel_channel *kc;
	uint32_t stream_id;
	unsigned int nr_streams;
	size_t cap; /* packet size (the channel's sub-buffer size) */
	unsigned int nr_slots; /* overwrite mode: packets kept per stream, else 0 */
	bool compact;
	int err; /* first write error, reported at stop */
	struct ks_stream *streams;
	char name[IPC_NAME_MAX];
};

struct ks_session {
	unsigned int n;
	struct ks_channel chans[KERNEL_MAX_CHANNELS];
	char dir[IPC_PATH_MAX + 16];
	uint8_t uuid[16];
	char datetime[32];
	char clock_uuid[40];
	int64_t clock_offset;
};

_Static_assert(SD_MAX_KERNEL_COUNTERS == KERNEL_MAX_COUNTERS, "state.h and kernel.h disagree");

/* Bounds of STRATA_SESSIOND_TEST_RECORD_DELAY's milliseconds. */
#define SDK_TEST_DELAY_MAX_MS 1000

/*
 * Set once by sdk_configure(), before any thread starts:
 * STRATA_SESSIOND_TEST_RECORD_DELAY=<syscall>:<ms> makes the recorder hold
 * each entry record of that syscall ms between deciding to record it and
 * committing it (kernel_tracer_test_delay()), so that a test can stop while
 * a record is in flight (tests/e2e/session-kernel-stop.sh). The recorder
 * spins with preemption off, hence the bound (1 s).
 */
static char test_delay_syscall[64];
static unsigned int test_delay_ms;

int sdk_configure(void)
{
	const char *v = getenv("STRATA_SESSIOND_TEST_RECORD_DELAY");
	const char *colon;
	uint64_t ms;
	size_t n;

	if (!v)
		return 0;
	colon = strrchr(v, ':');
	n = colon ? (size_t)(colon - v) : 0;
	if (!n || n >= sizeof(test_delay_syscall) ||
	    !sd_setting_number(colon + 1, 1, SDK_TEST_DELAY_MAX_MS, &ms)) {
		log_error("Failed to use STRATA_SESSIOND_TEST_RECORD_DELAY='%s': expected "
			  "<syscall>:<ms>, ms from 1 to %d (unset it for no delay)",
			  v, SDK_TEST_DELAY_MAX_MS);
		return -EINVAL;
	}
	memcpy(test_delay_syscall, v, n);
	test_delay_syscall[n] = '\0';
	if (!kernel_syscall_exists(test_delay_syscall)) {
		log_error("Failed to use STRATA_SESSIOND_TEST_RECORD_DELAY='%s': no system call "
			  "'%s' (run `strata list -k --syscall`)",
			  v, test_delay_syscall);
		return -EINVAL;
	}
	test_delay_ms = (unsigned int)ms;
	log_warn("Committing each %s entry record %u ms late (test mode)", test_delay_syscall,
		 test_delay_ms);
	return 0;
}

int sdk_check(struct sd_daemon *d, char *msg)
{
	struct kernel_tracer *kt;
	int ret;

	if (d->kernel)
		return 0;
	ret = kernel_tracer_create(&kt, msg, IPC_MSG_MAX);
	if (ret < 0) {
		if (!msg[0])
			snprintf(msg, IPC_MSG_MAX, "Kernel tracing is not available: %s",
				 strata_strerror(ret));
		return ret;
	}
	if (test_delay_ms)
		kernel_tracer_test_delay(kt, test_delay_syscall, test_delay_ms * 1000000ull);
	d->kernel = kt;
	return 0;
}

void sdk_release(struct sd_daemon *d)
{
	if (d->kernel)
		kernel_tracer_destroy(d->kernel);
	d->kernel = NULL;
}

struct list_ctx {
	struct ipc_reply *rep;
	uint8_t type;
	uint32_t cap;
};

static int list_cb(void *opaque, const char *system, const char *name)
{
	struct list_ctx *lc = opaque;
	struct ipc_reply *rep = lc->rep;
	struct ipc_tracepoint_info *t;

	(void)system;
	if (rep->nr_tracepoints >= IPC_MAX_TRACEPOINTS)
		return 1;
	if (rep->nr_tracepoints == lc->cap) {
		uint32_t cap = lc->cap ? lc->cap * 2 : 256;

		t = realloc(rep->tracepoints, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		rep->tracepoints = t;
		lc->cap = cap;
	}
	t = &rep->tracepoints[rep->nr_tracepoints++];
	*t = (struct ipc_tracepoint_info){ .type = lc->type };
	snprintf(t->name, sizeof(t->name), "%s", name);
	return 0;
}

int sdk_list(struct sd_daemon *d, struct ipc_reply *rep)
{
	struct list_ctx lc = { .rep = rep, .type = IPC_EVENT_TRACEPOINT };
	int ret;

	ret = kernel_tracer_list(d->kernel, false, list_cb, &lc);
	if (ret >= 0) {
		lc.type = IPC_EVENT_SYSCALL;
		ret = kernel_tracer_list(d->kernel, true, list_cb, &lc);
	}
	return ret < 0 ? ret : 0;
}

struct match_ctx {
	const char *pattern;
	bool found;
};

static int match_cb(void *opaque, const char *system, const char *name)
{
	struct match_ctx *mc = opaque;
	char full[512];

	snprintf(full, sizeof(full), "%s:%s", system ? system : "", name);
	mc->found = sd_name_match(mc->pattern, name) || sd_name_match(mc->pattern, full);
	return mc->found;
}

int sdk_check_event(struct sd_daemon *d, const char *name, uint8_t type, char *msg)
{
	struct match_ctx mc = { .pattern = name };
	int ret;

	ret = sdk_check(d, msg);
	if (ret < 0)
		return ret;
	if (type != IPC_EVENT_SYSCALL)
		kernel_tracer_list(d->kernel, false, match_cb, &mc);
	if (!mc.found && type != IPC_EVENT_TRACEPOINT)
		kernel_tracer_list(d->kernel, true, match_cb, &mc);
	if (mc.found)
		return 0;
	snprintf(msg, IPC_MSG_MAX,
		 "Kernel %s '%s' not found: run `strata list -k%s` to see the available ones",
		 type == IPC_EVENT_SYSCALL ? "system call" : "event", name,
		 type == IPC_EVENT_SYSCALL ? " --syscall" : "");
	return -ENOENT;
}

static enum kernel_event_type event_type(uint8_t t)
{
	switch (t) {
	case IPC_EVENT_SYSCALL:
		return KERNEL_EVENT_SYSCALL;
	case IPC_EVENT_ALL:
		return KERNEL_EVENT_ALL;
	case IPC_EVENT_PROBE:
		return KERNEL_EVENT_PROBE;
	case IPC_EVENT_FUNCTION:
		return KERNEL_EVENT_FUNCTION;
	case IPC_EVENT_USERSPACE_PROBE:
		return KERNEL_EVENT_USERSPACE_PROBE;
	case IPC_EVENT_USERSPACE_FUNCTION:
		return KERNEL_EVENT_USERSPACE_FUNCTION;
	default:
		return KERNEL_EVENT_TRACEPOINT;
	}
}

int sdk_check_context(struct sd_daemon *d, const char *name, char *msg)
{
	int ret = sdk_check(d, msg);

	return ret < 0 ? ret : kernel_context_check(name, msg, IPC_MSG_MAX);
}

int sdk_check_probe(struct sd_daemon *d, uint8_t type, const char *location, char *msg)
{
	int ret = sdk_check(d, msg);

	return ret < 0 ?
		       ret :
		       kernel_probe_check(d->kernel, event_type(type), location, msg, IPC_MSG_MAX);
}

/* Enable (or disable) one event rule in a kernel channel. */
static int channel_apply_event(struct kernel_channel *kc, const struct sd_event *e, bool on,
			       char *why, size_t len)
{
	const char *pattern = strcmp(e->name, "*") ? e->name : NULL;

	if (e->probe)
		return on ? kernel_channel_enable_probe(kc, e->name, event_type(e->type), e->probe,
							why, len) :
			    kernel_channel_disable_probe(kc, e->name);
	if (on)
		return kernel_channel_enable_event(kc, pattern, event_type(e->type), why, len);
	return kernel_channel_disable_event(kc, pattern, event_type(e->type));
}

/* Append a finished packet to the stream file and its index entry. */
static void write_packet(struct ks_channel *kc, struct ks_stream *st, const uint8_t *buf,
			 size_t size, const struct ctf_packet_info *pi, uint64_t nr_events)
{
	struct ctf_write_piece piece = { buf, size };
	int ret;

	if (st->broken) {
		st->lost += nr_events;
		return;
	}
	ret = ctf_write_packet(st->fd, st->offset, st->idx_fd, &piece, 1, pi, &st->broken);
	if (ret < 0) {
		if (!kc->err)
			kc->err = ret;
		/* Counted: the next packets' events_discarded and `strata list`. */
		st->lost += nr_events;
		return;
	}
	st->offset += size;
}

/*
 * Finish the stream's current packet (if it has events) and start a new one:
 * written at once in discard mode; in overwrite mode kept in the ring, where
 * it replaces the oldest packet once num_subbuf are held. Every finished
 * packet takes a sequence number, so the dropped ones show as a gap.
 */
static void flush_packet(struct ks_channel *kc, unsigned int s)
{
	struct ks_stream *st = &kc->streams[s];
	struct ctf_packet_info pi = { .stream_id = kc->stream_id,
				      .stream_instance_id = s,
				      .cpu_id = s };
	size_t size;

	if (!st->has_events)
		return;
	size = ctf_packet_size(st->len - CTF_PACKET_HEADER_LEN);
	memcpy(pi.uuid, kc->ks->uuid, 16);
	pi.timestamp_begin = st->ts_begin;
	pi.timestamp_end = st->ts_last;
	pi.content_size = (uint64_t)st->len * 8;
	pi.packet_size = (uint64_t)size * 8;
	pi.packet_seq_num = st->seq++;
	pi.events_discarded = kernel_channel_discarded(kc->kc, s) + st->lost;
	ctf_packet_header_write(st->buf, &pi, false);
	memset(st->buf + st->len, 0, size - st->len);
	if (kc->nr_slots) {
		struct ks_packet *p = &st->ring[st->cur];

		p->size = size;
		p->nr_events = st->nr_events;
		p->pi = pi;
		/* The slot filled next holds the oldest packet when all are kept. */
		if (st->kept < kc->nr_slots - 1)
			st->kept++;
		st->cur = (st->cur + 1) % kc->nr_slots;
		st->buf = st->ring[st->cur].buf;
	} else {
		write_packet(kc, st, st->buf, size, &pi, st->nr_events);
	}
	st->len = CTF_PACKET_HEADER_LEN;
	st->has_events = false;
	st->nr_events = 0;
}

/*
 * Overwrite mode, consumer idle: finish the partial packet and write the
 * retained ones, oldest first (at most num_subbuf packets in all).
 */
static void write_retained(struct ks_channel *kc, unsigned int s)
{
	struct ks_stream *st = &kc->streams[s];
	unsigned int n = kc->nr_slots, kept = st->kept, first;

	if (st->has_events) {
		/* The slot to fill next keeps its (oldest) packet: nothing is
		 * recorded until the next start, so all n slots are written. */
		flush_packet(kc, s);
		kept++;
	}
	first = (st->cur + n - kept) % n;
	for (unsigned int i = 0; i < kept; i++) {
		struct ks_packet *p = &st->ring[(first + i) % n];

		write_packet(kc, st, p->buf, p->size, &p->pi, p->nr_events);
	}
	st->kept = 0;
}

/* LTTng's event headers; extended when the id or the time delta is too big. */
static size_t put_header(uint8_t *p, bool compact, uint32_t id, uint64_t ts, uint64_t last,
			 bool first)
{
	if (compact) {
		if (!first && id < 31 && ((ts - last) >> 27) == 0) {
			uint32_t w = (id & 0x1f) | (uint32_t)((ts & ((1u << 27) - 1)) << 5);

			memcpy(p, &w, 4);
			return 4;
		}
		p[0] = 31;
		memcpy(p + 1, &id, 4);
		memcpy(p + 5, &ts, 8);
		return 13;
	}
	if (!first && id < 65535 && ((ts - last) >> 32) == 0) {
		uint16_t sid = (uint16_t)id;
		uint32_t low = (uint32_t)ts;

		memcpy(p, &sid, 2);
		memcpy(p + 2, &low, 4);
		return 6;
	}
	{
		uint16_t ext = 65535;

		memcpy(p, &ext, 2);
		memcpy(p + 2, &id, 4);
		memcpy(p + 6, &ts, 8);
		return 14;
	}
}

static void on_record(void *opaque, const struct kernel_record *rec)
{
	struct ks_channel *kc = opaque;
	struct ks_stream *st;
	size_t need = 14 + rec->context_len + rec->payload_len;
	bool first;

	if (rec->stream >= kc->nr_streams)
		return;
	st = &kc->streams[rec->stream];
	if (st->len + need > kc->cap)
		flush_packet(kc, rec->stream);
	if (CTF_PACKET_HEADER_LEN + need > kc->cap) {
		st->lost++;
		return;
	}
	first = !st->has_events;
	if (first)
		st->ts_begin = rec->timestamp;
	st->len += put_header(st->buf + st->len, kc->compact, rec->event_id, rec->timestamp,
			      st->ts_last, first);
	memcpy(st->buf + st->len, rec->context, rec->context_len);
	st->len += rec->context_len;
	memcpy(st->buf + st->len, rec->payload, rec->payload_len);
	st->len += rec->payload_len;
	st->ts_last = rec->timestamp;
	st->has_events = true;
	st->nr_events++;
}

static int write_metadata(struct ks_session *ks)
{
	struct kernel_channel *chans[KERNEL_MAX_CHANNELS];
	struct kernel_trace_info info = { .creation_datetime = ks->datetime,
					  .clock_uuid = ks->clock_uuid[0] ? ks->clock_uuid : NULL,
					  .clock_offset = ks->clock_offset };
	char path[IPC_PATH_MAX + 64], tmp[IPC_PATH_MAX + 80];
	char *text = NULL;
	uint8_t *pkts;
	size_t n;
	int fd, ret;

	memcpy(info.uuid, ks->uuid, 16);
	for (unsigned int i = 0; i < ks->n; i++)
		chans[i] = ks->chans[i].kc;
	ret = kernel_metadata(chans, ks->n, &info, &text);
	if (ret < 0)
		return ret;
	n = ctf_metadata_packet_count(strlen(text));
	pkts = calloc(n, CTF_METADATA_PACKET_SIZE);
	if (!pkts) {
		free(text);
		return -ENOMEM;
	}
	ctf_metadata_packetize(ks->uuid, false, text, strlen(text), pkts);
	free(text);
	/* Replace it whole: a reader never sees half of the new one. */
	snprintf(path, sizeof(path), "%s/metadata", ks->dir);
	snprintf(tmp, sizeof(tmp), "%s/.metadata.tmp", ks->dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0) {
		free(pkts);
		return -errno;
	}
	ret = ctf_write_full(fd, pkts, n * CTF_METADATA_PACKET_SIZE);
	free(pkts);
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -errno;
	return ret;
}

static void ks_free(struct ks_session *ks)
{
	if (!ks)
		return;
	for (unsigned int i = 0; i < ks->n; i++) {
		struct ks_channel *kc = &ks->chans[i];

		if (kc->kc)
			kernel_channel_destroy(kc->kc);
		for (unsigned int s = 0; kc->streams && s < kc->nr_streams; s++) {
			if (kc->streams[s].fd >= 0)
				close(kc->streams[s].fd);
			if (kc->streams[s].idx_fd >= 0)
				close(kc->streams[s].idx_fd);
			if (kc->streams[s].ring) {
				for (unsigned int j = 0; j < kc->nr_slots; j++)
					free(kc->streams[s].ring[j].buf);
				free(kc->streams[s].ring);
			} else {
				free(kc->streams[s].buf);
			}
		}
		free(kc->streams);
	}
	free(ks);
}

static int open_streams(struct ks_session *ks, struct ks_channel *kc)
{
	uint8_t hdr[CTF_INDEX_HEADER_LEN];
	char path[IPC_PATH_MAX + 600];

	kc->nr_streams = kernel_channel_nr_streams(kc->kc);
	kc->streams = calloc(kc->nr_streams, sizeof(*kc->streams));
	if (!kc->streams)
		return -ENOMEM;
	for (unsigned int s = 0; s < kc->nr_streams; s++) {
		struct ks_stream *st = &kc->streams[s];

		st->fd = st->idx_fd = -1;
		st->len = CTF_PACKET_HEADER_LEN;
		if (kc->nr_slots) {
			/* Bounded by the channel's size: num_subbuf x subbuf_size. */
			st->ring = calloc(kc->nr_slots, sizeof(*st->ring));
			if (!st->ring)
				return -ENOMEM;
			for (unsigned int i = 0; i < kc->nr_slots; i++) {
				st->ring[i].buf = malloc(kc->cap);
				if (!st->ring[i].buf)
					return -ENOMEM;
			}
			st->buf = st->ring[0].buf;
		} else {
			st->buf = malloc(kc->cap);
			if (!st->buf)
				return -ENOMEM;
		}
		snprintf(path, sizeof(path), "%s/%s_%u", ks->dir, kc->name, s);
		st->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
		if (st->fd < 0)
			return -errno;
		snprintf(path, sizeof(path), "%s/index/%s_%u.idx", ks->dir, kc->name, s);
		st->idx_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
		if (st->idx_fd < 0)
			return -errno;
		ctf_index_header_write(hdr);
		if (ctf_write_full(st->idx_fd, hdr, sizeof(hdr)) < 0)
			return -EIO;
	}
	return 0;
}

/*
 * Enable an event rule in a kernel channel: a plain rule, or a filtered one
 * whose filter runs in the eBPF program (its id kept in e->kernel_rule).
 */
static int rule_enable(struct ks_channel *kc, struct sd_event *e, char *msg)
{
	const char *pattern = strcmp(e->name, "*") ? e->name : NULL;
	int ret;

	if (!e->bytecode)
		return channel_apply_event(kc->kc, e, true, msg, IPC_MSG_MAX);
	if (e->kernel_rule)
		return 0;
	ret = kernel_channel_add_filter(kc->kc, pattern, event_type(e->type), e->bytecode,
					e->bytecode_len, msg, IPC_MSG_MAX);
	if (ret >= 0)
		e->kernel_rule = ret + 1;
	return ret < 0 ? ret : 0;
}

static void rule_disable(struct ks_channel *kc, struct sd_event *e)
{
	if (e->bytecode) {
		if (e->kernel_rule)
			kernel_channel_remove_filter(kc->kc, e->kernel_rule - 1);
		e->kernel_rule = 0;
		return;
	}
	channel_apply_event(kc->kc, e, false, NULL, 0);
}

static const enum kernel_tracker_attr kernel_attrs[IPC_TRACKER_COUNT] = {
	[IPC_TRACKER_PID] = KERNEL_TRACKER_PID, [IPC_TRACKER_VPID] = KERNEL_TRACKER_VPID,
	[IPC_TRACKER_UID] = KERNEL_TRACKER_UID, [IPC_TRACKER_VUID] = KERNEL_TRACKER_VUID,
	[IPC_TRACKER_GID] = KERNEL_TRACKER_GID, [IPC_TRACKER_VGID] = KERNEL_TRACKER_VGID,
};

/* The session's kernel tracker attr, in one channel (the eBPF program checks it). */
static int tracker_apply(struct ks_channel *kc, const struct sd_session *s, uint8_t attr, char *msg)
{
	const struct sd_tracker *t = &s->trackers[SD_DOMAIN_INDEX(IPC_DOMAIN_KERNEL)][attr];
	uint32_t *ids = NULL;
	int ret;

	if (t->nr_values) {
		ids = calloc(t->nr_values, sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		for (uint32_t i = 0; i < t->nr_values; i++)
			ids[i] = (uint32_t)t->values[i].id;
	}
	ret = kernel_channel_set_tracker(kc->kc, kernel_attrs[attr],
					 t->policy == IPC_TRACKER_SET  ? KERNEL_TRACKER_SET :
					 t->policy == IPC_TRACKER_NONE ? KERNEL_TRACKER_NONE :
									 KERNEL_TRACKER_ALL,
					 ids, t->nr_values, msg, IPC_MSG_MAX);
	free(ids);
	return ret;
}

void sdk_tracker_changed(struct sd_daemon *d, struct sd_session *s, uint8_t attr)
{
	struct ks_session *ks = s->kernel_priv;
	char msg[IPC_MSG_MAX] = "";

	(void)d;
	for (unsigned int i = 0; ks && i < ks->n; i++)
		if (tracker_apply(&ks->chans[i], s, attr, msg) < 0)
			log_warn("Failed to apply a kernel tracker of session '%s': %s", s->name,
				 msg);
}

/* Create the kernel channels of a session at its first start. */
static int ks_create(struct sd_daemon *d, struct sd_session *s, struct ks_session **ret, char *msg)
{
	struct ks_session *ks = calloc(1, sizeof(*ks));
	char path[IPC_PATH_MAX + 32];
	struct sd_fscred cred;
	int ret_code;

	if (!ks)
		return -ENOMEM;
	snprintf(ks->dir, sizeof(ks->dir), "%s/kernel", s->output);
	snprintf(path, sizeof(path), "%s/index", ks->dir);
	ret_code = sd_fscred_enter(&cred, s);
	if (ret_code == 0)
		ret_code = fs_mkdir_p(path, 0750);
	sd_fscred_leave(&cred);
	if (ret_code < 0) {
		snprintf(msg, IPC_MSG_MAX, "Failed to create the trace directory '%.600s': %s",
			 ks->dir, strerror(-ret_code));
		goto err;
	}
	ret_code = ctf_uuid_generate(ks->uuid);
	if (ret_code < 0)
		goto err;
	ctf_format_datetime(time(NULL), ks->datetime);
	ks->clock_offset = ctf_clock_measure_monotonic_offset();
	{
		FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

		if (f) {
			if (fgets(ks->clock_uuid, sizeof(ks->clock_uuid), f))
				ks->clock_uuid[strcspn(ks->clock_uuid, "\n")] = '\0';
			fclose(f);
		}
	}
	for (uint32_t i = 0; i < s->kernel.nr_channels; i++) {
		struct sd_channel *c = s->kernel.channels[i];
		struct kernel_channel_attr attr = { .subbuf_size = c->subbuf_size,
						    .num_subbuf = c->num_subbuf,
						    .overwrite = c->overwrite };
		struct ks_channel *kc = &ks->chans[ks->n];

		if (ks->n >= KERNEL_MAX_CHANNELS) {
			snprintf(msg, IPC_MSG_MAX,
				 "Too many kernel channels: at most %d over all sessions",
				 KERNEL_MAX_CHANNELS);
			ret_code = -ENOSPC;
			goto err;
		}
		kc->ks = ks;
		kc->stream_id = ks->n;
		kc->cap = MAX(c->subbuf_size, (uint64_t)CTF_PACKET_ALIGN);
		if (c->overwrite)
			kc->nr_slots = MAX(c->num_subbuf, 2u);
		snprintf(kc->name, sizeof(kc->name), "%s", c->name);
		ret_code = kernel_channel_create(d->kernel, c->name, &attr, on_record, kc, &kc->kc,
						 msg, IPC_MSG_MAX);
		if (ret_code < 0)
			goto err;
		ks->n++;
		for (uint8_t a = 0; a < IPC_TRACKER_COUNT; a++) {
			ret_code = tracker_apply(kc, s, a, msg);
			if (ret_code < 0)
				goto err;
		}
		for (uint32_t j = 0; j < c->nr_contexts; j++) {
			ret_code = kernel_channel_add_context(kc->kc, c->contexts[j], msg,
							      IPC_MSG_MAX);
			if (ret_code < 0)
				goto err;
		}
		for (uint32_t j = 0; j < c->nr_events; j++) {
			struct sd_event *e = &c->events[j];

			if (!e->enabled)
				continue;
			ret_code = rule_enable(kc, e, msg);
			if (ret_code < 0) {
				if (!e->probe && (!msg[0] || ret_code == -ENOENT))
					snprintf(
						msg, IPC_MSG_MAX,
						"Kernel event '%s' matches no %s: run `strata list "
						"-k` to see the available ones",
						e->name,
						e->type == IPC_EVENT_SYSCALL ? "system call" :
									       "tracepoint");
				goto err;
			}
		}
		/* The trace files are the session owner's. */
		ret_code = sd_fscred_enter(&cred, s);
		if (ret_code == 0)
			ret_code = open_streams(ks, kc);
		sd_fscred_leave(&cred);
		if (ret_code < 0) {
			snprintf(msg, IPC_MSG_MAX,
				 "Failed to create the stream files in '%.600s': %s", ks->dir,
				 strerror(-ret_code));
			goto err;
		}
	}
	*ret = ks;
	return 0;
err:
	ks_free(ks);
	return ret_code;
}

int sdk_session_start(struct sd_daemon *d, struct sd_session *s, char *msg)
{
	struct ks_session *ks = s->kernel_priv;
	int ret;

	if (!s->kernel.nr_channels)
		return 0;
	if (!d->kernel) {
		ret = sdk_check(d, msg);
		if (ret < 0)
			return ret;
	}
	if (!ks) {
		ret = ks_create(d, s, &ks, msg);
		if (ret < 0)
			return ret;
		s->kernel_priv = ks;
	}
	for (unsigned int i = 0; i < ks->n; i++) {
		/* Records (the statedump) arrive before start returns: decide the
		 * header first; it is the value start freezes. */
		ks->chans[i].compact = kernel_channel_compact_header(ks->chans[i].kc);
		/* ks->chans follows s->kernel.channels; a disabled one records nothing. */
		if (i < s->kernel.nr_channels && !s->kernel.channels[i]->enabled)
			continue;
		ret = kernel_channel_start(ks->chans[i].kc);
		if (ret < 0) {
			snprintf(msg, IPC_MSG_MAX, "Failed to start kernel channel '%s': %s",
				 ks->chans[i].name, strata_strerror(ret));
			while (i--)
				kernel_channel_stop(ks->chans[i].kc);
			return ret;
		}
	}
	ret = write_metadata(ks);
	if (ret < 0)
		log_warn("Failed to write the kernel metadata of session '%s': %s", s->name,
			 strata_strerror(ret));
	return 0;
}

void sdk_channel_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c)
{
	struct ks_session *ks = s->kernel_priv;

	(void)d;
	if (!ks || !s->active)
		return;
	for (unsigned int i = 0; i < ks->n && i < s->kernel.nr_channels; i++) {
		if (s->kernel.channels[i] != c)
			continue;
		if (c->enabled)
			kernel_channel_start(ks->chans[i].kc);
		else
			kernel_channel_stop(ks->chans[i].kc);
	}
}

int sdk_session_stop(struct sd_daemon *d, struct sd_session *s, char *msg)
{
	struct ks_session *ks = s->kernel_priv;
	int ret, err = 0;

	(void)d;
	if (!ks)
		return 0;
	for (unsigned int i = 0; i < ks->n; i++) {
		struct ks_channel *kc = &ks->chans[i];

		ret = kernel_channel_stop(kc->kc);
		if (ret < 0)
			log_warn("Failed to wait for the kernel recorder's runs in flight at the "
				 "stop of channel '%s': %s; a record of them may come in the next "
				 "start",
				 kc->name, strata_strerror(ret));
		/* The consumer thread is idle now: flush what it left. */
		for (unsigned int st = 0; st < kc->nr_streams; st++) {
			if (kc->nr_slots)
				write_retained(kc, st);
			else
				flush_packet(kc, st);
		}
		if (i < s->kernel.nr_channels) {
			struct sd_channel *c = s->kernel.channels[i];

			c->discarded = 0;
			for (unsigned int st = 0; st < kc->nr_streams; st++)
				c->discarded +=
					kernel_channel_discarded(kc->kc, st) + kc->streams[st].lost;
		}
		if (kc->err && !err) {
			err = kc->err;
			snprintf(msg, IPC_MSG_MAX,
				 "Failed to write the kernel trace of channel '%s': %s", kc->name,
				 strerror(-err));
		}
	}
	ret = write_metadata(ks);
	if (ret < 0 && !err) {
		err = ret;
		snprintf(msg, IPC_MSG_MAX, "Failed to write the kernel metadata in '%.600s': %s",
			 ks->dir, strata_strerror(ret));
	}
	return err;
}

void sdk_session_destroy(struct sd_daemon *d, struct sd_session *s)
{
	(void)d;
	ks_free(s->kernel_priv);
	s->kernel_priv = NULL;
}

void sdk_event_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c,
		       struct sd_event *e)
{
	struct ks_session *ks = s->kernel_priv;
	char why[IPC_MSG_MAX] = "";

	(void)d;
	if (!ks || c->domain != IPC_DOMAIN_KERNEL)
		return;
	for (unsigned int i = 0; i < ks->n; i++) {
		struct ks_channel *kc = &ks->chans[i];
		if (strcmp(kc->name, c->name) != 0)
			continue;
		if (e->enabled) {
			if (rule_enable(kc, e, why) < 0)
				log_warn("Failed to enable kernel event '%s': %s", e->name, why);
			else if (write_metadata(ks) < 0)
				log_warn("Failed to rewrite the kernel metadata of '%s'", s->name);
		} else {
			rule_disable(kc, e);
		}
	}
}
