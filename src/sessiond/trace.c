/* SPDX-License-Identifier: MIT */
/* The model's hooks, dispatched to the domains (see trace.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int hook_kernel_check_event(struct sd_state *st, const char *name, uint8_t type, char *msg)
{
	return sdk_check_event(daemon_of(st), name, type, msg);
}

static int hook_session_start(struct sd_state *st, struct sd_session *s, char *msg)
{
	int ret = sdk_session_start(daemon_of(st), s, msg);

	if (ret < 0)
		return ret;
	ret = sdu_session_start(daemon_of(st), s, msg);
	if (ret < 0) {
		char unused[IPC_MSG_MAX];

		sdk_session_stop(daemon_of(st), s, unused);
	}
	return ret;
}

static int hook_session_stop(struct sd_state *st, struct sd_session *s, char *msg)
{
	int ret = sdu_session_stop(daemon_of(st), s, msg);
	int kret = sdk_session_stop(daemon_of(st), s, ret < 0 ? (char[IPC_MSG_MAX]){ 0 } : msg);

	return ret < 0 ? ret : kret;
}

static void hook_session_destroy(struct sd_state *st, struct sd_session *s)
{
	sdu_session_destroy(daemon_of(st), s);
	sdk_session_destroy(daemon_of(st), s);
}

static void hook_session_stats(struct sd_state *st, struct sd_session *s)
{
	sdu_session_stats(daemon_of(st), s);
}

static void hook_app_ready(struct sd_state *st, struct sd_app *a)
{
	sdu_app_ready(daemon_of(st), a);
}

static int hook_event_register(struct sd_state *st, struct sd_app *a, const void *msg, size_t len,
			       uint32_t *ret_id)
{
	return sdu_event_register(daemon_of(st), a, msg, len, ret_id);
}

static void hook_event_changed(struct sd_state *st, struct sd_session *s, struct sd_channel *c,
			       struct sd_event *e)
{
	if (c->domain == IPC_DOMAIN_KERNEL)
		sdk_event_changed(daemon_of(st), s, c, e);
	else
		sdu_event_changed(daemon_of(st), s, c, e);
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
	h->kernel_check_event = hook_kernel_check_event;
	h->session_start = hook_session_start;
	h->session_stop = hook_session_stop;
	h->session_destroy = hook_session_destroy;
	h->event_changed = hook_event_changed;
	h->list_tracepoints = hook_list;
	h->app_ready = hook_app_ready;
	h->session_stats = hook_session_stats;
	h->event_register = hook_event_register;
	return 0;
}

void sd_trace_release(struct sd_daemon *d)
{
	sdu_release(d);
	sdk_release(d);
}

bool sd_setting_number(const char *s, uint64_t lo, uint64_t hi, uint64_t *ret)
{
	unsigned long long n;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return false;
	*ret = n;
	return true;
}

int sd_mkdir_p(const char *path)
{
	char buf[IPC_PATH_MAX + 256];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0750) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0750) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}
