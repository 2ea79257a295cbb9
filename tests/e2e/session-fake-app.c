/* SPDX-License-Identifier: MIT */
/*
 * A minimal traced app speaking include/strata/ust-abi.h by hand, so that
 * strata-sessiond's side of the protocol, its buffers and its consumer are
 * tested end to end whatever the state of libstrata-ust: it registers, lists
 * "fake:event", maps the channels the daemon sends, registers the event when
 * an enabler matches it, and on START writes `count` records (LTTng large
 * event header, the channel's vpid/vtid contexts, payload { int32 value,
 * string msg }) into the shared ring buffer.
 *
 * Usage: session-fake-app COUNT [THREADS [hold]]
 * Prints "registered" once both connections are accepted and
 * "emitted N" after the records are committed (N = COUNT x THREADS, each
 * thread writing COUNT records concurrently, at full speed), then serves
 * commands until the daemon closes the connection. hold: the first thread
 * stays on its CPU and commits its first record only after the others, so
 * that the consumer cannot read past it and that buffer fills up: losses
 * however fast the consumer is.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <strata/ust-abi.h>
#include <strata/ust-events.h>

#include "ringbuf/ringbuf.h"
#include "common/common.h"

#define MAX_CHANNELS 8

struct chan {
	uint64_t key;
	struct rb_channel *rb;
	uint32_t ctx[8];
	uint32_t nr_ctx;
	uint32_t event_id;
	bool enabled;
};

static struct chan chans[MAX_CHANNELS];
static unsigned nr_chans;
static int cmd_fd = -1, notify_fd = -1;
static uint32_t seq;

static _noreturn_ void die(const char *what)
{
	fprintf(stderr, "fake-app: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int connect_sock(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char rundir[256];
	int fd;

	if (strata_rundir_path(rundir, sizeof(rundir)) < 0 ||
	    strlen(rundir) + sizeof(STRATA_UST_SOCK_NAME) + 1 > sizeof(addr.sun_path))
		die("rundir");
	memcpy(addr.sun_path, rundir, strlen(rundir));
	addr.sun_path[strlen(rundir)] = '/';
	memcpy(addr.sun_path + strlen(rundir) + 1, STRATA_UST_SOCK_NAME,
	       sizeof(STRATA_UST_SOCK_NAME));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("connect");
	return fd;
}

/* Receive one message (and its fds) into buf; returns its length, 0 on EOF. */
static ssize_t recv_msg(int fd, void *buf, size_t len, int *fds, unsigned *nr_fds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

	if (nr_fds)
		*nr_fds = 0;
	if (n < 0)
		die("recvmsg");
	for (cm = CMSG_FIRSTHDR(&mh); cm && fds; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			*nr_fds = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(fds, CMSG_DATA(cm), *nr_fds * sizeof(int));
		}
	}
	return n;
}

static void send_all(int fd, const void *buf, size_t len)
{
	if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		die("send");
}

static void do_register(int fd, uint8_t kind, uint64_t token)
{
	struct strata_ust_register r = { .hdr = { .magic = STRATA_UST_MAGIC,
						  .type = STRATA_UST_MSG_REGISTER,
						  .len = sizeof(r),
						  .seq = ++seq },
					 .major = STRATA_UST_PROTO_MAJOR,
					 .minor = STRATA_UST_PROTO_MINOR,
					 .socket_kind = kind,
					 .bits_per_long = sizeof(long) * 8,
					 .pid = (uint32_t)getpid(),
					 .ppid = (uint32_t)getppid(),
					 .uid = getuid(),
					 .gid = getgid(),
					 .token = token };
	struct strata_ust_register_reply rep;

	snprintf(r.procname, sizeof(r.procname), "fake-app");
	send_all(fd, &r, sizeof(r));
	if (recv_msg(fd, &rep, sizeof(rep), NULL, NULL) != sizeof(rep) || rep.status != 0) {
		errno = EPROTO;
		die("register reply");
	}
}

static void send_tracepoints(void)
{
	struct {
		struct strata_ust_tracepoint_list l;
		struct strata_ust_tracepoint_entry e;
	} m = { .l = { .hdr = { .magic = STRATA_UST_MAGIC,
				.type = STRATA_UST_MSG_TRACEPOINT_LIST,
				.len = sizeof(m) },
		       .nr = 1 },
		.e = { .name = "fake:event", .loglevel = 13 } };

	send_all(notify_fd, &m, sizeof(m));
}

/* Register fake:event in a channel; the daemon answers with its id. */
static uint32_t register_event(uint64_t key)
{
	struct {
		struct strata_ust_event_register ev;
		struct strata_ust_field f[2];
	} m = { 0 };
	struct strata_ust_event_register_reply rep;

	m.ev.hdr = (struct strata_ust_msg_header){ .magic = STRATA_UST_MAGIC,
						   .type = STRATA_UST_MSG_EVENT_REGISTER,
						   .len = sizeof(m),
						   .seq = ++seq };
	m.ev.channel_key = key;
	m.ev.loglevel = 13;
	m.ev.nr_fields = 2;
	snprintf(m.ev.name, sizeof(m.ev.name), "fake:event");
	snprintf(m.f[0].name, sizeof(m.f[0].name), "value");
	m.f[0].kind = STRATA_TYPE_INTEGER;
	m.f[0].int_size = 32;
	m.f[0].int_signed = 1;
	m.f[0].int_base = 10;
	snprintf(m.f[1].name, sizeof(m.f[1].name), "msg");
	m.f[1].kind = STRATA_TYPE_STRING;
	m.f[1].int_size = 8;
	m.f[1].int_base = 10;
	m.f[1].encoding = STRATA_ENCODING_UTF8;
	send_all(notify_fd, &m, sizeof(m));
	if (recv_msg(notify_fd, &rep, sizeof(rep), NULL, NULL) != sizeof(rep) || rep.status != 0) {
		fprintf(stderr, "fake-app: event registration refused: %d\n", rep.status);
		exit(1);
	}
	return rep.event_id;
}

static void emit(long count, bool hold)
{
	int32_t vpid = getpid(), vtid = (int32_t)syscall(SYS_gettid);
	struct rb_reservation held[MAX_CHANNELS];
	bool holding[MAX_CHANNELS] = { false };
	int cpu = sched_getcpu();

	if (hold && cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			die("sched_setaffinity");
	}
	for (long i = 0; i < count; i++) {
		for (unsigned c = 0; c < nr_chans; c++) {
			struct chan *ch = &chans[c];
			struct rb_reservation res;
			char msg[32];
			size_t mlen = (size_t)snprintf(msg, sizeof(msg), "msg-%ld", i) + 1;
			size_t len = 14 + 4 * ch->nr_ctx + 4 + mlen;
			uint8_t *p;
			uint16_t ext = 65535;
			int32_t v = (int32_t)i;

			if (!ch->enabled || rb_reserve(ch->rb, -1, len, &res) < 0)
				continue;
			p = res.data;
			memcpy(p, &ext, 2);
			memcpy(p + 2, &ch->event_id, 4);
			memcpy(p + 6, &res.ts, 8);
			p += 14;
			for (unsigned k = 0; k < ch->nr_ctx; k++, p += 4)
				memcpy(p, ch->ctx[k] == STRATA_UST_CONTEXT_VPID ? &vpid : &vtid, 4);
			memcpy(p, &v, 4);
			memcpy(p + 4, msg, mlen);
			if (hold && i == 0) {
				held[c] = res;
				holding[c] = true;
			} else {
				rb_commit(ch->rb, &res);
			}
		}
	}
	for (unsigned c = 0; c < nr_chans; c++)
		if (holding[c])
			rb_commit(chans[c].rb, &held[c]);
}

struct emitter {
	pthread_t tid;
	long count;
	bool hold;
};

static void *emit_thread(void *arg)
{
	struct emitter *e = arg;

	emit(e->count, e->hold);
	return NULL;
}

/* count records from each of threads threads at once; the first may hold. */
static void emit_threads(long count, long threads, bool hold)
{
	struct emitter e[16];
	long n = 0;

	for (; n < threads; n++) {
		e[n] = (struct emitter){ .count = count, .hold = hold && n == 0 };
		if (pthread_create(&e[n].tid, NULL, emit_thread, &e[n]))
			break;
	}
	if (n < threads)
		die("pthread_create");
	while (n > 0)
		pthread_join(e[--n].tid, NULL);
}

static struct chan *chan_by_key(uint64_t key)
{
	for (unsigned i = 0; i < nr_chans; i++)
		if (chans[i].key == key)
			return &chans[i];
	return NULL;
}

int main(int argc, char **argv)
{
	static uint8_t buf[STRATA_UST_MAX_MSG_SIZE];
	long count = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	long threads = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
	bool hold = argc > 3 && strcmp(argv[3], "hold") == 0;
	uint64_t token = ((uint64_t)getpid() << 32) ^ mono();

	prctl(PR_SET_NAME, "fake-app");
	notify_fd = connect_sock();
	do_register(notify_fd, STRATA_UST_SOCKET_NOTIFY, token);
	cmd_fd = connect_sock();
	do_register(cmd_fd, STRATA_UST_SOCKET_CMD, token);
	send_tracepoints();
	printf("registered\n");
	fflush(stdout);

	for (;;) {
		struct strata_ust_msg_header *h = (void *)buf;
		struct strata_ust_reply rep = { .hdr = { .magic = STRATA_UST_MAGIC,
							 .type = STRATA_UST_MSG_REPLY,
							 .len = sizeof(rep) } };
		int fds[8];
		unsigned nr_fds;
		ssize_t n = recv_msg(cmd_fd, buf, sizeof(buf), fds, &nr_fds);

		if (n == 0)
			return 0; /* the daemon went away */
		rep.hdr.seq = h->seq;
		switch (h->type) {
		case STRATA_UST_MSG_CHANNEL: {
			struct strata_ust_channel *m = (void *)buf;
			struct chan *ch = &chans[nr_chans];

			if (nr_chans == MAX_CHANNELS ||
			    rb_channel_attach(fds, nr_fds, &ch->rb) < 0) {
				rep.status = -EINVAL;
			} else {
				ch->key = m->channel_key;
				rb_channel_set_clock(ch->rb, mono);
				nr_chans++;
			}
			for (unsigned i = 0; i < nr_fds; i++)
				close(fds[i]);
			break;
		}
		case STRATA_UST_MSG_CONTEXT: {
			struct strata_ust_context *m = (void *)buf;
			struct chan *ch = chan_by_key(m->channel_key);

			if (!ch || (m->ctx_type != STRATA_UST_CONTEXT_VPID &&
				    m->ctx_type != STRATA_UST_CONTEXT_VTID))
				rep.status = -ENOTSUP;
			else
				ch->ctx[ch->nr_ctx++] = m->ctx_type;
			break;
		}
		case STRATA_UST_MSG_ENABLER: {
			struct strata_ust_enabler *m = (void *)buf;
			struct chan *ch = chan_by_key(m->channel_key);
			bool match = strcmp(m->pattern, "*") == 0 ||
				     strcmp(m->pattern, "fake:*") == 0 ||
				     strcmp(m->pattern, "fake:event") == 0;

			if (!ch) {
				rep.status = -ENOENT;
			} else if (match && m->enabled && !ch->enabled) {
				/* Before the reply: the daemon serves notify while it waits. */
				ch->event_id = register_event(ch->key);
				ch->enabled = true;
			}
			break;
		}
		case STRATA_UST_MSG_START:
			send_all(cmd_fd, &rep, sizeof(rep));
			if (threads > 1)
				emit_threads(count, MIN(threads, 16), hold);
			else
				emit(count, hold);
			printf("emitted %ld\n", count * (threads > 1 ? MIN(threads, 16) : 1));
			fflush(stdout);
			continue;
		case STRATA_UST_MSG_STOP:
		case STRATA_UST_MSG_SESSION_DESTROY:
			break;
		default:
			rep.status = -EINVAL;
			break;
		}
		send_all(cmd_fd, &rep, sizeof(rep));
	}
}
