/* SPDX-License-Identifier: MIT */
/*
 * Relay streams (relayd.h): their files, the data connection's packets,
 * the index entries that pair a packet with its SEND_INDEX, and what live
 * viewers read back.
 *
 * Files, in the stream's trace directory (as lttng-relayd writes them):
 *
 *   CHANNEL            data (CHANNEL_N with tracefile_size: N wraps at
 *   index/CHANNEL.idx  tracefile_count, the oldest file then overwritten)
 *   metadata           the trace's metadata stream, no index
 *
 * A packet is written as it arrives at the end of the current data file,
 * then padding_size zeros (the file is extended); a packet cut short by a
 * lost connection is taken back (ftruncate), so files end on whole
 * packets. Its index entry (offset = where the packet starts) is appended
 * once both the packet and its SEND_INDEX came, in either order:
 *
 *   data  ──seq 7 (at 0x4000, 4096 B)──┐
 *                                      ├─► rd_pending{7} ─► index entry 7
 *   control ──SEND_INDEX seq 7─────────┘     (at most RD_PENDING_MAX wait)
 *
 * Index files: 16-byte header {magic 0xC1F1DCC1, 1, minor, entry_len},
 * then entries of offset, packet_size, content_size, timestamp_begin,
 * timestamp_end, events_discarded, stream_id [, stream_instance_id,
 * packet_seq_num] (index 1.1, protocol 2.8+), all big-endian.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relayd/relayd.h"
#include "common/lttng-viewer.h"
#include "common/common.h"

#define DATA_HEADER_SIZE 32
#define INDEX_MAGIC UINT32_C(0xC1F1DCC1)
#define INDEX_HEADER_SIZE 16

/*
 * Handles are what data connections name streams by: a bijective mix of a
 * counter with a key drawn at start, so that they are unique and a peer
 * cannot guess another session's (data binds to one session, see
 * stream_bind()).
 */
uint64_t rd_stream_handle_new(struct rd_relay *r)
{
	if (r->counter_handles)
		return ++r->handle_counter;
	for (;;) {
		uint64_t z = ++r->handle_counter ^ r->handle_key;

		z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
		z ^= z >> 31;
		if (z != 0 && z != UINT64_MAX)
			return z;
	}
}

struct rd_stream *rd_stream_find(struct rd_relay *r, uint64_t handle)
{
	struct rd_hnode *n = rd_htab_find(&r->streams, handle);

	return n ? container_of(n, struct rd_stream, hnode) : NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* "CHANNEL" or "CHANNEL_N" (+ suffix). */
static int file_name(const struct rd_stream *st, uint64_t n, const char *suffix, char *out,
		     size_t len)
{
	int r = st->tracefile_size ?
			snprintf(out, len, "%s_%" PRIu64 "%s", st->channel, n, suffix) :
			snprintf(out, len, "%s%s", st->channel, suffix);

	return r < 0 || (size_t)r >= len ? -ENAMETOOLONG : 0;
}

static bool has_index(const struct rd_stream *st)
{
	return !st->is_metadata && !st->session->snapshot;
}

/* The tracefile record of file n, or NULL (overwritten, or never made). */
static struct rd_tracefile *tracefile(struct rd_stream *st, uint64_t n)
{
	for (size_t i = 0; i < st->n_files; i++)
		if (st->files[i].index == n)
			return &st->files[i];
	return NULL;
}

/* Open tracefile n for writing, truncated; its old record (a wrap) goes. */
static int open_data_file(struct rd_stream *st, uint64_t n)
{
	struct rd_tracefile *old = tracefile(st, n), *nf;
	char name[300];
	int ret = file_name(st, n, "", name, sizeof(name));

	if (ret < 0)
		return ret;
	if (old) {
		size_t i = (size_t)(old - st->files);

		memmove(old, old + 1, (st->n_files - i - 1) * sizeof(*old));
		st->n_files--;
	}
	nf = realloc(st->files, (st->n_files + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	st->files = nf;
	close_fd(&st->data_fd);
	close_fd(&st->index_fd);
	st->data_fd =
		openat(st->dir_fd, name, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0660);
	if (st->data_fd < 0)
		return -errno;
	nf[st->n_files++] = (struct rd_tracefile){ .index = n, .first_seq = UINT64_MAX };
	st->file_size = 0;
	return 0;
}

int rd_stream_create(struct rd_session *s, const char *path, const char *channel,
		     uint64_t tracefile_size, uint64_t tracefile_count, struct rd_stream **ret)
{
	struct rd_relay *r = s->relay;
	struct rd_stream *st;
	struct rd_trace *t;
	int ret_code;

	if (!rd_name_ok(channel, 255) || !rd_path_ok(path, 4095)) {
		log_warn("Session '%s': refusing stream '%.255s' at '%.255s': not a valid name or "
			 "relative path",
			 s->name, channel, path);
		return -EINVAL;
	}
	if (*path == '/')
		path++;
	/* Old peers name paths below the root: their own host's only. */
	if (s->minor < 11 && (strncmp(path, s->hostname, strlen(s->hostname)) != 0 ||
			      path[strlen(s->hostname)] != '/')) {
		log_warn("Session '%s': refusing stream path '%s' outside host '%s'", s->name, path,
			 s->hostname);
		return -EINVAL;
	}
	if (!s->chunk || s->aborted) {
		log_warn("Session '%s': a stream while the session has no chunk", s->name);
		return -EINVAL;
	}
	if (s->stream_count >= RD_STREAMS_PER_SESSION_MAX || r->n_streams >= r->max_streams) {
		log_warn("Session '%s': refusing stream '%s': too many streams (%u in the session, "
			 "%zu in all)",
			 s->name, channel, s->stream_count, r->n_streams);
		return -EMFILE;
	}
	t = rd_session_trace(s, path);
	if (!t)
		return -ENOMEM;
	if (strcmp(channel, "metadata") == 0 && t->metadata) {
		log_warn("Session '%s': a second metadata stream for '%s'", s->name, path);
		return -EEXIST;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->session = s;
	st->trace = t;
	st->channel = strdup(channel);
	st->is_metadata = strcmp(channel, "metadata") == 0;
	st->tracefile_size = st->is_metadata ? 0 : tracefile_size;
	st->tracefile_count = tracefile_count;
	st->dir_fd = st->index_dir_fd = st->data_fd = st->index_fd = -1;
	st->prev_data_seq = st->prev_index_seq = st->last_net_seq = UINT64_MAX;
	st->beacon_ts = st->ctf_stream_id = UINT64_MAX;
	st->index_entry_len = s->minor >= 8 ? 72 : 56;
	ret_code = st->channel ? 0 : -ENOMEM;
	if (ret_code == 0) {
		st->dir_fd = rd_mkdirs_at(s->chunk->dir_fd, path);
		ret_code = st->dir_fd < 0 ? st->dir_fd : 0;
	}
	if (ret_code == 0 && has_index(st)) {
		st->index_dir_fd = rd_mkdirs_at(st->dir_fd, "index");
		ret_code = st->index_dir_fd < 0 ? st->index_dir_fd : 0;
	}
	if (ret_code == 0)
		ret_code = open_data_file(st, 0);
	if (ret_code == 0) {
		st->handle = rd_stream_handle_new(r);
		st->hnode.key = st->handle;
		ret_code = rd_htab_add(&r->streams, &st->hnode);
	}
	if (ret_code < 0) {
		log_error("Failed to create stream '%s' of session '%s' in '%s': %s", channel,
			  s->name, path, strerror(-ret_code));
		close_fd(&st->data_fd);
		close_fd(&st->index_dir_fd);
		close_fd(&st->dir_fd);
		free(st->files);
		free(st->channel);
		free(st);
		return ret_code;
	}
	st->chunk = s->chunk;
	st->chunk->refs++;
	if (st->is_metadata)
		t->metadata = st;
	rd_list_add(&s->streams, &st->node);
	s->stream_count++;
	r->n_streams++;
	log_debug("Stream '%s' of session '%s' at '%s': handle %" PRIx64, channel, s->name, path,
		  st->handle);
	*ret = st;
	return 0;
}

void rd_stream_destroy(struct rd_stream *st)
{
	struct rd_relay *r = st->session->relay;

	rd_htab_del(&r->streams, &st->hnode);
	rd_list_del(&st->node);
	r->n_streams--;
	if (st->trace->metadata == st)
		st->trace->metadata = NULL;
	close_fd(&st->data_fd);
	close_fd(&st->index_fd);
	close_fd(&st->index_dir_fd);
	close_fd(&st->dir_fd);
	rd_chunk_unref(st->chunk);
	free(st->pending);
	free(st->files);
	free(st->channel);
	free(st);
}

/* --- closing ------------------------------------------------------------------------- */

void rd_stream_close_now(struct rd_stream *st)
{
	if (st->closed)
		return;
	st->closed = true;
	/* Viewers read closed streams through dir_fd, opening files as needed. */
	close_fd(&st->data_fd);
	close_fd(&st->index_fd);
	close_fd(&st->index_dir_fd);
	st->n_pending = 0;
	rd_chunk_unref(st->chunk);
	st->chunk = NULL;
	log_debug("Stream %" PRIx64 " ('%s' of session '%s') closed", st->handle, st->channel,
		  st->session->name);
}

void rd_stream_try_close(struct rd_stream *st)
{
	if (st->closed || !st->close_requested || (st->in_flight && !st->session->aborted))
		return;
	/* Its last packets may be on their way while a connection can bring them. */
	if (st->last_net_seq != UINT64_MAX &&
	    !rd_seq_reached(st->prev_data_seq, st->last_net_seq) && !st->session->aborted &&
	    (st->session->control || st->session->data_conns))
		return;
	rd_stream_close_now(st);
}

void rd_stream_close_request(struct rd_stream *st, uint64_t last_seq)
{
	if (st->closed)
		return;
	st->close_requested = true;
	if (last_seq != UINT64_MAX) {
		st->last_net_seq = last_seq;
	} else if (st->last_net_seq == UINT64_MAX) {
		/*
		 * The control side is done without naming the last packet
		 * (or names none, as for metadata): no index will come, so
		 * packets still waiting for theirs go, and the last index
		 * waiting for its packet marks the end (lttng-relayd's rule).
		 */
		size_t k = 0;

		for (size_t i = 0; i < st->n_pending; i++) {
			struct rd_pending *p = &st->pending[i];

			if (!p->have_index)
				continue;
			if (st->last_net_seq == UINT64_MAX ||
			    (int64_t)(p->seq - st->last_net_seq) > 0)
				st->last_net_seq = p->seq;
			st->pending[k++] = *p;
		}
		st->n_pending = k;
	}
	rd_stream_try_close(st);
}

/* --- index entries --------------------------------------------------------------------- */

static struct rd_pending *pending_find(struct rd_stream *st, uint64_t seq)
{
	for (size_t i = 0; i < st->n_pending; i++)
		if (st->pending[i].seq == seq)
			return &st->pending[i];
	return NULL;
}

static struct rd_pending *pending_add(struct rd_stream *st, uint64_t seq)
{
	struct rd_pending *np;

	if (st->n_pending >= RD_PENDING_MAX)
		return NULL;
	np = realloc(st->pending, (st->n_pending + 1) * sizeof(*np));
	if (!np)
		return NULL;
	st->pending = np;
	memset(&np[st->n_pending], 0, sizeof(*np));
	np[st->n_pending].seq = seq;
	return &np[st->n_pending++];
}

static void pending_del(struct rd_stream *st, struct rd_pending *p)
{
	*p = st->pending[--st->n_pending];
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *b = buf;

	while (len) {
		ssize_t n = pwrite(fd, b, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		b += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *b = buf;

	while (len) {
		ssize_t n = pread(fd, b, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* shorter than what the relay wrote */
		b += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* The index file of tracefile n for writing: the current one's fd (made with its header), or -1. */
static int index_fd_for(struct rd_stream *st, uint64_t n, bool *ret_own)
{
	struct rd_tracefile *cur = &st->files[st->n_files - 1];
	char name[300];
	uint8_t head[INDEX_HEADER_SIZE];
	int fd, ret;

	*ret_own = false;
	if (n == cur->index && st->index_fd >= 0)
		return st->index_fd;
	ret = file_name(st, n, ".idx", name, sizeof(name));
	if (ret < 0)
		return ret;
	if (n != cur->index) {
		/* A packet of the previous file whose index came late. */
		fd = openat(st->index_dir_fd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		*ret_own = true;
		return fd;
	}
	fd = openat(st->index_dir_fd, name, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0660);
	if (fd < 0)
		return -errno;
	be32_put(head, INDEX_MAGIC);
	be32_put(head + 4, 1);
	be32_put(head + 8, st->index_entry_len == 72 ? 1 : 0);
	be32_put(head + 12, st->index_entry_len);
	ret = pwrite_all(fd, head, sizeof(head), 0);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	st->index_fd = fd;
	return fd;
}

/* Both halves of packet p are here: append its index entry. */
static int index_write(struct rd_stream *st, struct rd_pending *p)
{
	struct rd_tracefile *tf = tracefile(st, p->file);
	uint8_t e[72];
	bool own;
	int fd, ret;

	if (!tf)
		return 0; /* its file was overwritten meanwhile: nothing to index */
	if (p->entry[1] != p->size * 8 || p->entry[2] > p->entry[1]) {
		log_warn("Session '%s': packet %" PRIu64 " of stream '%s' has %" PRIu64
			 " bytes, its index says %" PRIu64 " bits (content %" PRIu64 ")",
			 st->session->name, p->seq, st->channel, p->size, p->entry[1], p->entry[2]);
		return -EPROTO;
	}
	be64_put(e, p->offset);
	for (int i = 1; i < 9; i++)
		be64_put(e + 8 * i, p->entry[i]);
	fd = index_fd_for(st, p->file, &own);
	if (fd < 0)
		return fd;
	ret = pwrite_all(fd, e, st->index_entry_len,
			 INDEX_HEADER_SIZE + tf->entries * (uint64_t)st->index_entry_len);
	if (own)
		close(fd);
	if (ret < 0)
		return ret;
	if (tf->first_seq == UINT64_MAX)
		tf->first_seq = st->index_count;
	tf->entries++;
	st->index_count++;
	st->prev_index_seq = p->seq;
	pending_del(st, p);
	return 0;
}

int rd_stream_index(struct rd_stream *st, uint64_t seq, const uint64_t entry[9])
{
	struct rd_pending *p;
	int ret;

	if (st->closed || st->is_metadata)
		return -EINVAL;
	/* A live beacon: nothing new up to timestamp_end (entry[4]). */
	if (entry[1] == 0) {
		/* As lttng-relayd 2.13: only after a first index, none in flight. */
		if (st->index_count > 0 && st->n_pending == 0)
			st->beacon_ts = entry[4];
		return 0;
	}
	st->beacon_ts = UINT64_MAX;
	if (st->ctf_stream_id == UINT64_MAX)
		st->ctf_stream_id = entry[6];
	if (!has_index(st))
		return 0;
	p = pending_find(st, seq);
	if (p && p->have_index)
		return -EPROTO; /* twice */
	if (!p)
		p = pending_add(st, seq);
	if (!p)
		return -EPROTO;
	p->have_index = true;
	memcpy(p->entry, entry, sizeof(p->entry));
	if (p->have_data) {
		ret = index_write(st, p);
		if (ret < 0)
			return ret == -EPROTO ? ret : -EIO;
	}
	rd_stream_try_close(st);
	return 0;
}

/* --- data connection ----------------------------------------------------------------- */

static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
			       &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr));
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return true; /* the fuzzer's connections have none */
}

/*
 * A data connection carries one session's streams (one consumer's), from
 * the address its control connection came from: anything else is refused.
 */
static int stream_bind(struct rd_conn *c, struct rd_stream *st)
{
	if (c->session)
		return c->session == st->session ? 0 : -EPERM;
	if (!same_address(&c->peer, &st->session->peer))
		return -EPERM;
	c->session = st->session;
	c->session->data_conns++;
	rd_session_ref(st->session);
	return 0;
}

static int packet_begin(struct rd_conn *c)
{
	const uint8_t *h = rd_buf_head(&c->in);
	uint64_t handle = be64_get(h + 8), seq = be64_get(h + 16);
	uint64_t size = be32_get(h + 24), padding = be32_get(h + 28);
	struct rd_stream *st = rd_stream_find(c->relay, handle);
	int ret;

	if (!st) {
		rd_conn_kill(c, "a packet for unknown stream %" PRIx64, handle);
		if (c->session)
			rd_session_abort(c->session, "its data connection sent garbage");
		return 0;
	}
	if (stream_bind(c, st) < 0) {
		rd_conn_kill(c, "a packet for stream %" PRIx64 " of another session or peer",
			     handle);
		if (c->session)
			rd_session_abort(c->session, "its data connection named another session");
		return 0;
	}
	if (st->closed || st->data_fd < 0 || st->is_metadata || size == 0 ||
	    size + padding > RD_PACKET_MAX) {
		rd_conn_kill(c,
			     "packet %" PRIu64 " of %" PRIu64 "+%" PRIu64
			     " bytes for stream '%s' (%s)",
			     seq, size, padding, st->channel,
			     st->closed	     ? "closed" :
			     st->is_metadata ? "metadata" :
					       "size");
		rd_session_abort(st->session, "its data connection broke the protocol");
		return 0;
	}
	/* tracefile_size: a packet that would not fit starts the next file. */
	if (st->tracefile_size && st->file_size &&
	    st->file_size + size + padding > st->tracefile_size) {
		uint64_t next = st->files[st->n_files - 1].index + 1;

		if (st->tracefile_count && next >= st->tracefile_count)
			next = 0;
		ret = open_data_file(st, next);
		if (ret < 0) {
			log_error("Failed to start tracefile %" PRIu64 " of stream '%s' (session "
				  "'%s'): %s",
				  next, st->channel, st->session->name, strerror(-ret));
			rd_session_abort(st->session, "a trace file could not be created");
			return 0;
		}
	}
	c->pkt.active = true;
	st->in_flight = true;
	c->pkt.stream = st;
	c->pkt.seq = seq;
	c->pkt.size = size;
	c->pkt.padding = padding;
	c->pkt.left = size;
	c->pkt.start = st->file_size;
	c->pkt.file = st->files[st->n_files - 1].index;
	rd_buf_consume(&c->in, DATA_HEADER_SIZE);
	return 0;
}

static int packet_done(struct rd_conn *c)
{
	struct rd_stream *st = c->pkt.stream;
	uint64_t total = c->pkt.size + c->pkt.padding;
	struct rd_pending *p;
	int ret;

	c->pkt.active = false;
	st->in_flight = false;
	/* The zeros of the padding: a hole. */
	if (ftruncate(st->data_fd, (off_t)(c->pkt.start + total)) < 0)
		return -errno;
	st->file_size = c->pkt.start + total;
	st->files[st->n_files - 1].bytes = st->file_size;
	st->prev_data_seq = c->pkt.seq;
	if (!st->has_data) {
		st->has_data = true;
		rd_session_notify_new_streams(st->session);
	}
	if (has_index(st)) {
		p = pending_find(st, c->pkt.seq);
		if (p && p->have_data)
			return -EPROTO; /* twice */
		if (!p)
			p = pending_add(st, c->pkt.seq);
		if (!p)
			return -EPROTO;
		p->have_data = true;
		p->file = c->pkt.file;
		p->offset = c->pkt.start;
		p->size = total;
		if (p->have_index) {
			ret = index_write(st, p);
			if (ret < 0)
				return ret;
		}
	}
	rd_stream_try_close(st);
	return 0;
}

int rd_data_process(struct rd_conn *c)
{
	while (!c->dead) {
		int ret;

		if (c->pkt.active) {
			struct rd_stream *st = c->pkt.stream;
			size_t n = (size_t)MIN((uint64_t)rd_buf_avail(&c->in), c->pkt.left);

			if (n) {
				ret = pwrite_all(st->data_fd, rd_buf_head(&c->in), n,
						 c->pkt.start + c->pkt.size - c->pkt.left);
				if (ret < 0) {
					log_error("Failed to write stream '%s' of session '%s': %s",
						  st->channel, st->session->name, strerror(-ret));
					rd_session_abort(st->session,
							 "its trace could not be written");
					return 0;
				}
				rd_buf_consume(&c->in, n);
				c->pkt.left -= n;
			}
			if (c->pkt.left)
				return 0;
			ret = packet_done(c);
			if (ret < 0) {
				rd_session_abort(st->session,
						 ret == -EPROTO ?
							 "a packet does not match its index" :
							 "its trace could not be written");
				return 0;
			}
			c->said_hello = true;
			continue;
		}
		if (rd_buf_avail(&c->in) < DATA_HEADER_SIZE)
			return 0;
		ret = packet_begin(c);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void rd_data_closed(struct rd_conn *c)
{
	struct rd_session *s = c->session;
	struct rd_list *l;

	/* A packet cut short is taken back: files end on whole packets. */
	if (c->pkt.active) {
		struct rd_stream *st = c->pkt.stream;

		st->in_flight = false;
		if (st->data_fd >= 0 && ftruncate(st->data_fd, (off_t)c->pkt.start) < 0)
			log_warn("Failed to drop the partial packet of stream '%s': %s",
				 st->channel, strerror(errno));
	}
	if (!s)
		return;
	/* Streams waiting for packets only it could bring may close now. */
	s->data_conns--;
	rd_list_for_each(l, &s->streams)
		rd_stream_try_close(container_of(l, struct rd_stream, node));
	c->session = NULL;
	rd_session_unref(s);
}

/* --- metadata ------------------------------------------------------------------------- */

int rd_stream_metadata_write(struct rd_stream *st, const uint8_t *p, size_t n)
{
	int ret = pwrite_all(st->data_fd, p, n, st->file_size);

	if (ret == 0)
		st->file_size += n;
	return ret;
}

void rd_stream_metadata_abort(struct rd_stream *st, uint64_t start)
{
	if (st->data_fd >= 0 && ftruncate(st->data_fd, (off_t)start) == 0)
		st->file_size = start;
}

int rd_stream_metadata_done(struct rd_stream *st, uint64_t padding)
{
	if (padding && ftruncate(st->data_fd, (off_t)(st->file_size + padding)) < 0)
		return -errno;
	st->file_size += padding;
	st->metadata_bytes = st->file_size;
	return 0;
}

/* --- what viewers read ------------------------------------------------------------------ */

uint64_t rd_stream_oldest_entry(const struct rd_stream *st)
{
	for (size_t i = 0; i < st->n_files; i++)
		if (st->files[i].first_seq != UINT64_MAX)
			return st->files[i].first_seq;
	return st->index_count;
}

/* fd of the stream's file name below its directory (sub: "index" or NULL), opened to read. */
static int open_read(struct rd_stream *st, const char *sub, const char *name)
{
	int dir = st->dir_fd, fd;

	if (sub) {
		dir = openat(st->dir_fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dir < 0)
			return -errno;
	}
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	if (sub)
		close(dir);
	return fd;
}

int rd_stream_read_index(struct rd_stream *st, uint64_t k, uint8_t out[56], uint64_t *ret_file)
{
	struct rd_tracefile *tf = NULL;
	char name[300];
	int fd, ret;
	bool own = false;

	for (size_t i = 0; i < st->n_files; i++) {
		struct rd_tracefile *f = &st->files[i];

		if (f->first_seq != UINT64_MAX && k >= f->first_seq &&
		    k - f->first_seq < f->entries)
			tf = f;
	}
	if (!tf)
		return -ENOENT;
	if (st->index_fd >= 0 && tf == &st->files[st->n_files - 1]) {
		fd = st->index_fd;
	} else {
		ret = file_name(st, tf->index, ".idx", name, sizeof(name));
		if (ret < 0)
			return ret;
		fd = open_read(st, "index", name);
		if (fd < 0)
			return fd;
		own = true;
	}
	ret = pread_all(fd, out, 56,
			INDEX_HEADER_SIZE + (k - tf->first_seq) * (uint64_t)st->index_entry_len);
	if (own)
		close(fd);
	*ret_file = tf->index;
	return ret;
}

int rd_stream_read_data(struct rd_stream *st, uint64_t file, uint64_t off, void *buf, size_t len)
{
	struct rd_tracefile *tf = tracefile(st, file);
	char name[300];
	int fd, ret;
	bool own = false;

	/* Only bytes of whole packets written so far. */
	if (!tf || off > tf->bytes || len > tf->bytes - off)
		return -ERANGE;
	if (st->data_fd >= 0 && tf == &st->files[st->n_files - 1]) {
		fd = st->data_fd;
	} else {
		ret = file_name(st, file, "", name, sizeof(name));
		if (ret < 0)
			return ret;
		fd = open_read(st, NULL, name);
		if (fd < 0)
			return fd;
		own = true;
	}
	ret = pread_all(fd, buf, len, off);
	if (own)
		close(fd);
	return ret;
}

int rd_stream_read_metadata(struct rd_stream *st, uint64_t off, void *buf, size_t len)
{
	int fd = st->data_fd, ret;

	if (off > st->metadata_bytes || len > st->metadata_bytes - off)
		return -ERANGE;
	if (fd < 0) {
		fd = open_read(st, NULL, "metadata");
		if (fd < 0)
			return fd;
	}
	ret = pread_all(fd, buf, len, off);
	if (fd != st->data_fd)
		close(fd);
	return ret;
}
