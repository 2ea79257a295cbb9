/* SPDX-License-Identifier: MIT */
/* The session/channel/event model: lookup, lifetime, naming rules. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sessiond/state.h"
#include "common/common.h"
#include "common/context-names.h"

void sd_state_init(struct sd_state *st, const char *home)
{
	*st = (struct sd_state){ .next_id = 1 };
	if (home && home[0] && strlen(home) < sizeof(st->home))
		memcpy(st->home, home, strlen(home) + 1);
	else
		memcpy(st->home, "/tmp", 5);
}

static void domain_release(struct sd_domain *d)
{
	for (uint32_t i = 0; i < d->nr_channels; i++)
		sd_channel_free(d->channels[i]);
	free(d->channels);
	*d = (struct sd_domain){ 0 };
}

void sd_event_release(struct sd_event *e)
{
	free(e->filter);
	free(e->bytecode);
	free(e->exclusions);
	free(e->probe);
	e->probe = NULL;
	e->filter = NULL;
	e->bytecode = NULL;
	e->exclusions = NULL;
	e->nr_exclusions = 0;
}

void sd_channel_free(struct sd_channel *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nr_events; i++)
		sd_event_release(&c->events[i]);
	free(c->events);
	free(c->contexts);
	free(c);
}

void sd_session_free(struct sd_session *s)
{
	if (!s)
		return;
	domain_release(&s->ust);
	domain_release(&s->kernel);
	for (int d = 0; d < 2; d++)
		for (int a = 0; a < IPC_TRACKER_COUNT; a++)
			free(s->trackers[d][a].values);
	free(s);
}

void sd_state_release(struct sd_state *st)
{
	for (uint32_t i = 0; i < st->nr_sessions; i++) {
		char msg[IPC_MSG_MAX];

		/* The daemon is exiting: flush what active sessions recorded. */
		if (st->sessions[i]->active && st->hooks.session_stop)
			st->hooks.session_stop(st, st->sessions[i], msg);
		if (st->hooks.session_destroy)
			st->hooks.session_destroy(st, st->sessions[i]);
		sd_session_free(st->sessions[i]);
	}
	free(st->sessions);
	st->sessions = NULL;
	st->nr_sessions = 0;
}

struct sd_session *sd_session_find(struct sd_state *st, const char *name)
{
	for (uint32_t i = 0; i < st->nr_sessions; i++)
		if (strcmp(st->sessions[i]->name, name) == 0)
			return st->sessions[i];
	return NULL;
}

struct sd_channel *sd_channel_find(struct sd_domain *d, const char *name)
{
	for (uint32_t i = 0; i < d->nr_channels; i++)
		if (strcmp(d->channels[i]->name, name) == 0)
			return d->channels[i];
	return NULL;
}

struct sd_domain *sd_session_domain(struct sd_session *s, uint8_t domain)
{
	return domain == IPC_DOMAIN_KERNEL ? &s->kernel : &s->ust;
}

bool sd_name_match(const char *pattern, const char *name)
{
	/* Iterative glob with backtracking to the last '*': linear enough for
	 * event names, and no recursion depth controlled by the user. */
	const char *star = NULL, *resume = NULL;

	while (*name) {
		if (*pattern == '*') {
			star = pattern++;
			resume = name;
		} else if (*pattern == *name) {
			pattern++;
			name++;
		} else if (star) {
			pattern = star + 1;
			name = ++resume;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

/*
 * The context types of a domain (lib/common/context-names.c has the list):
 * 0, or -EINVAL / -ENOTSUP with a message in msg (IPC_MSG_MAX).
 */
int sd_context_check(uint8_t domain, const char *name, char *msg)
{
	char why[IPC_MSG_MAX / 2];
	struct ctx_perf p;
	int r = ctx_perf_parse(name, &p, why, sizeof(why));

	if (r < 0) {
		snprintf(msg, IPC_MSG_MAX, "Invalid context type '%s': %s", name, why);
		return -EINVAL;
	}
	if (r == 0) {
		if (ctx_plain_valid(domain, name))
			return 0;
		snprintf(msg, IPC_MSG_MAX,
			 "Unknown context type '%s' in the %s domain: run `strata add-context "
			 "--list` for the list",
			 name, domain == IPC_DOMAIN_KERNEL ? "kernel" : "user space");
		return -EINVAL;
	}
	if (domain == IPC_DOMAIN_KERNEL && p.scope != CTX_PERF_THREAD)
		return 0;
	if (domain == IPC_DOMAIN_KERNEL) {
		snprintf(msg, IPC_MSG_MAX,
			 "Context type '%s' is a per-thread user-space counter: kernel events take "
			 "per-CPU counters, perf:cpu:%s",
			 name, p.counter);
		return -EINVAL;
	}
	if (p.scope != CTX_PERF_THREAD) {
		snprintf(msg, IPC_MSG_MAX,
			 "Context type '%s' is a per-CPU kernel counter: user-space events take "
			 "per-thread counters, perf:thread:%s",
			 name, p.counter);
		return -EINVAL;
	}
	/*
	 * Apps open it for each of their threads: try it here, for this thread,
	 * so that a counter this machine lacks (no PMU) fails at add-context.
	 */
	{
		struct perf_event_attr attr = {
			.size = sizeof(attr), .type = p.type, .config = p.config, .exclude_hv = 1
		};
		int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			attr.exclude_kernel = 1; /* what perf_event_paranoid leaves users */
			fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
					  PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			int err = errno;

			snprintf(msg, IPC_MSG_MAX,
				 "Failed to open the counter of context '%s': %s (this machine "
				 "has %s)",
				 name, strerror(err),
				 err == ENOENT || err == EOPNOTSUPP ? "no such counter" :
								      "no access to it");
			return -err;
		}
		close(fd);
	}
	return 0;
}

bool sd_context_valid(uint8_t domain, const char *name)
{
	char msg[IPC_MSG_MAX];

	return sd_context_check(domain, name, msg) == 0;
}

bool sd_session_tracks(const struct sd_session *s, uint8_t domain,
		       const int64_t attrs[IPC_TRACKER_COUNT])
{
	const struct sd_tracker *tr = s->trackers[SD_DOMAIN_INDEX(domain)];

	for (int a = 0; a < IPC_TRACKER_COUNT; a++) {
		bool in = false;

		if (tr[a].policy == IPC_TRACKER_ALL)
			continue;
		for (uint32_t i = 0; i < tr[a].nr_values && !in; i++)
			in = tr[a].values[i].id == attrs[a];
		if (!in)
			return false;
	}
	return true;
}
