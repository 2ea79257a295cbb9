/* SPDX-License-Identifier: MIT */
/*
 * `strata view net://RELAY[:PORT][/host/HOSTNAME/SESSION]`: read a session
 * live from a relay daemon (strata-relayd or lttng-relayd), as babeltrace2
 * 2.0.4's lttng-live source does, or list the relay's sessions.
 */
#ifndef STRATA_CLI_VIEW_LIVE_H
#define STRATA_CLI_VIEW_LIVE_H

#include <stdbool.h>

#include <strata/ctf.h>

struct view_live_opts {
	const char *url;
	struct strata_ctf_pretty_options pretty;
	const char *output; /* -w: a file instead of standard output */
	bool colors; /* the terminal takes colors: reset them at the end */
};

/* Whether arg is a live URL (net://, net4://, net6://) rather than a path. */
bool view_live_is_url(const char *arg);

/* Runs the live reading or listing; returns an enum cli_exit value. */
int view_live_run(const struct view_live_opts *o);

#endif
