/* SPDX-License-Identifier: MIT */
/*
 * strata calibrate: put the base cost of function probes and their contexts
 * into a started session's trace, as lttng calibrate does: an empty
 * function, probed at entry and return as the event "calibrate", called N
 * times. `strata analyze entry-return --baseline` subtracts it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

#define CALIBRATE_DEFAULT_COUNT 100000
#define CALIBRATE_MAX_COUNT 100000000

static const char calibrate_help[] =
	"Usage: strata calibrate -k (--userspace-function | --function) [--count N]\n"
	"                        [-c CHANNEL] [-s SESSION]\n"
	"\n"
	"Record the cost of probing a function, with the contexts of the channel, in\n"
	"the started session: an empty function is probed at its entry and return as\n"
	"the event 'calibrate' (enabled in the channel if it is not yet), then called N\n"
	"times, so that the trace holds N calibrate_entry/calibrate_return pairs.\n"
	"`strata analyze entry-return TRACE --entry F_entry --return F_return --baseline\n"
	"CALIBRATION_TRACE` subtracts their means from a function's.\n"
	"\n"
	"Options:\n"
	"  -k, --kernel                 kernel domain (the one with function probes)\n"
	"      --userspace-function     an empty function of this program (strata's\n"
	"                               strata_calibrate_target), with a uprobe and a\n"
	"                               uretprobe, as --userspace-function places them\n"
	"      --function               an empty kernel function (the unimplemented\n"
	"                               system call's), with a kprobe and a kretprobe,\n"
	"                               as --function places them; needs kprobes\n"
	"      --count=N                calls (default 100000)\n"
	"  -c, --channel=NAME           channel (default: channel0)\n"
	"  -s, --session=NAME           session (default: the current session)\n"
	"  -h, --help                   show this help\n"
	"\n"
	"Exit status: 0 on success, 1 on error.\n";

/*
 * The user-space target: empty, never inlined, found by name in this
 * program's symbol tables. It begins with the frame-pointer prologue most
 * compiled functions begin with, since the first instruction decides how a
 * uprobe runs (a 5-byte nop costs much less: the baseline would be too low).
 */
void strata_calibrate_target(void);
__attribute__((noinline, noipa, used, visibility("default"))) void strata_calibrate_target(void)
{
#if defined(__x86_64__)
	__asm__ volatile("push %%rbp\n\tmov %%rsp, %%rbp\n\tpop %%rbp" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* The kernel target: the function behind unimplemented system calls. */
static const char *const calibrate_kernel_syms[] = { "__x64_sys_ni_syscall", "sys_ni_syscall" };
#define CALIBRATE_NI_SYSCALL 183 /* afs_syscall: not implemented on x86-64 */

static bool kallsyms_has(const char *sym)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char type, name[256];

		found = sscanf(line, "%*s %c %255s", &type, name) == 2 &&
			(type == 't' || type == 'T') && !strcmp(name, sym);
	}
	fclose(f);
	return found;
}

/* The session must be recording: the calls would leave nothing otherwise. */
static int require_active(const char *session)
{
	struct ipc_request req = { .cmd = IPC_CMD_LIST_SESSIONS };
	struct ipc_reply rep;
	int ret = 0;

	memcpy(req.session, session, strlen(session) + 1);
	if (sc_request(&req, &rep) < 0)
		return -EIO;
	if (rep.status < 0) {
		sc_print_message(&rep);
		ret = rep.status;
	} else if (rep.nr_sessions != 1 || !rep.sessions[0].active) {
		cli_error("Session '%s' is not recording: calibrate records into a started "
			  "session; run `strata start` first",
			  session);
		ret = -EINVAL;
	}
	ipc_reply_release(&rep);
	return ret;
}

static int enable_calibrate(struct ipc_request *req)
{
	struct ipc_reply rep;
	int ret;

	if (ipc_names_append(&req->names, &req->nr_names, "calibrate") < 0)
		return -ENOMEM;
	if (sc_request(req, &rep) < 0)
		return -EIO;
	ret = rep.status == -EALREADY ? 0 : rep.status;
	if (ret < 0)
		sc_print_message(&rep);
	else
		memcpy(req->channel, rep.channel, sizeof(req->channel));
	ipc_reply_release(&rep);
	return ret;
}

static int calibrate_run(int argc, char **argv)
{
	enum { OPT_USERSPACE_FUNCTION = 256, OPT_FUNCTION, OPT_COUNT };
	static const struct option opts[] = {
		{ "kernel", no_argument, NULL, 'k' },
		{ "userspace-function", no_argument, NULL, OPT_USERSPACE_FUNCTION },
		{ "function", no_argument, NULL, OPT_FUNCTION },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "channel", required_argument, NULL, 'c' },
		{ "session", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipc_request req = { .cmd = IPC_CMD_ENABLE_EVENT, .domain = IPC_DOMAIN_KERNEL };
	const char *session = NULL, *sym = NULL;
	unsigned int count = CALIBRATE_DEFAULT_COUNT;
	bool kernel = false;
	char exe[PATH_MAX];
	ssize_t n;
	int c, ret = SC_EXIT_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "kc:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			kernel = true;
			break;
		case OPT_USERSPACE_FUNCTION:
		case OPT_FUNCTION:
			if (req.event_type) {
				cli_error("Give one of --userspace-function and --function");
				return cli_usage_error("calibrate");
			}
			req.event_type = c == OPT_FUNCTION ? IPC_EVENT_FUNCTION :
							     IPC_EVENT_USERSPACE_FUNCTION;
			break;
		case OPT_COUNT:
			if (sc_parse_u32(optarg, &count) < 0 || !count ||
			    count > CALIBRATE_MAX_COUNT) {
				cli_error(
					"Invalid --count '%s': give a number of calls from 1 to %d",
					optarg, CALIBRATE_MAX_COUNT);
				return cli_usage_error("calibrate");
			}
			break;
		case 'c':
			if (strlen(optarg) >= sizeof(req.channel)) {
				cli_error("Channel name is too long");
				return cli_usage_error("calibrate");
			}
			memcpy(req.channel, optarg, strlen(optarg) + 1);
			break;
		case 's':
			session = optarg;
			break;
		default:
			return cli_usage_error("calibrate");
		}
	}
	if (!kernel || !req.event_type || optind < argc) {
		cli_error("calibrate takes -k and --userspace-function or --function (the "
			  "function probes are kernel events)");
		return cli_usage_error("calibrate");
	}
	if (req.event_type == IPC_EVENT_FUNCTION) {
		for (size_t i = 0; !sym && i < ARRAY_SIZE(calibrate_kernel_syms); i++)
			if (kallsyms_has(calibrate_kernel_syms[i]))
				sym = calibrate_kernel_syms[i];
		if (!sym) {
			cli_error("This kernel has no empty function to calibrate with (%s): use "
				  "--userspace-function",
				  calibrate_kernel_syms[0]);
			return SC_EXIT_FAILED;
		}
		snprintf(req.probe, sizeof(req.probe), "%s", sym);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			cli_error("Cannot find this program's file (/proc/self/exe): %s",
				  strerror(errno));
			return SC_EXIT_FAILED;
		}
		exe[n] = '\0';
		if ((size_t)n + 40 > sizeof(req.probe)) {
			cli_error("This program's path is too long for a probe location");
			return SC_EXIT_FAILED;
		}
		snprintf(req.probe, sizeof(req.probe), "elf:%.*s:strata_calibrate_target",
			 (int)(sizeof(req.probe) - 40), exe);
	}
	if (sc_resolve_session(session, req.session) < 0 || require_active(req.session) < 0 ||
	    enable_calibrate(&req) < 0)
		goto out;
	for (unsigned int i = 0; i < count; i++) {
		if (sym)
			syscall(CALIBRATE_NI_SYSCALL);
		else
			strata_calibrate_target();
	}
	printf("Calibrated with %u calls of %s: calibrate_entry and calibrate_return recorded in "
	       "channel %s of session %s\n",
	       count, sym ? sym : "strata_calibrate_target", req.channel, req.session);
	ret = CLI_EXIT_OK;
out:
	ipc_request_release(&req);
	return ret;
}

const struct cli_command cli_cmd_calibrate = {
	.name = "calibrate",
	.run = calibrate_run,
	.help = calibrate_help,
	.summary = "record the base cost of function probes",
};
