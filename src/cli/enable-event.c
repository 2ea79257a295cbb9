/* SPDX-License-Identifier: MIT */
/* strata enable-event: create or re-enable event rules in a channel. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

static const char enable_event_help[] =
	"Usage: strata enable-event (-u | -k) [OPTIONS] (-a | NAME[,NAME...] ...)\n"
	"\n"
	"Record the events whose name matches NAME ('*' matches any characters, e.g.\n"
	"'hello:*' or 'sched_*'; quote it for the shell), in the channel given with -c\n"
	"or the default channel 'channel0', created when the domain has no channel.\n"
	"Rules can be enabled while the session records.\n"
	"\n"
	"Options:\n"
	"  -u, --userspace             user space tracepoints (provider:event)\n"
	"  -k, --kernel                kernel tracepoints and system calls\n"
	"  -a, --all                   every event (same as NAME '*')\n"
	"  -c, --channel=NAME          channel (default: channel0)\n"
	"  -s, --session=NAME          session (default: the current session)\n"
	"      --tracepoint            (kernel) tracepoints only\n"
	"      --syscall               (kernel) system calls: NAME is the system call\n"
	"                              (open, read...), recorded as syscall_entry_NAME\n"
	"                              and syscall_exit_NAME\n"
	"      --probe=SYM[+OFF]|0xADDR  (kernel) a kprobe, recorded as NAME\n"
	"      --function=SYM|0xADDR   (kernel) a kernel function's entry and return,\n"
	"                              recorded as NAME_entry and NAME_return\n"
	"      --userspace-probe=elf:PATH:FUNCTION | sdt:PATH:PROVIDER:PROBE\n"
	"                              (kernel) a uprobe at a function's entry or at a\n"
	"                              USDT probe (its semaphore set while attached:\n"
	"                              from start to destroy), recorded as NAME\n"
	"      --userspace-function=elf:PATH:FUNCTION\n"
	"                              (kernel) a user-space function's entry and return\n"
	"                              (uprobe, uretprobe): NAME_entry and NAME_return\n"
	"      --loglevel=LEVEL        (user space) events as severe as LEVEL or more\n"
	"      --loglevel-only=LEVEL   (user space) events of exactly LEVEL\n"
	"  -f, --filter=EXPR           record only the events for which EXPR is true,\n"
	"                              evaluated before anything is written (in the app,\n"
	"                              or in the kernel): LTTng's filter language, e.g.\n"
	"                              'intfield > 10 && $ctx.procname == \"hello*\"'\n"
	"  -x, --exclude=NAME[,NAME]   (user space) leave out the events matching NAME\n"
	"                              ('*' globbing; '\\,' is a comma in a name); the\n"
	"                              event name must contain a '*'\n"
	"  -h, --help                  show this help\n"
	"\n"
	"Probe events take one NAME, the name they are recorded under. They are kernel\n"
	"events: they carry the channel's contexts (add -t tid to tell threads apart,\n"
	"-t perf:cpu:COUNTER for counters), and `strata analyze entry-return` pairs\n"
	"NAME_entry with NAME_return. PATH is absolute.\n"
	"\n"
	"LEVEL is TRACE_EMERG (0), TRACE_ALERT, TRACE_CRIT, TRACE_ERR, TRACE_WARNING,\n"
	"TRACE_NOTICE, TRACE_INFO, TRACE_DEBUG_SYSTEM, TRACE_DEBUG_PROGRAM,\n"
	"TRACE_DEBUG_PROCESS, TRACE_DEBUG_MODULE, TRACE_DEBUG_UNIT, TRACE_DEBUG_FUNCTION,\n"
	"TRACE_DEBUG_LINE or TRACE_DEBUG (14); the TRACE_ prefix is optional.\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

enum {
	OPT_TRACEPOINT = 256,
	OPT_SYSCALL,
	OPT_LOGLEVEL,
	OPT_LOGLEVEL_ONLY,
	OPT_PROBE,
	OPT_FUNCTION,
	OPT_USERSPACE_PROBE,
	OPT_USERSPACE_FUNCTION,
};

/* -x a,b\,c: names separated by unescaped commas; only the last -x counts, as with lttng. */
static int set_exclusions(struct ipc_request *req, const char *arg)
{
	char name[IPC_NAME_MAX];
	size_t n = 0;

	free(req->exclusions);
	req->exclusions = NULL;
	req->nr_exclusions = 0;
	for (const char *p = arg;; p++) {
		if (*p == '\\' && p[1] == ',') {
			p++;
		} else if (*p == ',' || !*p) {
			name[n] = '\0';
			if (ipc_names_append(&req->exclusions, &req->nr_exclusions, name) < 0) {
				cli_error("Too many exclusions");
				return -E2BIG;
			}
			n = 0;
			if (!*p)
				return 0;
			continue;
		}
		if (n + 1 >= sizeof(name)) {
			cli_error("Exclusion name too long in '%s' (at most %zu bytes)", arg,
				  sizeof(name) - 1);
			return -ENAMETOOLONG;
		}
		name[n++] = *p;
	}
}

/* ' excluding "a", "b"' as lttng prints it, or "". */
static void print_exclusions(const struct ipc_request *req)
{
	for (uint32_t i = 0; i < req->nr_exclusions; i++)
		printf("%s\"%s\"", i ? ", " : " excluding ", req->exclusions[i]);
}

/* Split "a,b" arguments into the request's names. */
static int add_names(struct ipc_request *req, const char *arg)
{
	const char *p = arg;

	for (;;) {
		size_t n = strcspn(p, ",");
		char name[IPC_NAME_MAX];

		if (n == 0 || n >= sizeof(name)) {
			cli_error(
				"Invalid event name list '%s': names are non-empty and at most %zu "
				"bytes, separated by commas",
				arg, sizeof(name) - 1);
			return -EINVAL;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (ipc_names_append(&req->names, &req->nr_names, name) < 0) {
			cli_error("Too many event names (at most %d)", IPC_MAX_NAMES);
			return -E2BIG;
		}
		p += n;
		if (!*p)
			return 0;
		p++;
	}
}

static const char *event_kind(const struct ipc_request *req)
{
	if (req->domain == IPC_DOMAIN_UST)
		return "ust event";
	return req->event_type == IPC_EVENT_SYSCALL ? "kernel syscall" : "kernel event";
}

/* --probe and friends: the event type and location; 0 or -EINVAL. */
static int set_probe(struct ipc_request *req, int opt, const char *loc)
{
	if (req->probe[0]) {
		cli_error("Give one of --probe, --function, --userspace-probe and "
			  "--userspace-function");
		return -EINVAL;
	}
	if (!*loc || strlen(loc) >= sizeof(req->probe)) {
		cli_error("Invalid probe location '%s'", loc);
		return -EINVAL;
	}
	memcpy(req->probe, loc, strlen(loc) + 1);
	req->event_type = (uint8_t)(IPC_EVENT_PROBE + (opt - OPT_PROBE));
	return 0;
}

static int enable_event_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "userspace", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "all", no_argument, NULL, 'a' },
		{ "channel", required_argument, NULL, 'c' },
		{ "session", required_argument, NULL, 's' },
		{ "tracepoint", no_argument, NULL, OPT_TRACEPOINT },
		{ "syscall", no_argument, NULL, OPT_SYSCALL },
		{ "loglevel", required_argument, NULL, OPT_LOGLEVEL },
		{ "loglevel-only", required_argument, NULL, OPT_LOGLEVEL_ONLY },
		{ "filter", required_argument, NULL, 'f' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "probe", required_argument, NULL, OPT_PROBE },
		{ "function", required_argument, NULL, OPT_FUNCTION },
		{ "userspace-probe", required_argument, NULL, OPT_USERSPACE_PROBE },
		{ "userspace-function", required_argument, NULL, OPT_USERSPACE_FUNCTION },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_ENABLE_EVENT };
	bool tracepoint = false, syscall = false;
	const char *session = NULL;
	struct ipc_reply rep;
	int c, ll, ret = CLI_EXIT_USAGE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ukac:s:f:x:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!optarg[0]) {
				cli_error(
					"Empty filter expression: give one, or leave --filter out");
				goto usage;
			}
			if (strlen(optarg) > IPC_FILTER_MAX) {
				cli_error("Filter expression too long (at most %d bytes)",
					  IPC_FILTER_MAX);
				goto usage;
			}
			free(req.filter);
			req.filter = strdup(optarg);
			if (!req.filter) {
				cli_error("Out of memory");
				goto usage;
			}
			break;
		case 'x':
			if (set_exclusions(&req, optarg) < 0)
				goto usage;
			break;
		case 'u':
		case 'k':
			if (req.domain) {
				cli_error("Give one domain: -u or -k");
				goto usage;
			}
			req.domain = c == 'u' ? IPC_DOMAIN_UST : IPC_DOMAIN_KERNEL;
			break;
		case 'a':
			req.all = true;
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
		case OPT_TRACEPOINT:
			tracepoint = true;
			break;
		case OPT_SYSCALL:
			syscall = true;
			break;
		case OPT_LOGLEVEL:
		case OPT_LOGLEVEL_ONLY:
			if (req.loglevel_type != IPC_LOGLEVEL_ALL) {
				cli_error("--loglevel and --loglevel-only are mutually exclusive");
				goto usage;
			}
			ll = sc_loglevel_parse(optarg);
			if (ll < 0) {
				cli_error("Unknown log level '%s': see 'strata help enable-event'",
					  optarg);
				goto usage;
			}
			req.loglevel = ll;
			req.loglevel_type =
				c == OPT_LOGLEVEL ? IPC_LOGLEVEL_RANGE : IPC_LOGLEVEL_SINGLE;
			break;
		case OPT_PROBE:
		case OPT_FUNCTION:
		case OPT_USERSPACE_PROBE:
		case OPT_USERSPACE_FUNCTION:
			if (set_probe(&req, c, optarg) < 0)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (!req.domain) {
		cli_error("Please specify a domain (-u or -k)");
		goto usage;
	}
	if (req.probe[0] && (tracepoint || syscall || req.all || req.domain != IPC_DOMAIN_KERNEL)) {
		cli_error("Probe options need -k and one event name, without --tracepoint, "
			  "--syscall or -a");
		goto usage;
	}
	if (tracepoint && syscall) {
		cli_error("--tracepoint and --syscall are mutually exclusive");
		goto usage;
	}
	if (req.domain == IPC_DOMAIN_UST && syscall) {
		cli_error("--syscall is only available with -k (kernel)");
		goto usage;
	}
	if (!req.probe[0])
		req.event_type = syscall ? IPC_EVENT_SYSCALL : IPC_EVENT_TRACEPOINT;
	if (req.domain == IPC_DOMAIN_KERNEL && req.all && !tracepoint && !syscall)
		req.event_type = IPC_EVENT_ALL;
	for (int i = optind; i < argc; i++)
		if (add_names(&req, argv[i]) < 0)
			goto usage;
	if (req.all && req.nr_names) {
		cli_error("Event names and -a/--all are mutually exclusive");
		goto usage;
	}
	if (!req.all && !req.nr_names) {
		cli_error("Missing event name(s): give names or -a/--all");
		goto usage;
	}
	ret = SC_EXIT_FAILED;
	if (sc_resolve_session(session, req.session) < 0 || sc_request(&req, &rep) < 0)
		goto out;
	sc_print_message(&rep);
	if (req.filter) {
		/* lttng's wording: the rules are created, their filter set. */
		for (uint32_t i = 0; i < rep.nr_names; i++) {
			printf("Event %s", rep.names[i]);
			print_exclusions(&req);
			printf(": Filter '%s' successfully set\n", req.filter);
		}
	} else if (req.all && rep.nr_names) {
		if (req.domain == IPC_DOMAIN_UST)
			printf("All ust events are enabled in channel %s\n", rep.channel);
		else
			printf("All kernel %s are enabled in channel %s\n",
			       req.event_type == IPC_EVENT_SYSCALL    ? "system calls" :
			       req.event_type == IPC_EVENT_TRACEPOINT ? "tracepoints" :
									"events",
			       rep.channel);
	} else {
		for (uint32_t i = 0; i < rep.nr_names; i++) {
			printf("%s %s", event_kind(&req), rep.names[i]);
			print_exclusions(&req);
			printf(" created in channel %s\n", rep.channel);
		}
	}
	ret = rep.status < 0 ? SC_EXIT_FAILED : CLI_EXIT_OK;
	ipc_reply_release(&rep);
out:
	ipc_request_release(&req);
	return ret;
usage:
	ipc_request_release(&req);
	return cli_usage_error("enable-event");
}

const struct cli_command cli_cmd_enable_event = {
	.name = "enable-event",
	.run = enable_event_run,
	.help = enable_event_help,
	.summary = "create or enable event rules",
};
