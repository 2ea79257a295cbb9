/* SPDX-License-Identifier: MIT */
/* strata status: the current session in detail. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char status_help[] =
	"Usage: strata status\n"
	"\n"
	"Show the current recording session in detail, as `strata list NAME` does.\n"
	"\n"
	"Exit status: 0 on success, 1 on error (including no current session).\n";

static int status_run(int argc, char **argv)
{
	struct ipc_request req = { .cmd = IPC_CMD_LIST_SESSIONS };
	struct ipc_reply rep;

	if (argc > 1) {
		cli_error("status takes no argument");
		return cli_usage_error("status");
	}
	(void)argv;
	if (sc_resolve_session(NULL, req.session) < 0)
		return SC_EXIT_FAILED;
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	if (rep.status < 0) {
		sc_print_message(&rep);
		ipc_reply_release(&rep);
		return SC_EXIT_FAILED;
	}
	for (uint32_t i = 0; i < rep.nr_sessions; i++)
		sc_print_session(&rep.sessions[i]);
	ipc_reply_release(&rep);
	return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_status = {
	.name = "status",
	.run = status_run,
	.help = status_help,
	.summary = "show the current session",
};
