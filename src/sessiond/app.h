/* SPDX-License-Identifier: MIT */
/* The registry of traced apps (app.c); see include/strata/ust-abi.h. */
#ifndef STRATA_SESSIOND_APP_H
#define STRATA_SESSIOND_APP_H

#include "sessiond/sessiond.h"

#define SD_MAX_APPS 4096

struct sd_app_tp {
	char name[STRATA_UST_SYM_NAME_LEN];
	int32_t loglevel;
};

struct app_cmd; /* app.c: a queued command */

struct sd_app {
	bool in_use;
	bool ready; /* both connections registered */
	bool proto_error;
	uint32_t id;
	pid_t pid; /* from SO_PEERCRED */
	uid_t uid;
	gid_t gid;
	uint32_t ppid;
	/* What the app says of itself (its namespace's view), for the trackers. */
	int64_t vpid, vuid, vgid;
	uint64_t token;
	uint8_t bits_per_long;
	char procname[STRATA_UST_PROCNAME_LEN];
	struct sd_watch cmd;
	struct sd_watch notify;
	uint32_t seq;
	/* Commands not sent yet, and the one whose REPLY is awaited. */
	struct app_cmd *q_head, *q_tail, *inflight;
	uint32_t nr_queued;
	int64_t deadline_ms; /* for the inflight reply (CLOCK_MONOTONIC ms) */
	bool want_out; /* the cmd socket was full: waiting for EPOLLOUT */
	uint32_t nr_registrations;
	uint32_t nr_tps;
	struct sd_app_tp *tps;
	void *trace_priv; /* the tracing side's per-app data */
};

/*
 * Queue a command for the app's cmd connection (header magic/len/seq are
 * filled when it is sent) with optional fds (dup'ed here; the caller keeps
 * its own). Never blocks: commands go out one at a time as the app answers
 * each within STRATA_UST_REPLY_TIMEOUT_MS; an app that does not is dropped.
 * The control request being handled (d->state.op) waits for the answer.
 * Returns 0, or -errno when the app is not registered or the command
 * cannot be queued (the app is then dropped and unused).
 */
int sd_app_queue(struct sd_daemon *d, struct sd_app *a, const void *msg, size_t len, const int *fds,
		 unsigned nr_fds);
int sd_app_send(struct sd_app *a, int fd, void *msg, size_t len, const int *fds, unsigned nr_fds);
void sd_app_drop(struct sd_daemon *d, struct sd_app *a, const char *why);
/*
 * An app's process name made safe for everything it reaches: a directory
 * name (no '/', never "." or ".."), TSDL strings (no '"' or '\\'), a
 * terminal (no control characters, C1 ones in UTF-8 included): each such
 * byte becomes '_'. size includes the NUL.
 */
void sd_procname_sanitize(char *dst, const char *src, size_t size);
/* No control character, '"' or '\\' (names shown by `strata list`, written in TSDL). */
bool sd_name_printable(const char *s);
/* Milliseconds until the first reply deadline, or -1 when none is pending. */
int sd_app_timeout_ms(struct sd_daemon *d);
/* Drop the apps whose reply is overdue. */
void sd_app_expire(struct sd_daemon *d);

#endif
