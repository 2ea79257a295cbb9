/* SPDX-License-Identifier: MIT */
/* strata add-context: record context fields with every event of channels. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"
#include "common/context-names.h"

static const char add_context_help[] =
	"Usage: strata add-context (-u | -k) [-c CHANNEL] [-s SESSION] -t TYPE [-t TYPE]...\n"
	"       strata add-context --list\n"
	"\n"
	"Record the context fields TYPE with every event of the channel given with -c,\n"
	"or of every channel of the domain (the default channel is created when there\n"
	"is none). Contexts cannot be added once the session has been started. Each TYPE\n"
	"is checked first: an unknown one, or a counter this machine cannot open, fails\n"
	"and nothing is added.\n"
	"\n"
	"Options:\n"
	"  -u, --userspace      user space domain\n"
	"  -k, --kernel         kernel domain\n"
	"  -t, --type=TYPE      context field to add (repeat for more)\n"
	"  -c, --channel=NAME   only this channel\n"
	"  -s, --session=NAME   session (default: the current session)\n"
	"      --list           list every context type (of both domains) and exit\n"
	"  -h, --help           show this help\n"
	"\n"
	"User space types: vpid, vtid, procname, pthread_id, ip (perf:thread:COUNTER\n"
	"comes in a later version).\n"
	"Kernel types: pid, tid, procname, ppid, vpid, vtid, vppid, prio, nice,\n"
	"hostname, and per-CPU perf counters read when each event is recorded:\n"
	"perf:cpu:COUNTER (or LTTng's older perf:COUNTER) with the counters --list\n"
	"shows (perf:cpu:page-fault, perf:cpu:LLC-load-misses, ...), and raw PMU events\n"
	"perf:cpu:raw:rNNN:NAME (NNN in hexadecimal). The field is the type with ':' and\n"
	"'-' turned into '_': perf_cpu_page_fault. Hardware counters need a PMU (not in\n"
	"most VMs).\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

static int print_context(void *opaque _unused_, const char *name, unsigned int domains _unused_)
{
	printf("%s\n", name);
	return 0;
}

static int add_context_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "userspace", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "type", required_argument, NULL, 't' },
		{ "channel", required_argument, NULL, 'c' },
		{ "session", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_ADD_CONTEXT };
	const char *session = NULL;
	struct ipc_reply rep;
	int c, ret = SC_EXIT_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ukt:c:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
		case 'k':
			if (req.domain) {
				cli_error("Give one domain: -u or -k");
				goto usage;
			}
			req.domain = c == 'u' ? IPC_DOMAIN_UST : IPC_DOMAIN_KERNEL;
			break;
		case 't':
			if (ipc_names_append(&req.names, &req.nr_names, optarg) < 0) {
				cli_error("Invalid context type '%s'", optarg);
				goto usage;
			}
			break;
		case 'c':
			if (strlen(optarg) >= sizeof(req.channel)) {
				cli_error("Channel name is too long");
				goto usage;
			}
			memcpy(req.channel, optarg, strlen(optarg) + 1);
			break;
		case 's':
			session = optarg;
			break;
		case 'L':
			ipc_request_release(&req);
			ctx_list(print_context, NULL);
			return fflush(stdout) ? SC_EXIT_FAILED : CLI_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (!req.domain) {
		cli_error("Please specify a domain (-u or -k)");
		goto usage;
	}
	if (!req.nr_names) {
		cli_error("Missing context type: give -t TYPE");
		goto usage;
	}
	if (optind < argc) {
		cli_error("Unexpected argument '%s'", argv[optind]);
		goto usage;
	}
	if (sc_resolve_session(session, req.session) < 0 || sc_request(&req, &rep) < 0)
		goto out;
	sc_print_message(&rep);
	if (rep.status == 0) {
		for (uint32_t i = 0; i < req.nr_names; i++) {
			if (rep.channel[0])
				printf("%s context %s added to channel %s\n",
				       ipc_domain_name(req.domain), req.names[i], rep.channel);
			else
				printf("%s context %s added to all channels\n",
				       ipc_domain_name(req.domain), req.names[i]);
		}
		ret = CLI_EXIT_OK;
	}
	ipc_reply_release(&rep);
out:
	ipc_request_release(&req);
	return ret;
usage:
	ipc_request_release(&req);
	return cli_usage_error("add-context");
}

const struct cli_command cli_cmd_add_context = {
	.name = "add-context",
	.run = add_context_run,
	.help = add_context_help,
	.summary = "add context fields to channels",
};
