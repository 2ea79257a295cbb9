/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <strata/error.h>

#include "common/ipc-msg.h"
#include "common/common.h"

/* Smallest wire size of each repeated element, for count checks. */
#define WIRE_STR_MIN 4
#define WIRE_EVENT_MIN (WIRE_STR_MIN + 1 + 1 + 1 + 4 + WIRE_STR_MIN + 4 + WIRE_STR_MIN)
#define WIRE_CHANNEL_MIN (WIRE_STR_MIN + 4 + 8 + 4 + 4 + 8 + 4 + 4)
#define WIRE_SESSION_MIN (WIRE_STR_MIN + WIRE_STR_MIN + 2 + 4 + 4)
#define WIRE_TP_MIN (4 + WIRE_STR_MIN + WIRE_STR_MIN + 4 + 1)
#define WIRE_TRACKER_MIN (3 + 4)

int ipc_names_append(char (**names)[IPC_NAME_MAX], uint32_t *nr, const char *name)
{
	char(*p)[IPC_NAME_MAX];

	if (*nr >= IPC_MAX_NAMES)
		return -E2BIG;
	if (strlen(name) >= IPC_NAME_MAX)
		return -ENAMETOOLONG;
	/* Capacity doubles at powers of two, so appends stay linear overall. */
	if ((*nr & (*nr - 1)) == 0) {
		p = realloc(*names, ((size_t)*nr ? (size_t)*nr * 2 : 1) * sizeof(**names));
		if (!p)
			return -ENOMEM;
		*names = p;
	}
	p = *names;
	memset(p[*nr], 0, sizeof(p[*nr]));
	memcpy(p[*nr], name, strlen(name));
	(*nr)++;
	return 0;
}

const char *ipc_domain_name(uint8_t domain)
{
	switch (domain) {
	case IPC_DOMAIN_UST:
		return "ust";
	case IPC_DOMAIN_KERNEL:
		return "kernel";
	default:
		return "none";
	}
}

static void put_names(struct ipc_buf *b, char (*names)[IPC_NAME_MAX], uint32_t nr)
{
	ipc_put_u32(b, nr);
	for (uint32_t i = 0; i < nr; i++)
		ipc_put_str(b, names[i]);
}

static void get_names(struct ipc_reader *r, char (**names)[IPC_NAME_MAX], uint32_t *nr,
		      uint32_t max)
{
	uint32_t n = ipc_get_count(r, max, WIRE_STR_MIN);
	size_t cap = 1;

	*nr = 0;
	*names = NULL;
	if (r->err || n == 0)
		return;
	/* Capacity rounded up to a power of two: ipc_names_append's invariant. */
	while (cap < n)
		cap *= 2;
	*names = calloc(cap, sizeof(**names));
	if (!*names) {
		r->err = -ENOMEM;
		return;
	}
	*nr = n;
	for (uint32_t i = 0; i < n && !r->err; i++)
		ipc_get_str(r, (*names)[i], IPC_NAME_MAX);
}

int ipc_request_encode(const struct ipc_request *req, struct ipc_buf *b)
{
	ipc_buf_init(b);
	ipc_put_u8(b, req->domain);
	ipc_put_u8(b, req->all);
	ipc_put_u8(b, req->snapshot);
	ipc_put_u8(b, req->event_type);
	ipc_put_u8(b, req->loglevel_type);
	ipc_put_i32(b, req->loglevel);
	ipc_put_str(b, req->session);
	ipc_put_str(b, req->output);
	ipc_put_str(b, req->channel);
	ipc_put_u32(b, req->chan_set);
	ipc_put_u64(b, req->subbuf_size);
	ipc_put_u32(b, req->num_subbuf);
	ipc_put_u8(b, req->overwrite);
	ipc_put_u8(b, req->buffers);
	ipc_put_u32(b, req->switch_timer_us);
	put_names(b, req->names, req->nr_names);
	ipc_put_str(b, req->filter ? req->filter : "");
	put_names(b, req->exclusions, req->nr_exclusions);
	ipc_put_u8(b, req->tracker_attr);
	ipc_put_u8(b, req->tracker_remove);
	ipc_put_u8(b, req->regenerate);
	ipc_put_str(b, req->probe);
	return ipc_buf_finish(b, req->cmd);
}

int ipc_request_decode(const void *payload, size_t len, uint16_t type, struct ipc_request *ret)
{
	struct ipc_reader r;
	int err;

	*ret = (struct ipc_request){ 0 };
	if (type == 0 || type >= IPC_CMD_MAX)
		return -STRATA_EPROTO;
	ret->cmd = type;
	ipc_reader_init(&r, payload, len);
	ret->domain = ipc_get_u8(&r);
	ret->all = ipc_get_bool(&r);
	ret->snapshot = ipc_get_bool(&r);
	ret->event_type = ipc_get_u8(&r);
	ret->loglevel_type = ipc_get_u8(&r);
	ret->loglevel = ipc_get_i32(&r);
	ipc_get_str(&r, ret->session, sizeof(ret->session));
	ipc_get_str(&r, ret->output, sizeof(ret->output));
	ipc_get_str(&r, ret->channel, sizeof(ret->channel));
	ret->chan_set = ipc_get_u32(&r);
	ret->subbuf_size = ipc_get_u64(&r);
	ret->num_subbuf = ipc_get_u32(&r);
	ret->overwrite = ipc_get_bool(&r);
	ret->buffers = ipc_get_u8(&r);
	ret->switch_timer_us = ipc_get_u32(&r);
	get_names(&r, &ret->names, &ret->nr_names, IPC_MAX_NAMES);
	ret->filter = ipc_get_strdup(&r, IPC_FILTER_MAX);
	get_names(&r, &ret->exclusions, &ret->nr_exclusions, IPC_MAX_EXCLUSIONS);
	ret->tracker_attr = ipc_get_u8(&r);
	ret->tracker_remove = ipc_get_bool(&r);
	ret->regenerate = ipc_get_u8(&r);
	ipc_get_str(&r, ret->probe, sizeof(ret->probe));
	err = ipc_reader_end(&r);
	if (err < 0) {
		ipc_request_release(ret);
		return err;
	}
	return 0;
}

void ipc_request_release(struct ipc_request *req)
{
	free(req->names);
	req->names = NULL;
	req->nr_names = 0;
	free(req->filter);
	req->filter = NULL;
	free(req->exclusions);
	req->exclusions = NULL;
	req->nr_exclusions = 0;
}

static void put_channel(struct ipc_buf *b, const struct ipc_channel_info *c)
{
	ipc_put_str(b, c->name);
	ipc_put_u8(b, c->domain);
	ipc_put_u8(b, c->enabled);
	ipc_put_u8(b, c->overwrite);
	ipc_put_u8(b, c->buffers);
	ipc_put_u64(b, c->subbuf_size);
	ipc_put_u32(b, c->num_subbuf);
	ipc_put_u32(b, c->switch_timer_us);
	ipc_put_u64(b, c->discarded);
	ipc_put_u32(b, c->nr_events);
	for (uint32_t i = 0; i < c->nr_events; i++) {
		const struct ipc_event_info *e = &c->events[i];

		ipc_put_str(b, e->name);
		ipc_put_u8(b, e->type);
		ipc_put_u8(b, e->enabled);
		ipc_put_u8(b, e->loglevel_type);
		ipc_put_i32(b, e->loglevel);
		ipc_put_str(b, e->filter ? e->filter : "");
		put_names(b, e->exclusions, e->nr_exclusions);
		ipc_put_str(b, e->probe ? e->probe : "");
	}
	put_names(b, c->contexts, c->nr_contexts);
}

/* A probe location: "" on the wire is none (NULL). */
static void get_probe(struct ipc_reader *r, char **ret)
{
	char *buf = malloc(IPC_PATH_MAX);

	*ret = NULL;
	if (!buf) {
		r->err = -ENOMEM;
		return;
	}
	ipc_get_str(r, buf, IPC_PATH_MAX);
	if (r->err || !buf[0]) {
		free(buf);
		return;
	}
	*ret = buf;
}

static void get_channel(struct ipc_reader *r, struct ipc_channel_info *c)
{
	uint32_t n;

	ipc_get_str(r, c->name, sizeof(c->name));
	c->domain = ipc_get_u8(r);
	c->enabled = ipc_get_bool(r);
	c->overwrite = ipc_get_bool(r);
	c->buffers = ipc_get_u8(r);
	c->subbuf_size = ipc_get_u64(r);
	c->num_subbuf = ipc_get_u32(r);
	c->switch_timer_us = ipc_get_u32(r);
	c->discarded = ipc_get_u64(r);
	n = ipc_get_count(r, IPC_MAX_EVENTS, WIRE_EVENT_MIN);
	if (n) {
		c->events = calloc(n, sizeof(*c->events));
		if (!c->events) {
			r->err = -ENOMEM;
			return;
		}
		c->nr_events = n;
	}
	for (uint32_t i = 0; i < n && !r->err; i++) {
		struct ipc_event_info *e = &c->events[i];

		ipc_get_str(r, e->name, sizeof(e->name));
		e->type = ipc_get_u8(r);
		e->enabled = ipc_get_bool(r);
		e->loglevel_type = ipc_get_u8(r);
		e->loglevel = ipc_get_i32(r);
		e->filter = ipc_get_strdup(r, IPC_FILTER_MAX);
		get_names(r, &e->exclusions, &e->nr_exclusions, IPC_MAX_EXCLUSIONS);
		get_probe(r, &e->probe);
	}
	get_names(r, &c->contexts, &c->nr_contexts, IPC_MAX_CONTEXTS);
}

int ipc_reply_encode(const struct ipc_reply *rep, struct ipc_buf *b)
{
	ipc_buf_init(b);
	ipc_put_i32(b, rep->status);
	ipc_put_str(b, rep->message);
	ipc_put_str(b, rep->session);
	ipc_put_str(b, rep->output);
	ipc_put_str(b, rep->channel);
	put_names(b, rep->names, rep->nr_names);
	ipc_put_u32(b, rep->nr_sessions);
	for (uint32_t i = 0; i < rep->nr_sessions; i++) {
		const struct ipc_session_info *s = &rep->sessions[i];

		ipc_put_str(b, s->name);
		ipc_put_str(b, s->output);
		ipc_put_u8(b, s->active);
		ipc_put_u8(b, s->snapshot);
		ipc_put_u32(b, s->nr_channels);
		for (uint32_t j = 0; j < s->nr_channels; j++)
			put_channel(b, &s->channels[j]);
		ipc_put_u32(b, s->nr_trackers);
		for (uint32_t j = 0; j < s->nr_trackers; j++) {
			const struct ipc_tracker_info *t = &s->trackers[j];

			ipc_put_u8(b, t->domain);
			ipc_put_u8(b, t->attr);
			ipc_put_u8(b, t->policy);
			put_names(b, t->values, t->nr_values);
		}
	}
	ipc_put_u32(b, rep->nr_tracepoints);
	for (uint32_t i = 0; i < rep->nr_tracepoints; i++) {
		const struct ipc_tracepoint_info *t = &rep->tracepoints[i];

		ipc_put_i32(b, t->pid);
		ipc_put_str(b, t->procname);
		ipc_put_str(b, t->name);
		ipc_put_i32(b, t->loglevel);
		ipc_put_u8(b, t->type);
	}
	return ipc_buf_finish(b, IPC_MSG_REPLY);
}

int ipc_reply_decode(const void *payload, size_t len, struct ipc_reply *ret)
{
	struct ipc_reader r;
	uint32_t n;
	int err;

	*ret = (struct ipc_reply){ 0 };
	ipc_reader_init(&r, payload, len);
	ret->status = ipc_get_i32(&r);
	ipc_get_str(&r, ret->message, sizeof(ret->message));
	ipc_get_str(&r, ret->session, sizeof(ret->session));
	ipc_get_str(&r, ret->output, sizeof(ret->output));
	ipc_get_str(&r, ret->channel, sizeof(ret->channel));
	get_names(&r, &ret->names, &ret->nr_names, IPC_MAX_NAMES);
	n = ipc_get_count(&r, IPC_MAX_SESSIONS, WIRE_SESSION_MIN);
	if (n) {
		ret->sessions = calloc(n, sizeof(*ret->sessions));
		if (!ret->sessions)
			r.err = -ENOMEM;
		else
			ret->nr_sessions = n;
	}
	for (uint32_t i = 0; i < ret->nr_sessions && !r.err; i++) {
		struct ipc_session_info *s = &ret->sessions[i];
		uint32_t nc;

		ipc_get_str(&r, s->name, sizeof(s->name));
		ipc_get_str(&r, s->output, sizeof(s->output));
		s->active = ipc_get_bool(&r);
		s->snapshot = ipc_get_bool(&r);
		nc = ipc_get_count(&r, IPC_MAX_CHANNELS, WIRE_CHANNEL_MIN);
		if (nc) {
			s->channels = calloc(nc, sizeof(*s->channels));
			if (!s->channels) {
				r.err = -ENOMEM;
				break;
			}
			s->nr_channels = nc;
		}
		for (uint32_t j = 0; j < nc && !r.err; j++)
			get_channel(&r, &s->channels[j]);
		nc = ipc_get_count(&r, 2 * IPC_TRACKER_COUNT, WIRE_TRACKER_MIN);
		if (nc) {
			s->trackers = calloc(nc, sizeof(*s->trackers));
			if (!s->trackers) {
				r.err = -ENOMEM;
				break;
			}
			s->nr_trackers = nc;
		}
		for (uint32_t j = 0; j < nc && !r.err; j++) {
			struct ipc_tracker_info *t = &s->trackers[j];

			t->domain = ipc_get_u8(&r);
			t->attr = ipc_get_u8(&r);
			t->policy = ipc_get_u8(&r);
			get_names(&r, &t->values, &t->nr_values, IPC_MAX_TRACKER_VALUES);
		}
	}
	n = ipc_get_count(&r, IPC_MAX_TRACEPOINTS, WIRE_TP_MIN);
	if (n) {
		ret->tracepoints = calloc(n, sizeof(*ret->tracepoints));
		if (!ret->tracepoints)
			r.err = -ENOMEM;
		else
			ret->nr_tracepoints = n;
	}
	for (uint32_t i = 0; i < ret->nr_tracepoints && !r.err; i++) {
		struct ipc_tracepoint_info *t = &ret->tracepoints[i];

		t->pid = ipc_get_i32(&r);
		ipc_get_str(&r, t->procname, sizeof(t->procname));
		ipc_get_str(&r, t->name, sizeof(t->name));
		t->loglevel = ipc_get_i32(&r);
		t->type = ipc_get_u8(&r);
	}
	err = ipc_reader_end(&r);
	if (err < 0) {
		ipc_reply_release(ret);
		return err;
	}
	return 0;
}

void ipc_reply_release(struct ipc_reply *rep)
{
	for (uint32_t i = 0; i < rep->nr_sessions; i++) {
		struct ipc_session_info *s = &rep->sessions[i];

		for (uint32_t j = 0; j < s->nr_channels; j++) {
			for (uint32_t k = 0; k < s->channels[j].nr_events; k++) {
				free(s->channels[j].events[k].filter);
				free(s->channels[j].events[k].exclusions);
				free(s->channels[j].events[k].probe);
			}
			free(s->channels[j].events);
			free(s->channels[j].contexts);
		}
		free(s->channels);
		for (uint32_t j = 0; j < s->nr_trackers; j++)
			free(s->trackers[j].values);
		free(s->trackers);
	}
	free(rep->sessions);
	free(rep->tracepoints);
	free(rep->names);
	rep->sessions = NULL;
	rep->tracepoints = NULL;
	rep->names = NULL;
	rep->nr_sessions = rep->nr_tracepoints = rep->nr_names = 0;
}
