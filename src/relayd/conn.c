/* SPDX-License-Identifier: MIT */
/*
 * Connections of strata-relayd (relayd.h): their buffers, replies, death,
 * and the small containers everything else uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "relayd/relayd.h"
#include "common/common.h"

uint64_t rd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* --- buffers ------------------------------------------------------------------ */

int rd_buf_reserve(struct rd_buf *b, size_t more)
{
	size_t cap;
	uint8_t *d;

	/* Consumed bytes at the head are dropped before growing. */
	if (b->off && b->len + more > b->cap) {
		memmove(b->data, b->data + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	if (b->len + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

int rd_buf_append(struct rd_buf *b, const void *p, size_t n)
{
	int ret;

	if (n == 0)
		return 0;
	ret = rd_buf_reserve(b, n);
	if (ret < 0)
		return ret;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void rd_buf_consume(struct rd_buf *b, size_t n)
{
	b->off += n;
	if (b->off == b->len) {
		b->off = b->len = 0;
		/* A large message's room is not kept once it is done. */
		if (b->cap > 4 * RD_IN_CHUNK) {
			free(b->data);
			b->data = NULL;
			b->cap = 0;
		}
	}
}

void rd_buf_release(struct rd_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* --- hash ---------------------------------------------------------------------- */

static size_t hslot(const struct rd_htab *h, uint64_t key)
{
	/* Keys may be counters: mix them (Fibonacci hashing). */
	return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & h->mask;
}

int rd_htab_add(struct rd_htab *h, struct rd_hnode *n)
{
	if (h->n + 1 > (h->mask + 1) / 2 * 3 || !h->b) {
		size_t nb = h->b ? (h->mask + 1) * 2 : 64;
		struct rd_hnode **b = calloc(nb, sizeof(*b));
		struct rd_htab nh = { .b = b, .mask = nb - 1 };

		if (!b)
			return -ENOMEM;
		for (size_t i = 0; h->b && i <= h->mask; i++) {
			struct rd_hnode *e = h->b[i], *next;

			for (; e; e = next) {
				size_t k = hslot(&nh, e->key);

				next = e->next;
				e->next = b[k];
				b[k] = e;
			}
		}
		free(h->b);
		h->b = b;
		h->mask = nb - 1;
	}
	n->next = h->b[hslot(h, n->key)];
	h->b[hslot(h, n->key)] = n;
	h->n++;
	return 0;
}

struct rd_hnode *rd_htab_find(const struct rd_htab *h, uint64_t key)
{
	if (!h->b)
		return NULL;
	for (struct rd_hnode *e = h->b[hslot(h, key)]; e; e = e->next)
		if (e->key == key)
			return e;
	return NULL;
}

void rd_htab_del(struct rd_htab *h, struct rd_hnode *n)
{
	struct rd_hnode **pp;

	if (!h->b)
		return;
	for (pp = &h->b[hslot(h, n->key)]; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			h->n--;
			return;
		}
	}
}

void rd_htab_release(struct rd_htab *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

/* --- connections ---------------------------------------------------------------- */

static const char *const kind_name[] = { "control", "data", "live" };

struct rd_conn *rd_conn_new(struct rd_relay *r, enum rd_conn_kind kind, int fd,
			    const struct sockaddr_storage *peer)
{
	struct rd_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->relay = r;
	c->kind = kind;
	c->fd = fd;
	c->id = ++r->next_conn_id;
	c->created_ms = c->progress_ms = r->now_ms;
	if (peer)
		c->peer = *peer;
	snprintf(c->peer_str, sizeof(c->peer_str), "?");
	rd_list_add(&r->conns, &c->node);
	r->n_conns++;
	return c;
}

void rd_conn_kill(struct rd_conn *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (c->dead)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warn("Closing %s connection %llu from %s: %s", kind_name[c->kind],
		 (unsigned long long)c->id, c->peer_str, msg);
	c->dead = true;
}

int rd_conn_send(struct rd_conn *c, const void *p, size_t n)
{
	if (rd_buf_append(&c->out, p, n) < 0) {
		rd_conn_kill(c, "out of memory for a reply");
		return -ENOMEM;
	}
	return 0;
}

bool rd_conn_mid_message(const struct rd_conn *c)
{
	return rd_buf_avail(&c->in) > 0 || c->meta.active || c->pkt.active;
}

void rd_conn_process(struct rd_conn *c)
{
	int ret;

	if (c->dead)
		return;
	switch (c->kind) {
	case RD_CONN_CONTROL:
		ret = rd_control_process(c);
		break;
	case RD_CONN_DATA:
		ret = rd_data_process(c);
		break;
	default:
		ret = rd_live_process(c);
		break;
	}
	if (ret < 0 && !c->dead)
		rd_conn_kill(c, "%s", strerror(-ret));
}

void rd_conn_close(struct rd_conn *c)
{
	struct rd_relay *r = c->relay;

	switch (c->kind) {
	case RD_CONN_CONTROL:
		rd_control_closed(c);
		break;
	case RD_CONN_DATA:
		rd_data_closed(c);
		break;
	default:
		rd_live_closed(c);
		break;
	}
	if (c->fd >= 0) {
		epoll_ctl(r->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	rd_buf_release(&c->in);
	rd_buf_release(&c->out);
	rd_list_del(&c->node);
	r->n_conns--;
	free(c);
}

/* --- the relay ------------------------------------------------------------------------ */

int rd_relay_init(struct rd_relay *r, const char *root, bool group_by_session)
{
	struct rlimit rl;

	memset(r, 0, sizeof(*r));
	r->epfd = -1;
	r->record_fd = -1;
	r->conns = RD_LIST_INIT(r->conns);
	r->sessions = RD_LIST_INIT(r->sessions);
	r->group_by_session = group_by_session;
	r->now_ms = rd_now_ms();
	r->hello_timeout_ms = RD_HELLO_TIMEOUT_MS;
	r->msg_timeout_ms = RD_MSG_TIMEOUT_MS;
	r->viewer_idle_ms = RD_VIEWER_IDLE_MS;
	for (size_t i = 0; i < ARRAY_SIZE(r->listeners); i++)
		r->listeners[i].fd = -1;
	/* Unguessable stream handles (rd_stream_handle_new()). */
	if (getrandom(&r->handle_key, sizeof(r->handle_key), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(r->handle_key))
		r->handle_key = (uint64_t)getpid() * UINT64_C(0x9E3779B97F4A7C15) ^ r->now_ms;
	/*
	 * Descriptors: a connection takes one, a stream up to four while it
	 * is open (its directory, index directory, data and index files).
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		rl.rlim_cur = 1024;
	r->max_conns = MAX((size_t)rl.rlim_cur / 4, (size_t)16);
	r->max_streams = MAX(((size_t)rl.rlim_cur - r->max_conns - 32) / 4, (size_t)16);
	r->root = strdup(root);
	if (!r->root)
		return -ENOMEM;
	r->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->root_fd < 0) {
		int ret = -errno;

		free(r->root);
		r->root = NULL;
		return ret;
	}
	return 0;
}

void rd_relay_release(struct rd_relay *r)
{
	struct rd_list *l, *t;

	/* Connections hold the sessions: once they are gone, so are these. */
	rd_list_for_each_safe(l, t, &r->conns) rd_conn_close(container_of(l, struct rd_conn, node));
	rd_htab_release(&r->streams);
	if (r->root_fd >= 0)
		close(r->root_fd);
	free(r->root);
	r->root = NULL;
	r->root_fd = -1;
}
