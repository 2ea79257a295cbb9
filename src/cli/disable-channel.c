/* SPDX-License-Identifier: MIT */
/* strata disable-channel: stop recording into channels. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char disable_channel_help[] =
	"Usage: strata disable-channel (-u | -k) [-s SESSION] (-a | NAME[,NAME...])\n"
	"\n"
	"Stop recording into the channels NAME (or every channel of the domain with\n"
	"-a), at once if the session records. `strata enable-channel` enables one\n"
	"again; its event rules and contexts stay.\n"
	"\n"
	"Options:\n"
	"  -u, --userspace      user space domain\n"
	"  -k, --kernel         kernel domain\n"
	"  -a, --all            every channel of the domain\n"
	"  -s, --session=NAME   session (default: the current session)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

static int disable_channel_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "userspace", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "all", no_argument, NULL, 'a' },
		{ "session", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_DISABLE_CHANNEL };
	const char *session = NULL;
	struct ipc_reply rep;
	int c, ret = SC_EXIT_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ukas:", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
		case 'k':
			if (req.domain) {
				cli_error("Give one domain: -u or -k");
				return cli_usage_error("disable-channel");
			}
			req.domain = c == 'u' ? IPC_DOMAIN_UST : IPC_DOMAIN_KERNEL;
			break;
		case 'a':
			req.all = true;
			break;
		case 's':
			session = optarg;
			break;
		default:
			return cli_usage_error("disable-channel");
		}
	}
	if (!req.domain) {
		cli_error("Please specify a domain (-u or -k)");
		return cli_usage_error("disable-channel");
	}
	for (int i = optind; i < argc; i++) {
		for (const char *p = argv[i]; *p;) {
			size_t n = strcspn(p, ",");
			char name[IPC_NAME_MAX];

			if (n && n < sizeof(name)) {
				memcpy(name, p, n);
				name[n] = '\0';
			}
			if (!n || n >= sizeof(name) ||
			    ipc_names_append(&req.names, &req.nr_names, name) < 0) {
				cli_error("Invalid channel list '%s'", argv[i]);
				ipc_request_release(&req);
				return cli_usage_error("disable-channel");
			}
			p += n + (p[n] == ',');
		}
	}
	if (req.all == (req.nr_names > 0)) {
		cli_error(req.all ? "Channel names and -a/--all are mutually exclusive" :
				    "Missing channel name(s): give names or -a/--all");
		ipc_request_release(&req);
		return cli_usage_error("disable-channel");
	}
	if (sc_resolve_session(session, req.session) < 0 || sc_request(&req, &rep) < 0)
		goto out;
	sc_print_message(&rep);
	for (uint32_t i = 0; rep.status >= 0 && i < rep.nr_names; i++)
		printf("%s channel %s disabled for session %s\n",
		       req.domain == IPC_DOMAIN_UST ? "ust" : "kernel", rep.names[i], rep.session);
	ret = rep.status < 0 ? SC_EXIT_FAILED : CLI_EXIT_OK;
	ipc_reply_release(&rep);
out:
	ipc_request_release(&req);
	return ret;
}

const struct cli_command cli_cmd_disable_channel = {
	.name = "disable-channel",
	.run = disable_channel_run,
	.help = disable_channel_help,
	.summary = "stop recording into channels",
};
