/* SPDX-License-Identifier: MIT */
/*
 * The live viewer client of `strata view net://...` (view-live.h): LTTng's
 * viewer protocol (common/lttng-viewer.h) toward a relay daemon, decoded
 * packets handed to a live reader (strata_ctf_reader_create_live()), events
 * printed as babeltrace2 prints them.
 *
 * It follows babeltrace2 2.0.4's lttng-live source step by step, so that
 * the same session prints the same text: connect (protocol 2.4), create a
 * viewer session, attach every relay session of the URL's host and name
 * (one per consumer: kernel, 64- and 32-bit user space) from their newest
 * packets (SEEK_LAST), then loop:
 *
 *   reader next ──OK──► print
 *        │ AGAIN: stream S needs data
 *        ▼
 *   GET_NEXT_INDEX(S) ──OK──► [NEW_METADATA: GET_METADATA until NO_NEW]
 *        │                    [NEW_STREAM: GET_NEW_STREAMS]
 *        │                    GET_PACKET ─► packet handed to the reader
 *        ├─INACTIVE(T)──► inactivity at T handed over (the same T again: as RETRY)
 *        ├─RETRY────────► flush the output, wait 100 ms
 *        └─HUP──────────► S ended
 *   reader END ──► GET_NEW_STREAMS of every open session: new ones join,
 *                  NO_NEW waits 100 ms, HUP closes; all closed: the end.
 *
 * A trace joins the reader once its first metadata arrived (a trace
 * without any waits); its metadata is fetched again whenever an index
 * says there is more. Without /host/HOSTNAME/SESSION the relay's sessions
 * are listed as babeltrace2 lists them.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <strata/ctf.h>
#include <strata/error.h>

#include "cli.h"
#include "view-live.h"
#include "common/cleanup.h"
#include "common/lttng-viewer.h"
#include "common/url.h"
#include "common/common.h"

/* babeltrace2's --retry-duration default: the wait when the relay has nothing new. */
#define RETRY_US 100000
/* babeltrace2 asks for packets in pieces of its 256 KiB buffer. */
#define PACKET_PIECE (256u << 10)
/* Replies bigger than these are not believed. */
#define PACKET_MAX (UINT64_C(1) << 30)
#define METADATA_MAX (UINT64_C(256) << 20)
#define STREAMS_MAX 65536u
#define SESSIONS_MAX 65536u
/* A relay that does not answer within this is given up on. */
#define REPLY_TIMEOUT_MS 60000

struct lv_session {
	uint64_t id;
	bool closed; /* GET_NEW_STREAMS said HUP */
	bool new_streams; /* to ask GET_NEW_STREAMS */
};

struct lv_trace {
	uint64_t session, ctf_trace_id;
	bool has_metadata_stream;
	uint64_t metadata_stream;
	bool metadata_needed, metadata_closed;
	bool in_reader;
	unsigned reader_trace;
};

struct lv_stream {
	uint64_t id;
	size_t trace;
	bool in_reader, ended;
	unsigned reader_stream;
	bool inactive_set;
	uint64_t last_inactive;
};

struct lv {
	int fd;
	char relay[300]; /* host[:port], for messages */
	char target[LV_HOST_NAME_MAX], session[LV_NAME_MAX + 1];
	struct lv_session *sessions;
	size_t n_sessions;
	struct lv_trace *traces;
	size_t n_traces;
	struct lv_stream *streams;
	size_t n_streams;
	struct strata_ctf_reader *reader;
	struct strata_ctf_pretty *pretty;
	FILE *out;
	char err[512];
};

/* --- URL ------------------------------------------------------------------------------------ */

bool view_live_is_url(const char *arg)
{
	return !strncmp(arg, "net://", 6) || !strncmp(arg, "net4://", 7) ||
	       !strncmp(arg, "net6://", 7);
}

struct url {
	int family;
	char host[256];
	uint16_t port;
	bool has_session;
	char target[LV_HOST_NAME_MAX], session[LV_NAME_MAX + 1];
};

/*
 * net[4|6]://HOST[:PORT][/host/TARGET_HOST/SESSION], as babeltrace2 reads
 * it (an IPv6 address may be written in brackets). Fills err on failure.
 */
static int parse_url(const char *s, struct url *u, char *err, size_t errlen)
{
	const char *p, *end;

	memset(u, 0, sizeof(*u));
	u->port = LV_DEFAULT_PORT;
	if (!strncmp(s, "net6://", 7)) {
		u->family = AF_INET6;
		p = s + 7;
	} else {
		u->family = AF_INET;
		p = s + (s[3] == '4' ? 7 : 6);
	}
	if (strata_url_hostport(p, u->host, sizeof(u->host), &u->port, &end) < 0) {
		snprintf(err, errlen, "no relay HOST[:PORT] or [IPV6-ADDRESS][:PORT]");
		return -EINVAL;
	}
	if (!*end)
		return 0;
	if (strncmp(end, "/host/", 6) != 0) {
		snprintf(err, errlen, "'/host/' should follow the relay's host name or port");
		return -EINVAL;
	}
	p = end + 6;
	end = strchr(p, '/');
	if (!end || end == p || (size_t)(end - p) >= sizeof(u->target)) {
		snprintf(err, errlen, "no HOSTNAME/SESSION after /host/");
		return -EINVAL;
	}
	memcpy(u->target, p, (size_t)(end - p));
	p = end + 1;
	if (!*p || strchr(p, '/') || strlen(p) >= sizeof(u->session)) {
		snprintf(err, errlen, "%s",
			 *p ? "unexpected '/' after the session name" : "missing session name");
		return -EINVAL;
	}
	memcpy(u->session, p, strlen(p));
	u->has_session = true;
	return 0;
}

/* --- socket -------------------------------------------------------------------------------- */

static int relay_connect(const struct url *u, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = u->family, .ai_socktype = SOCK_STREAM }, *ai, *a;
	char port[8];
	int fd = -1, ret, one = 1;

	snprintf(port, sizeof(port), "%u", u->port);
	ret = getaddrinfo(u->host, port, &hints, &ai);
	if (ret != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", u->host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	ret = -ECONNREFUSED;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		ret = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int lv_fail(struct lv *v, const char *fmt, ...) _printf_(2, 3);
static int lv_fail(struct lv *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, sizeof(v->err), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

static int send_all(struct lv *v, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(v->fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lv_fail(v, "sending to the relay failed: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int recv_all(struct lv *v, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = v->fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&pfd, 1, REPLY_TIMEOUT_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return lv_fail(v, "the relay did not answer for %d s",
				       REPLY_TIMEOUT_MS / 1000);
		n = recv(v->fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lv_fail(v, "receiving from the relay failed: %s", strerror(errno));
		if (n == 0)
			return lv_fail(v, "the relay closed the connection");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A request: header and its fixed-size payload in one write, as babeltrace2 sends them. */
static int request(struct lv *v, uint32_t cmd, const void *payload, size_t len)
{
	uint8_t buf[LV_HEADER_SIZE + LV_CONNECT_SIZE];

	be64_put(buf, len);
	be32_put(buf + 8, cmd);
	be32_put(buf + 12, 0);
	if (len)
		memcpy(buf + LV_HEADER_SIZE, payload, len);
	return send_all(v, buf, LV_HEADER_SIZE + len);
}

static int request_id(struct lv *v, uint32_t cmd, uint64_t id)
{
	uint8_t b[8];

	be64_put(b, id);
	return request(v, cmd, b, sizeof(b));
}

/* --- sessions, traces, streams ----------------------------------------------------------- */

static void *grow(void *arr, size_t n, size_t elem)
{
	return realloc(arr, (n + 1) * elem);
}

static struct lv_stream *stream_find(struct lv *v, uint64_t id)
{
	for (size_t i = 0; i < v->n_streams; i++)
		if (v->streams[i].id == id)
			return &v->streams[i];
	return NULL;
}

static size_t trace_get(struct lv *v, uint64_t session, uint64_t ctf_trace_id)
{
	struct lv_trace *t;

	for (size_t i = 0; i < v->n_traces; i++)
		if (v->traces[i].session == session && v->traces[i].ctf_trace_id == ctf_trace_id)
			return i;
	t = grow(v->traces, v->n_traces, sizeof(*t));
	if (!t)
		return SIZE_MAX;
	v->traces = t;
	t[v->n_traces] = (struct lv_trace){ .session = session,
					    .ctf_trace_id = ctf_trace_id,
					    .metadata_needed = true };
	return v->n_traces++;
}

/* count stream entries (attach or new streams reply) of session. */
static int recv_streams(struct lv *v, uint64_t session, uint32_t count)
{
	uint8_t e[LV_STREAM_SIZE];

	if (count > STREAMS_MAX || v->n_streams + count > STREAMS_MAX)
		return lv_fail(v, "the relay announces %u streams", count);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t id;
		size_t t;
		int ret = recv_all(v, e, sizeof(e));

		if (ret < 0)
			return ret;
		id = be64_get(e);
		t = trace_get(v, session, be64_get(e + 8));
		if (t == SIZE_MAX)
			return -ENOMEM;
		if (be32_get(e + 16)) {
			v->traces[t].has_metadata_stream = true;
			v->traces[t].metadata_stream = id;
			continue;
		}
		if (stream_find(v, id))
			continue;
		v->streams = grow(v->streams, v->n_streams, sizeof(*v->streams));
		if (!v->streams)
			return -ENOMEM;
		v->streams[v->n_streams++] = (struct lv_stream){ .id = id, .trace = t };
	}
	return 0;
}

/* Hand a trace's streams the reader does not know yet to it (its metadata is there). */
static int streams_to_reader(struct lv *v)
{
	for (size_t i = 0; i < v->n_streams; i++) {
		struct lv_stream *s = &v->streams[i];
		struct lv_trace *t = &v->traces[s->trace];
		int ret;

		if (s->in_reader || !t->in_reader)
			continue;
		ret = strata_ctf_live_stream_add(v->reader, t->reader_trace, s->id,
						 &s->reader_stream);
		if (ret < 0)
			return ret;
		s->in_reader = true;
	}
	return 0;
}

static int get_new_streams(struct lv *v, struct lv_session *s, bool *ret_any)
{
	uint8_t r[LV_STREAMS_REPLY_SIZE];
	uint32_t status, count;
	size_t before = v->n_streams;
	int ret;

	ret = request_id(v, LV_CMD_GET_NEW_STREAMS, s->id);
	if (ret == 0)
		ret = recv_all(v, r, sizeof(r));
	if (ret < 0)
		return ret;
	status = be32_get(r);
	count = be32_get(r + 4);
	s->new_streams = false;
	switch (status) {
	case LV_NEW_STREAMS_OK:
		ret = recv_streams(v, s->id, count);
		break;
	case LV_NEW_STREAMS_NO_NEW:
		break;
	case LV_NEW_STREAMS_HUP:
		s->closed = true;
		break;
	default:
		return lv_fail(
			v, "the relay refused the new streams of session %" PRIu64 " (status %u)",
			s->id, status);
	}
	if (ret_any && v->n_streams > before)
		*ret_any = true;
	return ret;
}

/* GET_METADATA until NO_NEW, then hand the batch to the reader. */
static int fetch_metadata(struct lv *v, size_t ti)
{
	struct lv_trace *t = &v->traces[ti];
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len = 0;
	int ret;

	if (!t->has_metadata_stream || t->metadata_closed)
		return 0;
	for (;;) {
		uint8_t r[LV_METADATA_REPLY_SIZE];
		uint64_t n;
		uint32_t status;
		uint8_t *nb;

		ret = request_id(v, LV_CMD_GET_METADATA, t->metadata_stream);
		if (ret == 0)
			ret = recv_all(v, r, sizeof(r));
		if (ret < 0)
			return ret;
		n = be64_get(r);
		status = be32_get(r + 8);
		if (status == LV_METADATA_NO_NEW)
			break;
		if (status == LV_METADATA_ERR) {
			/* Gone from the relay (a per-process trace that ended). */
			t->metadata_closed = true;
			break;
		}
		if (status != LV_METADATA_OK || n == 0 || n > METADATA_MAX - len)
			return lv_fail(v,
				       "unexpected metadata reply (status %u, %" PRIu64 " bytes)",
				       status, n);
		nb = realloc(buf, len + (size_t)n);
		if (!nb)
			return -ENOMEM;
		buf = nb;
		ret = recv_all(v, buf + len, (size_t)n);
		if (ret < 0)
			return ret;
		len += (size_t)n;
	}
	t = &v->traces[ti];
	if (len == 0)
		return 0; /* nothing yet: the trace waits */
	t->metadata_needed = false;
	if (!t->in_reader) {
		ret = strata_ctf_live_trace_add(v->reader, buf, len, &t->reader_trace, &err);
		if (ret == 0)
			t->in_reader = true;
	} else {
		ret = strata_ctf_live_trace_update(v->reader, t->reader_trace, buf, len, &err);
	}
	if (ret < 0) {
		snprintf(v->err, sizeof(v->err), "%s", err ? err : strata_strerror(ret));
		return -STRATA_EMETADATA;
	}
	return streams_to_reader(v);
}

/* --- the loop --------------------------------------------------------------------------------- */

static int output_flush(struct lv *v)
{
	int ret = strata_ctf_pretty_flush(v->pretty);

	if (ret == 0 && fflush(v->out) != 0)
		ret = -errno;
	return ret;
}

/* Nothing to do until the relay has more: show what we have, then wait. */
static int wait_retry(struct lv *v)
{
	struct timespec ts = { 0, RETRY_US * 1000L };
	int ret = output_flush(v);

	while (ret == 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return ret;
}

static int new_streams_all(struct lv *v, bool force, bool *ret_any)
{
	for (size_t i = 0; i < v->n_sessions; i++) {
		struct lv_session *s = &v->sessions[i];
		int ret;

		if (s->closed || (!force && !s->new_streams))
			continue;
		ret = get_new_streams(v, s, ret_any);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Metadata of the traces that need it (new ones included), then their streams. */
static int metadata_all(struct lv *v)
{
	for (size_t i = 0; i < v->n_traces; i++) {
		if (v->traces[i].metadata_needed) {
			int ret = fetch_metadata(v, i);

			if (ret < 0)
				return ret;
		}
	}
	return streams_to_reader(v);
}

static int get_packet(struct lv *v, struct lv_stream *s, uint64_t offset, uint64_t size)
{
	_cleanup_free_ uint8_t *pkt = malloc(size ? (size_t)size : 1);
	uint64_t got = 0;
	int ret;

	if (!pkt)
		return -ENOMEM;
	while (got < size) {
		uint8_t req[LV_GET_PACKET_SIZE], r[LV_PACKET_REPLY_SIZE];
		uint32_t piece = (uint32_t)MIN(size - got, (uint64_t)PACKET_PIECE), status;

		be64_put(req, s->id);
		be64_put(req + 8, offset + got);
		be32_put(req + 16, piece);
		ret = request(v, LV_CMD_GET_PACKET, req, sizeof(req));
		if (ret == 0)
			ret = recv_all(v, r, sizeof(r));
		if (ret < 0)
			return ret;
		status = be32_get(r);
		if (status != LV_PACKET_OK || be32_get(r + 4) != piece)
			return lv_fail(v,
				       "the relay could not send a packet of stream %" PRIu64
				       " (status %u)",
				       s->id, status);
		ret = recv_all(v, pkt + got, piece);
		if (ret < 0)
			return ret;
		got += piece;
	}
	ret = strata_ctf_live_stream_packet(v->reader, s->reader_stream, pkt, (size_t)size);
	if (ret < 0) {
		snprintf(v->err, sizeof(v->err), "%s", strata_ctf_reader_last_error(v->reader));
		return -STRATA_ESTREAM;
	}
	return 0;
}

/* The reader waits for stream s: ask the relay for its next index. */
static int feed_stream(struct lv *v, struct lv_stream *s)
{
	uint8_t r[LV_INDEX_SIZE];
	uint32_t status, flags;
	uint64_t size;
	int ret;

	ret = request_id(v, LV_CMD_GET_NEXT_INDEX, s->id);
	if (ret == 0)
		ret = recv_all(v, r, sizeof(r));
	if (ret < 0)
		return ret;
	status = be32_get(r + 56);
	flags = be32_get(r + 60);
	switch (status) {
	case LV_INDEX_OK: {
		uint64_t id = s->id;

		/* What the packet may need comes first: classes, streams. */
		if (flags & LV_FLAG_NEW_METADATA)
			v->traces[s->trace].metadata_needed = true;
		if (flags & LV_FLAG_NEW_STREAM)
			for (size_t i = 0; i < v->n_sessions; i++)
				v->sessions[i].new_streams = true;
		ret = new_streams_all(v, false, NULL);
		if (ret == 0)
			ret = metadata_all(v);
		if (ret < 0)
			return ret;
		s = stream_find(v, id); /* the arrays may have moved */
		size = be64_get(r + 8);
		if (size == 0 || size % 8 || size / 8 > PACKET_MAX)
			return lv_fail(v, "the relay announces a packet of %" PRIu64 " bits", size);
		s->inactive_set = false;
		return get_packet(v, s, be64_get(r), size / 8);
	}
	case LV_INDEX_INACTIVE: {
		uint64_t ts = be64_get(r + 32);

		/* The same promise again: nothing new (babeltrace2 waits then). */
		if (s->inactive_set && s->last_inactive == ts)
			return wait_retry(v);
		s->inactive_set = true;
		s->last_inactive = ts;
		return strata_ctf_live_stream_inactive(v->reader, s->reader_stream, ts);
	}
	case LV_INDEX_RETRY:
		return wait_retry(v);
	case LV_INDEX_HUP:
		s->ended = true;
		return strata_ctf_live_stream_end(v->reader, s->reader_stream);
	default:
		return lv_fail(v,
			       "the relay failed to give the next index of stream %" PRIu64
			       " (status %u)",
			       s->id, status);
	}
}

static bool all_closed(const struct lv *v)
{
	for (size_t i = 0; i < v->n_sessions; i++)
		if (!v->sessions[i].closed)
			return false;
	return true;
}

static int live_loop(struct lv *v)
{
	int ret = metadata_all(v);

	while (ret == 0) {
		struct strata_ctf_msg msg;
		enum strata_ctf_status st = strata_ctf_reader_next(v->reader, &msg);
		unsigned want;
		bool any = false;

		switch (st) {
		case STRATA_CTF_OK:
			ret = strata_ctf_pretty_print(v->pretty, &msg);
			break;
		case STRATA_CTF_AGAIN:
			if (strata_ctf_live_wanted(v->reader, &want) < 0)
				break;
			for (size_t i = 0; i < v->n_streams; i++)
				if (v->streams[i].in_reader && v->streams[i].reader_stream == want)
					ret = feed_stream(v, &v->streams[i]);
			break;
		case STRATA_CTF_END:
			/* No stream left: every session is asked for new ones, as lttng-live does. */
			if (all_closed(v))
				return 0;
			ret = new_streams_all(v, true, &any);
			if (ret == 0)
				ret = metadata_all(v);
			if (ret == 0 && !any && !all_closed(v))
				ret = wait_retry(v);
			break;
		default:
			snprintf(v->err, sizeof(v->err), "%s",
				 strata_ctf_reader_last_error(v->reader));
			return -STRATA_ESTREAM;
		}
	}
	return ret;
}

/* CONNECT: protocol 2.4, a command connection, as babeltrace2 announces it. */
static int handshake(struct lv *v)
{
	uint8_t c[LV_CONNECT_SIZE] = { 0 }, r[LV_CONNECT_SIZE];
	int ret;

	be32_put(c + 8, 2);
	be32_put(c + 12, 4);
	be32_put(c + 16, LV_CLIENT_COMMAND);
	ret = request(v, LV_CMD_CONNECT, c, sizeof(c));
	if (ret == 0)
		ret = recv_all(v, r, sizeof(r));
	if (ret == 0 && be32_get(r + 8) != 2)
		ret = lv_fail(v, "the relay speaks protocol %u.%u, not 2.x", be32_get(r + 8),
			      be32_get(r + 12));
	return ret;
}

/* LIST_SESSIONS: calls fn on each entry. */
static int list_sessions(struct lv *v, int (*fn)(struct lv *, const uint8_t *, void *), void *arg)
{
	uint8_t r[4], e[LV_SESSION_SIZE];
	uint32_t n;
	int ret = request(v, LV_CMD_LIST_SESSIONS, NULL, 0);

	if (ret == 0)
		ret = recv_all(v, r, sizeof(r));
	if (ret < 0)
		return ret;
	n = be32_get(r);
	if (n > SESSIONS_MAX)
		return lv_fail(v, "the relay lists %u sessions", n);
	for (uint32_t i = 0; i < n && ret == 0; i++) {
		ret = recv_all(v, e, sizeof(e));
		e[LV_SESSION_OFF_HOSTNAME + LV_HOST_NAME_MAX - 1] = '\0';
		e[LV_SESSION_OFF_NAME + LV_NAME_MAX - 1] = '\0';
		if (ret == 0)
			ret = fn(v, e, arg);
	}
	return ret;
}

/* One line per (host, name), streams summed, clients max'ed, as babeltrace2 prints them. */
struct listing {
	struct {
		char host[LV_HOST_NAME_MAX], name[LV_NAME_MAX];
		uint64_t timer, streams, clients;
	} * e;
	size_t n;
};

static int list_one(struct lv *v, const uint8_t *e, void *arg)
{
	struct listing *l = arg;
	const char *host = (const char *)e + LV_SESSION_OFF_HOSTNAME;
	const char *name = (const char *)e + LV_SESSION_OFF_NAME;
	void *ne;

	(void)v;
	for (size_t i = 0; i < l->n; i++) {
		if (!strcmp(l->e[i].host, host) && !strcmp(l->e[i].name, name)) {
			l->e[i].streams += be32_get(e + 16);
			l->e[i].clients = MAX(l->e[i].clients, (uint64_t)be32_get(e + 12));
			return 0;
		}
	}
	ne = realloc(l->e, (l->n + 1) * sizeof(*l->e));
	if (!ne)
		return -ENOMEM;
	l->e = ne;
	snprintf(l->e[l->n].host, sizeof(l->e[l->n].host), "%s", host);
	snprintf(l->e[l->n].name, sizeof(l->e[l->n].name), "%s", name);
	l->e[l->n].timer = be32_get(e + 8);
	l->e[l->n].streams = be32_get(e + 16);
	l->e[l->n].clients = be32_get(e + 12);
	l->n++;
	return 0;
}

static int print_list(struct lv *v, const char *url)
{
	struct listing l = { 0 };
	int ret = list_sessions(v, list_one, &l);

	for (size_t i = 0; ret == 0 && i < l.n; i++)
		if (fprintf(v->out,
			    "%s/host/%s/%s (timer = %" PRIu64 ", %" PRIu64 " stream(s), %" PRIu64
			    " client(s) connected)\n",
			    url, l.e[i].host, l.e[i].name, l.e[i].timer, l.e[i].streams,
			    l.e[i].clients) < 0)
			ret = -errno;
	if (ret == 0 && fflush(v->out) != 0)
		ret = -errno;
	free(l.e);
	return ret;
}

static int match_one(struct lv *v, const uint8_t *e, void *arg)
{
	struct lv_session *ns;

	(void)arg;
	if (strcmp((const char *)e + LV_SESSION_OFF_HOSTNAME, v->target) ||
	    strcmp((const char *)e + LV_SESSION_OFF_NAME, v->session))
		return 0;
	ns = grow(v->sessions, v->n_sessions, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	v->sessions = ns;
	ns[v->n_sessions++] = (struct lv_session){ .id = be64_get(e) };
	return 0;
}

static int attach_all(struct lv *v)
{
	uint8_t r[4];
	int ret = request(v, LV_CMD_CREATE_SESSION, NULL, 0);

	if (ret == 0)
		ret = recv_all(v, r, sizeof(r));
	if (ret < 0)
		return ret;
	if (be32_get(r) != LV_CREATE_OK)
		return lv_fail(v, "the relay refused to create a viewer session");
	ret = list_sessions(v, match_one, NULL);
	for (size_t i = 0; ret == 0 && i < v->n_sessions; i++) {
		uint8_t req[LV_ATTACH_REQ_SIZE] = { 0 }, rep[LV_STREAMS_REPLY_SIZE];
		uint32_t status;

		be64_put(req, v->sessions[i].id);
		be32_put(req + 16, LV_SEEK_LAST);
		ret = request(v, LV_CMD_ATTACH_SESSION, req, sizeof(req));
		if (ret == 0)
			ret = recv_all(v, rep, sizeof(rep));
		if (ret < 0)
			return ret;
		status = be32_get(rep);
		if (status != LV_ATTACH_OK)
			return lv_fail(
				v, "the relay refused to attach to session '%s' of host '%s' (%s)",
				v->session, v->target,
				status == LV_ATTACH_NOT_LIVE ? "it is not a live session" :
				status == LV_ATTACH_ALREADY  ? "another viewer is attached" :
				status == LV_ATTACH_UNK	     ? "it ended" :
							       "refused");
		ret = recv_streams(v, v->sessions[i].id, be32_get(rep + 4));
	}
	return ret;
}

static void detach_all(struct lv *v)
{
	for (size_t i = 0; i < v->n_sessions; i++) {
		uint8_t r[4];

		if (request_id(v, LV_CMD_DETACH_SESSION, v->sessions[i].id) < 0 ||
		    recv_all(v, r, sizeof(r)) < 0)
			return;
	}
}

int view_live_run(const struct view_live_opts *o)
{
	struct lv v = { .fd = -1, .out = stdout };
	struct url u;
	char err[512];
	int ret, status = CLI_EXIT_OK;

	if (parse_url(o->url, &u, err, sizeof(err)) < 0) {
		cli_error(
			"Invalid live URL '%s': %s (use net://RELAY[:PORT]/host/HOSTNAME/SESSION, "
			"or net://RELAY[:PORT] to list the sessions)",
			o->url, err);
		return CLI_EXIT_USAGE;
	}
	snprintf(v.relay, sizeof(v.relay), "%s:%u", u.host, u.port);
	memcpy(v.target, u.target, sizeof(v.target));
	memcpy(v.session, u.session, sizeof(v.session));
	v.fd = relay_connect(&u, err, sizeof(err));
	if (v.fd < 0) {
		cli_error("Cannot connect to the relay daemon at %s: %s (is strata-relayd or "
			  "lttng-relayd listening for live viewers there?)",
			  v.relay, err);
		return CLI_EXIT_NOTRACE;
	}
	signal(SIGPIPE, SIG_IGN);
	if (o->output) {
		v.out = fopen(o->output, "we");
		if (!v.out) {
			cli_error("Cannot write the events to '%s': %s", o->output,
				  strerror(errno));
			close(v.fd);
			return CLI_EXIT_OUTPUT;
		}
	}
	ret = handshake(&v);
	if (ret == 0 && !u.has_session) {
		ret = print_list(&v, o->url);
		goto out;
	}
	if (ret == 0)
		ret = attach_all(&v);
	if (ret == 0 && v.n_sessions == 0) {
		/* babeltrace2 ends at once too, printing nothing. */
		cli_warn(
			"No session '%s' of host '%s' at the relay %s: nothing to read (see 'strata "
			"view net://%s')",
			v.session, v.target, v.relay, v.relay);
		goto out;
	}
	if (ret == 0) {
		ret = strata_ctf_reader_create_live(NULL, &v.reader);
		if (ret == 0) {
			v.pretty = strata_ctf_pretty_create(&o->pretty, v.out, stderr);
			if (!v.pretty)
				ret = -errno;
		}
	}
	if (ret == 0)
		ret = live_loop(&v);
	if (v.pretty) {
		int fret = output_flush(&v);

		if (ret == 0)
			ret = fret;
	}
	if (ret == 0 && o->colors)
		fputs("\033[0m", stdout);
	if (ret == 0)
		detach_all(&v);
out:
	switch (ret) {
	case 0:
	case -EPIPE:
		break;
	case -STRATA_ESTREAM:
	case -STRATA_EMETADATA:
		cli_error("Malformed trace from the relay: %s", v.err);
		status = CLI_EXIT_MALFORMED;
		break;
	case -EPROTO:
		cli_error("Live reading from the relay at %s failed: %s", v.relay, v.err);
		status = CLI_EXIT_NOTRACE;
		break;
	default:
		/* Memory, or writing the events (a full disk). */
		cli_error("Failed to print the events: %s", strerror(-ret));
		status = CLI_EXIT_OUTPUT;
		break;
	}
	strata_ctf_pretty_destroy(v.pretty);
	strata_ctf_reader_destroy(v.reader);
	free(v.sessions);
	free(v.traces);
	free(v.streams);
	close(v.fd);
	if (v.out != stdout && fclose(v.out) != 0 && status == CLI_EXIT_OK)
		status = CLI_EXIT_OUTPUT;
	return status;
}
