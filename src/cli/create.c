/* SPDX-License-Identifier: MIT */
/* strata create: a recording session, which becomes the current one. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char create_help[] =
	"Usage: strata create [NAME] [-o DIR] [--snapshot]\n"
	"\n"
	"Create a recording session named NAME (default: auto-YYYYmmdd-HHMMSS) and make\n"
	"it the current session. The session daemon is started if none runs.\n"
	"\n"
	"Options:\n"
	"  -o, --output=DIR  write the trace to DIR (default:\n"
	"                    ~/strata-traces/NAME-YYYYmmdd-HHMMSS)\n"
	"      --snapshot    snapshot mode: channels default to overwrite (flight\n"
	"                    recorder) mode\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

static int create_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "snapshot", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_CREATE };
	struct ipc_reply rep;
	const char *output = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 's':
			req.snapshot = true;
			break;
		default:
			return cli_usage_error("create");
		}
	}
	if (argc - optind > 1) {
		cli_error("Too many arguments: create takes at most one session name");
		return cli_usage_error("create");
	}
	if (optind < argc) {
		if (strlen(argv[optind]) >= sizeof(req.session)) {
			cli_error("Session name is too long (at most %zu bytes)",
				  sizeof(req.session) - 1);
			return CLI_EXIT_USAGE;
		}
		memcpy(req.session, argv[optind], strlen(argv[optind]) + 1);
	}
	if (output) {
		char cwd[PATH_MAX];
		int n;

		/* The daemon's working directory is not ours: make it absolute. */
		if (output[0] == '/')
			n = snprintf(req.output, sizeof(req.output), "%s", output);
		else if (getcwd(cwd, sizeof(cwd)))
			n = snprintf(req.output, sizeof(req.output), "%s/%s", cwd, output);
		else
			n = -1;
		if (n < 0 || (size_t)n >= sizeof(req.output)) {
			cli_error("Output directory '%s' is too long or the current directory is "
				  "unreachable",
				  output);
			return CLI_EXIT_USAGE;
		}
		/* Tidy "dir/" into "dir", as users type it. */
		while (n > 1 && req.output[n - 1] == '/')
			req.output[--n] = '\0';
	}
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	sc_print_message(&rep);
	if (rep.status < 0) {
		ipc_reply_release(&rep);
		return SC_EXIT_FAILED;
	}
	ret = sc_current_session_set(rep.session);
	printf("Session %s created.\n", rep.session);
	if (req.snapshot)
		printf("Default snapshot output set to %s\n"
		       "Every channel enabled for this session will be set to overwrite mode.\n",
		       rep.output);
	else
		printf("Traces will be output to %s\n", rep.output);
	if (ret < 0)
		cli_warn("Failed to remember '%s' as the current session: %s", rep.session,
			 strerror(-ret));
	ipc_reply_release(&rep);
	return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_create = {
	.name = "create",
	.run = create_run,
	.help = create_help,
	.summary = "create a recording session",
};
