/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of strata-sessiond's model and commands (src/sessiond/cmd.c):
 * every refused request must leave the state exactly as it was, which is
 * checked by comparing the encoded `list` of all sessions before and after.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/context-names.h"
#include "sessiond/state.h"
#include "common/common.h"

struct fixture {
	struct sd_state st;
	int starts, stops, destroys;
	int start_error;
};

static struct fixture *fx_of(struct sd_state *st)
{
	return st->priv;
}

static int hook_start(struct sd_state *st, struct sd_session *s, char *msg)
{
	(void)s;
	if (fx_of(st)->start_error) {
		snprintf(msg, IPC_MSG_MAX, "start refused");
		return fx_of(st)->start_error;
	}
	fx_of(st)->starts++;
	return 0;
}

static int hook_stop(struct sd_state *st, struct sd_session *s, char *msg)
{
	(void)s;
	(void)msg;
	fx_of(st)->stops++;
	return 0;
}

static void hook_destroy(struct sd_state *st, struct sd_session *s)
{
	(void)s;
	fx_of(st)->destroys++;
}

static int kernel_ok_hook(struct sd_state *st, char *msg)
{
	(void)st;
	(void)msg;
	return 0;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	sd_state_init(&fx->st, "/home/u");
	fx->st.priv = fx;
	fx->st.hooks.session_start = hook_start;
	fx->st.hooks.session_stop = hook_stop;
	fx->st.hooks.session_destroy = hook_destroy;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	sd_state_release(&fx->st);
	free(fx);
	return 0;
}

static struct ipc_request mkreq(uint16_t cmd, const char *session)
{
	struct ipc_request r = { .cmd = cmd, .domain = IPC_DOMAIN_UST };

	if (session)
		snprintf(r.session, sizeof(r.session), "%s", session);
	return r;
}

/* Run a request; return its status and keep the message for asserts. */
static int run(struct fixture *fx, struct ipc_request *req, char *msg)
{
	struct ipc_reply rep;
	int status;

	sd_cmd_handle(&fx->st, req, &rep);
	status = rep.status;
	if (msg)
		memcpy(msg, rep.message, sizeof(rep.message));
	ipc_reply_release(&rep);
	ipc_request_release(req);
	return status;
}

static int run_names(struct fixture *fx, uint16_t cmd, const char *channel, const char *n1,
		     const char *n2, char *msg)
{
	struct ipc_request r = mkreq(cmd, "s");

	if (channel)
		snprintf(r.channel, sizeof(r.channel), "%s", channel);
	if (n1)
		ipc_names_append(&r.names, &r.nr_names, n1);
	if (n2)
		ipc_names_append(&r.names, &r.nr_names, n2);
	return run(fx, &r, msg);
}

/* The whole model, encoded: equal snapshots mean equal states. */
static struct ipc_buf snapshot(struct fixture *fx)
{
	struct ipc_request r = mkreq(IPC_CMD_LIST_SESSIONS, NULL);
	struct ipc_reply rep;
	struct ipc_buf b;

	sd_cmd_handle(&fx->st, &r, &rep);
	assert_int_equal(rep.status, 0);
	assert_int_equal(ipc_reply_encode(&rep, &b), 0);
	ipc_reply_release(&rep);
	return b;
}

static void assert_same(struct ipc_buf *a, struct ipc_buf *b)
{
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->data, b->data, a->len);
	ipc_buf_release(a);
	ipc_buf_release(b);
}

static void create_s(struct fixture *fx)
{
	struct ipc_request r = mkreq(IPC_CMD_CREATE, "s");

	assert_int_equal(run(fx, &r, NULL), 0);
}

static void test_create(void **state)
{
	struct fixture *fx = *state;
	struct ipc_request r = mkreq(IPC_CMD_CREATE, "demo");
	struct ipc_reply rep;
	struct ipc_buf before, after;
	char msg[IPC_MSG_MAX];

	sd_cmd_handle(&fx->st, &r, &rep);
	assert_int_equal(rep.status, 0);
	assert_string_equal(rep.session, "demo");
	/* ~/strata-traces/demo-YYYYmmdd-HHMMSS */
	assert_int_equal(strncmp(rep.output, "/home/u/strata-traces/demo-", 27), 0);
	assert_int_equal(strlen(rep.output), 27 + 15);
	ipc_reply_release(&rep);

	before = snapshot(fx);
	r = mkreq(IPC_CMD_CREATE, "demo");
	assert_int_equal(run(fx, &r, msg), -EEXIST);
	assert_non_null(strstr(msg, "'demo' already exists"));
	r = mkreq(IPC_CMD_CREATE, "a/b");
	assert_int_equal(run(fx, &r, msg), -EINVAL);
	assert_non_null(strstr(msg, "Invalid session name 'a/b'"));
	r = mkreq(IPC_CMD_CREATE, ".hidden");
	assert_int_equal(run(fx, &r, NULL), -EINVAL);
	r = mkreq(IPC_CMD_CREATE, "x");
	memcpy(r.output, "relative", 9);
	assert_int_equal(run(fx, &r, msg), -EINVAL);
	assert_non_null(strstr(msg, "not an absolute path"));
	after = snapshot(fx);
	assert_same(&before, &after);

	/* Auto-named sessions, two in the same second stay distinct. */
	r = mkreq(IPC_CMD_CREATE, NULL);
	sd_cmd_handle(&fx->st, &r, &rep);
	assert_int_equal(rep.status, 0);
	assert_int_equal(strncmp(rep.session, "auto-", 5), 0);
	assert_string_equal(rep.output + strlen("/home/u/strata-traces/"), rep.session);
	ipc_reply_release(&rep);
	r = mkreq(IPC_CMD_CREATE, NULL);
	assert_int_equal(run(fx, &r, NULL), 0);
	assert_int_equal(fx->st.nr_sessions, 3);

	r = mkreq(IPC_CMD_CREATE, "out");
	memcpy(r.output, "/tmp/o", 7);
	sd_cmd_handle(&fx->st, &r, &rep);
	assert_string_equal(rep.output, "/tmp/o");
	ipc_reply_release(&rep);
}

static void test_enable_channel(void **state)
{
	struct fixture *fx = *state;
	struct ipc_request r;
	struct ipc_buf before, after;
	struct sd_channel *c;
	char msg[IPC_MSG_MAX];

	create_s(fx);
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	memcpy(r.channel, "ch", 3);
	r.chan_set = IPC_CHAN_SUBBUF_SIZE | IPC_CHAN_NUM_SUBBUF | IPC_CHAN_OVERWRITE;
	r.subbuf_size = 5000;
	r.num_subbuf = 3;
	r.overwrite = true;
	assert_int_equal(run(fx, &r, msg), 0);
	assert_non_null(strstr(msg, "rounded to the next power of 2 (8192)"));
	assert_non_null(strstr(msg, "number of subbuffers (3) is rounded"));
	c = sd_channel_find(&sd_session_find(&fx->st, "s")->ust, "ch");
	assert_non_null(c);
	assert_true(c->subbuf_size == 8192 && c->num_subbuf == 4 && c->overwrite);
	assert_int_equal(c->buffers, IPC_BUFFERS_UID);

	before = snapshot(fx);
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	memcpy(r.channel, "ch", 3);
	assert_int_equal(run(fx, &r, msg), -EEXIST);
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	memcpy(r.channel, "c2", 3);
	r.chan_set = IPC_CHAN_SUBBUF_SIZE;
	r.subbuf_size = 100;
	assert_int_equal(run(fx, &r, msg), -EINVAL);
	assert_non_null(strstr(msg, "Invalid sub-buffer size 100"));
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	memcpy(r.channel, "c2", 3);
	r.chan_set = IPC_CHAN_NUM_SUBBUF;
	r.num_subbuf = 1;
	assert_int_equal(run(fx, &r, NULL), -EINVAL);
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	memcpy(r.channel, "c2", 3);
	r.chan_set = IPC_CHAN_BUFFERS;
	r.buffers = IPC_BUFFERS_PID;
	assert_int_equal(run(fx, &r, msg), -EINVAL);
	assert_non_null(strstr(msg, "buffering scheme mismatch"));
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	memcpy(r.channel, "metadata", 9);
	assert_int_equal(run(fx, &r, NULL), -EINVAL);
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "nosuch");
	memcpy(r.channel, "c2", 3);
	assert_int_equal(run(fx, &r, msg), -ENOENT);
	assert_non_null(strstr(msg, "Session 'nosuch' not found"));
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	r.domain = IPC_DOMAIN_NONE;
	memcpy(r.channel, "c2", 3);
	assert_int_equal(run(fx, &r, NULL), -EINVAL);
	/* No kernel hook: the kernel domain is refused, clearly. */
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	r.domain = IPC_DOMAIN_KERNEL;
	memcpy(r.channel, "k", 2);
	assert_int_equal(run(fx, &r, msg), -ENOTSUP);
	assert_non_null(strstr(msg, "kernel domain is not available"));
	after = snapshot(fx);
	assert_same(&before, &after);
	/* Kernel channels can overwrite: the consumer keeps the newest packets. */
	fx->st.hooks.kernel_check = kernel_ok_hook;
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	r.domain = IPC_DOMAIN_KERNEL;
	r.chan_set = IPC_CHAN_OVERWRITE;
	r.overwrite = true;
	memcpy(r.channel, "k", 2);
	assert_int_equal(run(fx, &r, NULL), 0);
	c = sd_channel_find(&sd_session_find(&fx->st, "s")->kernel, "k");
	assert_non_null(c);
	assert_true(c->overwrite);
	fx->st.hooks.kernel_check = NULL;
}

static void test_enable_event(void **state)
{
	struct fixture *fx = *state;
	struct ipc_buf before, after;
	struct ipc_request r;
	struct sd_channel *c;
	struct ipc_reply rep;
	char msg[IPC_MSG_MAX];

	create_s(fx);
	/* No channel yet: channel0 is created with defaults. */
	r = mkreq(IPC_CMD_ENABLE_EVENT, "s");
	ipc_names_append(&r.names, &r.nr_names, "hello:*");
	sd_cmd_handle(&fx->st, &r, &rep);
	assert_int_equal(rep.status, 0);
	assert_string_equal(rep.channel, "channel0");
	assert_int_equal(rep.nr_names, 1);
	ipc_reply_release(&rep);
	ipc_request_release(&r);
	c = sd_channel_find(&sd_session_find(&fx->st, "s")->ust, "channel0");
	assert_non_null(c);
	assert_true(c->subbuf_size == SD_UST_SUBBUF_SIZE && c->num_subbuf == 4);
	assert_int_equal(c->nr_events, 1);

	before = snapshot(fx);
	/* Already enabled: a warning, nothing changes. */
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, NULL, "hello:*", NULL, msg),
			 -EALREADY);
	assert_non_null(strstr(msg, "already enabled"));
	/* One bad name: none of the names is added. */
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, NULL, "ok:ev", "bad name", msg),
			 -EINVAL);
	assert_non_null(strstr(msg, "Invalid event name 'bad name'"));
	r = mkreq(IPC_CMD_ENABLE_EVENT, "s");
	r.all = true;
	ipc_names_append(&r.names, &r.nr_names, "x");
	assert_int_equal(run(fx, &r, NULL), -EINVAL);
	r = mkreq(IPC_CMD_ENABLE_EVENT, "s");
	assert_int_equal(run(fx, &r, msg), -EINVAL);
	assert_non_null(strstr(msg, "No event name given"));
	r = mkreq(IPC_CMD_ENABLE_EVENT, "s");
	r.all = true;
	r.event_type = IPC_EVENT_SYSCALL;
	assert_int_equal(run(fx, &r, msg), -EINVAL);
	assert_non_null(strstr(msg, "--syscall is only available with -k"));
	r = mkreq(IPC_CMD_ENABLE_EVENT, "s");
	r.all = true;
	r.loglevel_type = IPC_LOGLEVEL_RANGE;
	r.loglevel = 15;
	assert_int_equal(run(fx, &r, NULL), -EINVAL);
	/* A missing named channel is created, but not while refused. */
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, "new", "a", "b c", NULL), -EINVAL);
	after = snapshot(fx);
	assert_same(&before, &after);

	/* Same name with another log level is another rule. */
	r = mkreq(IPC_CMD_ENABLE_EVENT, "s");
	ipc_names_append(&r.names, &r.nr_names, "hello:*");
	r.loglevel_type = IPC_LOGLEVEL_SINGLE;
	r.loglevel = 13;
	assert_int_equal(run(fx, &r, NULL), 0);
	assert_int_equal(c->nr_events, 2);
	assert_int_equal(c->events[1].loglevel, 13);

	/* A second channel makes the default one ambiguous unless it exists. */
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, "other", "x:y", NULL, NULL), 0);
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, NULL, "z:z", NULL, NULL), 0);
	assert_int_equal(c->nr_events, 3);
}

static void test_default_channel_ambiguous(void **state)
{
	struct fixture *fx = *state;
	struct ipc_buf before, after;
	char msg[IPC_MSG_MAX];
	struct ipc_request r;

	create_s(fx);
	r = mkreq(IPC_CMD_ENABLE_CHANNEL, "s");
	memcpy(r.channel, "mine", 5);
	assert_int_equal(run(fx, &r, NULL), 0);
	before = snapshot(fx);
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, NULL, "a:b", NULL, msg), -EINVAL);
	assert_non_null(strstr(msg, "Non-default channel exists"));
	after = snapshot(fx);
	assert_same(&before, &after);
}

static void test_disable_event(void **state)
{
	struct fixture *fx = *state;
	struct ipc_buf before, after;
	char msg[IPC_MSG_MAX];
	struct sd_channel *c;
	struct ipc_request r;

	create_s(fx);
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, NULL, "a:*", "b:c", NULL), 0);
	before = snapshot(fx);
	assert_int_equal(run_names(fx, IPC_CMD_DISABLE_EVENT, NULL, "a:*", "nope", msg), -ENOENT);
	assert_non_null(strstr(msg, "Event 'nope' not found in channel 'channel0'"));
	assert_int_equal(run_names(fx, IPC_CMD_DISABLE_EVENT, "zz", "a:*", NULL, msg), -ENOENT);
	assert_non_null(strstr(msg, "Channel 'zz' not found"));
	after = snapshot(fx);
	assert_same(&before, &after);

	c = sd_channel_find(&sd_session_find(&fx->st, "s")->ust, "channel0");
	assert_int_equal(run_names(fx, IPC_CMD_DISABLE_EVENT, NULL, "a:*", NULL, NULL), 0);
	assert_false(c->events[0].enabled);
	assert_true(c->events[1].enabled);
	/* Enabling it again re-enables the same rule. */
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, NULL, "a:*", NULL, NULL), 0);
	assert_int_equal(c->nr_events, 2);
	assert_true(c->events[0].enabled);
	r = mkreq(IPC_CMD_DISABLE_EVENT, "s");
	r.all = true;
	assert_int_equal(run(fx, &r, NULL), 0);
	assert_false(c->events[0].enabled || c->events[1].enabled);
}

static void test_add_context(void **state)
{
	struct fixture *fx = *state;
	struct ipc_buf before, after;
	char msg[IPC_MSG_MAX];
	struct sd_channel *c;
	struct ipc_request r;

	create_s(fx);
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "vpid", "procname", NULL), 0);
	c = sd_channel_find(&sd_session_find(&fx->st, "s")->ust, "channel0");
	assert_non_null(c);
	assert_int_equal(c->nr_contexts, 2);

	before = snapshot(fx);
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "vtid", "bogus", msg), -EINVAL);
	assert_non_null(strstr(msg, "Unknown context type 'bogus'"));
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "vtid", "vpid", msg), -EEXIST);
	assert_non_null(strstr(msg, "'vpid' is already in channel 'channel0'"));
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "vtid", "vtid", NULL), -EINVAL);
	/* Kernel-only types are refused in user space. */
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "ppid", NULL, NULL), -EINVAL);
	after = snapshot(fx);
	assert_same(&before, &after);

	r = mkreq(IPC_CMD_START, "s");
	assert_int_equal(run(fx, &r, NULL), 0);
	r = mkreq(IPC_CMD_STOP, "s");
	assert_int_equal(run(fx, &r, NULL), 0);
	before = snapshot(fx);
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "vtid", NULL, msg), -EBUSY);
	assert_non_null(strstr(msg, "contexts are fixed once a session has been started"));
	after = snapshot(fx);
	assert_same(&before, &after);

	assert_true(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:page-faults"));
	assert_false(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:nonsense"));
	assert_false(sd_context_valid(IPC_DOMAIN_UST, "perf:cpu:page-faults"));
	assert_true(sd_context_valid(IPC_DOMAIN_UST, "pthread_id"));
}

/* LTTng's context names (lib/common/context-names.c) and the checks on them. */
static void test_context_names(void **state)
{
	struct fixture *fx = *state;
	struct ipc_buf before, after;
	char msg[IPC_MSG_MAX];
	struct ctx_perf p;
	char field[64];

	assert_true(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:page-fault"));
	assert_true(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:faults"));
	assert_true(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:LLC-load-misses"));
	assert_true(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:raw:r0013:bus"));
	assert_false(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:raw:r0013:bus"));
	assert_false(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:raw:0013:bus"));
	assert_false(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:raw:r0013"));
	assert_false(sd_context_valid(IPC_DOMAIN_KERNEL, "perf:cpu:raw:rxyz:bus"));
	assert_int_equal(sd_context_check(IPC_DOMAIN_KERNEL, "perf:thread:cycles", msg), -EINVAL);
	assert_non_null(strstr(msg, "per-thread user-space counter"));
	assert_int_equal(sd_context_check(IPC_DOMAIN_UST, "perf:cpu:cycles", msg), -EINVAL);
	assert_non_null(strstr(msg, "perf:thread:cycles"));
	/*
	 * Known user-space counters are tried for this thread: a software one
	 * opens everywhere, a hardware one only with a PMU (and the refusal
	 * names it); unknown ones are refused as unknown.
	 */
	assert_int_equal(sd_context_check(IPC_DOMAIN_UST, "perf:thread:page-fault", msg), 0);
	if (sd_context_check(IPC_DOMAIN_UST, "perf:thread:LLC-loads", msg) < 0)
		assert_non_null(strstr(msg, "perf:thread:LLC-loads"));
	assert_int_equal(sd_context_check(IPC_DOMAIN_UST, "perf:thread:bogus", msg), -EINVAL);
	assert_non_null(strstr(msg, "unknown perf counter 'bogus'"));

	/* perf's types and configs, as lttng-tools sets them. */
	assert_int_equal(ctx_perf_parse("perf:cpu:LLC-load-misses", &p, msg, sizeof(msg)), 1);
	assert_int_equal(p.type, 3); /* PERF_TYPE_HW_CACHE */
	assert_int_equal(p.config, 2 | (0 << 8) | (1 << 16));
	assert_int_equal(ctx_perf_parse("perf:thread:idle-cycles-backend", &p, msg, sizeof(msg)),
			 1);
	assert_int_equal(p.type, 0);
	assert_int_equal(p.config, 8); /* PERF_COUNT_HW_STALLED_CYCLES_BACKEND */
	assert_int_equal(ctx_perf_parse("perf:cpu:raw:r1a2:x", &p, msg, sizeof(msg)), 1);
	assert_int_equal(p.type, 4);
	assert_int_equal(p.config, 0x1a2);
	assert_int_equal(ctx_perf_parse("pid", &p, msg, sizeof(msg)), 0);
	ctx_field_name("perf:cpu:page-fault", field, sizeof(field));
	assert_string_equal(field, "perf_cpu_page_fault");
	ctx_field_name("perf:LLC-load-misses", field, sizeof(field));
	assert_string_equal(field, "perf_LLC_load_misses");

	/* A refused context (one of several in the request) changes nothing. */
	create_s(fx);
	before = snapshot(fx);
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "vtid", "perf:thread:bogus", msg),
			 -EINVAL);
	after = snapshot(fx);
	assert_same(&before, &after);
}

static int probe_req(struct fixture *fx, uint8_t domain, uint8_t type, const char *loc,
		     const char *n1, const char *n2, char *msg)
{
	struct ipc_request r = mkreq(IPC_CMD_ENABLE_EVENT, "s");

	r.domain = domain;
	r.event_type = type;
	snprintf(r.probe, sizeof(r.probe), "%s", loc);
	if (n1)
		ipc_names_append(&r.names, &r.nr_names, n1);
	if (n2)
		ipc_names_append(&r.names, &r.nr_names, n2);
	return run(fx, &r, msg);
}

/* Probe rules: one record name, a location, one rule per name in a channel. */
static void test_probe_rules(void **state)
{
	struct fixture *fx = *state;
	struct ipc_buf before, after;
	char msg[IPC_MSG_MAX];
	struct sd_channel *c;

	fx->st.hooks.kernel_check = kernel_ok_hook;
	create_s(fx);
	before = snapshot(fx);
	assert_int_equal(probe_req(fx, IPC_DOMAIN_UST, IPC_EVENT_USERSPACE_FUNCTION,
				   "elf:/bin/true:main", "f", NULL, msg),
			 -EINVAL);
	assert_non_null(strstr(msg, "only available with -k"));
	assert_int_equal(
		probe_req(fx, IPC_DOMAIN_KERNEL, IPC_EVENT_FUNCTION, "do_sys_open", "a", "b", msg),
		-EINVAL);
	assert_non_null(strstr(msg, "--function needs exactly one event name"));
	assert_int_equal(probe_req(fx, IPC_DOMAIN_KERNEL, IPC_EVENT_PROBE, "", "a", NULL, msg),
			 -EINVAL);
	assert_non_null(strstr(msg, "--probe needs a location"));
	assert_int_equal(probe_req(fx, IPC_DOMAIN_KERNEL, IPC_EVENT_USERSPACE_PROBE,
				   "elf:/bin/true:main", "f*", NULL, msg),
			 -EINVAL);
	assert_int_equal(probe_req(fx, IPC_DOMAIN_KERNEL, 7, "x", "f", NULL, msg), -EINVAL);
	after = snapshot(fx);
	assert_same(&before, &after);

	assert_int_equal(probe_req(fx, IPC_DOMAIN_KERNEL, IPC_EVENT_USERSPACE_FUNCTION,
				   "elf:/bin/true:main", "f", NULL, msg),
			 0);
	c = sd_channel_find(&sd_session_find(&fx->st, "s")->kernel, "channel0");
	assert_non_null(c);
	assert_int_equal(c->nr_events, 1);
	assert_string_equal(c->events[0].probe, "elf:/bin/true:main");
	/* The same rule again: a warning; the name elsewhere: refused, unchanged. */
	assert_int_equal(probe_req(fx, IPC_DOMAIN_KERNEL, IPC_EVENT_USERSPACE_FUNCTION,
				   "elf:/bin/true:main", "f", NULL, msg),
			 -EALREADY);
	before = snapshot(fx);
	assert_int_equal(probe_req(fx, IPC_DOMAIN_KERNEL, IPC_EVENT_USERSPACE_PROBE,
				   "elf:/bin/true:main", "f", NULL, msg),
			 -EEXIST);
	assert_non_null(strstr(msg, "Probe event 'f' already exists"));
	after = snapshot(fx);
	assert_same(&before, &after);
}

static void test_start_stop_destroy(void **state)
{
	struct fixture *fx = *state;
	struct ipc_buf before, after;
	char msg[IPC_MSG_MAX];
	struct ipc_request r;
	struct ipc_reply rep;

	create_s(fx);
	r = mkreq(IPC_CMD_STOP, "s");
	assert_int_equal(run(fx, &r, msg), -EALREADY);
	assert_string_equal(msg, "Tracing already stopped for session s");

	/* A failing start hook leaves the session inactive and unstarted. */
	fx->start_error = -EIO;
	before = snapshot(fx);
	r = mkreq(IPC_CMD_START, "s");
	assert_int_equal(run(fx, &r, msg), -EIO);
	assert_string_equal(msg, "start refused");
	after = snapshot(fx);
	assert_same(&before, &after);
	assert_false(sd_session_find(&fx->st, "s")->started_once);
	fx->start_error = 0;

	r = mkreq(IPC_CMD_START, "s");
	assert_int_equal(run(fx, &r, NULL), 0);
	assert_int_equal(fx->starts, 1);
	r = mkreq(IPC_CMD_START, "s");
	assert_int_equal(run(fx, &r, msg), -EALREADY);
	assert_string_equal(msg, "Tracing already started for session s");
	r = mkreq(IPC_CMD_START, NULL);
	assert_int_equal(run(fx, &r, msg), -ENOENT);
	assert_non_null(strstr(msg, "strata create"));

	/* Destroying an active session stops it first. */
	r = mkreq(IPC_CMD_CREATE, "t");
	assert_int_equal(run(fx, &r, NULL), 0);
	r = mkreq(IPC_CMD_DESTROY, "s");
	sd_cmd_handle(&fx->st, &r, &rep);
	assert_int_equal(rep.status, 0);
	assert_int_equal(rep.nr_names, 1);
	assert_string_equal(rep.names[0], "s");
	ipc_reply_release(&rep);
	assert_int_equal(fx->stops, 1);
	assert_int_equal(fx->destroys, 1);
	assert_null(sd_session_find(&fx->st, "s"));
	r = mkreq(IPC_CMD_DESTROY, "s");
	assert_int_equal(run(fx, &r, NULL), -ENOENT);
	r = mkreq(IPC_CMD_DESTROY, NULL);
	r.all = true;
	assert_int_equal(run(fx, &r, NULL), 0);
	assert_int_equal(fx->st.nr_sessions, 0);
	assert_int_equal(fx->destroys, 2);
}

static void test_list(void **state)
{
	struct fixture *fx = *state;
	struct ipc_request r;
	struct ipc_reply rep;

	create_s(fx);
	assert_int_equal(run_names(fx, IPC_CMD_ENABLE_EVENT, NULL, "a:*", NULL, NULL), 0);
	assert_int_equal(run_names(fx, IPC_CMD_ADD_CONTEXT, NULL, "vtid", NULL, NULL), 0);
	r = mkreq(IPC_CMD_LIST_SESSIONS, "s");
	sd_cmd_handle(&fx->st, &r, &rep);
	assert_int_equal(rep.status, 0);
	assert_int_equal(rep.nr_sessions, 1);
	assert_int_equal(rep.sessions[0].nr_channels, 1);
	assert_string_equal(rep.sessions[0].channels[0].events[0].name, "a:*");
	assert_string_equal(rep.sessions[0].channels[0].contexts[0], "vtid");
	ipc_reply_release(&rep);
	r = mkreq(IPC_CMD_LIST_SESSIONS, "none");
	assert_int_equal(run(fx, &r, NULL), -ENOENT);
	/* No tracepoint source wired: an empty list. */
	r = mkreq(IPC_CMD_LIST_TRACEPOINTS, NULL);
	assert_int_equal(run(fx, &r, NULL), 0);
}

static void test_name_match(void **state)
{
	(void)state;
	assert_true(sd_name_match("*", "hello:tptest"));
	assert_true(sd_name_match("hello:*", "hello:tptest"));
	assert_true(sd_name_match("*:tp*", "hello:tptest"));
	assert_true(sd_name_match("h*o:*t", "hello:tptest"));
	assert_true(sd_name_match("hello:tptest", "hello:tptest"));
	assert_false(sd_name_match("hello:", "hello:tptest"));
	assert_false(sd_name_match("world:*", "hello:tptest"));
	assert_false(sd_name_match("*x", "hello:tptest"));
	assert_true(sd_name_match("**", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enable_channel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enable_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_channel_ambiguous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disable_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_context, setup, teardown),
		cmocka_unit_test_setup_teardown(test_context_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_stop_destroy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test(test_name_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
