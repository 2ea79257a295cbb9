/* SPDX-License-Identifier: MIT */
/*
 * strata-sessiond internals shared by its files:
 *
 *   main.c     options, run directory, pid lock, daemonizing, the epoll loop
 *   control.c  the control socket (CLI clients, ipc codec)
 *   app.c      the app registration socket (ust-abi.h): registry of apps
 *   state.c    the model; cmd.c the control commands (validate, then apply)
 *   clock.c    the TSC -> CLOCK_MONOTONIC page for apps, and its thread
 *
 * One thread runs the event loop and owns everything here; consumer threads
 * (trace side) never touch this state.
 */
#ifndef STRATA_SESSIOND_SESSIOND_H
#define STRATA_SESSIOND_SESSIOND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <strata/ust-abi.h>

#include "sessiond/state.h"

struct sd_daemon;

/* Something in the epoll set; data.ptr points at it. */
struct sd_watch {
	int fd;
	void (*on_event)(struct sd_daemon *d, struct sd_watch *w, uint32_t events);
};

struct sd_client; /* control.c */
struct sd_app; /* app.c */
struct sd_clock; /* clock.c */

struct sd_daemon {
	struct sd_state state;
	int epfd;
	struct sd_watch ctl_listen;
	struct sd_watch ust_listen;
	struct sd_watch signals;
	char rundir[IPC_PATH_MAX];
	bool global; /* root's daemon serving the system */
	char tracing_group[64]; /* root's daemon: its members may control it */
	bool quit;
	uint32_t nr_clients;
	struct sd_client *clients;
	uint32_t nr_apps;
	struct sd_app *apps;
	uint32_t next_app_id;
	void *kernel; /* trace-kernel.c: the eBPF tracer, created on first use */
	struct sd_clock *clock; /* clock.c; NULL without a TSC */
};

/*
 * A control request that waits for apps. The daemon never blocks on an app:
 * commands to apps are queued (app.c, sd_app_queue()) and answered
 * asynchronously; a request that queued some holds a reference per
 * command, and its reply goes out once the last one is answered, dropped or
 * timed out. Meanwhile the loop serves other clients and apps.
 *
 *   control.c: op = { refs = 1 } --> sd_cmd_handle() --> hooks queue app
 *              commands (refs++ each) and continuations (sd_op_then())
 *   app.c:     reply / timeout / app dropped --> sd_op_put()
 *   last put:  continuations in order (e.g. flush the buffers once every
 *              app has stopped writing), then control.c sends rep
 *
 * Continuations must not assume the session still exists: another client
 * may have destroyed it meanwhile; they find it again by id.
 */
struct sd_op;
typedef void (*sd_op_fn)(struct sd_daemon *d, struct sd_op *op, void *arg);

struct sd_op_step {
	sd_op_fn fn;
	void *arg;
};

struct sd_op {
	uint32_t refs;
	uint32_t nr_then;
	struct sd_op_step *then; /* malloc'd */
	struct ipc_reply *rep; /* what the continuations may complete */
	/* control.c: answer the client; called once, after the continuations. */
	void (*done)(struct sd_daemon *d, struct sd_op *op);
	void *owner;
};

/*
 * Run fn(d, op, arg) once every app command of op is answered, before the
 * reply; without op (no control request), at once, with op NULL. Out of
 * memory, also at once (logged): a step is never lost.
 */
int sd_op_then(struct sd_daemon *d, struct sd_op *op, sd_op_fn fn, void *arg);
void sd_op_get(struct sd_op *op);
void sd_op_put(struct sd_daemon *d, struct sd_op *op);

int sd_watch_add(struct sd_daemon *d, struct sd_watch *w, uint32_t events);
int sd_watch_mod(struct sd_daemon *d, struct sd_watch *w, uint32_t events);
void sd_watch_del(struct sd_daemon *d, struct sd_watch *w);

/* control.c */
/* Bind and listen on a fresh UNIX socket at path with mode; the fd or -errno. */
int sd_unix_listen(const char *path, int type, mode_t mode);
int sd_control_listen(struct sd_daemon *d, const char *path);
/* Milliseconds until an idle client is closed, or -1; then close them. */
int sd_control_timeout_ms(struct sd_daemon *d);
void sd_control_expire(struct sd_daemon *d);
void sd_control_release(struct sd_daemon *d);

/* app.c */
int sd_app_listen(struct sd_daemon *d, const char *path);
void sd_app_release(struct sd_daemon *d);
int sd_app_list_tracepoints(struct sd_daemon *d, struct ipc_reply *rep);

#endif
