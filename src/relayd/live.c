/* SPDX-License-Identifier: MIT */
/*
 * LTTng's live viewer protocol, relay side (relayd.h; layouts in
 * common/lttng-viewer.h), with lttng-relayd 2.13's answers: what
 * babeltrace2's lttng-live source and Trace Compass expect.
 *
 * Where strata-relayd differs, on purpose: several viewers may attach to a
 * session at once (each has its own position in every stream; the session
 * list counts them as clients), a stream's index answers HUP only once the
 * stream is closed (not as soon as the session's control connection is,
 * while its data may still come), and a viewer's reads are checked against
 * what was written: packet reads stay within whole packets.
 *
 * A viewer's streams (struct rd_vstream) are made when it attaches or asks
 * for new streams, for the published streams of traces that have a
 * metadata stream; each keeps how many index entries and metadata bytes it
 * was sent:
 *
 *   stream index entries:  0 1 2 3 4 5 6 7      (rd_stream.index_count = 8)
 *   viewer A (attached SEEK_LAST at 6):   ^ index_sent = 6: entry 6 next
 *   viewer B (new stream, from the first): ^ index_sent = 0
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relayd/relayd.h"
#include "common/lttng-viewer.h"
#include "common/common.h"

/* Streams announced per reply at most; the rest come with the next GET_NEW_STREAMS. */
#define STREAMS_PER_REPLY 1024u

static size_t request_size(uint32_t cmd)
{
	switch (cmd) {
	case LV_CMD_CONNECT:
		return LV_CONNECT_SIZE;
	case LV_CMD_ATTACH_SESSION:
	case LV_CMD_GET_PACKET:
		return 20;
	case LV_CMD_GET_NEXT_INDEX:
	case LV_CMD_GET_METADATA:
	case LV_CMD_GET_NEW_STREAMS:
	case LV_CMD_DETACH_SESSION:
		return LV_ID_REQ_SIZE;
	default:
		return 0;
	}
}

static struct rd_vstream *vstream_find(struct rd_viewer *v, uint64_t id)
{
	struct rd_hnode *n = rd_htab_find(&v->vstreams, id);

	return n ? container_of(n, struct rd_vstream, hnode) : NULL;
}

static struct rd_attach *attach_find(struct rd_viewer *v, const struct rd_session *s)
{
	struct rd_list *l;

	rd_list_for_each(l, &v->attaches)
	{
		struct rd_attach *a = container_of(l, struct rd_attach, vnode);

		if (a->session == s)
			return a;
	}
	return NULL;
}

static bool session_closed(const struct rd_session *s)
{
	return !s->control || s->aborted;
}

static bool trace_known(struct rd_viewer *v, struct rd_session *s, const struct rd_trace *t)
{
	struct rd_list *l;

	rd_list_for_each(l, &s->streams)
	{
		struct rd_stream *st = container_of(l, struct rd_stream, node);

		if (st->trace == t && vstream_find(v, st->handle))
			return true;
	}
	return false;
}

/*
 * Make the viewer's streams of s (lttng-relayd's make_viewer_streams()):
 * returns how many were made, and in *ret_total the streams that still
 * have something to give, which decides GET_NEW_STREAMS' HUP.
 */
static int make_vstreams(struct rd_attach *a, enum lv_seek seek, uint32_t *ret_total)
{
	struct rd_viewer *v = a->viewer;
	struct rd_session *s = a->session;
	struct rd_list *l;
	uint32_t total = 0;
	int made = 0;

	rd_list_for_each(l, &s->streams)
	{
		struct rd_stream *st = container_of(l, struct rd_stream, node);
		struct rd_vstream *vs;

		/* A trace without metadata is not shown (yet). */
		if (!st->published || (!st->trace->metadata && !trace_known(v, s, st->trace)))
			continue;
		vs = vstream_find(v, st->handle);
		/*
		 * A viewer attaching from now on has nothing to read in a closed
		 * stream (lttng-relayd hides them too); one attached before gets
		 * the streams that closed since it last asked, and their data.
		 */
		if (!vs && st->closed && seek == LV_SEEK_LAST)
			continue;
		if (!vs) {
			vs = calloc(1, sizeof(*vs));
			if (!vs)
				return -ENOMEM;
			vs->hnode.key = st->handle;
			vs->att = a;
			vs->stream = st;
			vs->index_sent =
				seek == LV_SEEK_LAST ? st->index_count : rd_stream_oldest_entry(st);
			if (rd_htab_add(&v->vstreams, &vs->hnode) < 0) {
				free(vs);
				return -ENOMEM;
			}
			made++;
		}
		if (st->is_metadata ? !st->closed || st->metadata_bytes > vs->metadata_sent :
				      !st->closed)
			total++;
	}
	if (ret_total)
		*ret_total = total;
	return made;
}

/* A NUL-padded string field of cap bytes (already zeroed), cut to fit. */
static void put_str(uint8_t *dst, size_t cap, const char *s)
{
	memcpy(dst, s, strnlen(s, cap - 1));
}

static void stream_entry(uint8_t *e, const struct rd_stream *st)
{
	memset(e, 0, LV_STREAM_SIZE);
	be64_put(e, st->handle);
	be64_put(e + 8, st->trace->id);
	be32_put(e + 16, st->is_metadata);
	put_str(e + LV_STREAM_OFF_PATH, LV_PATH_MAX, st->trace->path);
	put_str(e + LV_STREAM_OFF_CHANNEL, LV_NAME_MAX, st->channel);
}

/*
 * Reply {status, count} and the viewer's streams of a's session: all of
 * them (attach) or those not announced yet; at most STREAMS_PER_REPLY.
 */
static int send_streams(struct rd_conn *c, struct rd_attach *a, uint32_t status, bool all)
{
	struct rd_list *l;
	uint32_t n = 0;
	uint8_t head[LV_STREAMS_REPLY_SIZE];
	size_t at;

	be32_put(head, status);
	be32_put(head + 4, 0);
	at = c->out.len;
	if (rd_conn_send(c, head, sizeof(head)) < 0)
		return -ENOMEM;
	rd_list_for_each(l, &a->session->streams)
	{
		struct rd_stream *st = container_of(l, struct rd_stream, node);
		struct rd_vstream *vs = vstream_find(c->viewer, st->handle);

		if (!vs || vs->att != a || (vs->sent && !all))
			continue;
		if (n == STREAMS_PER_REPLY) {
			a->new_streams = true;
			break;
		}
		if (rd_buf_reserve(&c->out, LV_STREAM_SIZE) < 0)
			return -ENOMEM;
		stream_entry(c->out.data + c->out.len, st);
		c->out.len += LV_STREAM_SIZE;
		vs->sent = true;
		n++;
	}
	be32_put(c->out.data + at + 4, n);
	return 0;
}

static int cmd_connect(struct rd_conn *c, const uint8_t *p)
{
	uint8_t reply[LV_CONNECT_SIZE] = { 0 };
	uint32_t type = be32_get(p + 16);

	if (be32_get(p + 8) != LV_VERSION_MAJOR) {
		rd_conn_kill(c, "viewer protocol %u.%u: strata-relayd speaks 2.x", be32_get(p + 8),
			     be32_get(p + 12));
		return 0;
	}
	if (type != LV_CLIENT_COMMAND && type != LV_CLIENT_NOTIFICATION) {
		rd_conn_kill(c, "unknown viewer connection type %u", type);
		return 0;
	}
	c->viewer->connected = true;
	c->viewer->minor = MIN(be32_get(p + 12), (uint32_t)LV_VERSION_MINOR);
	if (type == LV_CLIENT_COMMAND)
		be64_put(reply, c->viewer->id = ++c->relay->next_viewer_id);
	be32_put(reply + 8, LV_VERSION_MAJOR);
	be32_put(reply + 12, LV_VERSION_MINOR);
	return rd_conn_send(c, reply, sizeof(reply));
}

static int cmd_list(struct rd_conn *c)
{
	struct rd_list *l;
	uint32_t n = 0;
	uint8_t head[4];
	size_t at = c->out.len;

	if (rd_conn_send(c, head, sizeof(head)) < 0)
		return -ENOMEM;
	rd_list_for_each(l, &c->relay->sessions)
	{
		struct rd_session *s = container_of(l, struct rd_session, node);
		uint8_t *e;

		if (session_closed(s))
			continue;
		if (rd_buf_reserve(&c->out, LV_SESSION_SIZE) < 0)
			return -ENOMEM;
		e = c->out.data + c->out.len;
		memset(e, 0, LV_SESSION_SIZE);
		be64_put(e, s->id);
		be32_put(e + 8, s->live_timer);
		be32_put(e + 12, s->viewers);
		be32_put(e + 16, s->stream_count);
		put_str(e + LV_SESSION_OFF_HOSTNAME, LV_HOST_NAME_MAX, s->hostname);
		put_str(e + LV_SESSION_OFF_NAME, LV_NAME_MAX, s->name);
		c->out.len += LV_SESSION_SIZE;
		n++;
	}
	be32_put(c->out.data + at, n);
	return 0;
}

static int status_reply(struct rd_conn *c, uint32_t status, size_t size)
{
	uint8_t b[LV_STREAMS_REPLY_SIZE] = { 0 };

	be32_put(b, status);
	return rd_conn_send(c, b, size);
}

static int cmd_attach(struct rd_conn *c, const uint8_t *p)
{
	struct rd_viewer *v = c->viewer;
	struct rd_session *s = rd_session_find(c->relay, be64_get(p));
	uint32_t seek = be32_get(p + 16);
	struct rd_attach *a;
	int ret;

	if (!v->created)
		return status_reply(c, LV_ATTACH_NO_SESSION, LV_STREAMS_REPLY_SIZE);
	if (!s || session_closed(s))
		return status_reply(c, LV_ATTACH_UNK, LV_STREAMS_REPLY_SIZE);
	if (!s->live_timer)
		return status_reply(c, LV_ATTACH_NOT_LIVE, LV_STREAMS_REPLY_SIZE);
	if (attach_find(v, s))
		return status_reply(c, LV_ATTACH_ALREADY, LV_STREAMS_REPLY_SIZE);
	if (seek != LV_SEEK_BEGINNING && seek != LV_SEEK_LAST)
		return status_reply(c, LV_ATTACH_SEEK_ERR, LV_STREAMS_REPLY_SIZE);
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->viewer = v;
	a->session = s;
	rd_list_add(&v->attaches, &a->vnode);
	rd_list_add(&s->attaches, &a->snode);
	rd_session_ref(s);
	s->viewers++;
	ret = make_vstreams(a, seek, NULL);
	if (ret < 0)
		return ret;
	log_info("Viewer %" PRIu64 " (%s) attached to session '%s' of host '%s'", v->id,
		 c->peer_str, s->name, s->hostname);
	return send_streams(c, a, LV_ATTACH_OK, true);
}

static void vstreams_drop(struct rd_viewer *v, struct rd_attach *a)
{
	for (size_t i = 0; v->vstreams.b && i <= v->vstreams.mask; i++) {
		struct rd_hnode *n = v->vstreams.b[i], *next;

		for (; n; n = next) {
			struct rd_vstream *vs = container_of(n, struct rd_vstream, hnode);

			next = n->next;
			if (vs->att == a) {
				rd_htab_del(&v->vstreams, n);
				free(vs);
			}
		}
	}
}

static void detach(struct rd_attach *a)
{
	struct rd_session *s = a->session;

	vstreams_drop(a->viewer, a);
	rd_list_del(&a->vnode);
	rd_list_del(&a->snode);
	s->viewers--;
	free(a);
	rd_session_unref(s);
}

static int cmd_detach(struct rd_conn *c, const uint8_t *p)
{
	struct rd_session *s = rd_session_find(c->relay, be64_get(p));
	struct rd_attach *a;

	if (!c->viewer->created)
		return status_reply(c, LV_DETACH_ERR, LV_STATUS_SIZE);
	if (!s)
		return status_reply(c, LV_DETACH_UNK, LV_STATUS_SIZE);
	a = attach_find(c->viewer, s);
	if (!a)
		return status_reply(c, LV_DETACH_ERR, LV_STATUS_SIZE);
	detach(a);
	return status_reply(c, LV_DETACH_OK, LV_STATUS_SIZE);
}

static int cmd_new_streams(struct rd_conn *c, const uint8_t *p)
{
	struct rd_session *s = rd_session_find(c->relay, be64_get(p));
	struct rd_attach *a = s ? attach_find(c->viewer, s) : NULL;
	uint32_t total = 0;
	int ret;

	if (!a)
		return status_reply(c, LV_NEW_STREAMS_ERR, LV_STREAMS_REPLY_SIZE);
	ret = make_vstreams(a, LV_SEEK_BEGINNING, &total);
	if (ret < 0)
		return ret;
	a->new_streams = false;
	if (session_closed(s) && total == 0)
		return status_reply(c, LV_NEW_STREAMS_HUP, LV_STREAMS_REPLY_SIZE);
	return send_streams(c, a, LV_NEW_STREAMS_OK, false);
}

/* NEW_METADATA: the trace's metadata grew past what this viewer got (or is empty). */
static uint32_t metadata_flag(struct rd_viewer *v, const struct rd_stream *st)
{
	const struct rd_stream *m = st->trace->metadata;
	const struct rd_vstream *mv = m ? vstream_find(v, m->handle) : NULL;

	return mv && (!m->metadata_bytes || m->metadata_bytes > mv->metadata_sent) ?
		       LV_FLAG_NEW_METADATA :
		       0;
}

static uint32_t new_streams_flag(struct rd_viewer *v)
{
	struct rd_list *l;

	rd_list_for_each(l, &v->attaches) if (container_of(l, struct rd_attach, vnode)
						      ->new_streams) return LV_FLAG_NEW_STREAM;
	return 0;
}

static int cmd_next_index(struct rd_conn *c, const uint8_t *p)
{
	struct rd_vstream *vs = vstream_find(c->viewer, be64_get(p));
	uint8_t r[LV_INDEX_SIZE] = { 0 };
	struct rd_stream *st;
	uint32_t status, flags = 0;
	uint64_t oldest;

	if (!vs) {
		be32_put(r + 56, LV_INDEX_ERR);
		return rd_conn_send(c, r, sizeof(r));
	}
	st = vs->stream;
	oldest = rd_stream_oldest_entry(st);
	/* Entries overwritten (tracefile_count) are skipped, as lttng-relayd does. */
	if (vs->index_sent < oldest)
		vs->index_sent = oldest;
	if (st->is_metadata) {
		status = LV_INDEX_HUP;
	} else if ((st->closed || st->session->aborted) && st->index_count == vs->index_sent) {
		status = LV_INDEX_HUP;
		vs->hup = true;
	} else if (st->index_count <= vs->index_sent && st->beacon_ts != UINT64_MAX) {
		status = LV_INDEX_INACTIVE;
		be64_put(r + 32, st->beacon_ts);
		be64_put(r + 48, st->ctf_stream_id);
	} else if (st->index_count <= vs->index_sent) {
		status = LV_INDEX_RETRY;
	} else {
		int ret = rd_stream_read_index(st, vs->index_sent, r, &vs->file);

		if (ret < 0) {
			log_warn("Failed to read index entry %" PRIu64 " of stream '%s' (session "
				 "'%s'): %s",
				 vs->index_sent, st->channel, st->session->name, strerror(-ret));
			status = LV_INDEX_ERR;
		} else {
			status = LV_INDEX_OK;
			vs->index_sent++;
		}
	}
	flags = metadata_flag(c->viewer, st) | new_streams_flag(c->viewer);
	be32_put(r + 56, status);
	be32_put(r + 60, flags);
	return rd_conn_send(c, r, sizeof(r));
}

static int cmd_get_packet(struct rd_conn *c, const uint8_t *p)
{
	struct rd_vstream *vs = vstream_find(c->viewer, be64_get(p));
	uint64_t off = be64_get(p + 8);
	uint32_t len = be32_get(p + 16);
	uint8_t head[LV_PACKET_REPLY_SIZE] = { 0 };
	int ret;

	if (!vs || vs->stream->is_metadata || len == 0 || len > RD_VIEWER_PACKET_MAX)
		goto err;
	if (rd_buf_reserve(&c->out, sizeof(head) + len) < 0)
		return -ENOMEM;
	ret = rd_stream_read_data(vs->stream, vs->file, off,
				  c->out.data + c->out.len + sizeof(head), len);
	if (ret < 0)
		goto err;
	be32_put(head, LV_PACKET_OK);
	be32_put(head + 4, len);
	memcpy(c->out.data + c->out.len, head, sizeof(head));
	c->out.len += sizeof(head) + len;
	return 0;
err:
	be32_put(head, LV_PACKET_ERR);
	return rd_conn_send(c, head, sizeof(head));
}

static int cmd_get_metadata(struct rd_conn *c, const uint8_t *p)
{
	struct rd_vstream *vs = vstream_find(c->viewer, be64_get(p));
	uint8_t head[LV_METADATA_REPLY_SIZE] = { 0 };
	struct rd_stream *st;
	uint64_t len;
	int ret;

	if (!vs || !vs->stream->is_metadata || vs->hup) {
		be32_put(head + 8, LV_METADATA_ERR);
		return rd_conn_send(c, head, sizeof(head));
	}
	st = vs->stream;
	if (vs->metadata_sent >= st->metadata_bytes) {
		/* Once all of a closed stream went, the next ask is an error (2.13.12). */
		if (st->closed && vs->metadata_sent > 0)
			vs->hup = true;
		be32_put(head + 8, LV_METADATA_NO_NEW);
		return rd_conn_send(c, head, sizeof(head));
	}
	len = MIN(st->metadata_bytes - vs->metadata_sent, (uint64_t)RD_VIEWER_METADATA_MAX);
	if (rd_buf_reserve(&c->out, sizeof(head) + (size_t)len) < 0)
		return -ENOMEM;
	ret = rd_stream_read_metadata(st, vs->metadata_sent,
				      c->out.data + c->out.len + sizeof(head), (size_t)len);
	if (ret < 0) {
		log_warn("Failed to read the metadata of session '%s': %s", st->session->name,
			 strerror(-ret));
		be32_put(head + 8, LV_METADATA_ERR);
		return rd_conn_send(c, head, sizeof(head));
	}
	vs->metadata_sent += len;
	be64_put(head, len);
	be32_put(head + 8, LV_METADATA_OK);
	memcpy(c->out.data + c->out.len, head, sizeof(head));
	c->out.len += sizeof(head) + (size_t)len;
	return 0;
}

static int dispatch(struct rd_conn *c, uint32_t cmd, const uint8_t *p)
{
	struct rd_viewer *v = c->viewer;

	if (cmd == LV_CMD_CONNECT)
		return cmd_connect(c, p);
	if (!v->connected) {
		rd_conn_kill(c, "viewer command %u before CONNECT", cmd);
		return 0;
	}
	switch (cmd) {
	case LV_CMD_LIST_SESSIONS:
		return cmd_list(c);
	case LV_CMD_CREATE_SESSION:
		v->created = true;
		return status_reply(c, LV_CREATE_OK, LV_STATUS_SIZE);
	case LV_CMD_ATTACH_SESSION:
		return cmd_attach(c, p);
	case LV_CMD_DETACH_SESSION:
		return cmd_detach(c, p);
	case LV_CMD_GET_NEW_STREAMS:
		return cmd_new_streams(c, p);
	case LV_CMD_GET_NEXT_INDEX:
		return cmd_next_index(c, p);
	case LV_CMD_GET_PACKET:
		return cmd_get_packet(c, p);
	case LV_CMD_GET_METADATA:
		return cmd_get_metadata(c, p);
	default:
		/* As lttng-relayd: say so, then hang up. */
		status_reply(c, 11 /* LTTNG_ERR_UNK */, LV_STATUS_SIZE);
		rd_conn_kill(c, "unknown viewer command %u", cmd);
		return 0;
	}
}

int rd_live_process(struct rd_conn *c)
{
	if (!c->viewer) {
		c->viewer = calloc(1, sizeof(*c->viewer));
		if (!c->viewer)
			return -ENOMEM;
		c->viewer->attaches = RD_LIST_INIT(c->viewer->attaches);
	}
	/* One request at a time: the next is read once the reply went. */
	while (!c->dead && rd_buf_avail(&c->out) == 0) {
		const uint8_t *h = rd_buf_head(&c->in);
		uint32_t cmd;
		size_t size;
		int ret;

		if (rd_buf_avail(&c->in) < LV_HEADER_SIZE)
			return 0;
		/* The size is the command's, whatever data_size says (see lttng-viewer.h). */
		cmd = be32_get(h + 8);
		size = request_size(cmd);
		if (rd_buf_avail(&c->in) < LV_HEADER_SIZE + size)
			return 0;
		ret = dispatch(c, cmd, h + LV_HEADER_SIZE);
		if (ret < 0)
			return ret;
		rd_buf_consume(&c->in, LV_HEADER_SIZE + size);
		c->said_hello = true;
	}
	return 0;
}

void rd_live_closed(struct rd_conn *c)
{
	struct rd_viewer *v = c->viewer;
	struct rd_list *l, *t;

	if (!v)
		return;
	rd_list_for_each_safe(l, t, &v->attaches) detach(container_of(l, struct rd_attach, vnode));
	rd_htab_release(&v->vstreams);
	free(v);
	c->viewer = NULL;
}
