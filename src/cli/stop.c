/* SPDX-License-Identifier: MIT */
/* strata stop: stop recording; the trace is complete on disk when it returns. */
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
	return sc_run_session_command(
		argc, argv, "stop", IPC_CMD_STOP,
		"Waiting for data availability\nTracing stopped for session ");
}

const struct cli_command cli_cmd_stop = {
	.name = "stop",
	.run = stop_run,
	.help = stop_help,
	.summary = "stop recording in a session",
};
