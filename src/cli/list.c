/* SPDX-License-Identifier: MIT */
/* strata list: sessions, one session in detail, or the available events. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char list_help[] =
	"Usage: strata list [NAME]\n"
	"       strata list -u | -k [--syscall]\n"
	"\n"
	"Without arguments, list the recording sessions; with NAME, show that session's\n"
	"channels, contexts and event rules. With -u, list the tracepoints of the\n"
	"running instrumented apps; with -k, the kernel tracepoints (or system calls\n"
	"with --syscall).\n"
	"\n"
	"Options:\n"
	"  -u, --userspace   user space tracepoints of registered apps\n"
	"  -k, --kernel      kernel tracepoints\n"
	"      --syscall     (with -k) kernel system calls\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

static int list_events(uint8_t domain, bool syscalls)
{
	struct ipc_request req = { .cmd = IPC_CMD_LIST_TRACEPOINTS, .domain = domain };
	struct ipc_reply rep;
	int32_t last_pid = -1;
	bool any = false;

	if (syscalls)
		req.event_type = IPC_EVENT_SYSCALL;
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	if (rep.status < 0) {
		sc_print_message(&rep);
		ipc_reply_release(&rep);
		return SC_EXIT_FAILED;
	}
	if (domain == IPC_DOMAIN_UST)
		printf("UST events:\n-------------\n");
	else
		printf("%s:\n-------------\n", syscalls ? "System calls" : "Kernel events");
	for (uint32_t i = 0; i < rep.nr_tracepoints; i++) {
		const struct ipc_tracepoint_info *t = &rep.tracepoints[i];

		if (syscalls != (t->type == IPC_EVENT_SYSCALL))
			continue;
		any = true;
		if (domain == IPC_DOMAIN_UST && t->pid != last_pid) {
			printf("\nPID: %d - Name: %s\n", t->pid, t->procname);
			last_pid = t->pid;
		}
		if (domain == IPC_DOMAIN_UST)
			printf("      %s (loglevel: %s (%d)) (type: tracepoint)\n", t->name,
			       sc_loglevel_name(t->loglevel), t->loglevel);
		else
			printf("      %s (type: %s)\n", t->name,
			       t->type == IPC_EVENT_SYSCALL ? "syscall" : "tracepoint");
	}
	printf(any ? "\n" : "None\n\n");
	ipc_reply_release(&rep);
	return CLI_EXIT_OK;
}

static int list_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "userspace", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "syscall", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_LIST_SESSIONS };
	uint8_t domain = IPC_DOMAIN_NONE;
	bool syscalls = false;
	struct ipc_reply rep;
	char current[IPC_NAME_MAX];
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "uk", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			domain = IPC_DOMAIN_UST;
			break;
		case 'k':
			domain = IPC_DOMAIN_KERNEL;
			break;
		case 'S':
			syscalls = true;
			break;
		default:
			return cli_usage_error("list");
		}
	}
	if (argc - optind > 1 || (domain && optind < argc)) {
		cli_error("list takes one session name, or -u / -k");
		return cli_usage_error("list");
	}
	if (syscalls && domain != IPC_DOMAIN_KERNEL) {
		cli_error("--syscall needs -k");
		return cli_usage_error("list");
	}
	if (domain)
		return list_events(domain, syscalls);
	if (optind < argc) {
		if (sc_resolve_session(argv[optind], req.session) < 0)
			return SC_EXIT_FAILED;
	}
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	if (rep.status < 0) {
		sc_print_message(&rep);
		ipc_reply_release(&rep);
		return SC_EXIT_FAILED;
	}
	if (req.session[0]) {
		for (uint32_t i = 0; i < rep.nr_sessions; i++)
			sc_print_session(&rep.sessions[i]);
	} else if (!rep.nr_sessions) {
		printf("Currently no available recording session\n");
	} else {
		if (sc_current_session_get(current) < 0)
			current[0] = '\0';
		printf("Available recording sessions:\n");
		for (uint32_t i = 0; i < rep.nr_sessions; i++) {
			const struct ipc_session_info *s = &rep.sessions[i];

			printf("  %u) %s [%s]%s\n", i + 1, s->name,
			       s->active ? "active" : "inactive",
			       strcmp(s->name, current) == 0 ? " (current)" : "");
			printf("    Trace output: %s\n\n", s->output);
		}
		printf("\nUse strata list <session_name> for more details\n");
	}
	ipc_reply_release(&rep);
	return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_list = {
	.name = "list",
	.run = list_run,
	.help = list_help,
	.summary = "list sessions, or the available events",
};
