/* SPDX-License-Identifier: MIT */
/*
 * The app side of the registration protocol (<strata/ust-abi.h>): one
 * background thread per process that registers with strata-sessiond, lists
 * the process's tracepoints, and executes the daemon's commands (map a
 * channel's ring buffer, set its contexts, enable events by pattern, start,
 * stop) through the control API of ust-control.h.
 *
 * The thread never blocks the application beyond a bound: it connects
 * without waiting for the daemon (retrying every UST_COMM_RETRY_MS while none
 * listens), the startup handshake below is bounded by
 * STRATA_UST_REGISTER_TIMEOUT, and the fast path never looks at it.
 * STRATA_UST_REGISTER=0 disables registration (tests, tools).
 *
 * An app registers with its own user's daemon and, when it is not that
 * daemon, with root's (system-wide tracing, as lttng-ust does): one
 * connection and one thread each (struct comm), each the owner
 * (ust-control.h) of the bindings its daemon asked for. An event records
 * into every started channel of either daemon whose enablers match it: one
 * record per channel.
 *
 * Limits of this version, on purpose:
 *   - timestamps are CLOCK_MONOTONIC ns, the clock the daemon's metadata
 *     declares, computed from the TSC through the daemon's clock page
 *     (CLOCK command; clock_gettime() until it comes or when it is not
 *     valid); a page replaced by a new daemon's stays mapped until exit
 *     (a probe may be reading it);
 *   - a process forked after registration is not registered again (it keeps
 *     writing into the buffers it inherited);
 *   - ring buffer mappings are kept until exit: a probe on another thread may
 *     still be writing into one when its session is destroyed.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <strata/ust-abi.h>

#include "ringbuf/ringbuf.h"
#include "ust/backend-ringbuf.h"
#include "ust/clock-page.h"
#include "ust/ust-control.h"
#include "ust/ust-internal.h"

#include "filter/filter.h"

#include "common/common.h"

#define UST_COMM_RETRY_MS 200
#define UST_COMM_MAX_CHANNELS STRATA_UST_MAX_CHANNELS
#define UST_COMM_MAX_ENABLERS STRATA_UST_MAX_ENABLERS
#define UST_COMM_MAX_CONNS 2

struct comm_channel {
	uint64_t key;
	uint64_t session_id;
	struct rb_channel *rb;
	struct ust_channel *chan; /* created at START, once the contexts are known */
	enum ust_context_type ctx[UST_CTX_MAX];
	struct ust_perf_ctx perf[UST_CTX_MAX];
	uint32_t n_ctx;
	bool started;
	bool disabled; /* disable-channel: records nothing while set */
};

struct comm_enabler {
	uint64_t channel_key;
	uint64_t id;
	bool enabled;
	uint32_t loglevel_type;
	int32_t loglevel;
	char pattern[STRATA_UST_SYM_NAME_LEN];
	uint32_t nr_exclusions;
	char (*exclusions)[STRATA_UST_SYM_NAME_LEN]; /* malloc'd */
	bool filtered; /* came with a filter ... */
	struct flt_program *prog; /* ... validated here; NULL when refused: matches nothing */
};

/* An (event, channel) pair the daemon gave an id to. */
struct comm_binding {
	char name[STRATA_UST_SYM_NAME_LEN];
	uint64_t channel_key;
	uint32_t id;
	bool wanted; /* matched by an enabled enabler at the last evaluation */
	bool bound; /* published in the registry (wanted, channel started) */
	bool dirty; /* bound must change: republish its event */
	/*
	 * The filters of the matching enablers, linked to this event (none when
	 * one of them has no filter); filter_ids tells which enablers they came
	 * from, to link again only when that changes. A linked program stays
	 * allocated for the process's life: a snapshot a probe may be reading
	 * points at it.
	 */
	uint32_t nr_filters;
	const struct flt_linked **filters;
	uint64_t filter_ids;
};

struct comm {
	enum ust_owner owner; /* of the bindings this daemon asked for */
	char path[300]; /* the daemon's registration socket */
	/* Startup handshake (sync_lock): see below. */
	bool initial_done;
	bool connected;
	uint64_t done_gen;
	pthread_t thread;
	int cmd_fd, notify_fd, wake_fd;
	uint32_t seq;
	uint64_t token;
	struct comm_channel channels[UST_COMM_MAX_CHANNELS];
	uint32_t nr_channels;
	struct comm_enabler *enablers;
	uint32_t nr_enablers;
	struct comm_binding *bindings;
	uint32_t nr_bindings, cap_bindings;
	char (*listed)[STRATA_UST_SYM_NAME_LEN]; /* names already sent in TRACEPOINT_LISTs */
	uint32_t nr_listed, cap_listed;
	uint8_t buf[STRATA_UST_MAX_MSG_SIZE / 8];
};

static struct comm *comms[UST_COMM_MAX_CONNS];
static unsigned int nr_comms;

/*
 * Startup and provider-registration handshakes with the threads, so that a
 * short-lived app is traced from its first event, as with lttng-ust: the
 * library constructor waits (bounded by STRATA_UST_REGISTER_TIMEOUT ms,
 * default 3000, 0 = never wait) until every thread found no daemon, or
 * registered and received the commands of every session already started
 * (the daemon says so with REGISTER_DONE);
 * a provider registered later waits (same bound) until every connected
 * thread listed its events and enabled the matching ones.
 */
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_cond = PTHREAD_COND_INITIALIZER;
static uint64_t sync_wake_gen;
static long sync_timeout_ms = 3000;

static void sync_set(bool *flag, bool value)
{
	pthread_mutex_lock(&sync_lock);
	*flag = value;
	pthread_cond_broadcast(&sync_cond);
	pthread_mutex_unlock(&sync_lock);
}

static void sync_done_up_to(struct comm *c, uint64_t gen)
{
	pthread_mutex_lock(&sync_lock);
	if (gen > c->done_gen)
		c->done_gen = gen;
	pthread_cond_broadcast(&sync_cond);
	pthread_mutex_unlock(&sync_lock);
}

/* Wait until pred() or the timeout; with sync_lock held by the caller. */
static void sync_wait_locked(bool (*pred)(uint64_t), uint64_t arg)
{
	struct timespec deadline;

	if (sync_timeout_ms == 0)
		return;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += sync_timeout_ms / 1000;
	deadline.tv_nsec += (sync_timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	while (!pred(arg)) {
		if (sync_timeout_ms < 0)
			pthread_cond_wait(&sync_cond, &sync_lock);
		else if (pthread_cond_timedwait(&sync_cond, &sync_lock, &deadline) == ETIMEDOUT)
			break;
	}
}

static bool initial_done(uint64_t unused)
{
	(void)unused;
	for (unsigned int i = 0; i < nr_comms; i++)
		if (!comms[i]->initial_done)
			return false;
	return true;
}

static bool gen_done(uint64_t gen)
{
	for (unsigned int i = 0; i < nr_comms; i++)
		if (comms[i]->connected && comms[i]->done_gen < gen)
			return false;
	return true;
}

/* ---- Sockets ------------------------------------------------------------ */

static int send_msg(int fd, void *msg, size_t len)
{
	ssize_t n;

	do
		n = send(fd, msg, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* One message, and up to max_fds descriptors with it (-1 filled). */
static ssize_t recv_msg(int fd, void *buf, size_t len, int *fds, unsigned int max_fds,
			unsigned int *ret_nfds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 64)];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	unsigned int nfds = 0;
	ssize_t n;

	if (fds) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
	}
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = fds ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (nfds < max_fds)
				fds[nfds++] = f;
			else
				close(f);
		}
	}
	if (ret_nfds)
		*ret_nfds = nfds;
	if (n == 0)
		return -ECONNRESET;
	if ((mh.msg_flags & MSG_TRUNC) || (size_t)n < sizeof(struct strata_ust_msg_header))
		return -EPROTO;
	return n;
}

static void header_init(struct strata_ust_msg_header *h, uint16_t type, size_t len, uint32_t seq)
{
	h->magic = STRATA_UST_MAGIC;
	h->type = type;
	h->flags = 0;
	h->len = (uint32_t)len;
	h->seq = seq;
}

static int connect_registered(const char *path, uint8_t kind, uint64_t token)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct strata_ust_register reg = { 0 };
	struct strata_ust_register_reply rep;
	struct timeval tv = { .tv_sec = STRATA_UST_REPLY_TIMEOUT_MS / 1000 };
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Every wait on the daemon is bounded. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto err;
	header_init(&reg.hdr, STRATA_UST_MSG_REGISTER, sizeof(reg), 0);
	reg.major = STRATA_UST_PROTO_MAJOR;
	reg.minor = STRATA_UST_PROTO_MINOR;
	reg.socket_kind = kind;
	reg.bits_per_long = (uint8_t)(sizeof(long) * 8);
	reg.byte_order = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	reg.pid = (uint32_t)getpid();
	reg.ppid = (uint32_t)getppid();
	reg.uid = (uint32_t)getuid();
	reg.gid = (uint32_t)getgid();
	reg.token = token;
	prctl(PR_GET_NAME, (unsigned long)reg.procname, 0, 0, 0);
	reg.procname[STRATA_UST_PROCNAME_LEN - 1] = '\0';
	if (send_msg(fd, &reg, sizeof(reg)) < 0)
		goto err;
	n = recv_msg(fd, &rep, sizeof(rep), NULL, 0, NULL);
	if (n != (ssize_t)sizeof(rep) || rep.hdr.magic != STRATA_UST_MAGIC ||
	    rep.hdr.type != STRATA_UST_MSG_REGISTER_REPLY || rep.status != 0)
		goto err;
	return fd;
err:
	close(fd);
	return -ECONNREFUSED;
}

/* ---- Tracepoint list ----------------------------------------------------- */

struct list_ctx {
	struct comm *c;
	struct strata_ust_tracepoint_list *msg;
	struct strata_ust_tracepoint_entry *ents;
	int err;
};

static bool already_listed(const struct comm *c, const char *name)
{
	for (uint32_t i = 0; i < c->nr_listed; i++)
		if (strcmp(c->listed[i], name) == 0)
			return true;
	return false;
}

static int flush_list(struct list_ctx *l)
{
	size_t len = sizeof(*l->msg) + l->msg->nr * sizeof(*l->ents);
	int ret;

	if (!l->msg->nr)
		return 0;
	header_init(&l->msg->hdr, STRATA_UST_MSG_TRACEPOINT_LIST, len, ++l->c->seq);
	ret = send_msg(l->c->notify_fd, l->msg, len);
	l->msg->nr = 0;
	return ret;
}

static int list_one(const struct ust_event_info *info, void *arg)
{
	struct list_ctx *l = arg;
	struct comm *c = l->c;
	struct strata_ust_tracepoint_entry *e;

	if (already_listed(c, info->full_name) ||
	    strlen(info->full_name) >= STRATA_UST_SYM_NAME_LEN)
		return 0;
	if (c->nr_listed == c->cap_listed) {
		uint32_t cap = c->cap_listed ? c->cap_listed * 2 : 64;
		void *p = realloc(c->listed, cap * sizeof(*c->listed));

		if (!p) {
			l->err = -ENOMEM;
			return 1;
		}
		c->listed = p;
		c->cap_listed = cap;
	}
	memcpy(c->listed[c->nr_listed++], info->full_name, strlen(info->full_name) + 1);
	e = &l->ents[l->msg->nr++];
	memset(e, 0, sizeof(*e));
	memcpy(e->name, info->full_name, strlen(info->full_name) + 1);
	e->loglevel = info->loglevel;
	if (l->msg->nr == STRATA_UST_MAX_TP_PER_MSG) {
		/* Sending under the registry lock is fine: the daemon never waits on us here. */
		l->err = flush_list(l);
		if (l->err < 0)
			return 1;
	}
	return 0;
}

static int send_tracepoint_list(struct comm *c)
{
	struct list_ctx l = { .c = c };

	l.msg = (struct strata_ust_tracepoint_list *)(void *)c->buf;
	l.ents = (struct strata_ust_tracepoint_entry *)(void *)(c->buf + sizeof(*l.msg));
	memset(l.msg, 0, sizeof(*l.msg));
	ust_registry_foreach(list_one, &l);
	if (l.err < 0)
		return l.err;
	return flush_list(&l);
}

/* ---- Enablers and event registration -------------------------------------- */

static bool glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

static bool enabler_matches(const struct comm_enabler *e, const char *name, int loglevel)
{
	if (!e->enabled || !glob_match(e->pattern, name))
		return false;
	for (uint32_t i = 0; i < e->nr_exclusions; i++)
		if (glob_match(e->exclusions[i], name))
			return false;
	switch (e->loglevel_type) {
	case STRATA_UST_LOGLEVEL_RANGE:
		return loglevel <= e->loglevel;
	case STRATA_UST_LOGLEVEL_SINGLE:
		return loglevel == e->loglevel;
	default:
		return true;
	}
}

static struct comm_channel *channel_by_key(struct comm *c, uint64_t key)
{
	for (uint32_t i = 0; i < c->nr_channels; i++)
		if (c->channels[i].key == key)
			return &c->channels[i];
	return NULL;
}

static struct comm_binding *binding_find(struct comm *c, const char *name, uint64_t key)
{
	for (uint32_t i = 0; i < c->nr_bindings; i++)
		if (c->bindings[i].channel_key == key && strcmp(c->bindings[i].name, name) == 0)
			return &c->bindings[i];
	return NULL;
}

/* Flatten a descriptor into an EVENT_REGISTER message in c->buf. */
static int build_event_register(struct comm *c, const struct ust_event_info *info, uint64_t key,
				size_t *ret_len)
{
	struct strata_ust_event_register *ev = (void *)c->buf;
	const struct strata_field_desc *fields = info->desc->fields;
	struct strata_ust_field *out = (void *)(c->buf + sizeof(*ev));
	struct strata_ust_enum_entry *ents;
	uint32_t nf = 0, ne = 0;
	size_t len;

	for (uint32_t i = 0; i < info->desc->nr_fields; i++) {
		if (fields[i].nowrite)
			continue;
		nf++;
		if (fields[i].kind == STRATA_TYPE_ENUM && fields[i].enum_desc)
			ne += fields[i].enum_desc->nr_entries;
	}
	if (nf > STRATA_UST_MAX_FIELDS || ne > STRATA_UST_MAX_ENUM_ENTRIES)
		return -E2BIG;
	len = sizeof(*ev) + nf * sizeof(*out) + ne * sizeof(*ents);
	if (len > sizeof(c->buf))
		return -E2BIG;
	memset(c->buf, 0, len);
	ents = (void *)(c->buf + sizeof(*ev) + nf * sizeof(*out));
	header_init(&ev->hdr, STRATA_UST_MSG_EVENT_REGISTER, len, ++c->seq);
	ev->channel_key = key;
	ev->loglevel = info->loglevel;
	ev->nr_fields = nf;
	ev->nr_enum_entries = ne;
	snprintf(ev->name, sizeof(ev->name), "%s", info->full_name);
	for (uint32_t i = 0; i < info->desc->nr_fields; i++) {
		const struct strata_field_desc *f = &fields[i];

		if (f->nowrite)
			continue;
		snprintf(out->name, sizeof(out->name), "%s", f->name);
		out->kind = f->kind;
		out->encoding = f->encoding;
		out->int_size = f->integer.size;
		out->int_signed = f->integer.is_signed;
		out->int_base = f->integer.base;
		out->int_network = f->integer.network;
		out->length = f->length;
		if (f->kind == STRATA_TYPE_ENUM && f->enum_desc) {
			const struct strata_enum_desc *ed = f->enum_desc;

			out->nr_enum_entries = ed->nr_entries;
			snprintf(out->enum_name, sizeof(out->enum_name), "%s",
				 ed->name ? ed->name : "");
			for (uint32_t k = 0; k < ed->nr_entries; k++, ents++) {
				ents->start = ed->entries[k].start.value;
				ents->end = ed->entries[k].end.value;
				ents->start_signed = ed->entries[k].start.is_signed;
				ents->end_signed = ed->entries[k].end.is_signed;
				ents->is_auto = ed->entries[k].is_auto;
				snprintf(ents->label, sizeof(ents->label), "%s",
					 ed->entries[k].label ? ed->entries[k].label : "");
			}
		}
		out++;
	}
	*ret_len = len;
	return 0;
}

/* Ask the daemon for the id of (event, channel); *ret_id on success. */
static int register_event(struct comm *c, const struct ust_event_info *info, uint64_t key,
			  uint32_t *ret_id)
{
	struct strata_ust_event_register_reply rep;
	uint32_t seq;
	size_t len;
	ssize_t n;
	int ret;

	ret = build_event_register(c, info, key, &len);
	if (ret < 0)
		return ret;
	seq = c->seq;
	ret = send_msg(c->notify_fd, c->buf, len);
	if (ret < 0)
		return ret;
	n = recv_msg(c->notify_fd, &rep, sizeof(rep), NULL, 0, NULL);
	if (n < 0)
		return (int)n;
	if (n != (ssize_t)sizeof(rep) || rep.hdr.magic != STRATA_UST_MAGIC ||
	    rep.hdr.type != STRATA_UST_MSG_EVENT_REGISTER_REPLY || rep.hdr.seq != seq)
		return -EPROTO;
	if (rep.status < 0)
		return rep.status;
	*ret_id = rep.event_id;
	return 0;
}

struct eval_ctx {
	struct comm *c;
	struct ust_event_info *infos;
	uint32_t n, cap;
};

static int collect_event(const struct ust_event_info *info, void *arg)
{
	struct eval_ctx *e = arg;

	if (e->n == e->cap) {
		uint32_t cap = e->cap ? e->cap * 2 : 64;
		void *p = realloc(e->infos, cap * sizeof(*e->infos));

		if (!p)
			return -ENOMEM;
		e->infos = p;
		e->cap = cap;
	}
	e->infos[e->n++] = *info;
	return 0;
}

static bool binding_should_bind(struct comm *c, const struct comm_binding *b)
{
	struct comm_channel *ch = channel_by_key(c, b->channel_key);

	return b->wanted && ch && ch->started && !ch->disabled && ch->chan;
}

/*
 * Publish, for every event with a dirty binding, the channels this daemon
 * wants it recorded into (one binding per channel).
 */
static void publish_dirty(struct comm *c)
{
	struct ust_binding list[UST_COMM_MAX_CHANNELS];

	for (uint32_t i = 0; i < c->nr_bindings; i++) {
		const char *name = c->bindings[i].name;
		uint32_t n = 0;
		int r;

		if (!c->bindings[i].dirty)
			continue;
		for (uint32_t j = i; j < c->nr_bindings; j++) {
			struct comm_binding *b = &c->bindings[j];

			if (strcmp(b->name, name) != 0 || !binding_should_bind(c, b) ||
			    n == ARRAY_SIZE(list))
				continue;
			list[n++] = (struct ust_binding){
				.chan = channel_by_key(c, b->channel_key)->chan,
				.id = b->id,
				.nr_filters = b->nr_filters,
				.filters = b->filters,
			};
		}
		r = ust_event_set_bindings(name, c->owner, list, n);
		/* Gone (unregistered) counts as done; out of memory: retry next time. */
		for (uint32_t j = i; j < c->nr_bindings; j++) {
			struct comm_binding *b = &c->bindings[j];

			if (strcmp(b->name, name) != 0)
				continue;
			if (r == 0 || r == -ENOENT) {
				b->bound = binding_should_bind(c, b);
				b->dirty = false;
			}
		}
		if (r < 0 && r != -ENOENT)
			ust_debug("strata-ust: %s not republished: %d\n", name, r);
	}
}

/* Mark what must change after enablers or channel states changed, then publish. */
static void apply_bindings(struct comm *c)
{
	for (uint32_t i = 0; i < c->nr_bindings; i++) {
		struct comm_binding *b = &c->bindings[i];

		if (binding_should_bind(c, b) != b->bound)
			b->dirty = true;
	}
	publish_dirty(c);
}

/*
 * Match every registered event against the enablers of every channel: ask
 * ids for new matches, then publish what changed. Returns the first error
 * (the daemon sees it in the command's reply).
 */
/* FNV-1a over the ids of the enablers that take part: the link cache's key. */
static uint64_t ids_hash(uint64_t h, uint64_t id)
{
	for (int i = 0; i < 8; i++, id >>= 8)
		h = (h ^ (id & 0xff)) * 0x100000001b3ull;
	return h;
}

/*
 * Which filters decide whether channel key records the event: none (false)
 * when no enabler of the channel matches it; an empty list when one of them
 * has no filter; otherwise the matching enablers' filters that link to the
 * event (a filter naming a field the event lacks records nothing of it, as
 * in lttng-ust). b's cached list is linked again only when the set changed.
 * Returns whether the event is wanted in the channel.
 */
static bool channel_filters(struct comm *c, const struct ust_event_info *info, uint64_t key,
			    struct comm_binding *b)
{
	const struct strata_event_desc *desc = info->desc;
	const struct flt_linked **list;
	uint64_t ids = 0xcbf29ce484222325ull;
	bool any = false, unfiltered = false;
	uint32_t n = 0, nf = 0;

	for (uint32_t j = 0; j < c->nr_enablers; j++) {
		const struct comm_enabler *en = &c->enablers[j];

		if (en->channel_key != key || !enabler_matches(en, info->full_name, info->loglevel))
			continue;
		any = true;
		if (!en->filtered)
			unfiltered = true;
		else if (en->prog)
			ids = ids_hash(ids, en->id), nf++;
	}
	if (!any)
		return false;
	if (!b)
		return unfiltered || nf;
	if (unfiltered) {
		b->nr_filters = 0;
		b->filters = NULL;
		b->filter_ids = 0;
		return true;
	}
	if (b->filters && b->filter_ids == ids)
		return b->nr_filters != 0;
	list = calloc(nf ? nf : 1, sizeof(*list));
	if (!list)
		return b->nr_filters != 0; /* keep what it had */
	for (uint32_t j = 0; j < c->nr_enablers; j++) {
		const struct comm_enabler *en = &c->enablers[j];
		struct flt_linked *l;

		if (en->channel_key != key || !en->prog ||
		    !enabler_matches(en, info->full_name, info->loglevel))
			continue;
		if (flt_link_ust(en->prog, desc->fields, desc->nr_fields, ust_filter_ctx,
				 ust_filter_nr_ctx, &l) == 0)
			list[n++] = l;
	}
	b->nr_filters = n;
	b->filters = list;
	b->filter_ids = ids;
	return n != 0;
}

static int evaluate(struct comm *c)
{
	struct eval_ctx e = { .c = c };
	int ret = 0;

	if (ust_registry_foreach(collect_event, &e) < 0) {
		free(e.infos);
		return -ENOMEM;
	}
	for (uint32_t b = 0; b < c->nr_bindings; b++)
		c->bindings[b].wanted = false;
	for (uint32_t i = 0; i < e.n; i++) {
		for (uint32_t k = 0; k < c->nr_channels; k++) {
			uint64_t key = c->channels[k].key;
			struct comm_binding *b = binding_find(c, e.infos[i].full_name, key);
			uint32_t old_nf = b ? b->nr_filters : 0;
			const void *old_f = b ? (const void *)b->filters : NULL;

			if (!channel_filters(c, &e.infos[i], key, b))
				continue;
			if (!b) {
				uint32_t id = 0;
				int r;

				if (c->nr_bindings == c->cap_bindings) {
					uint32_t cap = c->cap_bindings ? c->cap_bindings * 2 : 32;
					void *p = realloc(c->bindings, cap * sizeof(*c->bindings));

					if (!p) {
						ret = ret ? ret : -ENOMEM;
						continue;
					}
					c->bindings = p;
					c->cap_bindings = cap;
				}
				r = register_event(c, &e.infos[i], key, &id);
				if (r < 0) {
					ust_debug("strata-ust: event %s not registered: %d\n",
						  e.infos[i].full_name, r);
					ret = ret ? ret : r;
					if (r == -ECONNRESET || r == -EPIPE || r == -EPROTO)
						break;
					continue;
				}
				b = &c->bindings[c->nr_bindings++];
				memset(b, 0, sizeof(*b));
				snprintf(b->name, sizeof(b->name), "%s", e.infos[i].full_name);
				b->channel_key = key;
				b->id = id;
				if (!channel_filters(c, &e.infos[i], key, b))
					continue;
			} else if (b->bound &&
				   (b->nr_filters != old_nf || (const void *)b->filters != old_f)) {
				b->dirty = true; /* same channel, other filters: republish */
			}
			b->wanted = true;
		}
	}
	apply_bindings(c);
	free(e.infos);
	return ret;
}

/* ---- Commands --------------------------------------------------------------- */

static int cmd_channel(struct comm *c, const void *msg, size_t len, const int *fds,
		       unsigned int nfds)
{
	struct strata_ust_channel m;
	struct comm_channel *ch;
	int ret;

	if (len != sizeof(m))
		return -EPROTO;
	memcpy(&m, msg, sizeof(m));
	if (channel_by_key(c, m.channel_key))
		return 0; /* already mapped (per-UID buffers shared by sessions' apps) */
	if (c->nr_channels == UST_COMM_MAX_CHANNELS)
		return -ENOSPC;
	if (nfds != m.nr_fds || nfds == 0)
		return -EPROTO;
	ch = &c->channels[c->nr_channels];
	memset(ch, 0, sizeof(*ch));
	ret = rb_channel_attach(fds, nfds, &ch->rb);
	if (ret < 0)
		return ret;
	ust_ringbuf_backend_prepare(ch->rb, UST_CLOCK_MONOTONIC_TSC);
	ch->key = m.channel_key;
	ch->session_id = m.session_id;
	c->nr_channels++;
	return 0;
}

static int cmd_clock(const void *msg, size_t len, const int *fds, unsigned int nfds)
{
	const int need = F_SEAL_SHRINK | F_SEAL_FUTURE_WRITE;
	struct strata_ust_clock m;
	struct stat st;
	void *map;
	int seals;

	if (len != sizeof(m) || nfds != 1)
		return -EPROTO;
	memcpy(&m, msg, sizeof(m));
	if (m.version != UST_CLOCK_PAGE_VERSION)
		return -EPROTONOSUPPORT;
	/* Shrinking would turn our reads into SIGBUS; other apps must not write. */
	seals = fcntl(fds[0], F_GET_SEALS);
	if (seals < 0 || (seals & need) != need)
		return -EPERM;
	if (m.page_size < sizeof(struct ust_clock_page) || m.page_size > (1u << 20) ||
	    fstat(fds[0], &st) < 0 || st.st_size < (off_t)m.page_size)
		return -EINVAL;
	map = mmap(NULL, m.page_size, PROT_READ, MAP_SHARED, fds[0], 0);
	if (map == MAP_FAILED)
		return -errno;
	if (!ust_clock_page_check(map)) {
		munmap(map, m.page_size);
		return -EINVAL;
	}
	/* The previous page stays mapped: a probe may still be reading it. */
	ust_clock_page_set(map);
	ust_debug("strata-ust: clock page mapped\n");
	return 0;
}

static int cmd_context(struct comm *c, const void *msg, size_t len)
{
	static const enum ust_context_type map[] = {
		[STRATA_UST_CONTEXT_VPID] = UST_CTX_VPID,
		[STRATA_UST_CONTEXT_VTID] = UST_CTX_VTID,
		[STRATA_UST_CONTEXT_PROCNAME] = UST_CTX_PROCNAME,
		[STRATA_UST_CONTEXT_PTHREAD_ID] = UST_CTX_PTHREAD_ID,
		[STRATA_UST_CONTEXT_IP] = UST_CTX_IP,
		[STRATA_UST_CONTEXT_PERF_THREAD] = UST_CTX_PERF_THREAD,
	};
	struct strata_ust_context_perf m = { 0 };
	struct ust_perf_ctx perf = { 0 };
	struct comm_channel *ch;

	if (len != sizeof(m.ctx) && len != sizeof(m))
		return -EPROTO;
	memcpy(&m, msg, len);
	ch = channel_by_key(c, m.ctx.channel_key);
	if (!ch)
		return -ENOENT;
	if (m.ctx.ctx_type == 0 || m.ctx.ctx_type >= ARRAY_SIZE(map) ||
	    (m.ctx.ctx_type == STRATA_UST_CONTEXT_PERF_THREAD) != (len == sizeof(m)))
		return -EINVAL;
	if (ch->chan)
		return -EBUSY; /* contexts come before START */
	perf = (struct ust_perf_ctx){ .type = m.perf_type, .config = m.perf_config };
	for (uint32_t i = 0; i < ch->n_ctx; i++)
		if (ch->ctx[i] == map[m.ctx.ctx_type] &&
		    (ch->ctx[i] != UST_CTX_PERF_THREAD ||
		     (ch->perf[i].type == perf.type && ch->perf[i].config == perf.config)))
			return 0;
	if (ch->n_ctx == UST_CTX_MAX)
		return -ENOSPC;
	ch->perf[ch->n_ctx] = perf;
	ch->ctx[ch->n_ctx++] = map[m.ctx.ctx_type];
	return 0;
}

static void enabler_release(struct comm_enabler *e)
{
	free(e->exclusions);
	/* Linked programs keep their own copies: the validated one can go. */
	flt_program_destroy(e->prog);
	e->exclusions = NULL;
	e->prog = NULL;
	e->nr_exclusions = 0;
	e->filtered = false;
}

static int cmd_enabler(struct comm *c, const void *msg, size_t len)
{
	struct strata_ust_enabler m;
	struct comm_enabler *e = NULL, fresh = { 0 };
	const uint8_t *extra = (const uint8_t *)msg + sizeof(m);
	size_t xlen;

	if (len < sizeof(m))
		return -EPROTO;
	memcpy(&m, msg, sizeof(m));
	if (m.nr_exclusions > STRATA_UST_MAX_EXCLUSIONS || m.filter_len > STRATA_UST_MAX_FILTER_LEN)
		return -EPROTO;
	xlen = (size_t)m.nr_exclusions * STRATA_UST_SYM_NAME_LEN;
	if (len != sizeof(m) + xlen + m.filter_len)
		return -EPROTO;
	if (!memchr(m.pattern, '\0', sizeof(m.pattern)) || !channel_by_key(c, m.channel_key))
		return -EINVAL;
	for (uint32_t i = 0; i < c->nr_enablers; i++)
		if (c->enablers[i].channel_key == m.channel_key &&
		    c->enablers[i].id == m.enabler_id)
			e = &c->enablers[i];
	if (!e) {
		void *p;

		if (c->nr_enablers == UST_COMM_MAX_ENABLERS)
			return -ENOSPC;
		/* The rule's exclusions and filter come once, with its first sending. */
		if (m.nr_exclusions) {
			fresh.exclusions = malloc(xlen);
			if (!fresh.exclusions)
				return -ENOMEM;
			memcpy(fresh.exclusions, extra, xlen);
			fresh.nr_exclusions = m.nr_exclusions;
			for (uint32_t i = 0; i < m.nr_exclusions; i++)
				if (!memchr(fresh.exclusions[i], '\0', STRATA_UST_SYM_NAME_LEN)) {
					enabler_release(&fresh);
					return -EINVAL;
				}
		}
		if (m.filter_len) {
			const char *why = NULL;
			int r;

			/*
			 * Bytes from the daemon, checked before any use. A program
			 * refused here makes the rule match nothing, as in lttng-ust.
			 */
			fresh.filtered = true;
			r = flt_validate(extra + xlen, m.filter_len, &fresh.prog, &why);
			if (r == -ENOMEM) {
				enabler_release(&fresh);
				return -ENOMEM;
			}
			if (r < 0)
				ust_debug("strata-ust: filter of enabler %llu refused: %s\n",
					  (unsigned long long)m.enabler_id, why ? why : "?");
		}
		p = realloc(c->enablers, (c->nr_enablers + 1) * sizeof(*c->enablers));
		if (!p) {
			enabler_release(&fresh);
			return -ENOMEM;
		}
		c->enablers = p;
		e = &c->enablers[c->nr_enablers++];
		*e = fresh;
	}
	e->channel_key = m.channel_key;
	e->id = m.enabler_id;
	e->enabled = m.enabled != 0;
	e->loglevel_type = m.loglevel_type;
	e->loglevel = m.loglevel;
	memcpy(e->pattern, m.pattern, sizeof(e->pattern));
	return evaluate(c);
}

static int cmd_channel_enable(struct comm *c, const void *msg, size_t len)
{
	struct strata_ust_channel_enable m;
	struct comm_channel *ch;

	if (len != sizeof(m))
		return -EPROTO;
	memcpy(&m, msg, sizeof(m));
	ch = channel_by_key(c, m.channel_key);
	if (!ch)
		return -ENOENT;
	ch->disabled = !m.enabled;
	apply_bindings(c);
	return 0;
}

static int cmd_session(struct comm *c, uint16_t type, const void *msg, size_t len)
{
	struct strata_ust_session_cmd m;
	int ret = 0;

	if (len != sizeof(m))
		return -EPROTO;
	memcpy(&m, msg, sizeof(m));
	for (uint32_t i = 0; i < c->nr_channels; i++) {
		struct comm_channel *ch = &c->channels[i];

		if (ch->session_id != m.session_id)
			continue;
		if (type == STRATA_UST_MSG_START) {
			if (!ch->chan) {
				struct ust_channel_config cfg = {
					.ops = &ust_ringbuf_backend_ops,
					.backend = ch->rb,
					.clock = UST_CLOCK_MONOTONIC_TSC,
					.n_ctx = ch->n_ctx,
					.ctx = ch->ctx,
					.perf = ch->perf,
				};
				int r = ust_channel_create(&cfg, &ch->chan);

				if (r < 0) {
					ret = r;
					continue;
				}
			}
			ch->started = true;
		} else {
			ch->started = false;
		}
	}
	apply_bindings(c);
	if (type == STRATA_UST_MSG_SESSION_DESTROY) {
		/* Forget the session (its mappings stay: see the header comment). */
		uint32_t w = 0;

		for (uint32_t b = 0; b < c->nr_bindings; b++) {
			struct comm_channel *ch = channel_by_key(c, c->bindings[b].channel_key);

			if (!ch || ch->session_id != m.session_id)
				c->bindings[w++] = c->bindings[b];
		}
		c->nr_bindings = w;
		w = 0;
		for (uint32_t i = 0; i < c->nr_enablers; i++) {
			struct comm_channel *ch = channel_by_key(c, c->enablers[i].channel_key);

			if (!ch || ch->session_id != m.session_id)
				c->enablers[w++] = c->enablers[i];
			else
				enabler_release(&c->enablers[i]);
		}
		c->nr_enablers = w;
		w = 0;
		for (uint32_t i = 0; i < c->nr_channels; i++)
			if (c->channels[i].session_id != m.session_id)
				c->channels[w++] = c->channels[i];
		c->nr_channels = w;
	}
	return ret;
}

static int handle_command(struct comm *c, uint16_t *ret_type)
{
	struct strata_ust_msg_header h;
	struct strata_ust_reply rep = { 0 };
	int fds[STRATA_UST_MAX_FDS < 64 ? STRATA_UST_MAX_FDS : 64];
	unsigned int nfds = 0;
	ssize_t n;
	int status;

	n = recv_msg(c->cmd_fd, c->buf, sizeof(c->buf), fds, ARRAY_SIZE(fds), &nfds);
	if (n < 0)
		return (int)n;
	memcpy(&h, c->buf, sizeof(h));
	*ret_type = h.type;
	if (h.magic != STRATA_UST_MAGIC || h.len != (uint32_t)n) {
		status = -EPROTO;
	} else {
		switch (h.type) {
		case STRATA_UST_MSG_CHANNEL:
			status = cmd_channel(c, c->buf, (size_t)n, fds, nfds);
			break;
		case STRATA_UST_MSG_CONTEXT:
			status = cmd_context(c, c->buf, (size_t)n);
			break;
		case STRATA_UST_MSG_CLOCK:
			status = cmd_clock(c->buf, (size_t)n, fds, nfds);
			break;
		case STRATA_UST_MSG_ENABLER:
			status = cmd_enabler(c, c->buf, (size_t)n);
			break;
		case STRATA_UST_MSG_START:
		case STRATA_UST_MSG_STOP:
		case STRATA_UST_MSG_SESSION_DESTROY:
			status = cmd_session(c, h.type, c->buf, (size_t)n);
			break;
		case STRATA_UST_MSG_CHANNEL_ENABLE:
			status = cmd_channel_enable(c, c->buf, (size_t)n);
			break;
		case STRATA_UST_MSG_REGISTER_DONE:
			status = (size_t)n == sizeof(struct strata_ust_msg_header) ? 0 : -EPROTO;
			break;
		default:
			status = -ENOSYS;
			break;
		}
	}
	/* rb_channel_attach() dup'ed what it keeps. */
	for (unsigned int i = 0; i < nfds; i++)
		close(fds[i]);
	ust_debug("strata-ust: command %u -> %d\n", h.type, status);
	header_init(&rep.hdr, STRATA_UST_MSG_REPLY, sizeof(rep), h.seq);
	rep.status = status;
	return send_msg(c->cmd_fd, &rep, sizeof(rep));
}

/* ---- The thread --------------------------------------------------------------- */

static bool on_comm_thread(void)
{
	for (unsigned int i = 0; i < nr_comms; i++)
		if (pthread_equal(pthread_self(), comms[i]->thread))
			return true;
	return false;
}

static void on_registry_change(void *arg)
{
	uint64_t one = 1, gen;

	(void)arg;
	if (!nr_comms)
		return;
	pthread_mutex_lock(&sync_lock);
	gen = ++sync_wake_gen;
	pthread_mutex_unlock(&sync_lock);
	/* Wake the threads; they list the new tracepoints and re-evaluate. */
	for (unsigned int i = 0; i < nr_comms; i++)
		if (write(comms[i]->wake_fd, &one, sizeof(one)) < 0) {
			/* the counter is saturated: a wakeup is pending anyway */
		}
	if (on_comm_thread())
		return;
	pthread_mutex_lock(&sync_lock);
	sync_wait_locked(gen_done, gen);
	pthread_mutex_unlock(&sync_lock);
}

static void disconnect(struct comm *c)
{
	sync_set(&c->connected, false);
	/* The daemon is gone: stop recording into its buffers. */
	ust_owner_clear(c->owner);
	for (uint32_t i = 0; i < c->nr_channels; i++)
		if (c->channels[i].chan)
			ust_channel_detach(c->channels[i].chan);
	if (c->cmd_fd >= 0)
		close(c->cmd_fd);
	if (c->notify_fd >= 0)
		close(c->notify_fd);
	c->cmd_fd = c->notify_fd = -1;
	c->nr_channels = 0;
	for (uint32_t i = 0; i < c->nr_enablers; i++)
		enabler_release(&c->enablers[i]);
	c->nr_enablers = 0;
	c->nr_bindings = 0;
	c->nr_listed = 0;
}

static void serve(struct comm *c)
{
	struct pollfd pfd[2] = { { .fd = c->cmd_fd, .events = POLLIN },
				 { .fd = c->wake_fd, .events = POLLIN } };

	sync_set(&c->connected, true);
	if (send_tracepoint_list(c) < 0)
		return;
	for (;;) {
		int n = poll(pfd, 2, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (pfd[1].revents & POLLIN) {
			uint64_t v, gen;

			pthread_mutex_lock(&sync_lock);
			gen = sync_wake_gen;
			pthread_mutex_unlock(&sync_lock);
			if (read(c->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				return;
			if (send_tracepoint_list(c) < 0)
				return;
			evaluate(c);
			sync_done_up_to(c, gen);
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			uint16_t type = 0;

			if (handle_command(c, &type) < 0)
				return;
			/* The daemon sent what every started session needs. */
			if (type == STRATA_UST_MSG_REGISTER_DONE)
				sync_set(&c->initial_done, true);
		}
	}
}

static void *comm_thread(void *arg)
{
	struct comm *c = arg;

	for (;;) {
		struct timespec retry = { .tv_sec = 0, .tv_nsec = UST_COMM_RETRY_MS * 1000000L };
		int fd;

		fd = connect_registered(c->path, STRATA_UST_SOCKET_NOTIFY, c->token);
		if (fd >= 0) {
			c->notify_fd = fd;
			fd = connect_registered(c->path, STRATA_UST_SOCKET_CMD, c->token);
			if (fd >= 0) {
				c->cmd_fd = fd;
				ust_debug("strata-ust: registered with %s\n", c->path);
				serve(c);
				ust_debug("strata-ust: lost the daemon at %s\n", c->path);
			}
			disconnect(c);
		}
		/* No daemon (now): the app goes on untraced. */
		sync_set(&c->initial_done, true);
		/* Retrying a connection, off the application's threads. */
		nanosleep(&retry, NULL);
	}
	return NULL;
}

/*
 * A forked child has no registration thread: it must neither wake nor wait
 * for its parent's (it keeps recording into the buffers it inherited).
 */
static void comm_atfork_child(void)
{
	nr_comms = 0;
}

static struct comm *comm_create(const char *rundir, enum ust_owner owner)
{
	struct comm *c = calloc(1, sizeof(*c));
	int n;

	if (!c)
		return NULL;
	c->wake_fd = -1;
	n = snprintf(c->path, sizeof(c->path), "%s/%s", rundir, STRATA_UST_SOCK_NAME);
	if (n < 0 || (size_t)n >= sizeof(c->path))
		goto err;
	c->owner = owner;
	c->cmd_fd = c->notify_fd = -1;
	c->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->wake_fd < 0)
		goto err;
	if (getrandom(&c->token, sizeof(c->token), GRND_NONBLOCK) < 0)
		goto err;
	return c;
err:
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	free(c);
	return NULL;
}

/* Start c's thread with every signal blocked (it takes none meant for the app). */
static bool comm_start(struct comm *c)
{
	sigset_t all, old;
	pthread_attr_t attr;
	bool started;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	started = pthread_create(&c->thread, &attr, comm_thread, c) == 0;
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

void ust_comm_init(void)
{
	const char *env = getenv("STRATA_UST_REGISTER");
	const char *tmo = getenv("STRATA_UST_REGISTER_TIMEOUT");
	char rundirs[UST_COMM_MAX_CONNS][200];
	unsigned int nr_rundirs = 0;

	if (env && strcmp(env, "0") == 0)
		return;
	if (tmo && *tmo) {
		char *end;
		long v = strtol(tmo, &end, 10);

		if (*end == '\0' && v >= -1)
			sync_timeout_ms = v;
	}
	if (strata_rundir_path(rundirs[0], sizeof(rundirs[0])) == 0)
		nr_rundirs++;
	if (strata_global_rundir_path(rundirs[nr_rundirs], sizeof(rundirs[0])) == 0 &&
	    (nr_rundirs == 0 || strcmp(rundirs[0], rundirs[nr_rundirs]) != 0))
		nr_rundirs++;
	for (unsigned int i = 0; i < nr_rundirs; i++) {
		struct comm *c = comm_create(rundirs[i], (enum ust_owner)(UST_OWNER_DAEMON0 + i));

		if (c)
			comms[nr_comms++] = c;
	}
	if (!nr_comms)
		return;
	pthread_atfork(NULL, NULL, comm_atfork_child);
	ust_registry_set_listener(on_registry_change, NULL);
	for (unsigned int i = 0; i < nr_comms; i++) {
		if (!comm_start(comms[i])) {
			/* Never started: it cannot be waited for. */
			comms[i]->initial_done = true;
		}
	}
	pthread_mutex_lock(&sync_lock);
	sync_wait_locked(initial_done, 0);
	pthread_mutex_unlock(&sync_lock);
}
