/* SPDX-License-Identifier: MIT */
/*
 * The user-space domain of a session: buffers for apps, the consumer, and
 * the CTF trace in LTTng's layout (DESIGN.md §6).
 *
 *   trace    one per session and buffer owner: a user (per-UID buffers,
 *            <output>/ust/uid/<uid>/<bits>-bit) or a process (per-PID,
 *            <output>/ust/pid/<procname>-<pid>-<date>). It holds the
 *            metadata (preamble, one stream class per channel, one event
 *            class per registered (event, channel)) and one buffer per
 *            channel.
 *   buffer   a lib/ringbuf channel (nr_cpus per-CPU buffers in a memfd)
 *            sent to every app of its owner, and its stream files
 *            <channel>_<cpu> plus index/<channel>_<cpu>.idx.
 *   consumer two threads for the daemon. The reader drains closed
 *            sub-buffers of every buffer (woken per sub-buffer through the
 *            ring buffer's eventfd, and by a 100 ms timer for switch timers
 *            and stragglers) into a FIFO of packet copies; the writer
 *            writes each as one CTF packet. A write() stalled on the file
 *            system (tens of ms on a busy machine, at times > 100 ms) then
 *            delays the files, not the release of sub-buffers: the rings
 *            hold ~20 ms of events at 2 M events/s with default buffers.
 *
 *     rings --rb_consumer_read--> reader --copy--> FIFO --> writer --> files
 *            (cons.lock: buffer list, ring state)  (wq.lock)  (no lock on I/O)
 *
 *            The FIFO holds at most queue_max bytes (US_QUEUE_MAX unless
 *            STRATA_SESSIOND_QUEUE_MAX says otherwise); when it is full the
 *            reader leaves packets in the rings (the apps drop and count
 *            new events) and sets reader_waits; the writer, once it has
 *            made room, kicks it awake (kick_fd) rather than let it sleep
 *            out its poll. Packets of all buffers go through the one FIFO:
 *            each stream's packets stay in order.
 *
 *              reader: wq_room() no --> reader_waits = true, back to poll()
 *              writer: packet written, bytes < queue_max, reader_waits
 *                      --> reader_waits = false, kick() --> reader drains
 *
 * Threads: the control thread (event loop) creates and destroys traces and
 * writes the metadata; the reader and the writer above. `cons.lock` guards
 * the buffer list and every buffer's ring consumer state; the control thread
 * takes it to add, flush (stop) or remove buffers. A buffer's stream state
 * (offsets, last packet, write_err) belongs to the writer while packets of
 * it are queued; the control thread touches it only after wq_wait_idle().
 * The writer never takes cons.lock, so waiting for it under cons.lock is
 * safe.
 *
 * Records are stamped with CLOCK_MONOTONIC ns by the apps (protocol 1.x), the
 * clock kernel events use, so both domains share one timeline; since 1.2 the
 * apps compute it from the TSC through the daemon's page (clock.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include <strata/error.h>

#include "ctf/writer.h"
#include "ringbuf/ringbuf.h"
#include "sessiond/app.h"
#include "sessiond/trace.h"
#include "strata-config.h"
#include "ust/clock.h"
#include "ust/context.h"
#include "ust/header.h"
#include "common/context-names.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/common.h"

#define US_MAX_BUFFERS 1024
/* One trace's metadata: thousands of events with every field type fit. */
#define US_METADATA_MAX (32u << 20)
#define US_POLL_MS 100
/* Packet copies waiting for the writer: ~0.5 s at 100 MB/s. */
#define US_QUEUE_MAX (64u << 20)
/* Bounds of STRATA_SESSIOND_QUEUE_MAX (sdu_configure()). */
#define US_QUEUE_MIN_SETTING 4096u
#define US_QUEUE_MAX_SETTING (1u << 30)
/* Bound of STRATA_SESSIOND_TEST_POLL_MS (sdu_configure()): an hour. */
#define US_POLL_MAX_SETTING 3600000u
/* Copies kept for reuse (fresh pages cost a fault each), in bytes. */
#define US_POOL_MAX (16u << 20)
/*
 * The reader must run within ~20 ms of a sub-buffer closing (what default
 * buffers hold at 2 M events/s); on this 2-vCPU VM under build load a
 * SCHED_OTHER thread, even at nice -10, waits 35+ ms at times. Its work is
 * bounded (a copy, ~0.1 ms per 512 KiB packet, at most US_QUEUE_MAX ahead
 * of the writer) and it sleeps in poll() otherwise, so it runs SCHED_FIFO
 * at the lowest real-time priority; the kernel's RT throttling bounds it
 * anyway. Without the privilege: nice -10, or the daemon's own priority.
 * The writer needs ~15 % of a CPU at 100 MB/s (page-cache writes cost
 * ~1.4 ms/MB of system time here); under a load of 10+ on 2 vCPUs a nice 0
 * thread gets less and the FIFO fills: nice -10 too (best effort). With
 * autogroups (sched_autogroup_enabled, Debian's default) a thread's nice
 * only ranks it inside its session's group and the groups share the CPUs
 * evenly, so a daemon alone in its own session (setsid) raises its
 * group's nice as well; it never does for a session it merely joined.
 */
#define US_READER_RT_PRIO 1
#define US_CONSUMER_NICE (-10)

/*
 * Set once by sdu_configure(), before any thread starts. A small queue_max
 * and the write gate let tests reach the full FIFO without writing 64 MiB:
 * the gate (STRATA_SESSIOND_TEST_WRITE_GATE, a named pipe) holds the writer
 * until a byte arrives for each packet, or for good at end of file, so the
 * FIFO fills while the apps keep writing (tests/e2e/session-fifo-full.sh).
 * A slow writer by a delay would make the test depend on timing.
 * poll_ms (STRATA_SESSIOND_TEST_POLL_MS) lengthens the reader's poll, which
 * otherwise hides a missing wake-up (the writer's kick) behind 100 ms.
 */
static size_t queue_max = US_QUEUE_MAX;
static char write_gate[IPC_PATH_MAX];
static int poll_ms = US_POLL_MS;

struct us_trace;

struct us_stream {
	int fd;
	int idx_fd;
	uint64_t offset;
	bool written; /* a packet was written: the fields below are valid */
	uint64_t last_seq; /* packet_seq_num of the last packet written */
	uint64_t last_end; /* its timestamp_end */
	uint64_t last_lost; /* its events_discarded */
	uint64_t last_ring_lost; /* the ring's part of it (lost_plausible()) */
	/* Records of packets that could not be written (a full disk): lost too. */
	uint64_t write_dropped;
	uint64_t seq_tried; /* the highest packet_seq_num given to write_packet() */
	bool broken; /* a failed write could not be taken back: write no more */
};

struct us_buffer {
	struct us_trace *trace;
	uint64_t channel_key;
	uint32_t stream_id;
	uint32_t nr_cpus;
	uint32_t switch_timer_us;
	uint64_t last_switch_ms;
	struct rb_channel *rb;
	struct rb_consumer *cons;
	struct us_stream *streams;
	uint8_t *pad; /* zeroes to pad packets to the page size (writer) */
	size_t pad_len;
	int err; /* ring error (reader, cons.lock) */
	uint64_t *seen_lost, *seen_ns; /* per CPU, for lost_plausible() (cons.lock) */
	bool lost_bogus_said;
	int write_err; /* file error (writer; others after wq_wait_idle) */
	_Atomic uint64_t write_lost; /* records in packets not written, all CPUs */
	bool listed; /* in the consumer's list */
};

struct us_event {
	uint64_t channel_key;
	uint64_t layout_hash; /* of the field descriptors: same name, same layout */
	uint32_t id;
	char name[STRATA_UST_SYM_NAME_LEN];
};

struct us_trace {
	int dirfd; /* t->dir, opened beneath the session's output directory */
	uid_t uid;
	uint32_t app_id; /* per-PID traces: the owner; 0 for per-UID */
	uint8_t bits;
	char dir[IPC_PATH_MAX + 160]; /* for messages */
	uint8_t uuid[16];
	struct ctf_metadata md;
	size_t md_written;
	bool md_full; /* US_METADATA_MAX reached: said once */
	int md_fd;
	uint32_t nr_buffers;
	struct us_buffer *buffers[SD_MAX_CHANNELS];
	uint32_t next_id[SD_MAX_CHANNELS];
	uint32_t nr_events;
	struct us_event *events;
};

/*
 * A session's user-space side. It outlives the model's session when a
 * destroy or a stop waits for apps (sessiond.h, struct sd_op): references
 * are held by the session (ust_priv) and by each pending continuation.
 */
struct us_session {
	uint32_t refs;
	uint64_t session_id;
	char name[IPC_NAME_MAX];
	int dirfd; /* the session's output directory */
	uint32_t nr_traces;
	struct us_trace **traces;
	uint32_t nr_apps; /* apps that have the session's channels */
	uint32_t *apps; /* their ids */
	time_t created;
};

static struct {
	pthread_mutex_t lock;
	pthread_t thread;
	bool running;
	bool quit;
	int kick_fd; /* eventfd: the buffer list changed, or quit */
	uint32_t nr;
	struct us_buffer *list[US_MAX_BUFFERS];
} cons = { .lock = PTHREAD_MUTEX_INITIALIZER, .kick_fd = -1 };

/* A packet copied out of a ring, waiting for the writer. */
/* The times of a packet's records (records_ts()). */
struct us_rec_ts {
	bool any;
	uint64_t first, max;
};

struct us_pkt {
	struct us_pkt *next;
	struct us_buffer *b;
	struct rb_packet pkt; /* pkt.data == buf; no rec_end */
	struct us_rec_ts rts;
	size_t cap;
	uint8_t buf[];
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a packet was queued, or quit */
	pthread_cond_t done; /* the writer finished a packet */
	pthread_t thread;
	struct us_pkt *head, *tail;
	struct us_pkt *pool; /* free copies */
	size_t pool_bytes;
	size_t bytes; /* data bytes queued or being written */
	bool busy; /* the writer holds a packet */
	bool reader_waits; /* the reader stopped on a full FIFO: kick it */
	bool quit;
} wq = { .lock = PTHREAD_MUTEX_INITIALIZER,
	 .work = PTHREAD_COND_INITIALIZER,
	 .done = PTHREAD_COND_INITIALIZER };

/*
 * The apps' clock (clock.c's page, or clock_gettime without one), so that a
 * packet end the consumer stamps is never before a record of that packet.
 */
static uint64_t now_ns(void)
{
	return ust_clock_read_monotonic_tsc();
}

/* ---- Consumer ----------------------------------------------------------- */

/*
 * The first and the latest timestamp of a packet's records, from their
 * event headers: every record the apps write into shared buffers starts
 * with the extended header (lib/ust/backend-ringbuf.h). Read by the reader
 * thread, while the record boundaries are known.
 */
static struct us_rec_ts records_ts(const struct rb_packet *pkt)
{
	struct us_rec_ts r = { 0 };
	uint32_t start = 0;

	for (uint64_t i = 0; pkt->rec_end && i < pkt->nr_records; i++) {
		uint32_t end = pkt->rec_end[i];
		uint16_t tag;
		uint64_t ts;

		if (end > pkt->size || end < start)
			break; /* not from lib/ringbuf: trust nothing */
		if (end - start >= UST_HEADER_EXTENDED_LEN) {
			memcpy(&tag, pkt->data + start, 2);
			memcpy(&ts, pkt->data + start + 6, 8);
			if (tag == UST_HEADER_ID_EXTENDED) {
				if (!r.any)
					r.first = ts;
				r.max = r.any ? MAX(r.max, ts) : ts;
				r.any = true;
			}
		}
		start = end;
	}
	return r;
}

static void kick(void);

/*
 * Loss counts come from shared memory, which an app may scribble on: a
 * count never goes down, and never grows faster than one record per
 * nanosecond (a margin above what any CPU writes) since the last plausible
 * value; past that it is garbage and the last plausible value stays.
 */
#define US_LOST_SLACK 1000000ull

static uint64_t lost_plausible(uint64_t prev, uint64_t prev_ns, uint64_t raw, uint64_t now_ns,
			       bool *bogus)
{
	if (raw < prev)
		return prev;
	if (raw - prev > (now_ns > prev_ns ? now_ns - prev_ns : 0) + US_LOST_SLACK) {
		*bogus = true;
		return prev;
	}
	return raw;
}

static void lost_bogus_warn(struct us_buffer *b, unsigned int cpu)
{
	if (b->lost_bogus_said)
		return;
	b->lost_bogus_said = true;
	log_warn("Buffer of channel key %llu cpu %u: an app wrote an impossible loss count in "
		 "shared memory; keeping the last plausible one",
		 (unsigned long long)b->channel_key, cpu);
}

/* Write one packet: by the writer, or by others after wq_wait_idle(). */
static void write_dropped(struct us_buffer *b, struct us_stream *st, const struct rb_packet *pkt)
{
	st->write_dropped += pkt->nr_records;
	atomic_fetch_add_explicit(&b->write_lost, pkt->nr_records, memory_order_relaxed);
}

static void write_packet(struct us_buffer *b, const struct rb_packet *pkt,
			 const struct us_rec_ts *rts)
{
	uint64_t ring_lost;
	struct us_stream *st = &b->streams[pkt->cpu];
	struct ctf_packet_info pi = { .stream_id = b->stream_id,
				      .stream_instance_id = pkt->cpu,
				      .cpu_id = pkt->cpu };
	uint8_t hdr[CTF_PACKET_HEADER_LEN];
	size_t size = ctf_packet_size(pkt->size);
	size_t pad = size - CTF_PACKET_HEADER_LEN - pkt->size;
	int ret;

	st->seq_tried = MAX(st->seq_tried, pkt->seq);
	if (st->broken) {
		write_dropped(b, st, pkt);
		return;
	}

	memcpy(pi.uuid, b->trace->uuid, 16);
	/*
	 * A stream's times never go back: the packet begins at or after the
	 * previous one's end and at or before its first record, and ends at or
	 * after its last. A packet the consumer closed early (switch timer,
	 * stop) ends at its last record, not at the consumer's clock: that is
	 * read on another CPU (or by clock_gettime() when the clock page is
	 * being rewritten), and was seen up to half a microsecond behind the
	 * records it was meant to bound.
	 */
	pi.timestamp_begin = pkt->ts_begin;
	pi.timestamp_end = pkt->ts_end;
	if (rts->any) {
		pi.timestamp_begin = MIN(pi.timestamp_begin, rts->first);
		if (pkt->flags & RB_PACKET_FLUSHED)
			pi.timestamp_end = rts->max;
		pi.timestamp_end = MAX(pi.timestamp_end, rts->max);
	} else if (pkt->flags & RB_PACKET_FLUSHED) {
		pi.timestamp_end = pi.timestamp_begin;
	}
	if (st->written)
		pi.timestamp_begin = MAX(pi.timestamp_begin, st->last_end);
	pi.timestamp_end = MAX(pi.timestamp_end, pi.timestamp_begin);
	pi.content_size = (uint64_t)(CTF_PACKET_HEADER_LEN + pkt->size) * 8;
	pi.packet_size = (uint64_t)size * 8;
	pi.packet_seq_num = pkt->seq;
	/*
	 * The ring gives the cumulative losses as of the packet's close. A
	 * stream's first packet carries 0 all the same: readers cannot count
	 * losses before it ("may have discarded"), so they go to the next one.
	 */
	ring_lost = st->last_ring_lost;
	if (st->written) {
		bool bogus = false;

		ring_lost = lost_plausible(st->last_ring_lost, st->last_end, pkt->lost_total,
					   pi.timestamp_end, &bogus);
		if (bogus)
			lost_bogus_warn(b, pkt->cpu);
		/* Losses of the ring, and records of packets the disk refused. */
		pi.events_discarded = ring_lost + st->write_dropped;
	} else {
		pi.events_discarded = 0;
	}
	ctf_packet_header_write(hdr, &pi, b->trace->md.big_endian);
	if (pad > b->pad_len) {
		uint8_t *p = realloc(b->pad, pad);

		if (!p) {
			b->write_err = -ENOMEM;
			write_dropped(b, st, pkt);
			return;
		}
		memset(p, 0, pad);
		b->pad = p;
		b->pad_len = pad;
	}
	ret = ctf_write_packet(st->fd, st->offset, st->idx_fd,
			       (const struct ctf_write_piece[]){ { hdr, sizeof(hdr) },
								 { pkt->data, pkt->size },
								 { b->pad, pad } },
			       3, &pi, &st->broken);
	if (ret < 0) {
		/*
		 * The files still end on a whole packet; stop reports the error,
		 * the next packet counts these records as discarded and its
		 * sequence number shows the missing packet.
		 */
		if (!b->write_err)
			b->write_err = ret;
		write_dropped(b, st, pkt);
		return;
	}
	st->offset += size;
	st->written = true;
	st->last_seq = pkt->seq;
	st->last_end = pi.timestamp_end;
	st->last_lost = pi.events_discarded;
	st->last_ring_lost = ring_lost;
}

/* What cpu's buffer lost so far, checked (lost_plausible()); with cons.lock. */
static uint64_t buffer_lost(struct us_buffer *b, unsigned int cpu)
{
	uint64_t now = now_ns();
	bool bogus = false;

	b->seen_lost[cpu] = lost_plausible(b->seen_lost[cpu], b->seen_ns[cpu],
					   rb_consumer_lost(b->cons, cpu), now, &bogus);
	if (bogus)
		lost_bogus_warn(b, cpu);
	else
		b->seen_ns[cpu] = now;
	return b->seen_lost[cpu];
}

/*
 * Events lost after the last closed sub-buffer (the buffer was full until
 * the end) reach no packet of the ring: write a packet without events that
 * carries the final cumulative count, as LTTng does at stop, so the trace
 * reports every loss. It reuses the last packet's sequence number + 1, which
 * the ring's next sub-buffer will also carry (a repeat is no gap for
 * readers); called after wq_wait_idle().
 */
static void write_final_count(struct us_buffer *b, unsigned int cpu)
{
	struct us_stream *st = &b->streams[cpu];
	uint64_t ring = buffer_lost(b, cpu), lost = ring + st->write_dropped;
	struct rb_packet pkt = { .cpu = cpu, .data = (const uint8_t *)"" };

	if (!st->written || lost <= st->last_lost)
		return;
	pkt.seq = MAX(st->last_seq, st->seq_tried) + 1;
	pkt.ts_begin = st->last_end;
	pkt.ts_end = now_ns();
	pkt.ts_end = MAX(st->last_end, pkt.ts_end);
	pkt.lost_total = ring;
	write_packet(b, &pkt, &(struct us_rec_ts){ 0 });
}

/*
 * The real-time reader takes wq.lock after the writer (SCHED_OTHER) that may
 * be preempted while holding it: priority inheritance. Set up before the
 * threads first start; until then the static initializer serves.
 */
static void wq_init_lock(void)
{
	static bool done;
	pthread_mutexattr_t attr;

	if (done || pthread_mutexattr_init(&attr))
		return;
	if (pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT) == 0) {
		pthread_mutex_destroy(&wq.lock);
		pthread_mutex_init(&wq.lock, &attr);
	}
	pthread_mutexattr_destroy(&attr);
	done = true;
}

/* Wait until every queued packet is written. */
static void wq_wait_idle(void)
{
	pthread_mutex_lock(&wq.lock);
	while (wq.head || wq.busy)
		pthread_cond_wait(&wq.done, &wq.lock);
	pthread_mutex_unlock(&wq.lock);
}

/*
 * Room for one more packet? If not: wait for the writer (wait), or ask it
 * to kick the reader when it has made room and say no.
 */
static bool wq_room(bool wait)
{
	bool room;

	pthread_mutex_lock(&wq.lock);
	while (wait && wq.bytes >= queue_max)
		pthread_cond_wait(&wq.done, &wq.lock);
	room = wq.bytes < queue_max;
	if (!room)
		wq.reader_waits = true;
	pthread_mutex_unlock(&wq.lock);
	return room;
}

/* Hand a copy of pkt to the writer; if no memory, write it here in order. */
static void wq_push(struct us_buffer *b, const struct rb_packet *pkt)
{
	struct us_pkt *p = NULL;

	pthread_mutex_lock(&wq.lock);
	if (wq.pool && wq.pool->cap >= pkt->size) {
		p = wq.pool;
		wq.pool = p->next;
		wq.pool_bytes -= p->cap;
	}
	pthread_mutex_unlock(&wq.lock);
	if (!p) {
		p = malloc(sizeof(*p) + pkt->size);
		if (!p) {
			struct us_rec_ts rts = records_ts(pkt);

			wq_wait_idle();
			write_packet(b, pkt, &rts);
			return;
		}
		p->cap = pkt->size;
	}
	p->next = NULL;
	p->b = b;
	p->rts = records_ts(pkt);
	p->pkt = *pkt;
	p->pkt.rec_end = NULL;
	memcpy(p->buf, pkt->data, pkt->size);
	p->pkt.data = p->buf;
	pthread_mutex_lock(&wq.lock);
	if (wq.tail)
		wq.tail->next = p;
	else
		wq.head = p;
	wq.tail = p;
	wq.bytes += pkt->size;
	pthread_cond_signal(&wq.work);
	pthread_mutex_unlock(&wq.lock);
}

/* See US_CONSUMER_NICE; once, from the first consumer thread. */
static void autogroup_nice(void)
{
	static bool done;
	char v[16];
	int fd, n;

	pid_t sid = getsid(0);

	/* Our own session: we lead it, or its leader is gone (the daemon's
	 * double fork); never a shell's we were started from. */
	if (done || sid < 0 || (sid != getpid() && (kill(sid, 0) == 0 || errno != ESRCH)))
		return;
	done = true;
	fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = snprintf(v, sizeof(v), "%d", US_CONSUMER_NICE);
	if (write(fd, v, (size_t)n) < 0) {
		/* not privileged, or no autogroups */
	}
	close(fd);
}

/* See US_CONSUMER_NICE. */
static void consumer_nice(void)
{
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), US_CONSUMER_NICE) < 0) {
		/* not privileged: stay at the daemon's priority */
	}
}

/* See US_READER_RT_PRIO; best effort. */
static void reader_priority(void)
{
	struct sched_param sp = { .sched_priority = US_READER_RT_PRIO };

	/* RESET_ON_FORK: nothing the daemon starts inherits it. */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0)
		return;
	consumer_nice();
}

/* The writer, before each packet: see write_gate. */
static void write_gate_pass(void)
{
	static int fd = -1;
	static bool open_for_good;
	ssize_t n;
	char c;

	if (!write_gate[0] || open_for_good)
		return;
	if (fd < 0)
		fd = open(write_gate, O_RDONLY | O_CLOEXEC);
	do
		n = fd < 0 ? 0 : read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		return;
	if (fd < 0 || n < 0)
		log_warn("Failed to read the write gate '%s': %s; writing on", write_gate,
			 strerror(errno));
	if (fd >= 0)
		close(fd);
	open_for_good = true;
}

static void *writer_main(void *arg)
{
	(void)arg;
	consumer_nice();
	pthread_mutex_lock(&wq.lock);
	for (;;) {
		struct us_pkt *p = wq.head;
		bool kick_reader;

		if (!p) {
			if (wq.quit)
				break;
			pthread_cond_wait(&wq.work, &wq.lock);
			continue;
		}
		wq.head = p->next;
		if (!wq.head)
			wq.tail = NULL;
		wq.busy = true;
		pthread_mutex_unlock(&wq.lock);
		write_gate_pass();
		write_packet(p->b, &p->pkt, &p->rts);
		pthread_mutex_lock(&wq.lock);
		wq.busy = false;
		wq.bytes -= p->pkt.size;
		if (wq.pool_bytes + p->cap <= US_POOL_MAX) {
			p->next = wq.pool;
			wq.pool = p;
			wq.pool_bytes += p->cap;
		} else {
			free(p);
		}
		kick_reader = wq.reader_waits && wq.bytes < queue_max;
		if (kick_reader)
			wq.reader_waits = false;
		pthread_cond_broadcast(&wq.done);
		if (kick_reader)
			kick();
	}
	pthread_mutex_unlock(&wq.lock);
	return NULL;
}

/*
 * Read every closed sub-buffer of b into the FIFO; called with cons.lock
 * held. wait: for room in the FIFO (stop) rather than leave packets in the
 * ring for the next round (reader).
 */
static void drain(struct us_buffer *b, unsigned int flags, bool wait)
{
	for (uint32_t cpu = 0; cpu < b->nr_cpus; cpu++) {
		struct rb_packet pkt;
		int ret = 0;

		while (wq_room(wait) && (ret = rb_consumer_read(b->cons, cpu, flags, &pkt)) == 0)
			wq_push(b, &pkt);
		if (ret == -STRATA_ESTREAM && !b->err) {
			log_warn("Buffer of channel key %llu cpu %u is corrupted: an app wrote "
				 "garbage in shared memory; ignoring it",
				 (unsigned long long)b->channel_key, cpu);
			b->err = ret;
		}
	}
}

static void flush_all(struct us_buffer *b)
{
	uint64_t ts = now_ns();

	for (uint32_t cpu = 0; cpu < b->nr_cpus; cpu++)
		rb_consumer_flush(b->cons, cpu, ts);
}

static void *consumer_main(void *arg)
{
	struct pollfd *pfds = calloc(US_MAX_BUFFERS + 1, sizeof(*pfds));

	(void)arg;
	if (!pfds)
		return NULL;
	reader_priority();
	pthread_mutex_lock(&cons.lock);
	while (!cons.quit) {
		uint64_t now_ms = now_ns() / 1000000;
		int timeout = poll_ms;
		nfds_t n = 0;
		uint64_t v;

		for (uint32_t i = 0; i < cons.nr; i++) {
			struct us_buffer *b = cons.list[i];

			rb_consumer_ack_wakeup(b->cons);
			if (b->switch_timer_us) {
				uint64_t period = MAX(1u, b->switch_timer_us / 1000);

				if (now_ms - b->last_switch_ms >= period) {
					flush_all(b);
					b->last_switch_ms = now_ms;
				}
				/* Wake for the next switch, not only on the read timer. */
				timeout = (int)MIN((uint64_t)timeout,
						   b->last_switch_ms + period - now_ms);
			}
			drain(b, 0, false);
			rb_consumer_arm_wakeup(b->cons);
			/* A producer may have closed a sub-buffer before the arm. */
			drain(b, 0, false);
			pfds[n++] = (struct pollfd){ .fd = rb_consumer_wakeup_fd(b->cons),
						     .events = POLLIN };
		}
		pfds[n++] = (struct pollfd){ .fd = cons.kick_fd, .events = POLLIN };
		pthread_mutex_unlock(&cons.lock);
		poll(pfds, n, timeout);
		if (read(cons.kick_fd, &v, sizeof(v)) < 0) {
			/* EAGAIN: not kicked */
		}
		pthread_mutex_lock(&cons.lock);
	}
	pthread_mutex_unlock(&cons.lock);
	free(pfds);
	return NULL;
}

static void kick(void)
{
	uint64_t one = 1;

	if (write(cons.kick_fd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: the consumer is awake anyway */
	}
}

static int consumer_start(void)
{
	int ret;

	if (cons.running)
		return 0;
	cons.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (cons.kick_fd < 0)
		return -errno;
	cons.quit = false;
	wq.quit = false;
	wq_init_lock();
	autogroup_nice();
	ret = pthread_create(&wq.thread, NULL, writer_main, NULL);
	if (ret)
		goto err;
	ret = pthread_create(&cons.thread, NULL, consumer_main, NULL);
	if (ret) {
		pthread_mutex_lock(&wq.lock);
		wq.quit = true;
		pthread_cond_signal(&wq.work);
		pthread_mutex_unlock(&wq.lock);
		pthread_join(wq.thread, NULL);
		goto err;
	}
	cons.running = true;
	return 0;
err:
	close(cons.kick_fd);
	cons.kick_fd = -1;
	return -ret;
}

int sdu_configure(void)
{
	const char *v = getenv("STRATA_SESSIOND_QUEUE_MAX");
	const char *gate = getenv("STRATA_SESSIOND_TEST_WRITE_GATE");
	const char *pms = getenv("STRATA_SESSIOND_TEST_POLL_MS");

	uint64_t n;

	if (pms) {
		if (!sd_setting_number(pms, 1, US_POLL_MAX_SETTING, &n)) {
			log_error("Failed to use STRATA_SESSIOND_TEST_POLL_MS='%s': expected "
				  "milliseconds from 1 to %u (unset it for the default, %d)",
				  pms, US_POLL_MAX_SETTING, US_POLL_MS);
			return -EINVAL;
		}
		poll_ms = (int)n;
		log_warn("Polling the buffers every %d ms (test mode)", poll_ms);
	}
	if (v) {
		if (!sd_setting_number(v, US_QUEUE_MIN_SETTING, US_QUEUE_MAX_SETTING, &n)) {
			log_error("Failed to use STRATA_SESSIOND_QUEUE_MAX='%s': expected a number "
				  "of bytes from %u to %u (unset it for the default, %u)",
				  v, US_QUEUE_MIN_SETTING, US_QUEUE_MAX_SETTING, US_QUEUE_MAX);
			return -EINVAL;
		}
		queue_max = (size_t)n;
	}
	if (gate) {
		if (!gate[0] || strlen(gate) >= sizeof(write_gate)) {
			log_error(
				"Failed to use STRATA_SESSIOND_TEST_WRITE_GATE='%s': expected the "
				"path of a named pipe, shorter than %zu bytes",
				gate, sizeof(write_gate));
			return -EINVAL;
		}
		memcpy(write_gate, gate, strlen(gate) + 1);
		log_warn("Writing trace packets only as '%s' lets them through (test mode)",
			 write_gate);
	}
	return 0;
}

void sdu_release(struct sd_daemon *d)
{
	(void)d;
	if (!cons.running)
		return;
	pthread_mutex_lock(&cons.lock);
	cons.quit = true;
	pthread_mutex_unlock(&cons.lock);
	kick();
	pthread_join(cons.thread, NULL);
	/* The writer empties the FIFO before it quits. */
	pthread_mutex_lock(&wq.lock);
	wq.quit = true;
	pthread_cond_signal(&wq.work);
	pthread_mutex_unlock(&wq.lock);
	pthread_join(wq.thread, NULL);
	while (wq.pool) {
		struct us_pkt *p = wq.pool;

		wq.pool = p->next;
		free(p);
	}
	wq.pool_bytes = 0;
	close(cons.kick_fd);
	cons.kick_fd = -1;
	cons.running = false;
}

/* ---- Traces and buffers ------------------------------------------------- */

static void buffer_free(struct us_buffer *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&cons.lock);
	if (b->listed) {
		for (uint32_t i = 0; i < cons.nr; i++) {
			if (cons.list[i] == b) {
				cons.list[i] = cons.list[--cons.nr];
				break;
			}
		}
	}
	pthread_mutex_unlock(&cons.lock);
	/* Out of the list: nothing more of b gets queued; let the writer finish it. */
	wq_wait_idle();
	rb_consumer_destroy(b->cons);
	rb_channel_destroy(b->rb);
	for (uint32_t i = 0; b->streams && i < b->nr_cpus; i++) {
		if (b->streams[i].fd >= 0)
			close(b->streams[i].fd);
		if (b->streams[i].idx_fd >= 0)
			close(b->streams[i].idx_fd);
	}
	free(b->streams);
	free(b->seen_lost);
	free(b->seen_ns);
	free(b->pad);
	free(b);
}

static int buffer_create(struct us_trace *t, const struct sd_channel *c, uint32_t stream_id,
			 struct us_buffer **ret)
{
	struct rb_config cfg = { .subbuf_size = c->subbuf_size,
				 .num_subbufs = c->num_subbuf,
				 .nr_cpus = (uint32_t)get_nprocs_conf(),
				 .mode = c->overwrite ? RB_MODE_OVERWRITE : RB_MODE_DISCARD };
	uint8_t hdr[CTF_INDEX_HEADER_LEN];
	char path[IPC_NAME_MAX + 32];
	struct us_buffer *b = calloc(1, sizeof(*b));
	int idx_dirfd = -1, err;

	if (!b)
		return -ENOMEM;
	b->trace = t;
	b->channel_key = c->key;
	b->stream_id = stream_id;
	b->nr_cpus = cfg.nr_cpus;
	b->switch_timer_us = c->switch_timer_us;
	err = rb_channel_create(&cfg, &b->rb);
	if (err == 0) {
		/*
		 * The apps' clock: a sub-buffer the consumer closes (switch
		 * timer, stop) ends at a time read after its last record's
		 * reservation, never at one taken before the flush started.
		 */
		rb_channel_set_clock(b->rb, ust_clock_read_monotonic_tsc);
		err = rb_consumer_create(b->rb, NULL, &b->cons);
	}
	b->streams = calloc(b->nr_cpus, sizeof(*b->streams));
	b->seen_lost = calloc(b->nr_cpus, sizeof(*b->seen_lost));
	b->seen_ns = calloc(b->nr_cpus, sizeof(*b->seen_ns));
	if (err == 0 && (!b->streams || !b->seen_lost || !b->seen_ns))
		err = -ENOMEM;
	for (uint32_t i = 0; b->streams && i < b->nr_cpus; i++)
		b->streams[i].fd = b->streams[i].idx_fd = -1;
	idx_dirfd = err == 0 ? openat(t->dirfd, "index",
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) :
			       -1;
	if (err == 0 && idx_dirfd < 0)
		err = -errno;
	for (uint32_t i = 0; err == 0 && i < b->nr_cpus; i++) {
		struct us_stream *st = &b->streams[i];

		/* Never through a link, never over an existing file. */
		snprintf(path, sizeof(path), "%s_%u", c->name, i);
		st->fd = fs_create_file(t->dirfd, path, 0640);
		snprintf(path, sizeof(path), "%s_%u.idx", c->name, i);
		st->idx_fd = st->fd < 0 ? -1 : fs_create_file(idx_dirfd, path, 0640);
		if (st->fd < 0 || st->idx_fd < 0) {
			err = st->fd < 0 ? st->fd : st->idx_fd;
			if (st->fd < 0)
				st->fd = -1;
			if (st->idx_fd < 0)
				st->idx_fd = -1;
			break;
		}
		ctf_index_header_write(hdr);
		err = ctf_write_full(st->idx_fd, hdr, sizeof(hdr));
	}
	if (idx_dirfd >= 0)
		close(idx_dirfd);
	if (err < 0) {
		buffer_free(b);
		return err;
	}
	*ret = b;
	return 0;
}

static void trace_free(struct us_trace *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nr_buffers; i++)
		buffer_free(t->buffers[i]);
	if (t->md_fd >= 0)
		close(t->md_fd);
	if (t->dirfd >= 0)
		close(t->dirfd);
	ctf_metadata_release(&t->md);
	free(t->events);
	free(t);
}

static int write_metadata(struct us_trace *t)
{
	int ret = ctf_metadata_write_packets(t->md_fd, &t->md, t->md_written, t->md.len);

	if (ret == 0)
		t->md_written = t->md.len;
	return ret;
}

static int context_type(const char *name, enum ust_context_type *ret)
{
	static const char *const names[] = { [UST_CTX_VPID] = "vpid",
					     [UST_CTX_VTID] = "vtid",
					     [UST_CTX_PROCNAME] = "procname",
					     [UST_CTX_PTHREAD_ID] = "pthread_id",
					     [UST_CTX_IP] = "ip" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i] && strcmp(names[i], name) == 0) {
			*ret = (enum ust_context_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The ust-abi.h code of a context name (its CONTEXT command). */
static uint32_t abi_context(const char *name)
{
	static const char *const names[] = { NULL, "vpid", "vtid", "procname", "pthread_id", "ip" };

	for (uint32_t i = 1; i < ARRAY_SIZE(names); i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return 0;
}

static int trace_create(struct sd_session *s, struct us_session *us, const struct sd_app *a,
			struct us_trace **ret)
{
	struct ctf_writer_env env = { .domain = "ust",
				      .tracer_name = "strata",
				      .architecture_bit_width = a->bits_per_long,
				      .trace_name = s->name,
				      .vpid = -1 };
	struct ctf_writer_clock clock = { .name = "monotonic",
					  .description = "Monotonic Clock",
					  .freq = 1000000000 };
	char hostname[256] = "", datetime[32], vdatetime[32], clock_uuid[40] = "";
	char rel[128], date[32];
	bool per_pid = s->ust.channels[0]->buffers == IPC_BUFFERS_PID;
	struct us_trace *t = calloc(1, sizeof(*t));
	struct sd_fscred cred = { 0 };
	struct tm tm;
	FILE *f;
	int err;

	if (!t)
		return -ENOMEM;
	t->md_fd = -1;
	t->dirfd = -1;
	t->uid = a->uid;
	t->bits = a->bits_per_long;
	t->app_id = per_pid ? a->id : 0;
	localtime_r(&us->created, &tm);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", &tm);
	/* a->procname is sanitized (app.c): one plain path component. */
	if (per_pid)
		snprintf(rel, sizeof(rel), "ust/pid/%s-%d-%s", a->procname, (int)a->pid, date);
	else
		snprintf(rel, sizeof(rel), "ust/uid/%u/%u-bit", (unsigned)a->uid, a->bits_per_long);
	snprintf(t->dir, sizeof(t->dir), "%s/%s", s->output, rel);
	err = sd_fscred_enter(&cred, s);
	if (err == 0) {
		int fd = fs_open_dir_beneath(us->dirfd, rel, 0750, true);

		err = fd < 0 ? fd : 0;
		t->dirfd = fd < 0 ? -1 : fd;
		if (err == 0 && mkdirat(t->dirfd, "index", 0750) < 0 && errno != EEXIST)
			err = -errno;
	}
	if (err == 0)
		err = ctf_uuid_generate(t->uuid);
	if (err == 0)
		err = ctf_metadata_init(&t->md, t->uuid);
	if (err < 0)
		goto err;
	gethostname(hostname, sizeof(hostname) - 1);
	ctf_format_datetime(us->created, datetime);
	ctf_format_datetime(time(NULL), vdatetime);
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (fgets(clock_uuid, sizeof(clock_uuid), f))
			clock_uuid[strcspn(clock_uuid, "\n")] = '\0';
		fclose(f);
	}
	env.hostname = hostname;
	env.buffering_scheme = per_pid ? "pid" : "uid";
	env.buffering_id = per_pid ? (int64_t)a->pid : (int64_t)a->uid;
	env.trace_creation_datetime = datetime;
	if (sscanf(STRATA_VERSION, "%d.%d.%d", &env.tracer_major, &env.tracer_minor,
		   &env.tracer_patchlevel) != 3)
		env.tracer_major = env.tracer_minor = env.tracer_patchlevel = 0;
	if (per_pid) {
		env.vpid = a->pid;
		env.procname = a->procname;
		env.vpid_datetime = vdatetime;
	}
	clock.uuid = clock_uuid[0] ? clock_uuid : NULL;
	ctf_clock_set_offset_ns(&clock, ctf_clock_measure_monotonic_offset());
	err = ctf_metadata_add_preamble(&t->md, &env, &clock);
	for (uint32_t i = 0; err == 0 && i < s->ust.nr_channels; i++) {
		const struct sd_channel *c = s->ust.channels[i];
		const struct strata_field_desc *ctx[IPC_MAX_CONTEXTS];
		struct strata_field_desc perf[IPC_MAX_CONTEXTS];
		char perf_names[IPC_MAX_CONTEXTS][IPC_NAME_MAX];
		uint32_t n = 0;

		for (uint32_t j = 0; j < c->nr_contexts && n < ARRAY_SIZE(ctx); j++) {
			enum ust_context_type type;
			struct ctx_perf p;
			char why[64];

			if (context_type(c->contexts[j], &type) == 0) {
				ctx[n++] = ust_context_desc(type);
			} else if (ctx_perf_parse(c->contexts[j], &p, why, sizeof(why)) == 1) {
				/* perf:thread:page-fault -> perf_thread_page_fault, a u64 */
				ctx_field_name(c->contexts[j], perf_names[n], IPC_NAME_MAX);
				perf[n] = (struct strata_field_desc){
					.name = perf_names[n],
					.kind = STRATA_TYPE_INTEGER,
					.integer = { .size = 64, .is_signed = 0, .base = 10 },
				};
				ctx[n] = &perf[n];
				n++;
			}
		}
		err = ctf_metadata_add_stream(&t->md, i, ctx, n);
		if (err == 0)
			err = buffer_create(t, c, i, &t->buffers[i]);
		if (err == 0)
			t->nr_buffers++;
	}
	if (err < 0)
		goto err;
	t->md_fd = fs_create_file(t->dirfd, "metadata", 0640);
	if (t->md_fd < 0) {
		err = t->md_fd;
		t->md_fd = -1;
		goto err;
	}
	err = write_metadata(t);
	if (err < 0)
		goto err;
	sd_fscred_leave(&cred);
	*ret = t;
	return 0;
err:
	sd_fscred_leave(&cred);
	trace_free(t);
	return err;
}

/* The trace an app writes for session s (created on demand). */
static int trace_of(struct sd_session *s, struct us_session *us, const struct sd_app *a,
		    bool create, struct us_trace **ret)
{
	bool per_pid = s->ust.channels[0]->buffers == IPC_BUFFERS_PID;
	struct us_trace **arr;
	struct us_trace *t;
	int err;

	for (uint32_t i = 0; i < us->nr_traces; i++) {
		t = us->traces[i];
		if (per_pid ? t->app_id == a->id :
			      (t->uid == a->uid && t->bits == a->bits_per_long)) {
			*ret = t;
			return 0;
		}
	}
	if (!create)
		return -ENOENT;
	arr = realloc(us->traces, (us->nr_traces + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	us->traces = arr;
	err = trace_create(s, us, a, &t);
	if (err < 0)
		return err;
	us->traces[us->nr_traces++] = t;
	/* The consumer reads the new buffers from now on. */
	pthread_mutex_lock(&cons.lock);
	for (uint32_t i = 0; i < t->nr_buffers && cons.nr < US_MAX_BUFFERS; i++) {
		cons.list[cons.nr++] = t->buffers[i];
		t->buffers[i]->listed = true;
	}
	pthread_mutex_unlock(&cons.lock);
	kick();
	*ret = t;
	return 0;
}

/* ---- Apps --------------------------------------------------------------- */

static bool app_attached(const struct us_session *us, uint32_t app_id)
{
	for (uint32_t i = 0; i < us->nr_apps; i++)
		if (us->apps[i] == app_id)
			return true;
	return false;
}

static int send_enabler(struct sd_daemon *d, struct sd_app *a, const struct sd_channel *c,
			const struct sd_event *e)
{
	struct strata_ust_enabler m = { .hdr.type = STRATA_UST_MSG_ENABLER,
					.channel_key = c->key,
					.enabler_id = e->id,
					.enabled = e->enabled,
					.loglevel_type = e->loglevel_type,
					.loglevel = e->loglevel,
					.nr_exclusions = e->nr_exclusions,
					.filter_len = (uint32_t)e->bytecode_len };
	size_t xlen = (size_t)e->nr_exclusions * STRATA_UST_SYM_NAME_LEN;
	size_t len = sizeof(m) + xlen + e->bytecode_len;
	uint8_t *buf;
	int ret;

	/* cmd.c bounds both far below what the ABI allows. */
	if (e->nr_exclusions > STRATA_UST_MAX_EXCLUSIONS ||
	    e->bytecode_len > STRATA_UST_MAX_FILTER_LEN)
		return -E2BIG;
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	snprintf(m.pattern, sizeof(m.pattern), "%s", e->name);
	memcpy(buf, &m, sizeof(m));
	for (uint32_t i = 0; i < e->nr_exclusions; i++)
		snprintf((char *)buf + sizeof(m) + (size_t)i * STRATA_UST_SYM_NAME_LEN,
			 STRATA_UST_SYM_NAME_LEN, "%s", e->exclusions[i]);
	if (e->bytecode_len)
		memcpy(buf + sizeof(m) + xlen, e->bytecode, e->bytecode_len);
	ret = sd_app_queue(d, a, buf, len, NULL, 0);
	free(buf);
	return ret;
}

static int send_channel_enable(struct sd_daemon *d, struct sd_app *a, const struct sd_channel *c)
{
	struct strata_ust_channel_enable m = { .hdr.type = STRATA_UST_MSG_CHANNEL_ENABLE,
					       .channel_key = c->key,
					       .enabled = c->enabled };

	return sd_app_queue(d, a, &m, sizeof(m), NULL, 0);
}

/* Whether the session's user space trackers include the app (lttng: by the ids it sent). */
static bool app_tracked(const struct sd_session *s, const struct sd_app *a)
{
	int64_t attrs[IPC_TRACKER_COUNT] = {
		[IPC_TRACKER_PID] = a->pid, [IPC_TRACKER_VPID] = a->vpid,
		[IPC_TRACKER_UID] = a->uid, [IPC_TRACKER_VUID] = a->vuid,
		[IPC_TRACKER_GID] = a->gid, [IPC_TRACKER_VGID] = a->vgid,
	};

	return sd_session_tracks(s, IPC_DOMAIN_UST, attrs);
}

static int send_session_cmd(struct sd_daemon *d, struct sd_app *a, uint16_t type, uint64_t id)
{
	struct strata_ust_session_cmd m = { .hdr.type = type, .session_id = id };

	return sd_app_queue(d, a, &m, sizeof(m), NULL, 0);
}

/*
 * Give an app the session's channels, contexts and event rules, then start
 * it: queued commands, answered later. A failure drops this app only
 * (sd_app_queue does), never the session.
 */
static int app_attach(struct sd_daemon *d, struct sd_session *s, struct us_session *us,
		      struct sd_app *a)
{
	uint32_t *apps, app_id = a->id;
	struct us_trace *t;
	int err;

	if (!app_tracked(s, a))
		return 0; /* an untracked app gets nothing of the session, as with lttng */
	if (app_attached(us, app_id))
		return send_session_cmd(d, a, STRATA_UST_MSG_START, s->id);
	err = trace_of(s, us, a, true, &t);
	if (err < 0) {
		log_error("Failed to create the user space trace of session '%s' for pid %d: %s",
			  s->name, (int)a->pid, strata_strerror(err));
		return err;
	}
	apps = realloc(us->apps, (us->nr_apps + 1) * sizeof(*apps));
	if (!apps)
		return -ENOMEM;
	us->apps = apps;
	us->apps[us->nr_apps++] = app_id;
	for (uint32_t i = 0; i < s->ust.nr_channels; i++) {
		const struct sd_channel *c = s->ust.channels[i];
		struct strata_ust_channel m = { .hdr.type = STRATA_UST_MSG_CHANNEL,
						.channel_key = c->key,
						.session_id = s->id,
						.subbuf_size = c->subbuf_size,
						.num_subbuf = c->num_subbuf,
						.nr_cpus = t->buffers[i]->nr_cpus,
						.buffer_type = c->buffers == IPC_BUFFERS_PID ?
								       STRATA_UST_BUFFERS_PID :
								       STRATA_UST_BUFFERS_UID,
						.overwrite = c->overwrite,
						.switch_timer_us = c->switch_timer_us,
						.nr_fds = RB_CHANNEL_NR_FDS };
		int fds[RB_CHANNEL_NR_FDS];

		snprintf(m.name, sizeof(m.name), "%s", c->name);
		rb_channel_fds(t->buffers[i]->rb, fds);
		err = sd_app_queue(d, a, &m, sizeof(m), fds, RB_CHANNEL_NR_FDS);
		for (uint32_t j = 0; err == 0 && j < c->nr_contexts; j++) {
			struct strata_ust_context_perf cm = {
				.ctx = { .hdr.type = STRATA_UST_MSG_CONTEXT,
					 .channel_key = c->key,
					 .ctx_type = abi_context(c->contexts[j]) },
			};
			struct ctx_perf p;
			char why[64];

			if (!cm.ctx.ctx_type &&
			    ctx_perf_parse(c->contexts[j], &p, why, sizeof(why)) == 1) {
				cm.ctx.ctx_type = STRATA_UST_CONTEXT_PERF_THREAD;
				cm.perf_type = p.type;
				cm.perf_config = p.config;
				err = sd_app_queue(d, a, &cm, sizeof(cm), NULL, 0);
			} else {
				err = sd_app_queue(d, a, &cm.ctx, sizeof(cm.ctx), NULL, 0);
			}
		}
		if (err == 0 && !c->enabled)
			err = send_channel_enable(d, a, c);
		for (uint32_t j = 0; err == 0 && j < c->nr_events; j++)
			err = send_enabler(d, a, c, &c->events[j]);
		if (err < 0)
			return err;
	}
	return send_session_cmd(d, a, STRATA_UST_MSG_START, s->id);
}

static struct sd_app *app_by_id(struct sd_daemon *d, uint32_t id)
{
	for (uint32_t i = 0; i < d->nr_apps; i++)
		if (d->apps[i].in_use && d->apps[i].ready && d->apps[i].id == id)
			return &d->apps[i];
	return NULL;
}

static struct us_session *us_ref(struct us_session *us)
{
	us->refs++;
	return us;
}

static void us_unref(struct us_session *us)
{
	if (!us || --us->refs)
		return;
	for (uint32_t i = 0; i < us->nr_traces; i++)
		trace_free(us->traces[i]);
	free(us->traces);
	free(us->apps);
	if (us->dirfd >= 0)
		close(us->dirfd);
	free(us);
}

/* Apps of another user only reach root's daemon; sessions trace them all. */
int sdu_session_start(struct sd_daemon *d, struct sd_session *s, char *msg)
{
	struct us_session *us = s->ust_priv;
	int err;

	if (!s->ust.nr_channels)
		return 0;
	err = consumer_start();
	if (err < 0) {
		snprintf(msg, IPC_MSG_MAX, "Failed to start the consumer thread: %s",
			 strerror(-err));
		return err;
	}
	if (!us) {
		us = calloc(1, sizeof(*us));
		if (!us)
			return -ENOMEM;
		us->refs = 1;
		us->dirfd = -1;
		us->session_id = s->id;
		snprintf(us->name, sizeof(us->name), "%s", s->name);
		us->created = time(NULL);
		s->ust_priv = us;
	}
	if (us->dirfd < 0) {
		struct sd_fscred cred;

		/* Every trace directory is made beneath this one (fs.h). */
		err = sd_fscred_enter(&cred, s);
		if (err == 0) {
			us->dirfd = open(s->output, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			err = us->dirfd < 0 ? -errno : 0;
		}
		sd_fscred_leave(&cred);
		if (err < 0) {
			snprintf(msg, IPC_MSG_MAX,
				 "Failed to open the output directory '%.600s': %s", s->output,
				 strerror(-err));
			return err;
		}
	}
	for (uint32_t i = 0; i < d->nr_apps; i++) {
		struct sd_app *a = &d->apps[i];

		if (a->in_use && a->ready)
			app_attach(d, s, us, a);
	}
	return 0;
}

/*
 * Once every app of the session answered STOP (no record of it is being
 * written), read what the buffers hold, write the final loss counts, and
 * report what went wrong in the stop's (or destroy's) reply.
 */
static void stop_flush(struct sd_daemon *d, struct sd_op *op, void *arg)
{
	struct us_session *us = arg;
	struct sd_session *s = NULL;
	char msg[IPC_MSG_MAX] = "";
	int err = 0;

	for (uint32_t i = 0; i < d->state.nr_sessions; i++)
		if (d->state.sessions[i]->id == us->session_id)
			s = d->state.sessions[i];
	/* Started again meanwhile: only a stopped session's open sub-buffers are stale. */
	bool force = !s || !s->active;

	pthread_mutex_lock(&cons.lock);
	for (uint32_t i = 0; i < us->nr_traces; i++) {
		struct us_trace *t = us->traces[i];

		for (uint32_t j = 0; j < t->nr_buffers; j++) {
			struct us_buffer *b = t->buffers[j];

			drain(b, 0, true);
			flush_all(b);
			drain(b, 0, true);
			/* Whatever is still open belongs to a dead or stuck writer. */
			if (force)
				drain(b, RB_READ_FORCE, true);
			wq_wait_idle();
			for (uint32_t cpu = 0; cpu < b->nr_cpus; cpu++)
				write_final_count(b, cpu);
			if ((b->err || b->write_err) && !err) {
				err = b->err ? b->err : b->write_err;
				snprintf(msg, sizeof(msg),
					 "Failed to write the user space trace in '%.600s': %s",
					 t->dir, strata_strerror(err));
			}
		}
	}
	pthread_mutex_unlock(&cons.lock);
	if (s)
		sdu_session_stats(d, s);
	if (err < 0) {
		if (op && op->rep && op->rep->status == 0) {
			op->rep->status = err;
			snprintf(op->rep->message, sizeof(op->rep->message), "%s", msg);
		} else {
			log_error("%s (session '%s')", msg, us->name);
		}
	}
	us_unref(us);
}

int sdu_session_stop(struct sd_daemon *d, struct sd_session *s, char *msg)
{
	struct us_session *us = s->ust_priv;

	(void)msg;
	if (!us)
		return 0;
	/* Apps first: once they answer, no record of this session is in flight. */
	for (uint32_t i = 0; i < us->nr_apps; i++) {
		struct sd_app *a = app_by_id(d, us->apps[i]);

		if (a)
			send_session_cmd(d, a, STRATA_UST_MSG_STOP, s->id);
	}
	return sd_op_then(d, d->state.op, stop_flush, us_ref(us));
}

void sdu_session_stats(struct sd_daemon *d, struct sd_session *s)
{
	struct us_session *us = s->ust_priv;

	(void)d;
	if (!us)
		return;
	pthread_mutex_lock(&cons.lock);
	for (uint32_t j = 0; j < s->ust.nr_channels; j++)
		s->ust.channels[j]->discarded = 0;
	for (uint32_t i = 0; i < us->nr_traces; i++) {
		struct us_trace *t = us->traces[i];

		for (uint32_t j = 0; j < t->nr_buffers && j < s->ust.nr_channels; j++) {
			for (uint32_t cpu = 0; cpu < t->buffers[j]->nr_cpus; cpu++)
				s->ust.channels[j]->discarded += buffer_lost(t->buffers[j], cpu);
			s->ust.channels[j]->discarded += atomic_load_explicit(
				&t->buffers[j]->write_lost, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&cons.lock);
}

static void destroy_finish(struct sd_daemon *d, struct sd_op *op, void *arg)
{
	(void)d;
	(void)op;
	us_unref(arg);
}

void sdu_session_destroy(struct sd_daemon *d, struct sd_session *s)
{
	struct us_session *us = s->ust_priv;

	if (!us)
		return;
	s->ust_priv = NULL;
	for (uint32_t i = 0; i < us->nr_apps; i++) {
		struct sd_app *a = app_by_id(d, us->apps[i]);

		if (a)
			send_session_cmd(d, a, STRATA_UST_MSG_SESSION_DESTROY, s->id);
	}
	/* The session's reference: the buffers go once every app let go of them. */
	if (sd_op_then(d, d->state.op, destroy_finish, us) < 0)
		log_error("Failed to free the buffers of session '%s': too many steps", us->name);
}

void sdu_event_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c,
		       struct sd_event *e)
{
	struct us_session *us = s->ust_priv;

	if (!us)
		return;
	for (uint32_t i = 0; i < us->nr_apps; i++) {
		struct sd_app *a = app_by_id(d, us->apps[i]);

		if (a)
			send_enabler(d, a, c, e);
	}
}

void sdu_channel_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c)
{
	struct us_session *us = s->ust_priv;

	if (!us)
		return;
	for (uint32_t i = 0; i < us->nr_apps; i++) {
		struct sd_app *a = app_by_id(d, us->apps[i]);

		if (a)
			send_channel_enable(d, a, c);
	}
}

/*
 * A user space tracker changed: apps it now includes get the session (if
 * it records), apps it now leaves out lose it, as if it were destroyed for
 * them: their buffers stay, with what they wrote so far.
 */
void sdu_tracker_changed(struct sd_daemon *d, struct sd_session *s)
{
	struct us_session *us = s->ust_priv;

	if (!us)
		return;
	for (uint32_t i = 0; i < us->nr_apps;) {
		struct sd_app *a = app_by_id(d, us->apps[i]);

		if (!a || app_tracked(s, a)) {
			i++;
			continue;
		}
		send_session_cmd(d, a, STRATA_UST_MSG_SESSION_DESTROY, s->id);
		us->apps[i] = us->apps[--us->nr_apps];
	}
	if (!s->active)
		return;
	for (uint32_t i = 0; i < d->nr_apps; i++) {
		struct sd_app *a = &d->apps[i];

		if (a->in_use && a->ready && !app_attached(us, a->id))
			app_attach(d, s, us, a);
	}
}

void sdu_app_ready(struct sd_daemon *d, struct sd_app *a)
{
	for (uint32_t i = 0; i < d->state.nr_sessions; i++) {
		struct sd_session *s = d->state.sessions[i];

		if (s->active && s->ust.nr_channels && s->ust_priv)
			app_attach(d, s, s->ust_priv, a);
		if (!a->in_use) /* dropped while attaching */
			return;
	}
}

/* ---- Event registration --------------------------------------------------- */

static bool terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/*
 * A field name goes into the metadata as a TSDL identifier (after a '_'):
 * anything else could close the declaration and write its own.
 */
static bool valid_identifier(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Rebuild the descriptors of an EVENT_REGISTER; checks what the writer can't. */
static int build_fields(const uint8_t *msg, const struct strata_ust_event_register *ev,
			struct strata_field_desc **ret_fields, struct strata_enum_desc **ret_enums,
			struct strata_enum_entry **ret_entries)
{
	const uint8_t *fp = msg + sizeof(*ev);
	const uint8_t *ep = fp + (size_t)ev->nr_fields * sizeof(struct strata_ust_field);
	struct strata_field_desc *fields = calloc(ev->nr_fields + 1, sizeof(*fields));
	struct strata_enum_desc *enums = calloc(ev->nr_fields + 1, sizeof(*enums));
	struct strata_enum_entry *entries = calloc(ev->nr_enum_entries + 1, sizeof(*entries));
	static struct strata_ust_field wf[STRATA_UST_MAX_FIELDS];
	static struct strata_ust_enum_entry we[STRATA_UST_MAX_ENUM_ENTRIES];
	uint32_t next_entry = 0;

	*ret_fields = fields;
	*ret_enums = enums;
	*ret_entries = entries;
	if (!fields || !enums || !entries)
		return -ENOMEM;
	/* Copies outlive the message: the descriptors point into them until the
	 * metadata is written (single control thread). */
	memcpy(wf, fp, (size_t)ev->nr_fields * sizeof(*wf));
	memcpy(we, ep, (size_t)ev->nr_enum_entries * sizeof(*we));
	for (uint32_t i = 0; i < ev->nr_fields; i++) {
		struct strata_ust_field *w = &wf[i];
		struct strata_field_desc *f = &fields[i];

		if (!terminated(w->name, sizeof(w->name)) || !valid_identifier(w->name) ||
		    !terminated(w->enum_name, sizeof(w->enum_name)) ||
		    !sd_name_printable(w->enum_name) || w->kind > STRATA_TYPE_SEQUENCE ||
		    (w->int_size != 8 && w->int_size != 16 && w->int_size != 32 &&
		     w->int_size != 64) ||
		    (w->int_base != 10 && w->int_base != 16 && w->int_base != 8 &&
		     w->int_base != 2) ||
		    w->length > 65536)
			return -STRATA_EPROTO;
		f->name = w->name;
		f->kind = w->kind;
		f->encoding = w->encoding;
		f->nowrite = w->nowrite;
		f->integer = (struct strata_integer_type){ .size = w->int_size,
							   .is_signed = w->int_signed,
							   .base = w->int_base,
							   .network = w->int_network };
		f->length = w->length;
		if (w->kind == STRATA_TYPE_ENUM) {
			if (w->nr_enum_entries > ev->nr_enum_entries - next_entry)
				return -STRATA_EPROTO;
			enums[i].name = w->enum_name;
			enums[i].entries = &entries[next_entry];
			enums[i].nr_entries = w->nr_enum_entries;
			for (uint32_t j = 0; j < w->nr_enum_entries; j++, next_entry++) {
				struct strata_ust_enum_entry *e = &we[next_entry];

				if (!terminated(e->label, sizeof(e->label)) ||
				    !sd_name_printable(e->label))
					return -STRATA_EPROTO;
				entries[next_entry] = (struct strata_enum_entry){
					.start = { e->start, e->start_signed },
					.end = { e->end, e->end_signed },
					.label = e->label,
					.is_auto = e->is_auto,
				};
			}
			f->enum_desc = &enums[i];
		}
	}
	return next_entry == ev->nr_enum_entries ? 0 : -STRATA_EPROTO;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
	return h;
}

/* FNV-1a of what defines an event's layout; padding bytes are left out. */
static uint64_t layout_hash(const uint8_t *msg, const struct strata_ust_event_register *ev)
{
	const uint8_t *fp = msg + sizeof(*ev);
	const uint8_t *ep = fp + (size_t)ev->nr_fields * sizeof(struct strata_ust_field);
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < ev->nr_fields; i++) {
		struct strata_ust_field f;

		memcpy(&f, fp + (size_t)i * sizeof(f), sizeof(f));
		h = fnv(h, f.name, strnlen(f.name, sizeof(f.name)));
		h = fnv(h, &f.kind, 3); /* kind, encoding, nowrite */
		h = fnv(h, &f.int_size, 4); /* the integer layout */
		h = fnv(h, &f.length, 8); /* length, nr_enum_entries */
		h = fnv(h, f.enum_name, strnlen(f.enum_name, sizeof(f.enum_name)));
	}
	for (uint32_t i = 0; i < ev->nr_enum_entries; i++) {
		struct strata_ust_enum_entry e;

		memcpy(&e, ep + (size_t)i * sizeof(e), sizeof(e));
		h = fnv(h, &e.start, 8 + 8 + 3);
		h = fnv(h, e.label, strnlen(e.label, sizeof(e.label)));
	}
	return h;
}

int sdu_event_register(struct sd_daemon *d, struct sd_app *a, const void *msg, size_t len,
		       uint32_t *ret_id)
{
	struct strata_ust_event_register ev;
	struct strata_field_desc *fields = NULL;
	struct strata_enum_desc *enums = NULL;
	struct strata_enum_entry *entries = NULL;
	struct sd_session *s = NULL;
	struct us_trace *t;
	struct us_event *evs;
	uint64_t hash;
	uint32_t ci = 0;
	int err;

	(void)len; /* sizes and counts were checked by app.c */
	memcpy(&ev, msg, sizeof(ev));
	if (!sd_name_printable(ev.name) || !strchr(ev.name, ':')) {
		log_warn("Refused event '%s' of pid %d: not a provider:event name", ev.name,
			 (int)a->pid);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < d->state.nr_sessions && !s; i++) {
		struct sd_session *cand = d->state.sessions[i];

		for (uint32_t j = 0; j < cand->ust.nr_channels; j++) {
			if (cand->ust.channels[j]->key == ev.channel_key) {
				s = cand;
				ci = j;
				break;
			}
		}
	}
	if (!s || !s->ust_priv || trace_of(s, s->ust_priv, a, false, &t) < 0)
		return -ENOENT;
	hash = layout_hash(msg, &ev);
	for (uint32_t i = 0; i < t->nr_events; i++) {
		if (t->events[i].channel_key == ev.channel_key &&
		    strcmp(t->events[i].name, ev.name) == 0) {
			/* Two apps sharing per-UID buffers with different builds of
			 * one event: the second cannot be described, refuse it. */
			if (t->events[i].layout_hash != hash) {
				log_warn("Refused event '%s' of pid %d: registered earlier with "
					 "other fields",
					 ev.name, (int)a->pid);
				return -EEXIST;
			}
			*ret_id = t->events[i].id;
			return 0;
		}
	}
	/* An app may grow its trace's metadata only so far (refused, and logged once). */
	if (t->md.len > US_METADATA_MAX) {
		if (!t->md_full)
			log_warn("Refused event '%s' of pid %d: the metadata of '%s' reached %u "
				 "MiB",
				 ev.name, (int)a->pid, t->dir, US_METADATA_MAX >> 20);
		t->md_full = true;
		return -EDQUOT;
	}
	err = build_fields(msg, &ev, &fields, &enums, &entries);
	if (err == 0) {
		struct ctf_writer_event we = { .name = ev.name,
					       .id = t->next_id[ci],
					       .stream_id = ci,
					       .loglevel = ev.loglevel,
					       .fields = fields,
					       .nr_fields = ev.nr_fields };

		evs = realloc(t->events, (t->nr_events + 1) * sizeof(*evs));
		if (!evs)
			err = -ENOMEM;
		else
			t->events = evs;
		if (err == 0)
			err = ctf_metadata_add_event(&t->md, &we);
		if (err == 0)
			err = write_metadata(t);
		if (err == 0) {
			struct us_event *e = &t->events[t->nr_events++];

			e->channel_key = ev.channel_key;
			e->layout_hash = hash;
			e->id = t->next_id[ci]++;
			snprintf(e->name, sizeof(e->name), "%s", ev.name);
			*ret_id = e->id;
		}
	}
	if (err < 0)
		log_warn("Failed to register event '%s' of pid %d: %s", ev.name, (int)a->pid,
			 strata_strerror(err));
	free(fields);
	free(enums);
	free(entries);
	return err;
}
