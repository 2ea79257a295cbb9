/* SPDX-License-Identifier: MIT */
/* Unit tests of the control-protocol codec (lib/common/ipc*.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <strata/error.h>

#include "common/ipc-msg.h"
#include "common/common.h"

static void test_primitives_roundtrip(void **state)
{
	struct ipc_buf b;
	struct ipc_reader r;
	char s[8];
	uint16_t type;
	uint32_t len;

	(void)state;
	ipc_buf_init(&b);
	ipc_put_u8(&b, 0xab);
	ipc_put_u16(&b, 0x1234);
	ipc_put_u32(&b, 0xdeadbeef);
	ipc_put_u64(&b, 0x0102030405060708ull);
	ipc_put_i32(&b, -5);
	ipc_put_str(&b, "hello");
	assert_int_equal(ipc_buf_finish(&b, 42), 0);
	assert_int_equal(ipc_header_parse(b.data, b.len, &type, &len), 0);
	assert_int_equal(type, 42);
	assert_int_equal(len, b.len - IPC_HEADER_SIZE);
	/* Little-endian on the wire whatever the host. */
	assert_int_equal(b.data[IPC_HEADER_SIZE + 1], 0x34);

	ipc_reader_init(&r, b.data + IPC_HEADER_SIZE, len);
	assert_int_equal(ipc_get_u8(&r), 0xab);
	assert_int_equal(ipc_get_u16(&r), 0x1234);
	assert_int_equal(ipc_get_u32(&r), 0xdeadbeef);
	assert_true(ipc_get_u64(&r) == 0x0102030405060708ull);
	assert_int_equal(ipc_get_i32(&r), -5);
	ipc_get_str(&r, s, sizeof(s));
	assert_string_equal(s, "hello");
	assert_int_equal(ipc_reader_end(&r), 0);
	ipc_buf_release(&b);
}

static void test_reader_bounds(void **state)
{
	/* A string claiming 100 bytes in a 6-byte payload. */
	const uint8_t bad_len[] = { 100, 0, 0, 0, 'a', 'b' };
	/* A string with an embedded NUL. */
	const uint8_t nul[] = { 3, 0, 0, 0, 'a', 0, 'b' };
	/* A string that does not fit the destination. */
	const uint8_t big[] = { 5, 0, 0, 0, 'a', 'b', 'c', 'd', 'e' };
	/* A boolean that is neither 0 nor 1. */
	const uint8_t boolean[] = { 2 };
	/* A count larger than the bytes left could hold. */
	const uint8_t count[] = { 0xff, 0xff, 0, 0, 1, 2, 3, 4 };
	struct ipc_reader r;
	char s[5];

	(void)state;
	ipc_reader_init(&r, bad_len, sizeof(bad_len));
	ipc_get_str(&r, s, sizeof(s));
	assert_int_equal(r.err, -STRATA_EPROTO);
	assert_string_equal(s, "");

	ipc_reader_init(&r, nul, sizeof(nul));
	ipc_get_str(&r, s, sizeof(s));
	assert_int_equal(ipc_reader_end(&r), -STRATA_EPROTO);

	ipc_reader_init(&r, big, sizeof(big));
	ipc_get_str(&r, s, sizeof(s));
	assert_int_equal(ipc_reader_end(&r), -STRATA_EPROTO);

	ipc_reader_init(&r, boolean, sizeof(boolean));
	ipc_get_bool(&r);
	assert_int_equal(ipc_reader_end(&r), -STRATA_EPROTO);

	ipc_reader_init(&r, count, sizeof(count));
	assert_int_equal(ipc_get_count(&r, 100000, 4), 0);
	assert_int_equal(ipc_reader_end(&r), -STRATA_EPROTO);

	/* Errors are sticky: later reads return 0 and keep the error. */
	assert_int_equal(ipc_get_u32(&r), 0);
	assert_int_equal(r.err, -STRATA_EPROTO);

	/* Trailing bytes are an error too. */
	ipc_reader_init(&r, count, sizeof(count));
	ipc_get_u32(&r);
	assert_int_equal(ipc_reader_end(&r), -STRATA_EPROTO);
}

static void test_header_rejects(void **state)
{
	struct ipc_buf b;
	uint16_t type;
	uint32_t len;

	(void)state;
	ipc_buf_init(&b);
	assert_int_equal(ipc_buf_finish(&b, IPC_CMD_PING), 0);
	assert_int_equal(ipc_header_parse(b.data, 11, &type, &len), -STRATA_EPROTO);
	b.data[0] ^= 1; /* magic */
	assert_int_equal(ipc_header_parse(b.data, b.len, &type, &len), -STRATA_EPROTO);
	b.data[0] ^= 1;
	b.data[4] = 2; /* version */
	assert_int_equal(ipc_header_parse(b.data, b.len, &type, &len), -STRATA_EPROTO);
	b.data[4] = IPC_VERSION;
	b.data[11] = 0x7f; /* payload length over the limit */
	assert_int_equal(ipc_header_parse(b.data, b.len, &type, &len), -STRATA_EPROTO);
	ipc_buf_release(&b);
}

static void test_request_roundtrip(void **state)
{
	struct ipc_request req = { .cmd = IPC_CMD_ENABLE_CHANNEL,
				   .domain = IPC_DOMAIN_UST,
				   .all = true,
				   .loglevel_type = IPC_LOGLEVEL_SINGLE,
				   .loglevel = 13,
				   .chan_set = IPC_CHAN_SUBBUF_SIZE | IPC_CHAN_OVERWRITE,
				   .subbuf_size = 1 << 20,
				   .num_subbuf = 8,
				   .overwrite = true,
				   .buffers = IPC_BUFFERS_PID,
				   .switch_timer_us = 1000 };
	struct ipc_request out;
	struct ipc_buf b;
	uint16_t type;
	uint32_t len;

	(void)state;
	memcpy(req.session, "demo", 5);
	memcpy(req.channel, "chan0", 6);
	memcpy(req.probe, "elf:/bin/true:main", 19);
	assert_int_equal(ipc_names_append(&req.names, &req.nr_names, "hello:*"), 0);
	assert_int_equal(ipc_names_append(&req.names, &req.nr_names, "foo"), 0);
	assert_int_equal(ipc_request_encode(&req, &b), 0);
	assert_int_equal(ipc_header_parse(b.data, b.len, &type, &len), 0);
	assert_int_equal(ipc_request_decode(b.data + IPC_HEADER_SIZE, len, type, &out), 0);
	assert_int_equal(out.cmd, IPC_CMD_ENABLE_CHANNEL);
	assert_int_equal(out.domain, IPC_DOMAIN_UST);
	assert_true(out.all && out.overwrite && !out.snapshot);
	assert_int_equal(out.loglevel, 13);
	assert_string_equal(out.session, "demo");
	assert_string_equal(out.channel, "chan0");
	assert_true(out.subbuf_size == 1 << 20);
	assert_int_equal(out.num_subbuf, 8);
	assert_int_equal(out.buffers, IPC_BUFFERS_PID);
	assert_int_equal(out.switch_timer_us, 1000);
	assert_int_equal(out.nr_names, 2);
	assert_string_equal(out.names[0], "hello:*");
	assert_string_equal(out.names[1], "foo");
	assert_string_equal(out.probe, "elf:/bin/true:main");
	ipc_request_release(&out);

	/* Every truncation of the payload is rejected, without leaks. */
	for (uint32_t cut = 0; cut < len; cut++) {
		struct ipc_request t;

		assert_int_equal(ipc_request_decode(b.data + IPC_HEADER_SIZE, cut, type, &t),
				 -STRATA_EPROTO);
		assert_null(t.names);
	}
	/* Unknown commands are rejected. */
	assert_int_equal(ipc_request_decode(b.data + IPC_HEADER_SIZE, len, IPC_CMD_MAX, &out),
			 -STRATA_EPROTO);
	ipc_buf_release(&b);
	ipc_request_release(&req);
}

static void test_reply_roundtrip(void **state)
{
	struct ipc_event_info ev[2] = { { .name = "hello:*", .enabled = true },
					{ .name = "foo",
					  .loglevel_type = IPC_LOGLEVEL_RANGE,
					  .loglevel = 6,
					  .probe = (char *)"sdt:/bin/x:p:n" } };
	char ctx[1][IPC_NAME_MAX] = { "vpid" };
	struct ipc_channel_info ch = { .name = "channel0",
				       .domain = IPC_DOMAIN_UST,
				       .enabled = true,
				       .subbuf_size = 524288,
				       .num_subbuf = 4,
				       .discarded = 7,
				       .nr_events = 2,
				       .events = ev,
				       .nr_contexts = 1,
				       .contexts = ctx };
	struct ipc_session_info sess = { .name = "demo",
					 .output = "/tmp/x",
					 .active = true,
					 .nr_channels = 1,
					 .channels = &ch };
	struct ipc_tracepoint_info tp = {
		.pid = 42, .procname = "hello", .name = "hello:tptest", .loglevel = 13
	};
	struct ipc_reply rep = { .status = -22,
				 .message = "bad",
				 .nr_sessions = 1,
				 .sessions = &sess,
				 .nr_tracepoints = 1,
				 .tracepoints = &tp };
	struct ipc_reply out;
	struct ipc_buf b;
	uint16_t type;
	uint32_t len;

	(void)state;
	assert_int_equal(ipc_reply_encode(&rep, &b), 0);
	assert_int_equal(ipc_header_parse(b.data, b.len, &type, &len), 0);
	assert_int_equal(type, IPC_MSG_REPLY);
	assert_int_equal(ipc_reply_decode(b.data + IPC_HEADER_SIZE, len, &out), 0);
	assert_int_equal(out.status, -22);
	assert_string_equal(out.message, "bad");
	assert_int_equal(out.nr_sessions, 1);
	assert_string_equal(out.sessions[0].name, "demo");
	assert_true(out.sessions[0].active);
	assert_int_equal(out.sessions[0].nr_channels, 1);
	assert_string_equal(out.sessions[0].channels[0].name, "channel0");
	assert_int_equal(out.sessions[0].channels[0].nr_events, 2);
	assert_string_equal(out.sessions[0].channels[0].events[1].name, "foo");
	assert_int_equal(out.sessions[0].channels[0].events[1].loglevel, 6);
	assert_null(out.sessions[0].channels[0].events[0].probe);
	assert_string_equal(out.sessions[0].channels[0].events[1].probe, "sdt:/bin/x:p:n");
	assert_true(out.sessions[0].channels[0].discarded == 7);
	assert_string_equal(out.sessions[0].channels[0].contexts[0], "vpid");
	assert_int_equal(out.nr_tracepoints, 1);
	assert_int_equal(out.tracepoints[0].pid, 42);
	assert_string_equal(out.tracepoints[0].name, "hello:tptest");
	ipc_reply_release(&out);

	for (uint32_t cut = 0; cut < len; cut++) {
		assert_int_equal(ipc_reply_decode(b.data + IPC_HEADER_SIZE, cut, &out),
				 -STRATA_EPROTO);
		assert_null(out.sessions);
	}
	ipc_buf_release(&b);
}

static void test_names_limits(void **state)
{
	char(*names)[IPC_NAME_MAX] = NULL;
	uint32_t nr = 0;
	char longname[IPC_NAME_MAX + 1];

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[IPC_NAME_MAX] = '\0';
	assert_int_equal(ipc_names_append(&names, &nr, longname), -ENAMETOOLONG);
	assert_int_equal(nr, 0);
	for (int i = 0; i < IPC_MAX_NAMES; i++)
		assert_int_equal(ipc_names_append(&names, &nr, "a"), 0);
	assert_int_equal(ipc_names_append(&names, &nr, "a"), -E2BIG);
	free(names);
}

static void test_socket_io(void **state)
{
	struct ipc_request req = { .cmd = IPC_CMD_PING };
	struct ipc_buf b;
	uint8_t *payload;
	uint16_t type;
	uint32_t len;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	/* Nothing to read: bounded wait. */
	assert_int_equal(ipc_recv_msg(sv[1], 10, &type, &payload, &len), -ETIMEDOUT);
	assert_int_equal(ipc_request_encode(&req, &b), 0);
	assert_int_equal(ipc_send_buf(sv[0], &b), 0);
	assert_int_equal(ipc_recv_msg(sv[1], 1000, &type, &payload, &len), 0);
	assert_int_equal(type, IPC_CMD_PING);
	assert_int_equal(len, b.len - IPC_HEADER_SIZE);
	free(payload);
	ipc_buf_release(&b);
	close(sv[0]);
	assert_int_equal(ipc_recv_msg(sv[1], 1000, &type, &payload, &len), -ECONNRESET);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primitives_roundtrip),
		cmocka_unit_test(test_reader_bounds),
		cmocka_unit_test(test_header_rejects),
		cmocka_unit_test(test_request_roundtrip),
		cmocka_unit_test(test_reply_roundtrip),
		cmocka_unit_test(test_names_limits),
		cmocka_unit_test(test_socket_io),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
