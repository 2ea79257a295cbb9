/* SPDX-License-Identifier: MIT */
/* The session/channel/event model: lookup, lifetime, naming rules. */
#include <stdlib.h>
#include <string.h>

#include "sessiond/state.h"
#include "common/common.h"

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

static const char *const ust_contexts[] = { "vpid", "vtid", "procname", "pthread_id", "ip", NULL };
static const char *const kernel_contexts[] = { "pid",  "tid",	   "procname", "ppid",
					       "vpid", "vtid",	   "vppid",    "prio",
					       "nice", "hostname", NULL };
/* perf:cpu:<counter> (kernel); the software and hardware event names of perf. */
static const char *const perf_counters[] = { "cpu-cycles",
					     "cycles",
					     "instructions",
					     "cache-references",
					     "cache-misses",
					     "branch-instructions",
					     "branches",
					     "branch-misses",
					     "bus-cycles",
					     "stalled-cycles-frontend",
					     "stalled-cycles-backend",
					     "ref-cycles",
					     "cpu-clock",
					     "task-clock",
					     "page-fault",
					     "page-faults",
					     "faults",
					     "major-faults",
					     "minor-faults",
					     "context-switches",
					     "cs",
					     "cpu-migrations",
					     "migrations",
					     "alignment-faults",
					     "emulation-faults",
					     "L1-dcache-loads",
					     "L1-dcache-load-misses",
					     "L1-dcache-stores",
					     "L1-icache-load-misses",
					     "LLC-loads",
					     "LLC-load-misses",
					     "LLC-stores",
					     "LLC-store-misses",
					     "dTLB-loads",
					     "dTLB-load-misses",
					     "iTLB-loads",
					     "iTLB-load-misses",
					     "branch-loads",
					     "branch-load-misses",
					     NULL };

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

bool sd_context_valid(uint8_t domain, const char *name)
{
	if (domain == IPC_DOMAIN_UST)
		return in_list(ust_contexts, name);
	if (domain != IPC_DOMAIN_KERNEL)
		return false;
	if (strncmp(name, "perf:cpu:", 9) == 0)
		return in_list(perf_counters, name + 9);
	return in_list(kernel_contexts, name);
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
