/* SPDX-License-Identifier: MIT */
/*
 * The control connection of LTTng's streaming protocol (relayd.h): one
 * command at a time, HEADER(24) then its payload, one reply each (but
 * SEND_METADATA). Layouts follow lttng-tools' sessiond-comm/relayd.h for
 * protocol 2.4 to 2.13; every integer is big-endian.
 *
 *   header:   circuit_id 0:8 (ignored), data_size 8:8, cmd 16:4, cmd_version 20:4
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "relayd/relayd.h"
#include "common/lttng-viewer.h"
#include "common/common.h"

enum {
	CMD_ADD_STREAM = 1,
	CMD_CREATE_SESSION = 2,
	CMD_START_DATA = 3,
	CMD_VERSION = 5,
	CMD_SEND_METADATA = 6,
	CMD_CLOSE_STREAM = 7,
	CMD_DATA_PENDING = 8,
	CMD_QUIESCENT_CONTROL = 9,
	CMD_BEGIN_DATA_PENDING = 10,
	CMD_END_DATA_PENDING = 11,
	CMD_SEND_INDEX = 13,
	CMD_STREAMS_SENT = 16,
	CMD_RESET_METADATA = 17,
	CMD_ROTATE_STREAMS = 18,
	CMD_CREATE_TRACE_CHUNK = 19,
	CMD_CLOSE_TRACE_CHUNK = 20,
	CMD_TRACE_CHUNK_EXISTS = 21,
	CMD_GET_CONFIGURATION = 22,
};

/* lttng-error.h */
enum {
	LTTNG_OK = 10,
	LTTNG_ERR_UNK = 11,
	LTTNG_ERR_FATAL = 25,
	LTTNG_ERR_NOMEM = 26,
	LTTNG_ERR_INVALID = 97,
	LTTNG_ERR_INVALID_PROTOCOL = 152,
	LTTNG_ERR_FILE_CREATION_ERROR = 153,
};

#define HEADER_SIZE 24
#define CHANNEL_NAME_MAX 264 /* ADD_STREAM's channel_name field */
#define PATHNAME_2_2_MAX 4096
#define PATHNAME_2_11_MAX 255 /* LTTNG_NAME_MAX, as lttng-relayd checks it */
/* Replies stop being queued past this: the peer must read them first. */
#define OUT_PENDING_MAX (64u << 10)

static int reply_code(struct rd_conn *c, uint32_t code)
{
	uint8_t b[4];

	be32_put(b, code);
	return rd_conn_send(c, b, sizeof(b));
}

/* A NUL-terminated string in a fixed field of len bytes, or NULL. */
static const char *field_str(const uint8_t *p, size_t len)
{
	return memchr(p, '\0', len) ? (const char *)p : NULL;
}

/* The stream of this control connection's session named by handle, or NULL. */
static struct rd_stream *own_stream(struct rd_conn *c, uint64_t handle)
{
	struct rd_stream *st = rd_stream_find(c->relay, handle);

	return st && st->session == c->session ? st : NULL;
}

static int cmd_version(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	uint8_t b[8];
	uint32_t major, minor;

	if (n < 8)
		return -EPROTO;
	major = be32_get(p);
	minor = be32_get(p + 4);
	be32_put(b, RD_VERSION_MAJOR);
	be32_put(b + 4, RD_VERSION_MINOR);
	if (rd_conn_send(c, b, sizeof(b)) < 0)
		return -ENOMEM;
	if (major != RD_VERSION_MAJOR) {
		rd_conn_kill(c, "protocol %u.%u: strata-relayd speaks 2.x", major, minor);
		return 0;
	}
	c->major = major;
	c->minor = MIN(minor, (uint32_t)RD_VERSION_MINOR);
	if (c->minor < RD_VERSION_MINOR_MIN) {
		rd_conn_kill(c, "protocol 2.%u: strata-relayd needs 2.%u or later", c->minor,
			     RD_VERSION_MINOR_MIN);
		return 0;
	}
	c->versioned = true;
	return 0;
}

/* The 2.11 form: lengths, then the names back to back, each NUL-terminated. */
static int create_session_2_11(struct rd_conn *c, const uint8_t *p, uint64_t n,
			       struct rd_session_params *sp, char *base_path)
{
	uint32_t name_len, host_len, base_len;
	static const uint8_t nil[16];
	const char *name, *host, *base;

	if (n < 59)
		return -EPROTO;
	name_len = be32_get(p);
	host_len = be32_get(p + 4);
	base_len = be32_get(p + 8);
	if (name_len == 0 || name_len > 255 || host_len == 0 || host_len > 64 || base_len > 4096 ||
	    n < 59 + (uint64_t)name_len + host_len + base_len)
		return -EPROTO;
	name = (const char *)p + 59;
	host = name + name_len;
	base = host + host_len;
	if (name[name_len - 1] || host[host_len - 1] || (base_len && base[base_len - 1]))
		return -EPROTO;
	if (!memcmp(p + 18, nil, 16)) {
		rd_conn_kill(c, "nil session daemon UUID (reserved for peers before 2.11)");
		return -EPROTO;
	}
	sp->name = name;
	sp->hostname = host;
	snprintf(base_path, 4097, "%s", base_len ? base : "");
	sp->live_timer = be32_get(p + 12);
	sp->snapshot = p[16] != 0;
	sp->name_has_time = p[17] != 0;
	sp->sessiond_uuid = p + 18;
	sp->id_sessiond = be64_get(p + 34);
	sp->creation_time = (int64_t)be64_get(p + 42);
	sp->has_current_chunk = p[50] != 0;
	sp->current_chunk_id = be64_get(p + 51);
	return 0;
}

static int cmd_create_session(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	struct rd_session_params sp = { .minor = c->minor, .creation_time = -1 };
	struct rd_session *s = NULL;
	char base_path[4097] = "";
	uint8_t reply[16];
	int ret;

	if (c->session) {
		rd_conn_kill(c, "a second CREATE_SESSION on one connection");
		return 0;
	}
	sp.base_path = base_path;
	if (c->minor < 11) {
		/* 2_4 form: session_name[255], hostname[64], live_timer u32, snapshot u32 */
		if (n < 327)
			return -EPROTO;
		sp.name = field_str(p, 255);
		sp.hostname = field_str(p + 255, 64);
		if (!sp.name || !sp.hostname)
			return -EPROTO;
		sp.live_timer = be32_get(p + 319);
		sp.snapshot = be32_get(p + 323) != 0;
		sp.creation_time = (int64_t)time(NULL);
		ret = 0;
	} else {
		ret = create_session_2_11(c, p, n, &sp, base_path);
	}
	if (ret == 0)
		ret = rd_session_create(c->relay, c, &sp, &s);
	if (ret == 0 && sp.has_current_chunk) {
		/* A chunk the peer made elsewhere: not known here. */
		log_warn("Session '%s': refusing current chunk %" PRIu64 " named at creation",
			 s->name, sp.current_chunk_id);
		s->control = NULL;
		rd_session_unref(s);
		s = NULL;
		ret = -ENOTSUP;
	}
	memset(reply, 0, sizeof(reply));
	be64_put(reply, s ? s->id : 0);
	be32_put(reply + 8, ret == 0 ? LTTNG_OK : LTTNG_ERR_FATAL);
	if (c->minor < 11) {
		if (rd_conn_send(c, reply, 12) < 0)
			return -ENOMEM;
	} else {
		uint32_t len = s ? (uint32_t)strlen(s->output_path) + 1 : 0;

		be32_put(reply + 12, len);
		if (rd_conn_send(c, reply, 16) < 0 ||
		    (len && rd_conn_send(c, s->output_path, len) < 0))
			return -ENOMEM;
	}
	if (ret < 0) {
		rd_conn_kill(c, "the session could not be created: %s", strerror(-ret));
		return 0;
	}
	c->session = s;
	return 0;
}

static int cmd_add_stream(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	struct rd_stream *st = NULL;
	uint64_t tf_size, tf_count;
	const char *channel, *path;
	char chan_buf[CHANNEL_NAME_MAX + 1], path_buf[PATHNAME_2_2_MAX + 1];
	uint8_t reply[12];
	int ret;

	if (c->minor < 11) {
		/* 2.2 form: channel_name[264], pathname[4096], tracefile_size, tracefile_count */
		if (n < 4376)
			return -EPROTO;
		channel = field_str(p, CHANNEL_NAME_MAX);
		path = field_str(p + CHANNEL_NAME_MAX, PATHNAME_2_2_MAX);
		if (!channel || !path)
			return -EPROTO;
		tf_size = be64_get(p + 4360);
		tf_count = be64_get(p + 4368);
		ret = 0;
	} else {
		uint32_t clen, plen;
		uint64_t chunk_id;

		if (n < 32)
			return -EPROTO;
		clen = be32_get(p);
		plen = be32_get(p + 4);
		tf_size = be64_get(p + 8);
		tf_count = be64_get(p + 16);
		chunk_id = be64_get(p + 24);
		if (clen == 0 || clen > CHANNEL_NAME_MAX || plen == 0 || plen > PATHNAME_2_11_MAX ||
		    n < 32 + (uint64_t)clen + plen || p[32 + clen - 1] || p[32 + clen + plen - 1])
			return -EPROTO;
		memcpy(chan_buf, p + 32, clen);
		memcpy(path_buf, p + 32 + clen, plen);
		channel = chan_buf;
		path = path_buf;
		ret = c->session->chunk && c->session->chunk->id == chunk_id ? 0 : -ENOENT;
		if (ret < 0)
			log_warn("Session '%s': stream '%s' names chunk %" PRIu64
				 ", not the current one",
				 c->session->name, channel, chunk_id);
	}
	if (ret == 0)
		ret = rd_stream_create(c->session, path, channel, tf_size, tf_count, &st);
	be64_put(reply, st ? st->handle : UINT64_MAX);
	be32_put(reply + 8, st ? LTTNG_OK : LTTNG_ERR_UNK);
	return rd_conn_send(c, reply, sizeof(reply));
}

static int cmd_close_stream(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	struct rd_stream *st;

	if (n < 16)
		return -EPROTO;
	st = own_stream(c, be64_get(p));
	if (st)
		rd_stream_close_request(st, be64_get(p + 8));
	return reply_code(c, st ? LTTNG_OK : LTTNG_ERR_UNK);
}

/*
 * What the relay has of a stream: packets and, with indexes, their index
 * too; the unsigned minimum as lttng-relayd takes it (so UINT64_MAX, none,
 * gives way to the other).
 */
static uint64_t stream_seq(const struct rd_stream *st)
{
	if (st->session->snapshot)
		return st->prev_data_seq;
	return MIN(st->prev_data_seq, st->prev_index_seq);
}

static int cmd_data_pending(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	struct rd_stream *st;
	uint32_t pending;

	if (n < 16)
		return -EPROTO;
	st = own_stream(c, be64_get(p));
	if (!st)
		return reply_code(c, UINT32_MAX); /* lttng-relayd's answer too */
	pending = rd_seq_reached(stream_seq(st), be64_get(p + 8)) ? 0 : 1;
	st->data_pending_check_done = true;
	return reply_code(c, pending);
}

static int cmd_quiescent(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	struct rd_stream *st;

	if (n < 8)
		return -EPROTO;
	st = own_stream(c, be64_get(p));
	if (st)
		st->data_pending_check_done = true;
	return reply_code(c, LTTNG_OK);
}

static int cmd_data_pending_bracket(struct rd_conn *c, const uint8_t *p, uint64_t n, bool end)
{
	uint32_t inflight = 0;
	struct rd_list *l;

	if (n < 8)
		return -EPROTO;
	/* The session of this connection, whatever id the peer names (p). */
	(void)p;
	rd_list_for_each(l, &c->session->streams)
	{
		struct rd_stream *st = container_of(l, struct rd_stream, node);

		if (!end) {
			st->data_pending_check_done = false;
		} else if (!st->data_pending_check_done &&
			   (!st->closed || !rd_seq_reached(stream_seq(st), st->last_net_seq))) {
			inflight = 1;
			break;
		}
	}
	return reply_code(c, end ? inflight : LTTNG_OK);
}

static int cmd_send_index(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	size_t need = c->minor >= 8 ? 80 : 64;
	uint64_t entry[9];
	struct rd_stream *st;
	int ret;

	if (n < need)
		return -EPROTO;
	st = own_stream(c, be64_get(p));
	if (!st)
		return reply_code(c, LTTNG_ERR_UNK);
	/* offset is computed here; the peer sends packet_size on. */
	entry[0] = 0;
	for (int i = 1; i < 7; i++)
		entry[i] = be64_get(p + 16 + 8 * (i - 1));
	entry[7] = c->minor >= 8 ? be64_get(p + 64) : UINT64_MAX;
	entry[8] = c->minor >= 8 ? be64_get(p + 72) : UINT64_MAX;
	ret = rd_stream_index(st, be64_get(p + 8), entry);
	if (ret == -EPROTO) {
		rd_session_abort(c->session, "a malformed or unexpected index");
		return 0;
	}
	return reply_code(c, ret < 0 ? LTTNG_ERR_UNK : LTTNG_OK);
}

static int cmd_streams_sent(struct rd_conn *c)
{
	struct rd_list *l;
	bool any = false;

	rd_list_for_each(l, &c->session->streams)
	{
		struct rd_stream *st = container_of(l, struct rd_stream, node);

		if (!st->published) {
			st->published = true;
			any = true;
		}
	}
	if (any)
		rd_session_notify_new_streams(c->session);
	return reply_code(c, LTTNG_OK);
}

static int cmd_reset_metadata(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	struct rd_stream *st;

	if (n < 16)
		return -EPROTO;
	st = own_stream(c, be64_get(p));
	/* As lttng-relayd: live viewers cannot follow a metadata stream that restarts. */
	if (!st || !st->is_metadata || c->session->live_timer || st->data_fd < 0)
		return reply_code(c, LTTNG_ERR_INVALID);
	if (ftruncate(st->data_fd, 0) < 0)
		return reply_code(c, LTTNG_ERR_FILE_CREATION_ERROR);
	st->file_size = st->metadata_bytes = 0;
	return reply_code(c, LTTNG_OK);
}

static int cmd_rotate_streams(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	uint32_t count;
	size_t head;
	bool has_chunk;
	uint64_t chunk_id;
	struct rd_chunk *to = NULL;

	if (n < 13)
		return -EPROTO;
	count = be32_get(p);
	/*
	 * new_chunk_id {is_set u8, value u64} after the count: packed (13
	 * bytes), or aligned by 4 or 8 as some peers build it; the payload
	 * size tells which (lttng-relayd does the same).
	 */
	if (n == 13 + (uint64_t)count * 16)
		head = 13;
	else if (n == 16 + (uint64_t)count * 16)
		head = 16;
	else if (n == 20 + (uint64_t)count * 16)
		head = 20;
	else
		return -EPROTO;
	has_chunk = p[4] != 0;
	chunk_id = be64_get(p + head - 8);
	if (has_chunk) {
		to = rd_session_chunk_by_id(c->session, chunk_id);
		if (!to)
			return reply_code(c, LTTNG_ERR_INVALID_PROTOCOL);
	}
	/* All or nothing: check every stream first. */
	for (uint32_t i = 0; i < count; i++)
		if (!own_stream(c, be64_get(p + head + 16 * (size_t)i)))
			return reply_code(c, LTTNG_ERR_INVALID);
	/*
	 * Only rotations to no chunk are taken (what destroy sends once the
	 * data is flushed): streams keep their files where they are, and
	 * CLOSE_STREAM follows. A chunk to move to would come from a
	 * rotation, which rd_chunk_create() refuses.
	 */
	for (uint32_t i = 0; to && i < count; i++)
		if (own_stream(c, be64_get(p + head + 16 * (size_t)i))->chunk != to)
			return reply_code(c, LTTNG_ERR_INVALID);
	return reply_code(c, LTTNG_OK);
}

static int cmd_create_chunk(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	uint32_t name_len;
	const char *name = NULL;
	int ret;

	if (c->minor < 11 || n < 20)
		return -EPROTO;
	name_len = be32_get(p + 16);
	if (name_len) {
		if (name_len > 256 || n < 20 + (uint64_t)name_len || p[20 + name_len - 1])
			return reply_code(c, LTTNG_ERR_INVALID);
		name = (const char *)p + 20;
	}
	ret = rd_chunk_create(c->session, be64_get(p), (int64_t)be64_get(p + 8), name);
	switch (ret) {
	case 0:
		return reply_code(c, LTTNG_OK);
	case -EINVAL:
		return reply_code(c, LTTNG_ERR_INVALID);
	case -EPROTO:
		return reply_code(c, LTTNG_ERR_INVALID_PROTOCOL);
	case -ENOMEM:
		return reply_code(c, LTTNG_ERR_NOMEM);
	case -ENOTSUP:
		return reply_code(c, LTTNG_ERR_UNK);
	default:
		log_error("Session '%s': failed to create chunk directory: %s", c->session->name,
			  strerror(-ret));
		return reply_code(c, LTTNG_ERR_FILE_CREATION_ERROR);
	}
}

static int cmd_close_chunk(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	char path[8192];
	uint8_t reply[8];
	uint32_t len = 0;
	int ret;

	if (c->minor < 11 || n < 21)
		return -EPROTO;
	ret = rd_chunk_close(c->session, be64_get(p), (int64_t)be64_get(p + 8), p[16] != 0,
			     be32_get(p + 17), path, sizeof(path));
	if (ret == 0)
		len = (uint32_t)strlen(path) + 1;
	be32_put(reply, ret == 0 ? LTTNG_OK : ret == -ENOENT ? LTTNG_ERR_NOMEM : LTTNG_ERR_UNK);
	be32_put(reply + 4, len);
	if (rd_conn_send(c, reply, sizeof(reply)) < 0 || (len && rd_conn_send(c, path, len) < 0))
		return -ENOMEM;
	return 0;
}

static int cmd_chunk_exists(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	uint8_t reply[5];

	if (c->minor < 11 || n < 8)
		return -EPROTO;
	be32_put(reply, LTTNG_OK);
	reply[4] = rd_session_chunk_by_id(c->session, be64_get(p)) != NULL;
	return rd_conn_send(c, reply, sizeof(reply));
}

static int cmd_get_configuration(struct rd_conn *c, const uint8_t *p, uint64_t n)
{
	uint8_t reply[12];

	if (n < 8)
		return -EPROTO;
	/* No flag: sessions cannot be cleared here (no CLEAR_ALLOWED). */
	be32_put(reply, be64_get(p) ? LTTNG_ERR_INVALID_PROTOCOL : LTTNG_OK);
	be64_put(reply + 4, 0);
	return rd_conn_send(c, reply, sizeof(reply));
}

static int dispatch(struct rd_conn *c, uint32_t cmd, const uint8_t *p, uint64_t n)
{
	if (cmd == CMD_VERSION)
		return cmd_version(c, p, n);
	if (!c->versioned) {
		rd_conn_kill(c, "command %u before the version handshake", cmd);
		return 0;
	}
	if (cmd == CMD_GET_CONFIGURATION)
		return cmd_get_configuration(c, p, n);
	if (cmd == CMD_CREATE_SESSION)
		return cmd_create_session(c, p, n);
	if (!c->session) {
		rd_conn_kill(c, "command %u before a session was created", cmd);
		return 0;
	}
	switch (cmd) {
	case CMD_ADD_STREAM:
		return cmd_add_stream(c, p, n);
	case CMD_START_DATA:
		return reply_code(c, LTTNG_OK);
	case CMD_CLOSE_STREAM:
		return cmd_close_stream(c, p, n);
	case CMD_DATA_PENDING:
		return cmd_data_pending(c, p, n);
	case CMD_QUIESCENT_CONTROL:
		return cmd_quiescent(c, p, n);
	case CMD_BEGIN_DATA_PENDING:
		return cmd_data_pending_bracket(c, p, n, false);
	case CMD_END_DATA_PENDING:
		return cmd_data_pending_bracket(c, p, n, true);
	case CMD_SEND_INDEX:
		return cmd_send_index(c, p, n);
	case CMD_STREAMS_SENT:
		return cmd_streams_sent(c);
	case CMD_RESET_METADATA:
		return cmd_reset_metadata(c, p, n);
	case CMD_ROTATE_STREAMS:
		return cmd_rotate_streams(c, p, n);
	case CMD_CREATE_TRACE_CHUNK:
		return cmd_create_chunk(c, p, n);
	case CMD_CLOSE_TRACE_CHUNK:
		return cmd_close_chunk(c, p, n);
	case CMD_TRACE_CHUNK_EXISTS:
		return cmd_chunk_exists(c, p, n);
	default:
		/* As lttng-relayd: say so, then hang up. */
		reply_code(c, LTTNG_ERR_UNK);
		rd_conn_kill(c, "unknown command %u", cmd);
		return 0;
	}
}

/* SEND_METADATA's content: written to the metadata file as it arrives. */
static int metadata_content(struct rd_conn *c)
{
	size_t n = (size_t)MIN((uint64_t)rd_buf_avail(&c->in), c->meta.left);
	int ret;

	if (n) {
		ret = rd_stream_metadata_write(c->meta.stream, rd_buf_head(&c->in), n);
		if (ret < 0)
			return ret;
		rd_buf_consume(&c->in, n);
		c->meta.left -= n;
	}
	if (c->meta.left)
		return 0;
	c->meta.active = false;
	return rd_stream_metadata_done(c->meta.stream, c->meta.padding);
}

static int metadata_begin(struct rd_conn *c, uint64_t size)
{
	const uint8_t *p = rd_buf_head(&c->in) + HEADER_SIZE;
	struct rd_stream *st;

	if (!c->versioned || !c->session) {
		rd_conn_kill(c, "metadata before a session was created");
		return 0;
	}
	if (size < 12 || size - 12 > RD_METADATA_MAX) {
		rd_conn_kill(c, "metadata command of %" PRIu64 " bytes", size);
		return 0;
	}
	st = own_stream(c, be64_get(p));
	if (!st || !st->is_metadata || st->closed || st->data_fd < 0 ||
	    be32_get(p + 8) > RD_PACKET_MAX) {
		rd_session_abort(c->session, "metadata for no open metadata stream of the session");
		return 0;
	}
	c->meta.active = true;
	c->meta.stream = st;
	c->meta.left = size - 12;
	c->meta.padding = be32_get(p + 8);
	c->meta.start = st->file_size;
	rd_buf_consume(&c->in, HEADER_SIZE + 12);
	return 0;
}

int rd_control_process(struct rd_conn *c)
{
	while (!c->dead && rd_buf_avail(&c->out) < OUT_PENDING_MAX) {
		const uint8_t *h = rd_buf_head(&c->in);
		uint64_t size;
		uint32_t cmd;
		int ret;

		if (c->meta.active) {
			ret = metadata_content(c);
			if (ret < 0) {
				rd_session_abort(c->session, "its metadata could not be written");
				return 0;
			}
			if (c->meta.active)
				return 0;
			continue;
		}
		if (rd_buf_avail(&c->in) < HEADER_SIZE)
			return 0;
		size = be64_get(h + 8);
		cmd = be32_get(h + 16);
		if (cmd == CMD_SEND_METADATA) {
			if (rd_buf_avail(&c->in) < HEADER_SIZE + 12 && size >= 12)
				return 0;
			ret = metadata_begin(c, size);
			if (ret < 0)
				return ret;
			c->said_hello = true;
			continue;
		}
		if (size > RD_CTRL_PAYLOAD_MAX) {
			rd_conn_kill(c,
				     "command %u with a payload of %" PRIu64
				     " bytes (at most %" PRIu64 ")",
				     cmd, size, RD_CTRL_PAYLOAD_MAX);
			return 0;
		}
		if (rd_buf_avail(&c->in) < HEADER_SIZE + size) {
			/* Room for the whole message: the loop reads into it. */
			return rd_buf_reserve(&c->in,
					      HEADER_SIZE + (size_t)size - rd_buf_avail(&c->in));
		}
		ret = dispatch(c, cmd, h + HEADER_SIZE, size);
		if (ret == -EPROTO) {
			rd_conn_kill(c, "malformed command %u (%" PRIu64 " bytes)", cmd, size);
			return 0;
		}
		if (ret < 0)
			return ret;
		rd_buf_consume(&c->in, HEADER_SIZE + (size_t)size);
		c->said_hello = true;
	}
	return 0;
}

void rd_control_closed(struct rd_conn *c)
{
	struct rd_session *s = c->session;
	struct rd_list *l, *t;

	if (!s)
		return;
	if (c->meta.active)
		rd_stream_metadata_abort(c->meta.stream, c->meta.start);
	s->control = NULL;
	log_info("Session '%s' of host '%s' (id %" PRIu64 ") closed by its peer", s->name,
		 s->hostname, s->id);
	/* Streams close once the data their indexes announced arrived. */
	rd_list_for_each_safe(l, t, &s->streams)
		rd_stream_close_request(container_of(l, struct rd_stream, node), UINT64_MAX);
	c->session = NULL;
	rd_session_unref(s);
}
