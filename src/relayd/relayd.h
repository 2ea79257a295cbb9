/* SPDX-License-Identifier: MIT */
/*
 * strata-relayd: receives traces streamed by session daemons (lttng-sessiond
 * 2.4 to 2.13, and strata-sessiond speaking the same protocol) over TCP,
 * writes them in LTTng's relay layout, and serves them to live viewers
 * (babeltrace2 lttng-live, Trace Compass, `strata view net://`).
 *
 * Threads: one. Every socket is non-blocking in one epoll loop (main.c);
 * file writes and reads are done inline (local files, page cache). Nothing
 * is shared, so nothing is locked.
 *
 *   listeners: control :5342   data :5343   live :5344 (localhost)
 *        │ accept          │ accept         │ accept
 *        ▼                 ▼                ▼
 *   struct rd_conn (in: bytes not consumed yet, out: replies not sent yet)
 *        │ control.c        │ stream.c       │ live.c
 *        ▼                  ▼                ▼
 *   rd_session ──► rd_trace (one per stream path: "ust/uid/0/64-bit")
 *        │            └─► rd_stream (data file, index file, metadata)
 *        └─► rd_chunk (the directory streams write into)
 *   rd_viewer (per live connection) ──► rd_attach (per session) ──► rd_vstream
 *
 * Protocol state machines (per connection):
 *
 *   control:  ──VERSION──► VERSIONED ──CREATE_SESSION──► SESSION ──┐
 *             (GET_CONFIGURATION any time after VERSION)           │ ADD_STREAM,
 *             each command: HEADER(24) → PAYLOAD(data_size) → one  │ SEND_INDEX, ...
 *             reply (SEND_METADATA: none; its payload is written   │
 *             to the metadata file as it arrives)      ◄───────────┘
 *             close: the session is closed; its streams close once
 *             their data arrived (or the data connection closes too).
 *   data:     HEADER(32) → PAYLOAD(data_size, to the stream's file as it
 *             arrives; padding_size zeros appended) → HEADER ...; bound to
 *             one session (the first packet's stream's) from the same peer
 *             address as its control connection; never replies.
 *   live:     ──CONNECT──► CONNECTED ──CREATE_SESSION──► VIEWER ──ATTACH,
 *             GET_NEXT_INDEX, GET_PACKET, GET_METADATA, GET_NEW_STREAMS,
 *             DETACH...; one request at a time: the next one is read only
 *             once the reply is sent.
 *
 * What is bounded (relayd.h limits below): every length read from a peer
 * (control payloads 1 MiB, metadata commands 128 MiB written as they come,
 * packets 1 GiB written as they come, names and paths as LTTng's fields),
 * the bytes a connection holds in memory (its message or 64 KiB, and one
 * reply), connections (by RLIMIT_NOFILE), sessions, streams per session
 * and in all, pending index entries per stream, viewer reads (16 MiB per
 * packet request, 1 MiB of metadata per reply), and time: a message must
 * progress within 60 s, a connection must say who it is within 30 s, a
 * viewer must ask something within 10 min; TCP keep-alive finds peers
 * that vanished between messages. A closed stream keeps one descriptor
 * (its directory, for viewers) until its session ends. A peer that breaks a rule loses its
 * connection, and a streaming peer its session (what it wrote stays
 * readable: a packet cut short is taken back); nothing else is touched.
 *
 * Paths: every directory and file is opened relative to the output root's
 * descriptor, one component at a time, with O_NOFOLLOW; names and paths
 * from peers are checked first (session.c: no "..", "." or empty
 * components, no control characters, bounded lengths).
 */
#ifndef STRATA_RELAYD_H
#define STRATA_RELAYD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/log.h"

/* --- limits ---------------------------------------------------------------- */

#define RD_CTRL_PAYLOAD_MAX (UINT64_C(1) << 20) /* any control command but metadata */
#define RD_METADATA_MAX (UINT64_C(128) << 20) /* one SEND_METADATA, as lttng-relayd */
#define RD_PACKET_MAX (UINT64_C(1) << 30) /* data_size + padding_size */
#define RD_IN_CHUNK (64u << 10) /* bytes read from a socket at once */
#define RD_SESSIONS_MAX 4096u
#define RD_STREAMS_PER_SESSION_MAX 65536u
#define RD_PENDING_MAX 4096u /* packets or indexes waiting for their other half */
#define RD_VIEWER_PACKET_MAX (16u << 20)
#define RD_VIEWER_METADATA_MAX (1u << 20)
#define RD_MSG_TIMEOUT_MS 60000u
#define RD_HELLO_TIMEOUT_MS 30000u
#define RD_VIEWER_IDLE_MS 600000u

/* The streaming protocol version strata-relayd announces. */
#define RD_VERSION_MAJOR 2
#define RD_VERSION_MINOR 13
/* Oldest minor it accepts: live, hostnames and indexes came in 2.4. */
#define RD_VERSION_MINOR_MIN 4

/* --- small containers ---------------------------------------------------- */

struct rd_list {
	struct rd_list *prev, *next;
};

#define RD_LIST_INIT(l) ((struct rd_list){ &(l), &(l) })
#define rd_list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define rd_list_for_each_safe(pos, tmp, head) \
	for (pos = (head)->next, tmp = pos->next; pos != (head); pos = tmp, tmp = pos->next)

static inline void rd_list_add(struct rd_list *head, struct rd_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static inline void rd_list_del(struct rd_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

/* Chained hash on u64 keys (stream handles). */
struct rd_hnode {
	struct rd_hnode *next;
	uint64_t key;
};

struct rd_htab {
	struct rd_hnode **b;
	size_t mask, n;
};

int rd_htab_add(struct rd_htab *h, struct rd_hnode *n);
struct rd_hnode *rd_htab_find(const struct rd_htab *h, uint64_t key);
void rd_htab_del(struct rd_htab *h, struct rd_hnode *n);
void rd_htab_release(struct rd_htab *h);

/* A byte buffer: data[off, len) not consumed yet. */
struct rd_buf {
	uint8_t *data;
	size_t off, len, cap;
};

int rd_buf_reserve(struct rd_buf *b, size_t more);
int rd_buf_append(struct rd_buf *b, const void *p, size_t n);
void rd_buf_consume(struct rd_buf *b, size_t n);
void rd_buf_release(struct rd_buf *b);
static inline size_t rd_buf_avail(const struct rd_buf *b)
{
	return b->len - b->off;
}
static inline const uint8_t *rd_buf_head(const struct rd_buf *b)
{
	return b->off ? b->data + b->off : b->data; /* no arithmetic on NULL */
}

/* --- objects --------------------------------------------------------------- */

struct rd_relay;
struct rd_conn;
struct rd_session;

/*
 * A trace chunk: the directory a session's streams write into. The first
 * chunk of a session is its directory itself (path ""); a chunk named by
 * the peer (snapshots) is a directory of that name in it.
 */
struct rd_chunk {
	uint64_t id;
	int64_t created; /* Unix seconds, as the peer says */
	char *path; /* relative to the session directory, "" for itself */
	int dir_fd;
	unsigned refs; /* the session's current chunk, its streams */
};

/* The streams sharing a path in a chunk: one CTF trace (viewer ctf_trace_id). */
struct rd_trace {
	struct rd_list node; /* in session->traces */
	uint64_t id;
	char *path; /* "ust/uid/1000/64-bit", "kernel", ... */
	struct rd_stream *metadata;
};

/* A data file of a stream (tracefile_size splits one in several). */
struct rd_tracefile {
	uint64_t index; /* N of CHANNEL_N; 0 without tracefile_size */
	uint64_t first_seq; /* stream index entry number of its first packet */
	uint64_t entries;
	uint64_t bytes;
};

/* A packet whose data or index arrived, waiting for the other. */
struct rd_pending {
	uint64_t seq;
	bool have_data, have_index;
	uint64_t file; /* tracefile index of the data */
	uint64_t offset, size; /* in the data file, bytes */
	uint64_t entry[9]; /* index fields from offset on, host order */
};

struct rd_stream {
	struct rd_hnode hnode; /* key: handle, in relay->streams */
	struct rd_list node; /* in session->streams */
	struct rd_session *session;
	struct rd_trace *trace;
	struct rd_chunk *chunk; /* NULL once rotated away or closed */
	uint64_t handle;
	char *channel;
	bool is_metadata;
	bool published; /* STREAMS_SENT came: viewers may see it */
	bool closed, close_requested;
	bool data_pending_check_done;
	bool has_data; /* a first packet arrived */
	bool in_flight; /* a data connection is writing a packet of it: it stays open */
	uint64_t tracefile_size, tracefile_count;
	int dir_fd, index_dir_fd; /* trace directory and its index/ */
	int data_fd, index_fd; /* current tracefile, or -1 */
	struct rd_tracefile *files; /* live reading: [0] oldest kept */
	size_t n_files;
	uint64_t file_size; /* bytes in the current data file */
	uint32_t index_entry_len; /* 72 (protocol >= 2.8) or 56 */
	/* net_seq_num of the last packet, index, and the one CLOSE_STREAM named; UINT64_MAX: none */
	uint64_t prev_data_seq, prev_index_seq, last_net_seq;
	uint64_t index_count; /* index entries written */
	struct rd_pending *pending;
	size_t n_pending;
	uint64_t beacon_ts; /* live beacon's timestamp_end, UINT64_MAX: none */
	uint64_t ctf_stream_id; /* CTF stream class id, UINT64_MAX: not known yet */
	uint64_t metadata_bytes; /* metadata written, whole commands only */
};

struct rd_session {
	struct rd_list node; /* in relay->sessions */
	struct rd_relay *relay;
	uint64_t id;
	char name[256];
	char hostname[64];
	char *base_path;
	uint32_t live_timer;
	bool snapshot;
	uint32_t minor; /* protocol minor of its control connection */
	uint8_t sessiond_uuid[16];
	uint64_t id_sessiond;
	int64_t creation_time;
	bool name_has_time;
	char *output_path; /* relative to the output root */
	int dir_fd;
	struct sockaddr_storage peer; /* control peer: data must come from its address */
	struct rd_conn *control; /* NULL once closed */
	bool aborted;
	unsigned refs; /* control connection, bound data connections, viewer attachments */
	unsigned data_conns; /* bound data connections */
	struct rd_list traces, streams, attaches;
	struct rd_chunk *chunk; /* current, or NULL */
	struct rd_chunk *closing; /* replaced by a new one, waiting for its CLOSE_TRACE_CHUNK */
	bool has_rotated;
	uint32_t stream_count; /* streams ever added (LIST_SESSIONS) */
	unsigned viewers;
};

/* --- live viewers ------------------------------------------------------------ */

struct rd_viewer;

/* A viewer's view of one session. */
struct rd_attach {
	struct rd_list vnode; /* in viewer->attaches */
	struct rd_list snode; /* in session->attaches */
	struct rd_viewer *viewer;
	struct rd_session *session;
	bool new_streams; /* streams were published since the viewer last asked */
};

struct rd_vstream {
	struct rd_hnode hnode; /* key: the stream's handle, in viewer->vstreams */
	struct rd_attach *att;
	struct rd_stream *stream;
	bool sent; /* announced to the viewer */
	uint64_t index_sent; /* index entries sent */
	uint64_t metadata_sent; /* bytes */
	uint64_t file; /* tracefile of the last index entry sent: GET_PACKET reads it */
	bool hup; /* HUP sent: the viewer is done with it */
};

struct rd_viewer {
	uint64_t id;
	bool connected, created;
	uint32_t minor;
	struct rd_list attaches;
	struct rd_htab vstreams;
};

/* --- connections ----------------------------------------------------------- */

enum rd_conn_kind { RD_CONN_CONTROL, RD_CONN_DATA, RD_CONN_LIVE };

struct rd_conn {
	struct rd_list node; /* in relay->conns */
	struct rd_relay *relay;
	enum rd_conn_kind kind;
	uint64_t id; /* for logs */
	int fd; /* -1 when fed by the fuzzer */
	uint32_t events; /* epoll mask in place */
	bool dead; /* to be closed by the loop */
	bool said_hello; /* a first message went through */
	struct rd_buf in, out;
	uint64_t created_ms, progress_ms;
	struct sockaddr_storage peer;
	char peer_str[64];
	struct rd_session *session; /* control: created; data: bound */
	/* control */
	bool versioned;
	uint32_t major, minor;
	struct {
		bool active; /* a SEND_METADATA's content is being written */
		struct rd_stream *stream;
		uint64_t left, padding, start;
	} meta;
	/* data */
	struct {
		bool active; /* a packet's payload is being written */
		struct rd_stream *stream;
		uint64_t seq, size, padding, left, start, file;
	} pkt;
	/* live */
	struct rd_viewer *viewer;
};

struct rd_listener {
	int fd;
	enum rd_conn_kind kind;
	char url[300];
};

struct rd_relay {
	int epfd;
	int root_fd; /* the output root directory */
	char *root;
	bool group_by_session;
	struct rd_listener listeners[3];
	struct rd_list conns, sessions;
	size_t n_conns, n_sessions, n_streams;
	size_t max_conns, max_streams;
	struct rd_htab streams; /* by handle */
	uint64_t next_session_id, next_trace_id, next_viewer_id, next_conn_id;
	uint64_t handle_counter, handle_key;
	uint64_t now_ms;
	/* RD_*_TIMEOUT_MS, or all of them STRATA_RELAYD_TEST_TIMEOUT_MS (tests). */
	uint64_t hello_timeout_ms, msg_timeout_ms, viewer_idle_ms;
	int record_fd; /* STRATA_RELAYD_RECORD: received bytes, in the fuzzer's format */
	/*
	 * Handles 1, 2, 3... instead of unguessable ones: when recording and
	 * in the fuzzer, so that recorded sessions replay.
	 */
	bool counter_handles;
};

/* --- main.c / conn.c ------------------------------------------------------------ */

uint64_t rd_now_ms(void);
int rd_relay_init(struct rd_relay *r, const char *root, bool group_by_session);
void rd_relay_release(struct rd_relay *r);
/* A connection on fd (-1: fed by hand, as the fuzzer does). */
struct rd_conn *rd_conn_new(struct rd_relay *r, enum rd_conn_kind kind, int fd,
			    const struct sockaddr_storage *peer);
/* Process what conn->in holds; marks it dead on a protocol error. */
void rd_conn_process(struct rd_conn *c);
/* Queue a reply (sent by the loop). Returns 0 or -ENOMEM (the connection dies). */
int rd_conn_send(struct rd_conn *c, const void *p, size_t n);
/* Close and free (the loop calls it for dead connections). */
void rd_conn_close(struct rd_conn *c);
/* Whether the connection holds a message it has not finished. */
bool rd_conn_mid_message(const struct rd_conn *c);
void rd_conn_kill(struct rd_conn *c, const char *fmt, ...) _printf_(2, 3);

/* --- control.c ------------------------------------------------------------------ */

/* Process complete control commands of c->in; returns < 0 on a protocol error. */
int rd_control_process(struct rd_conn *c);
void rd_control_closed(struct rd_conn *c);

/* --- stream.c --------------------------------------------------------------------- */

uint64_t rd_stream_handle_new(struct rd_relay *r);
struct rd_stream *rd_stream_find(struct rd_relay *r, uint64_t handle);
int rd_stream_create(struct rd_session *s, const char *path, const char *channel,
		     uint64_t tracefile_size, uint64_t tracefile_count, struct rd_stream **ret);
void rd_stream_destroy(struct rd_stream *st);
/* Data connection: process packets of c->in. */
int rd_data_process(struct rd_conn *c);
void rd_data_closed(struct rd_conn *c);
/* SEND_METADATA's content, as it arrives. */
int rd_stream_metadata_write(struct rd_stream *st, const uint8_t *p, size_t n);
void rd_stream_metadata_abort(struct rd_stream *st, uint64_t start);
int rd_stream_metadata_done(struct rd_stream *st, uint64_t padding);
/* SEND_INDEX: index fields from offset on (packet_size...) host order. */
int rd_stream_index(struct rd_stream *st, uint64_t seq, const uint64_t entry[9]);
/* CLOSE_STREAM and the connection closes: close once all the data arrived. */
void rd_stream_close_request(struct rd_stream *st, uint64_t last_seq);
void rd_stream_try_close(struct rd_stream *st);
void rd_stream_close_now(struct rd_stream *st);
/*
 * Sequence numbers compared as lttng-relayd compares them (wrapping; its
 * "none", UINT64_MAX, takes part as -1: none reached none).
 */
static inline bool rd_seq_reached(uint64_t have, uint64_t want)
{
	return (int64_t)(have - want) >= 0;
}
/*
 * For viewers: index entry k's first 56 bytes (offset to stream_id, as the
 * viewer's index reply starts, big-endian) and the tracefile it is in; data
 * of whole packets of a tracefile; metadata of whole commands.
 */
int rd_stream_read_index(struct rd_stream *st, uint64_t k, uint8_t out[56], uint64_t *ret_file);
int rd_stream_read_data(struct rd_stream *st, uint64_t file, uint64_t off, void *buf, size_t len);
int rd_stream_read_metadata(struct rd_stream *st, uint64_t off, void *buf, size_t len);
/* The first entry number viewers can still read (older ones were overwritten). */
uint64_t rd_stream_oldest_entry(const struct rd_stream *st);

/* --- session.c -------------------------------------------------------------------- */

struct rd_session_params {
	const char *name, *hostname, *base_path;
	uint32_t live_timer;
	bool snapshot;
	uint32_t minor;
	const uint8_t *sessiond_uuid; /* NULL before 2.11 */
	uint64_t id_sessiond;
	int64_t creation_time; /* < 0: unknown (before 2.11): now */
	bool name_has_time;
	bool has_current_chunk;
	uint64_t current_chunk_id;
};

int rd_session_create(struct rd_relay *r, struct rd_conn *control,
		      const struct rd_session_params *p, struct rd_session **ret);
void rd_session_ref(struct rd_session *s);
void rd_session_unref(struct rd_session *s);
/* Protocol error or data connection loss: the session takes nothing more. */
void rd_session_abort(struct rd_session *s, const char *why);
/* Viewers: new streams to announce. */
void rd_session_notify_new_streams(struct rd_session *s);
struct rd_session *rd_session_find(struct rd_relay *r, uint64_t id);
struct rd_trace *rd_session_trace(struct rd_session *s, const char *path);
/* Chunks (2.11+). */
int rd_chunk_create(struct rd_session *s, uint64_t id, int64_t created, const char *name);
int rd_chunk_close(struct rd_session *s, uint64_t id, int64_t closed, bool has_cmd, uint32_t cmd,
		   char *ret_path, size_t path_len);
struct rd_chunk *rd_session_chunk_by_id(struct rd_session *s, uint64_t id);
void rd_chunk_unref(struct rd_chunk *c);

/*
 * Peer strings. A name (session, host, channel, chunk) is one non-empty
 * path component: no '/', not "." or "..", no control characters, at most
 * max bytes. A relative path is components joined by '/' (one leading '/'
 * is dropped as lttng-relayd does for old peers).
 */
bool rd_name_ok(const char *s, size_t max);
bool rd_path_ok(const char *s, size_t max);
/*
 * mkdir -p of a relative path below dir_fd, each component opened with
 * O_NOFOLLOW (fs_open_dir_beneath()); "" is dir_fd itself. Returns the
 * last component's descriptor or -errno.
 */
int rd_mkdirs_at(int dir_fd, const char *path);

/* --- live.c ------------------------------------------------------------------------- */

int rd_live_process(struct rd_conn *c);
void rd_live_closed(struct rd_conn *c);

#endif
