/* SPDX-License-Identifier: MIT */
/*
 * Consumer side (strata-sessiond): copy closed sub-buffers out of shared
 * memory. Everything an app can write (positions, headers, timestamps,
 * counters) is untrusted: lengths are checked against the sub-buffer through
 * rb_hdr_valid() and positions against write_pos/consumed_pos before any
 * access, and every loop advances by at least 8 bytes inside one sub-buffer.
 * Protocol and ordering pairs: layout.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/common.h"
#include "ringbuf/layout.h"
#include "strata/error.h"

#define RB_HOLE_TIMEOUT_DEFAULT_MS 1000u
#define RB_FLUSH_TRIES 64

struct rb_cons_cpu {
	uint64_t consumed; /* next sub-buffer to read (discard: authoritative) */
	uint64_t lost_local; /* records skipped by the consumer (dead writers) */
	uint64_t lost_packet; /* lost_total of the last packet read (monotonic) */
	uint64_t lost_total; /* last rb_consumer_lost() (monotonic) */
	uint64_t last_ts_end;
	uint64_t hole_pos; /* hole being timed, valid if hole_since_ms */
	uint64_t hole_since_ms;
};

struct rb_consumer {
	struct rb_channel *ch;
	uint32_t hole_timeout_ms;
	uint8_t *out; /* subbuf_size bytes: packet data */
	uint32_t *rec_end; /* subbuf_size / 8 entries */
	struct rb_cons_cpu *cpus;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void rb_consumer_destroy(struct rb_consumer *cons)
{
	if (!cons)
		return;
	free(cons->out);
	free(cons->rec_end);
	free(cons->cpus);
	free(cons);
}

int rb_consumer_create(struct rb_channel *ch, const struct rb_consumer_opts *opts,
		       struct rb_consumer **ret_cons)
{
	struct rb_consumer *cons;
	uint32_t i;

	if (!ch)
		return -EINVAL;
	cons = calloc(1, sizeof(*cons));
	if (!cons)
		return -ENOMEM;
	cons->ch = ch;
	cons->hole_timeout_ms =
		opts && opts->hole_timeout_ms ? opts->hole_timeout_ms : RB_HOLE_TIMEOUT_DEFAULT_MS;
	cons->out = malloc(ch->subbuf_size);
	cons->rec_end = calloc(ch->subbuf_size / 8, sizeof(*cons->rec_end));
	cons->cpus = calloc(ch->nr_cpus, sizeof(*cons->cpus));
	if (!cons->out || !cons->rec_end || !cons->cpus) {
		rb_consumer_destroy(cons);
		return -ENOMEM;
	}
	for (i = 0; i < ch->nr_cpus; i++) {
		struct rb_cpu_ctl *ctl = rb_cpu_ctl(ch, i);
		/* Re-attaching consumer: resume at the shared position if sane. */
		uint64_t w = atomic_load_explicit(&ctl->write_pos, memory_order_acquire);
		uint64_t c = atomic_load_explicit(&ctl->consumed_pos, memory_order_acquire);

		c &= ~(ch->subbuf_size - 1);
		if (c > w || w - c > ch->cpu_buf_size + ch->subbuf_size)
			c = (w & ~(ch->subbuf_size - 1)) > ch->cpu_buf_size ?
				    (w & ~(ch->subbuf_size - 1)) - ch->cpu_buf_size :
				    0;
		cons->cpus[i].consumed = c;
	}
	*ret_cons = cons;
	return 0;
}

/* Sum of the shared lost counters plus ours; never decreases. */
static uint64_t lost_total(struct rb_consumer *cons, uint32_t cpu)
{
	struct rb_cons_cpu *cc = &cons->cpus[cpu];
	uint64_t t = cc->lost_local + rb_lost_shared(rb_cpu_ctl(cons->ch, cpu));

	if (t > cc->lost_total)
		cc->lost_total = t;
	return cc->lost_total;
}

uint64_t rb_consumer_lost(struct rb_consumer *cons, unsigned int cpu)
{
	if (cpu >= cons->ch->nr_cpus)
		return 0;
	return lost_total(cons, cpu);
}

/* A hole at pos: has it been there long enough to be declared dead? */
static int hole_expired(struct rb_consumer *cons, struct rb_cons_cpu *cc, uint64_t pos)
{
	uint64_t now = now_ms();

	if (!cc->hole_since_ms || cc->hole_pos != pos) {
		cc->hole_pos = pos;
		cc->hole_since_ms = now ? now : 1;
		return 0;
	}
	return now - cc->hole_since_ms >= cons->hole_timeout_ms;
}

/* Read ts/seq published by store_ts() (producer.c); 0 if not for this seq. */
static int load_ts(_Atomic uint64_t *ts_word, _Atomic uint64_t *seq_word, uint64_t seq,
		   uint64_t *ret_ts)
{
	/* pairs with the producer's store-release of begin_seq/end_seq (D) */
	uint64_t s1 = atomic_load_explicit(seq_word, memory_order_acquire);
	uint64_t ts = atomic_load_explicit(ts_word, memory_order_relaxed);

	atomic_thread_fence(memory_order_acquire);
	if (s1 != seq + 1 || atomic_load_explicit(seq_word, memory_order_relaxed) != s1)
		return 0;
	*ret_ts = ts;
	return 1;
}

/* Read ts_end/lost_end published by the closer of seq; 0 if not for seq. */
static int load_end(struct rb_subbuf_ctl *sb, uint64_t seq, uint64_t *ret_ts, uint64_t *ret_lost)
{
	/* pairs with the closer's store-release of end_seq (D) */
	uint64_t s1 = atomic_load_explicit(&sb->end_seq, memory_order_acquire);
	uint64_t ts = atomic_load_explicit(&sb->ts_end, memory_order_relaxed);
	uint64_t lost = atomic_load_explicit(&sb->lost_end, memory_order_relaxed);

	atomic_thread_fence(memory_order_acquire);
	if (s1 != seq + 1 || atomic_load_explicit(&sb->end_seq, memory_order_relaxed) != s1)
		return 0;
	*ret_ts = ts;
	*ret_lost = lost;
	return 1;
}

/* Rewrite the hole [pos, q) as a dead record; 0 if its writer got there first. */
static int repair_hole(const struct rb_channel *ch, uint32_t cpu, uint64_t pos, uint64_t q,
		       uint64_t sb_end, uint64_t stale)
{
	uint64_t pass = pos >> ch->cpu_buf_shift, len = q - pos - RB_RECORD_HEADER_SIZE;
	uint64_t dead = q < sb_end ? rb_hdr_make(RB_REC_RESERVED, len, 0, pass) :
				     rb_hdr_make(RB_REC_PADDING, len, RB_HDR_PID_MASK, pass);

	/* Lengths are < subbuf_size <= RB_HDR_LEN_MAX + 1: they fit. */
	return atomic_compare_exchange_strong_explicit(rb_hdr_at(ch, cpu, pos), &stale, dead,
						       memory_order_acq_rel, memory_order_acquire);
}

/*
 * Walk the header chain of the sub-buffer at c and copy committed payloads
 * to cons->out. Returns 0 or -EAGAIN (a record still in flight).
 */
static int walk_subbuf(struct rb_consumer *cons, uint32_t cpu, uint64_t c, unsigned int flags,
		       struct rb_packet *pkt, uint64_t *ret_skipped)
{
	const struct rb_channel *ch = cons->ch;
	struct rb_cons_cpu *cc = &cons->cpus[cpu];
	uint64_t pos = c, sb_end = c + ch->subbuf_size, nrec = 0, skipped = 0;
	size_t size = 0;

	pkt->flags = 0;
	while (pos < sb_end) {
		/* pairs with the producers' store-release of COMMITTED/PADDING (B) */
		uint64_t h = atomic_load_explicit(rb_hdr_at(ch, cpu, pos), memory_order_acquire);
		uint64_t len;

		if (!rb_hdr_valid(ch, h, pos, sb_end)) {
			uint64_t q = pos + 8;

			/* Usually a live writer between its CAS and its header
			 * store: do not even scan (its payload) before the timeout. */
			if (!(flags & RB_READ_FORCE) && !hole_expired(cons, cc, pos))
				return -EAGAIN;
			while (q < sb_end &&
			       !rb_hdr_valid(ch,
					     atomic_load_explicit(rb_hdr_at(ch, cpu, q),
								  memory_order_acquire),
					     q, sb_end))
				q += 8;
			/*
			 * Declare it dead in shared memory too, so overwrite-mode
			 * producers may pass it: a dead RESERVED record, or
			 * padding if it reaches the end (most likely the padding
			 * of a writer that died after its CAS, whose own record is
			 * a hole counted in the next sub-buffer: not counted here).
			 * CAS: a late header store by a live writer wins.
			 */
			if (!repair_hole(ch, cpu, pos, q, sb_end, h))
				return -EAGAIN;
			if (q < sb_end)
				skipped++;
			pkt->flags |= RB_PACKET_REPAIRED;
			pos = q;
			continue;
		}
		len = rb_hdr_len(h);
		switch (rb_hdr_state(h)) {
		case RB_REC_PADDING:
			if (rb_hdr_pid(h) == 0)
				pkt->flags |= RB_PACKET_FLUSHED;
			pos = sb_end;
			continue;
		case RB_REC_RESERVED:
			if (!(flags & RB_READ_FORCE) && rb_pid_alive(rb_hdr_pid(h)))
				return -EAGAIN;
			skipped++;
			pkt->flags |= RB_PACKET_REPAIRED;
			break;
		default:
			if (!pkt->data) /* repair walk: no copy */
				break;
			/* rb_hdr_valid: pos + 8 + len <= sb_end, so size + len <= subbuf_size */
			memcpy(cons->out + size, rb_data_at(ch, cpu, pos + RB_RECORD_HEADER_SIZE),
			       (size_t)len);
			size += (size_t)len;
			cons->rec_end[nrec++] = (uint32_t)size;
			break;
		}
		pos += rb_rec_size(len);
	}
	pkt->size = size;
	pkt->nr_records = nrec;
	pkt->rec_end = cons->rec_end;
	*ret_skipped = skipped;
	return 0;
}

/*
 * Times and the loss count as of the close (layout.h "Loss accounting").
 * Without a valid close record (its closer died before publishing it, or an
 * app wrote garbage) the count is sampled now: later, never lower.
 */
static void fill_close(struct rb_consumer *cons, uint32_t cpu, uint64_t seq, struct rb_packet *pkt)
{
	struct rb_subbuf_ctl *sb = rb_subbuf_ctl(cons->ch, cpu, seq);
	struct rb_cons_cpu *cc = &cons->cpus[cpu];
	uint64_t b, e, lost = UINT64_MAX, now;

	if (!load_ts(&sb->ts_begin, &sb->begin_seq, seq, &b))
		b = cc->last_ts_end;
	if (!load_end(sb, seq, &e, &lost) || e < b)
		e = b;
	pkt->ts_begin = b;
	pkt->ts_end = e;
	/*
	 * Loaded once: MIN() would load it again when it is not below lost,
	 * and losses after the close would land in this packet.
	 */
	now = rb_lost_shared(rb_cpu_ctl(cons->ch, cpu));
	pkt->lost_total = MIN(lost, now);
}

/*
 * Overwrite mode: move consumed_pos from c to next unless a producer pushed
 * it (layout.h): the same 16-byte CAS as the push, lost_overwrite unchanged.
 * Retried once on a torn pair, as the producer does.
 */
static int take_subbuf(struct rb_cpu_ctl *ctl, uint64_t c, uint64_t next)
{
	uint64_t pos = c, lost = atomic_load_explicit(&ctl->lost_overwrite, memory_order_relaxed);
	int tries;

	for (tries = 0; tries < 2; tries++) {
		/* pairs with the producers' load-acquire of consumed_pos and
		 * their rb_reader_cas (A) */
		if (rb_reader_cas(ctl, &pos, &lost, next, lost))
			return 1;
		if (pos != c)
			return 0;
	}
	return 0;
}

int rb_consumer_read(struct rb_consumer *cons, unsigned int cpu, unsigned int flags,
		     struct rb_packet *ret_pkt)
{
	const struct rb_channel *ch;
	struct rb_cpu_ctl *ctl;
	struct rb_cons_cpu *cc;
	unsigned int tries;

	if (!cons || cpu >= cons->ch->nr_cpus)
		return -EINVAL;
	ch = cons->ch;
	ctl = rb_cpu_ctl(ch, cpu);
	cc = &cons->cpus[cpu];

	/* Overwrite mode retries when producers lap us while copying: bounded. */
	for (tries = 0; tries <= ch->num_subbufs + 1; tries++) {
		struct rb_packet pkt;
		uint64_t w, c, skipped, w2;
		int r;

		c = cc->consumed;
		if (ch->mode == RB_MODE_OVERWRITE) {
			/*
			 * Producers push consumed_pos forward; only forward,
			 * aligned, and never past write_pos. Read it first: a
			 * write_pos read after it is then at least as far. The
			 * other way round, producers lapping a consumer preempted
			 * between the two loads made consumed_pos look past
			 * write_pos, a corrupt ring.
			 */
			uint64_t sc =
				atomic_load_explicit(&ctl->consumed_pos, memory_order_acquire);

			/* pairs with the producers' acq_rel CAS of write_pos (C) */
			w = atomic_load_explicit(&ctl->write_pos, memory_order_acquire);
			if (sc & (ch->subbuf_size - 1) || sc < c)
				return -STRATA_ESTREAM;
			c = sc;
			/* Lapped between the loads: read both again, a bounded number of times. */
			if (w >= c && w - c > ch->cpu_buf_size + ch->subbuf_size &&
			    tries < ch->num_subbufs + 1)
				continue;
		} else {
			/* pairs with the producers' acq_rel CAS of write_pos (C) */
			w = atomic_load_explicit(&ctl->write_pos, memory_order_acquire);
		}
		if (w < c || w - c > ch->cpu_buf_size + ch->subbuf_size)
			return -STRATA_ESTREAM;
		if (ch->mode == RB_MODE_DISCARD && w - c > ch->cpu_buf_size)
			return -STRATA_ESTREAM;
		if (w - c < ch->subbuf_size)
			return -EAGAIN; /* the oldest sub-buffer is still open */
		cc->consumed = c;

		pkt.data = cons->out;
		r = walk_subbuf(cons, cpu, c, flags, &pkt, &skipped);
		if (r < 0 && ch->mode == RB_MODE_OVERWRITE &&
		    atomic_load_explicit(&ctl->consumed_pos, memory_order_acquire) != c)
			continue; /* lapped: the hole was the new pass, move on */
		if (r < 0)
			return r;
		/*
		 * Times and losses before releasing the sub-buffer: once
		 * consumed_pos moves, producers reuse its close record. The walk's acquire loads of the
		 * last header made the closer's ts_end visible (store_ts comes
		 * before its PADDING/COMMITTED release store). In overwrite mode
		 * the write_pos re-check below also validates them.
		 */
		pkt.seq = c >> ch->subbuf_shift;
		fill_close(cons, cpu, pkt.seq, &pkt);
		if (ch->mode == RB_MODE_OVERWRITE) {
			/* pairs with the producer's release fence after its CAS (F) */
			atomic_thread_fence(memory_order_acquire);
			w2 = atomic_load_explicit(&ctl->write_pos, memory_order_relaxed);
			if (w2 - c > ch->cpu_buf_size) {
				/* Lapped while copying: the lapping producer pushed
				 * consumed_pos (before its CAS) and counted those
				 * records; re-read it. Still c is defensive only. */
				if (atomic_load_explicit(&ctl->consumed_pos,
							 memory_order_acquire) == c)
					return -EAGAIN;
				continue;
			}
			if (!take_subbuf(ctl, c, c + ch->subbuf_size))
				continue; /* pushed meanwhile: those records were counted */
		} else {
			/* pairs with the producers' load-acquire of consumed_pos (A) */
			atomic_store_explicit(&ctl->consumed_pos, c + ch->subbuf_size,
					      memory_order_release);
		}
		cc->consumed = c + ch->subbuf_size;
		cc->hole_since_ms = 0;
		cc->lost_local += skipped;
		pkt.cpu = cpu;
		cc->last_ts_end = pkt.ts_end;
		cc->lost_packet = MAX(cc->lost_packet, pkt.lost_total + cc->lost_local);
		pkt.lost_total = cc->lost_packet;
		*ret_pkt = pkt;
		return 0;
	}
	return -EAGAIN;
}

int rb_consumer_repair(struct rb_consumer *cons, unsigned int cpu)
{
	const struct rb_channel *ch;
	struct rb_cpu_ctl *ctl;
	uint64_t w, c, skipped;
	struct rb_packet pkt;
	int r = 0;

	if (!cons || cpu >= cons->ch->nr_cpus)
		return -EINVAL;
	ch = cons->ch;
	ctl = rb_cpu_ctl(ch, cpu);
	/* pairs with the producers' acq_rel CAS of write_pos (C) */
	w = atomic_load_explicit(&ctl->write_pos, memory_order_acquire);
	c = atomic_load_explicit(&ctl->consumed_pos, memory_order_acquire);
	if (c & (ch->subbuf_size - 1) || w < c || w - c > ch->cpu_buf_size + ch->subbuf_size)
		return -STRATA_ESTREAM;
	/* At most num_subbufs + 1 closed sub-buffers, each walk bounded. */
	for (; w - c >= ch->subbuf_size && r == 0; c += ch->subbuf_size) {
		pkt.data = NULL;
		r = walk_subbuf(cons, cpu, c, 0, &pkt, &skipped);
	}
	return r == -EAGAIN ? 0 : r;
}

int rb_consumer_flush(struct rb_consumer *cons, unsigned int cpu, uint64_t now_ts)
{
	const struct rb_channel *ch;
	struct rb_cpu_ctl *ctl;
	uint64_t w, S;
	int i;

	if (!cons || cpu >= cons->ch->nr_cpus)
		return -EINVAL;
	ch = cons->ch;
	S = ch->subbuf_size;
	ctl = rb_cpu_ctl(ch, cpu);
	/* pairs with the producers' acq_rel CAS of write_pos (C) */
	w = atomic_load_explicit(&ctl->write_pos, memory_order_acquire);
	for (i = 0; i < RB_FLUSH_TRIES; i++) {
		uint64_t sb_end = (w | (S - 1)) + 1, seq = w >> ch->subbuf_shift;
		struct rb_subbuf_ctl *sb;

		uint64_t ts;

		if (w & 7)
			return -STRATA_ESTREAM;
		if (!(w & (S - 1)))
			return 0;
		/* As in rb_reserve: read after the position so ts_end bounds
		 * every record reserved before our CAS. */
		ts = ch->clock ? ch->clock() : now_ts;
		ts = MAX(ts, now_ts);
		/* Reserve the rest of the sub-buffer as a producer would. */
		if (!atomic_compare_exchange_weak_explicit(&ctl->write_pos, &w, sb_end,
							   memory_order_acq_rel,
							   memory_order_acquire))
			continue;
		sb = rb_subbuf_ctl(ch, cpu, seq);
		atomic_store_explicit(&sb->end_seq, 0, memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		atomic_store_explicit(&sb->ts_end, ts, memory_order_relaxed);
		atomic_store_explicit(&sb->lost_end, rb_lost_shared(ctl), memory_order_relaxed);
		/* pairs with load_ts()'s load-acquire (D) */
		atomic_store_explicit(&sb->end_seq, seq + 1, memory_order_release);
		/* pairs with walk_subbuf()'s load-acquire of headers (B) */
		atomic_store_explicit(rb_hdr_at(ch, cpu, w),
				      rb_hdr_make(RB_REC_PADDING,
						  sb_end - w - RB_RECORD_HEADER_SIZE, 0,
						  w >> ch->cpu_buf_shift),
				      memory_order_release);
		return 1;
	}
	return -EAGAIN;
}

int rb_consumer_wakeup_fd(const struct rb_consumer *cons)
{
	return cons->ch->cons_wake_fd;
}

void rb_consumer_arm_wakeup(struct rb_consumer *cons)
{
	atomic_store_explicit(&cons->ch->hdr->wakeup_armed, 1, memory_order_relaxed);
	/* pairs with the seq_cst fence in the producer's wake_consumer (E, Dekker) */
	atomic_thread_fence(memory_order_seq_cst);
}

/* Wakeups taken per call: apps may send many; the rest wake the next poll. */
#define RB_WAKEUPS_PER_ACK 1024

void rb_consumer_ack_wakeup(struct rb_consumer *cons)
{
	char buf[16];

	if (cons->ch->cons_wake_fd < 0)
		return;
	/* MSG_DONTWAIT: whatever anyone did to the socket's flags. */
	for (int i = 0; i < RB_WAKEUPS_PER_ACK; i++)
		if (recv(cons->ch->cons_wake_fd, buf, sizeof(buf), MSG_DONTWAIT) < 0)
			break; /* EAGAIN: nothing (more) pending */
}
