/* SPDX-License-Identifier: MIT */
/*
 * What strata's daemons do alike: detach once ready. (strata-sessiond has
 * its own copy, from before this file.)
 */
#ifndef STRATA_COMMON_DAEMON_H
#define STRATA_COMMON_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Fork twice (the daemon is no session leader and is reparented) and keep
 * the first parent waiting, up to timeout_ms, until the daemon writes 'R'
 * to the returned descriptor (once it is ready to serve), so that whoever
 * started it can use it as soon as the command returns; the parent exits
 * 0 then, 1 otherwise. keep_stdio: the daemon keeps standard input, output
 * and error; else they go to /dev/null. Returns the descriptor in the
 * daemon; exits on failure.
 */
int strata_daemonize(bool keep_stdio, int timeout_ms);

#endif
