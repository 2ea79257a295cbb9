/* SPDX-License-Identifier: MIT */
/*
 * The app side of the registration protocol (lib/ust/comm.c) against a
 * minimal daemon played by this test on $STRATA_RUNDIR/ust.sock: register,
 * tracepoint list, CHANNEL with ring buffer fds, CONTEXT, ENABLER (which
 * makes the app ask for an event id on its notify connection), START, then
 * a record must appear in the ring buffer with that id and context; STOP
 * must stop recording.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include <strata/ust-abi.h>

#include "ringbuf/ringbuf.h"
#include "tp-all.h"
#include "ust/header.h"

#include "common/common.h"

static uint8_t buf[1 << 17];

static int accept_one(int lfd)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	/* The app retries every 200 ms; give it 10 s. */
	assert_int_equal(poll(&p, 1, 10000), 1);
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

static ssize_t recv_timeout(int fd, void *b, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	assert_int_equal(poll(&p, 1, 10000), 1);
	return recv(fd, b, len, 0);
}

static void hdr(struct strata_ust_msg_header *h, uint16_t type, size_t len, uint32_t seq)
{
	h->magic = STRATA_UST_MAGIC;
	h->type = type;
	h->flags = 0;
	h->len = (uint32_t)len;
	h->seq = seq;
}

/* Accept a connection, check its REGISTER, answer it; returns fd and kind. */
static int take_registration(int lfd, uint8_t *ret_kind, uint64_t *ret_token)
{
	struct strata_ust_register reg;
	struct strata_ust_register_reply rep = { 0 };
	int fd = accept_one(lfd);

	assert_true(fd >= 0);
	assert_int_equal(recv_timeout(fd, &reg, sizeof(reg)), sizeof(reg));
	assert_int_equal(reg.hdr.magic, STRATA_UST_MAGIC);
	assert_int_equal(reg.hdr.type, STRATA_UST_MSG_REGISTER);
	assert_int_equal(reg.major, STRATA_UST_PROTO_MAJOR);
	assert_int_equal(reg.pid, (uint32_t)getpid());
	assert_int_equal(reg.bits_per_long, sizeof(long) * 8);
	hdr(&rep.hdr, STRATA_UST_MSG_REGISTER_REPLY, sizeof(rep), reg.hdr.seq);
	rep.app_id = 1;
	assert_int_equal(send(fd, &rep, sizeof(rep), 0), sizeof(rep));
	*ret_kind = reg.socket_kind;
	*ret_token = reg.token;
	return fd;
}

/* Send a command (with fds) and expect its REPLY with `status`. */
static void command(int cmd, void *msg, size_t len, const int *fds, int nfds, int status)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)] = { 0 };
	struct iovec iov = { .iov_base = msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct strata_ust_reply rep;
	static uint32_t seq = 100;

	((struct strata_ust_msg_header *)msg)->seq = ++seq;
	if (nfds) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	assert_int_equal(sendmsg(cmd, &mh, 0), (ssize_t)len);
	assert_int_equal(recv_timeout(cmd, &rep, sizeof(rep)), sizeof(rep));
	assert_int_equal(rep.hdr.type, STRATA_UST_MSG_REPLY);
	assert_int_equal(rep.hdr.seq, seq);
	assert_int_equal(rep.status, status);
}

static void test_protocol(void **state)
{
	const char *rundir = getenv("STRATA_RUNDIR");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct rb_config rc = { .subbuf_size = 4096, .num_subbufs = 4, .nr_cpus = 64 };
	struct strata_ust_channel ch = { 0 };
	struct strata_ust_context cx = { 0 };
	struct strata_ust_enabler en = { 0 };
	struct strata_ust_session_cmd sc = { 0 };
	struct strata_ust_event_register_reply err_rep = { 0 };
	struct strata_ust_event_register *er = (void *)buf;
	struct strata_ust_tracepoint_list *tl = (void *)buf;
	int lfd, fds[2], cmd = -1, notify = -1, rbfds[RB_CHANNEL_NR_FDS], found = 0;
	uint64_t tok[2];
	uint8_t kind;
	struct rb_consumer *cons;
	struct rb_channel *rb;
	struct rb_packet pkt;
	ssize_t n;

	(void)state;
	assert_non_null(rundir);
	mkdir(rundir, 0700);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", rundir, STRATA_UST_SOCK_NAME);
	unlink(sa.sun_path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 4), 0);

	for (int i = 0; i < 2; i++) {
		fds[i] = take_registration(lfd, &kind, &tok[i]);
		if (kind == STRATA_UST_SOCKET_CMD)
			cmd = fds[i];
		else
			notify = fds[i];
	}
	assert_true(cmd >= 0 && notify >= 0);
	assert_int_equal(tok[0], tok[1]);

	/* The tracepoint list names the test provider's events. */
	n = recv_timeout(notify, buf, sizeof(buf));
	assert_true(n >= (ssize_t)sizeof(*tl));
	assert_int_equal(tl->hdr.type, STRATA_UST_MSG_TRACEPOINT_LIST);
	assert_int_equal((size_t)n,
			 sizeof(*tl) + tl->nr * sizeof(struct strata_ust_tracepoint_entry));
	for (uint32_t i = 0; i < tl->nr; i++) {
		const struct strata_ust_tracepoint_entry *e =
			(const void *)(buf + sizeof(*tl) + i * sizeof(*e));

		if (strcmp(e->name, "strata_test:second") == 0) {
			assert_int_equal(e->loglevel, STRATA_TRACEPOINT_LOGLEVEL_INFO);
			found++;
		}
	}
	assert_int_equal(found, 1);

	/* CHANNEL with the ring buffer's fds, then a context. */
	assert_int_equal(rb_channel_create(&rc, &rb), 0);
	rb_channel_fds(rb, rbfds);
	hdr(&ch.hdr, STRATA_UST_MSG_CHANNEL, sizeof(ch), 0);
	ch.channel_key = 7;
	ch.session_id = 3;
	ch.subbuf_size = rc.subbuf_size;
	ch.num_subbuf = rc.num_subbufs;
	ch.nr_cpus = rc.nr_cpus;
	ch.nr_fds = RB_CHANNEL_NR_FDS;
	command(cmd, &ch, sizeof(ch), rbfds, RB_CHANNEL_NR_FDS, 0);
	hdr(&cx.hdr, STRATA_UST_MSG_CONTEXT, sizeof(cx), 0);
	cx.channel_key = 7;
	cx.ctx_type = STRATA_UST_CONTEXT_VTID;
	command(cmd, &cx, sizeof(cx), NULL, 0, 0);
	cx.channel_key = 99;
	command(cmd, &cx, sizeof(cx), NULL, 0, -ENOENT);

	/*
	 * ENABLER "strata_test:sec*": the app registers strata_test:second on
	 * its notify connection before answering, so answer that first.
	 */
	hdr(&en.hdr, STRATA_UST_MSG_ENABLER, sizeof(en), 200);
	en.channel_key = 7;
	en.enabler_id = 1;
	en.enabled = 1;
	en.loglevel_type = STRATA_UST_LOGLEVEL_ALL;
	snprintf(en.pattern, sizeof(en.pattern), "strata_test:sec*");
	assert_int_equal(send(cmd, &en, sizeof(en), 0), sizeof(en));
	n = recv_timeout(notify, buf, sizeof(buf));
	assert_true(n >= (ssize_t)sizeof(*er));
	assert_int_equal(er->hdr.type, STRATA_UST_MSG_EVENT_REGISTER);
	assert_string_equal(er->name, "strata_test:second");
	assert_int_equal(er->channel_key, 7);
	assert_int_equal(er->loglevel, STRATA_TRACEPOINT_LOGLEVEL_INFO);
	assert_int_equal(er->nr_fields, 2);
	assert_int_equal((size_t)n, sizeof(*er) + 2 * sizeof(struct strata_ust_field));
	{
		const struct strata_ust_field *f = (const void *)(buf + sizeof(*er));

		assert_string_equal(f[1].name, "b");
		assert_int_equal(f[1].int_size, 64);
		assert_int_equal(f[1].int_base, 16);
	}
	hdr(&err_rep.hdr, STRATA_UST_MSG_EVENT_REGISTER_REPLY, sizeof(err_rep), er->hdr.seq);
	err_rep.event_id = 5;
	assert_int_equal(send(notify, &err_rep, sizeof(err_rep), 0), sizeof(err_rep));
	{
		struct strata_ust_reply rep;

		assert_int_equal(recv_timeout(cmd, &rep, sizeof(rep)), sizeof(rep));
		assert_int_equal(rep.hdr.type, STRATA_UST_MSG_REPLY);
		assert_int_equal(rep.status, 0);
	}

	/* Not started yet: nothing recorded. */
	strata_tracepoint(strata_test, second, 1, 2);
	hdr(&sc.hdr, STRATA_UST_MSG_START, sizeof(sc), 0);
	sc.session_id = 3;
	command(cmd, &sc, sizeof(sc), NULL, 0, 0);
	strata_tracepoint(strata_test, second, 42, 43);
	strata_tracepoint(strata_test, first, 1, 1); /* not enabled */
	hdr(&sc.hdr, STRATA_UST_MSG_STOP, sizeof(sc), 0);
	command(cmd, &sc, sizeof(sc), NULL, 0, 0);
	strata_tracepoint(strata_test, second, 3, 4);

	/* Exactly one record: extended header id 5, vtid, a = 42, b = 43. */
	assert_int_equal(rb_consumer_create(rb, NULL, &cons), 0);
	found = 0;
	for (uint32_t cpu = 0; cpu < rc.nr_cpus; cpu++) {
		assert_true(rb_consumer_flush(cons, cpu, 0) >= 0);
		while (rb_consumer_read(cons, cpu, 0, &pkt) == 0) {
			const uint8_t *r = pkt.data;
			uint16_t tag;
			uint32_t id;
			int32_t vtid;
			uint64_t a, b;

			if (!pkt.nr_records)
				continue;
			assert_int_equal(pkt.nr_records, 1);
			assert_int_equal(pkt.size, UST_HEADER_EXTENDED_LEN + 4 + 16);
			memcpy(&tag, r, 2);
			memcpy(&id, r + 2, 4);
			memcpy(&vtid, r + 14, 4);
			memcpy(&a, r + 18, 8);
			memcpy(&b, r + 26, 8);
			assert_int_equal(tag, 65535);
			assert_int_equal(id, 5);
			assert_int_equal(vtid, (int32_t)syscall(SYS_gettid));
			assert_int_equal(a, 42);
			assert_int_equal(b, 43);
			found++;
		}
	}
	assert_int_equal(found, 1);
	rb_consumer_destroy(cons);

	/* A daemon going away stops nothing in the app. */
	close(cmd);
	close(notify);
	close(lfd);
	unlink(sa.sun_path);
	strata_tracepoint(strata_test, second, 5, 6);
	/* The app keeps its own mapping (see comm.c); ours goes. */
	rb_channel_destroy(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocol),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
