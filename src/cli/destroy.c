/* SPDX-License-Identifier: MIT */
/* strata destroy: stop (flushing the trace) and forget sessions. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char destroy_help[] =
	"Usage: strata destroy [NAME | -a]\n"
	"\n"
	"Destroy the recording session NAME (default: the current session), or all of\n"
	"them with -a. An active session is stopped first, so its trace is complete;\n"
	"the trace files stay on disk.\n"
	"\n"
	"Options:\n"
	"  -a, --all   destroy every session\n"
	"  -h, --help  show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

static int destroy_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_DESTROY };
	struct ipc_reply rep;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a", opts, NULL)) != -1) {
		if (c != 'a')
			return cli_usage_error("destroy");
		req.all = true;
	}
	if (argc - optind > 1 || (req.all && optind < argc)) {
		cli_error("destroy takes one session name or -a, not both");
		return cli_usage_error("destroy");
	}
	if (!req.all && sc_resolve_session(optind < argc ? argv[optind] : NULL, req.session) < 0)
		return SC_EXIT_FAILED;
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	sc_print_message(&rep);
	if (rep.status < 0) {
		ipc_reply_release(&rep);
		return SC_EXIT_FAILED;
	}
	if (req.all && rep.nr_names == 0)
		printf("No session found, nothing to do.\n");
	for (uint32_t i = 0; i < rep.nr_names; i++) {
		printf("Destroying session %s..\nSession %s destroyed\n", rep.names[i],
		       rep.names[i]);
		sc_current_session_forget(rep.names[i]);
	}
	ipc_reply_release(&rep);
	return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_destroy = {
	.name = "destroy",
	.run = destroy_run,
	.help = destroy_help,
	.summary = "destroy recording sessions",
};
