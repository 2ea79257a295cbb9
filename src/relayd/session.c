/* SPDX-License-Identifier: MIT */
/*
 * Relay sessions, their traces and chunks, and the rules for names and
 * paths that come from peers (relayd.h).
 *
 * A session lives while something holds it: its control connection, a data
 * connection bound to it, a viewer attached to it (rd_session_ref()). Its
 * directory is named as lttng-relayd names it, below the output root:
 *
 *   HOSTNAME/SESSION-YYYYmmdd-HHMMSS     (default; the peer's creation time,
 *   HOSTNAME/BASE_PATH                    the relay's time zone)
 *   HOSTNAME/SESSION                      (names that hold their time: auto-...)
 *   SESSION/HOSTNAME-YYYYmmdd-HHMMSS[/BASE_PATH]   (--group-output-by-session)
 *
 * Peers before 2.11 name whole paths below the root in their streams
 * ("HOSTNAME/SESSION-DATE/kernel"); their first component must be the
 * session's hostname, so that a peer writes below its own host only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "relayd/relayd.h"
#include "common/fs.h"
#include "common/common.h"

/* --- names and paths -------------------------------------------------------------- */

static bool component_ok(const char *s, size_t len)
{
	if (len == 0 || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '/' || ch < 0x20 || ch == 0x7f)
			return false;
	}
	return true;
}

bool rd_name_ok(const char *s, size_t max)
{
	size_t len = strnlen(s, max + 1);

	return len <= max && component_ok(s, len);
}

bool rd_path_ok(const char *s, size_t max)
{
	size_t len = strnlen(s, max + 1);

	if (len > max)
		return false;
	if (*s == '/') {
		s++;
		len--;
	}
	if (len == 0)
		return false;
	for (;;) {
		const char *slash = memchr(s, '/', len);
		size_t n = slash ? (size_t)(slash - s) : len;

		if (!component_ok(s, n))
			return false;
		if (!slash)
			return true;
		s += n + 1;
		len -= n + 1;
	}
}

int rd_mkdirs_at(int dir_fd, const char *path)
{
	int fd;

	if (*path == '/')
		path++;
	if (!*path) {
		fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : fd;
	}
	return fs_open_dir_beneath(dir_fd, path, 0770, true);
}

/* --- sessions ---------------------------------------------------------------------- */

struct rd_session *rd_session_find(struct rd_relay *r, uint64_t id)
{
	struct rd_list *p;

	rd_list_for_each(p, &r->sessions)
	{
		struct rd_session *s = container_of(p, struct rd_session, node);

		if (s->id == id)
			return s;
	}
	return NULL;
}

/* "YYYYmmdd-HHMMSS" of t in the relay's time zone, as lttng-relayd dates sessions. */
static void format_date(int64_t t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(out, 32, "%Y%m%d-%H%M%S", &tm))
		snprintf(out, 32, "%" PRId64, t);
}

static int output_path(struct rd_relay *r, const struct rd_session_params *p, char *out, size_t len)
{
	char date[32];
	int n;

	if (p->minor < 11)
		n = snprintf(out, len, "%s", ""); /* streams name whole paths (see top) */
	else if (r->group_by_session) {
		format_date(p->creation_time, date);
		n = snprintf(out, len, "%s/%s-%s%s%s", p->name, p->hostname, date,
			     p->base_path[0] ? "/" : "", p->base_path);
	} else if (p->base_path[0]) {
		n = snprintf(out, len, "%s/%s", p->hostname, p->base_path);
	} else if (p->name_has_time) {
		n = snprintf(out, len, "%s/%s", p->hostname, p->name);
	} else {
		format_date(p->creation_time, date);
		n = snprintf(out, len, "%s/%s-%s", p->hostname, p->name, date);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int rd_session_create(struct rd_relay *r, struct rd_conn *control,
		      const struct rd_session_params *p, struct rd_session **ret)
{
	struct rd_session *s;
	char path[4096 + 600];
	int ret_code;

	if (!rd_name_ok(p->name, 254) || !rd_name_ok(p->hostname, 63) ||
	    (p->base_path[0] && !rd_path_ok(p->base_path, 4095))) {
		log_warn(
			"Refusing session '%.255s' of host '%.64s' from %s: its name, host name or "
			"path is not a valid directory name",
			p->name, p->hostname, control->peer_str);
		return -EINVAL;
	}
	if (r->n_sessions >= RD_SESSIONS_MAX) {
		log_warn("Refusing session '%s' of host '%s': %u sessions exist already", p->name,
			 p->hostname, RD_SESSIONS_MAX);
		return -EMFILE;
	}
	ret_code = output_path(r, p, path, sizeof(path));
	if (ret_code < 0)
		return ret_code;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->traces = RD_LIST_INIT(s->traces);
	s->streams = RD_LIST_INIT(s->streams);
	s->attaches = RD_LIST_INIT(s->attaches);
	s->relay = r;
	s->dir_fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", p->name);
	snprintf(s->hostname, sizeof(s->hostname), "%s", p->hostname);
	s->base_path = strdup(p->base_path);
	s->output_path = strdup(*path == '/' ? path + 1 : path);
	if (!s->base_path || !s->output_path) {
		ret_code = -ENOMEM;
		goto err;
	}
	s->live_timer = p->live_timer;
	s->snapshot = p->snapshot;
	s->minor = p->minor;
	if (p->sessiond_uuid)
		memcpy(s->sessiond_uuid, p->sessiond_uuid, 16);
	s->id_sessiond = p->id_sessiond;
	s->creation_time = p->creation_time;
	s->name_has_time = p->name_has_time;
	s->peer = control->peer;
	s->dir_fd = rd_mkdirs_at(r->root_fd, s->output_path);
	if (s->dir_fd < 0) {
		ret_code = s->dir_fd;
		log_error("Failed to create the directory '%s/%s' of session '%s': %s", r->root,
			  s->output_path, s->name, strerror(-ret_code));
		goto err;
	}
	/* Before 2.11 there are no chunk commands: one implicit chunk, the root. */
	if (p->minor < 11) {
		s->chunk = calloc(1, sizeof(*s->chunk));
		if (!s->chunk) {
			ret_code = -ENOMEM;
			goto err;
		}
		s->chunk->path = strdup("");
		s->chunk->dir_fd = dup(s->dir_fd);
		s->chunk->refs = 1;
		if (!s->chunk->path || s->chunk->dir_fd < 0) {
			ret_code = -ENOMEM;
			goto err;
		}
	}
	s->id = ++r->next_session_id;
	s->control = control;
	s->refs = 1;
	rd_list_add(&r->sessions, &s->node);
	r->n_sessions++;
	log_info("Session '%s' of host '%s' created (id %" PRIu64 ", protocol 2.%u, %s%s, "
		 "directory '%s')",
		 s->name, s->hostname, s->id, s->minor, s->live_timer ? "live" : "not live",
		 s->snapshot ? ", snapshot" : "", s->output_path);
	*ret = s;
	return 0;
err:
	if (s->chunk) {
		free(s->chunk->path);
		if (s->chunk->dir_fd >= 0)
			close(s->chunk->dir_fd);
		free(s->chunk);
	}
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	free(s->base_path);
	free(s->output_path);
	free(s);
	return ret_code;
}

void rd_session_ref(struct rd_session *s)
{
	s->refs++;
}

void rd_chunk_unref(struct rd_chunk *c)
{
	if (!c || --c->refs)
		return;
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	free(c->path);
	free(c);
}

static void session_free(struct rd_session *s)
{
	struct rd_relay *r = s->relay;
	struct rd_list *p, *t;

	rd_list_for_each_safe(p, t, &s->streams)
		rd_stream_destroy(container_of(p, struct rd_stream, node));
	rd_list_for_each_safe(p, t, &s->traces)
	{
		struct rd_trace *tr = container_of(p, struct rd_trace, node);

		rd_list_del(&tr->node);
		free(tr->path);
		free(tr);
	}
	rd_chunk_unref(s->chunk);
	rd_chunk_unref(s->closing);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	rd_list_del(&s->node);
	r->n_sessions--;
	log_info("Session '%s' of host '%s' (id %" PRIu64 ") is gone", s->name, s->hostname, s->id);
	free(s->base_path);
	free(s->output_path);
	free(s);
}

void rd_session_unref(struct rd_session *s)
{
	if (--s->refs == 0)
		session_free(s);
}

void rd_session_abort(struct rd_session *s, const char *why)
{
	struct rd_list *p;

	if (s->aborted)
		return;
	s->aborted = true;
	log_warn("Session '%s' of host '%s' (id %" PRIu64 ") takes nothing more: %s", s->name,
		 s->hostname, s->id, why);
	if (s->control)
		rd_conn_kill(s->control, "its session was aborted");
	rd_list_for_each(p, &s->relay->conns)
	{
		struct rd_conn *c = container_of(p, struct rd_conn, node);

		if (c->kind == RD_CONN_DATA && c->session == s)
			rd_conn_kill(c, "its session was aborted");
	}
	rd_list_for_each(p, &s->streams)
		rd_stream_close_now(container_of(p, struct rd_stream, node));
}

void rd_session_notify_new_streams(struct rd_session *s)
{
	struct rd_list *p;

	rd_list_for_each(p, &s->attaches) container_of(p, struct rd_attach, snode)->new_streams =
		true;
}

struct rd_trace *rd_session_trace(struct rd_session *s, const char *path)
{
	struct rd_list *p;
	struct rd_trace *t;

	rd_list_for_each(p, &s->traces)
	{
		t = container_of(p, struct rd_trace, node);
		if (strcmp(t->path, path) == 0)
			return t;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->path = strdup(path);
	if (!t->path) {
		free(t);
		return NULL;
	}
	t->id = ++s->relay->next_trace_id;
	rd_list_add(&s->traces, &t->node);
	return t;
}

/* --- chunks -------------------------------------------------------------------------- */

struct rd_chunk *rd_session_chunk_by_id(struct rd_session *s, uint64_t id)
{
	if (s->chunk && s->chunk->id == id)
		return s->chunk;
	if (s->closing && s->closing->id == id)
		return s->closing;
	return NULL;
}

int rd_chunk_create(struct rd_session *s, uint64_t id, int64_t created, const char *name)
{
	struct rd_chunk *c;
	const char *path;

	if (s->closing) {
		log_warn("Session '%s': a new chunk while chunk %" PRIu64 " awaits its closing",
			 s->name, s->closing->id);
		return -EPROTO;
	}
	if (name) {
		if (!rd_name_ok(name, 255)) {
			log_warn("Session '%s': refusing chunk name '%.255s'", s->name, name);
			return -EINVAL;
		}
		path = name;
	} else if (!s->chunk && !s->has_rotated) {
		path = ""; /* the first chunk is the session directory */
	} else {
		/* Rotations (lttng rotate, clear) are not implemented. */
		log_warn("Session '%s' of host '%s': refusing chunk %" PRIu64
			 ": strata-relayd does not rotate sessions",
			 s->name, s->hostname, id);
		return -ENOTSUP;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->id = id;
	c->created = created;
	c->refs = 1;
	c->path = strdup(path);
	c->dir_fd = c->path ? rd_mkdirs_at(s->dir_fd, path) : -ENOMEM;
	if (c->dir_fd < 0) {
		int ret = c->dir_fd;

		free(c->path);
		free(c);
		return ret;
	}
	s->closing = s->chunk;
	s->chunk = c;
	return 0;
}

int rd_chunk_close(struct rd_session *s, uint64_t id, int64_t closed, bool has_cmd, uint32_t cmd,
		   char *ret_path, size_t path_len)
{
	struct rd_chunk *c = rd_session_chunk_by_id(s, id);
	int n;

	(void)closed;
	if (!c)
		return -ENOENT;
	/* MOVE_TO_COMPLETED (0) archives a rotated chunk, DELETE (2) clears: not done. */
	if (has_cmd && cmd != 1) {
		log_warn("Session '%s': refusing to %s chunk %" PRIu64
			 ": strata-relayd does not rotate or clear sessions",
			 s->name, cmd == 2 ? "delete" : "archive", id);
		return -ENOTSUP;
	}
	if (s->snapshot)
		n = snprintf(ret_path, path_len, "%s/%s", s->output_path, c->path);
	else
		n = snprintf(ret_path, path_len, "%s", s->output_path);
	if (n < 0 || (size_t)n >= path_len)
		return -ENAMETOOLONG;
	if (c == s->closing) {
		s->closing = NULL;
	} else {
		s->chunk = NULL;
	}
	rd_chunk_unref(c);
	return 0;
}
