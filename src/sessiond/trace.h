/* SPDX-License-Identifier: MIT */
/*
 * The tracing side of strata-sessiond: what happens to buffers, apps and
 * trace files when sessions start, stop and go away. trace.c installs the
 * model's hooks and dispatches them to the domains:
 *
 *   trace-ust.c     the user-space domain: lib/ringbuf buffers sent to the
 *                   apps (ust-abi.h), the consumer thread, <output>/ust/.
 *   trace-kernel.c  the kernel domain (src/sessiond/kernel, eBPF): channels
 *                   created at the first start, records written as CTF
 *                   packets into <output>/kernel/<channel>_<stream>.
 */
#ifndef STRATA_SESSIOND_TRACE_H
#define STRATA_SESSIOND_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "sessiond/sessiond.h"

/* Install the hooks into d->state. Returns 0 or -errno. */
int sd_trace_init(struct sd_daemon *d);
/* After every session is gone. */
void sd_trace_release(struct sd_daemon *d);

/*
 * File system credentials of a session's owner, for the files its traces
 * create: in root's daemon, a member of the tracing group writes only where
 * that user could (setfsuid/setfsgid and the user's groups, for this thread
 * only: Linux credentials are per thread, the raw system calls keep them
 * so). Nothing changes for a session of root or of the daemon's user.
 */
struct sd_fscred {
	bool active;
	uid_t uid;
	gid_t gid;
};

int sd_fscred_enter(struct sd_fscred *c, const struct sd_session *s);
void sd_fscred_leave(struct sd_fscred *c);

/*
 * Create (mkdir -p, 0750) the session's output directory as its owner and
 * check the owner can write there; 0, or -errno with msg (IPC_MSG_MAX)
 * naming the path and the reason.
 */
int sd_output_prepare(const struct sd_session *s, char *msg);

/*
 * A daemon setting's number: decimal digits only, from lo to hi. False
 * (*ret untouched) for anything else.
 */
bool sd_setting_number(const char *s, uint64_t lo, uint64_t hi, uint64_t *ret);

/* trace-ust.c: the same contracts as struct sd_hooks. */
int sdu_session_start(struct sd_daemon *d, struct sd_session *s, char *msg);
int sdu_session_stop(struct sd_daemon *d, struct sd_session *s, char *msg);
void sdu_session_destroy(struct sd_daemon *d, struct sd_session *s);
void sdu_session_stats(struct sd_daemon *d, struct sd_session *s);
void sdu_event_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c,
		       struct sd_event *e);
void sdu_app_ready(struct sd_daemon *d, struct sd_app *a);
void sdu_channel_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c);
void sdu_tracker_changed(struct sd_daemon *d, struct sd_session *s);
int sdu_event_register(struct sd_daemon *d, struct sd_app *a, const void *msg, size_t len,
		       uint32_t *ret_id);
void sdu_release(struct sd_daemon *d);
/*
 * Read the consumer's settings from the environment, once, before the
 * daemon starts any thread: STRATA_SESSIOND_QUEUE_MAX (the FIFO's bound in
 * bytes), STRATA_SESSIOND_TEST_WRITE_GATE and STRATA_SESSIOND_TEST_POLL_MS
 * (tests only: trace-ust.c).
 * Logs and returns -EINVAL on a bad value.
 */
int sdu_configure(void);

/* trace-kernel.c: the same contracts as struct sd_hooks. */
/* Reads the daemon's kernel test settings from the environment, once at start. */
int sdk_configure(void);
int sdk_check(struct sd_daemon *d, char *msg);
int sdk_check_event(struct sd_daemon *d, const char *name, uint8_t type, char *msg);
int sdk_check_context(struct sd_daemon *d, const char *name, char *msg);
int sdk_check_probe(struct sd_daemon *d, uint8_t type, const char *location, char *msg);
int sdk_session_start(struct sd_daemon *d, struct sd_session *s, char *msg);
int sdk_session_stop(struct sd_daemon *d, struct sd_session *s, char *msg);
void sdk_session_destroy(struct sd_daemon *d, struct sd_session *s);
void sdk_event_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c,
		       struct sd_event *e);
void sdk_channel_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c);
void sdk_tracker_changed(struct sd_daemon *d, struct sd_session *s, uint8_t attr);
int sdk_list(struct sd_daemon *d, struct ipc_reply *rep);
void sdk_release(struct sd_daemon *d);

#endif
