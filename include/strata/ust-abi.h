/* SPDX-License-Identifier: MIT */
/*
 * The app <-> strata-sessiond registration protocol (owned by the daemon side;
 * lib/ust implements the app side against this header).
 *
 * Transport
 * ---------
 * Each traced process opens TWO connections (AF_UNIX, SOCK_SEQPACKET, so
 * every send is one message and file descriptors travel with it as
 * SCM_RIGHTS) to the registration socket `<rundir>/ust.sock`:
 *
 *   - the NOTIFY connection: app -> daemon requests (tracepoint lists, event
 *     registrations), each answered by the daemon when it is a request;
 *   - the CMD connection: daemon -> app commands (channels, contexts,
 *     enablers, start/stop), each answered by one STRATA_UST_MSG_REPLY.
 *
 * Both connections begin with a struct strata_ust_register carrying the same
 * random 64-bit `token`; the daemon pairs them by (peer pid, token). The app
 * is usable once both are registered. The daemon answers each REGISTER with
 * a struct strata_ust_register_reply. The daemon trusts only SO_PEERCRED for
 * pid/uid/gid, and checks every length and count in what an app sends.
 *
 * Apps are never blocked by the daemon: connecting is non-blocking and
 * retried, and an app runs untraced until the daemon commands otherwise.
 * The daemon bounds each wait for a REPLY (STRATA_UST_REPLY_TIMEOUT_MS); an
 * app that does not answer in time is dropped. While waiting for a REPLY on
 * the CMD connection the daemon keeps serving that app's NOTIFY connection,
 * so an app may register events before replying to an ENABLER.
 *
 * Lifecycle seen by an app
 * ------------------------
 *   REGISTER (notify), REGISTER (cmd)  -> REGISTER_REPLY on each
 *   CLOCK (cmd, with the clock page fd, since 1.2) -> REPLY
 *   TRACEPOINT_LIST (notify, any time, no reply): probes it knows, in chunks
 *   for each session already started: CHANNEL.. START as below, then
 *   REGISTER_DONE (cmd, since 1.3) -> REPLY: the app's constructor, which
 *   waits for it (bounded), lets main() run, traced from its first event
 *   then, when a session is started (or at once if one already is):
 *   CHANNEL (cmd, with shm fds)        -> REPLY
 *   CONTEXT* (cmd, per channel, order = record layout order)  -> REPLY
 *   ENABLER* (cmd)                     -> REPLY; for every (probe, channel)
 *                                          newly enabled, EVENT_REGISTER
 *                                          (notify) -> EVENT_REGISTER_REPLY
 *                                          carrying the event id to write
 *   START (cmd)                        -> REPLY; record from now on
 *   STOP (cmd)                         -> REPLY once no record of that session
 *                                          is being written by this app
 *   SESSION_DESTROY (cmd)              -> REPLY; unmap that session's channels
 *
 * All integers are in the host's native byte order (same machine). Every
 * struct is packed to its natural alignment with explicit padding and a
 * fixed size checked by static assertions in the daemon.
 */
#ifndef STRATA_UST_ABI_H
#define STRATA_UST_ABI_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_UST_MAGIC 0x53545255u /* "STRU" */
#define STRATA_UST_PROTO_MAJOR 2 /* a different major is refused */
#define STRATA_UST_PROTO_MINOR 1 /* 2.0: ENABLER with exclusions and filter, CHANNEL_ENABLE; 2.1: PERF_THREAD contexts */

/* Limits; anything larger is a protocol error (connection dropped). */
#define STRATA_UST_SYM_NAME_LEN 256 /* includes the NUL */
#define STRATA_UST_PROCNAME_LEN 16 /* like the kernel's TASK_COMM_LEN */
#define STRATA_UST_MAX_FIELDS 128 /* per event */
#define STRATA_UST_MAX_ENUM_ENTRIES 1024 /* per event, all enum fields */
#define STRATA_UST_MAX_TP_PER_MSG 128 /* TRACEPOINT_LIST chunk */
#define STRATA_UST_MAX_FDS 1024 /* SCM_RIGHTS fds in one CHANNEL */
#define STRATA_UST_MAX_MSG_SIZE (1u << 20)
/*
 * What one daemon may give one app, over all of its sessions: the daemon
 * refuses the command that would go past these (enable-channel,
 * enable-event), so that nothing it accepted fails in an app.
 */
#define STRATA_UST_MAX_CHANNELS 256
#define STRATA_UST_MAX_ENABLERS 16384
#define STRATA_UST_MAX_CONTEXTS 8 /* per channel (each context once) */
#define STRATA_UST_REPLY_TIMEOUT_MS 3000

/* --- Where the sockets live -------------------------------------------- */

#define STRATA_RUNDIR_ENV "STRATA_RUNDIR" /* the user's own daemon (tests) */
#define STRATA_GLOBAL_RUNDIR_ENV "STRATA_GLOBAL_RUNDIR" /* root's daemon (tests) */
#define STRATA_GLOBAL_RUNDIR "/run/strata" /* root's daemon: serves the system */
#define STRATA_UST_SOCK_NAME "ust.sock"
#define STRATA_CONTROL_SOCK_NAME "control.sock"
#define STRATA_PID_FILE_NAME "sessiond.pid"

/*
 * The calling user's run directory, where its daemon listens:
 *   $STRATA_RUNDIR if set; else /run/strata for root; else
 *   $XDG_RUNTIME_DIR/strata; else $HOME/.strata.
 * Returns 0, or -ENAMETOOLONG / -ENOENT (no HOME). Async-signal-unsafe
 * (getenv); call it at init.
 */
static inline int strata_rundir_path(char *buf, size_t len)
{
	const char *env = getenv(STRATA_RUNDIR_ENV);
	int n;

	if (env && env[0])
		n = snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "%s", STRATA_GLOBAL_RUNDIR);
	else if ((env = getenv("XDG_RUNTIME_DIR")) && env[0])
		n = snprintf(buf, len, "%s/strata", env);
	else if ((env = getenv("HOME")) && env[0])
		n = snprintf(buf, len, "%s/.strata", env);
	else
		return -2; /* -ENOENT */
	if (n < 0 || (size_t)n >= len)
		return -36; /* -ENAMETOOLONG */
	return 0;
}

/*
 * Root's run directory, where the daemon that traces every user's apps
 * listens: $STRATA_GLOBAL_RUNDIR if set, else /run/strata unless
 * $STRATA_RUNDIR is set (a private run directory, as tests use, means no
 * system-wide daemon unless named). Every app registers with its own
 * user's daemon (strata_rundir_path()) and, when it is another one, with
 * this one, so that root's sessions trace every process of the system.
 * Returns 0, -ENOENT (none), or -ENAMETOOLONG.
 */
static inline int strata_global_rundir_path(char *buf, size_t len)
{
	const char *env = getenv(STRATA_GLOBAL_RUNDIR_ENV);
	int n;

	if (env && env[0])
		n = snprintf(buf, len, "%s", env);
	else if ((env = getenv(STRATA_RUNDIR_ENV)) && env[0])
		return -2; /* -ENOENT */
	else
		n = snprintf(buf, len, "%s", STRATA_GLOBAL_RUNDIR);
	if (n < 0 || (size_t)n >= len)
		return -36; /* -ENAMETOOLONG */
	return 0;
}

/* --- Message framing ---------------------------------------------------- */

enum strata_ust_msg_type {
	/* app -> daemon, both connections, first message */
	STRATA_UST_MSG_REGISTER = 1,
	/* daemon -> app, answer to REGISTER */
	STRATA_UST_MSG_REGISTER_REPLY = 2,
	/* app -> daemon (notify), no answer */
	STRATA_UST_MSG_TRACEPOINT_LIST = 3,
	/* app -> daemon (notify), answered by EVENT_REGISTER_REPLY */
	STRATA_UST_MSG_EVENT_REGISTER = 4,
	STRATA_UST_MSG_EVENT_REGISTER_REPLY = 5,

	/* daemon -> app (cmd), each answered by REPLY */
	STRATA_UST_MSG_CHANNEL = 16,
	STRATA_UST_MSG_CONTEXT = 17,
	STRATA_UST_MSG_ENABLER = 18,
	STRATA_UST_MSG_START = 19,
	STRATA_UST_MSG_STOP = 20,
	STRATA_UST_MSG_SESSION_DESTROY = 21,
	STRATA_UST_MSG_CLOCK = 22,
	STRATA_UST_MSG_REGISTER_DONE = 23, /* just a header */
	STRATA_UST_MSG_CHANNEL_ENABLE = 24,
	/* app -> daemon (cmd), answer to any command above */
	STRATA_UST_MSG_REPLY = 32,
};

struct strata_ust_msg_header {
	uint32_t magic; /* STRATA_UST_MAGIC */
	uint16_t type; /* enum strata_ust_msg_type */
	uint16_t flags; /* 0 */
	uint32_t len; /* whole message in bytes, header included */
	uint32_t seq; /* chosen by the requester, echoed in the answer */
};

/* --- Registration ------------------------------------------------------- */

enum strata_ust_socket_kind {
	STRATA_UST_SOCKET_CMD = 1,
	STRATA_UST_SOCKET_NOTIFY = 2,
};

struct strata_ust_register {
	struct strata_ust_msg_header hdr;
	uint16_t major; /* STRATA_UST_PROTO_MAJOR */
	uint16_t minor;
	uint8_t socket_kind; /* enum strata_ust_socket_kind */
	uint8_t bits_per_long; /* 32 or 64: selects ust/uid/<uid>/<bits>-bit */
	uint8_t byte_order; /* 0: little-endian, 1: big-endian */
	uint8_t pad0;
	uint32_t pid; /* informative; the daemon uses SO_PEERCRED */
	uint32_t ppid;
	uint32_t uid;
	uint32_t gid;
	uint32_t pad1;
	uint32_t pad2; /* token is 8-byte aligned: no implicit padding */
	uint64_t token; /* same value on both connections of one process */
	char procname[STRATA_UST_PROCNAME_LEN]; /* NUL-terminated */
};

struct strata_ust_register_reply {
	struct strata_ust_msg_header hdr;
	int32_t status; /* 0 or -errno; non-zero: the app closes and retries later */
	uint32_t app_id;
};

/* --- Tracepoint list (what `strata list -u` shows) ---------------------- */

struct strata_ust_tracepoint_entry {
	char name[STRATA_UST_SYM_NAME_LEN]; /* "provider:event" */
	int32_t loglevel; /* enum strata_ust_loglevel */
	uint32_t pad;
};

/* Followed by nr entries (<= STRATA_UST_MAX_TP_PER_MSG). Additive: an app
 * sends more chunks when it loads new probes (dlopen). */
struct strata_ust_tracepoint_list {
	struct strata_ust_msg_header hdr;
	uint32_t nr;
	uint32_t pad;
	/* struct strata_ust_tracepoint_entry entries[nr]; */
};

/* syslog-like levels, as lttng-ust's TRACEPOINT_LOGLEVEL */
enum strata_ust_loglevel {
	STRATA_UST_LOGLEVEL_EMERG = 0,
	STRATA_UST_LOGLEVEL_ALERT = 1,
	STRATA_UST_LOGLEVEL_CRIT = 2,
	STRATA_UST_LOGLEVEL_ERR = 3,
	STRATA_UST_LOGLEVEL_WARNING = 4,
	STRATA_UST_LOGLEVEL_NOTICE = 5,
	STRATA_UST_LOGLEVEL_INFO = 6,
	STRATA_UST_LOGLEVEL_DEBUG_SYSTEM = 7,
	STRATA_UST_LOGLEVEL_DEBUG_PROGRAM = 8,
	STRATA_UST_LOGLEVEL_DEBUG_PROCESS = 9,
	STRATA_UST_LOGLEVEL_DEBUG_MODULE = 10,
	STRATA_UST_LOGLEVEL_DEBUG_UNIT = 11,
	STRATA_UST_LOGLEVEL_DEBUG_FUNCTION = 12,
	STRATA_UST_LOGLEVEL_DEBUG_LINE = 13,
	STRATA_UST_LOGLEVEL_DEBUG = 14,
};

/* --- Event registration (field layout for the metadata) ------------------ */

/*
 * One field of an event's payload, in record order: a flat copy of
 * struct strata_field_desc (<strata/ust-events.h>) with the strings inline,
 * so the daemon rebuilds the descriptor and hands it to the CTF metadata
 * writer unchanged. kind, encoding and the integer layout take the values of
 * enum strata_type_kind, enum strata_encoding and struct strata_integer_type.
 * A SEQUENCE takes its length from the field just before it (an unsigned
 * integer), as in ust-events.h. An ENUM owns the next nr_enum_entries
 * entries of the message's enum entry table, in field order.
 */
struct strata_ust_field {
	char name[STRATA_UST_SYM_NAME_LEN]; /* without the '_' prefix */
	uint8_t kind; /* enum strata_type_kind */
	uint8_t encoding; /* enum strata_encoding */
	uint8_t nowrite;
	uint8_t reserved;
	/* struct strata_integer_type: scalar, enum container or element */
	uint8_t int_size; /* bits: 8, 16, 32, 64 (floats: 32 or 64) */
	uint8_t int_signed;
	uint8_t int_base; /* 10 or 16 */
	uint8_t int_network;
	uint32_t length; /* ARRAY: element count (<= 65536) */
	uint32_t nr_enum_entries; /* ENUM */
	char enum_name[STRATA_UST_SYM_NAME_LEN]; /* ENUM: "provider_enum" */
};

/* struct strata_enum_entry, flattened. */
struct strata_ust_enum_entry {
	uint64_t start; /* two's complement when start_signed */
	uint64_t end; /* inclusive */
	uint8_t start_signed;
	uint8_t end_signed;
	uint8_t is_auto;
	uint8_t pad[5];
	char label[STRATA_UST_SYM_NAME_LEN];
};

struct strata_ust_event_register {
	struct strata_ust_msg_header hdr;
	uint64_t channel_key; /* from the CHANNEL command */
	int32_t loglevel;
	uint32_t nr_fields; /* <= STRATA_UST_MAX_FIELDS */
	uint32_t nr_enum_entries; /* <= STRATA_UST_MAX_ENUM_ENTRIES */
	uint32_t pad;
	char name[STRATA_UST_SYM_NAME_LEN]; /* "provider:event" */
	/* struct strata_ust_field fields[nr_fields]; */
	/* struct strata_ust_enum_entry entries[nr_enum_entries]; */
};

/*
 * The id the app writes in its records' event header for this (event,
 * channel). With per-UID buffers the same (name, fields) gets the same id in
 * every app of the user; the metadata describes it once.
 */
struct strata_ust_event_register_reply {
	struct strata_ust_msg_header hdr;
	int32_t status; /* 0 or -errno: the app must not record the event */
	uint32_t event_id;
};

/* --- Commands (daemon -> app) ------------------------------------------ */

enum strata_ust_buffer_type {
	STRATA_UST_BUFFERS_UID = 1, /* shared by every app of one uid (default) */
	STRATA_UST_BUFFERS_PID = 2, /* one buffer set per process */
};

/*
 * Map a channel's buffers. nr_fds descriptors travel with this message
 * (SCM_RIGHTS), in the order lib/ringbuf's attach function takes them; the
 * app hands them over unchanged. channel_key is unique in the daemon's life.
 */
struct strata_ust_channel {
	struct strata_ust_msg_header hdr;
	uint64_t channel_key;
	uint64_t session_id;
	uint64_t subbuf_size; /* bytes, power of two */
	uint32_t num_subbuf; /* power of two */
	uint32_t nr_cpus; /* per-CPU buffers 0..nr_cpus-1 */
	uint32_t buffer_type; /* enum strata_ust_buffer_type */
	uint32_t overwrite; /* 1: flight recorder, 0: discard */
	uint32_t switch_timer_us; /* 0: none */
	uint32_t nr_fds; /* <= STRATA_UST_MAX_FDS */
	char name[STRATA_UST_SYM_NAME_LEN];
};

/*
 * Contexts recorded before each event's payload in a channel, in the order
 * the CONTEXT commands arrived (they all come before START). Layouts:
 *   VPID, VTID: int32 (signed, base 10, 32-bit aligned); "_vpid", "_vtid"
 *   PTHREAD_ID: unsigned long (bits_per_long, base 16); "_pthread_id"
 *   PROCNAME: char[17] UTF-8 text, NUL padded (byte aligned); "_procname"
 *   IP: unsigned long (bits_per_long, base 16) call site; "_ip"
 *   PERF_THREAD: uint64 (base 10), the calling thread's count of a perf
 *     counter (perf_type, perf_config of perf_event_open(2)), opened for each
 *     thread at its first record, read with rdpmc where the PMU lets user
 *     space, else read(2); 0 when the counter cannot be opened. Sent as a
 *     struct strata_ust_context_perf; "_perf_thread_<name>"
 */
enum strata_ust_context_type {
	STRATA_UST_CONTEXT_VPID = 1,
	STRATA_UST_CONTEXT_VTID = 2,
	STRATA_UST_CONTEXT_PROCNAME = 3,
	STRATA_UST_CONTEXT_PTHREAD_ID = 4,
	STRATA_UST_CONTEXT_IP = 5,
	STRATA_UST_CONTEXT_PERF_THREAD = 6,
};

struct strata_ust_context {
	struct strata_ust_msg_header hdr;
	uint64_t channel_key;
	uint32_t ctx_type; /* enum strata_ust_context_type */
	uint32_t pad;
};

/* A CONTEXT of type PERF_THREAD. */
struct strata_ust_context_perf {
	struct strata_ust_context ctx;
	uint32_t perf_type; /* PERF_TYPE_* */
	uint32_t pad;
	uint64_t perf_config;
};

enum strata_ust_loglevel_type {
	STRATA_UST_LOGLEVEL_ALL = 0, /* any loglevel */
	STRATA_UST_LOGLEVEL_RANGE = 1, /* loglevel <= value (as severe or more) */
	STRATA_UST_LOGLEVEL_SINGLE = 2, /* loglevel == value */
};

/*
 * Create or update enabler `enabler_id` of a channel: probes whose
 * "provider:event" name matches `pattern` ('*' matches any run of characters,
 * anywhere; "*" alone matches all), matches none of its exclusions (same
 * globbing) and whose loglevel passes are recorded in the channel while at
 * least one matching enabler is enabled and its filter, if any, accepts the
 * event (several matching enablers: their filters are OR-ed, one without a
 * filter always accepts). Sending the same enabler_id with enabled = 0
 * disables it (the exclusions and filter of its first sending stay).
 *
 * Followed by nr_exclusions names of STRATA_UST_SYM_NAME_LEN bytes, then
 * filter_len bytes of filter bytecode (lib/filter/bytecode.h), which the
 * app validates before any use: a program it refuses makes the enabler match
 * nothing.
 */
#define STRATA_UST_MAX_EXCLUSIONS 256 /* per enabler */
#define STRATA_UST_MAX_FILTER_LEN 65536 /* bytecode bytes */

struct strata_ust_enabler {
	struct strata_ust_msg_header hdr;
	uint64_t channel_key;
	uint64_t enabler_id;
	uint32_t enabled;
	uint32_t loglevel_type; /* enum strata_ust_loglevel_type */
	int32_t loglevel;
	uint32_t nr_exclusions; /* <= STRATA_UST_MAX_EXCLUSIONS */
	uint32_t filter_len; /* <= STRATA_UST_MAX_FILTER_LEN; 0: no filter */
	uint32_t pad;
	char pattern[STRATA_UST_SYM_NAME_LEN];
	/* char exclusions[nr_exclusions][STRATA_UST_SYM_NAME_LEN]; */
	/* uint8_t filter[filter_len]; */
};

/* Record (enabled = 1) or not the channel's events: disable-channel. */
struct strata_ust_channel_enable {
	struct strata_ust_msg_header hdr;
	uint64_t channel_key;
	uint32_t enabled;
	uint32_t pad;
};

/*
 * The daemon's TSC -> CLOCK_MONOTONIC conversion page (lib/ust/clock-page.h),
 * one memfd of page_size bytes (SCM_RIGHTS), sealed against resizing and
 * against new writable mappings: the app maps it read-only and stamps its
 * records with it, falling back to clock_gettime(CLOCK_MONOTONIC) whenever
 * the page is not valid. Sent once, right after registration. An app that
 * cannot use it answers an error and keeps using clock_gettime (the two
 * agree within the calibration error, well under a microsecond).
 */
struct strata_ust_clock {
	struct strata_ust_msg_header hdr;
	uint32_t page_size;
	uint32_t version; /* of the page layout: UST_CLOCK_PAGE_VERSION */
};

/* START, STOP, SESSION_DESTROY */
struct strata_ust_session_cmd {
	struct strata_ust_msg_header hdr;
	uint64_t session_id;
};

struct strata_ust_reply {
	struct strata_ust_msg_header hdr;
	int32_t status; /* 0 or -errno */
	uint32_t pad;
};

#ifdef __cplusplus
}
#endif
#endif
