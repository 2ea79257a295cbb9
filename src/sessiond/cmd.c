/* SPDX-License-Identifier: MIT */
/*
 * Control commands: each handler validates the whole request against the
 * model, then applies it. Nothing below a "validated" comment may fail
 * except through allocations made before it, so a failed command leaves the
 * model untouched. Messages follow lttng's and say what to do next.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strata/ust-abi.h>

#include "sessiond/state.h"
#include "common/common.h"
#include "common/context-names.h"

static void _printf_(3, 4) reply_error(struct ipc_reply *rep, int status, const char *fmt, ...)
{
	va_list ap;

	rep->status = status;
	va_start(ap, fmt);
	vsnprintf(rep->message, sizeof(rep->message), fmt, ap);
	va_end(ap);
}

static void _printf_(2, 3) reply_warn(struct ipc_reply *rep, const char *fmt, ...)
{
	size_t used = strlen(rep->message);
	va_list ap;

	if (used && used + 1 < sizeof(rep->message))
		rep->message[used++] = '\n';
	va_start(ap, fmt);
	vsnprintf(rep->message + used, sizeof(rep->message) - used, fmt, ap);
	va_end(ap);
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A session or channel name becomes a file or directory name. */
static bool valid_object_name(const char *name)
{
	if (!name[0] || name[0] == '.' || strlen(name) >= IPC_NAME_MAX)
		return false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == '/' || *p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static bool valid_event_name(const char *name)
{
	if (!name[0] || strlen(name) >= IPC_NAME_MAX)
		return false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p <= 0x20 || *p == 0x7f || *p == ',')
			return false;
	return true;
}

static const char *domain_label(uint8_t domain)
{
	return domain == IPC_DOMAIN_KERNEL ? "kernel" : "user space";
}

/* Root and the daemon's user see every session; a tracing group member, its own. */
static bool may_see(const struct sd_state *st, const struct sd_session *s)
{
	return st->caller.admin || s->uid == st->caller.uid;
}

static struct sd_session *need_session(struct sd_state *st, const struct ipc_request *req,
				       struct ipc_reply *rep)
{
	struct sd_session *s;

	if (!req->session[0]) {
		reply_error(rep, -ENOENT,
			    "No recording session: create one with `strata create NAME`");
		return NULL;
	}
	s = sd_session_find(st, req->session);
	if (s && !may_see(st, s))
		s = NULL; /* another user's: as if it did not exist */
	if (!s)
		reply_error(rep, -ENOENT,
			    "Session '%s' not found: run `strata list` to see the sessions",
			    req->session);
	return s;
}

static bool need_domain(const struct ipc_request *req, struct ipc_reply *rep)
{
	if (req->domain == IPC_DOMAIN_UST || req->domain == IPC_DOMAIN_KERNEL)
		return true;
	reply_error(rep, -EINVAL, "No domain given: pass -u (user space) or -k (kernel)");
	return false;
}

static bool kernel_ok(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep)
{
	int ret;

	if (req->domain != IPC_DOMAIN_KERNEL)
		return true;
	if (!st->hooks.kernel_check) {
		reply_error(rep, -ENOTSUP,
			    "The kernel domain is not available in this strata-sessiond: "
			    "use -u (user space)");
		return false;
	}
	ret = st->hooks.kernel_check(st, rep->message);
	if (ret < 0) {
		rep->status = ret;
		return false;
	}
	return true;
}

/* --- create ------------------------------------------------------------ */

static void cmd_create(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep)
{
	char name[IPC_NAME_MAX], date[32];
	struct sd_session *s, **arr;
	const char *home;
	time_t now = time(NULL);
	struct tm tm;
	int n;

	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", &tm);
	if (req->session[0]) {
		if (!valid_object_name(req->session)) {
			reply_error(rep, -EINVAL,
				    "Invalid session name '%s': use a non-empty name without '/' "
				    "that does not start with '.'",
				    req->session);
			return;
		}
		if (sd_session_find(st, req->session)) {
			reply_error(rep, -EEXIST,
				    "Session name '%s' already exists: choose another name or run "
				    "`strata destroy %s`",
				    req->session, req->session);
			return;
		}
		copy_str(name, sizeof(name), req->session);
	} else {
		/* Like lttng, auto-<date>; a suffix keeps two in one second apart. */
		snprintf(name, sizeof(name), "auto-%s", date);
		for (int i = 1; sd_session_find(st, name) && i < 1000; i++)
			snprintf(name, sizeof(name), "auto-%s-%d", date, i);
		if (sd_session_find(st, name)) {
			reply_error(rep, -EEXIST, "Too many sessions created this second: retry");
			return;
		}
	}
	if (req->output[0] && req->output[0] != '/') {
		reply_error(rep, -EINVAL, "Output directory '%s' is not an absolute path",
			    req->output);
		return;
	}
	if (st->nr_sessions >= SD_MAX_SESSIONS) {
		reply_error(rep, -ENOSPC, "Too many sessions (%u): destroy some first",
			    SD_MAX_SESSIONS);
		return;
	}
	s = calloc(1, sizeof(*s));
	arr = realloc(st->sessions, (st->nr_sessions + 1) * sizeof(*arr));
	if (!s || !arr) {
		free(s);
		if (arr)
			st->sessions = arr;
		reply_error(rep, -ENOMEM, "Out of memory");
		return;
	}
	st->sessions = arr;
	copy_str(s->name, sizeof(s->name), name);
	/* By default in the caller's home, as `lttng create` does. */
	home = st->caller.home[0] ? st->caller.home : st->home;
	if (req->output[0])
		n = snprintf(s->output, sizeof(s->output), "%s", req->output);
	else if (req->session[0])
		n = snprintf(s->output, sizeof(s->output), "%s/strata-traces/%s-%s", home, name,
			     date);
	else
		n = snprintf(s->output, sizeof(s->output), "%s/strata-traces/%s", home, name);
	if (n < 0 || (size_t)n >= sizeof(s->output)) {
		free(s);
		reply_error(rep, -ENAMETOOLONG, "Output directory path is too long");
		return;
	}
	s->uid = st->caller.uid;
	s->gid = st->caller.gid;
	if (st->hooks.output_check) {
		int ret = st->hooks.output_check(st, s, rep->message);

		if (ret < 0) {
			free(s);
			rep->status = ret;
			return;
		}
	}
	/* validated */
	s->snapshot = req->snapshot;
	s->id = st->next_id++;
	st->sessions[st->nr_sessions++] = s;
	copy_str(rep->session, sizeof(rep->session), s->name);
	copy_str(rep->output, sizeof(rep->output), s->output);
}

/* --- destroy ----------------------------------------------------------- */

static void session_remove(struct sd_state *st, struct sd_session *s)
{
	char msg[IPC_MSG_MAX];

	if (s->active && st->hooks.session_stop)
		st->hooks.session_stop(st, s, msg);
	s->active = false;
	if (st->hooks.session_destroy)
		st->hooks.session_destroy(st, s);
	for (uint32_t i = 0; i < st->nr_sessions; i++) {
		if (st->sessions[i] == s) {
			memmove(&st->sessions[i], &st->sessions[i + 1],
				(st->nr_sessions - i - 1) * sizeof(*st->sessions));
			st->nr_sessions--;
			break;
		}
	}
	sd_session_free(s);
}

static void cmd_destroy(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep)
{
	struct sd_session *s;

	if (req->all) {
		for (uint32_t i = 0; i < st->nr_sessions;) {
			s = st->sessions[i];
			if (!may_see(st, s)) {
				i++;
				continue;
			}
			if (ipc_names_append(&rep->names, &rep->nr_names, s->name) < 0) {
				reply_error(rep, -ENOMEM, "Out of memory");
				return;
			}
			session_remove(st, s);
		}
		return;
	}
	s = need_session(st, req, rep);
	if (!s)
		return;
	if (ipc_names_append(&rep->names, &rep->nr_names, s->name) < 0) {
		reply_error(rep, -ENOMEM, "Out of memory");
		return;
	}
	session_remove(st, s);
}

/* --- channels ---------------------------------------------------------- */

static uint64_t round_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < (1ull << 62))
		p <<= 1;
	return p;
}

/* Fill *c from the request's attributes and the domain's defaults. */
static int channel_prepare(struct sd_session *s, const struct ipc_request *req,
			   struct sd_channel *c, const char *name, struct ipc_reply *rep)
{
	struct sd_domain *d = sd_session_domain(s, req->domain);
	uint32_t set = req->chan_set;
	uint64_t subbuf;
	uint64_t num;

	*c = (struct sd_channel){ .domain = req->domain, .enabled = true };
	copy_str(c->name, sizeof(c->name), name);
	c->subbuf_size =
		req->domain == IPC_DOMAIN_KERNEL ? SD_KERNEL_SUBBUF_SIZE : SD_UST_SUBBUF_SIZE;
	c->num_subbuf = SD_DEFAULT_NUM_SUBBUF;
	/* lttng: snapshot sessions default to overwrite, where it exists. */
	c->overwrite = s->snapshot && req->domain == IPC_DOMAIN_UST;
	c->buffers = req->domain == IPC_DOMAIN_KERNEL ? IPC_BUFFERS_GLOBAL : IPC_BUFFERS_UID;

	if (set & IPC_CHAN_SUBBUF_SIZE) {
		if (req->subbuf_size < SD_MIN_SUBBUF_SIZE ||
		    req->subbuf_size > SD_MAX_SUBBUF_SIZE) {
			reply_error(rep, -EINVAL,
				    "Invalid sub-buffer size %llu: use a size from %u to %u bytes",
				    (unsigned long long)req->subbuf_size, SD_MIN_SUBBUF_SIZE,
				    SD_MAX_SUBBUF_SIZE);
			return -EINVAL;
		}
		subbuf = round_pow2(req->subbuf_size);
		if (subbuf != req->subbuf_size)
			reply_warn(rep,
				   "The sub-buffer size (%llu) is rounded to the next power of 2 "
				   "(%llu)",
				   (unsigned long long)req->subbuf_size,
				   (unsigned long long)subbuf);
		c->subbuf_size = subbuf;
	}
	if (set & IPC_CHAN_NUM_SUBBUF) {
		if (req->num_subbuf < 2 || req->num_subbuf > SD_MAX_NUM_SUBBUF) {
			reply_error(rep, -EINVAL,
				    "Invalid number of sub-buffers %u: use a count from 2 to %u",
				    req->num_subbuf, SD_MAX_NUM_SUBBUF);
			return -EINVAL;
		}
		num = round_pow2(req->num_subbuf);
		if (num != req->num_subbuf)
			reply_warn(
				rep,
				"The number of subbuffers (%u) is rounded to the next power of 2 "
				"(%llu)",
				req->num_subbuf, (unsigned long long)num);
		c->num_subbuf = (uint32_t)num;
	}
	if (c->subbuf_size * c->num_subbuf > SD_MAX_BUFFER_BYTES) {
		reply_error(rep, -EINVAL,
			    "Channel buffer too large: sub-buffer size x count must not exceed "
			    "%llu bytes per CPU",
			    (unsigned long long)SD_MAX_BUFFER_BYTES);
		return -EINVAL;
	}
	if (set & IPC_CHAN_OVERWRITE)
		c->overwrite = req->overwrite;
	if (set & IPC_CHAN_SWITCH_TIMER)
		c->switch_timer_us = req->switch_timer_us;
	if (set & IPC_CHAN_BUFFERS) {
		bool ok = req->domain == IPC_DOMAIN_KERNEL ? req->buffers == IPC_BUFFERS_GLOBAL :
							     (req->buffers == IPC_BUFFERS_UID ||
							      req->buffers == IPC_BUFFERS_PID);

		if (!ok) {
			reply_error(rep, -EINVAL,
				    "Buffering scheme not supported in the %s domain: %s",
				    domain_label(req->domain),
				    req->domain == IPC_DOMAIN_KERNEL ?
					    "kernel channels always use global buffers" :
					    "use --buffers-uid or --buffers-pid");
			return -EINVAL;
		}
		c->buffers = req->buffers;
	}
	/* A session's user-space channels share one buffering scheme. */
	if (req->domain == IPC_DOMAIN_UST && d->nr_channels &&
	    d->channels[0]->buffers != c->buffers) {
		reply_error(
			rep, -EINVAL,
			"Channel '%s': buffering scheme mismatch: the other user space channels "
			"of session '%s' use %s buffers",
			name, s->name,
			d->channels[0]->buffers == IPC_BUFFERS_PID ? "per-process" : "per-user");
		return -EINVAL;
	}
	return 0;
}

/*
 * What every app gets of this daemon, over all of its sessions: the user
 * space channels and event rules. The app side holds at most
 * STRATA_UST_MAX_CHANNELS and STRATA_UST_MAX_ENABLERS of them (ust-abi.h):
 * a command that would go past fails here, with the reason, rather than
 * in the apps, silently.
 */
static void ust_totals(const struct sd_state *st, uint32_t *ret_channels, uint32_t *ret_rules)
{
	*ret_channels = *ret_rules = 0;
	for (uint32_t i = 0; i < st->nr_sessions; i++) {
		const struct sd_domain *d = &st->sessions[i]->ust;

		*ret_channels += d->nr_channels;
		for (uint32_t j = 0; j < d->nr_channels; j++)
			*ret_rules += d->channels[j]->nr_events;
	}
}

static int channel_can_add(struct sd_state *st, struct sd_session *s, uint8_t domain,
			   const char *name, struct ipc_reply *rep)
{
	struct sd_domain *d = sd_session_domain(s, domain);
	uint32_t channels, rules;

	if (s->started_once) {
		reply_error(rep, -EBUSY,
			    "Cannot add channel '%s' to session '%s': channels are fixed once a "
			    "session has been started; create a new session",
			    name, s->name);
		return -EBUSY;
	}
	if (d->nr_channels >= SD_MAX_CHANNELS) {
		reply_error(rep, -ENOSPC, "Too many %s channels in session '%s' (limit %u)",
			    domain_label(domain), s->name, SD_MAX_CHANNELS);
		return -ENOSPC;
	}
	ust_totals(st, &channels, &rules);
	if (domain == IPC_DOMAIN_UST && channels >= STRATA_UST_MAX_CHANNELS) {
		reply_error(rep, -ENOSPC,
			    "Cannot add user space channel '%s': the sessions of this daemon "
			    "already have %u, as many as an app can map; destroy a session first",
			    name, channels);
		return -ENOSPC;
	}
	return 0;
}

/* Insert a prepared channel; the array was grown beforehand. */
static struct sd_channel *channel_insert(struct sd_state *st, struct sd_domain *d,
					 struct sd_channel *c)
{
	c->key = st->next_id++;
	d->channels[d->nr_channels++] = c;
	return c;
}

static int domain_grow(struct sd_domain *d)
{
	struct sd_channel **arr = realloc(d->channels, (d->nr_channels + 1) * sizeof(*arr));

	if (!arr)
		return -ENOMEM;
	d->channels = arr;
	return 0;
}

static void cmd_enable_channel(struct sd_state *st, const struct ipc_request *req,
			       struct ipc_reply *rep)
{
	struct sd_session *s;
	struct sd_channel *c, *existing;
	struct sd_domain *d;

	if (!need_domain(req, rep) || !kernel_ok(st, req, rep))
		return;
	s = need_session(st, req, rep);
	if (!s)
		return;
	if (!valid_object_name(req->channel) || strcmp(req->channel, "metadata") == 0) {
		reply_error(rep, -EINVAL,
			    "Invalid channel name '%s': use a non-empty name without '/', not "
			    "starting with '.', other than 'metadata'",
			    req->channel);
		return;
	}
	d = sd_session_domain(s, req->domain);
	existing = sd_channel_find(d, req->channel);
	if (existing) {
		if (!existing->enabled && !req->chan_set) {
			existing->enabled = true;
			if (s->active && st->hooks.channel_changed)
				st->hooks.channel_changed(st, s, existing);
			return;
		}
		reply_error(rep, -EEXIST,
			    "Channel '%s' already exists in the %s domain of session '%s': its "
			    "attributes cannot change; use another name",
			    req->channel, domain_label(req->domain), s->name);
		return;
	}
	if (channel_can_add(st, s, req->domain, req->channel, rep) < 0)
		return;
	c = malloc(sizeof(*c));
	if (!c || domain_grow(d) < 0) {
		free(c);
		reply_error(rep, -ENOMEM, "Out of memory");
		return;
	}
	if (channel_prepare(s, req, c, req->channel, rep) < 0) {
		free(c);
		return;
	}
	/* validated */
	channel_insert(st, d, c);
}

/*
 * The channel an event or context command applies to: the named one, or the
 * default channel, created with defaults when the domain has no channel yet
 * (as lttng does). *ret_new holds a channel to insert on success.
 */
static struct sd_channel *resolve_channel(struct sd_state *st, struct sd_session *s,
					  const struct ipc_request *req, bool create,
					  struct sd_channel **ret_new, struct ipc_reply *rep)
{
	struct sd_domain *d = sd_session_domain(s, req->domain);
	const char *name = req->channel[0] ? req->channel : SD_DEFAULT_CHANNEL;
	struct sd_channel *c = sd_channel_find(d, name);
	struct ipc_request defaults;

	*ret_new = NULL;
	if (c)
		return c;
	if (!create) {
		reply_error(rep, -ENOENT,
			    "Channel '%s' not found in the %s domain of session '%s': run "
			    "`strata list %s` to see its channels",
			    name, domain_label(req->domain), s->name, s->name);
		return NULL;
	}
	if (!req->channel[0] && d->nr_channels) {
		reply_error(rep, -EINVAL,
			    "Non-default channel exists within session '%s': name the channel "
			    "with '-c NAME'",
			    s->name);
		return NULL;
	}
	if (!valid_object_name(name) || strcmp(name, "metadata") == 0) {
		reply_error(rep, -EINVAL, "Invalid channel name '%s'", name);
		return NULL;
	}
	if (channel_can_add(st, s, req->domain, name, rep) < 0)
		return NULL;
	c = malloc(sizeof(*c));
	if (!c || domain_grow(d) < 0) {
		free(c);
		reply_error(rep, -ENOMEM, "Out of memory");
		return NULL;
	}
	defaults = (struct ipc_request){ .domain = req->domain };
	if (channel_prepare(s, &defaults, c, name, rep) < 0) {
		free(c);
		return NULL;
	}
	*ret_new = c;
	return c;
}

/* --- events ------------------------------------------------------------ */

/* Whether rule e has exactly the request's exclusions, in any order. */
static bool same_exclusions(const struct sd_event *e, const struct ipc_request *req)
{
	if (e->nr_exclusions != req->nr_exclusions)
		return false;
	for (uint32_t i = 0; i < req->nr_exclusions; i++) {
		bool found = false;

		for (uint32_t j = 0; j < e->nr_exclusions && !found; j++)
			found = strcmp(e->exclusions[j], req->exclusions[i]) == 0;
		if (!found)
			return false;
	}
	return true;
}

static struct sd_event *event_find(struct sd_channel *c, const char *name, uint8_t type,
				   uint8_t loglevel_type, int32_t loglevel,
				   const struct ipc_request *req)
{
	for (uint32_t i = 0; i < c->nr_events; i++) {
		struct sd_event *e = &c->events[i];

		if (strcmp(e->name, name) == 0 && e->type == type &&
		    e->loglevel_type == loglevel_type &&
		    (loglevel_type == IPC_LOGLEVEL_ALL || e->loglevel == loglevel) &&
		    strcmp(e->filter ? e->filter : "", req->filter ? req->filter : "") == 0 &&
		    same_exclusions(e, req))
			return e;
	}
	return NULL;
}

/* An unescaped '*' in s (a '\\' escapes the next character). */
static const char *unescaped_star(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (*s == '*')
			return s;
	}
	return NULL;
}

/*
 * Exclusions, checked as lttng enable-event does: user space only, on a
 * pattern with an unescaped '*'; when the pattern ends with its only '*',
 * an exclusion that covers all of it is an error and one that cannot
 * match it only a warning.
 */
static int check_exclusions(const struct ipc_request *req, struct ipc_reply *rep)
{
	if (!req->nr_exclusions)
		return 0;
	if (req->domain != IPC_DOMAIN_UST) {
		reply_error(rep, -EINVAL, "Event name exclusions are only available with -u");
		return -EINVAL;
	}
	for (uint32_t n = 0; n < (req->all ? 1 : req->nr_names); n++) {
		const char *pat = req->all ? "*" : req->names[n];
		const char *star = unescaped_star(pat);
		size_t plen;

		if (!star) {
			reply_error(rep, -EINVAL,
				    "Event name pattern '%s' has no '*': exclusions (-x) need one",
				    pat);
			return -EINVAL;
		}
		if (star[1] || unescaped_star(star + 1))
			continue;
		plen = (size_t)(star - pat);
		for (uint32_t i = 0; i < req->nr_exclusions; i++) {
			const char *x = req->exclusions[i];
			size_t k = 0;

			if (!x[0]) {
				reply_warn(rep, "Exclusion '' matches no event");
				continue;
			}
			while (k < plen && x[k] && x[k] != '*' && x[k] == pat[k])
				k++;
			if (x[k] == '*') {
				reply_error(rep, -EINVAL,
					    "Event %s: %s excludes all events from %s", pat, x,
					    pat);
				return -EINVAL;
			}
			if (k < plen)
				reply_warn(rep, "Event %s: %s does not exclude any events from %s",
					   pat, x, pat);
		}
	}
	return 0;
}

static bool is_probe_type(uint8_t type)
{
	return type >= IPC_EVENT_PROBE && type <= IPC_EVENT_USERSPACE_FUNCTION;
}

/* Give e its own copies of the request's filter, bytecode and exclusions. */
static int event_own_extras(struct sd_event *e, const struct ipc_request *req, const void *bc,
			    size_t bc_len)
{
	if (req->filter && !(e->filter = strdup(req->filter)))
		goto nomem;
	if (bc) {
		e->bytecode = malloc(bc_len);
		if (!e->bytecode)
			goto nomem;
		memcpy(e->bytecode, bc, bc_len);
		e->bytecode_len = bc_len;
	}
	if (req->nr_exclusions) {
		e->exclusions = calloc(req->nr_exclusions, sizeof(*e->exclusions));
		if (!e->exclusions)
			goto nomem;
		memcpy(e->exclusions, req->exclusions, req->nr_exclusions * sizeof(*e->exclusions));
		e->nr_exclusions = req->nr_exclusions;
	}
	if (is_probe_type(req->event_type) && !(e->probe = strdup(req->probe)))
		goto nomem;
	return 0;
nomem:
	sd_event_release(e);
	return -ENOMEM;
}

static const char *probe_option(uint8_t type)
{
	static const char *const opts[] = { "--probe", "--function", "--userspace-probe",
					    "--userspace-function" };

	return is_probe_type(type) ? opts[type - IPC_EVENT_PROBE] : "";
}

/* A probe rule: one record name (no globbing), a location. */
static int check_probe_request(const struct ipc_request *req, struct ipc_reply *rep)
{
	const char *opt = probe_option(req->event_type);

	if (req->all || req->nr_names != 1) {
		reply_error(rep, -EINVAL, "%s needs exactly one event name (the record name)", opt);
		return -EINVAL;
	}
	if (!req->probe[0]) {
		reply_error(rep, -EINVAL, "%s needs a location", opt);
		return -EINVAL;
	}
	if (strchr(req->names[0], '*') || strchr(req->names[0], ':')) {
		reply_error(rep, -EINVAL,
			    "Invalid probe event name '%s': it names the recorded event, no '*' or "
			    "':'",
			    req->names[0]);
		return -EINVAL;
	}
	return 0;
}

/* A probe name is one rule per channel: the same name elsewhere is a conflict. */
static int probe_conflict(struct sd_channel *c, const struct ipc_request *req,
			  struct ipc_reply *rep)
{
	for (uint32_t i = 0; i < c->nr_events; i++) {
		const struct sd_event *e = &c->events[i];

		if (!e->probe || strcmp(e->name, req->names[0]))
			continue;
		if (e->type == req->event_type && !strcmp(e->probe, req->probe))
			return 0;
		reply_error(rep, -EEXIST,
			    "Probe event '%s' already exists in channel '%s' (%s=%s): give another "
			    "name",
			    e->name, c->name, probe_option(e->type), e->probe);
		return -EEXIST;
	}
	return 0;
}

static void cmd_enable_event(struct sd_state *st, const struct ipc_request *req,
			     struct ipc_reply *rep)
{
	struct sd_channel *c, *newc = NULL;
	struct sd_session *s;
	uint32_t nr = req->all ? 1 : req->nr_names, added = 0;
	uint8_t type = req->event_type;
	struct sd_event *arr, *prep = NULL;
	void *bc = NULL;
	size_t bc_len = 0;

	if (!need_domain(req, rep))
		return;
	if (req->all && req->nr_names) {
		reply_error(rep, -EINVAL, "Event names and -a/--all are mutually exclusive");
		return;
	}
	if (!req->all && !req->nr_names) {
		reply_error(rep, -EINVAL, "No event name given: name events or pass -a/--all");
		return;
	}
	if (req->domain == IPC_DOMAIN_KERNEL && req->loglevel_type != IPC_LOGLEVEL_ALL) {
		reply_error(rep, -EINVAL,
			    "--loglevel and --loglevel-only are only available with -u");
		return;
	}
	if (req->loglevel_type > IPC_LOGLEVEL_SINGLE ||
	    (req->loglevel_type != IPC_LOGLEVEL_ALL && (req->loglevel < 0 || req->loglevel > 14))) {
		reply_error(rep, -EINVAL, "Invalid log level %d: use a level from 0 to 14",
			    req->loglevel);
		return;
	}
	if (type > IPC_EVENT_USERSPACE_FUNCTION ||
	    (req->domain == IPC_DOMAIN_UST && type != IPC_EVENT_TRACEPOINT)) {
		reply_error(rep, -EINVAL, "--%s is only available with -k",
			    type == IPC_EVENT_SYSCALL ? "syscall" :
							"probe/--function/--userspace-*");
		return;
	}
	if (is_probe_type(type) && req->filter) {
		/* As lttng: filters apply to tracepoint and system call rules only. */
		reply_error(rep, -EINVAL,
			    "%s rules take no filter: filter tracepoints and system calls",
			    probe_option(type));
		return;
	}
	if (is_probe_type(type) && check_probe_request(req, rep) < 0)
		return;
	if (type == IPC_EVENT_ALL && !req->all) {
		reply_error(rep, -EINVAL,
			    "Event type 'all' needs -a; name tracepoints with --tracepoint or "
			    "system calls with --syscall");
		return;
	}
	for (uint32_t i = 0; i < req->nr_names; i++) {
		if (!valid_event_name(req->names[i])) {
			reply_error(rep, -EINVAL,
				    "Invalid event name '%s': names are non-empty, without spaces "
				    "or commas",
				    req->names[i]);
			return;
		}
	}
	if (!kernel_ok(st, req, rep) || check_exclusions(req, rep) < 0)
		return;
	if (req->filter && !req->filter[0]) {
		reply_error(rep, -EINVAL,
			    "Empty filter expression: give one, or leave --filter out");
		return;
	}
	if (req->filter && st->hooks.filter_compile) {
		int ret = st->hooks.filter_compile(st, req->domain, req->filter, &bc, &bc_len,
						   rep->message);

		if (ret < 0) {
			rep->status = ret;
			return;
		}
	}
	if (is_probe_type(type) && st->hooks.kernel_check_probe) {
		int ret = st->hooks.kernel_check_probe(st, type, req->probe, rep->message);

		if (ret < 0) {
			rep->status = ret;
			goto out;
		}
	} else if (req->domain == IPC_DOMAIN_KERNEL && st->hooks.kernel_check_event) {
		for (uint32_t i = 0; i < req->nr_names; i++) {
			int ret =
				st->hooks.kernel_check_event(st, req->names[i], type, rep->message);

			if (ret < 0) {
				rep->status = ret;
				goto out;
			}
		}
	}
	s = need_session(st, req, rep);
	if (!s)
		goto out;
	c = resolve_channel(st, s, req, true, &newc, rep);
	if (!c)
		goto out;
	if (is_probe_type(type) && probe_conflict(c, req, rep) < 0)
		goto out;
	if (c->nr_events + nr > SD_MAX_EVENTS) {
		reply_error(rep, -ENOSPC, "Too many event rules in channel '%s' (limit %u)",
			    c->name, SD_MAX_EVENTS);
		goto out;
	}
	if (req->domain == IPC_DOMAIN_UST) {
		uint32_t channels, rules;

		ust_totals(st, &channels, &rules);
		if (rules + nr > STRATA_UST_MAX_ENABLERS) {
			reply_error(rep, -ENOSPC,
				    "Too many user space event rules: the sessions of this daemon "
				    "have %u, and an app takes at most %u; disable or destroy some "
				    "first",
				    rules, STRATA_UST_MAX_ENABLERS);
			goto out;
		}
	}
	arr = realloc(c->events, ((size_t)c->nr_events + nr) * sizeof(*arr));
	if (!arr)
		goto nomem;
	c->events = arr;
	/* Every allocation before the first change: a request that fails changes nothing. */
	prep = calloc(nr, sizeof(*prep));
	if (!prep)
		goto nomem;
	for (uint32_t i = 0; i < nr; i++) {
		if (event_own_extras(&prep[i], req, bc, bc_len) < 0 ||
		    ipc_names_append(&rep->names, &rep->nr_names, req->all ? "*" : req->names[i]) <
			    0)
			goto nomem;
	}
	/* validated */
	rep->nr_names = 0;
	if (newc)
		channel_insert(st, sd_session_domain(s, req->domain), newc);
	newc = NULL;
	copy_str(rep->channel, sizeof(rep->channel), c->name);
	for (uint32_t i = 0; i < nr; i++) {
		const char *name = req->all ? "*" : req->names[i];
		int32_t ll = req->loglevel_type == IPC_LOGLEVEL_ALL ? -1 : req->loglevel;
		struct sd_event *e = event_find(c, name, type, req->loglevel_type, ll, req);

		if (e && e->enabled) {
			reply_warn(rep,
				   "Event %s: %s event already enabled (channel %s, session %s)",
				   name, ipc_domain_name(req->domain), c->name, s->name);
			continue;
		}
		if (!e) {
			e = &c->events[c->nr_events++];
			*e = prep[i];
			prep[i] = (struct sd_event){ 0 };
			e->type = type;
			e->loglevel_type = req->loglevel_type;
			e->loglevel = ll;
			e->id = st->next_id++;
			copy_str(e->name, sizeof(e->name), name);
		}
		e->enabled = true;
		copy_str(rep->names[rep->nr_names++], IPC_NAME_MAX, name);
		added++;
		if (s->active && st->hooks.event_changed)
			st->hooks.event_changed(st, s, c, e);
	}
	if (!added)
		rep->status = -EALREADY; /* only warnings: nothing changed */
	goto out;
nomem:
	reply_error(rep, -ENOMEM, "Out of memory");
out:
	for (uint32_t i = 0; prep && i < nr; i++)
		sd_event_release(&prep[i]);
	free(prep);
	sd_channel_free(newc);
	free(bc);
}

static void cmd_disable_event(struct sd_state *st, const struct ipc_request *req,
			      struct ipc_reply *rep)
{
	struct sd_channel *c, *unused;
	struct sd_session *s;

	if (!need_domain(req, rep))
		return;
	if (req->all == (req->nr_names > 0)) {
		reply_error(rep, -EINVAL,
			    req->all ? "Event names and -a/--all are mutually exclusive" :
				       "No event name given: name events or pass -a/--all");
		return;
	}
	s = need_session(st, req, rep);
	if (!s)
		return;
	c = resolve_channel(st, s, req, false, &unused, rep);
	if (!c)
		return;
	for (uint32_t i = 0; i < req->nr_names; i++) {
		bool found = false;

		for (uint32_t j = 0; j < c->nr_events && !found; j++)
			found = strcmp(c->events[j].name, req->names[i]) == 0;
		if (!found) {
			reply_error(rep, -ENOENT,
				    "Event '%s' not found in channel '%s' of session '%s': run "
				    "`strata list %s` to see its event rules",
				    req->names[i], c->name, s->name, s->name);
			return;
		}
	}
	for (uint32_t i = 0; i < (req->all ? 1 : req->nr_names); i++) {
		if (ipc_names_append(&rep->names, &rep->nr_names, req->all ? "*" : req->names[i]) <
		    0) {
			reply_error(rep, -ENOMEM, "Out of memory");
			return;
		}
	}
	/* validated */
	copy_str(rep->channel, sizeof(rep->channel), c->name);
	for (uint32_t j = 0; j < c->nr_events; j++) {
		struct sd_event *e = &c->events[j];
		bool hit = req->all;

		for (uint32_t i = 0; i < req->nr_names && !hit; i++)
			hit = strcmp(e->name, req->names[i]) == 0;
		if (!hit || !e->enabled)
			continue;
		e->enabled = false;
		if (s->active && st->hooks.event_changed)
			st->hooks.event_changed(st, s, c, e);
	}
}

/* --- contexts ---------------------------------------------------------- */

/* Distinct perf counters (type, config) of a channel's contexts plus more. */
static unsigned int count_counters(const struct sd_channel *c, char (*more)[IPC_NAME_MAX],
				   uint32_t nr_more)
{
	struct ctx_perf seen[SD_MAX_KERNEL_COUNTERS + 1];
	unsigned int n = 0;
	char why[128];

	for (uint32_t i = 0; i < c->nr_contexts + nr_more; i++) {
		const char *name = i < c->nr_contexts ? c->contexts[i] : more[i - c->nr_contexts];
		struct ctx_perf p;
		bool dup = false;

		if (ctx_perf_parse(name, &p, why, sizeof(why)) != 1)
			continue;
		for (unsigned int j = 0; j < n && !dup; j++)
			dup = seen[j].type == p.type && seen[j].config == p.config;
		if (!dup && n < SD_MAX_KERNEL_COUNTERS + 1)
			seen[n++] = p;
	}
	return n;
}

static bool channel_has_context(const struct sd_channel *c, const char *name)
{
	for (uint32_t i = 0; i < c->nr_contexts; i++)
		if (strcmp(c->contexts[i], name) == 0)
			return true;
	return false;
}

static void cmd_add_context(struct sd_state *st, const struct ipc_request *req,
			    struct ipc_reply *rep)
{
	char(*norm)[IPC_NAME_MAX] = NULL;
	struct sd_channel *target = NULL, *newc = NULL;
	struct sd_session *s;
	struct sd_domain *d;
	uint32_t nr_targets;
	int ret;

	if (!need_domain(req, rep))
		return;
	if (!req->nr_names) {
		reply_error(rep, -EINVAL, "No context type given: pass -t TYPE");
		return;
	}
	norm = calloc(req->nr_names, sizeof(*norm));
	if (!norm) {
		reply_error(rep, -ENOMEM, "Out of memory");
		return;
	}
	for (uint32_t i = 0; i < req->nr_names; i++) {
		/* Kept as given: LTTng names the field of perf:NAME perf_NAME. */
		copy_str(norm[i], IPC_NAME_MAX, req->names[i]);
		ret = sd_context_check(req->domain, norm[i], rep->message);
		if (ret < 0) {
			rep->status = ret;
			goto out;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (strcmp(norm[i], norm[j]) == 0) {
				reply_error(rep, -EINVAL, "Context type '%s' given twice",
					    req->names[i]);
				goto out;
			}
		}
	}
	if (!kernel_ok(st, req, rep))
		goto out;
	if (req->domain == IPC_DOMAIN_KERNEL && st->hooks.kernel_check_context) {
		for (uint32_t i = 0; i < req->nr_names; i++) {
			ret = st->hooks.kernel_check_context(st, norm[i], rep->message);
			if (ret < 0) {
				rep->status = ret;
				goto out;
			}
		}
	}
	s = need_session(st, req, rep);
	if (!s)
		goto out;
	if (s->started_once) {
		reply_error(rep, -EBUSY,
			    "Cannot add context to session '%s': contexts are fixed once a session "
			    "has been started; create a new session",
			    s->name);
		goto out;
	}
	d = sd_session_domain(s, req->domain);
	if (req->channel[0] || !d->nr_channels) {
		target = resolve_channel(st, s, req, !req->channel[0], &newc, rep);
		if (!target)
			goto out;
	}
	nr_targets = target ? 1 : d->nr_channels;
	for (uint32_t t = 0; t < nr_targets; t++) {
		struct sd_channel *c = target ? target : d->channels[t];
		char(*arr)[IPC_NAME_MAX];

		for (uint32_t i = 0; i < req->nr_names; i++) {
			if (channel_has_context(c, norm[i])) {
				reply_error(
					rep, -EEXIST,
					"Context '%s' is already in channel '%s' of session '%s'",
					req->names[i], c->name, s->name);
				goto out;
			}
		}
		uint32_t max =
			req->domain == IPC_DOMAIN_UST ? STRATA_UST_MAX_CONTEXTS : IPC_MAX_CONTEXTS;

		if (c->nr_contexts + req->nr_names > max) {
			reply_error(rep, -ENOSPC, "Too many contexts in channel '%s' (limit %u%s)",
				    c->name, max,
				    req->domain == IPC_DOMAIN_UST ? " for a user space channel" :
								    "");
			goto out;
		}
		if (req->domain == IPC_DOMAIN_KERNEL &&
		    count_counters(c, norm, req->nr_names) > SD_MAX_KERNEL_COUNTERS) {
			reply_error(rep, -ENOSPC,
				    "Too many perf counters in channel '%s': at most %d distinct "
				    "ones are recorded at once",
				    c->name, SD_MAX_KERNEL_COUNTERS);
			goto out;
		}
		arr = realloc(c->contexts, (c->nr_contexts + req->nr_names) * sizeof(*arr));
		if (!arr) {
			reply_error(rep, -ENOMEM, "Out of memory");
			goto out;
		}
		c->contexts = arr;
	}
	/* validated */
	if (newc) {
		channel_insert(st, d, newc);
		newc = NULL;
	}
	for (uint32_t t = 0; t < nr_targets; t++) {
		struct sd_channel *c = target ? target : d->channels[t];

		for (uint32_t i = 0; i < req->nr_names; i++)
			memcpy(c->contexts[c->nr_contexts++], norm[i], IPC_NAME_MAX);
	}
	if (target)
		copy_str(rep->channel, sizeof(rep->channel), target->name);
out:
	sd_channel_free(newc);
	free(norm);
}

/* --- start / stop ------------------------------------------------------ */

static void cmd_start(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep)
{
	struct sd_session *s = need_session(st, req, rep);
	int ret;

	if (!s)
		return;
	if (s->active) {
		reply_error(rep, -EALREADY, "Tracing already started for session %s", s->name);
		return;
	}
	if (st->hooks.session_start) {
		ret = st->hooks.session_start(st, s, rep->message);
		if (ret < 0) {
			rep->status = ret;
			return;
		}
	}
	s->active = true;
	s->started_once = true;
	copy_str(rep->session, sizeof(rep->session), s->name);
}

static void cmd_stop(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep)
{
	struct sd_session *s = need_session(st, req, rep);
	int ret;

	if (!s)
		return;
	if (!s->active) {
		reply_error(rep, -EALREADY, "Tracing already stopped for session %s", s->name);
		return;
	}
	if (st->hooks.session_stop) {
		ret = st->hooks.session_stop(st, s, rep->message);
		if (ret < 0) {
			rep->status = ret;
			return;
		}
	}
	s->active = false;
	copy_str(rep->session, sizeof(rep->session), s->name);
}

/* --- track / untrack ---------------------------------------------------- */

static const char *const tracker_names[IPC_TRACKER_COUNT] = {
	[IPC_TRACKER_PID] = "process ID", [IPC_TRACKER_VPID] = "virtual process ID",
	[IPC_TRACKER_UID] = "user ID",	  [IPC_TRACKER_VUID] = "virtual user ID",
	[IPC_TRACKER_GID] = "group ID",	  [IPC_TRACKER_VGID] = "virtual group ID",
};

/* A tracker value: a decimal id, or a user (uid) or group (gid) name. */
static int tracker_value(uint8_t attr, const char *text, int64_t *ret_id, struct ipc_reply *rep)
{
	bool is_uid = attr == IPC_TRACKER_UID || attr == IPC_TRACKER_VUID;
	bool is_gid = attr == IPC_TRACKER_GID || attr == IPC_TRACKER_VGID;
	char *end;
	long long v;

	if (text[0] >= '0' && text[0] <= '9') {
		errno = 0;
		v = strtoll(text, &end, 10);
		if (!errno && !*end && v >= 0 && v <= INT32_MAX) {
			*ret_id = v;
			return 0;
		}
	} else if (is_uid || is_gid) {
		char buf[16384];

		if (is_uid) {
			struct passwd pw, *pwp = NULL;

			if (getpwnam_r(text, &pw, buf, sizeof(buf), &pwp) == 0 && pwp) {
				*ret_id = pwp->pw_uid;
				return 0;
			}
		} else {
			struct group gr, *grp = NULL;

			if (getgrnam_r(text, &gr, buf, sizeof(buf), &grp) == 0 && grp) {
				*ret_id = grp->gr_gid;
				return 0;
			}
		}
		reply_error(rep, -EINVAL, "Invalid %s '%s': no such %s", tracker_names[attr], text,
			    is_uid ? "user" : "group");
		return -EINVAL;
	}
	reply_error(rep, -EINVAL, "Invalid %s '%s': expected a number from 0 to %d%s",
		    tracker_names[attr], text, INT32_MAX,
		    is_uid ? " or a user name" :
		    is_gid ? " or a group name" :
			     "");
	return -EINVAL;
}

static void cmd_track(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep)
{
	struct sd_session *s;
	struct sd_tracker *t;
	struct sd_tracker_value *vals = NULL;
	uint8_t attr = req->tracker_attr;
	uint32_t changed = 0;
	int64_t *ids = NULL;

	if (!need_domain(req, rep))
		return;
	if (attr >= IPC_TRACKER_COUNT) {
		reply_error(rep, -EINVAL, "Unknown process attribute %u", attr);
		return;
	}
	/* As lttng: -u tracks virtual ids only; --pid means --vpid there. */
	if (req->domain == IPC_DOMAIN_UST && attr == IPC_TRACKER_PID)
		attr = IPC_TRACKER_VPID;
	if (req->domain == IPC_DOMAIN_UST && (attr == IPC_TRACKER_UID || attr == IPC_TRACKER_GID)) {
		reply_error(rep, -EINVAL,
			    "The %s tracker is only available with -k: use --v%cid with -u",
			    tracker_names[attr], attr == IPC_TRACKER_UID ? 'u' : 'g');
		return;
	}
	if (req->all == (req->nr_names > 0)) {
		reply_error(rep, -EINVAL,
			    req->all ? "Values and --all are mutually exclusive" :
				       "No value given: list the ids or pass --all");
		return;
	}
	if (req->domain == IPC_DOMAIN_KERNEL && !kernel_ok(st, req, rep))
		return;
	s = need_session(st, req, rep);
	if (!s)
		return;
	t = &s->trackers[SD_DOMAIN_INDEX(req->domain)][attr];
	if (req->nr_names) {
		ids = calloc(req->nr_names, sizeof(*ids));
		vals = calloc((size_t)t->nr_values + req->nr_names, sizeof(*vals));
		if (!ids || !vals) {
			reply_error(rep, -ENOMEM, "Out of memory");
			goto out;
		}
		for (uint32_t i = 0; i < req->nr_names; i++)
			if (tracker_value(attr, req->names[i], &ids[i], rep) < 0)
				goto out;
		/* Room for the reply's list of changed values, before any change. */
		for (uint32_t i = 0; i < req->nr_names; i++)
			if (ipc_names_append(&rep->names, &rep->nr_names, req->names[i]) < 0) {
				reply_error(rep, -ENOMEM, "Out of memory");
				goto out;
			}
		rep->nr_names = 0;
	}
	/* validated */
	if (req->all) {
		t->policy = req->tracker_remove ? IPC_TRACKER_NONE : IPC_TRACKER_ALL;
		free(t->values);
		t->values = NULL;
		t->nr_values = 0;
		changed = 1;
	} else {
		/* lttng's rule: values switch any other policy to an empty set first. */
		if (t->policy != IPC_TRACKER_SET) {
			t->policy = IPC_TRACKER_SET;
			t->nr_values = 0;
			changed = 1;
		}
		if (t->nr_values)
			memcpy(vals, t->values, t->nr_values * sizeof(*vals));
		for (uint32_t i = 0; i < req->nr_names; i++) {
			uint32_t at = t->nr_values;

			for (uint32_t j = 0; j < t->nr_values; j++)
				if (vals[j].id == ids[i])
					at = j;
			if (!req->tracker_remove && at == t->nr_values) {
				vals[t->nr_values] = (struct sd_tracker_value){ .id = ids[i] };
				copy_str(vals[t->nr_values].text, IPC_NAME_MAX, req->names[i]);
				t->nr_values++;
				changed++;
				copy_str(rep->names[rep->nr_names++], IPC_NAME_MAX, req->names[i]);
			} else if (req->tracker_remove && at < t->nr_values) {
				vals[at] = vals[--t->nr_values];
				changed++;
				copy_str(rep->names[rep->nr_names++], IPC_NAME_MAX, req->names[i]);
			} else {
				reply_warn(rep, "%s is %s in the %s tracker inclusion set",
					   req->names[i], req->tracker_remove ? "not" : "already",
					   tracker_names[attr]);
			}
		}
		free(t->values);
		t->values = vals;
		vals = NULL;
	}
	if (changed && st->hooks.tracker_changed)
		st->hooks.tracker_changed(st, s, req->domain, attr);
	copy_str(rep->session, sizeof(rep->session), s->name);
out:
	free(ids);
	free(vals);
}

/* --- disable-channel ------------------------------------------------------ */

static void cmd_disable_channel(struct sd_state *st, const struct ipc_request *req,
				struct ipc_reply *rep)
{
	struct sd_session *s;
	struct sd_domain *d;

	if (!need_domain(req, rep))
		return;
	if (req->all == (req->nr_names > 0)) {
		reply_error(rep, -EINVAL,
			    req->all ? "Channel names and -a/--all are mutually exclusive" :
				       "No channel name given: name channels or pass -a/--all");
		return;
	}
	s = need_session(st, req, rep);
	if (!s)
		return;
	d = sd_session_domain(s, req->domain);
	for (uint32_t i = 0; i < req->nr_names; i++) {
		if (!sd_channel_find(d, req->names[i])) {
			reply_error(rep, -ENOENT,
				    "Channel '%s' not found in the %s domain of session '%s': run "
				    "`strata list %s` to see its channels",
				    req->names[i], domain_label(req->domain), s->name, s->name);
			return;
		}
	}
	for (uint32_t i = 0; i < (req->all ? d->nr_channels : req->nr_names); i++) {
		if (ipc_names_append(&rep->names, &rep->nr_names,
				     req->all ? d->channels[i]->name : req->names[i]) < 0) {
			reply_error(rep, -ENOMEM, "Out of memory");
			return;
		}
	}
	/* validated */
	for (uint32_t i = 0; i < rep->nr_names; i++) {
		struct sd_channel *c = sd_channel_find(d, rep->names[i]);

		if (!c->enabled)
			continue;
		c->enabled = false;
		if (s->active && st->hooks.channel_changed)
			st->hooks.channel_changed(st, s, c);
	}
	copy_str(rep->session, sizeof(rep->session), s->name);
}

/* --- list -------------------------------------------------------------- */

static int fill_channel(struct ipc_channel_info *ci, const struct sd_channel *c)
{
	*ci = (struct ipc_channel_info){ .domain = c->domain,
					 .enabled = c->enabled,
					 .overwrite = c->overwrite,
					 .buffers = c->buffers,
					 .subbuf_size = c->subbuf_size,
					 .num_subbuf = c->num_subbuf,
					 .switch_timer_us = c->switch_timer_us,
					 .discarded = c->discarded };
	copy_str(ci->name, sizeof(ci->name), c->name);
	if (c->nr_events) {
		ci->events = calloc(c->nr_events, sizeof(*ci->events));
		if (!ci->events)
			return -ENOMEM;
		ci->nr_events = c->nr_events;
	}
	for (uint32_t i = 0; i < c->nr_events; i++) {
		struct ipc_event_info *e = &ci->events[i];

		copy_str(e->name, sizeof(e->name), c->events[i].name);
		e->type = c->events[i].type;
		e->enabled = c->events[i].enabled;
		e->loglevel_type = c->events[i].loglevel_type;
		e->loglevel = c->events[i].loglevel;
		if (c->events[i].filter && !(e->filter = strdup(c->events[i].filter)))
			return -ENOMEM;
		if (c->events[i].nr_exclusions) {
			e->exclusions = calloc(c->events[i].nr_exclusions, sizeof(*e->exclusions));
			if (!e->exclusions)
				return -ENOMEM;
			memcpy(e->exclusions, c->events[i].exclusions,
			       c->events[i].nr_exclusions * sizeof(*e->exclusions));
			e->nr_exclusions = c->events[i].nr_exclusions;
		}
		if (c->events[i].probe && !(e->probe = strdup(c->events[i].probe)))
			return -ENOMEM;
	}
	if (c->nr_contexts) {
		ci->contexts = calloc(c->nr_contexts, sizeof(*ci->contexts));
		if (!ci->contexts)
			return -ENOMEM;
		ci->nr_contexts = c->nr_contexts;
		memcpy(ci->contexts, c->contexts, c->nr_contexts * sizeof(*c->contexts));
	}
	return 0;
}

/* The trackers that do not include every process. */
static int fill_trackers(struct ipc_session_info *si, const struct sd_session *s)
{
	static const uint8_t domains[2] = { IPC_DOMAIN_UST, IPC_DOMAIN_KERNEL };
	uint32_t n = 0;

	for (int d = 0; d < 2; d++)
		for (int a = 0; a < IPC_TRACKER_COUNT; a++)
			n += s->trackers[d][a].policy != IPC_TRACKER_ALL;
	if (!n)
		return 0;
	si->trackers = calloc(n, sizeof(*si->trackers));
	if (!si->trackers)
		return -ENOMEM;
	for (int d = 0; d < 2; d++) {
		for (int a = 0; a < IPC_TRACKER_COUNT; a++) {
			const struct sd_tracker *t = &s->trackers[d][a];
			struct ipc_tracker_info *ti;

			if (t->policy == IPC_TRACKER_ALL)
				continue;
			ti = &si->trackers[si->nr_trackers++];
			*ti = (struct ipc_tracker_info){ .domain = domains[d],
							 .attr = (uint8_t)a,
							 .policy = t->policy };
			for (uint32_t i = 0; i < t->nr_values; i++)
				if (ipc_names_append(&ti->values, &ti->nr_values,
						     t->values[i].text) < 0)
					return -ENOMEM;
		}
	}
	return 0;
}

static int fill_session(struct ipc_session_info *si, const struct sd_session *s)
{
	uint32_t n = s->ust.nr_channels + s->kernel.nr_channels, k = 0;

	*si = (struct ipc_session_info){ .active = s->active, .snapshot = s->snapshot };
	copy_str(si->name, sizeof(si->name), s->name);
	copy_str(si->output, sizeof(si->output), s->output);
	if (!n)
		return fill_trackers(si, s);
	si->channels = calloc(n, sizeof(*si->channels));
	if (!si->channels)
		return -ENOMEM;
	si->nr_channels = n;
	for (uint32_t i = 0; i < s->kernel.nr_channels; i++)
		if (fill_channel(&si->channels[k++], s->kernel.channels[i]) < 0)
			return -ENOMEM;
	for (uint32_t i = 0; i < s->ust.nr_channels; i++)
		if (fill_channel(&si->channels[k++], s->ust.channels[i]) < 0)
			return -ENOMEM;
	return fill_trackers(si, s);
}

static void cmd_list_sessions(struct sd_state *st, const struct ipc_request *req,
			      struct ipc_reply *rep)
{
	struct sd_session *only = NULL;
	uint32_t n = 0, k = 0;

	if (req->session[0]) {
		only = need_session(st, req, rep);
		if (!only)
			return;
		n = 1;
	} else {
		for (uint32_t i = 0; i < st->nr_sessions; i++)
			n += may_see(st, st->sessions[i]);
	}
	if (!n)
		return;
	rep->sessions = calloc(n, sizeof(*rep->sessions));
	if (!rep->sessions) {
		reply_error(rep, -ENOMEM, "Out of memory");
		return;
	}
	rep->nr_sessions = n;
	for (uint32_t i = 0; i < (only ? 1 : st->nr_sessions) && k < n; i++) {
		struct sd_session *s = only ? only : st->sessions[i];

		if (!may_see(st, s))
			continue;
		if (s->active && st->hooks.session_stats)
			st->hooks.session_stats(st, s);
		if (fill_session(&rep->sessions[k++], s) < 0) {
			reply_error(rep, -ENOMEM, "Out of memory");
			return;
		}
	}
}

static void cmd_list_tracepoints(struct sd_state *st, const struct ipc_request *req,
				 struct ipc_reply *rep)
{
	int ret;

	if (!need_domain(req, rep) || !kernel_ok(st, req, rep))
		return;
	if (!st->hooks.list_tracepoints)
		return;
	ret = st->hooks.list_tracepoints(st, req->domain, rep);
	if (ret < 0 && !rep->status)
		reply_error(rep, ret, "Failed to list the %s events", domain_label(req->domain));
}

void sd_cmd_handle(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep)
{
	*rep = (struct ipc_reply){ 0 };
	switch (req->cmd) {
	case IPC_CMD_PING:
		break;
	case IPC_CMD_CREATE:
		cmd_create(st, req, rep);
		break;
	case IPC_CMD_DESTROY:
		cmd_destroy(st, req, rep);
		break;
	case IPC_CMD_ENABLE_CHANNEL:
		cmd_enable_channel(st, req, rep);
		break;
	case IPC_CMD_ENABLE_EVENT:
		cmd_enable_event(st, req, rep);
		break;
	case IPC_CMD_DISABLE_EVENT:
		cmd_disable_event(st, req, rep);
		break;
	case IPC_CMD_ADD_CONTEXT:
		cmd_add_context(st, req, rep);
		break;
	case IPC_CMD_START:
		cmd_start(st, req, rep);
		break;
	case IPC_CMD_STOP:
		cmd_stop(st, req, rep);
		break;
	case IPC_CMD_LIST_SESSIONS:
		cmd_list_sessions(st, req, rep);
		break;
	case IPC_CMD_LIST_TRACEPOINTS:
		cmd_list_tracepoints(st, req, rep);
		break;
	case IPC_CMD_TRACK:
		cmd_track(st, req, rep);
		break;
	case IPC_CMD_DISABLE_CHANNEL:
		cmd_disable_channel(st, req, rep);
		break;
	default:
		reply_error(rep, -EINVAL,
			    "Unknown command %u: the strata CLI and daemon versions "
			    "differ",
			    req->cmd);
		break;
	}
	if (rep->status < 0 && rep->status != -EALREADY) {
		/* An error reply carries no partial data. */
		ipc_reply_release(rep);
	}
}
