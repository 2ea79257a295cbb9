/* SPDX-License-Identifier: MIT */
/*
 * The app registration socket (include/strata/ust-abi.h): accepts the two
 * connections of each traced process, pairs them by (pid, token), keeps the
 * tracepoints each app announces (for `strata list -u`), answers event
 * registrations through the trace side, and sends commands with a bounded
 * wait for their reply.
 *
 * Apps are untrusted: every message is checked for size, type, counts and
 * NUL-terminated strings before use; pid/uid/gid come from SO_PEERCRED; an app
 * that sends anything malformed or does not answer in time is dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <strata/error.h>

#include "sessiond/app.h"
#include "sessiond/clock.h"
#include "common/log.h"
#include "common/common.h"

/*
 * Admission. The registration socket of root's daemon is open to every
 * local user, so what one user's processes may hold is bounded, and a share
 * of every pool is kept for root's and the daemon owner's own apps
 * ("privileged" below), which no other user can exhaust:
 *
 *   pending connections (accepted, no REGISTER yet)  APP_MAX_CONNS
 *       per other user APP_CONNS_PER_USER; APP_CONNS_RESERVED privileged
 *       each must REGISTER within APP_REGISTER_TIMEOUT_MS
 *   apps (registered connection pairs)                SD_MAX_APPS
 *       per other user APP_APPS_PER_USER; APP_APPS_RESERVED privileged;
 *       per process APP_APPS_PER_PID; the pair completes within
 *       APP_REGISTER_TIMEOUT_MS; a slot is free again when the app goes
 */
#define APP_MAX_CONNS 2048
#define APP_CONNS_PER_USER 64
#define APP_CONNS_RESERVED 256
#define APP_APPS_PER_USER 256
#define APP_APPS_RESERVED 256
#define APP_APPS_PER_PID 2
#define APP_REGISTER_TIMEOUT_MS 2000
#define APP_MAX_TRACEPOINTS 65536 /* per app */
/* EVENT_REGISTER messages one app may send: every event in every channel. */
#define APP_MAX_REGISTRATIONS (4 * STRATA_UST_MAX_ENABLERS)
/* Commands waiting for one app: what the largest sessions need, with room. */
#define APP_MAX_QUEUED (4 * (STRATA_UST_MAX_CHANNELS + STRATA_UST_MAX_ENABLERS))
#define APP_CMD_MAX_FDS 8

/* A command waiting to be sent, or sent and waiting for its REPLY. */
struct app_cmd {
	struct app_cmd *next;
	struct sd_op *op; /* the control request waiting for it, or NULL */
	size_t len;
	unsigned int nr_fds;
	int fds[APP_CMD_MAX_FDS]; /* ours (dup'ed), closed once sent */
	uint8_t msg[];
};

_Static_assert(sizeof(struct strata_ust_msg_header) == 16, "ABI");
_Static_assert(sizeof(struct strata_ust_register) == 72, "ABI");
_Static_assert(sizeof(struct strata_ust_field) == 528, "ABI");
_Static_assert(sizeof(struct strata_ust_enum_entry) == 280, "ABI");
_Static_assert(sizeof(struct strata_ust_event_register) == 296, "ABI");
_Static_assert(sizeof(struct strata_ust_channel) == 320, "ABI");
_Static_assert(sizeof(struct strata_ust_enabler) == 312, "ABI");
_Static_assert(sizeof(struct strata_ust_channel_enable) == 32, "ABI");
_Static_assert(sizeof(struct strata_ust_context_perf) == 48, "ABI");
_Static_assert(sizeof(struct strata_ust_clock) == 24, "ABI");

/* A connection before it is paired: it owns its fd until REGISTER. */
struct app_conn {
	struct sd_watch w;
	bool in_use;
	uid_t uid;
	int64_t deadline_ms; /* REGISTER by then */
};

static struct app_conn *conns;
static int spare_fd = -1; /* given up to accept and refuse when out of descriptors */
static void app_pump(struct sd_daemon *d, struct sd_app *a);
static void app_reply(struct sd_daemon *d, struct sd_app *a, ssize_t n);
static uint8_t *rxbuf; /* one message, the loop is single-threaded */

static bool str_terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

void sd_procname_sanitize(char *dst, const char *src, size_t size)
{
	size_t i = 0;

	while (i + 1 < size && src[i]) {
		unsigned char ch = (unsigned char)src[i];

		/* A C1 control in UTF-8 (U+0080..U+009F): some terminals act on it. */
		if (ch == 0xc2 && i + 2 < size && (unsigned char)src[i + 1] >= 0x80 &&
		    (unsigned char)src[i + 1] <= 0x9f) {
			dst[i] = dst[i + 1] = '_';
			i += 2;
			continue;
		}
		if (ch < 0x20 || ch == 0x7f || ch == '/' || ch == '\\' || ch == '"' || ch == '\'')
			ch = '_';
		dst[i++] = (char)ch;
	}
	dst[i] = '\0';
	/* Never a path component of its own: "", "." or "..". */
	if (!dst[0] || strcmp(dst, ".") == 0 || strcmp(dst, "..") == 0)
		snprintf(dst, size, "%s", strcmp(dst, "..") == 0 ? "__" : "_");
}

bool sd_name_printable(const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\')
			return false;
		if (ch == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f)
			return false;
	}
	return true;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void cmd_free(struct sd_daemon *d, struct app_cmd *c)
{
	struct sd_op *op = c->op;

	for (unsigned int i = 0; i < c->nr_fds; i++)
		close(c->fds[i]);
	free(c);
	if (op)
		sd_op_put(d, op);
}

static void app_free(struct sd_daemon *d, struct sd_app *a)
{
	struct app_cmd *q = a->q_head, *inflight = a->inflight;

	if (d->state.hooks.app_gone)
		d->state.hooks.app_gone(&d->state, a);
	if (a->cmd.fd >= 0) {
		sd_watch_del(d, &a->cmd);
		close(a->cmd.fd);
	}
	if (a->notify.fd >= 0) {
		sd_watch_del(d, &a->notify);
		close(a->notify.fd);
	}
	free(a->tps);
	*a = (struct sd_app){ .cmd.fd = -1, .notify.fd = -1 };
	/*
	 * Last: a control request completed here may run continuations that
	 * look at the apps, and must find this one gone.
	 */
	if (inflight)
		cmd_free(d, inflight);
	while (q) {
		struct app_cmd *next = q->next;

		cmd_free(d, q);
		q = next;
	}
}

void sd_app_drop(struct sd_daemon *d, struct sd_app *a, const char *why)
{
	log_info("App unregistered: pid=%d procname='%s' reason=%s", (int)a->pid, a->procname, why);
	app_free(d, a);
}

/* Receive one whole message into rxbuf; its length, or -errno. Never blocks. */
static ssize_t recv_msg(int fd)
{
	ssize_t n;

	do
		n = recv(fd, rxbuf, STRATA_UST_MAX_MSG_SIZE, MSG_DONTWAIT | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	if ((size_t)n > STRATA_UST_MAX_MSG_SIZE || (size_t)n < sizeof(struct strata_ust_msg_header))
		return -STRATA_EPROTO;
	return n;
}

static int check_header(const void *buf, size_t len, uint16_t *ret_type)
{
	struct strata_ust_msg_header h;

	memcpy(&h, buf, sizeof(h));
	if (h.magic != STRATA_UST_MAGIC || h.len != len)
		return -STRATA_EPROTO;
	*ret_type = h.type;
	return 0;
}

int sd_app_send(struct sd_app *a, int fd, void *msg, size_t len, const int *fds, unsigned nr_fds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = { .iov_base = msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	(void)a;
	if (nr_fds) {
		struct cmsghdr *cm;

		if (nr_fds > 8)
			return -EINVAL;
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nr_fds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nr_fds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nr_fds);
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

static void add_tracepoints(struct sd_app *a, const uint8_t *buf, size_t len)
{
	const struct strata_ust_tracepoint_list *l = (const void *)buf;
	const struct strata_ust_tracepoint_entry *e;
	struct sd_app_tp *arr;
	uint32_t nr;

	if (len < sizeof(*l))
		return;
	nr = l->nr;
	if (nr > STRATA_UST_MAX_TP_PER_MSG || len != sizeof(*l) + (size_t)nr * sizeof(*e) ||
	    a->nr_tps + nr > APP_MAX_TRACEPOINTS) {
		a->proto_error = true;
		return;
	}
	arr = realloc(a->tps, (a->nr_tps + nr) * sizeof(*arr));
	if (!arr && nr)
		return;
	a->tps = arr;
	e = (const void *)(buf + sizeof(*l));
	for (uint32_t i = 0; i < nr; i++) {
		struct strata_ust_tracepoint_entry ent;

		memcpy(&ent, &e[i], sizeof(ent));
		if (!str_terminated(ent.name, sizeof(ent.name)) || !ent.name[0] ||
		    !sd_name_printable(ent.name)) {
			a->proto_error = true;
			return;
		}
		memcpy(a->tps[a->nr_tps].name, ent.name, sizeof(ent.name));
		a->tps[a->nr_tps].loglevel = ent.loglevel;
		a->nr_tps++;
	}
}

static void handle_event_register(struct sd_daemon *d, struct sd_app *a, const uint8_t *buf,
				  size_t len)
{
	struct strata_ust_event_register_reply rep = {
		.hdr = { .magic = STRATA_UST_MAGIC,
			 .type = STRATA_UST_MSG_EVENT_REGISTER_REPLY,
			 .len = sizeof(rep) },
		.status = -ENOSYS,
	};
	struct strata_ust_event_register ev;
	uint32_t id = 0;

	if (len < sizeof(ev)) {
		a->proto_error = true;
		return;
	}
	memcpy(&ev, buf, sizeof(ev));
	rep.hdr.seq = ev.hdr.seq;
	if (ev.nr_fields > STRATA_UST_MAX_FIELDS ||
	    ev.nr_enum_entries > STRATA_UST_MAX_ENUM_ENTRIES ||
	    len != sizeof(ev) + (size_t)ev.nr_fields * sizeof(struct strata_ust_field) +
			    (size_t)ev.nr_enum_entries * sizeof(struct strata_ust_enum_entry) ||
	    !str_terminated(ev.name, sizeof(ev.name))) {
		a->proto_error = true;
		return;
	}
	if (++a->nr_registrations > APP_MAX_REGISTRATIONS) {
		if (a->nr_registrations == APP_MAX_REGISTRATIONS + 1)
			log_warn("App pid=%d: more than %u event registrations, refusing them",
				 (int)a->pid, APP_MAX_REGISTRATIONS);
		rep.status = -EDQUOT;
	} else if (d->state.hooks.event_register) {
		rep.status = d->state.hooks.event_register(&d->state, a, buf, len, &id);
	}
	rep.event_id = id;
	if (sd_app_send(a, a->notify.fd, &rep, sizeof(rep), NULL, 0) < 0)
		a->proto_error = true;
}

/* One message from an app's notify connection (already in rxbuf). */
static void handle_notify(struct sd_daemon *d, struct sd_app *a, size_t len)
{
	uint16_t type;

	if (check_header(rxbuf, len, &type) < 0) {
		a->proto_error = true;
		return;
	}
	switch (type) {
	case STRATA_UST_MSG_TRACEPOINT_LIST:
		add_tracepoints(a, rxbuf, len);
		break;
	case STRATA_UST_MSG_EVENT_REGISTER:
		handle_event_register(d, a, rxbuf, len);
		break;
	default:
		a->proto_error = true;
		break;
	}
}

static void app_on_event(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	struct sd_app *a = NULL;
	bool is_notify;
	ssize_t n;

	/* Find the app from the watch (cmd and notify are both members). */
	for (uint32_t i = 0; i < d->nr_apps; i++) {
		if (w == &d->apps[i].cmd || w == &d->apps[i].notify) {
			a = &d->apps[i];
			break;
		}
	}
	if (!a)
		return;
	is_notify = w == &a->notify;
	if (!is_notify && (events & EPOLLOUT) && a->want_out) {
		a->want_out = false;
		if (sd_watch_mod(d, &a->cmd, EPOLLIN) < 0) {
			sd_app_drop(d, a, "send failed");
			return;
		}
		app_pump(d, a);
		if (!a->in_use)
			return;
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	if (!(events & EPOLLIN)) {
		sd_app_drop(d, a, "connection closed");
		return;
	}
	for (;;) {
		n = recv_msg(w->fd);
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			sd_app_drop(d, a, n == -ECONNRESET ? "exited" : "receive error");
			return;
		}
		if (is_notify)
			handle_notify(d, a, (size_t)n);
		else
			app_reply(d, a, n);
		if (!a->in_use)
			return;
		if (a->proto_error) {
			sd_app_drop(d, a, "protocol error");
			return;
		}
	}
}

/* Root's and the daemon owner's apps: never limited by other users' use. */
static bool uid_privileged(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

static void count_apps(struct sd_daemon *d, uid_t uid, pid_t pid, uint32_t *ret_all,
		       uint32_t *ret_uid, uint32_t *ret_pid)
{
	*ret_all = *ret_uid = *ret_pid = 0;
	for (uint32_t i = 0; i < d->nr_apps; i++) {
		const struct sd_app *a = &d->apps[i];

		if (!a->in_use)
			continue;
		(*ret_all)++;
		if (a->uid == uid)
			(*ret_uid)++;
		if (a->pid == pid)
			(*ret_pid)++;
	}
}

/* Why a new app of (uid, pid) is refused, or NULL. */
static const char *app_refusal(struct sd_daemon *d, uid_t uid, pid_t pid)
{
	uint32_t all, of_uid, of_pid;

	count_apps(d, uid, pid, &all, &of_uid, &of_pid);
	if (of_pid >= APP_APPS_PER_PID)
		return "too many registrations from one process";
	if (all >= d->nr_apps)
		return "too many apps registered";
	if (uid_privileged(uid))
		return NULL;
	if (of_uid >= APP_APPS_PER_USER)
		return "too many apps of this user";
	if (all >= d->nr_apps - APP_APPS_RESERVED)
		return "the slots left are kept for root's apps";
	return NULL;
}

static struct sd_app *app_find_or_add(struct sd_daemon *d, pid_t pid, uid_t uid, uint64_t token,
				      const char **ret_why)
{
	struct sd_app *free_slot = NULL;

	for (uint32_t i = 0; i < d->nr_apps; i++) {
		struct sd_app *a = &d->apps[i];

		if (a->in_use && a->pid == pid && a->token == token)
			return a;
		if (!a->in_use && !free_slot)
			free_slot = a;
	}
	*ret_why = app_refusal(d, uid, pid);
	if (*ret_why)
		return NULL;
	if (!free_slot) {
		*ret_why = "too many apps registered";
		return NULL;
	}
	*free_slot = (struct sd_app){ .in_use = true,
				      .id = ++d->next_app_id,
				      .pid = pid,
				      .token = token,
				      .uid = uid,
				      .deadline_ms = now_ms() + APP_REGISTER_TIMEOUT_MS,
				      .cmd = { .fd = -1, .on_event = app_on_event },
				      .notify = { .fd = -1, .on_event = app_on_event } };
	return free_slot;
}

static void conn_close(struct sd_daemon *d, struct app_conn *c)
{
	sd_watch_del(d, &c->w);
	close(c->w.fd);
	*c = (struct app_conn){ .w.fd = -1 };
}

static void conn_on_event(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	struct app_conn *c = container_of(w, struct app_conn, w);
	struct strata_ust_register_reply rep = {
		.hdr = { .magic = STRATA_UST_MAGIC,
			 .type = STRATA_UST_MSG_REGISTER_REPLY,
			 .len = sizeof(rep) },
	};
	struct strata_ust_register reg;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct sd_app *a;
	struct sd_watch *slot;
	const char *why = NULL;
	uint16_t type;
	ssize_t n;
	int fd = c->w.fd;

	(void)events;
	n = recv_msg(fd);
	if (n == -EAGAIN)
		return;
	if (n != (ssize_t)sizeof(reg) || check_header(rxbuf, (size_t)n, &type) < 0 ||
	    type != STRATA_UST_MSG_REGISTER) {
		conn_close(d, c);
		return;
	}
	memcpy(&reg, rxbuf, sizeof(reg));
	rep.hdr.seq = reg.hdr.seq;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    (reg.socket_kind != STRATA_UST_SOCKET_CMD &&
	     reg.socket_kind != STRATA_UST_SOCKET_NOTIFY) ||
	    (reg.bits_per_long != 32 && reg.bits_per_long != 64)) {
		conn_close(d, c);
		return;
	}
	if (reg.major != STRATA_UST_PROTO_MAJOR) {
		rep.status = -EPROTONOSUPPORT;
		sd_app_send(NULL, fd, &rep, sizeof(rep), NULL, 0);
		log_warn("Refused app pid=%d: protocol %u.%u, daemon speaks %u.x", (int)cred.pid,
			 reg.major, reg.minor, STRATA_UST_PROTO_MAJOR);
		conn_close(d, c);
		return;
	}
	/* A per-user daemon traces only its user's apps; root's, everyone's. */
	if (!d->global && cred.uid != geteuid()) {
		conn_close(d, c);
		return;
	}
	a = app_find_or_add(d, cred.pid, cred.uid, reg.token, &why);
	if (!a) {
		log_warn("Refused app pid=%d uid=%u: %s", (int)cred.pid, (unsigned)cred.uid, why);
		rep.status = -EDQUOT;
		sd_app_send(NULL, fd, &rep, sizeof(rep), NULL, 0);
		conn_close(d, c);
		return;
	}
	slot = reg.socket_kind == STRATA_UST_SOCKET_CMD ? &a->cmd : &a->notify;
	if (slot->fd >= 0) {
		sd_app_drop(d, a, "registered twice");
		conn_close(d, c);
		return;
	}
	a->uid = cred.uid;
	a->gid = cred.gid;
	a->ppid = reg.ppid;
	a->vpid = reg.pid;
	a->vuid = reg.uid;
	a->vgid = reg.gid;
	a->bits_per_long = reg.bits_per_long;
	sd_procname_sanitize(a->procname, reg.procname, sizeof(reg.procname));
	rep.app_id = a->id;
	/* Hand the fd from the pending connection to the app. */
	sd_watch_del(d, &c->w);
	*c = (struct app_conn){ .w.fd = -1 };
	slot->fd = fd;
	if (sd_app_send(a, fd, &rep, sizeof(rep), NULL, 0) < 0 ||
	    sd_watch_add(d, slot, EPOLLIN) < 0) {
		close(fd);
		slot->fd = -1;
		sd_app_drop(d, a, "registration failed");
		return;
	}
	if (a->cmd.fd >= 0 && a->notify.fd >= 0) {
		a->ready = true;
		a->deadline_ms = 0;
		log_info("App registered: pid=%d uid=%u procname='%s' bits=%u", (int)a->pid,
			 (unsigned)a->uid, a->procname, a->bits_per_long);
		/* Before any CHANNEL: its records are stamped through the page. */
		sd_clock_send(d, a);
		if (!a->in_use)
			return;
		if (d->state.hooks.app_ready)
			d->state.hooks.app_ready(&d->state, a);
		if (a->in_use) {
			struct strata_ust_msg_header done = {
				.type = STRATA_UST_MSG_REGISTER_DONE
			};

			sd_app_queue(d, a, &done, sizeof(done), NULL, 0);
		}
	}
}

/* Pending connections in use, and those of uid. */
static void count_conns(uid_t uid, uint32_t *ret_all, uint32_t *ret_uid)
{
	*ret_all = *ret_uid = 0;
	for (uint32_t i = 0; i < APP_MAX_CONNS; i++) {
		if (!conns[i].in_use)
			continue;
		(*ret_all)++;
		if (conns[i].uid == uid)
			(*ret_uid)++;
	}
}

/*
 * Out of descriptors: accept each waiting connection with the spare one and
 * close it, so that the listening socket does not stay readable (a loop at
 * 100 % CPU until some descriptor is freed).
 */
static void refuse_waiting(int lfd)
{
	if (spare_fd < 0)
		return;
	close(spare_fd);
	spare_fd = -1;
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			break;
		close(fd);
	}
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void ust_listen_on_event(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	(void)events;
	for (;;) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct app_conn *c = NULL;
		struct ucred cred;
		socklen_t clen = sizeof(cred);
		uint32_t all, of_uid;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE) {
				log_warn("Refused app connections: out of file descriptors");
				refuse_waiting(w->fd);
			}
			return;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
			close(fd);
			continue;
		}
		/* A per-user daemon traces only its user's apps; root's, everyone's. */
		if (!d->global && cred.uid != geteuid()) {
			close(fd);
			continue;
		}
		count_conns(cred.uid, &all, &of_uid);
		if (!uid_privileged(cred.uid) &&
		    (of_uid >= APP_CONNS_PER_USER || all >= APP_MAX_CONNS - APP_CONNS_RESERVED)) {
			close(fd);
			continue;
		}
		for (uint32_t i = 0; i < APP_MAX_CONNS; i++) {
			if (!conns[i].in_use) {
				c = &conns[i];
				break;
			}
		}
		if (!c) {
			close(fd);
			continue;
		}
		*c = (struct app_conn){ .w = { .fd = fd, .on_event = conn_on_event },
					.in_use = true,
					.uid = cred.uid,
					.deadline_ms = now_ms() + APP_REGISTER_TIMEOUT_MS };
		if (sd_watch_add(d, &c->w, EPOLLIN) < 0) {
			close(fd);
			*c = (struct app_conn){ .w.fd = -1 };
		}
	}
}

/* Send the next queued command if none awaits its reply. */
static void app_pump(struct sd_daemon *d, struct sd_app *a)
{
	struct app_cmd *c = a->q_head;
	struct strata_ust_msg_header *h;
	int ret;

	if (!c || a->inflight || a->want_out || !a->ready)
		return;
	h = (struct strata_ust_msg_header *)(void *)c->msg;
	h->magic = STRATA_UST_MAGIC;
	h->len = (uint32_t)c->len;
	h->seq = ++a->seq;
	ret = sd_app_send(a, a->cmd.fd, c->msg, c->len, c->fds, c->nr_fds);
	if (ret == -EAGAIN) {
		/* The app is not reading: wait for room, never for the app. */
		a->seq--;
		a->want_out = true;
		if (sd_watch_mod(d, &a->cmd, EPOLLIN | EPOLLOUT) < 0)
			sd_app_drop(d, a, "send failed");
		return;
	}
	if (ret < 0) {
		sd_app_drop(d, a, "send failed");
		return;
	}
	a->q_head = c->next;
	if (!a->q_head)
		a->q_tail = NULL;
	a->nr_queued--;
	for (unsigned int i = 0; i < c->nr_fds; i++)
		close(c->fds[i]);
	c->nr_fds = 0;
	a->inflight = c;
	a->deadline_ms = now_ms() + STRATA_UST_REPLY_TIMEOUT_MS;
}

int sd_app_queue(struct sd_daemon *d, struct sd_app *a, const void *msg, size_t len, const int *fds,
		 unsigned nr_fds)
{
	struct app_cmd *c;

	if (!a->in_use || !a->ready)
		return -ENOTCONN;
	if (nr_fds > APP_CMD_MAX_FDS || len < sizeof(struct strata_ust_msg_header) ||
	    len > STRATA_UST_MAX_MSG_SIZE)
		return -EINVAL;
	if (a->nr_queued >= APP_MAX_QUEUED) {
		sd_app_drop(d, a, "too many commands waiting");
		return -ENOBUFS;
	}
	c = malloc(sizeof(*c) + len);
	if (!c) {
		sd_app_drop(d, a, "out of memory");
		return -ENOMEM;
	}
	c->next = NULL;
	c->op = NULL;
	c->len = len;
	c->nr_fds = 0;
	memcpy(c->msg, msg, len);
	for (unsigned int i = 0; i < nr_fds; i++) {
		int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);

		if (fd < 0) {
			int err = -errno;

			cmd_free(d, c);
			sd_app_drop(d, a, "out of descriptors");
			return err;
		}
		c->fds[c->nr_fds++] = fd;
	}
	if (d->state.op) {
		c->op = d->state.op;
		sd_op_get(c->op);
	}
	if (a->q_tail)
		a->q_tail->next = c;
	else
		a->q_head = c;
	a->q_tail = c;
	a->nr_queued++;
	app_pump(d, a);
	return 0;
}

/* The REPLY to the inflight command is in rxbuf (n bytes). */
static void app_reply(struct sd_daemon *d, struct sd_app *a, ssize_t n)
{
	struct strata_ust_reply rep;
	struct app_cmd *c = a->inflight;
	uint16_t type;

	if (n != (ssize_t)sizeof(rep) || check_header(rxbuf, (size_t)n, &type) < 0 ||
	    type != STRATA_UST_MSG_REPLY || !c) {
		a->proto_error = true;
		return;
	}
	memcpy(&rep, rxbuf, sizeof(rep));
	if (rep.hdr.seq != a->seq) {
		a->proto_error = true;
		return;
	}
	if (rep.status < 0) {
		struct strata_ust_msg_header h;

		memcpy(&h, c->msg, sizeof(h));
		log_debug("App pid=%d answered command %u with %s", (int)a->pid, h.type,
			  strerror(-rep.status));
	}
	a->inflight = NULL;
	cmd_free(d, c);
	/* The app may have been dropped by what the completion ran. */
	if (a->in_use)
		app_pump(d, a);
}

int sd_app_timeout_ms(struct sd_daemon *d)
{
	int64_t first = INT64_MAX, now;

	for (uint32_t i = 0; i < d->nr_apps; i++) {
		const struct sd_app *a = &d->apps[i];

		if (a->in_use && (a->inflight || !a->ready) && a->deadline_ms < first)
			first = a->deadline_ms;
	}
	for (uint32_t i = 0; conns && i < APP_MAX_CONNS; i++)
		if (conns[i].in_use && conns[i].deadline_ms < first)
			first = conns[i].deadline_ms;
	if (first == INT64_MAX)
		return -1;
	now = now_ms();
	return first <= now ? 0 : (int)MIN(first - now, (int64_t)INT32_MAX);
}

void sd_app_expire(struct sd_daemon *d)
{
	int64_t now = now_ms();

	for (uint32_t i = 0; i < d->nr_apps; i++) {
		struct sd_app *a = &d->apps[i];

		if (a->in_use && a->inflight && a->deadline_ms <= now)
			sd_app_drop(d, a, "command timed out");
		else if (a->in_use && !a->ready && a->deadline_ms <= now)
			sd_app_drop(d, a, "second connection never came");
	}
	for (uint32_t i = 0; conns && i < APP_MAX_CONNS; i++)
		if (conns[i].in_use && conns[i].deadline_ms <= now)
			conn_close(d, &conns[i]);
}

int sd_app_listen(struct sd_daemon *d, const char *path)
{
	int fd;

	rxbuf = malloc(STRATA_UST_MAX_MSG_SIZE);
	conns = calloc(APP_MAX_CONNS, sizeof(*conns));
	d->apps = calloc(SD_MAX_APPS, sizeof(*d->apps));
	if (!rxbuf || !conns || !d->apps)
		return -ENOMEM;
	d->nr_apps = SD_MAX_APPS;
	{
		/* Two connections and a few buffers' descriptors per app at most. */
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < (rlim_t)SD_MAX_APPS * 4 + 1024)
			d->nr_apps = (uint32_t)MAX(rl.rlim_cur / 4, (rlim_t)APP_APPS_RESERVED * 2);
	}
	for (uint32_t i = 0; i < SD_MAX_APPS; i++)
		d->apps[i] = (struct sd_app){ .cmd.fd = -1, .notify.fd = -1 };
	for (uint32_t i = 0; i < APP_MAX_CONNS; i++)
		conns[i].w.fd = -1;
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* root's daemon takes registrations from every user; the 0755 run dir
	 * lets them reach the socket, the control socket stays 0600. */
	fd = sd_unix_listen(path, SOCK_SEQPACKET, d->global ? 0666 : 0600);
	if (fd < 0)
		return fd;
	d->ust_listen = (struct sd_watch){ .fd = fd, .on_event = ust_listen_on_event };
	return sd_watch_add(d, &d->ust_listen, EPOLLIN);
}

void sd_app_release(struct sd_daemon *d)
{
	if (d->apps)
		for (uint32_t i = 0; i < d->nr_apps; i++)
			if (d->apps[i].in_use)
				app_free(d, &d->apps[i]);
	if (conns)
		for (uint32_t i = 0; i < APP_MAX_CONNS; i++)
			if (conns[i].in_use)
				conn_close(d, &conns[i]);
	if (d->ust_listen.fd >= 0) {
		sd_watch_del(d, &d->ust_listen);
		close(d->ust_listen.fd);
		d->ust_listen.fd = -1;
	}
	free(d->apps);
	free(conns);
	free(rxbuf);
	if (spare_fd >= 0)
		close(spare_fd);
	spare_fd = -1;
	d->apps = NULL;
	conns = NULL;
	rxbuf = NULL;
	d->nr_apps = 0;
}

int sd_app_list_tracepoints(struct sd_daemon *d, struct ipc_reply *rep)
{
	uint32_t total = 0, k = 0;

	for (uint32_t i = 0; i < d->nr_apps; i++)
		if (d->apps[i].ready)
			total += d->apps[i].nr_tps;
	total = MIN(total, (uint32_t)IPC_MAX_TRACEPOINTS);
	if (!total)
		return 0;
	rep->tracepoints = calloc(total, sizeof(*rep->tracepoints));
	if (!rep->tracepoints)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->nr_apps && k < total; i++) {
		struct sd_app *a = &d->apps[i];

		if (!a->ready)
			continue;
		for (uint32_t j = 0; j < a->nr_tps && k < total; j++, k++) {
			struct ipc_tracepoint_info *t = &rep->tracepoints[k];

			t->pid = (int32_t)a->pid;
			memcpy(t->procname, a->procname, sizeof(a->procname));
			memcpy(t->name, a->tps[j].name, sizeof(t->name));
			t->loglevel = a->tps[j].loglevel;
			t->type = IPC_EVENT_TRACEPOINT;
		}
	}
	rep->nr_tracepoints = k;
	return 0;
}
