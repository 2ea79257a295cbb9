/* SPDX-License-Identifier: MIT */
/*
 * Packet-by-packet reading of one data stream (stream.h): packet header and
 * context checks, discarded-events/packets accounting as babeltrace2 2.0.4
 * does it (ctf.md §1.10), and event decoding.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strata/error.h>

#include "ctf/decode-ahead.h"
#include "ctf/stream.h"
#include "common/common.h"

#define CTF_PACKET_MAGIC UINT32_C(0xC1FC1FC1)

/* First read of a file's packet before its size is known. */
#define FIRST_READ 4096u
/* Packet buffers of at least half of it are made of whole huge pages. */
#define HUGE_PAGE (UINT64_C(2) << 20)

static int stream_err(struct ctf_stream *s, int code, uint64_t byte_off, const char *fmt, ...)
	_printf_(4, 5);

static int stream_err(struct ctf_stream *s, int code, uint64_t byte_off, const char *fmt, ...)
{
	const char *path = s->files[s->cur_file].path;
	int n;
	va_list ap;

	if (!s->err || !s->errlen)
		return code;
	n = snprintf(s->err, s->errlen,
		     "Failed to read stream file '%s' at byte offset %" PRIu64 ": ", path,
		     byte_off);
	if (n >= 0 && (size_t)n < s->errlen) {
		va_start(ap, fmt);
		vsnprintf(s->err + n, s->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int dec_error(struct ctf_stream *s, const struct ctf_dec *d, int r)
{
	if (r == -ENOMEM)
		return stream_err(s, r, s->pkt_off + d->err_pos / 8, "out of memory");
	return stream_err(s, r, s->pkt_off + d->err_pos / 8, "%s",
			  d->err ? d->err : "malformed data");
}

static bool meaning(const struct ctf_dec *d, enum ctf_meaning m, uint64_t *ret)
{
	if (!(d->meaning_set & (1u << m)))
		return false;
	*ret = d->meaning_val[m];
	return true;
}

static void set_range(struct ctf_stream *s, struct ctf_pending *p, uint64_t b, uint64_t e)
{
	const struct ctf_sc_dec *scd = s->scd;
	int32_t clk = scd->sc->default_clock;

	p->begin_raw = b;
	p->end_raw = e;
	p->d.has_range = clk >= 0 && ctf_clock_to_ns(s->rt->td, clk, b, &p->d.begin_ns) &&
			 ctf_clock_to_ns(s->rt->td, clk, e, &p->d.end_ns);
	if (!p->d.has_range)
		p->d.begin_ns = p->d.end_ns = 0;
}

static struct ctf_pending *add_pending(struct ctf_stream *s, enum strata_ctf_msg_type type)
{
	struct ctf_pending *p = &s->pending[s->n_pending++];
	const struct ctf_trace *t = &s->rt->t;

	memset(p, 0, sizeof(*p));
	p->type = type;
	p->d.trace_name = t->name;
	p->d.trace_uuid = t->tc->has_uuid ? t->tc->uuid : NULL;
	p->d.stream_path = s->path;
	p->d.stream_class_id = s->scd->sc->id;
	p->d.has_stream_id = true;
	p->d.stream_id = s->stream_id;
	return p;
}

/* babeltrace2's msg-iter check_emit_msg_discarded_{events,packets}(). */
static void compute_discarded(struct ctf_stream *s)
{
	const struct ctf_sc_dec *scd = s->scd;
	bool have_cs = scd->has_ts_begin && scd->has_ts_end && scd->sc->default_clock >= 0;
	struct ctf_pending *p;

	s->n_pending = s->next_pending = 0;
	if (scd->has_disc_events && s->snap.has_disc) {
		if (!s->prev.has_disc) {
			if (s->snap.disc != 0) {
				p = add_pending(s, STRATA_CTF_MSG_DISCARDED_EVENTS);
				p->d.count = 0; /* unknown: "may have discarded" */
				if (have_cs)
					set_range(s, p, s->snap.ts_begin, s->snap.ts_end);
			}
		} else if (s->snap.disc - s->prev.disc != 0) {
			p = add_pending(s, STRATA_CTF_MSG_DISCARDED_EVENTS);
			p->d.count = s->snap.disc - s->prev.disc;
			if (have_cs && s->prev.has_ts_end)
				set_range(s, p, s->prev.ts_end, s->snap.ts_end);
		}
	}
	if (scd->has_seq_num && s->snap.has_seq && s->prev.has_seq &&
	    s->snap.seq - s->prev.seq > 1) {
		p = add_pending(s, STRATA_CTF_MSG_DISCARDED_PACKETS);
		p->d.count = s->snap.seq - s->prev.seq - 1;
		if (have_cs && s->prev.has_ts_end)
			set_range(s, p, s->prev.ts_end, s->snap.ts_begin);
	}
}

/*
 * Stream files held open, process-wide: each stream keeps its current file
 * open, up to half of RLIMIT_NOFILE; past that (per-PID traces can have
 * thousands of streams) a stream opens its file for each packet read.
 */
static _Atomic long held_fds;
static _Atomic long fd_budget;

static bool fd_hold(void)
{
	long budget = atomic_load_explicit(&fd_budget, memory_order_relaxed);

	if (budget == 0) {
		struct rlimit rl;

		budget = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ?
				 (long)MIN(rl.rlim_cur / 2, (rlim_t)1 << 20) :
				 512;
		if (budget < 1)
			budget = 1;
		atomic_store_explicit(&fd_budget, budget, memory_order_relaxed);
	}
	if (atomic_fetch_add(&held_fds, 1) < budget)
		return true;
	atomic_fetch_sub(&held_fds, 1);
	return false;
}

static void file_close(struct ctf_stream *s)
{
	if (!s->fd_open)
		return;
	close(s->fd);
	s->fd_open = false;
	atomic_fetch_sub(&held_fds, 1);
}

/* pread() exactly len bytes at off of the current file into dst. */
static int read_at(struct ctf_stream *s, int fd, uint8_t *dst, uint64_t len, uint64_t off)
{
	const struct ctf_stream_file *f = &s->files[s->cur_file];

	if (f->mem) {
		if (off > f->size || len > f->size - off)
			return stream_err(s, -STRATA_ESTREAM, off,
					  "packet is shorter than its size");
		memcpy(dst, f->mem + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(fd, dst, MIN(len, (uint64_t)1 << 30), (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return stream_err(s, -errno, off, "read failed: %s", strerror(errno));
		if (n == 0)
			return stream_err(s, -STRATA_ESTREAM, off,
					  "file is shorter than when the trace was opened");
		dst += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* Packets read or mapped: not more than CTF_PKT_MAX_BYTES of one in memory. */
static int packet_too_big(struct ctf_stream *s, uint64_t len)
{
	return stream_err(s, -STRATA_ESTREAM, s->pkt_off,
			  "packet of %" PRIu64 " bytes is larger than the reader's limit "
			  "(%" PRIu64 " bytes)",
			  len, CTF_PKT_MAX_BYTES);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/*
 * f mapped whole for reading its packets' events, when the kernel can
 * populate a mapping's pages ahead; else NULL, and they are read with
 * pread(), as always when STRATA_CTF_NO_MMAP is set in the environment
 * (the tests read traces both ways). Tried once per file.
 */
static const uint8_t *file_map(struct ctf_stream_file *f, int fd)
{
	void *m;

	if (f->map_tried)
		return f->map;
	f->map_tried = true;
	if (f->size == 0 || f->size > SIZE_MAX || getenv("STRATA_CTF_NO_MMAP"))
		return NULL;
	m = mmap(NULL, (size_t)f->size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	/* EINVAL before Linux 5.14; EFAULT: cut since, which map_read() reports. */
	if (madvise(m, 1, MADV_POPULATE_READ) < 0 && errno != EFAULT) {
		munmap(m, (size_t)f->size);
		return NULL;
	}
	f->map = m;
	return f->map;
}

/*
 * Bytes [off, off + len) of the current file, mapped at map, made readable
 * in one call. The file must still hold them: a mapping reads a cut file's
 * last page as zeros, and faults past it.
 */
static int map_read(struct ctf_stream *s, int fd, const uint8_t *map, uint64_t off, uint64_t len)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	const uintptr_t a = (uintptr_t)(map + off) & ~(page - 1);
	struct stat st;

	if (len == 0)
		return 0;
	if (off + len - s->pkt_off > CTF_PKT_MAX_BYTES)
		return packet_too_big(s, off + len - s->pkt_off);
	if (fstat(fd, &st) < 0)
		return stream_err(s, -errno, off, "cannot stat: %s", strerror(errno));
	if ((uint64_t)st.st_size < off + len)
		return stream_err(s, -STRATA_ESTREAM, MAX((uint64_t)st.st_size, off),
				  "file is shorter than when the trace was opened");
	/* Other failures only leave the pages to be faulted in one by one. */
	if (madvise((void *)a, (uintptr_t)(map + off + len) - a, MADV_POPULATE_READ) < 0 &&
	    (errno == EFAULT || errno == EHWPOISON || errno == EIO))
		return stream_err(s, -EIO, off, "read failed: %s", strerror(errno));
	return 0;
}

/* Bytes of a stream's mapped packets done with, dropped together once this many. */
#define MAP_DROP_BYTES (UINT64_C(2) << 20)

/*
 * Drop the page table entries of the pages wholly inside the stream's done
 * range, which the next packets would otherwise pile up. The bytes stay
 * readable: a page read again is faulted in.
 */
static void map_drop_flush(struct ctf_stream *s)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	const uintptr_t a = ((uintptr_t)s->drop_lo + page - 1) & ~(page - 1);
	const uintptr_t e = (uintptr_t)s->drop_hi & ~(page - 1);

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
	s->drop_lo = s->drop_hi = NULL;
}

/*
 * A mapped packet is done. Its bytes join the done range when they follow
 * it in the same file (what lies between is the earlier packet's padding),
 * and the range is dropped once it reaches MAP_DROP_BYTES: one call, and
 * one TLB flush on the other CPUs running the process, per several packets.
 */
static void map_drop(struct ctf_stream *s, const struct ctf_pkt_buf *b)
{
	const uint8_t *lo = b->bytes, *hi = b->bytes + b->n_bytes;

	if (s->drop_hi && (b->file != s->drop_file || (uintptr_t)lo < (uintptr_t)s->drop_hi))
		map_drop_flush(s);
	if (!s->drop_hi) {
		s->drop_lo = lo;
		s->drop_file = b->file;
	}
	s->drop_hi = hi;
	if ((uintptr_t)s->drop_hi - (uintptr_t)s->drop_lo >= MAP_DROP_BYTES)
		map_drop_flush(s);
}

/* A FREE buffer made CURRENT, or NULL. */
static struct ctf_pkt_buf *buf_take(struct ctf_stream *s)
{
	for (unsigned i = 0; i < CTF_PKT_BUFS; i++) {
		struct ctf_pkt_buf *b = &s->bufs[i];

		/* Pairs with the seq_cst store in ctf_stream_bufs_release(). */
		if (atomic_load_explicit(&b->state, memory_order_acquire) == CTF_PKT_FREE) {
			atomic_store_explicit(&b->state, CTF_PKT_CURRENT, memory_order_relaxed);
			return b;
		}
	}
	return NULL;
}

static int buf_reserve(struct ctf_stream *s, struct ctf_pkt_buf *b, uint64_t len)
{
	uint8_t *data;
	uint64_t cap;

	if (len <= b->cap)
		return 0;
	if (len > CTF_PKT_MAX_BYTES)
		return packet_too_big(s, len);
	/*
	 * Large packets get whole 2 MiB pages (transparent huge pages where
	 * madvise mode allows): one TLB entry instead of 512 for the bytes the
	 * decoder walks, which counts on this VM. Small ones would waste them.
	 */
	if (len >= HUGE_PAGE / 2) {
		cap = (len + HUGE_PAGE - 1) & ~(uint64_t)(HUGE_PAGE - 1);
		data = aligned_alloc(HUGE_PAGE, (size_t)cap);
		if (data) {
			(void)madvise(data, (size_t)cap, MADV_HUGEPAGE); /* best effort */
			if (b->data)
				memcpy(data, b->data, b->cap);
			free(b->data);
		}
	} else {
		cap = (len + 4095) & ~(uint64_t)4095;
		data = realloc(b->data, (size_t)cap);
	}
	if (!data)
		return stream_err(s, -ENOMEM, s->pkt_off, "out of memory");
	b->data = data;
	b->cap = (size_t)cap;
	return 0;
}

/*
 * Decode the packet header and context from the have bytes of the buffer.
 * The clock is restored first: packet context clock fields move it, and
 * this may run again with more bytes.
 */
static int decode_head(struct ctf_stream *s, struct ctf_dec *d, uint64_t have, uint64_t clock,
		       bool *ret_dec_failed)
{
	const struct ctf_trace_dec *td = s->rt->td;
	const struct ctf_sc_dec *scd;
	uint64_t v, sc_id;
	int r;

	*ret_dec_failed = false;
	memset(d, 0, sizeof(*d));
	s->clock = clock;
	d->base = s->pkt_base;
	d->end = have * 8;
	d->out = s->pkt_vals;
	d->clock = &s->clock;
	s->pkt_vals->n = 0;
	s->has_ph = s->has_pc = false;
	if (td->packet_header) {
		r = ctf_dec_root(d, CTF_SCOPE_PACKET_HEADER, td->packet_header, &s->ph_idx);
		if (r < 0) {
			*ret_dec_failed = true;
			return r;
		}
		s->has_ph = true;
	}
	if (meaning(d, CTF_MEANING_MAGIC, &v) && v != CTF_PACKET_MAGIC)
		return stream_err(s, -STRATA_ESTREAM, s->pkt_off,
				  "bad packet magic 0x%" PRIX64 " (expected 0xC1FC1FC1)", v);
	if (meaning(d, CTF_MEANING_STREAM_ID, &sc_id)) {
		scd = ctf_trace_dec_sc(td, sc_id);
	} else if (td->tc->n_streams == 1) {
		scd = &td->scs[0];
		sc_id = scd->sc->id;
	} else {
		scd = NULL;
		sc_id = 0;
	}
	if (!scd)
		return stream_err(s, -STRATA_ESTREAM, s->pkt_off,
				  "unknown stream class id %" PRIu64, sc_id);
	if (s->scd && s->scd != scd)
		return stream_err(s, -STRATA_ESTREAM, s->pkt_off,
				  "stream class changes from %" PRIu64 " to %" PRIu64
				  " within one stream",
				  s->scd->sc->id, sc_id);
	/* Once: the reader's thread reads it while a worker decodes ahead. */
	if (!s->scd)
		s->scd = scd;
	if (scd->packet_context) {
		r = ctf_dec_root(d, CTF_SCOPE_PACKET_CONTEXT, scd->packet_context, &s->pc_idx);
		if (r < 0) {
			*ret_dec_failed = true;
			return r;
		}
		s->has_pc = true;
	}
	/* The values no longer move: every event of the packet points to them. */
	s->pkt_scope[0] = s->has_ph ? &s->pkt_vals->v[s->ph_idx] : NULL;
	s->pkt_scope[1] = s->has_pc ? &s->pkt_vals->v[s->pc_idx] : NULL;
	return 0;
}

static bool packet_key(struct ctf_stream *s, bool has, uint64_t raw, int64_t *ret_ns);
static void snap_carry(struct ctf_snapshots *prev, const struct ctf_snapshots *snap);

/*
 * Read the packet at s->pkt_off into a buffer and check its header and
 * context. The first read takes the last packet's size (most packets of a
 * stream have one size); if the header and context do not decode from what
 * was read, more is read, up to the rest of the file, so that errors are
 * those of the whole file. head_only: discovery, the events are not read.
 */
static int packet_begin(struct ctf_stream *s, bool head_only)
{
	struct ctf_stream_file *f = &s->files[s->cur_file];
	const uint8_t *map;
	uint64_t avail = f->size - s->pkt_off, v, psize, csize, have = 0, want, need;
	uint64_t clock = s->clock;
	struct ctf_pkt_buf *b;
	struct ctf_dec d;
	bool transient = false, dec_failed;
	int fd, r;

	/* Keep bit counts exact (files above 2^60 bytes do not exist). */
	if (avail > (UINT64_MAX >> 4))
		avail = UINT64_MAX >> 4;
	b = buf_take(s);
	if (!b) {
		if (!s->ahead)
			stream_err(s, -EAGAIN, s->pkt_off, "no free packet buffer");
		return -EAGAIN;
	}
	s->cur = b;
	s->packet = ((uint64_t)s->index << 32) | (uint32_t)(s->packet + 1);
	s->pkt_vals = &b->vals;
	if (f->mem) {
		fd = -1; /* read_at() copies from memory */
	} else if (!s->fd_open) {
		fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return stream_err(s, -errno, s->pkt_off, "cannot open: %s",
					  strerror(errno));
		if (fd_hold()) {
			s->fd = fd;
			s->fd_open = true;
		} else {
			transient = true;
		}
	} else {
		fd = s->fd;
	}

	/* Headers alone (discovery, slices' scans) are read: they are small. */
	map = head_only || f->mem ? NULL : file_map(f, fd);
	b->mapped = map != NULL;
	want = MIN(avail, s->read_guess ? s->read_guess : FIRST_READ);
	for (;;) {
		if (map) {
			r = map_read(s, fd, map, s->pkt_off + have, want - have);
			if (r < 0)
				goto out;
			s->pkt_base = map + s->pkt_off;
		} else {
			r = buf_reserve(s, b, want);
			if (r < 0)
				goto out;
			r = read_at(s, fd, b->data + have, want - have, s->pkt_off + have);
			if (r < 0)
				goto out;
			s->pkt_base = b->data;
		}
		have = want;
		r = decode_head(s, &d, have, clock, &dec_failed);
		if (r >= 0)
			break;
		if (!dec_failed)
			goto out; /* checked on decoded values: more bytes change nothing */
		if (r != -ENOMEM && have < avail) {
			want = MIN(avail, have * 2);
			continue;
		}
		r = dec_error(s, &d, r);
		goto out;
	}

	psize = meaning(&d, CTF_MEANING_PACKET_SIZE, &v) ? v : avail * 8;
	csize = meaning(&d, CTF_MEANING_CONTENT_SIZE, &v) ? v : psize;
	r = -STRATA_ESTREAM;
	if (psize == 0 || psize % 8) {
		stream_err(s, r, s->pkt_off, "invalid packet size %" PRIu64 " bits", psize);
		goto out;
	}
	if (psize > avail * 8) {
		stream_err(s, r, s->pkt_off,
			   "packet size %" PRIu64 " bits goes past the end of the file (%" PRIu64
			   " bits left)",
			   psize, avail * 8);
		goto out;
	}
	if (csize > psize) {
		stream_err(s, r, s->pkt_off,
			   "content size %" PRIu64 " bits is larger than packet size %" PRIu64
			   " bits",
			   csize, psize);
		goto out;
	}
	if (csize < d.pos) {
		stream_err(s, r, s->pkt_off,
			   "content size %" PRIu64 " bits is smaller than the packet header and "
			   "context (%" PRIu64 " bits)",
			   csize, d.pos);
		goto out;
	}
	/* The events: only the content is read, padding never is. */
	need = (csize + 7) / 8;
	if (!head_only && need > have && map) {
		r = map_read(s, fd, map, s->pkt_off + have, need - have);
		if (r < 0)
			goto out;
		have = need;
	} else if (!head_only && need > have) {
		if (need > b->cap) {
			/* Values point into the buffer: decode again where it moves. */
			r = buf_reserve(s, b, need);
			if (r < 0)
				goto out;
			s->pkt_base = b->data;
			r = decode_head(s, &d, have, clock, &dec_failed);
			if (r < 0)
				goto out; /* it decoded from the same bytes */
		}
		r = read_at(s, fd, b->data + have, need - have, s->pkt_off + have);
		if (r < 0)
			goto out;
		have = need;
	}
	b->bytes = s->pkt_base;
	b->n_bytes = have;
	b->file = (uint32_t)s->cur_file;
	s->read_guess = psize / 8;

	s->snap.has_ts_begin =
		s->scd->has_ts_begin && meaning(&d, CTF_MEANING_TS_BEGIN, &s->snap.ts_begin);
	s->snap.has_ts_end = s->scd->has_ts_end && meaning(&d, CTF_MEANING_TS_END, &s->snap.ts_end);
	s->snap.has_disc = meaning(&d, CTF_MEANING_DISC_EVENTS, &s->snap.disc);
	s->snap.has_seq = meaning(&d, CTF_MEANING_SEQ_NUM, &s->snap.seq);
	compute_discarded(s);

	if (s->slicing && !packet_key(s, s->snap.has_ts_end, s->snap.ts_end, &s->slice_pkt_end))
		s->slice_pkt_end = INT64_MIN; /* no event fits: the slice gives up */
	s->pos = d.pos;
	s->content_end = csize;
	s->packet_bits = psize;
	s->in_packet = true;
	s->pb_done = false;
	r = 0;
out:
	if (transient)
		close(fd);
	return r;
}

/* Whether babeltrace2's quirks say the packet's end time is wrong (struct ctf_quirks). */
static bool end_time_wrong(const struct ctf_stream *s)
{
	const struct ctf_quirks *q = &s->rt->quirks;

	if (q->lttng_crash && s->snap.ts_end == 0 &&
	    (!s->snap.has_ts_begin || s->snap.ts_begin != 0))
		return true;
	return q->event_after_packet && s->snap.ts_end < s->clock;
}

static void packet_end(struct ctf_stream *s)
{
	/*
	 * babeltrace2 moves the clock to the packet's end time, and its packet
	 * end message takes the clock's value: the last event's where the end
	 * time is wrong.
	 */
	if (s->snap.has_ts_end && !end_time_wrong(s))
		s->clock = s->snap.ts_end;
	snap_carry(&s->prev, &s->snap);
	s->pkt_off += s->packet_bits / 8;
	s->in_packet = false;
	/* This end message is slot `produced`: the last one that reaches the buffer. */
	s->cur->end_seq = s->produced + 1;
	/* Pairs with the acquire in ctf_stream_bufs_release(): end_seq is set. */
	atomic_store_explicit(&s->cur->state, CTF_PKT_DONE, memory_order_release);
}

/* Room for need elements of size elem in *arr (capacity *cap). */
static void *grow_arr(void *arr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap;

	if (need <= *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	arr = realloc(arr, (size_t)ncap * elem);
	if (arr)
		*cap = ncap;
	return arr;
}

static bool is_text(const struct ctf_type *t)
{
	return t &&
	       (t->kind == CTF_TYPE_STRING || (t->kind == CTF_TYPE_ARRAY && t->array.is_text) ||
		(t->kind == CTF_TYPE_SEQUENCE && t->sequence.is_text));
}

/* Whether t or anything below it is text. */
static bool has_text(const struct ctf_type *t)
{
	if (!t)
		return false;
	if (is_text(t))
		return true;
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		for (size_t i = 0; i < t->structure.n_fields; i++)
			if (has_text(t->structure.fields[i].type))
				return true;
		return false;
	case CTF_TYPE_VARIANT:
		for (size_t i = 0; i < t->variant.n_options; i++)
			if (has_text(t->variant.options[i].type))
				return true;
		return false;
	case CTF_TYPE_ARRAY:
		return has_text(t->array.elem);
	case CTF_TYPE_SEQUENCE:
		return has_text(t->sequence.elem);
	default:
		return false;
	}
}

/* A new node for a field of type t; its index in *ret. */
static int node_new(struct ctf_ec_pool *pool, const struct ctf_type *t, uint32_t *ret)
{
	struct ctf_stale_node *nodes =
		grow_arr(pool->nodes, &pool->cap_nodes, pool->n_nodes + 1, sizeof(*pool->nodes));

	if (!nodes)
		return -ENOMEM;
	pool->nodes = nodes;
	nodes[pool->n_nodes] =
		(struct ctf_stale_node){ .slot = UINT32_MAX, .no_text = !has_text(t) };
	*ret = pool->n_nodes++;
	return 0;
}

/* Child k (member, element or option) of node, of type t, made on first use. */
static int node_kid(struct ctf_ec_pool *pool, uint32_t node, uint32_t k, const struct ctf_type *t,
		    uint32_t *ret)
{
	struct ctf_stale_node *n = &pool->nodes[node];
	uint32_t kid;
	int r;

	if (k >= n->n_kids) {
		uint32_t cap = MAX(k + 1, n->n_kids * 2);
		uint32_t *kids = realloc(n->kids, (size_t)cap * sizeof(*kids));

		if (!kids)
			return -ENOMEM;
		memset(kids + n->n_kids, 0, (size_t)(cap - n->n_kids) * sizeof(*kids));
		n->kids = kids;
		n->n_kids = cap;
	}
	if (n->kids[k]) {
		*ret = n->kids[k] - 1;
		return 0;
	}
	r = node_new(pool, t, &kid);
	if (r < 0)
		return r;
	/* node_new() may have moved the nodes. */
	pool->nodes[node].kids[k] = kid + 1;
	*ret = kid;
	return 0;
}

/*
 * Room for one more slot in every object (a new path was reached), the
 * new ones unset. Doubling: a sequence of thousands of strings reaches as
 * many new paths in one event.
 */
static int pool_grow_slots(struct ctf_ec_pool *pool)
{
	struct ctf_stale *objs;
	size_t cap = pool->cap_objs ? pool->cap_objs : 1;
	uint32_t n;

	if (pool->n_used < pool->n_slots)
		return 0;
	if (pool->n_slots > UINT32_MAX / 2)
		return -ENOMEM;
	n = pool->n_slots ? pool->n_slots * 2 : 4;
	/* cap_objs objects of n slots: grow_arr() counts objects at this size. */
	objs = calloc(cap * n, sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (size_t o = 0; o < pool->n_objs; o++)
		memcpy(&objs[o * n], &pool->objs[o * pool->n_slots], pool->n_slots * sizeof(*objs));
	free(pool->objs);
	pool->objs = objs;
	pool->n_slots = n;
	return 0;
}

/* The scopes an event object carries, and their types for sc and ec. */
static const uint8_t object_scopes[3] = { CTF_SCOPE_STREAM_EVENT_CONTEXT, CTF_SCOPE_EVENT_CONTEXT,
					  CTF_SCOPE_EVENT_PAYLOAD };

static void object_roots(const struct ctf_stream_class *sc, const struct ctf_event_class *ec,
			 const struct ctf_type *roots[3])
{
	roots[0] = sc->event_context;
	roots[1] = ec->context;
	roots[2] = ec->payload;
}

/* Top-level text members of the scopes an event object carries. */
static int pool_init(struct ctf_ec_pool *pool, const struct ctf_stream_class *sc,
		     const struct ctf_event_class *ec)
{
	const struct ctf_type *roots[3];
	uint32_t n = 0;

	object_roots(sc, ec, roots);

	for (int i = 0; i < 3; i++) {
		const struct ctf_type *t = roots[i];

		for (size_t m = 0; t && t->kind == CTF_TYPE_STRUCT && m < t->structure.n_fields;
		     m++)
			if (!is_text(t->structure.fields[m].type) &&
			    has_text(t->structure.fields[m].type))
				pool->nested = true;
	}
	if (pool->nested) {
		uint32_t root;

		for (int i = 0; i < 3; i++)
			if (node_new(pool, roots[i], &root) < 0)
				return -ENOMEM;
		pool->n_slots = 0;
		pool->init = true;
		return 0;
	}
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (int i = 0; i < 3; i++) {
			const struct ctf_type *t = roots[i];

			for (size_t m = 0;
			     t && t->kind == CTF_TYPE_STRUCT && m < t->structure.n_fields; m++) {
				if (!is_text(t->structure.fields[m].type))
					continue;
				if (pass == 1) {
					pool->slot_scope[n] = object_scopes[i];
					pool->slot_member[n] = (uint32_t)m;
					pool->slot_off[n] = ctf_dec_member_offset(t, (uint32_t)m);
				}
				n++;
			}
		}
		if (pass == 0) {
			pool->slot_scope = calloc(n ? n : 1, sizeof(*pool->slot_scope));
			pool->slot_member = calloc(n ? n : 1, sizeof(*pool->slot_member));
			pool->slot_off = calloc(n ? n : 1, sizeof(*pool->slot_off));
			if (!pool->slot_scope || !pool->slot_member || !pool->slot_off)
				return -ENOMEM;
		}
	}
	pool->n_slots = n;
	pool->init = true;
	return 0;
}

void ctf_ec_pool_release(struct ctf_ec_pool *pool)
{
	for (size_t i = 0; pool->objs && i < (size_t)pool->n_objs * pool->n_slots; i++)
		free(pool->objs[i].own);
	free(pool->slot_scope);
	free(pool->slot_member);
	free(pool->slot_off);
	for (uint32_t i = 0; i < pool->n_nodes; i++)
		free(pool->nodes[i].kids);
	free(pool->nodes);
	free(pool->objs);
	free(pool->free);
	memset(pool, 0, sizeof(*pool));
}

/* Point a stale string at the pool's own copy of its text. */
static int stale_own(struct ctf_stale *st)
{
	if (st->own_cap < st->len) {
		char *own = realloc(st->own, st->len);

		if (!own)
			return -ENOMEM;
		st->own = own;
		st->own_cap = st->len;
	}
	memcpy(st->own, st->ptr, st->len);
	st->ptr = st->own;
	st->owned = true;
	return 0;
}

/* Copy out the stale strings of the stream's class that point into b. */
static int stale_copy_out(struct ctf_stream *s, const struct ctf_pkt_buf *b)
{
	const struct ctf_sc_dec *scd = s->scd;
	struct ctf_ec_pool *pools;

	if (!s->rt->pools || !scd)
		return 0;
	pools = s->rt->pools[scd - s->rt->td->scs];
	for (size_t e = 0; e < scd->sc->n_events; e++) {
		struct ctf_ec_pool *pool = &pools[e];

		if (!pool->init || !pool->n_slots)
			continue;
		for (size_t i = 0; i < (size_t)pool->n_objs * pool->n_slots; i++) {
			struct ctf_stale *st = &pool->objs[i];
			const uint8_t *p = (const uint8_t *)st->ptr;

			if (st->set && !st->owned && p >= b->bytes && p < b->bytes + b->n_bytes &&
			    stale_own(st) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int ctf_stream_bufs_release(struct ctf_stream *s, uint32_t dead)
{
	int n_free = 0;

	for (unsigned i = 0; i < CTF_PKT_BUFS; i++) {
		struct ctf_pkt_buf *b = &s->bufs[i];
		/* Pairs with the release in packet_end(): end_seq and the bytes are set. */
		uint8_t st = atomic_load_explicit(&b->state, memory_order_acquire);

		if (st == CTF_PKT_DONE && (int32_t)(dead - b->end_seq) >= 0) {
			if (stale_copy_out(s, b) < 0)
				return -ENOMEM;
			if (b->mapped)
				map_drop(s, b);
			/*
			 * Pairs with the acquire in buf_take(); seq_cst against a
			 * worker's sleeping flag (decode-ahead.c).
			 */
			atomic_store(&b->state, CTF_PKT_FREE);
			st = CTF_PKT_FREE;
		}
		n_free += st == CTF_PKT_FREE;
	}
	return n_free;
}

bool ctf_stream_bufs_available(const struct ctf_stream *s)
{
	for (unsigned i = 0; i < CTF_PKT_BUFS; i++)
		if (atomic_load(&s->bufs[i].state) == CTF_PKT_FREE)
			return true;
	return false;
}

/* An empty text value shows the object's stale text; other text becomes it. */
static int stale_apply(struct ctf_stale *st, struct ctf_value *v)
{
	if (v->str.len) {
		st->ptr = v->str.ptr;
		st->len = v->str.len;
		st->set = true;
		st->owned = false;
	} else if (st->set) {
		/* This event may outlive the buffer: it can be another stream's. */
		if (!st->owned && stale_own(st) < 0)
			return -ENOMEM;
		v->str.ptr = st->ptr;
		v->str.len = st->len;
	}
	return 0;
}

/* The text fields at and below v (of type t, at node) of object obj. */
static int stale_walk(struct ctf_ec_pool *pool, uint32_t obj, uint32_t node,
		      const struct ctf_type *t, struct ctf_value *v)
{
	struct ctf_value *c = v + 1;
	uint32_t kid, slot;
	int r;

	if (pool->nodes[node].no_text)
		return 0;
	if (is_text(t)) {
		slot = pool->nodes[node].slot;
		if (slot == UINT32_MAX) {
			r = pool_grow_slots(pool);
			if (r < 0)
				return r;
			slot = pool->n_used++;
			pool->nodes[node].slot = slot;
		}
		return stale_apply(&pool->objs[(size_t)obj * pool->n_slots + slot], v);
	}
	switch (t->kind) {
	case CTF_TYPE_STRUCT:
		for (size_t m = 0; m < t->structure.n_fields; m++, c += c->nsub + 1) {
			const struct ctf_type *mt = t->structure.fields[m].type;

			r = node_kid(pool, node, (uint32_t)m, mt, &kid);
			if (r == 0)
				r = stale_walk(pool, obj, kid, mt, c);
			if (r < 0)
				return r;
		}
		return 0;
	case CTF_TYPE_ARRAY:
	case CTF_TYPE_SEQUENCE: {
		const struct ctf_type *et =
			t->kind == CTF_TYPE_ARRAY ? t->array.elem : t->sequence.elem;

		for (uint64_t i = 0; i < v->count; i++, c += c->nsub + 1) {
			/* Element fields are made as lengths first reach them. */
			r = i < UINT32_MAX ? node_kid(pool, node, (uint32_t)i, et, &kid) : -ENOMEM;
			if (r == 0)
				r = stale_walk(pool, obj, kid, et, c);
			if (r < 0)
				return r;
		}
		return 0;
	}
	case CTF_TYPE_VARIANT: {
		const struct ctf_type *ot = t->variant.options[v->option].type;

		r = node_kid(pool, node, v->option, ot, &kid);
		return r < 0 ? r : stale_walk(pool, obj, kid, ot, c);
	}
	default:
		return 0;
	}
}

/*
 * Give the event the recycled object babeltrace2 would, and show an empty
 * text field as that object's stale text (see struct ctf_ec_pool).
 */
static int recycle_object(struct ctf_stream *s, const struct ctf_ec_dec *ecd, struct ctf_slot *slot)
{
	const struct ctf_sc_dec *scd = s->scd;
	struct ctf_ec_pool *pool;
	struct ctf_stale *st;
	uint32_t obj;
	int r;

	slot->pool = NULL;
	if (!s->rt->pools)
		return 0;
	pool = &s->rt->pools[scd - s->rt->td->scs][ecd - scd->ecs];
	if (!pool->init) {
		r = pool_init(pool, scd->sc, ecd->ec);
		if (r < 0)
			return r;
	}
	if (pool->n_free) {
		obj = pool->free[--pool->n_free];
	} else {
		struct ctf_stale *objs =
			grow_arr(pool->objs, &pool->cap_objs, pool->n_objs + 1,
				 sizeof(*pool->objs) * (pool->n_slots ? pool->n_slots : 1));

		if (!objs)
			return -ENOMEM;
		pool->objs = objs;
		obj = pool->n_objs++;
		memset(&pool->objs[(size_t)obj * pool->n_slots], 0,
		       sizeof(*pool->objs) * pool->n_slots);
	}
	slot->pool = pool;
	slot->obj = obj;
	if (pool->nested) {
		const struct ctf_type *roots[3];

		object_roots(scd->sc, ecd->ec, roots);
		for (uint32_t i = 0; i < 3; i++) {
			struct ctf_value *root =
				(struct ctf_value *)slot->ev.scope[object_scopes[i]];

			if (root && roots[i]) {
				r = stale_walk(pool, obj, i, roots[i], root);
				if (r < 0)
					return r;
			}
		}
		return 0;
	}
	st = &pool->objs[(size_t)obj * pool->n_slots];
	for (uint32_t i = 0; i < pool->n_slots; i++) {
		struct ctf_value *root = (struct ctf_value *)slot->ev.scope[pool->slot_scope[i]];
		struct ctf_value *v;

		if (!root)
			continue;
		if (pool->slot_off[i] != CTF_DEC_NO_OFF) {
			v = root + pool->slot_off[i];
		} else {
			v = root + 1;
			for (uint32_t k = 0; k < pool->slot_member[i]; k++)
				v += v->nsub + 1;
		}
		r = stale_apply(&st[i], v);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The reader pushes an object back when babeltrace2 would free the event. */
int ctf_ec_pool_recycle(struct ctf_ec_pool *pool, uint32_t obj)
{
	uint32_t *f = grow_arr(pool->free, &pool->cap_free, pool->n_free + 1, sizeof(*pool->free));

	if (!f)
		return -ENOMEM;
	pool->free = f;
	pool->free[pool->n_free++] = obj;
	return 0;
}

/* The packet's header and context as scope roots, for an event's field paths. */
static inline void dec_packet_roots(const struct ctf_stream *s, struct ctf_dec *d)
{
	if (s->has_ph) {
		d->root[CTF_SCOPE_PACKET_HEADER] =
			(struct ctf_scope_root){ s->pkt_vals, s->ph_idx };
		d->roots |= 1u << CTF_SCOPE_PACKET_HEADER;
	}
	if (s->has_pc) {
		d->root[CTF_SCOPE_PACKET_CONTEXT] =
			(struct ctf_scope_root){ s->pkt_vals, s->pc_idx };
		d->roots |= 1u << CTF_SCOPE_PACKET_CONTEXT;
	}
}

static inline __attribute__((always_inline)) int event_decode_inline(struct ctf_stream *s,
								     struct ctf_slot *slot)
{
	const struct ctf_sc_dec *scd = s->scd;
	const struct ctf_ec_dec *ecd;
	struct ctf_dec d;
	/* Each scope's root value, UINT32_MAX when absent. */
	uint32_t idx[CTF_SCOPE_COUNT];
	uint64_t id, cycles, start = s->pos;
	struct strata_ctf_event *ev;
	const struct ctf_value *vals;
	int r;

	/* Only what is read before being written: this runs once per event. */
	memset(idx, 0xff, sizeof(idx));
	d.meaning_set = 0;
	d.err = NULL;
	d.err_pos = 0;
	d.roots = 0;
	d.base = s->pkt_base;
	d.pos = s->pos;
	/*
	 * The packet's bytes come from the page cache, mostly not from the
	 * CPU's: ask for the lines a few events ahead. A prefetch never faults,
	 * so running past the end of the packet is harmless.
	 */
	__builtin_prefetch(d.base + (d.pos >> 3) + 512);
	__builtin_prefetch(d.base + (d.pos >> 3) + 576);
	d.end = s->content_end;
	d.out = &slot->ev_vals;
	d.clock = &s->clock;
	slot->ev_vals.n = 0;

	/*
	 * The common case in one call (ctf_dec_event()). A head and a shape
	 * reach no field outside their scope: the packet's roots are only set
	 * for what decodes otherwise.
	 */
	if (likely(scd->head)) {
		struct ctf_dec_event e;

		r = ctf_dec_event(&d, scd, &e);
		if (likely(r != 1)) {
			ecd = e.ecd;
			cycles = e.cycles;
			idx[CTF_SCOPE_EVENT_HEADER] = e.hdr_idx;
			if (likely(r == 0)) {
				for (int k = 0; k < CTF_BODY_COUNT; k++)
					idx[CTF_SCOPE_STREAM_EVENT_CONTEXT + k] =
						ecd->body_idx[k] != UINT32_MAX ?
							e.body_idx + ecd->body_idx[k] :
							UINT32_MAX;
				goto decoded;
			}
			d.root[CTF_SCOPE_EVENT_HEADER] =
				(struct ctf_scope_root){ d.out, e.hdr_idx };
			d.roots |= 1u << CTF_SCOPE_EVENT_HEADER;
			goto body;
		}
	}
	if (scd->event_header) {
		dec_packet_roots(s, &d);
		r = ctf_dec_root(&d, CTF_SCOPE_EVENT_HEADER, scd->event_header,
				 &idx[CTF_SCOPE_EVENT_HEADER]);
		if (r < 0)
			return dec_error(s, &d, r);
	}
	/*
	 * babeltrace2 creates the event message right after the header: clock
	 * fields of the contexts and payload only move the clock for the events
	 * that follow.
	 */
	cycles = s->clock;
	if (!meaning(&d, CTF_MEANING_EVENT_ID, &id))
		id = scd->default_id;
	ecd = ctf_sc_dec_ec(scd, id);
	if (!ecd)
		return stream_err(s, -STRATA_ESTREAM, s->pkt_off + start / 8,
				  "unknown event class id %" PRIu64 " in stream class %" PRIu64, id,
				  scd->sc->id);
	if (ecd->body) {
		uint32_t base = d.out->n;

		if (likely(ctf_dec_shape(&d, ecd->body) == 0)) {
			for (int k = 0; k < CTF_BODY_COUNT; k++)
				idx[CTF_SCOPE_STREAM_EVENT_CONTEXT + k] =
					ecd->body_idx[k] != UINT32_MAX ? base + ecd->body_idx[k] :
									 UINT32_MAX;
			goto decoded;
		}
	}
body:
	dec_packet_roots(s, &d);
	if (scd->event_context) {
		r = ctf_dec_root(&d, CTF_SCOPE_STREAM_EVENT_CONTEXT, scd->event_context,
				 &idx[CTF_SCOPE_STREAM_EVENT_CONTEXT]);
		if (r < 0)
			return dec_error(s, &d, r);
	}
	if (ecd->context) {
		r = ctf_dec_root(&d, CTF_SCOPE_EVENT_CONTEXT, ecd->context,
				 &idx[CTF_SCOPE_EVENT_CONTEXT]);
		if (r < 0)
			return dec_error(s, &d, r);
	}
	if (ecd->payload) {
		r = ctf_dec_root(&d, CTF_SCOPE_EVENT_PAYLOAD, ecd->payload,
				 &idx[CTF_SCOPE_EVENT_PAYLOAD]);
		if (r < 0)
			return dec_error(s, &d, r);
	}
decoded:
	if (d.pos == start)
		return stream_err(s, -STRATA_ESTREAM, s->pkt_off + start / 8,
				  "event of size zero cannot advance in the packet");
	s->pos = d.pos;

	ev = &slot->ev;
	ev->trace = &s->rt->t;
	ev->sc = scd->sc;
	ev->ec = ecd->ec;
	ev->packet = s->packet;
	ev->scope[CTF_SCOPE_PACKET_HEADER] = s->pkt_scope[0];
	ev->scope[CTF_SCOPE_PACKET_CONTEXT] = s->pkt_scope[1];
	/* The values in a local: the stores below could alias the slot's pointer. */
	vals = slot->ev_vals.v;
	for (int sc = CTF_SCOPE_EVENT_HEADER; sc < CTF_SCOPE_COUNT; sc++)
		ev->scope[sc] = idx[sc] != UINT32_MAX ? &vals[idx[sc]] : NULL;
	ev->has_clock = scd->has_clock;
	if (ev->has_clock) {
		ev->cycles = cycles;
		if (!ctf_sc_clock_to_ns(s->rt->td, scd, cycles, &ev->ns))
			return stream_err(s, -STRATA_ECLOCK, s->pkt_off + start / 8,
					  "clock value %" PRIu64
					  " cannot be converted to nanoseconds from origin",
					  cycles);
		slot->key.ns = ev->ns;
		slot->key.last = false;
	} else {
		ev->cycles = 0;
		ev->ns = 0;
		slot->key.last = true;
	}
	slot->key.kind = CTF_K_EVENT;
	slot->msg.type = STRATA_CTF_MSG_EVENT;
	slot->msg.event = ev;
	slot->ecd = ecd;
	slot->pool = NULL;
	return 1;
}

/* Out of line for produce(); ctf_stream_refill() has its own copy. */
static int event_decode(struct ctf_stream *s, struct ctf_slot *slot)
{
	return event_decode_inline(s, slot);
}

/* A message whose merge key is ns, or the last returned time when !has. */
static void set_simple(struct ctf_slot *slot, enum ctf_kind kind, bool has, int64_t ns)
{
	slot->key.kind = (uint8_t)kind;
	slot->key.ns = ns;
	slot->key.last = !has;
	slot->pool = NULL;
}

/* A packet time as a merge key; false when the class has none. */
static bool packet_key(struct ctf_stream *s, bool has, uint64_t raw, int64_t *ret_ns)
{
	return has && s->scd->sc->default_clock >= 0 &&
	       ctf_clock_to_ns(s->rt->td, s->scd->sc->default_clock, raw, ret_ns);
}

/*
 * The packet beginning's time: the packet context's, but where barectf's
 * event-before-packet quirk applies (struct ctf_quirks). babeltrace2 then
 * delays the packet beginning until the first event's header is decoded,
 * and gives it that event's time when it comes first; with no event, the
 * clock's value at the packet's end. The header is decoded here apart,
 * the stream's position and clock kept; a header that does not decode is
 * reported when the event is.
 */
static uint64_t packet_begin_time(struct ctf_stream *s)
{
	uint64_t clock = s->clock, begin = s->snap.ts_begin;
	struct ctf_values vals = { 0 };
	struct ctf_dec d = { 0 };
	uint32_t idx;

	if (likely(!s->rt->quirks.barectf_event_before_packet))
		return begin;
	if (s->pos < s->content_end && s->scd->event_header) {
		d.base = s->pkt_base;
		d.pos = s->pos;
		d.end = s->content_end;
		d.out = &vals;
		d.clock = &clock;
		dec_packet_roots(s, &d);
		if (ctf_dec_root(&d, CTF_SCOPE_EVENT_HEADER, s->scd->event_header, &idx) < 0)
			clock = begin;
		ctf_values_release(&vals);
	}
	return MIN(clock, begin);
}

/*
 * A live stream's pause (struct ctf_stream_file.inactive): babeltrace2's
 * iterator inactivity message, stamped with the trace's first stream class
 * clock as its lttng-live source does.
 */
static int inactivity(struct ctf_stream *s, struct ctf_slot *slot)
{
	const struct ctf_trace_class *tc = s->rt->t.tc;
	uint64_t raw = s->files[s->cur_file].inactive_raw;
	int32_t clock = -1;
	int64_t ns;

	for (size_t i = 0; i < tc->n_streams && clock < 0; i++)
		clock = tc->streams[i]->default_clock;
	if (clock < 0 || !ctf_clock_to_ns(s->rt->td, clock, raw, &ns))
		return stream_err(s, -STRATA_ECLOCK, 0,
				  "inactivity time %" PRIu64 " cannot be converted to nanoseconds",
				  raw);
	s->cur_file++;
	set_simple(slot, CTF_K_INACTIVITY, true, ns);
	return 1;
}

static int produce(struct ctf_stream *s, struct ctf_slot *slot)
{
	int64_t ns = 0;
	int r;

	for (;;) {
		if (unlikely(s->live) && !s->in_packet && s->cur_file < s->n_files &&
		    s->files[s->cur_file].inactive)
			return inactivity(s, slot);
		if (!s->sb_done) {
			/* A live stream begins with its first packet, as in lttng-live. */
			if (unlikely(s->live) && !s->scd)
				return -EAGAIN;
			s->sb_done = true;
			set_simple(slot, CTF_K_STREAM_BEGIN, false, 0);
			return 1;
		}
		if (s->in_packet) {
			if (s->next_pending < s->n_pending) {
				const struct ctf_pending *p = &s->pending[s->next_pending++];

				set_simple(
					slot,
					p->type == STRATA_CTF_MSG_DISCARDED_EVENTS ?
						CTF_K_DISC_EVENTS :
						CTF_K_DISC_PACKETS,
					/* babeltrace2's muxer orders these by their beginning. */
					p->d.has_range, p->d.begin_ns);
				slot->pend = *p;
				memset(&slot->msg, 0, sizeof(slot->msg));
				slot->msg.type = p->type;
				slot->msg.discarded = p->d;
				return 1;
			}
			if (!s->pb_done) {
				bool has = packet_key(s, s->snap.has_ts_begin, packet_begin_time(s),
						      &ns);

				s->pb_done = true;
				set_simple(slot, CTF_K_PACKET_BEGIN, has, ns);
				return 1;
			}
			if (s->pos >= s->content_end) {
				bool has;

				packet_end(s);
				has = packet_key(s, s->snap.has_ts_end, s->clock, &ns);
				set_simple(slot, CTF_K_PACKET_END, has, ns);
				return 1;
			}
			return event_decode(s, slot);
		}
		if (s->ended)
			return 0;
		if (s->cur_file >= s->n_files) {
			if (s->live)
				return -EAGAIN; /* until a packet comes */
			if (s->se_done) {
				s->ended = true;
				return 0;
			}
			s->se_done = true;
			set_simple(slot, CTF_K_STREAM_END, false, 0);
			return 1;
		}
		if (s->pkt_off >= s->files[s->cur_file].size) {
			file_close(s);
			s->cur_file++;
			s->pkt_off = 0;
			s->read_guess = 0;
			continue;
		}
		/* A live packet after a metadata update decodes with the new classes. */
		if (unlikely(s->files[s->cur_file].rt) && s->files[s->cur_file].rt != s->rt) {
			s->rt = s->files[s->cur_file].rt;
			s->scd = NULL;
		}
		r = packet_begin(s, false);
		if (r < 0)
			return r;
	}
}

int ctf_stream_produce(struct ctf_stream *s, struct ctf_slot *slot)
{
	int r = produce(s, slot);

	if (r > 0)
		s->produced++;
	return r;
}

static __attribute__((noinline, cold)) int slice_fail(struct ctf_stream *s)
{
	return stream_err(s, -ENOTSUP, s->pkt_off,
			  "times go back or past their packet's end: the trace cannot be read in "
			  "slices");
}

/*
 * Reading a slice: what makes slices add up to the trace (struct
 * ctf_stream.slicing). Inline: a slice's reader checks every message.
 */
static inline __attribute__((always_inline)) int slice_check(struct ctf_stream *s,
							     const struct ctf_slot_key *key)
{
	if (unlikely(key->ns < s->slice_last) ||
	    unlikely(key->kind == CTF_K_EVENT && key->ns > s->slice_pkt_end))
		return slice_fail(s);
	s->slice_last = key->ns;
	return 0;
}

/*
 * What a message's place in the merge decides (ctf_stream_refill()): its
 * key, then the recycled object. Fields one by one, as they were stored:
 * a 16-byte load of a key just stored in narrower pieces cannot take its
 * data from those pending stores and waits for them to retire.
 */
static inline __attribute__((always_inline)) int finish_slot(struct ctf_stream *s,
							     struct ctf_slot *slot,
							     const struct ctf_slot_key *key,
							     int64_t last_ns, unsigned n)
{
	struct ctf_slot_key *q = &s->qkey[n];
	const uint8_t kind = key->kind;
	const bool last = key->last;

	q->ns = last ? last_ns : key->ns;
	q->kind = kind;
	q->last = last;
	if (s->slicing && !last && slice_check(s, key) < 0)
		return -ENOTSUP;
	/* Without the model the slot is not touched: a worker may have written it. */
	if (kind != CTF_K_EVENT || !s->rt->pools)
		return 1;
	return recycle_object(s, slot->ecd, slot) < 0 ? -ENOMEM : 1;
}

int ctf_stream_refill(struct ctf_stream *s, int64_t last_ns)
{
	unsigned n = 0;
	int r;

	if (s->q_err)
		return s->q_err;
	/* The queue's messages are dead now: free the buffers only they reached. */
	r = s->ahead ? ctf_ahead_release(s) : ctf_stream_bufs_release(s, s->produced);
	if (r < 0)
		return r;
	s->q_head = 0;
	s->q_len = 0;
	while (n < CTF_BT_BATCH) {
		struct ctf_slot *slot = &s->q[n];
		struct ctf_slot_key taken;

		if (s->ahead) {
			r = ctf_ahead_take(s, &slot, &taken);
			if (r > 0)
				r = finish_slot(s, slot, &taken, last_ns, n);
		} else {
			/* produce()'s common case, without its call. */
			if (likely(s->in_packet && s->pb_done) && s->next_pending >= s->n_pending &&
			    s->pos < s->content_end) {
				r = event_decode_inline(s, slot);
				s->produced += r > 0;
			} else {
				r = ctf_stream_produce(s, slot);
			}
			if (r > 0)
				r = finish_slot(s, slot, &slot->key, last_ns, n);
		}
		if (r == -EAGAIN && s->live) {
			/* A live stream waits for its next packet: not an error. */
			if (n == 0)
				return r;
			break;
		}
		if (r < 0) {
			/* babeltrace2 delivers what it produced before failing. */
			if (n == 0)
				return r;
			s->q_err = r;
			break;
		}
		if (r == 0)
			break;
		s->qp[n++] = slot;
	}
	s->q_len = n;
	return (int)n;
}

static int props_read(const struct ctf_reader_trace *rt, struct ctf_stream_file *f, int fd,
		      struct ctf_packet_props *props, char *err, size_t errlen)
{
	/* The caller's fd: packet_begin() neither opens nor closes it. */
	struct ctf_stream s = { .rt = rt,
				.files = f,
				.n_files = 1,
				.fd = fd,
				.fd_open = true,
				.err = err,
				.errlen = errlen };
	int r;

	s.path = f->path;
	r = packet_begin(&s, true);
	if (r == 0) {
		memset(props, 0, sizeof(*props));
		props->sc_id = s.scd->sc->id;
		props->has_instance_id = false;
		for (uint32_t i = 0; s.has_ph && i < s.pkt_vals->n; i++) {
			const struct ctf_type *t = s.pkt_vals->v[i].type;

			if (t->kind == CTF_TYPE_ENUM)
				t = t->enumeration.container;
			if (t->kind == CTF_TYPE_INT &&
			    t->integer.meaning == CTF_MEANING_STREAM_INSTANCE_ID) {
				props->has_instance_id = true;
				props->instance_id = s.pkt_vals->v[i].u;
			}
		}
		props->has_begin = s.snap.has_ts_begin && s.scd->sc->default_clock >= 0;
		props->begin_raw = s.snap.ts_begin;
		if (props->has_begin && !ctf_clock_to_ns(rt->td, s.scd->sc->default_clock,
							 s.snap.ts_begin, &props->begin_ns))
			r = stream_err(&s, -STRATA_ECLOCK, 0,
				       "packet beginning time cannot be converted to nanoseconds");
	}
	ctf_values_release(&s.bufs[0].vals);
	free(s.bufs[0].data);
	return r;
}

int ctf_packet_props_read(const struct ctf_reader_trace *rt, const char *path, int fd,
			  uint64_t size, struct ctf_packet_props *props, char *err, size_t errlen)
{
	struct ctf_stream_file f = { .path = (char *)path, .size = size };

	return props_read(rt, &f, fd, props, err, errlen);
}

int ctf_packet_props_read_mem(const struct ctf_reader_trace *rt, const char *name,
			      const uint8_t *mem, uint64_t size, struct ctf_packet_props *props,
			      char *err, size_t errlen)
{
	struct ctf_stream_file f = { .path = (char *)name, .size = size, .mem = mem };

	return props_read(rt, &f, -1, props, err, errlen);
}

/* The snapshots packet_end() keeps for the next packet. */
static void snap_carry(struct ctf_snapshots *prev, const struct ctf_snapshots *snap)
{
	if (snap->has_disc)
		prev->disc = snap->disc, prev->has_disc = true;
	if (snap->has_seq)
		prev->seq = snap->seq, prev->has_seq = true;
	if (snap->has_ts_end)
		prev->ts_end = snap->ts_end, prev->has_ts_end = true;
}

static int index_add(struct ctf_pkt_index *idx, const struct ctf_pkt_entry *e)
{
	if (idx->n == idx->cap) {
		size_t cap = idx->cap ? idx->cap * 2 : 64;
		struct ctf_pkt_entry *ne = realloc(idx->e, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		idx->e = ne;
		idx->cap = cap;
	}
	idx->e[idx->n++] = *e;
	return 0;
}

/* The packets of file f of s, appended to idx; tmp carries the clock and snapshots. */
static int scan_file(struct ctf_stream *s, struct ctf_stream *tmp, uint32_t f,
		     struct ctf_pkt_index *idx)
{
	int32_t clk = s->scd->sc->default_clock;
	int r = 0;

	tmp->files = &s->files[f];
	tmp->n_files = 1;
	tmp->cur_file = 0;
	tmp->pkt_off = 0;
	tmp->fd = open(s->files[f].path, O_RDONLY | O_CLOEXEC);
	if (tmp->fd < 0)
		return stream_err(s, -errno, 0, "cannot open: %s", strerror(errno));
	tmp->fd_open = true;
	while (tmp->pkt_off < s->files[f].size) {
		struct ctf_pkt_entry e = { .file = f,
					   .off = tmp->pkt_off,
					   .clock_before = tmp->clock,
					   .prev = tmp->prev };

		tmp->read_guess = 0; /* the header and context, not the events */
		r = packet_begin(tmp, true);
		if (r < 0)
			break;
		atomic_store_explicit(&tmp->cur->state, CTF_PKT_FREE, memory_order_relaxed);
		r = -ENOTSUP;
		if (!tmp->snap.has_ts_begin || !tmp->snap.has_ts_end ||
		    !ctf_clock_to_ns(s->rt->td, clk, tmp->snap.ts_begin, &e.begin_ns) ||
		    !ctf_clock_to_ns(s->rt->td, clk, tmp->snap.ts_end, &e.end_ns) ||
		    e.end_ns < e.begin_ns || (idx->n && e.end_ns < idx->e[idx->n - 1].end_ns))
			break;
		e.bytes = tmp->packet_bits / 8;
		r = index_add(idx, &e);
		if (r < 0)
			break;
		/*
		 * As packet_end() leaves the stream for the next packet. Where a
		 * tracer quirk keeps the last event's clock instead, that event
		 * lies past its packet's end, and the slice decoding it gives up.
		 */
		tmp->clock = tmp->snap.ts_end;
		snap_carry(&tmp->prev, &tmp->snap);
		tmp->pkt_off += e.bytes;
	}
	close(tmp->fd);
	tmp->fd_open = false;
	return r;
}

int ctf_stream_scan(struct ctf_stream *s, struct ctf_pkt_index *idx)
{
	struct ctf_stream tmp = { .rt = s->rt, .scd = s->scd, .err = s->err, .errlen = s->errlen };
	int r = 0;

	tmp.path = s->path;
	idx->n = 0;
	if (!s->scd || s->scd->sc->default_clock < 0 || !s->scd->has_ts_begin ||
	    !s->scd->has_ts_end)
		return -ENOTSUP;
	for (size_t f = 0; f < s->n_files && r == 0; f++)
		r = scan_file(s, &tmp, (uint32_t)f, idx);
	for (unsigned i = 0; i < CTF_PKT_BUFS; i++) {
		ctf_values_release(&tmp.bufs[i].vals);
		free(tmp.bufs[i].data);
	}
	return r;
}

void ctf_stream_seek(struct ctf_stream *s, const struct ctf_pkt_index *idx, size_t p)
{
	s->slicing = true;
	s->slice_last = INT64_MIN;
	if (p == 0)
		return;
	if (p == idx->n) {
		s->cur_file = s->n_files; /* only the stream's beginning and end remain */
		return;
	}
	s->cur_file = idx->e[p].file;
	s->pkt_off = idx->e[p].off;
	s->read_guess = 0;
	s->clock = idx->e[p].clock_before;
	s->prev = idx->e[p].prev;
	s->packet = ((uint64_t)s->index << 32) | (uint32_t)p;
}

int ctf_stream_rewind(struct ctf_stream *s)
{
	for (unsigned i = 0; i < CTF_PKT_BUFS; i++) {
		struct ctf_pkt_buf *b = &s->bufs[i];

		if (atomic_load(&b->state) == CTF_PKT_FREE)
			continue;
		if (stale_copy_out(s, b) < 0)
			return -ENOMEM;
		atomic_store(&b->state, CTF_PKT_FREE);
	}
	file_close(s);
	s->cur_file = 0;
	s->pkt_off = 0;
	s->read_guess = 0;
	s->in_packet = s->ended = false;
	s->pos = s->content_end = s->packet_bits = 0;
	s->clock = 0;
	memset(&s->snap, 0, sizeof(s->snap));
	memset(&s->prev, 0, sizeof(s->prev));
	s->cur = NULL;
	s->pkt_base = NULL;
	s->pkt_vals = NULL;
	s->has_ph = s->has_pc = false;
	s->n_pending = s->next_pending = 0;
	s->sb_done = s->pb_done = s->se_done = false;
	s->q_head = s->q_len = 0;
	s->q_err = 0;
	/* produced and packet keep counting: buffers and packets stay told apart. */
	return 0;
}

void ctf_stream_release(struct ctf_stream *s)
{
	file_close(s);
	for (size_t i = 0; i < s->n_files; i++) {
		if (s->files[i].map)
			munmap((void *)s->files[i].map, (size_t)s->files[i].size);
		free(s->files[i].path);
	}
	free(s->files);
	for (unsigned i = 0; i < CTF_PKT_BUFS; i++) {
		ctf_values_release(&s->bufs[i].vals);
		free(s->bufs[i].data);
	}
	for (int i = 0; i < CTF_BT_BATCH; i++)
		ctf_values_release(&s->q[i].ev_vals);
	memset(s, 0, sizeof(*s));
}
