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

/* mkdir -p with mode 0750. */
int sd_mkdir_p(const char *path);

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
int sdk_session_start(struct sd_daemon *d, struct sd_session *s, char *msg);
int sdk_session_stop(struct sd_daemon *d, struct sd_session *s, char *msg);
void sdk_session_destroy(struct sd_daemon *d, struct sd_session *s);
void sdk_event_changed(struct sd_daemon *d, struct sd_session *s, struct sd_channel *c,
		       struct sd_event *e);
int sdk_list(struct sd_daemon *d, struct ipc_reply *rep);
void sdk_release(struct sd_daemon *d);

#endif
