/* SPDX-License-Identifier: MIT */
/*
 * strata-sessiond's state model: sessions, their channels per domain, the
 * event rules and contexts of each channel.
 *
 * Every control command goes through sd_cmd_handle() (cmd.c), which
 * validates the whole request against the state first and only then
 * applies it: a request that fails changes nothing. Side effects outside
 * the model (app commands, buffers, consumer threads, the kernel domain) go
 * through the hooks in struct sd_hooks, called after validation; a hook that
 * fails makes the command fail before the model changes.
 *
 * Invariants: names are unique per parent; a session's user-space channels
 * share one buffering scheme; channels and contexts are frozen once a
 * session has started (the record layout is fixed then), event rules are not.
 */
#ifndef STRATA_SESSIOND_STATE_H
#define STRATA_SESSIOND_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/ipc-msg.h"
#include "ringbuf/ringbuf.h"

#define SD_DEFAULT_CHANNEL "channel0"
#define SD_MAX_SESSIONS IPC_MAX_SESSIONS
#define SD_MAX_CHANNELS 128 /* per domain */
#define SD_MAX_EVENTS 8192 /* per channel */
/* Distinct perf counters a kernel channel records: the recorder's counter
 * slots (KR_MAX_CTR in src/sessiond/bpf/recorder-abi.h). */
#define SD_MAX_KERNEL_COUNTERS 8

/* Channel defaults, as lttng's (ust per-UID 512 KiB x 4, kernel 1 MiB x 4). */
#define SD_UST_SUBBUF_SIZE (512u * 1024)
#define SD_KERNEL_SUBBUF_SIZE (1024u * 1024)
#define SD_DEFAULT_NUM_SUBBUF 4
#define SD_MIN_SUBBUF_SIZE 4096u
#define SD_MAX_SUBBUF_SIZE RB_SUBBUF_SIZE_MAX
#define SD_MAX_NUM_SUBBUF RB_NUM_SUBBUFS_MAX
#define SD_MAX_BUFFER_BYTES RB_CPU_BUF_SIZE_MAX /* subbuf size x count, per CPU */

/*
 * An event rule. Its identity, as LTTng's: name, type, loglevel, filter and
 * exclusions (a rule differing in any of them is another rule).
 */
struct sd_event {
	char name[IPC_NAME_MAX];
	uint8_t type; /* enum ipc_event_type */
	uint8_t loglevel_type;
	int32_t loglevel;
	bool enabled;
	uint64_t id; /* enabler id sent to apps, unique in the daemon's life */
	char *filter; /* the expression as given, or NULL (owned) */
	void *bytecode; /* the filter compiled (hooks.filter_compile), or NULL (owned) */
	size_t bytecode_len;
	uint32_t nr_exclusions; /* user space: names matched by the pattern but excluded */
	char (*exclusions)[IPC_NAME_MAX]; /* owned */
	int32_t kernel_rule; /* trace-kernel.c: 1 + the id of its filtered rule, 0: none */
	char *probe; /* probe types: the location (owned), else NULL */
};

/* One process attribute tracker (track/untrack), as LTTng's. */
struct sd_tracker_value {
	int64_t id; /* resolved when added */
	char text[IPC_NAME_MAX]; /* as given: an id, or a user or group name */
};

struct sd_tracker {
	uint8_t policy; /* enum ipc_tracker_policy */
	uint32_t nr_values;
	struct sd_tracker_value *values; /* owned */
};

#define SD_DOMAIN_INDEX(domain) ((domain) == IPC_DOMAIN_KERNEL ? 1 : 0)

struct sd_channel {
	char name[IPC_NAME_MAX];
	uint8_t domain;
	bool enabled;
	bool overwrite;
	uint8_t buffers; /* IPC_BUFFERS_UID/PID (ust), GLOBAL (kernel) */
	uint64_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t switch_timer_us;
	uint64_t key; /* unique in the daemon's life */
	uint64_t discarded;
	uint32_t nr_events;
	struct sd_event *events;
	uint32_t nr_contexts;
	char (*contexts)[IPC_NAME_MAX];
};

struct sd_domain {
	uint32_t nr_channels;
	struct sd_channel **channels;
};

struct sd_session {
	char name[IPC_NAME_MAX];
	char output[IPC_PATH_MAX];
	uid_t uid; /* owner: the client that created it */
	gid_t gid;
	bool active;
	bool started_once; /* channels and contexts are frozen from now on */
	bool snapshot;
	uint64_t id;
	struct sd_domain ust;
	struct sd_domain kernel;
	/* [SD_DOMAIN_INDEX(domain)][enum ipc_tracker_attr]; policy ALL by default */
	struct sd_tracker trackers[2][IPC_TRACKER_COUNT];
	void *kernel_priv; /* the tracing side's per-session data (trace*.c) */
	void *ust_priv;
};

struct sd_state;
struct sd_app;

/* Side effects of commands; every member may be NULL. Return 0 or -errno
 * and, on error, a message in msg (size IPC_MSG_MAX). */
struct sd_hooks {
	int (*kernel_check)(struct sd_state *st, char *msg); /* may the kernel domain be used? */
	int (*kernel_check_context)(struct sd_state *st, const char *ctx, char *msg);
	/* Does a kernel event rule match anything? (enable-event -k NAME) */
	int (*kernel_check_event)(struct sd_state *st, const char *name, uint8_t type, char *msg);
	/* May s (validated, not yet added) write its output directory? */
	int (*output_check)(struct sd_state *st, struct sd_session *s, char *msg);
	/* Can a probe of this type go at location? (enable-event -k --function...) */
	int (*kernel_check_probe)(struct sd_state *st, uint8_t type, const char *location,
				  char *msg);
	int (*session_start)(struct sd_state *st, struct sd_session *s, char *msg);
	int (*session_stop)(struct sd_state *st, struct sd_session *s, char *msg);
	void (*session_destroy)(struct sd_state *st, struct sd_session *s);
	/*
	 * Compile a filter expression for a domain: 0 and the bytecode
	 * (malloc'd), or -errno and msg (the expression with a caret under
	 * the error). Without this hook, rules keep only the text.
	 */
	int (*filter_compile)(struct sd_state *st, uint8_t domain, const char *expr, void **ret_bc,
			      size_t *ret_len, char *msg);
	/* A tracker of s changed (track/untrack), maybe while it records. */
	void (*tracker_changed)(struct sd_state *st, struct sd_session *s, uint8_t domain,
				uint8_t attr);
	/* A channel was enabled or disabled while the session records. */
	void (*channel_changed)(struct sd_state *st, struct sd_session *s, struct sd_channel *c);
	/* An event rule was added or changed while the session is active. */
	void (*event_changed)(struct sd_state *st, struct sd_session *s, struct sd_channel *c,
			      struct sd_event *e);
	/* Refresh the channels' statistics (discarded events) before a listing. */
	void (*session_stats)(struct sd_state *st, struct sd_session *s);
	/* Fill rep->tracepoints for `list -u` / `list -k`. */
	int (*list_tracepoints)(struct sd_state *st, uint8_t domain, struct ipc_reply *rep);
	/* Apps (app.c): both connections registered / gone. */
	void (*app_ready)(struct sd_state *st, struct sd_app *a);
	void (*app_gone)(struct sd_state *st, struct sd_app *a);
	/* EVENT_REGISTER from an app (msg validated for size and counts):
	 * 0 and the event id, or -errno. */
	int (*event_register)(struct sd_state *st, struct sd_app *a, const void *msg, size_t len,
			      uint32_t *ret_id);
};

struct sd_op;

/* Who sent the control request being handled (SO_PEERCRED). */
struct sd_caller {
	uid_t uid;
	gid_t gid;
	/* Root, or the daemon's own user: sees and may act on every session. */
	bool admin;
	char home[IPC_PATH_MAX]; /* another user's home, for default outputs; "" */
};

struct sd_state {
	struct sd_caller caller;
	/*
	 * The control request being handled, whose reply may wait for apps
	 * (sessiond.h); NULL outside one and in tests.
	 */
	struct sd_op *op;
	uint32_t nr_sessions;
	struct sd_session **sessions;
	uint64_t next_id;
	char home[IPC_PATH_MAX]; /* for the default output directory */
	struct sd_hooks hooks;
	void *priv; /* the daemon's context, for hooks */
};

/* home: the user's home directory ("" means /tmp). */
void sd_state_init(struct sd_state *st, const char *home);
void sd_state_release(struct sd_state *st);

void sd_session_free(struct sd_session *s);
void sd_channel_free(struct sd_channel *c);
struct sd_session *sd_session_find(struct sd_state *st, const char *name);
struct sd_channel *sd_channel_find(struct sd_domain *d, const char *name);
struct sd_domain *sd_session_domain(struct sd_session *s, uint8_t domain);

/* Validate and apply one request; always fills rep (status, message, data). */
void sd_cmd_handle(struct sd_state *st, const struct ipc_request *req, struct ipc_reply *rep);

/* Whether a context type can be added in a domain. */
bool sd_context_valid(uint8_t domain, const char *name);
/* The same, with the reason in msg (IPC_MSG_MAX): 0, -EINVAL or -ENOTSUP. */
int sd_context_check(uint8_t domain, const char *name, char *msg);
/* '*' globbing as lttng does for event names. */
bool sd_name_match(const char *pattern, const char *name);
/* Free what an event rule owns (not the rule itself). */
void sd_event_release(struct sd_event *e);
/*
 * Whether a process with these attributes is traced by s in domain:
 * included by every tracker (policy ALL, or its value in the set).
 */
bool sd_session_tracks(const struct sd_session *s, uint8_t domain,
		       const int64_t attrs[IPC_TRACKER_COUNT]);

#endif
