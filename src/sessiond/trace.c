/* SPDX-License-Identifier: MIT */
/* The model's hooks, dispatched to the domains (see trace.h). */
#include <errno.h>
#include <string.h>

#include "sessiond/trace.h"
#include "common/common.h"

static struct sd_daemon *daemon_of(struct sd_state *st)
{
	return st->priv;
}

static int hook_kernel_check(struct sd_state *st, char *msg)
{
	return sdk_check(daemon_of(st), msg);
}

static int hook_session_start(struct sd_state *st, struct sd_session *s, char *msg)
{
	return sdk_session_start(daemon_of(st), s, msg);
}

static int hook_session_stop(struct sd_state *st, struct sd_session *s, char *msg)
{
	return sdk_session_stop(daemon_of(st), s, msg);
}

static void hook_session_destroy(struct sd_state *st, struct sd_session *s)
{
	sdk_session_destroy(daemon_of(st), s);
}

static void hook_event_changed(struct sd_state *st, struct sd_session *s, struct sd_channel *c,
			       struct sd_event *e)
{
	if (c->domain == IPC_DOMAIN_KERNEL)
		sdk_event_changed(daemon_of(st), s, c, e);
}

static int hook_list(struct sd_state *st, uint8_t domain, struct ipc_reply *rep)
{
	if (domain == IPC_DOMAIN_UST)
		return sd_app_list_tracepoints(daemon_of(st), rep);
	return sdk_list(daemon_of(st), rep);
}

int sd_trace_init(struct sd_daemon *d)
{
	struct sd_hooks *h = &d->state.hooks;

	h->kernel_check = hook_kernel_check;
	h->session_start = hook_session_start;
	h->session_stop = hook_session_stop;
	h->session_destroy = hook_session_destroy;
	h->event_changed = hook_event_changed;
	h->list_tracepoints = hook_list;
	return 0;
}

void sd_trace_release(struct sd_daemon *d)
{
	sdk_release(d);
}
