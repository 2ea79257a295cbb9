/* SPDX-License-Identifier: MIT */
/*
 * Producer side: rb_reserve()/rb_commit(). Runs inside traced apps, from any
 * thread or signal handler: no lock, no allocation, no system call on the
 * fast path, errno preserved. Protocol and ordering pairs: layout.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sys/rseq.h>) && (defined(__x86_64__) || defined(__aarch64__))
#include <sys/rseq.h>
#define RB_HAVE_RSEQ_AREA 1
#endif
#endif
#ifndef RB_HAVE_RSEQ_AREA
#define RB_HAVE_RSEQ_AREA 0
#endif

#include "common/common.h"
#include "ringbuf/layout.h"

/* Reservation flags (rb_reservation.priv_flags). */
#define RB_RES_CLOSES 0x1u /* this reservation closed a sub-buffer: maybe wake */

/*
 * Owner pid written in every record header. Cached: getpid() is a syscall.
 * Refreshed in fork children by the atfork handler (children of raw clone()
 * without glibc keep the parent's pid: their records look owned by the parent).
 */
static uint32_t rb_self_pid;

static void rb_pid_refresh(void)
{
	rb_self_pid = (uint32_t)getpid();
}

__attribute__((constructor)) static void rb_pid_init(void)
{
	rb_pid_refresh();
	pthread_atfork(NULL, NULL, rb_pid_refresh);
}

/* Async-signal-safe: /proc/<pid>/stat state field is 'Z' or 'X' for a dead task. */
static int pid_is_zombie(uint32_t pid)
{
	char path[32] = "/proc/";
	char buf[256], digits[12];
	size_t n = 0, i;
	ssize_t len;
	char *p;
	int fd;

	do {
		digits[n++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid && n < sizeof(digits));
	p = path + 6;
	while (n)
		*p++ = digits[--n];
	for (i = 0; i < sizeof("/stat"); i++)
		*p++ = "/stat"[i];
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone now (next check sees it) or hidden (hidepid): not a zombie */
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	/* comm may contain ')' and spaces: the state follows the last ')'. */
	p = NULL;
	for (i = 0; i < (size_t)len; i++)
		if (buf[i] == ')')
			p = &buf[i];
	if (!p || p + 2 >= buf + len)
		return 0;
	return p[2] == 'Z' || p[2] == 'X';
}

int rb_pid_alive(uint32_t pid)
{
	int saved = errno, alive;

	if (pid == 0)
		alive = 0;
	else if (pid == rb_self_pid)
		alive = 1;
	else if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
		alive = !pid_is_zombie(pid);
	else
		alive = 0;
	errno = saved;
	return alive;
}

/*
 * Overwrite mode: before entering the sub-buffer at old_start + cpu_buf_size,
 * check the old pass at old_start. Returns -EBUSY if a live writer still has a
 * record in flight there (overwriting it would corrupt the new data with its
 * late stores), else the number of records it holds (delivered or not: the
 * caller counts them only if it wins the push of consumed_pos); records of
 * dead writers count too. Bounded: every step advances >= 8 bytes.
 */
static int64_t overwrite_check(const struct rb_channel *ch, uint32_t cpu, uint64_t old_start)
{
	uint64_t pos = old_start, sb_end = old_start + ch->subbuf_size;
	int64_t count = 0;

	while (pos < sb_end) {
		/* pairs with the producers' store-release of COMMITTED/PADDING (B) */
		uint64_t h = atomic_load_explicit(rb_hdr_at(ch, cpu, pos), memory_order_acquire);

		/*
		 * A hole: its writer may be alive between its CAS and its header
		 * store; overwriting would let its late stores corrupt the new
		 * pass. Wait for the consumer to declare it dead (it rewrites
		 * expired holes as dead records, rb_consumer_read/_repair).
		 */
		if (!rb_hdr_valid(ch, h, pos, sb_end))
			return -EBUSY;
		switch (rb_hdr_state(h)) {
		case RB_REC_PADDING:
			return count;
		case RB_REC_RESERVED:
			if (rb_pid_alive(rb_hdr_pid(h)))
				return -EBUSY;
			count++;
			break;
		default:
			count++;
			break;
		}
		pos += rb_rec_size(rb_hdr_len(h));
	}
	return count;
}

/*
 * Overwrite mode, before entering the sub-buffer at old_start + cpu_buf_size:
 * unless the consumer already took the old pass, check it and push
 * consumed_pos past it, counting its records as overwritten. The push happens
 * before our write_pos CAS, so by the time any producer writes the new pass
 * the reader has been moved off it: consumed_pos never lags write_pos by more
 * than the buffer. Exactly one of this CAS and the consumer's CAS on
 * consumed_pos wins (layout.h): each record is delivered or counted, once.
 * The count goes in with the same CAS (rb_reader_cas), never after it: this
 * process may be killed at any instruction, and a whole sub-buffer of
 * records would then be neither read nor counted. If our write_pos CAS then
 * fails, the pushed records are still counted lost (nobody reads them):
 * accounting stays exact.
 */
static int overwrite_push(const struct rb_channel *ch, uint32_t cpu, uint64_t old_start)
{
	struct rb_cpu_ctl *ctl = rb_cpu_ctl(ch, cpu);
	uint64_t pos, lost;
	int64_t count;
	int tries;

	/* pairs with the consumer's rb_reader_cas (A) */
	pos = atomic_load_explicit(&ctl->consumed_pos, memory_order_acquire);
	if (pos != old_start)
		return 0; /* already read (or pushed by another producer) */
	count = overwrite_check(ch, cpu, old_start);
	if (count < 0)
		return -ENOBUFS;
	lost = atomic_load_explicit(&ctl->lost_overwrite, memory_order_relaxed);
	/* A failure with consumed_pos unchanged only read a torn pair: once
	 * more with the pair the CAS saw. Twice: an app scribbling on the
	 * counter cannot keep us here. */
	for (tries = 0; tries < 2; tries++) {
		if (rb_reader_cas(ctl, &pos, &lost, old_start + ch->subbuf_size,
				  lost + (uint64_t)count))
			return 0;
		if (pos != old_start)
			return 0; /* the consumer or another producer took it */
	}
	return -ENOBUFS;
}

static uint32_t current_cpu(const struct rb_channel *ch)
{
	int cur = -1;

#if RB_HAVE_RSEQ_AREA
	/*
	 * glibc >= 2.35 registers rseq for every thread: the kernel keeps
	 * cpu_id current in the TLS area, a plain load (0.3 ns here). When
	 * registration is off (__rseq_size == 0, tunable glibc.pthread.rseq=0,
	 * or another library owns rseq) cpu_id is negative: fall back.
	 */
	if (__rseq_size) {
		const struct rseq *rs =
			(const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);

		cur = (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
	}
#endif
	if (cur < 0)
		cur = sched_getcpu(); /* vDSO getcpu or rdpid; -1 on failure */
	if (cur < 0)
		cur = 0;
	/* The CPU only picks a buffer: any value is correct, this one is cheap. */
	return (uint32_t)cur < ch->nr_cpus ? (uint32_t)cur : (uint32_t)cur % ch->nr_cpus;
}

static void store_ts(_Atomic uint64_t *ts_word, _Atomic uint64_t *seq_word, uint64_t ts,
		     uint64_t seq)
{
	/* Invalidate first so a reader never pairs a new ts with an old seq. */
	atomic_store_explicit(seq_word, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(ts_word, ts, memory_order_relaxed);
	/* pairs with the consumer's load-acquire of begin_seq/end_seq (D) */
	atomic_store_explicit(seq_word, seq + 1, memory_order_release);
}

/*
 * Publish the close of sub-buffer seq: its end time and the buffer's loss
 * count at this moment, under one end_seq, so that the packet carries the
 * losses of its own lifetime whenever the consumer reads it. Losses racing
 * with the close land in this packet or a later one: each is counted once.
 */
static void close_subbuf(const struct rb_channel *ch, struct rb_cpu_ctl *ctl, uint32_t cpu,
			 uint64_t seq, uint64_t ts)
{
	struct rb_subbuf_ctl *sb = rb_subbuf_ctl(ch, cpu, seq);

	atomic_store_explicit(&sb->end_seq, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&sb->ts_end, ts, memory_order_relaxed);
	atomic_store_explicit(&sb->lost_end, rb_lost_shared(ctl), memory_order_relaxed);
	/* pairs with the consumer's load-acquire of end_seq (D) */
	atomic_store_explicit(&sb->end_seq, seq + 1, memory_order_release);
}

/*
 * The reservation proper. len_ext/ts_bits: see rb_reserve_ts(); ts_bits == 0
 * means a single size (len == len_ext), no last_ts bookkeeping.
 */
static inline __attribute__((always_inline)) int reserve(struct rb_channel *ch, int cpu, size_t len,
							 size_t len_ext, unsigned int ts_bits,
							 struct rb_reservation *res)
{
	const uint64_t S = ch->subbuf_size;
	struct rb_cpu_ctl *ctl;
	uint64_t o, begin, end, size, ts, pass;
	size_t payload_len = len;
	int r;
	uint32_t c, pid, flags = 0;
	_Atomic uint64_t *hdr;

	if (cpu < 0)
		c = current_cpu(ch);
	else if ((uint32_t)cpu < ch->nr_cpus)
		c = (uint32_t)cpu;
	else
		return -EINVAL;
	ctl = rb_cpu_ctl(ch, c);
	if (unlikely(MAX(len, len_ext) > RB_RECORD_MAX(S))) {
		atomic_fetch_add_explicit(&ctl->lost_big, 1, memory_order_relaxed);
		return -E2BIG;
	}
	size = rb_rec_size(payload_len);
	/* pairs with the acq_rel CAS of other producers / the consumer's flush (C) */
	o = atomic_load_explicit(&ctl->write_pos, memory_order_acquire);
	for (;;) {
		/*
		 * Read after the position: a CAS failure re-reads both. With a
		 * single size the read waits until the record is known to fit:
		 * a dropped record needs no timestamp.
		 */
		if (ts_bits) {
			ts = ch->clock ? ch->clock() : 0;
			/* Any last_ts we can read is from a record before ours
			 * (stored after its CAS, read before ours): at worst older
			 * than our predecessor's, which only favours extended. */
			uint64_t last = atomic_load_explicit(&ctl->last_ts, memory_order_relaxed);

			payload_len = ((ts - last) >> ts_bits) ? len_ext : len;
			size = rb_rec_size(payload_len);
		}
		begin = (o & (S - 1)) + size <= S ? o : (o | (S - 1)) + 1;
		if (ts_bits && !(begin & (S - 1)) && payload_len != len_ext) {
			/* First record of a packet: always the extended form. */
			payload_len = len_ext;
			size = rb_rec_size(payload_len);
		}
		end = begin + size;
		if (ch->mode == RB_MODE_DISCARD) {
			/* pairs with the consumer's store-release of consumed_pos (A) */
			uint64_t consumed =
				atomic_load_explicit(&ctl->consumed_pos, memory_order_acquire);

			if (unlikely(end - consumed > ch->cpu_buf_size)) {
				atomic_fetch_add_explicit(&ctl->lost_full, 1, memory_order_relaxed);
				return -ENOBUFS;
			}
		} else if (unlikely(!(begin & (S - 1)) && begin >= ch->cpu_buf_size)) {
			r = overwrite_push(ch, c, begin - ch->cpu_buf_size);
			if (r < 0) {
				atomic_fetch_add_explicit(&ctl->lost_wrap, 1, memory_order_relaxed);
				return r;
			}
		}
		if (!ts_bits)
			ts = ch->clock ? ch->clock() : 0;
		/* pairs with the consumer's load-acquire of write_pos (C) */
		if (atomic_compare_exchange_weak_explicit(
			    &ctl->write_pos, &o, end, memory_order_acq_rel, memory_order_acquire))
			break;
	}
	if (ch->mode == RB_MODE_OVERWRITE)
		/* Order the CAS before our header/payload stores: pairs with the
		 * consumer's acquire fence before re-reading write_pos (F). */
		atomic_thread_fence(memory_order_release);

	/*
	 * Our header first: until it is stored, a kill or a long stall leaves
	 * a hole the consumer can only skip after hole_timeout_ms (layout.h).
	 * RESERVED needs no ordering: the COMMITTED store-release publishes.
	 */
	pid = rb_self_pid;
	pass = begin >> ch->cpu_buf_shift;
	hdr = rb_hdr_at(ch, c, begin);
	res->priv_word = rb_hdr_make(RB_REC_RESERVED, payload_len, pid, pass);
	atomic_store_explicit(hdr, res->priv_word, memory_order_relaxed);
	if (ts_bits)
		atomic_store_explicit(&ctl->last_ts, ts, memory_order_relaxed);
	if (unlikely(begin != o)) {
		/* Close the previous sub-buffer with padding; our ts is its end. */
		close_subbuf(ch, ctl, c, o >> ch->subbuf_shift, ts);
		/* pairs with the consumer's load-acquire of headers (B) */
		atomic_store_explicit(rb_hdr_at(ch, c, o),
				      rb_hdr_make(RB_REC_PADDING, begin - o - RB_RECORD_HEADER_SIZE,
						  pid, o >> ch->cpu_buf_shift),
				      memory_order_release);
		flags |= RB_RES_CLOSES;
	}
	if (unlikely(!(begin & (S - 1)))) {
		struct rb_subbuf_ctl *sb = rb_subbuf_ctl(ch, c, begin >> ch->subbuf_shift);

		store_ts(&sb->ts_begin, &sb->begin_seq, ts, begin >> ch->subbuf_shift);
	}
	if (unlikely(!(end & (S - 1)))) {
		/* Exact fit: this record is the last of its sub-buffer. */
		close_subbuf(ch, ctl, c, begin >> ch->subbuf_shift, ts);
		flags |= RB_RES_CLOSES;
	}

	res->priv_hdr = (void *)hdr;
	res->priv_flags = flags;
	res->priv_cpu = c;
	res->data = (uint8_t *)(void *)hdr + RB_RECORD_HEADER_SIZE;
	res->ts = ts;
	res->len = payload_len;
	return 0;
}

int rb_reserve(struct rb_channel *ch, int cpu, size_t payload_len, struct rb_reservation *res)
{
	return reserve(ch, cpu, payload_len, payload_len, 0, res);
}

int rb_reserve_ts(struct rb_channel *ch, int cpu, size_t len, size_t len_ext, unsigned int ts_bits,
		  struct rb_reservation *res)
{
	if (!ts_bits || ts_bits > 63 || len_ext < len)
		return -EINVAL;
	return reserve(ch, cpu, len, len_ext, ts_bits, res);
}

static void wake_consumer(struct rb_channel *ch)
{
	struct rb_shm_header *h = ch->hdr;
	char one = 1;
	int saved;

	if (ch->wake_fd < 0)
		return;
	/* pairs with the seq_cst fence in rb_consumer_arm_wakeup (E, Dekker) */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&h->wakeup_armed, memory_order_relaxed))
		return;
	if (!atomic_exchange_explicit(&h->wakeup_armed, 0, memory_order_acq_rel))
		return;
	saved = errno;
	/* EAGAIN (queue full) means wakeups are already pending: fine. */
	if (send(ch->wake_fd, &one, sizeof(one), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
	}
	errno = saved;
}

void rb_commit(struct rb_channel *ch, struct rb_reservation *res)
{
	uint64_t word = (res->priv_word & ~(uint64_t)3) | RB_REC_COMMITTED;

	/* pairs with the consumer's load-acquire of the header (B) */
	atomic_store_explicit((_Atomic uint64_t *)res->priv_hdr, word, memory_order_release);
	if (unlikely(res->priv_flags & RB_RES_CLOSES))
		wake_consumer(ch);
}
