/* SPDX-License-Identifier: MIT */
/* strata disable-event: disable event rules of a channel. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char disable_event_help[] =
	"Usage: strata disable-event (-u | -k) [OPTIONS] (-a | NAME[,NAME...] ...)\n"
	"\n"
	"Disable the event rules named NAME (exactly as they were enabled, e.g.\n"
	"'hello:*') in the channel given with -c or the default channel 'channel0'.\n"
	"They can be enabled again with enable-event.\n"
	"\n"
	"Options:\n"
	"  -u, --userspace      user space domain\n"
	"  -k, --kernel         kernel domain\n"
	"  -a, --all            every event rule of the channel\n"
	"  -c, --channel=NAME   channel (default: channel0)\n"
	"  -s, --session=NAME   session (default: the current session)\n"
	"      --tracepoint     accepted for lttng compatibility\n"
	"      --syscall        accepted for lttng compatibility\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

enum { OPT_TRACEPOINT = 256, OPT_SYSCALL };

static int disable_event_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "userspace", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "all", no_argument, NULL, 'a' },
		{ "channel", required_argument, NULL, 'c' },
		{ "session", required_argument, NULL, 's' },
		{ "tracepoint", no_argument, NULL, OPT_TRACEPOINT },
		{ "syscall", no_argument, NULL, OPT_SYSCALL },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_DISABLE_EVENT };
	const char *session = NULL;
	struct ipc_reply rep;
	int c, ret = SC_EXIT_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ukac:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
		case 'k':
			if (req.domain) {
				cli_error("Give one domain: -u or -k");
				return cli_usage_error("disable-event");
			}
			req.domain = c == 'u' ? IPC_DOMAIN_UST : IPC_DOMAIN_KERNEL;
			break;
		case 'a':
			req.all = true;
			break;
		case 'c':
			if (strlen(optarg) >= sizeof(req.channel)) {
				cli_error("Channel name is too long");
				return cli_usage_error("disable-event");
			}
			memcpy(req.channel, optarg, strlen(optarg) + 1);
			break;
		case 's':
			session = optarg;
			break;
		case OPT_TRACEPOINT:
		case OPT_SYSCALL:
			break;
		default:
			return cli_usage_error("disable-event");
		}
	}
	if (!req.domain) {
		cli_error("Please specify a domain (-u or -k)");
		return cli_usage_error("disable-event");
	}
	for (int i = optind; i < argc; i++) {
		const char *p = argv[i];

		while (*p) {
			size_t n = strcspn(p, ",");
			char name[IPC_NAME_MAX];
			int err = -EINVAL;

			if (n > 0 && n < sizeof(name)) {
				memcpy(name, p, n);
				name[n] = '\0';
				err = ipc_names_append(&req.names, &req.nr_names, name);
			}
			if (err < 0) {
				cli_error("Invalid event name list '%s'", argv[i]);
				ipc_request_release(&req);
				return cli_usage_error("disable-event");
			}
			p += n;
			if (*p)
				p++;
		}
	}
	if (req.all == (req.nr_names > 0)) {
		cli_error(req.all ? "Event names and -a/--all are mutually exclusive" :
				    "Missing event name(s): give names or -a/--all");
		ipc_request_release(&req);
		return cli_usage_error("disable-event");
	}
	if (sc_resolve_session(session, req.session) < 0 || sc_request(&req, &rep) < 0)
		goto out;
	sc_print_message(&rep);
	if (rep.status == 0) {
		if (req.all)
			printf("All %s events are disabled in channel %s\n",
			       ipc_domain_name(req.domain), rep.channel);
		else
			for (uint32_t i = 0; i < rep.nr_names; i++)
				printf("%s event %s disabled in channel %s for session %s\n",
				       ipc_domain_name(req.domain), rep.names[i], rep.channel,
				       req.session);
		ret = CLI_EXIT_OK;
	}
	ipc_reply_release(&rep);
out:
	ipc_request_release(&req);
	return ret;
}

const struct cli_command cli_cmd_disable_event = {
	.name = "disable-event",
	.run = disable_event_run,
	.help = disable_event_help,
	.summary = "disable event rules",
};
