/* SPDX-License-Identifier: MIT */
/* strata stop: stop recording; the trace is complete on disk when it returns. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char stop_help[] =
	"Usage: strata stop [NAME]\n"
	"\n"
	"Stop recording in the session NAME (default: the current session). Buffers\n"
	"are flushed: when the command returns, the trace on disk is complete and can\n"
	"be read with `strata view`. The session can be started again.\n"
	"\n"
	"Exit status: 0 on success, 1 on error (including an already stopped session).\n";

static int stop_run(int argc, char **argv)
{
	struct ipc_request req = { .cmd = IPC_CMD_STOP };
	struct ipc_reply rep;

	optind = 1;
	if (getopt_long(argc, argv, "", (const struct option[]){ { NULL, 0, NULL, 0 } }, NULL) !=
	    -1)
		return cli_usage_error("stop");
	if (argc - optind > 1) {
		cli_error("stop takes at most one session name");
		return cli_usage_error("stop");
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
		printf("Waiting for data availability\nTracing stopped for session %s\n",
		       req.session);
	ipc_reply_release(&rep);
	return rep.status < 0 ? SC_EXIT_FAILED : CLI_EXIT_OK;
}

const struct cli_command cli_cmd_stop = {
	.name = "stop",
	.run = stop_run,
	.help = stop_help,
	.summary = "stop recording in a session",
};
