/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/ringbuf: protocol semantics, single-threaded except the
 * loss-partition tests (writers and a reader running concurrently).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include "ringbuf/layout.h"
#include "ringbuf/ringbuf.h"
#include "strata/error.h"

#define SB 4096u

static uint64_t fake_clock_value;

static uint64_t fake_clock(void)
{
	return ++fake_clock_value;
}

static struct rb_channel *make_channel(uint64_t sb, uint32_t n, uint32_t cpus, enum rb_mode mode)
{
	struct rb_config cfg = {
		.subbuf_size = sb, .num_subbufs = n, .nr_cpus = cpus, .mode = mode
	};
	struct rb_channel *ch = NULL;

	assert_int_equal(rb_channel_create(&cfg, &ch), 0);
	rb_channel_set_clock(ch, fake_clock);
	return ch;
}

static struct rb_consumer *make_consumer(struct rb_channel *ch)
{
	struct rb_consumer_opts opts = { .hole_timeout_ms = 60000 };
	struct rb_consumer *cons = NULL;

	assert_int_equal(rb_consumer_create(ch, &opts, &cons), 0);
	return cons;
}

/* Record payload: 8-byte counter then bytes derived from it. */
static int write_rec(struct rb_channel *ch, int cpu, uint64_t id, size_t len)
{
	struct rb_reservation res;
	uint8_t *p;
	size_t i;
	int r;

	r = rb_reserve(ch, cpu, len, &res);
	if (r < 0)
		return r;
	p = res.data;
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(id * 31 + i);
	if (len >= 8)
		memcpy(p, &id, 8);
	rb_commit(ch, &res);
	return 0;
}

static void check_rec(const struct rb_packet *pkt, uint64_t i, uint64_t id, size_t len)
{
	uint32_t b = i ? pkt->rec_end[i - 1] : 0;
	const uint8_t *p = pkt->data + b;
	uint64_t got;
	size_t k;

	assert_true(i < pkt->nr_records);
	assert_int_equal(pkt->rec_end[i] - b, len);
	memcpy(&got, p, 8);
	assert_int_equal(got, id);
	for (k = 8; k < len; k++)
		assert_int_equal(p[k], (uint8_t)(id * 31 + k));
}

static void test_config_limits(void **state)
{
	struct rb_config cfg = { .subbuf_size = SB, .num_subbufs = 4, .nr_cpus = 1 };
	struct rb_channel *ch = NULL;

	(void)state;
	cfg.subbuf_size = 2048;
	assert_int_equal(rb_channel_create(&cfg, &ch), -EINVAL);
	cfg.subbuf_size = 6000;
	assert_int_equal(rb_channel_create(&cfg, &ch), -EINVAL);
	cfg.subbuf_size = SB;
	cfg.num_subbufs = 1;
	assert_int_equal(rb_channel_create(&cfg, &ch), -EINVAL);
	cfg.num_subbufs = 3;
	assert_int_equal(rb_channel_create(&cfg, &ch), -EINVAL);
	cfg.num_subbufs = 4;
	cfg.nr_cpus = 0;
	assert_int_equal(rb_channel_create(&cfg, &ch), -EINVAL);
	cfg.nr_cpus = 1;
	cfg.subbuf_size = RB_SUBBUF_SIZE_MAX;
	cfg.num_subbufs = 128; /* 2 GiB per CPU: over RB_CPU_BUF_SIZE_MAX */
	assert_int_equal(rb_channel_create(&cfg, &ch), -EINVAL);
	assert_null(ch);
}

static void test_reserve_commit_flush(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 2, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_reservation res;
	struct rb_packet pkt;

	(void)state;
	fake_clock_value = 100;
	assert_int_equal(write_rec(ch, 1, 7, 24), 0);
	assert_int_equal(write_rec(ch, 1, 8, 13), 0);
	/* Payload data is 8-byte aligned. */
	assert_int_equal(rb_reserve(ch, 1, 5, &res), 0);
	assert_int_equal((uintptr_t)res.data % 8, 0);
	assert_int_equal(res.ts, 103);
	memset(res.data, 0xab, 5);
	rb_commit(ch, &res);
	assert_int_equal(rb_reserve(ch, 2, 5, &res), -EINVAL);

	/* Nothing closed yet. */
	assert_int_equal(rb_consumer_read(cons, 1, 0, &pkt), -EAGAIN);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), -EAGAIN);
	assert_int_equal(rb_consumer_flush(cons, 0, 500), 0); /* empty: nothing to close */
	assert_int_equal(rb_consumer_flush(cons, 1, 500), 1);
	assert_int_equal(rb_consumer_flush(cons, 1, 501), 0);
	assert_int_equal(rb_consumer_read(cons, 1, 0, &pkt), 0);
	assert_int_equal(pkt.nr_records, 3);
	assert_int_equal(pkt.size, 24 + 13 + 5);
	check_rec(&pkt, 0, 7, 24);
	check_rec(&pkt, 1, 8, 13);
	assert_int_equal(pkt.data[37], 0xab);
	assert_int_equal(pkt.ts_begin, 101);
	assert_int_equal(pkt.ts_end, 500);
	assert_int_equal(pkt.seq, 0);
	assert_int_equal(pkt.cpu, 1);
	assert_int_equal(pkt.lost_total, 0);
	assert_true(pkt.flags & RB_PACKET_FLUSHED);
	assert_false(pkt.flags & RB_PACKET_REPAIRED);
	assert_int_equal(rb_consumer_read(cons, 1, 0, &pkt), -EAGAIN);

	/* The next record opens sub-buffer 1. */
	assert_int_equal(write_rec(ch, 1, 9, 16), 0);
	assert_int_equal(rb_consumer_flush(cons, 1, 900), 1);
	assert_int_equal(rb_consumer_read(cons, 1, 0, &pkt), 0);
	assert_int_equal(pkt.seq, 1);
	assert_int_equal(pkt.nr_records, 1);
	check_rec(&pkt, 0, 9, 16);
	assert_int_equal(pkt.ts_begin, 105); /* 104 was read by the flush */
	assert_int_equal(pkt.ts_end, 900);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void drain(struct rb_consumer *cons, uint64_t *next, uint64_t *seq, uint64_t *ts_end,
		  size_t len)
{
	struct rb_packet pkt;
	uint64_t i;

	while (rb_consumer_read(cons, 0, 0, &pkt) == 0) {
		assert_int_equal(pkt.seq, (*seq)++);
		assert_int_equal(pkt.lost_total, 0);
		assert_true(pkt.ts_begin >= *ts_end);
		assert_true(pkt.ts_end >= pkt.ts_begin);
		*ts_end = pkt.ts_end;
		for (i = 0; i < pkt.nr_records; i++)
			check_rec(&pkt, i, (*next)++, len);
	}
}

static void test_subbuf_switch_and_wrap(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	const size_t len = 100; /* 8 + 104 = 112 bytes: 36 per sub-buffer, 64 padding */
	uint64_t id, next = 0, seq = 0, ts_end = 0;
	struct rb_packet pkt;

	(void)state;
	fake_clock_value = 0;
	/* 36 records fit; the 37th switches and closes sub-buffer 0. */
	for (id = 0; id < 36; id++)
		assert_int_equal(write_rec(ch, 0, id, len), 0);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), -EAGAIN);
	assert_int_equal(write_rec(ch, 0, id++, len), 0);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.nr_records, 36);
	assert_int_equal(pkt.ts_begin, 1);
	assert_int_equal(pkt.ts_end, 37); /* the switching record's timestamp */
	assert_false(pkt.flags & (RB_PACKET_FLUSHED | RB_PACKET_REPAIRED));
	for (next = 0; next < 36; next++)
		check_rec(&pkt, next, next, len);
	seq = 1;
	ts_end = pkt.ts_end;
	/* 25 passes over the 4 sub-buffers, reading as they close. */
	for (; id < 36 * 100; id++) {
		assert_int_equal(write_rec(ch, 0, id, len), 0);
		drain(cons, &next, &seq, &ts_end, len);
	}
	assert_int_equal(rb_consumer_flush(cons, 0, fake_clock_value + 1), 1);
	drain(cons, &next, &seq, &ts_end, len);
	assert_int_equal(next, id);
	assert_int_equal(seq, 100);
	assert_int_equal(rb_consumer_lost(cons, 0), 0);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_exact_fit_and_too_big(void **state)
{
	struct rb_channel *ch = make_channel(SB, 2, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_reservation res;
	struct rb_packet pkt;

	(void)state;
	assert_int_equal(rb_reserve(ch, 0, RB_RECORD_MAX(SB) + 1, &res), -E2BIG);
	assert_int_equal(rb_reserve(ch, 0, (size_t)1 << 40, &res), -E2BIG);
	assert_int_equal(rb_consumer_lost(cons, 0), 2);
	/* A record filling a whole sub-buffer closes it at once. */
	assert_int_equal(write_rec(ch, 0, 42, RB_RECORD_MAX(SB)), 0);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.nr_records, 1);
	assert_int_equal(pkt.size, RB_RECORD_MAX(SB));
	check_rec(&pkt, 0, 42, RB_RECORD_MAX(SB));
	assert_int_equal(pkt.lost_total, 2);
	assert_int_equal(pkt.ts_end, pkt.ts_begin);
	/* Empty payloads are records too. */
	assert_int_equal(rb_reserve(ch, 0, 0, &res), 0);
	rb_commit(ch, &res);
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.nr_records, 1);
	assert_int_equal(pkt.size, 0);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_reserve_ts(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_reservation res;
	struct rb_packet pkt;
	int i;

	(void)state;
	fake_clock_value = 1000;
	assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 0, &res), -EINVAL);
	assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 64, &res), -EINVAL);
	assert_int_equal(rb_reserve_ts(ch, 0, 20, 10, 4, &res), -EINVAL);
	assert_int_equal(rb_reserve_ts(ch, 0, 10, SB, 4, &res), -E2BIG);
	/* First record of the sub-buffer: extended. */
	assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 4, &res), 0);
	assert_int_equal(res.len, 20);
	memset(res.data, 1, res.len);
	rb_commit(ch, &res);
	/* Close in time to the previous one: compact. */
	assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 4, &res), 0);
	assert_int_equal(res.len, 10);
	memset(res.data, 2, res.len);
	rb_commit(ch, &res);
	/* 2^4 ticks or more since the last record: extended. */
	fake_clock_value += 16;
	assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 4, &res), 0);
	assert_int_equal(res.len, 20);
	memset(res.data, 3, res.len);
	rb_commit(ch, &res);
	fake_clock_value += 14;
	assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 4, &res), 0);
	assert_int_equal(res.len, 10);
	memset(res.data, 4, res.len);
	rb_commit(ch, &res);
	/* Forced extended form. */
	assert_int_equal(rb_reserve_ts(ch, 0, 20, 20, 4, &res), 0);
	assert_int_equal(res.len, 20);
	memset(res.data, 5, res.len);
	rb_commit(ch, &res);
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.nr_records, 5);
	assert_int_equal(pkt.size, 20 + 10 + 20 + 10 + 20);
	assert_int_equal(pkt.data[0], 1);
	assert_int_equal(pkt.data[20], 2);
	assert_int_equal(pkt.data[30], 3);
	assert_int_equal(pkt.data[50], 4);
	assert_int_equal(pkt.data[60], 5);
	/* After the flush, the next record opens a packet: extended again. */
	assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 4, &res), 0);
	assert_int_equal(res.len, 20);
	rb_commit(ch, &res);
	/* Switching to a new sub-buffer by overflow: the switching record is
	 * extended even though it is close in time. */
	for (i = 0; i < 400; i++) {
		assert_int_equal(rb_reserve_ts(ch, 0, 10, 20, 4, &res), 0);
		rb_commit(ch, &res);
		if (rb_consumer_read(cons, 0, 0, &pkt) == 0)
			break;
		assert_int_equal(res.len, 10);
	}
	assert_true(i < 400);
	assert_int_equal(res.len, 20);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

/* cpu = -1 writes into the buffer of the CPU the thread runs on (rseq
 * cpu_id, or sched_getcpu() when rseq is off: see the -norseq test run). */
static void test_current_cpu(void **state)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t cpus = n > 1 ? 2 : 1, cpu;
	struct rb_channel *ch = make_channel(SB, 2, cpus, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	cpu_set_t old, one;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	for (cpu = 0; cpu < cpus; cpu++) {
		struct rb_packet pkt;

		if (!CPU_ISSET(cpu, &old))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
		assert_int_equal(write_rec(ch, -1, 100 + cpu, 16), 0);
		assert_int_equal(rb_consumer_flush(cons, cpu, 1u << 30), 1);
		assert_int_equal(rb_consumer_read(cons, cpu, 0, &pkt), 0);
		assert_int_equal(pkt.nr_records, 1);
		check_rec(&pkt, 0, 100 + cpu, 16);
	}
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_discard_counting(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	uint64_t ok = 0, lost = 0, got = 0, id, last_lost = 0, clock_reads;
	struct rb_packet pkt;
	int r;

	(void)state;
	clock_reads = fake_clock_value;
	/* 4 sub-buffers hold 4 * 36 records of 100 bytes; write 1000. */
	for (id = 0; id < 1000; id++) {
		r = write_rec(ch, 0, ok, 100);
		if (r == 0)
			ok++;
		else {
			assert_int_equal(r, -ENOBUFS);
			lost++;
		}
	}
	assert_int_equal(ok, 4 * 36);
	assert_int_equal(lost, 1000 - ok);
	/* A dropped record reads no timestamp (one thread: no CAS retry). */
	assert_int_equal(fake_clock_value - clock_reads, ok);
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1); /* pads sub-buffer 3 */
	while (rb_consumer_read(cons, 0, 0, &pkt) == 0) {
		uint64_t i;

		for (i = 0; i < pkt.nr_records; i++)
			check_rec(&pkt, i, got++, 100);
		assert_true(pkt.lost_total >= last_lost);
		last_lost = pkt.lost_total;
	}
	assert_int_equal(got, ok);
	assert_int_equal(last_lost, lost);
	/* Space is back after reading; counting continues exactly. */
	assert_int_equal(write_rec(ch, 0, got, 100), 0);
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.nr_records, 1);
	assert_int_equal(pkt.lost_total, lost);
	assert_int_equal(pkt.seq, 4);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

/*
 * Each packet reports the losses as of its close, not of its read: losses
 * while the last sub-buffer is open (buffer full) belong to that one.
 */
static void test_loss_partition(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	static const uint64_t expect[] = { 0, 0, 0, 3, 5, 6 };
	struct rb_reservation res;
	struct rb_packet pkt;
	uint64_t id = 0, k;
	int i;

	(void)state;
	/* 36 records of 100 bytes per sub-buffer: fill all 4, then 3 refused. */
	for (i = 0; i < 4 * 36; i++)
		assert_int_equal(write_rec(ch, 0, id++, 100), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(write_rec(ch, 0, id, 100), -ENOBUFS);
	/* Read after the losses: sub-buffer 0 closed before them. */
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.lost_total, expect[0]);
	/* The next record closes sub-buffer 3 (3 lost) and fills 4; 2 refused. */
	for (i = 0; i < 36; i++)
		assert_int_equal(write_rec(ch, 0, id++, 100), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(write_rec(ch, 0, id, 100), -ENOBUFS);
	for (k = 1; k <= 3; k++) {
		assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
		assert_int_equal(pkt.seq, k);
		assert_int_equal(pkt.lost_total, expect[k]);
	}
	/* Closes 4 (5 lost); one too big while 5 is open; the flush closes 5. */
	assert_int_equal(write_rec(ch, 0, id++, 100), 0);
	assert_int_equal(rb_reserve(ch, 0, RB_RECORD_MAX(SB) + 1, &res), -E2BIG);
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1);
	for (k = 4; k <= 5; k++) {
		assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
		assert_int_equal(pkt.seq, k);
		assert_int_equal(pkt.lost_total, expect[k]);
	}
	assert_int_equal(rb_consumer_lost(cons, 0), 6);
	/* Losses after the last close: only rb_consumer_lost() has them. */
	for (i = 0; i < 4 * 36; i++)
		assert_int_equal(write_rec(ch, 0, id++, 100), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(write_rec(ch, 0, id, 100), -ENOBUFS);
	while (rb_consumer_read(cons, 0, 0, &pkt) == 0)
		assert_int_equal(pkt.lost_total, 6);
	assert_int_equal(rb_consumer_lost(cons, 0), 11);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

/* Concurrent loss partition: writers on one CPU buffer against a reader. */
#define LP_RECORDS 200000

struct lp_writer {
	struct rb_channel *ch;
	_Atomic uint64_t *drops; /* all writers' refused records */
	_Atomic int *done;
	pthread_t tid;
};

/* Payload: drops (all writers) seen before the reservation, then filler. */
static void *lp_writer_run(void *arg)
{
	struct lp_writer *w = arg;

	for (uint64_t i = 0; i < LP_RECORDS; i++) {
		uint64_t before = atomic_load(w->drops);
		struct rb_reservation res;

		if (rb_reserve(w->ch, 0, 40, &res) < 0) {
			atomic_fetch_add(w->drops, 1);
			continue;
		}
		memset(res.data, 0x5a, 40);
		memcpy(res.data, &before, 8);
		rb_commit(w->ch, &res);
	}
	atomic_fetch_add(w->done, 1);
	return NULL;
}

/*
 * Per packet: lost_total never decreases; it includes every drop that
 * happened before any of its records was reserved (the close comes after
 * them); with one writer it is exactly the drops before the reservation
 * that closed it, i.e. those seen by the next packet's first record; and
 * the differences between packets plus what rb_consumer_lost() adds after
 * the last one sum to every drop.
 */
static void loss_partition_concurrent(unsigned int nr_writers)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	struct lp_writer w[4];
	_Atomic uint64_t drops = 0;
	_Atomic int done = 0;
	uint64_t last = 0, prev_close = UINT64_MAX, reads = 0, sum = 0;
	struct rb_packet pkt;
	int r;

	for (unsigned int i = 0; i < nr_writers; i++) {
		w[i] = (struct lp_writer){ .ch = ch, .drops = &drops, .done = &done };
		assert_int_equal(pthread_create(&w[i].tid, NULL, lp_writer_run, &w[i]), 0);
	}
	for (;;) {
		int finished = atomic_load(&done) == (int)nr_writers;

		if (finished)
			assert_int_equal(rb_consumer_flush(cons, 0, UINT64_MAX / 2) >= 0, 1);
		while ((r = rb_consumer_read(cons, 0, 0, &pkt)) == 0) {
			uint64_t max_before = 0, first;

			for (uint64_t i = 0; i < pkt.nr_records; i++) {
				uint64_t before;

				memcpy(&before, pkt.data + (i ? pkt.rec_end[i - 1] : 0), 8);
				max_before = MAX(max_before, before);
			}
			assert_true(pkt.lost_total >= last);
			assert_true(pkt.lost_total >= max_before);
			if (nr_writers == 1 && pkt.nr_records && prev_close != UINT64_MAX) {
				memcpy(&first, pkt.data, 8);
				assert_int_equal(prev_close, first);
			}
			/* A flushed packet was closed by us, not by a record. */
			prev_close = pkt.flags & RB_PACKET_FLUSHED ? UINT64_MAX : pkt.lost_total;
			sum += pkt.lost_total - last;
			last = pkt.lost_total;
			/* Fall behind now and then until a writer is refused. */
			if (++reads % 8 == 0) {
				uint64_t d = atomic_load(&drops);

				while (atomic_load(&drops) == d &&
				       atomic_load(&done) != (int)nr_writers)
					sched_yield();
			}
		}
		assert_int_equal(r, -EAGAIN);
		if (finished)
			break;
		sched_yield();
	}
	for (unsigned int i = 0; i < nr_writers; i++)
		pthread_join(w[i].tid, NULL);
	sum += rb_consumer_lost(cons, 0) - last;
	assert_true(atomic_load(&drops) > 0);
	assert_int_equal(sum, atomic_load(&drops));
	assert_int_equal(rb_consumer_lost(cons, 0), atomic_load(&drops));
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_loss_partition_one_writer(void **state)
{
	(void)state;
	loss_partition_concurrent(1);
}

static void test_loss_partition_writers(void **state)
{
	(void)state;
	loss_partition_concurrent(3);
}

static void test_overwrite(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_OVERWRITE);
	struct rb_consumer *cons = make_consumer(ch);
	uint64_t total = 1000, got = 0, first = UINT64_MAX, prev_seq = 0, i;
	struct rb_packet pkt;
	int n = 0;

	(void)state;
	for (i = 0; i < total; i++)
		assert_int_equal(write_rec(ch, 0, i, 100), 0);
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1);
	/* The newest data is kept: contiguous ids ending at total - 1. */
	while (rb_consumer_read(cons, 0, 0, &pkt) == 0) {
		uint64_t b = 0;

		if (first == UINT64_MAX) {
			memcpy(&first, pkt.data, 8);
			got = first;
		} else {
			assert_int_equal(pkt.seq, prev_seq + 1);
		}
		prev_seq = pkt.seq;
		for (i = 0; i < pkt.nr_records; i++) {
			check_rec(&pkt, i, got++, 100);
			b = pkt.rec_end[i];
		}
		(void)b;
		n++;
	}
	assert_int_equal(got, total);
	/* 1000 records = 27 full sub-buffers + 28 in the last (flushed):
	 * 3 full + the partial one survive. */
	assert_int_equal(n, 4);
	assert_int_equal(first, total - 28 - 3 * 36);
	assert_int_equal(rb_consumer_lost(cons, 0), first);
	assert_int_equal(prev_seq, total / 36);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_overwrite_reader_keeps_up(void **state)
{
	struct rb_channel *ch = make_channel(SB, 2, 1, RB_MODE_OVERWRITE);
	struct rb_consumer *cons = make_consumer(ch);
	uint64_t got = 0, i;
	struct rb_packet pkt;

	(void)state;
	/* A consumer reading as it goes sees everything, nothing counted lost. */
	for (i = 0; i < 2000; i++) {
		assert_int_equal(write_rec(ch, 0, i, 60), 0);
		while (rb_consumer_read(cons, 0, 0, &pkt) == 0) {
			uint64_t k;

			for (k = 0; k < pkt.nr_records; k++)
				check_rec(&pkt, k, got++, 60);
		}
	}
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1);
	while (rb_consumer_read(cons, 0, 0, &pkt) == 0) {
		uint64_t k;

		for (k = 0; k < pkt.nr_records; k++)
			check_rec(&pkt, k, got++, 60);
	}
	assert_int_equal(got, 2000);
	assert_int_equal(rb_consumer_lost(cons, 0), 0);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_overwrite_blocked_by_inflight(void **state)
{
	struct rb_channel *ch = make_channel(SB, 2, 1, RB_MODE_OVERWRITE);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_reservation held;
	uint64_t i, fails = 0;
	struct rb_packet pkt;

	(void)state;
	/* Our own in-flight record in sub-buffer 0 (a live writer). */
	assert_int_equal(rb_reserve(ch, 0, 100, &held), 0);
	for (i = 0; i < 200; i++)
		if (write_rec(ch, 0, i, 100) == -ENOBUFS)
			fails++;
	/* 71 more fit in sub-buffers 0 and 1; wrapping into 0 is refused. */
	assert_int_equal(fails, 200 - 71);
	assert_int_equal(rb_consumer_lost(cons, 0), fails);
	memset(held.data, 0, 100);
	rb_commit(ch, &held);
	assert_int_equal(write_rec(ch, 0, 999, 100), 0);
	/* Sub-buffer 0 was overwritten: 36 records counted. */
	assert_int_equal(rb_consumer_lost(cons, 0), fails + 36);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.seq, 1);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_dead_writer(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_packet pkt;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(write_rec(ch, 0, 1, 32), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rb_reservation res;

		/* Reserve and die without committing. */
		if (rb_reserve(ch, 0, 40, &res) == 0)
			memset(res.data, 0x5a, 20);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(write_rec(ch, 0, 3, 32), 0);
	/* Our own in-flight record blocks the read while we live. */
	{
		struct rb_reservation res;

		assert_int_equal(rb_reserve(ch, 0, 8, &res), 0);
		assert_int_equal(rb_consumer_flush(cons, 0, 1000), 1);
		assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), -EAGAIN);
		memset(res.data, 0, 8);
		rb_commit(ch, &res);
	}
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.nr_records, 3);
	check_rec(&pkt, 0, 1, 32);
	check_rec(&pkt, 1, 3, 32);
	assert_int_equal(pkt.lost_total, 1);
	assert_true(pkt.flags & RB_PACKET_REPAIRED);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_pid_alive(void **state)
{
	siginfo_t si;
	pid_t pid;

	(void)state;
	assert_true(rb_pid_alive((uint32_t)getpid()));
	assert_true(rb_pid_alive((uint32_t)getppid()));
	assert_false(rb_pid_alive(0));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	/* Exited but not reaped: a zombie holds no record in flight. */
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_false(rb_pid_alive((uint32_t)pid));
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_false(rb_pid_alive((uint32_t)pid));
}

static void test_hole(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_cpu_ctl *ctl = rb_cpu_ctl(ch, 0);
	struct rb_packet pkt;

	(void)state;
	assert_int_equal(write_rec(ch, 0, 1, 32), 0);
	/* A writer that died between its CAS and its header store: 48 bytes
	 * reserved, no header (stale garbage from an "older pass"). */
	memset(rb_data_at(ch, 0, 40), 0xff, 48);
	atomic_fetch_add(&ctl->write_pos, 48);
	assert_int_equal(write_rec(ch, 0, 2, 32), 0);
	assert_int_equal(rb_consumer_flush(cons, 0, 1000), 1);
	/* Within the hole timeout: wait. */
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), -EAGAIN);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), -EAGAIN);
	assert_int_equal(rb_consumer_read(cons, 0, RB_READ_FORCE, &pkt), 0);
	assert_int_equal(pkt.nr_records, 2);
	check_rec(&pkt, 0, 1, 32);
	check_rec(&pkt, 1, 2, 32);
	assert_int_equal(pkt.lost_total, 1);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_overwrite_hole_repair(void **state)
{
	struct rb_consumer_opts opts = { .hole_timeout_ms = 1 };
	struct rb_channel *ch = make_channel(SB, 2, 1, RB_MODE_OVERWRITE);
	struct rb_cpu_ctl *ctl = rb_cpu_ctl(ch, 0);
	struct rb_consumer *cons = NULL;
	struct rb_packet pkt;
	struct timespec t0, t;
	uint64_t i, lost0, fails = 0;
	int r;

	(void)state;
	assert_int_equal(rb_consumer_create(ch, &opts, &cons), 0);
	assert_int_equal(write_rec(ch, 0, 0, 100), 0);
	/* A writer stalled/killed between its CAS and its header store. */
	memset(rb_data_at(ch, 0, 112), 0xee, 112);
	atomic_fetch_add(&ctl->write_pos, 112);
	for (i = 2; i < 72; i++) /* fill sub-buffers 0 and 1 */
		assert_int_equal(write_rec(ch, 0, i, 100), 0);
	/* Lapping sub-buffer 0 would let the stalled writer corrupt new data. */
	assert_int_equal(write_rec(ch, 0, 72, 100), -ENOBUFS);
	lost0 = rb_consumer_lost(cons, 0);
	assert_int_equal(lost0, 1);
	/* The consumer declares the hole dead after hole_timeout_ms. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		assert_int_equal(rb_consumer_repair(cons, 0), 0);
		r = write_rec(ch, 0, 72, 100);
		if (r == -ENOBUFS)
			fails++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (r == -ENOBUFS && t.tv_sec - t0.tv_sec < 5);
	assert_int_equal(r, 0);
	/* Refused writes, then sub-buffer 0 overwritten: 35 records + the dead one. */
	assert_int_equal(rb_consumer_lost(cons, 0), lost0 + fails + 36);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	assert_int_equal(pkt.seq, 1);
	assert_int_equal(pkt.nr_records, 36);
	check_rec(&pkt, 0, 36, 100);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

/*
 * A producer killed at any instruction of a push (moving the reader past an
 * unread sub-buffer, layout.h) has counted the records it took from the
 * reader, or taken none. The child is single-stepped through the reservation
 * that pushes and killed at the first instruction after consumed_pos moved:
 * where a count added after the CAS of consumed_pos was still missing.
 */
static void test_overwrite_push_killed(void **state)
{
	struct rb_channel *ch = make_channel(SB, 2, 1, RB_MODE_OVERWRITE);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_cpu_ctl *ctl = rb_cpu_ctl(ch, 0);
	uint64_t i, got = 0, steps = 0;
	struct rb_packet pkt;
	int status;
	pid_t pid;

	(void)state;
	for (i = 0; i < 72; i++) /* fill sub-buffers 0 and 1: 36 records each */
		assert_int_equal(write_rec(ch, 0, i, 100), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(77);
		raise(SIGSTOP);
		/* Laps sub-buffer 0, never read: pushes the reader past it. */
		write_rec(ch, 0, 72, 100);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		rb_consumer_destroy(cons);
		rb_channel_destroy(ch);
		skip(); /* ptrace not permitted here */
	}
	assert_true(WIFSTOPPED(status));
	while (atomic_load(&ctl->consumed_pos) == 0) {
		/* Bounded: the reservation is a few thousand instructions. */
		assert_true(++steps < 10000000);
		assert_int_equal(ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSTOPPED(status));
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(atomic_load(&ctl->consumed_pos), SB);
	/* Killed before its own record was reserved: 36 overwritten, 36 to read. */
	assert_int_equal(rb_consumer_lost(cons, 0), 36);
	assert_int_equal(rb_consumer_flush(cons, 0, 1u << 30), 1);
	while (rb_consumer_read(cons, 0, RB_READ_FORCE, &pkt) == 0)
		for (i = 0; i < pkt.nr_records; i++)
			check_rec(&pkt, i, 36 + got++, 100);
	assert_int_equal(got, 36);
	assert_int_equal(rb_consumer_lost(cons, 0), 36);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static void test_corrupted_positions(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 2, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_cpu_ctl *ctl = rb_cpu_ctl(ch, 0);
	struct rb_packet pkt;
	uint64_t *w;
	int i;

	(void)state;
	/* write_pos far ahead of what the consumer read: refused, never read. */
	atomic_store(&ctl->write_pos, (uint64_t)1 << 60);
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), -STRATA_ESTREAM);
	atomic_store(&ctl->write_pos, 3);
	assert_int_equal(rb_consumer_flush(cons, 0, 1), -STRATA_ESTREAM);
	/* Other CPU unaffected. */
	assert_int_equal(write_rec(ch, 1, 5, 16), 0);
	/* Garbage headers with plausible tags and huge or odd lengths. */
	w = (uint64_t *)(void *)rb_data_at(ch, 1, 24);
	for (i = 0; i < 64; i++)
		w[i] = rb_hdr_make((unsigned int)(i & 3), (uint64_t)RB_HDR_LEN_MAX - (uint64_t)i, 1,
				   0);
	w[10] = rb_hdr_make(RB_REC_COMMITTED, SB, 1, 0);
	w[11] = rb_hdr_make(RB_REC_PADDING, 8, 1, 0); /* padding not reaching the end */
	atomic_store(&rb_cpu_ctl(ch, 1)->write_pos, SB);
	assert_int_equal(rb_consumer_read(cons, 1, RB_READ_FORCE, &pkt), 0);
	assert_int_equal(pkt.nr_records, 1);
	check_rec(&pkt, 0, 5, 16);
	assert_true(pkt.flags & RB_PACKET_REPAIRED);
	/* A header claiming a record longer than the sub-buffer is skipped as a hole. */
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

/*
 * Apps control every byte of the data and control words: random garbage must
 * never make the consumer read out of bounds (ASan), hang, or hand out a
 * packet whose ranges leave its buffer.
 */
static void test_random_corruption(void **state)
{
	uint32_t seed = 12345, round, outcomes[3] = { 0, 0, 0 };
	int mode;

	(void)state;
	for (mode = 0; mode < 2; mode++) {
		struct rb_channel *ch = make_channel(SB, 4, 1, (enum rb_mode)mode);
		struct rb_consumer *cons = make_consumer(ch);
		struct rb_cpu_ctl *ctl = rb_cpu_ctl(ch, 0);
		uint64_t *data = (uint64_t *)(void *)rb_data_at(ch, 0, 0);

		for (round = 0; round < 3000; round++) {
			uint64_t c = atomic_load(&ctl->consumed_pos), w, i;
			struct rb_packet pkt;
			int r;

			/* Mostly plausible headers (right tag, random state/len/pid). */
			for (i = 0; i < 4 * SB / 8; i++) {
				seed = seed * 1103515245u + 12345u;
				data[i] = (seed & 1) ? rb_hdr_make(seed >> 29, (seed >> 4) & 0x1ff,
								   seed >> 20, c / (4 * SB)) :
						       ((uint64_t)seed << 32 | seed);
			}
			/* Mostly a plausible write position, sometimes wild. */
			w = c + ((seed >> 3) % (5 * SB / 8)) * 8;
			if (round % 7 == 0)
				w = (uint64_t)seed << 20;
			atomic_store(&ctl->write_pos, w);
			if (round % 11 == 0) /* wild consumed_pos, then restored */
				atomic_store(&ctl->consumed_pos, (uint64_t)seed << 3);
			else if (mode == RB_MODE_OVERWRITE && round % 5 == 0)
				atomic_store(&ctl->consumed_pos, c + SB); /* a producer push */
			r = rb_consumer_read(cons, 0, round & 1 ? RB_READ_FORCE : 0, &pkt);
			assert_true(r == 0 || r == -EAGAIN || r == -STRATA_ESTREAM);
			outcomes[r == 0 ? 0 : r == -EAGAIN ? 1 : 2]++;
			if (r == 0) {
				assert_true(pkt.size <= SB);
				assert_true(pkt.nr_records <= SB / 8);
				for (i = 0; i < pkt.nr_records; i++)
					assert_true(pkt.rec_end[i] <= pkt.size &&
						    (!i || pkt.rec_end[i] >= pkt.rec_end[i - 1]));
			}
			r = rb_consumer_repair(cons, 0);
			assert_true(r == 0 || r == -STRATA_ESTREAM);
			r = rb_consumer_flush(cons, 0, round);
			assert_true(r == 0 || r == 1 || r == -STRATA_ESTREAM || r == -EAGAIN);
			/* Producers stay in bounds too, whatever the control words say. */
			if (write_rec(ch, 0, round, 40) == 0)
				assert_true(rb_consumer_lost(cons, 0) < UINT64_MAX);
			if (round % 11 == 0)
				atomic_store(&ctl->consumed_pos, c);
		}
		/* The rounds did reach the record walk, not only the checks. */
		assert_true(outcomes[0] > 300 && outcomes[1] > 30 && outcomes[2] > 30);
		memset(outcomes, 0, sizeof(outcomes));
		rb_consumer_destroy(cons);
		rb_channel_destroy(ch);
	}
}

static void test_attach_and_validation(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 2, RB_MODE_OVERWRITE);
	struct rb_consumer *cons = make_consumer(ch);
	struct rb_channel *app = NULL;
	struct rb_shm_header *h;
	struct rb_config cfg;
	struct rb_packet pkt;
	int fds[RB_CHANNEL_NR_FDS];
	uint32_t saved;

	(void)state;
	assert_int_equal(rb_channel_fds(ch, fds), RB_CHANNEL_NR_FDS);
	assert_int_equal(rb_channel_attach(fds, 2, &app), 0);
	rb_channel_config(app, &cfg);
	assert_int_equal(cfg.subbuf_size, SB);
	assert_int_equal(cfg.num_subbufs, 4);
	assert_int_equal(cfg.nr_cpus, 2);
	assert_int_equal(cfg.mode, RB_MODE_OVERWRITE);
	rb_channel_set_clock(app, fake_clock);
	/* The app's mapping and the daemon's are the same memory. */
	assert_int_equal(write_rec(app, 1, 77, 50), 0);
	assert_int_equal(rb_consumer_flush(cons, 1, 1u << 30), 1);
	assert_int_equal(rb_consumer_read(cons, 1, 0, &pkt), 0);
	check_rec(&pkt, 0, 77, 50);
	rb_channel_destroy(app);
	app = NULL;

	h = ch->hdr;
	saved = h->version;
	h->version = RB_SHM_VERSION + 1;
	assert_int_equal(rb_channel_attach(fds, 2, &app), -EPROTONOSUPPORT);
	h->version = saved;
	h->word_size = 2;
	assert_int_equal(rb_channel_attach(fds, 2, &app), -EPROTONOSUPPORT);
	h->word_size = sizeof(long);
	h->magic ^= 1;
	assert_int_equal(rb_channel_attach(fds, 2, &app), -STRATA_ESTREAM);
	h->magic ^= 1;
	h->nr_cpus = 3; /* geometry no longer matches the file size */
	assert_int_equal(rb_channel_attach(fds, 2, &app), -STRATA_ESTREAM);
	h->nr_cpus = 2;
	h->subbuf_size = 1ull << 40;
	assert_int_equal(rb_channel_attach(fds, 2, &app), -STRATA_ESTREAM);
	h->subbuf_size = SB;
	h->data_offset += 4096;
	assert_int_equal(rb_channel_attach(fds, 2, &app), -STRATA_ESTREAM);
	h->data_offset -= 4096;
	assert_int_equal(rb_channel_attach(fds, 1, &app), 0); /* no wakeup fd */
	assert_null(NULL);
	rb_channel_destroy(app);
	assert_int_equal(rb_channel_attach(fds, 0, &app), -EINVAL);
	/* The memfd cannot be shrunk under the mappings. */
	assert_true(ftruncate(fds[0], 4096) < 0);
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static void test_wakeup(void **state)
{
	struct rb_channel *ch = make_channel(SB, 4, 1, RB_MODE_DISCARD);
	struct rb_consumer *cons = make_consumer(ch);
	int fd = rb_consumer_wakeup_fd(cons), i;
	struct rb_packet pkt;

	(void)state;
	assert_true(fd >= 0);
	/* Not armed: closing a sub-buffer makes no syscall, no wakeup. */
	for (i = 0; i < 37; i++)
		assert_int_equal(write_rec(ch, 0, (uint64_t)i, 100), 0);
	assert_false(readable(fd));
	assert_int_equal(rb_consumer_read(cons, 0, 0, &pkt), 0);
	rb_consumer_arm_wakeup(cons);
	/* Armed: records that do not close a sub-buffer do not wake. */
	for (i = 0; i < 35; i++)
		assert_int_equal(write_rec(ch, 0, (uint64_t)i, 100), 0);
	assert_false(readable(fd));
	assert_int_equal(write_rec(ch, 0, 99, 100), 0); /* closes sub-buffer 1 */
	assert_true(readable(fd));
	rb_consumer_ack_wakeup(cons);
	assert_false(readable(fd));
	/* One wakeup per arming: the next close does not write again. */
	for (i = 0; i < 36; i++)
		assert_int_equal(write_rec(ch, 0, (uint64_t)i, 100), 0);
	assert_false(readable(fd));
	rb_consumer_destroy(cons);
	rb_channel_destroy(ch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_limits),
		cmocka_unit_test(test_reserve_commit_flush),
		cmocka_unit_test(test_subbuf_switch_and_wrap),
		cmocka_unit_test(test_exact_fit_and_too_big),
		cmocka_unit_test(test_reserve_ts),
		cmocka_unit_test(test_current_cpu),
		cmocka_unit_test(test_discard_counting),
		cmocka_unit_test(test_loss_partition),
		cmocka_unit_test(test_loss_partition_one_writer),
		cmocka_unit_test(test_loss_partition_writers),
		cmocka_unit_test(test_overwrite),
		cmocka_unit_test(test_overwrite_reader_keeps_up),
		cmocka_unit_test(test_overwrite_blocked_by_inflight),
		cmocka_unit_test(test_dead_writer),
		cmocka_unit_test(test_pid_alive),
		cmocka_unit_test(test_hole),
		cmocka_unit_test(test_overwrite_hole_repair),
		cmocka_unit_test(test_overwrite_push_killed),
		cmocka_unit_test(test_corrupted_positions),
		cmocka_unit_test(test_random_corruption),
		cmocka_unit_test(test_attach_and_validation),
		cmocka_unit_test(test_wakeup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
