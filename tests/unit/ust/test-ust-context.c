/* SPDX-License-Identifier: MIT */
/*
 * Context fields on the fast path (lib/ust/event.c): each thread copies the
 * context bytes of the last channel it recorded into. Records must carry
 * the right values whatever the channel sequence, the thread, a nested
 * (signal-handler-like) record into another channel in the middle of one,
 * the "ip" context (never copied), and a record whose payload is too short
 * for the fixed-size copy (at the very end of the buffer: ASan sees any
 * overrun).
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ust/backend-mem.h"
#include "ust/header.h"
#include "ust/ust-control.h"
#include "ust/ust-internal.h"

#include "common/common.h"

static const enum ust_context_type ctx_a[] = { UST_CTX_VPID, UST_CTX_VTID, UST_CTX_PROCNAME };
static const enum ust_context_type ctx_b[] = { UST_CTX_VTID, UST_CTX_VGID, UST_CTX_PTHREAD_ID };
static const enum ust_context_type ctx_ip[] = { UST_CTX_VTID, UST_CTX_IP };

struct chan {
	struct ust_mem_backend *mb;
	struct ust_channel *ch;
	struct ust_bindings *bindings;
	struct ust_event *ev;
};

static void chan_init(struct chan *c, const enum ust_context_type *ctx, uint32_t n, size_t capacity)
{
	struct ust_channel_config cfg = {
		.ops = &ust_mem_backend_ops, .clock = UST_CLOCK_MONOTONIC, .n_ctx = n, .ctx = ctx
	};

	assert_int_equal(ust_mem_backend_create(capacity, &c->mb), 0);
	cfg.backend = c->mb;
	assert_int_equal(ust_channel_create(&cfg, &c->ch), 0);
	c->bindings = calloc(1, sizeof(*c->bindings) + sizeof(c->bindings->b[0]));
	assert_non_null(c->bindings);
	c->bindings->n = 1;
	c->bindings->b[0].chan = c->ch;
	c->bindings->b[0].id = 7;
	c->ev = calloc(1, sizeof(*c->ev) + 8);
	assert_non_null(c->ev);
	c->ev->bindings = c->bindings;
}

static void chan_fini(struct chan *c)
{
	/* Channels stay allocated for the process's life (ust-internal.h). */
	ust_channel_detach(c->ch);
	ust_mem_backend_destroy(c->mb);
	free(c->ev);
	free(c->bindings);
}

/* One record with a payload of `payload` bytes of v; false if dropped. */
static bool try_emit(struct chan *c, uint64_t v, size_t payload, const void *ip)
{
	struct strata_ust_ctx ctx;
	uint8_t *p = strata_ust_event_reserve(&ctx, c->ev, payload, ip, NULL);

	if (!p)
		return false;
	if (payload)
		memcpy(p, &v, payload);
	assert_null(strata_ust_event_commit_next(&ctx));
	return true;
}

static void emit(struct chan *c, uint64_t v, size_t payload, const void *ip)
{
	assert_true(try_emit(c, v, payload, ip));
}

/* The context bytes this thread should write for ctx[n], ip given. */
static size_t expected(const enum ust_context_type *ctx, uint32_t n, const void *ip, uint8_t *out)
{
	size_t len = 0;

	for (uint32_t i = 0; i < n; i++) {
		int32_t s32;
		uint32_t u32;
		uint64_t u64;
		char name[UST_PROCNAME_LEN] = { 0 };

		switch (ctx[i]) {
		case UST_CTX_VPID:
			s32 = (int32_t)getpid();
			memcpy(out + len, &s32, 4);
			break;
		case UST_CTX_VTID:
			s32 = (int32_t)syscall(SYS_gettid);
			memcpy(out + len, &s32, 4);
			break;
		case UST_CTX_PROCNAME:
			prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0);
			memcpy(out + len, name, UST_PROCNAME_LEN);
			break;
		case UST_CTX_VGID:
			u32 = (uint32_t)getgid();
			memcpy(out + len, &u32, 4);
			break;
		case UST_CTX_PTHREAD_ID:
			u64 = (uint64_t)pthread_self();
			memcpy(out + len, &u64, 8);
			break;
		case UST_CTX_IP:
			u64 = (uint64_t)(uintptr_t)ip;
			memcpy(out + len, &u64, 8);
			break;
		default:
			fail();
		}
		len += ust_context_size(ctx[i]);
	}
	return len;
}

/*
 * Check record `index` of c: contexts `want` (ctx_len bytes), then the
 * payload value. Records are (header, contexts, payload).
 */
static void check_bytes(struct chan *c, uint64_t index, const uint8_t *want, size_t ctx_len,
			size_t payload, uint64_t v)
{
	size_t len, off = 0;
	const uint8_t *d = ust_mem_backend_data(c->mb, &len);

	for (uint64_t i = 0;; i++) {
		uint16_t id;

		assert_true(off + 2 <= len);
		memcpy(&id, d + off, 2);
		off += ust_header_len(id == UST_HEADER_ID_EXTENDED);
		if (i == index)
			break;
		off += ctx_len + payload;
	}
	assert_true(off + ctx_len + payload <= len);
	assert_memory_equal(d + off, want, ctx_len);
	if (payload)
		assert_memory_equal(d + off + ctx_len, &v, payload);
}

/* The same, with the contexts as the calling thread writes them. */
static void check(struct chan *c, uint64_t index, const enum ust_context_type *ctx, uint32_t n,
		  const void *ip, size_t payload, uint64_t v)
{
	uint8_t want[UST_CTX_BYTES_MAX];
	size_t ctx_len = expected(ctx, n, ip, want);

	check_bytes(c, index, want, ctx_len, payload, v);
}

static void test_channel_sequence(void **state)
{
	struct chan a, b;

	(void)state;
	/* Record i (value i) goes to a or b in this order. */
	static const bool to_b[] = { false, true, false, false, true, true, false };
	uint64_t nr[2] = { 0, 0 };

	chan_init(&a, ctx_a, ARRAY_SIZE(ctx_a), 4096);
	chan_init(&b, ctx_b, ARRAY_SIZE(ctx_b), 4096);
	for (uint64_t i = 0; i < ARRAY_SIZE(to_b); i++)
		emit(to_b[i] ? &b : &a, i, 8, NULL);
	for (uint64_t i = 0; i < ARRAY_SIZE(to_b); i++) {
		if (to_b[i])
			check(&b, nr[1]++, ctx_b, ARRAY_SIZE(ctx_b), NULL, 8, i);
		else
			check(&a, nr[0]++, ctx_a, ARRAY_SIZE(ctx_a), NULL, 8, i);
	}
	chan_fini(&a);
	chan_fini(&b);
}

struct thread_arg {
	struct chan *a;
	bool emitted;
	uint8_t want[UST_CTX_BYTES_MAX];
	size_t ctx_len;
};

/* cmocka asserts on the main thread only: record, and say what to expect. */
static void *other_thread(void *p)
{
	struct thread_arg *t = p;

	prctl(PR_SET_NAME, (unsigned long)"ctx-other", 0, 0, 0);
	t->emitted = try_emit(t->a, 11, 8, NULL);
	t->ctx_len = expected(ctx_a, ARRAY_SIZE(ctx_a), NULL, t->want);
	return NULL;
}

static void test_threads(void **state)
{
	struct chan a;
	struct thread_arg t = { .a = &a };
	uint8_t mine[UST_CTX_BYTES_MAX];
	pthread_t th;

	(void)state;
	chan_init(&a, ctx_a, ARRAY_SIZE(ctx_a), 4096);
	emit(&a, 10, 8, NULL);
	assert_int_equal(pthread_create(&th, NULL, other_thread, &t), 0);
	pthread_join(th, NULL);
	assert_true(t.emitted);
	emit(&a, 12, 8, NULL);
	check(&a, 0, ctx_a, ARRAY_SIZE(ctx_a), NULL, 8, 10);
	/* vtid and procname are the other thread's, not a copy of ours. */
	check_bytes(&a, 1, t.want, t.ctx_len, 8, 11);
	assert_true(memcmp(t.want, mine, expected(ctx_a, ARRAY_SIZE(ctx_a), NULL, mine)) != 0);
	check(&a, 2, ctx_a, ARRAY_SIZE(ctx_a), NULL, 8, 12);
	chan_fini(&a);
}

/* A record into b while one into a is open, as from a signal handler. */
static void test_nested(void **state)
{
	struct strata_ust_ctx outer;
	struct chan a, b;
	uint64_t v = 21;
	uint8_t *p;

	(void)state;
	chan_init(&a, ctx_a, ARRAY_SIZE(ctx_a), 4096);
	chan_init(&b, ctx_b, ARRAY_SIZE(ctx_b), 4096);
	emit(&b, 20, 8, NULL); /* b's bytes are this thread's copy */
	p = strata_ust_event_reserve(&outer, a.ev, 8, NULL, NULL);
	assert_non_null(p);
	emit(&b, 22, 8, NULL);
	memcpy(p, &v, 8);
	assert_null(strata_ust_event_commit_next(&outer));
	emit(&a, 23, 8, NULL);
	emit(&b, 24, 8, NULL);
	check(&a, 0, ctx_a, ARRAY_SIZE(ctx_a), NULL, 8, 21);
	check(&a, 1, ctx_a, ARRAY_SIZE(ctx_a), NULL, 8, 23);
	check(&b, 1, ctx_b, ARRAY_SIZE(ctx_b), NULL, 8, 22);
	check(&b, 2, ctx_b, ARRAY_SIZE(ctx_b), NULL, 8, 24);
	chan_fini(&a);
	chan_fini(&b);
}

/*
 * The same from a real signal handler, at random points of a loop recording
 * into a: every record of a keeps a's contexts.
 */
static struct chan *sig_b;
static volatile uint64_t sig_count;

static void on_alarm(int sig)
{
	(void)sig;
	if (try_emit(sig_b, 0, 8, NULL))
		sig_count++;
}

static void test_signal_nesting(void **state)
{
	struct itimerval it = { .it_interval = { 0, 50 }, .it_value = { 0, 50 } };
	struct itimerval off = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };
	uint8_t want[UST_CTX_BYTES_MAX];
	size_t len, ctx_len = expected(ctx_a, ARRAY_SIZE(ctx_a), NULL, want), off_b = 0;
	const size_t rec = UST_HEADER_EXTENDED_LEN + 25 + 8, n = 300000;
	struct chan a, b;
	const uint8_t *d;

	(void)state;
	chan_init(&a, ctx_a, ARRAY_SIZE(ctx_a), n * rec);
	chan_init(&b, ctx_b, ARRAY_SIZE(ctx_b), 1 << 22);
	sig_b = &b;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (uint64_t i = 0; i < n; i++)
		emit(&a, i, 8, NULL);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	assert_true(sig_count > 0);
	d = ust_mem_backend_data(a.mb, &len);
	for (uint64_t i = 0; i < n; i++) {
		uint16_t id;

		memcpy(&id, d + off_b, 2);
		off_b += ust_header_len(id == UST_HEADER_ID_EXTENDED);
		if (memcmp(d + off_b, want, ctx_len) != 0)
			fail_msg("record %llu of a has wrong contexts", (unsigned long long)i);
		off_b += ctx_len + 8;
	}
	chan_fini(&a);
	chan_fini(&b);
}

static void test_ip(void **state)
{
	struct chan c;

	(void)state;
	chan_init(&c, ctx_ip, ARRAY_SIZE(ctx_ip), 4096);
	emit(&c, 30, 8, (const void *)0x1234);
	emit(&c, 31, 8, (const void *)0x5678);
	check(&c, 0, ctx_ip, ARRAY_SIZE(ctx_ip), (const void *)0x1234, 8, 30);
	check(&c, 1, ctx_ip, ARRAY_SIZE(ctx_ip), (const void *)0x5678, 8, 31);
	chan_fini(&c);
}

/* 25 bytes of contexts and no payload, ending exactly at the buffer's end. */
static void test_short_record_at_end(void **state)
{
	struct chan a;

	(void)state;
	chan_init(&a, ctx_a, ARRAY_SIZE(ctx_a), UST_HEADER_EXTENDED_LEN + 25);
	emit(&a, 0, 0, NULL);
	assert_false(try_emit(&a, 0, 0, NULL)); /* full */
	check(&a, 0, ctx_a, ARRAY_SIZE(ctx_a), NULL, 0, 0);
	assert_int_equal(ust_mem_backend_lost(a.mb), 1);
	ust_mem_backend_reset(a.mb);
	emit(&a, 0, 0, NULL); /* from this thread's copy now */
	check(&a, 0, ctx_a, ARRAY_SIZE(ctx_a), NULL, 0, 0);
	chan_fini(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_channel_sequence),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_signal_nesting),
		cmocka_unit_test(test_ip),
		cmocka_unit_test(test_short_record_at_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
