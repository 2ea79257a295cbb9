/* SPDX-License-Identifier: MIT */
/*
 * The consumer of one kernel channel: a thread that drains the channel's
 * per-CPU BPF rings and hands each record, CTF-encoded, to the channel's
 * callback.
 *
 * It sleeps in an edge-triggered epoll over the ring fds, a timer and a
 * control eventfd. The recorder wakes it only when a ring's unread data
 * crosses a sub-buffer, and the timer collects the tail: a level-triggered
 * poll would wake once per record, and since the consumer's own syscalls are
 * events, that is a feedback loop (millions of events/s measured).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "kernel-internal.h"

#include "common/common.h"

#define KT_OUT_MAX 65536

struct kt_ring_ctx {
	struct kernel_channel *ch;
	unsigned int cpu;
};

struct kt_consumer {
	pthread_t thread;
	int epfd, evfd, tfd;
	struct ring_buffer *rb;
	struct kt_ring_ctx *rctx;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t req_seq, done_seq;
	atomic_ullong wakeups; /* by a ring notification (not the timer or a request) */
	bool want_statedump, quit;
	uint8_t ctx_buf[1024];
	uint8_t out[KT_OUT_MAX];
};

static void kt_deliver(struct kernel_channel *ch, unsigned int stream, const struct kr_rec *r,
		       const uint64_t *ctr, const char *host, const uint8_t *payload, size_t plen)
{
	struct kt_consumer *c = ch->consumer;
	struct kt_class *cls;
	struct kernel_record rec;
	int32_t id;
	ssize_t n;

	if (r->key >= KR_MAX_KEYS)
		return;
	/* Pairs with the release stores in kernel.c when an event is first enabled. */
	id = atomic_load_explicit(&ch->id_of_key[r->key], memory_order_acquire);
	cls = atomic_load_explicit(&ch->kt->classes[r->key], memory_order_acquire);
	if (id < 0 || !cls)
		return;
	n = kt_encode_payload(cls, payload, plen, c->out, sizeof(c->out));
	if (n < 0)
		return;
	rec.stream = stream;
	rec.event_id = (uint32_t)id;
	rec.timestamp = r->ts;
	rec.context = c->ctx_buf;
	rec.context_len = kt_context_encode(ch, r, ctr, host, c->ctx_buf, sizeof(c->ctx_buf));
	rec.payload = c->out;
	rec.payload_len = (size_t)n;
	ch->cb(ch->opaque, &rec);
}

static int kt_ring_record(void *opaque, void *data, size_t size)
{
	struct kt_ring_ctx *rc = opaque;
	const struct kr_rec *r = data;
	const uint64_t *ctr = NULL;
	const char *host = NULL;
	size_t off = sizeof(*r);

	if (size < sizeof(*r))
		return 0;
	if (r->flags & KR_REC_CTR) {
		size_t n = (size_t)__builtin_popcount(r->ctr_mask) * 8;

		if (size < off + n)
			return 0;
		ctr = (const uint64_t *)((const uint8_t *)data + off);
		off += n;
	}
	if (r->flags & KR_REC_HOST) {
		if (size < off + KR_HOST_LEN)
			return 0;
		host = (const char *)data + off;
		off += KR_HOST_LEN;
	}
	kt_deliver(rc->ch, rc->cpu, r, ctr, host, (const uint8_t *)data + off,
		   MIN((size_t)r->len, size - off));
	return 0;
}

struct kt_sd_state {
	struct kernel_channel *ch;
	struct kr_rec self;
	char host[KR_HOST_LEN];
};

static void kt_sd_emit_record(void *opaque, uint32_t key, const void *payload, size_t len)
{
	struct kt_sd_state *st = opaque;
	struct timespec ts;

	if (!st->ch->enabled[key])
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	st->self.key = key;
	st->self.ts = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	kt_deliver(st->ch, st->ch->kt->ncpu, &st->self, NULL, st->host, payload, len);
}

static void kt_run_statedump(struct kernel_channel *ch)
{
	struct kt_sd_state st = { .ch = ch };

	if (!ch->enabled[KR_KEY_STATEDUMP_START] && !ch->enabled[KR_KEY_STATEDUMP_PROCESS] &&
	    !ch->enabled[KR_KEY_STATEDUMP_FD] && !ch->enabled[KR_KEY_STATEDUMP_END])
		return;
	/* Statedump records carry the context of the thread taking them. */
	st.self.pid = st.self.vpid = getpid();
	st.self.tid = st.self.vtid = gettid();
	st.self.ppid = st.self.vppid = getppid();
	prctl(PR_GET_NAME, st.self.comm);
	if (gethostname(st.host, sizeof(st.host) - 1))
		st.host[0] = 0;
	kt_statedump_run(kt_sd_emit_record, &st);
}

static void *kt_consumer_main(void *arg)
{
	struct kernel_channel *ch = arg;
	struct kt_consumer *c = ch->consumer;

	prctl(PR_SET_NAME, "strata-kconsume");
	for (;;) {
		struct epoll_event evs[16];
		int n = epoll_wait(c->epfd, evs, ARRAY_SIZE(evs), -1);
		uint64_t seq;
		bool sd, quit;

		bool ring = false;

		for (int i = 0; i < n; i++) {
			uint64_t v;

			if (evs[i].data.fd == c->tfd || evs[i].data.fd == c->evfd)
				while (read(evs[i].data.fd, &v, sizeof(v)) == sizeof(v))
					;
			else
				ring = true;
		}
		if (ring)
			atomic_fetch_add_explicit(&c->wakeups, 1, memory_order_relaxed);
		/*
		 * Take the requests before draining: a request answered by a drain
		 * that began before it (kernel_channel_stop() racing with the timer)
		 * would let its caller go on while records of it are still being
		 * delivered. A later one finds evfd readable and gets its own drain.
		 */
		pthread_mutex_lock(&c->lock);
		seq = c->req_seq;
		sd = c->want_statedump;
		quit = c->quit;
		c->want_statedump = false;
		pthread_mutex_unlock(&c->lock);
		ring_buffer__consume(c->rb);
		if (seq == c->done_seq && !quit)
			continue;
		if (sd)
			kt_run_statedump(ch);
		pthread_mutex_lock(&c->lock);
		c->done_seq = seq;
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
		if (quit)
			break;
	}
	return NULL;
}

static void kt_consumer_free(struct kt_consumer *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	if (c->epfd >= 0)
		close(c->epfd);
	if (c->evfd >= 0)
		close(c->evfd);
	if (c->tfd >= 0)
		close(c->tfd);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c->rctx);
	free(c);
}

static int kt_epoll_add(int epfd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int kt_consumer_start(struct kernel_channel *ch)
{
	struct kernel_tracer *kt = ch->kt;
	struct kt_consumer *c = calloc(1, sizeof(*c));
	uint64_t period = ch->attr.read_timer_us ? ch->attr.read_timer_us : 200000;
	struct itimerspec its = {
		.it_interval = { (time_t)(period / 1000000), (long)(period % 1000000) * 1000 },
		.it_value = { (time_t)(period / 1000000), (long)(period % 1000000) * 1000 },
	};
	int err;

	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	c->rctx = calloc(kt->ncpu, sizeof(*c->rctx));
	if (c->epfd < 0 || c->evfd < 0 || c->tfd < 0 || !c->rctx) {
		err = c->rctx ? -errno : -ENOMEM;
		goto err;
	}
	if (timerfd_settime(c->tfd, 0, &its, NULL)) {
		err = -errno;
		goto err;
	}
	for (unsigned int cpu = 0; cpu < kt->ncpu; cpu++) {
		c->rctx[cpu] = (struct kt_ring_ctx){ ch, cpu };
		if (!c->rb)
			c->rb = ring_buffer__new(ch->ring_fds[cpu], kt_ring_record, &c->rctx[cpu],
						 NULL);
		else if (ring_buffer__add(c->rb, ch->ring_fds[cpu], kt_ring_record, &c->rctx[cpu]))
			c->rb = NULL;
		if (!c->rb) {
			err = -errno ? -errno : -ENOMEM;
			goto err;
		}
		/* Edge-triggered: one wakeup per producer notification, not per record. */
		err = kt_epoll_add(c->epfd, ch->ring_fds[cpu], EPOLLIN | EPOLLET);
		if (err)
			goto err;
	}
	if ((err = kt_epoll_add(c->epfd, c->tfd, EPOLLIN)) ||
	    (err = kt_epoll_add(c->epfd, c->evfd, EPOLLIN)))
		goto err;
	ch->consumer = c;
	err = -pthread_create(&c->thread, NULL, kt_consumer_main, ch);
	if (err) {
		ch->consumer = NULL;
		goto err;
	}
	return 0;
err:
	kt_consumer_free(c);
	return err;
}

static int kt_consumer_request(struct kernel_channel *ch, bool statedump, bool quit)
{
	struct kt_consumer *c = ch->consumer;
	uint64_t one = 1, seq;

	pthread_mutex_lock(&c->lock);
	seq = ++c->req_seq;
	c->want_statedump |= statedump;
	c->quit |= quit;
	if (write(c->evfd, &one, sizeof(one)) < 0) {
		pthread_mutex_unlock(&c->lock);
		return -errno;
	}
	while (c->done_seq < seq)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

uint64_t kt_consumer_wakeups(const struct kernel_channel *ch)
{
	return ch->consumer ? atomic_load_explicit(&ch->consumer->wakeups, memory_order_relaxed) :
			      0;
}

int kt_consumer_sync(struct kernel_channel *ch, bool statedump)
{
	if (!ch->consumer)
		return -EINVAL;
	return kt_consumer_request(ch, statedump, false);
}

void kt_consumer_stop(struct kernel_channel *ch)
{
	if (!ch->consumer)
		return;
	kt_consumer_request(ch, false, true);
	pthread_join(ch->consumer->thread, NULL);
	kt_consumer_free(ch->consumer);
	ch->consumer = NULL;
}
