/* SPDX-License-Identifier: MIT */
/* The registry of traced apps (app.c); see include/strata/ust-abi.h. */
#ifndef STRATA_SESSIOND_APP_H
#define STRATA_SESSIOND_APP_H

#include "sessiond/sessiond.h"

#define SD_MAX_APPS 1024

struct sd_app_tp {
	char name[STRATA_UST_SYM_NAME_LEN];
	int32_t loglevel;
};

struct sd_app {
	bool in_use;
	bool ready; /* both connections registered */
	bool proto_error;
	uint32_t id;
	pid_t pid; /* from SO_PEERCRED */
	uid_t uid;
	gid_t gid;
	uint32_t ppid;
	uint64_t token;
	uint8_t bits_per_long;
	char procname[STRATA_UST_PROCNAME_LEN];
	struct sd_watch cmd;
	struct sd_watch notify;
	uint32_t seq;
	uint32_t nr_tps;
	struct sd_app_tp *tps;
	void *trace_priv; /* the tracing side's per-app data */
};

/*
 * Send a command on the app's cmd connection (header magic/len/seq filled
 * here) with optional fds, and wait at most STRATA_UST_REPLY_TIMEOUT_MS for
 * its REPLY while serving the app's notify requests. Returns the app's
 * status (0 or -errno); on a transport error or timeout the app is dropped
 * (sd_app_drop) and -ECONNRESET / -ETIMEDOUT returned: a is then unused.
 */
int sd_app_command(struct sd_daemon *d, struct sd_app *a, void *msg, size_t len, const int *fds,
		   unsigned nr_fds);
int sd_app_send(struct sd_app *a, int fd, void *msg, size_t len, const int *fds, unsigned nr_fds);
void sd_app_drop(struct sd_daemon *d, struct sd_app *a, const char *why);

#endif
