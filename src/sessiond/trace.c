/* SPDX-License-Identifier: MIT */
/* The model's hooks, dispatched to the domains (see trace.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sessiond/trace.h"
#include "common/common.h"
#include "common/fs.h"
#include "filter/filter.h"

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

/*
 * Filters are compiled once, here, for apps and the kernel alike; a refused
 * expression is shown back with a caret under the error.
 */
static int hook_filter_compile(struct sd_state *st, uint8_t domain, const char *expr, void **ret_bc,
			       size_t *ret_len, char *msg)
{
	struct flt_error err = { 0 };
	char caret[768];
	int ret;

	(void)st;
	(void)domain;
	ret = flt_compile(expr, ret_bc, ret_len, &err);
	if (ret == -ENOMEM) {
		snprintf(msg, IPC_MSG_MAX, "Out of memory compiling the filter");
	} else if (ret < 0) {
		if (flt_error_caret(expr, &err, caret, sizeof(caret)) < 0)
			caret[0] = '\0';
		snprintf(msg, IPC_MSG_MAX, "Invalid filter: %s (at byte %zu)\n%s", err.msg,
			 err.offset, caret);
		/* No trailing newline: the CLI adds one. */
		if (strlen(msg) && msg[strlen(msg) - 1] == '\n')
			msg[strlen(msg) - 1] = '\0';
	}
	return ret;
}

static int hook_output_check(struct sd_state *st, struct sd_session *s, char *msg)
{
	(void)st;
	return sd_output_prepare(s, msg);
}

static int hook_kernel_check_context(struct sd_state *st, const char *ctx, char *msg)
{
	return sdk_check_context(daemon_of(st), ctx, msg);
}

static int hook_kernel_check_probe(struct sd_state *st, uint8_t type, const char *location,
				   char *msg)
{
	return sdk_check_probe(daemon_of(st), type, location, msg);
}

static int hook_session_start(struct sd_state *st, struct sd_session *s, char *msg)
{
	/* The directory may have gone, or its permissions changed, since create. */
	int ret = sd_output_prepare(s, msg);

	if (ret < 0)
		return ret;
	ret = sdk_session_start(daemon_of(st), s, msg);

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

static void hook_channel_changed(struct sd_state *st, struct sd_session *s, struct sd_channel *c)
{
	if (c->domain == IPC_DOMAIN_UST)
		sdu_channel_changed(daemon_of(st), s, c);
	else
		sdk_channel_changed(daemon_of(st), s, c);
}

static void hook_tracker_changed(struct sd_state *st, struct sd_session *s, uint8_t domain,
				 uint8_t attr)
{
	if (domain == IPC_DOMAIN_UST)
		sdu_tracker_changed(daemon_of(st), s);
	else
		sdk_tracker_changed(daemon_of(st), s, attr);
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
	h->filter_compile = hook_filter_compile;
	h->output_check = hook_output_check;
	h->kernel_check_event = hook_kernel_check_event;
	h->kernel_check_context = hook_kernel_check_context;
	h->kernel_check_probe = hook_kernel_check_probe;
	h->session_start = hook_session_start;
	h->session_stop = hook_session_stop;
	h->session_destroy = hook_session_destroy;
	h->event_changed = hook_event_changed;
	h->list_tracepoints = hook_list;
	h->app_ready = hook_app_ready;
	h->channel_changed = hook_channel_changed;
	h->tracker_changed = hook_tracker_changed;
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

int sd_fscred_enter(struct sd_fscred *c, const struct sd_session *s)
{
	gid_t groups[NGROUPS_MAX];
	int n = (int)ARRAY_SIZE(groups);
	struct passwd pw, *pwp = NULL;
	char buf[4096];

	*c = (struct sd_fscred){ 0 };
	if (s->uid == 0 || s->uid == geteuid() || geteuid() != 0)
		return 0;
	if (getpwuid_r(s->uid, &pw, buf, sizeof(buf), &pwp) != 0 || !pwp ||
	    getgrouplist(pwp->pw_name, s->gid, groups, &n) < 0)
		n = 1, groups[0] = s->gid;
	if (syscall(SYS_setgroups, (size_t)n, groups) < 0)
		return -errno;
	syscall(SYS_setfsgid, s->gid);
	syscall(SYS_setfsuid, s->uid);
	/* setfsuid() reports no error: read the ids back. */
	if ((uid_t)syscall(SYS_setfsuid, (uid_t)-1) != s->uid ||
	    (gid_t)syscall(SYS_setfsgid, (gid_t)-1) != s->gid) {
		c->active = true;
		sd_fscred_leave(c);
		return -EPERM;
	}
	c->active = true;
	c->uid = s->uid;
	c->gid = s->gid;
	return 0;
}

void sd_fscred_leave(struct sd_fscred *c)
{
	gid_t root = 0;

	if (!c->active)
		return;
	syscall(SYS_setfsuid, geteuid());
	syscall(SYS_setfsgid, getegid());
	syscall(SYS_setgroups, (size_t)1, &root);
	c->active = false;
}

int sd_output_prepare(const struct sd_session *s, char *msg)
{
	struct sd_fscred cred;
	int err, fd;

	err = sd_fscred_enter(&cred, s);
	if (err < 0) {
		snprintf(msg, IPC_MSG_MAX, "Failed to act as uid %u for the output directory: %s",
			 (unsigned)s->uid, strerror(-err));
		return err;
	}
	err = fs_mkdir_p(s->output, 0750);
	if (err == 0) {
		/* Write access, tried rather than guessed (ACLs, read-only mounts). */
		fd = open(s->output, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		else if (errno == EOPNOTSUPP || errno == EISDIR)
			err = access(s->output, W_OK | X_OK) < 0 ? -errno : 0;
		else
			err = -errno;
	}
	sd_fscred_leave(&cred);
	if (err < 0)
		snprintf(msg, IPC_MSG_MAX,
			 "Failed to create or write the output directory '%.600s': %s (choose "
			 "another with -o, or fix its permissions)",
			 s->output, strerror(-err));
	return err;
}
