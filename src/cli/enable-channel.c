/* SPDX-License-Identifier: MIT */
/* strata enable-channel: create a channel (buffers) in a session's domain. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char enable_channel_help[] =
	"Usage: strata enable-channel (-u | -k) [OPTIONS] NAME\n"
	"\n"
	"Create the channel NAME in the user space (-u) or kernel (-k) domain of a\n"
	"session. A channel is a set of per-CPU ring buffers of NUM sub-buffers of SIZE\n"
	"bytes each; every sub-buffer becomes one packet of the trace.\n"
	"\n"
	"Options:\n"
	"  -u, --userspace        user space domain\n"
	"  -k, --kernel           kernel domain\n"
	"  -s, --session=NAME     session (default: the current session)\n"
	"      --subbuf-size=SIZE sub-buffer size in bytes, k/M/G suffixes accepted,\n"
	"                         rounded up to a power of two (default: 512k user\n"
	"                         space, 1M kernel)\n"
	"      --num-subbuf=NUM   sub-buffers per buffer, rounded up to a power of two\n"
	"                         (default: 4)\n"
	"      --overwrite        flight recorder: overwrite the oldest data when full\n"
	"      --discard          drop new events when full, and count them (default)\n"
	"      --buffers-uid      one buffer set per user, shared by its apps (default)\n"
	"      --buffers-pid      one buffer set per process\n"
	"      --buffers-global   (kernel) the only kernel scheme\n"
	"      --switch-timer=US  close the current sub-buffer every US microseconds\n"
	"                         (0: never)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

enum {
	OPT_SUBBUF = 256,
	OPT_NUM,
	OPT_OVERWRITE,
	OPT_DISCARD,
	OPT_UID,
	OPT_PID,
	OPT_GLOBAL,
	OPT_SWITCH
};

static int enable_channel_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "userspace", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "session", required_argument, NULL, 's' },
		{ "subbuf-size", required_argument, NULL, OPT_SUBBUF },
		{ "num-subbuf", required_argument, NULL, OPT_NUM },
		{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
		{ "discard", no_argument, NULL, OPT_DISCARD },
		{ "buffers-uid", no_argument, NULL, OPT_UID },
		{ "buffers-pid", no_argument, NULL, OPT_PID },
		{ "buffers-global", no_argument, NULL, OPT_GLOBAL },
		{ "switch-timer", required_argument, NULL, OPT_SWITCH },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_ENABLE_CHANNEL };
	const char *session = NULL;
	unsigned long long size;
	struct ipc_reply rep;
	unsigned int u;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "uks:", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
		case 'k':
			if (req.domain) {
				cli_error("Give one domain: -u or -k");
				return cli_usage_error("enable-channel");
			}
			req.domain = c == 'u' ? IPC_DOMAIN_UST : IPC_DOMAIN_KERNEL;
			break;
		case 's':
			session = optarg;
			break;
		case OPT_SUBBUF:
			if (sc_parse_size(optarg, &size) < 0) {
				cli_error(
					"Invalid sub-buffer size '%s': give bytes, e.g. 4096 or 64k",
					optarg);
				return cli_usage_error("enable-channel");
			}
			req.subbuf_size = size;
			req.chan_set |= IPC_CHAN_SUBBUF_SIZE;
			break;
		case OPT_NUM:
			if (sc_parse_u32(optarg, &u) < 0) {
				cli_error("Invalid number of sub-buffers '%s'", optarg);
				return cli_usage_error("enable-channel");
			}
			req.num_subbuf = u;
			req.chan_set |= IPC_CHAN_NUM_SUBBUF;
			break;
		case OPT_OVERWRITE:
		case OPT_DISCARD:
			req.overwrite = c == OPT_OVERWRITE;
			req.chan_set |= IPC_CHAN_OVERWRITE;
			break;
		case OPT_UID:
		case OPT_PID:
		case OPT_GLOBAL:
			if (req.chan_set & IPC_CHAN_BUFFERS) {
				cli_error("Give one buffering scheme");
				return cli_usage_error("enable-channel");
			}
			req.buffers = c == OPT_UID ? IPC_BUFFERS_UID :
				      c == OPT_PID ? IPC_BUFFERS_PID :
						     IPC_BUFFERS_GLOBAL;
			req.chan_set |= IPC_CHAN_BUFFERS;
			break;
		case OPT_SWITCH:
			if (sc_parse_u32(optarg, &u) < 0) {
				cli_error("Invalid switch timer period '%s': give microseconds",
					  optarg);
				return cli_usage_error("enable-channel");
			}
			req.switch_timer_us = u;
			req.chan_set |= IPC_CHAN_SWITCH_TIMER;
			break;
		default:
			return cli_usage_error("enable-channel");
		}
	}
	if (!req.domain) {
		cli_error("Please specify a domain (-u or -k)");
		return cli_usage_error("enable-channel");
	}
	if (argc - optind != 1) {
		cli_error(optind == argc ? "Missing channel name" :
					   "Too many arguments: give one "
					   "channel name");
		return cli_usage_error("enable-channel");
	}
	if (strlen(argv[optind]) >= sizeof(req.channel)) {
		cli_error("Channel name is too long (at most %zu bytes)", sizeof(req.channel) - 1);
		return CLI_EXIT_USAGE;
	}
	memcpy(req.channel, argv[optind], strlen(argv[optind]) + 1);
	if (sc_resolve_session(session, req.session) < 0)
		return SC_EXIT_FAILED;
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	sc_print_message(&rep);
	if (rep.status == 0)
		printf("%s channel %s enabled for session %s\n", ipc_domain_name(req.domain),
		       req.channel, req.session);
	ipc_reply_release(&rep);
	return rep.status < 0 ? SC_EXIT_FAILED : CLI_EXIT_OK;
}

const struct cli_command cli_cmd_enable_channel = {
	.name = "enable-channel",
	.run = enable_channel_run,
	.help = enable_channel_help,
	.summary = "create a channel",
};
