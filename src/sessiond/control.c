/* SPDX-License-Identifier: MIT */
/*
 * The control socket: a SOCK_STREAM listener in the 0700 run directory.
 * Each client sends requests (common/ipc-msg.h) and gets one reply each, in
 * order. Clients are non-blocking; partial reads and writes are buffered so a
 * slow or stuck client never blocks the loop. Peers are checked with
 * SO_PEERCRED: only the daemon's own user (and root) may talk to it.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <strata/error.h>

#include "sessiond/sessiond.h"
#include "common/log.h"
#include "common/common.h"

/*
 * Who may connect: the daemon's user and root; to root's daemon also the
 * members of its tracing group (strata-sessiond --group, "tracing" by
 * default), as with LTTng. Bounds: CTL_MAX_CLIENTS in all, of which a
 * member of the group holds at most CTL_CLIENTS_PER_USER and
 * CTL_CLIENTS_RESERVED stay for root and the daemon's user; a client idle
 * for CTL_IDLE_MS (no request in progress, none waiting for apps) is
 * closed, so that idle connections cannot lock the owner out.
 */
#define CTL_MAX_CLIENTS 256
#define CTL_CLIENTS_PER_USER 16
#define CTL_CLIENTS_RESERVED 32
#define CTL_IDLE_MS 60000

/* A request whose reply waits for apps; it outlives a client that hangs up. */
struct ctl_op {
	struct sd_op op;
	struct ipc_reply rep;
	struct sd_client *client; /* NULL once the client is gone */
};

struct sd_client {
	struct sd_watch w;
	uint8_t hdr[IPC_HEADER_SIZE];
	size_t hdr_len;
	uint16_t type;
	uint8_t *payload; /* NULL while reading the header */
	uint32_t payload_len;
	size_t payload_pos;
	struct ipc_buf out;
	size_t out_pos;
	struct ctl_op *waiting; /* the request being answered, if it waits for apps */
	struct sd_caller caller;
	int64_t idle_deadline_ms;
	bool in_use;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sd_op_then(struct sd_daemon *d, struct sd_op *op, sd_op_fn fn, void *arg)
{
	struct sd_op_step *steps;

	if (!op) {
		fn(d, NULL, arg);
		return 0;
	}
	steps = realloc(op->then, (op->nr_then + 1) * sizeof(*steps));
	if (!steps) {
		log_error("Failed to defer a step of a control request: out of memory; "
			  "running it now");
		fn(d, op, arg);
		return -ENOMEM;
	}
	op->then = steps;
	op->then[op->nr_then++] = (struct sd_op_step){ fn, arg };
	return 0;
}

void sd_op_get(struct sd_op *op)
{
	op->refs++;
}

void sd_op_put(struct sd_daemon *d, struct sd_op *op)
{
	if (--op->refs)
		return;
	/* The steps run once: none of them may queue app commands for op. */
	for (uint32_t i = 0; i < op->nr_then; i++)
		op->then[i].fn(d, op, op->then[i].arg);
	free(op->then);
	op->then = NULL;
	op->nr_then = 0;
	op->done(d, op);
}

static bool client_flush(struct sd_daemon *d, struct sd_client *c);

static void client_close(struct sd_daemon *d, struct sd_client *c)
{
	if (c->waiting)
		c->waiting->client = NULL; /* its steps still run; nobody to answer */
	sd_watch_del(d, &c->w);
	close(c->w.fd);
	free(c->payload);
	ipc_buf_release(&c->out);
	*c = (struct sd_client){ .w.fd = -1 };
}

/* Encode rep for the client; false when the client had to be closed. */
static bool client_answer(struct sd_daemon *d, struct sd_client *c, struct ipc_reply *rep)
{
	int ret = ipc_reply_encode(rep, &c->out);

	if (ret < 0) {
		log_error("Failed to encode a control reply: %s", strata_strerror(ret));
		ipc_buf_release(&c->out);
		client_close(d, c);
		return false;
	}
	c->out_pos = 0;
	return true;
}

/* The last app command of a waiting request was answered: reply now. */
static void ctl_op_done(struct sd_daemon *d, struct sd_op *op)
{
	struct ctl_op *co = container_of(op, struct ctl_op, op);
	struct sd_client *c = co->client;

	if (c) {
		c->waiting = NULL;
		if (co->rep.status < 0 && co->rep.status != -EALREADY)
			ipc_reply_release(&co->rep); /* an error reply carries no data */
		if (client_answer(d, c, &co->rep) && client_flush(d, c) && !c->out.data)
			sd_watch_mod(d, &c->w, EPOLLIN);
	}
	ipc_reply_release(&co->rep);
	free(co);
}

static void client_handle(struct sd_daemon *d, struct sd_client *c)
{
	struct ipc_request req;
	struct ctl_op *co;
	int ret;

	ret = ipc_request_decode(c->payload, c->payload_len, c->type, &req);
	free(c->payload);
	c->payload = NULL;
	c->hdr_len = 0;
	co = calloc(1, sizeof(*co));
	if (!co) {
		if (ret == 0)
			ipc_request_release(&req);
		client_close(d, c);
		return;
	}
	co->op = (struct sd_op){ .refs = 1, .rep = &co->rep, .done = ctl_op_done };
	co->client = c;
	if (ret < 0) {
		co->rep = (struct ipc_reply){ .status = ret };
		snprintf(co->rep.message, sizeof(co->rep.message),
			 "Malformed request (type %u): the strata CLI and daemon versions differ",
			 c->type);
		log_warn("Failed to decode a control request: %s type=%u", strata_strerror(ret),
			 c->type);
	} else {
		log_debug("Control request cmd=%u session='%s' uid=%u", req.cmd, req.session,
			  (unsigned)c->caller.uid);
		d->state.op = &co->op;
		d->state.caller = c->caller;
		sd_cmd_handle(&d->state, &req, &co->rep);
		d->state.op = NULL;
		ipc_request_release(&req);
	}
	/* Read nothing more from this client until it has its answer. */
	c->waiting = co;
	sd_op_put(d, &co->op);
	if (c->in_use && c->waiting)
		sd_watch_mod(d, &c->w, 0);
}

/* Returns false when the client is gone. */
static bool client_flush(struct sd_daemon *d, struct sd_client *c)
{
	while (c->out.data && c->out_pos < c->out.len) {
		ssize_t n = send(c->w.fd, c->out.data + c->out_pos, c->out.len - c->out_pos,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				sd_watch_mod(d, &c->w, EPOLLOUT);
				return true;
			}
			client_close(d, c);
			return false;
		}
		c->out_pos += (size_t)n;
	}
	ipc_buf_release(&c->out);
	c->out_pos = 0;
	sd_watch_mod(d, &c->w, EPOLLIN);
	return true;
}

static void client_on_event(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	struct sd_client *c = container_of(w, struct sd_client, w);

	if (c->waiting) {
		/* Only a hangup or an error is reported while its request waits. */
		if (events & (EPOLLHUP | EPOLLERR))
			client_close(d, c);
		return;
	}
	if (events & EPOLLOUT) {
		if (!client_flush(d, c))
			return;
		if (c->out.data)
			return;
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	c->idle_deadline_ms = now_ms() + CTL_IDLE_MS;
	/* One request at a time: read until a whole one is in, answer it. */
	while (!c->out.data && !c->waiting) {
		ssize_t n;

		if (!c->payload) {
			n = recv(c->w.fd, c->hdr + c->hdr_len, sizeof(c->hdr) - c->hdr_len,
				 MSG_DONTWAIT);
		} else {
			n = recv(c->w.fd, c->payload + c->payload_pos,
				 c->payload_len - c->payload_pos, MSG_DONTWAIT);
		}
		if (n < 0 && (errno == EINTR))
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			client_close(d, c);
			return;
		}
		if (!c->payload) {
			c->hdr_len += (size_t)n;
			if (c->hdr_len < sizeof(c->hdr))
				continue;
			if (ipc_header_parse(c->hdr, sizeof(c->hdr), &c->type, &c->payload_len) <
			    0) {
				log_warn("Failed to read a control request: bad header, closing");
				client_close(d, c);
				return;
			}
			c->payload = malloc(c->payload_len ? c->payload_len : 1);
			if (!c->payload) {
				client_close(d, c);
				return;
			}
			c->payload_pos = 0;
		} else {
			c->payload_pos += (size_t)n;
		}
		if (c->payload && c->payload_pos == c->payload_len) {
			client_handle(d, c);
			if (!c->in_use || c->waiting)
				return;
		}
	}
}

/* Is (uid, gid) in the tracing group, as primary group or as a member? */
static bool in_group(const char *group, uid_t uid, gid_t gid)
{
	struct group gr, *grp = NULL;
	struct passwd pw, *pwp = NULL;
	char gbuf[16384], pbuf[4096];

	if (!group || !group[0] || getgrnam_r(group, &gr, gbuf, sizeof(gbuf), &grp) != 0 || !grp)
		return false;
	if (grp->gr_gid == gid)
		return true;
	if (getpwuid_r(uid, &pw, pbuf, sizeof(pbuf), &pwp) != 0 || !pwp)
		return false;
	if (pwp->pw_gid == grp->gr_gid)
		return true;
	for (char **m = grp->gr_mem; *m; m++)
		if (strcmp(*m, pwp->pw_name) == 0)
			return true;
	return false;
}

/* May this peer talk to the daemon, and as whom? */
static bool peer_allowed(struct sd_daemon *d, int fd, struct sd_caller *ret)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	*ret = (struct sd_caller){ .uid = cred.uid,
				   .gid = cred.gid,
				   .admin = cred.uid == geteuid() || cred.uid == 0 };
	if (ret->admin)
		return true;
	if (!d->global || !in_group(d->tracing_group, cred.uid, cred.gid))
		return false;
	{
		struct passwd pw, *pwp = NULL;
		char buf[4096];

		if (getpwuid_r(cred.uid, &pw, buf, sizeof(buf), &pwp) == 0 && pwp &&
		    strlen(pwp->pw_dir) < sizeof(ret->home))
			snprintf(ret->home, sizeof(ret->home), "%s", pwp->pw_dir);
		else
			snprintf(ret->home, sizeof(ret->home), "/tmp");
	}
	return true;
}

static uint32_t clients_of(struct sd_daemon *d, uid_t uid, uint32_t *ret_all)
{
	uint32_t n = 0;

	*ret_all = 0;
	for (uint32_t i = 0; i < CTL_MAX_CLIENTS; i++) {
		if (!d->clients[i].in_use)
			continue;
		(*ret_all)++;
		if (d->clients[i].caller.uid == uid)
			n++;
	}
	return n;
}

static void listen_on_event(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	(void)events;
	for (;;) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct sd_client *c = NULL;
		struct sd_caller caller;
		uint32_t all, mine;

		if (fd < 0)
			return;
		if (!peer_allowed(d, fd, &caller)) {
			log_warn("Refused a control connection from another user");
			close(fd);
			continue;
		}
		mine = clients_of(d, caller.uid, &all);
		if (!caller.admin && (mine >= CTL_CLIENTS_PER_USER ||
				      all >= CTL_MAX_CLIENTS - CTL_CLIENTS_RESERVED)) {
			log_warn(
				"Refused a control connection of uid %u: %u of its clients connected",
				(unsigned)caller.uid, mine);
			close(fd);
			continue;
		}
		for (uint32_t i = 0; i < CTL_MAX_CLIENTS; i++) {
			if (!d->clients[i].in_use) {
				c = &d->clients[i];
				break;
			}
		}
		if (!c) {
			log_warn("Refused a control connection: %d clients already connected",
				 CTL_MAX_CLIENTS);
			close(fd);
			continue;
		}
		*c = (struct sd_client){ .w = { .fd = fd, .on_event = client_on_event },
					 .caller = caller,
					 .idle_deadline_ms = now_ms() + CTL_IDLE_MS,
					 .in_use = true };
		if (sd_watch_add(d, &c->w, EPOLLIN) < 0) {
			close(fd);
			*c = (struct sd_client){ .w.fd = -1 };
		}
	}
}

int sd_control_timeout_ms(struct sd_daemon *d)
{
	int64_t first = INT64_MAX, now;

	for (uint32_t i = 0; d->clients && i < CTL_MAX_CLIENTS; i++) {
		const struct sd_client *c = &d->clients[i];

		if (c->in_use && !c->waiting && !c->out.data && c->idle_deadline_ms < first)
			first = c->idle_deadline_ms;
	}
	if (first == INT64_MAX)
		return -1;
	now = now_ms();
	return first <= now ? 0 : (int)MIN(first - now, (int64_t)INT32_MAX);
}

void sd_control_expire(struct sd_daemon *d)
{
	int64_t now = now_ms();

	for (uint32_t i = 0; d->clients && i < CTL_MAX_CLIENTS; i++) {
		struct sd_client *c = &d->clients[i];

		if (c->in_use && !c->waiting && !c->out.data && c->idle_deadline_ms <= now) {
			log_info("Closed a control connection of uid %u: idle for %d s",
				 (unsigned)c->caller.uid, CTL_IDLE_MS / 1000);
			client_close(d, c);
		}
	}
}

int sd_unix_listen(const char *path, int type, mode_t mode)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* The pid lock is held: a socket file left here is stale. */
	if ((unlink(path) < 0 && errno != ENOENT) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || chmod(path, mode) < 0 ||
	    listen(fd, 64) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int sd_control_listen(struct sd_daemon *d, const char *path)
{
	int fd = sd_unix_listen(path, SOCK_STREAM, 0600);

	if (fd < 0)
		return fd;
	if (d->global && d->tracing_group[0]) {
		struct group gr, *grp = NULL;
		char buf[16384];

		/* The tracing group reaches root's daemon through the socket's group. */
		if (getgrnam_r(d->tracing_group, &gr, buf, sizeof(buf), &grp) == 0 && grp &&
		    (chown(path, 0, grp->gr_gid) < 0 || chmod(path, 0660) < 0))
			log_warn("Failed to open '%s' to the group '%s': %s", path,
				 d->tracing_group, strerror(errno));
	}
	d->clients = calloc(CTL_MAX_CLIENTS, sizeof(*d->clients));
	if (!d->clients) {
		close(fd);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < CTL_MAX_CLIENTS; i++)
		d->clients[i].w.fd = -1;
	d->ctl_listen = (struct sd_watch){ .fd = fd, .on_event = listen_on_event };
	return sd_watch_add(d, &d->ctl_listen, EPOLLIN);
}

void sd_control_release(struct sd_daemon *d)
{
	if (d->clients)
		for (uint32_t i = 0; i < CTL_MAX_CLIENTS; i++)
			if (d->clients[i].in_use)
				client_close(d, &d->clients[i]);
	free(d->clients);
	d->clients = NULL;
	if (d->ctl_listen.fd >= 0) {
		sd_watch_del(d, &d->ctl_listen);
		close(d->ctl_listen.fd);
		d->ctl_listen.fd = -1;
	}
}
