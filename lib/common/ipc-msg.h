/* SPDX-License-Identifier: MIT */
/*
 * The schema of the control protocol between `strata` and strata-sessiond:
 * one request message, answered by one reply message, on a SOCK_STREAM
 * connection to <rundir>/control.sock (see <strata/ust-abi.h> for rundir).
 *
 * Requests and replies are plain structs here; ipc_request_encode/_decode
 * and ipc_reply_encode/_decode map them to the wire (common/ipc.h). Decoding
 * validates every length and count against the limits below and the payload
 * size, so a decoded struct is always within bounds; semantic validation
 * (names, sizes, domain rules) is the daemon's job.
 */
#ifndef STRATA_COMMON_IPC_MSG_H
#define STRATA_COMMON_IPC_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "common/ipc.h"

#define IPC_NAME_MAX 256 /* session, channel, event, context names, with NUL */
#define IPC_PATH_MAX 4096 /* output directory, with NUL */
#define IPC_MSG_MAX 1024 /* error/warning text, with NUL */
#define IPC_PROCNAME_MAX 17

#define IPC_MAX_NAMES 4096 /* names in one request */
#define IPC_MAX_SESSIONS 1024 /* in one reply */
#define IPC_MAX_CHANNELS 256 /* per session and domain, both domains */
#define IPC_MAX_EVENTS 65536 /* event rules per channel */
#define IPC_MAX_CONTEXTS 64 /* per channel */
#define IPC_MAX_TRACEPOINTS 262144 /* `list -u` / `list -k` entries */
#define IPC_FILTER_MAX 65535 /* filter expression bytes, as LTTng's */
#define IPC_MAX_EXCLUSIONS 1024 /* per event rule */
#define IPC_MAX_TRACKER_VALUES 4096 /* per tracker */

/* Message types: requests use the command, replies IPC_MSG_REPLY. */
enum ipc_cmd {
	IPC_CMD_PING = 1, /* readiness: the daemon answers with status 0 */
	IPC_CMD_CREATE = 2,
	IPC_CMD_DESTROY = 3,
	IPC_CMD_ENABLE_CHANNEL = 4,
	IPC_CMD_ENABLE_EVENT = 5,
	IPC_CMD_DISABLE_EVENT = 6,
	IPC_CMD_ADD_CONTEXT = 7,
	IPC_CMD_START = 8,
	IPC_CMD_STOP = 9,
	IPC_CMD_LIST_SESSIONS = 10, /* all sessions, or `session` in detail */
	IPC_CMD_LIST_TRACEPOINTS = 11, /* available events of `domain` */
	/* track (tracker_remove = 0) / untrack: tracker_attr, names = values, all = --all */
	IPC_CMD_TRACK = 12,
	IPC_CMD_DISABLE_CHANNEL = 13, /* names = channels, all = every one */
	IPC_CMD_CLEAR = 14, /* drop what the session recorded so far */
	IPC_CMD_REGENERATE = 15, /* regenerate = enum ipc_regenerate */
	IPC_CMD_ROTATE = 16, /* close the trace's files, go on in a new chunk */
	IPC_CMD_MAX,
	IPC_MSG_REPLY = 100,
};

enum ipc_domain {
	IPC_DOMAIN_NONE = 0,
	IPC_DOMAIN_UST = 1,
	IPC_DOMAIN_KERNEL = 2,
};

enum ipc_event_type {
	IPC_EVENT_TRACEPOINT = 0,
	IPC_EVENT_SYSCALL = 1,
	IPC_EVENT_ALL = 2, /* kernel -a without --tracepoint/--syscall: both */
	/* Kernel probes; the request's `probe` holds the location, names[0] the record name. */
	IPC_EVENT_PROBE = 3, /* --probe=SYM[+OFF]|0xADDR */
	IPC_EVENT_FUNCTION = 4, /* --function=SYM|0xADDR */
	IPC_EVENT_USERSPACE_PROBE = 5, /* --userspace-probe=elf:PATH:FUNC|sdt:PATH:PROV:NAME */
	IPC_EVENT_USERSPACE_FUNCTION = 6, /* --userspace-function=elf:PATH:FUNC */
};

enum ipc_loglevel_type {
	IPC_LOGLEVEL_ALL = 0,
	IPC_LOGLEVEL_RANGE = 1, /* --loglevel: as severe or more */
	IPC_LOGLEVEL_SINGLE = 2, /* --loglevel-only */
};

enum ipc_buffers {
	IPC_BUFFERS_DEFAULT = 0, /* per-UID in user space, global in the kernel */
	IPC_BUFFERS_UID = 1,
	IPC_BUFFERS_PID = 2,
	IPC_BUFFERS_GLOBAL = 3,
};

/* What `track`/`untrack` restrict: LTTng's process attributes. */
enum ipc_tracker_attr {
	IPC_TRACKER_PID = 0,
	IPC_TRACKER_VPID = 1,
	IPC_TRACKER_UID = 2,
	IPC_TRACKER_VUID = 3,
	IPC_TRACKER_GID = 4,
	IPC_TRACKER_VGID = 5,
	IPC_TRACKER_COUNT,
};

enum ipc_tracker_policy {
	IPC_TRACKER_ALL = 0, /* include every process (the default) */
	IPC_TRACKER_SET = 1, /* include the processes whose attribute is in the set */
	IPC_TRACKER_NONE = 2, /* exclude every process */
};

enum ipc_regenerate {
	IPC_REGENERATE_METADATA = 1,
	IPC_REGENERATE_STATEDUMP = 2,
};

/* Which channel attributes a request sets (the others keep defaults). */
enum ipc_chan_attr {
	IPC_CHAN_SUBBUF_SIZE = 1 << 0,
	IPC_CHAN_NUM_SUBBUF = 1 << 1,
	IPC_CHAN_OVERWRITE = 1 << 2,
	IPC_CHAN_BUFFERS = 1 << 3,
	IPC_CHAN_SWITCH_TIMER = 1 << 4,
};

struct ipc_request {
	uint16_t cmd; /* enum ipc_cmd */
	uint8_t domain; /* enum ipc_domain */
	bool all; /* destroy -a, enable/disable-event -a */
	bool snapshot; /* create --snapshot */
	uint8_t event_type; /* enum ipc_event_type */
	uint8_t loglevel_type; /* enum ipc_loglevel_type */
	int32_t loglevel;
	char session[IPC_NAME_MAX]; /* "" : none given */
	char output[IPC_PATH_MAX]; /* create -o, absolute; "" : default */
	char channel[IPC_NAME_MAX]; /* "" : default channel */
	uint32_t chan_set; /* enum ipc_chan_attr bits */
	uint64_t subbuf_size;
	uint32_t num_subbuf;
	bool overwrite;
	uint8_t buffers; /* enum ipc_buffers */
	uint32_t switch_timer_us;
	uint32_t nr_names; /* event names, context types, channels, tracker values */
	char (*names)[IPC_NAME_MAX]; /* owned, malloc'd */
	char *filter; /* enable-event --filter: the expression, malloc'd; NULL none */
	uint32_t nr_exclusions; /* enable-event -x */
	char (*exclusions)[IPC_NAME_MAX]; /* owned, malloc'd */
	uint8_t tracker_attr; /* enum ipc_tracker_attr */
	bool tracker_remove; /* untrack */
	uint8_t regenerate; /* enum ipc_regenerate */
	char probe[IPC_PATH_MAX]; /* enable-event of a probe type: its location */
};

struct ipc_event_info {
	char name[IPC_NAME_MAX];
	uint8_t type; /* enum ipc_event_type */
	bool enabled;
	uint8_t loglevel_type;
	int32_t loglevel;
	char *filter; /* malloc'd; NULL none */
	uint32_t nr_exclusions;
	char (*exclusions)[IPC_NAME_MAX]; /* malloc'd */
	char *probe; /* probe types: the location (malloc'd, freed with the reply), else NULL */
};

/* One tracker of a session's domain; policy SET lists its values. */
struct ipc_tracker_info {
	uint8_t domain;
	uint8_t attr; /* enum ipc_tracker_attr */
	uint8_t policy; /* enum ipc_tracker_policy */
	uint32_t nr_values;
	char (*values)[IPC_NAME_MAX]; /* ids, or user/group names as given */
};

struct ipc_channel_info {
	char name[IPC_NAME_MAX];
	uint8_t domain;
	bool enabled;
	bool overwrite;
	uint8_t buffers;
	uint64_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t switch_timer_us;
	uint64_t discarded; /* events discarded so far */
	uint32_t nr_events;
	struct ipc_event_info *events;
	uint32_t nr_contexts;
	char (*contexts)[IPC_NAME_MAX];
};

struct ipc_session_info {
	char name[IPC_NAME_MAX];
	char output[IPC_PATH_MAX];
	bool active;
	bool snapshot;
	uint32_t nr_channels;
	struct ipc_channel_info *channels;
	uint32_t nr_trackers; /* only those not including every process */
	struct ipc_tracker_info *trackers;
};

/* One available event: `list -u` (per app) or `list -k`. */
struct ipc_tracepoint_info {
	int32_t pid; /* 0 for the kernel */
	char procname[IPC_PROCNAME_MAX];
	char name[IPC_NAME_MAX];
	int32_t loglevel;
	uint8_t type; /* enum ipc_event_type */
};

struct ipc_reply {
	int32_t status; /* 0, or -errno; -EALREADY: nothing to do (a warning) */
	char message[IPC_MSG_MAX]; /* error text when status < 0, else a warning or "" */
	char session[IPC_NAME_MAX]; /* create: the name (auto-named or given) */
	char output[IPC_PATH_MAX]; /* create: the trace directory */
	char channel[IPC_NAME_MAX]; /* event/context commands: the channel used */
	uint32_t nr_names; /* per-item results, e.g. events enabled */
	char (*names)[IPC_NAME_MAX];
	uint32_t nr_sessions;
	struct ipc_session_info *sessions;
	uint32_t nr_tracepoints;
	struct ipc_tracepoint_info *tracepoints;
};

/* Encode into a fresh buffer (ipc_buf_init'd by the callee); 0 or -errno. */
int ipc_request_encode(const struct ipc_request *req, struct ipc_buf *b);
int ipc_reply_encode(const struct ipc_reply *rep, struct ipc_buf *b);

/* Decode a payload into *ret (zeroed first, owns its arrays on success and
 * released by _release); 0 or -STRATA_EPROTO / -ENOMEM, *ret empty then. */
int ipc_request_decode(const void *payload, size_t len, uint16_t type, struct ipc_request *ret);
int ipc_reply_decode(const void *payload, size_t len, struct ipc_reply *ret);

void ipc_request_release(struct ipc_request *req);
void ipc_reply_release(struct ipc_reply *rep);

/* Append a name to a request's or reply's name list; 0 or -ENOMEM/-E2BIG.
 * The list must come from this function or a decode (capacity is kept at
 * the next power of two of the count). */
int ipc_names_append(char (**names)[IPC_NAME_MAX], uint32_t *nr, const char *name);

const char *ipc_domain_name(uint8_t domain); /* "ust", "kernel" or "none" */

#endif
