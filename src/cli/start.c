/* SPDX-License-Identifier: MIT */
/* strata start: begin recording in a session. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char start_help[] =
	"Usage: strata start [NAME]\n"
	"\n"
	"Start recording in the session NAME (default: the current session). Apps\n"
	"already running are traced from now on, as are those started later.\n"
	"Channels and contexts cannot change once a session has been started.\n"
	"\n"
	"Exit status: 0 on success, 1 on error (including an already started session).\n";

static int start_run(int argc, char **argv)
{
	struct ipc_request req = { .cmd = IPC_CMD_START };
	struct ipc_reply rep;

	optind = 1;
	if (getopt_long(argc, argv, "", (const struct option[]){ { NULL, 0, NULL, 0 } }, NULL) !=
	    -1)
		return cli_usage_error("start");
	if (argc - optind > 1) {
		cli_error("start takes at most one session name");
		return cli_usage_error("start");
	}
	if (sc_resolve_session(optind < argc ? argv[optind] : NULL, req.session) < 0)
		return SC_EXIT_FAILED;
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	if (rep.status == -EALREADY) {
		/* lttng prints this as a warning and exits non-zero. */
		cli_warn("%s", rep.message);
		ipc_reply_release(&rep);
		return SC_EXIT_FAILED;
	}
	sc_print_message(&rep);
	if (rep.status == 0)
		printf("Tracing started for session %s\n", req.session);
	ipc_reply_release(&rep);
	return rep.status < 0 ? SC_EXIT_FAILED : CLI_EXIT_OK;
}

const struct cli_command cli_cmd_start = {
	.name = "start",
	.run = start_run,
	.help = start_help,
	.summary = "start recording in a session",
};
