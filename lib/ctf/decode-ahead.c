/* SPDX-License-Identifier: MIT */
/*
 * Worker threads decoding streams ahead of the reader (decode-ahead.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/decode-ahead.h"
#include "common/common.h"

/* Slots a worker decodes into one ring before looking at its others. */
#define AHEAD_CHUNK 64u
/* Pauses before a thread sleeps (worker) or blocks on the ring (reader). */
#define AHEAD_SPIN 20000u

struct ctf_worker;

struct ctf_ahead_ring {
	struct ctf_slot *slots; /* CTF_AHEAD_SLOTS */
	/* slots[i].key, packed: the reader reads these, not the slots (stream.h). */
	struct ctf_slot_key *keys;
	_Atomic uint32_t head; /* see decode-ahead.h */
	_Atomic uint32_t tail;
	uint32_t taken; /* reader only */
	/* Set (release) after status, once the stream produced its last slot. */
	_Atomic bool done;
	int status; /* 0: ended, < 0: the error that stopped it */
	/* Held while producing: by the worker, or by the reader when the ring is empty. */
	pthread_mutex_t produce;
	struct ctf_worker *w;
	char *report; /* the reader's error buffer */
	size_t report_len;
	char err[1024]; /* the worker's error text, until the reader reaches it */
};

struct ctf_worker {
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t worker_cond;
	_Atomic bool sleeping, stop;
	struct ctf_stream **streams;
	size_t n_streams;
};

struct ctf_ahead {
	struct ctf_worker *workers;
	unsigned n_workers;
	struct ctf_stream **streams;
	size_t n_streams;
};

/* seq_cst: the worker checks it again after raising w->sleeping. */
static uint32_t ring_used(struct ctf_ahead_ring *ring, uint32_t head)
{
	/* Pairs with the store in ctf_ahead_release(): the slots are free. */
	return head - atomic_load(&ring->tail);
}

/* Under w->lock, so that a sleeper between its check and its wait is not missed. */
static void wake(struct ctf_worker *w, _Atomic bool *flag, pthread_cond_t *cond)
{
	pthread_mutex_lock(&w->lock);
	atomic_store(flag, false);
	pthread_cond_signal(cond);
	pthread_mutex_unlock(&w->lock);
}

/* fill() found the ring being produced by someone else (try only). */
#define FILL_BUSY UINT32_MAX
/* Slots produced between two publications of head: the reader may be waiting. */
#define FILL_PUBLISH 8u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * Decode up to limit slots into s's ring. Returns how many, or FILL_BUSY
 * when try is set and the ring is being produced already.
 */
static uint32_t fill(struct ctf_stream *s, uint32_t limit, bool try)
{
	struct ctf_ahead_ring *ring = s->ahead;
	uint32_t head, k = 0;
	bool done = false;

	if (!try)
		pthread_mutex_lock(&ring->produce);
	else if (pthread_mutex_trylock(&ring->produce) != 0)
		return FILL_BUSY;
	if (atomic_load_explicit(&ring->done, memory_order_relaxed)) {
		pthread_mutex_unlock(&ring->produce);
		return 0;
	}
	head = atomic_load_explicit(&ring->head, memory_order_relaxed);
	while (k < limit && ring_used(ring, head) < CTF_AHEAD_SLOTS) {
		struct ctf_slot *slot = &ring->slots[head % CTF_AHEAD_SLOTS];
		int r = ctf_stream_produce(s, slot);

		/* No packet buffer is free: as a full ring, until the reader frees some. */
		if (r == -EAGAIN)
			break;
		if (r <= 0) {
			ring->status = r;
			done = true;
			break;
		}
		ring->keys[head % CTF_AHEAD_SLOTS] = slot->key;
		head++;
		k++;
		if (k % FILL_PUBLISH == 0)
			atomic_store_explicit(&ring->head, head, memory_order_release);
	}
	/* Pairs with the acquire in ctf_ahead_take(): the slots are complete. */
	atomic_store_explicit(&ring->head, head, memory_order_release);
	if (done)
		atomic_store_explicit(&ring->done, true, memory_order_release);
	pthread_mutex_unlock(&ring->produce);
	return k;
}

/* Whether any ring of w still needs decoding and has room. */
static bool has_room(const struct ctf_worker *w, bool *live)
{
	bool room = false;

	*live = false;
	for (size_t i = 0; i < w->n_streams; i++) {
		struct ctf_ahead_ring *ring = w->streams[i]->ahead;
		uint32_t head;

		if (atomic_load_explicit(&ring->done, memory_order_relaxed))
			continue;
		*live = true;
		head = atomic_load_explicit(&ring->head, memory_order_relaxed);
		if (ring_used(ring, head) < CTF_AHEAD_SLOTS &&
		    ctf_stream_bufs_available(w->streams[i]))
			room = true;
	}
	return room;
}

static void *worker_main(void *arg)
{
	struct ctf_worker *w = arg;

	while (!atomic_load(&w->stop)) {
		bool live;

		for (size_t i = 0; i < w->n_streams; i++)
			if (!atomic_load_explicit(&w->streams[i]->ahead->done,
						  memory_order_relaxed))
				fill(w->streams[i], AHEAD_CHUNK, false);
		/*
		 * No room: the reader frees slots every few microseconds, and
		 * waiting for that without sleeping saves a wake-up, a round
		 * trip through the hypervisor on a VM.
		 */
		for (unsigned i = 0; i < AHEAD_SPIN && !has_room(w, &live) && live; i++)
			cpu_relax();
		if (has_room(w, &live))
			continue;
		if (!live)
			break;
		atomic_store(&w->sleeping, true);
		if (has_room(w, &live) || !live) {
			atomic_store(&w->sleeping, false);
			continue;
		}
		pthread_mutex_lock(&w->lock);
		while (atomic_load(&w->sleeping) && !atomic_load(&w->stop))
			pthread_cond_wait(&w->worker_cond, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

int ctf_ahead_release(struct ctf_stream *s)
{
	struct ctf_ahead_ring *ring = s->ahead;
	uint32_t head;
	int n_free;

	/* Pairs with the acquire in ring_used(); seq_cst against w->sleeping. */
	atomic_store(&ring->tail, ring->taken);
	/* The ring's slot numbers are the stream's (both count produced slots). */
	n_free = ctf_stream_bufs_release(s, ring->taken);
	if (n_free < 0)
		return n_free;
	head = atomic_load_explicit(&ring->head, memory_order_relaxed);
	if (atomic_load(&ring->w->sleeping) && head - ring->taken <= CTF_AHEAD_SLOTS / 2 &&
	    (unsigned)n_free >= CTF_PKT_BUFS / 2)
		wake(ring->w, &ring->w->sleeping, &ring->w->worker_cond);
	return 0;
}

int ctf_ahead_take(struct ctf_stream *s, struct ctf_slot **ret_slot, struct ctf_slot_key *ret_key)
{
	struct ctf_ahead_ring *ring = s->ahead;
	unsigned busy_spins = 0;
	uint32_t k;

	for (;;) {
		/* Pairs with the store in fill(): the slot is complete. */
		uint32_t head = atomic_load_explicit(&ring->head, memory_order_acquire);

		if (head != ring->taken) {
			uint32_t i = ring->taken++ % CTF_AHEAD_SLOTS;

			/*
			 * Only the key crosses CPUs here; the slot's lines stay
			 * with the worker unless the caller reads the event.
			 */
			*ret_key = ring->keys[i];
			*ret_slot = &ring->slots[i];
			return 1;
		}
		if (atomic_load_explicit(&ring->done, memory_order_acquire)) {
			if (atomic_load_explicit(&ring->head, memory_order_acquire) != ring->taken)
				continue;
			if (ring->status < 0 && ring->report && ring->report_len)
				snprintf(ring->report, ring->report_len, "%s", ring->err);
			return ring->status;
		}
		/*
		 * The worker is behind (or not running: the CPUs are busy):
		 * rather than sleep, decode the next batch here, after the
		 * worker's current chunk. A packet buffer is always free then
		 * (stream.h, "Bound"); were none, waiting would not free one.
		 */
		/*
		 * The worker is producing (it publishes head every few slots):
		 * wait for it a while rather than block on its lock, which it
		 * also holds while it reads a packet.
		 */
		for (unsigned i = 0; busy_spins < AHEAD_SPIN && i < 64; i++, busy_spins++) {
			if (atomic_load_explicit(&ring->head, memory_order_acquire) != ring->taken)
				break;
			cpu_relax();
		}
		if (atomic_load_explicit(&ring->head, memory_order_acquire) != ring->taken)
			continue;
		k = fill(s, CTF_BT_BATCH, busy_spins < AHEAD_SPIN);
		if (k == FILL_BUSY)
			continue;
		if (k == 0 &&
		    atomic_load_explicit(&ring->head, memory_order_acquire) == ring->taken &&
		    !atomic_load_explicit(&ring->done, memory_order_acquire)) {
			if (ring->report && ring->report_len)
				snprintf(ring->report, ring->report_len,
					 "Failed to decode stream '%s': no free packet buffer",
					 s->path);
			return -EAGAIN;
		}
	}
}

static void ring_free(struct ctf_stream *s)
{
	struct ctf_ahead_ring *ring = s->ahead;

	if (!ring)
		return;
	s->err = ring->report;
	s->errlen = ring->report_len;
	pthread_mutex_destroy(&ring->produce);
	for (uint32_t i = 0; ring->slots && i < CTF_AHEAD_SLOTS; i++)
		ctf_values_release(&ring->slots[i].ev_vals);
	free(ring->slots);
	free(ring->keys);
	free(ring);
	s->ahead = NULL;
}

void ctf_ahead_stop(struct ctf_ahead *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->n_workers; i++) {
		struct ctf_worker *w = &a->workers[i];

		if (!w->started)
			continue;
		atomic_store(&w->stop, true);
		wake(w, &w->sleeping, &w->worker_cond);
		pthread_join(w->thread, NULL);
	}
	for (unsigned i = 0; i < a->n_workers; i++) {
		pthread_mutex_destroy(&a->workers[i].lock);
		pthread_cond_destroy(&a->workers[i].worker_cond);
		free(a->workers[i].streams);
	}
	for (size_t i = 0; i < a->n_streams; i++)
		ring_free(a->streams[i]);
	free(a->workers);
	free(a);
}

int ctf_ahead_start(struct ctf_stream **streams, size_t n, unsigned threads, struct ctf_ahead **ret)
{
	struct ctf_ahead *a;
	unsigned nw;
	int r = -ENOMEM;

	/* The caller's thread decodes streams i % threads == 0 itself. */
	if (threads < 2 || n < 2) {
		*ret = NULL;
		return 0;
	}
	nw = (unsigned)MIN((size_t)threads - 1, n - 1);
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->streams = streams;
	a->workers = calloc(nw ? nw : 1, sizeof(*a->workers));
	if (!a->workers)
		goto err;
	a->n_workers = nw;
	for (unsigned i = 0; i < nw; i++) {
		struct ctf_worker *w = &a->workers[i];

		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->worker_cond, NULL);
		w->streams = calloc(n / nw + 1, sizeof(*w->streams));
		if (!w->streams)
			goto err;
	}
	for (size_t i = 0; i < n; i++) {
		struct ctf_stream *s = streams[i];
		struct ctf_ahead_ring *ring;
		struct ctf_worker *w;

		a->n_streams = i;
		if (i % (nw + 1) == 0)
			continue;
		w = &a->workers[i % (nw + 1) - 1];
		ring = calloc(1, sizeof(*ring));
		if (!ring)
			goto err;
		ring->slots = calloc(CTF_AHEAD_SLOTS, sizeof(*ring->slots));
		ring->keys = calloc(CTF_AHEAD_SLOTS, sizeof(*ring->keys));
		if (!ring->slots || !ring->keys) {
			free(ring->slots);
			free(ring->keys);
			free(ring);
			goto err;
		}
		pthread_mutex_init(&ring->produce, NULL);
		ring->w = w;
		ring->report = s->err;
		ring->report_len = s->errlen;
		s->err = ring->err;
		s->errlen = sizeof(ring->err);
		s->ahead = ring;
		a->n_streams = i + 1;
		w->streams[w->n_streams++] = s;
	}
	for (unsigned i = 0; i < nw; i++) {
		int e = pthread_create(&a->workers[i].thread, NULL, worker_main, &a->workers[i]);

		if (e) {
			r = -e;
			goto err;
		}
		a->workers[i].started = true;
	}
	*ret = a;
	return 0;
err:
	ctf_ahead_stop(a);
	return r;
}
