/* SPDX-License-Identifier: MIT */
/*
 * What the session-management commands (create, destroy, enable-*, start,
 * stop, list, status ...) share: talking to strata-sessiond over its control
 * socket (spawning it when none runs, as lttng does) and the current session
 * remembered in $STRATA_HOME or $HOME/.strata/current-session (lttng's
 * .lttngrc).
 */
#ifndef STRATA_CLI_SESSION_CLIENT_H
#define STRATA_CLI_SESSION_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "common/ipc-msg.h"

/* Exit status of a command the daemon refused (lttng exits non-zero too). */
#define SC_EXIT_FAILED 1

/*
 * Send req and wait for its reply. Starts the daemon first if its control
 * socket does not answer: $STRATA_SESSIOND_PATH, else strata-sessiond next
 * to this binary (or in the build tree), else the install dir, else PATH.
 * Returns 0 with *rep filled (check rep->status), or -errno after printing
 * an error (no daemon could be reached or spawned).
 */
int sc_request(const struct ipc_request *req, struct ipc_reply *rep);

/* The session a command acts on: `arg` when given, else the current one.
 * Prints lttng's "no session" error and returns -ENOENT when there is none. */
int sc_resolve_session(const char *arg, char out[IPC_NAME_MAX]);

int sc_current_session_get(char out[IPC_NAME_MAX]);
int sc_current_session_set(const char *name);
/* Forget the current session if it is `name`. */
void sc_current_session_forget(const char *name);

/*
 * The body of `strata start|stop [NAME]`: sends ipc_cmd for NAME (default:
 * the current session) and prints done followed by the session name on
 * success. Returns the command's exit status.
 */
int sc_run_session_command(int argc, char **argv, const char *name, uint16_t ipc_cmd,
			   const char *done);

/* Print rep->message as "Error: ..." (status < 0) or "Warning: ..." lines. */
void sc_print_message(const struct ipc_reply *rep);

/* A session in detail, as `lttng list NAME` prints it. */
void sc_print_session(const struct ipc_session_info *s);

/* Log level names: "TRACE_INFO" for 6; parse accepts TRACE_INFO, INFO or 6. */
const char *sc_loglevel_name(int level);
int sc_loglevel_parse(const char *s);

/* Parse "4096", "4k", "1M", "2G" into bytes; -EINVAL on anything else. */
int sc_parse_size(const char *s, unsigned long long *ret);
/* Parse a decimal unsigned 32-bit value; -EINVAL on anything else. */
int sc_parse_u32(const char *s, unsigned int *ret);

#endif
