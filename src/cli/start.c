/* SPDX-License-Identifier: MIT */
/* strata start: begin recording in a session. */
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
	return sc_run_session_command(argc, argv, "start", IPC_CMD_START,
				      "Tracing started for session ");
}

const struct cli_command cli_cmd_start = {
	.name = "start",
	.run = start_run,
	.help = start_help,
	.summary = "start recording in a session",
};
