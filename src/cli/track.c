/* SPDX-License-Identifier: MIT */
/* strata track / untrack: which processes a session's domain records. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session-client.h"
#include "common/common.h"

#define TRACK_OPTIONS                                                                      \
	"  -u, --userspace      user space: --vpid, --vuid, --vgid (--pid means --vpid)\n" \
	"  -k, --kernel         kernel: all six attributes\n"                              \
	"  -s, --session=NAME   session (default: the current session)\n"                  \
	"  -a, --all            every value of the attributes given next\n"                \
	"      --pid[=PID,...]  process IDs (in the root PID namespace)\n"                 \
	"      --vpid[=VPID,...] process IDs in each process's own PID namespace\n"        \
	"      --uid[=UID,...]  user IDs or names (kernel)\n"                              \
	"      --vuid[=VUID,...] user IDs or names in each process's user namespace\n"     \
	"      --gid[=GID,...]  group IDs or names (kernel)\n"                             \
	"      --vgid[=VGID,...] group IDs or names in each process's user namespace\n"    \
	"  -h, --help           show this help\n"                                          \
	"\n"                                                                               \
	"A process is recorded when every attribute tracker of the domain includes it.\n"  \
	"By default each includes all processes. Trackers may change while the session\n"  \
	"records. Exit status: 0 on success, 1 on error.\n"

static const char track_help[] =
	"Usage: strata track (-u | -k) [-s SESSION] (--ATTR=VALUE[,VALUE...] | --all --ATTR)...\n"
	"\n"
	"Add VALUEs to the inclusion set of the ATTR tracker, as lttng track does: only\n"
	"the processes whose attribute is in the set are recorded. With --all, the\n"
	"tracker includes every process again.\n"
	"\n"
	"Options:\n" TRACK_OPTIONS;

static const char untrack_help[] =
	"Usage: strata untrack (-u | -k) [-s SESSION] (--ATTR=VALUE[,VALUE...] | --all --ATTR)...\n"
	"\n"
	"Remove VALUEs from the inclusion set of the ATTR tracker, as lttng untrack does\n"
	"(a tracker that included every process starts from an empty set). With --all,\n"
	"the tracker excludes every process.\n"
	"\n"
	"Options:\n" TRACK_OPTIONS;

static const char *const attr_labels[IPC_TRACKER_COUNT] = {
	[IPC_TRACKER_PID] = "process ID", [IPC_TRACKER_VPID] = "virtual process ID",
	[IPC_TRACKER_UID] = "user ID",	  [IPC_TRACKER_VUID] = "virtual user ID",
	[IPC_TRACKER_GID] = "group ID",	  [IPC_TRACKER_VGID] = "virtual group ID",
};

/* One attribute's request: values from "a,b" (NULL: --all). */
struct track_item {
	uint8_t attr;
	const char *values;
};

static int track_one(bool untrack, uint8_t domain, const char *session, const struct track_item *it)
{
	struct ipc_request req = { .cmd = IPC_CMD_TRACK,
				   .domain = domain,
				   .tracker_attr = it->attr,
				   .tracker_remove = untrack,
				   .all = !it->values };
	struct ipc_reply rep;
	uint8_t attr = it->attr;
	int ret = SC_EXIT_FAILED;

	/* lttng -u: --pid is --vpid (the daemon maps it too, for other clients). */
	if (domain == IPC_DOMAIN_UST && attr == IPC_TRACKER_PID)
		attr = IPC_TRACKER_VPID;
	for (const char *p = it->values; p && *p;) {
		size_t n = strcspn(p, ",");
		char v[IPC_NAME_MAX];

		if (!n || n >= sizeof(v)) {
			cli_error("Invalid %s list '%s': values are non-empty, separated by commas",
				  attr_labels[attr], it->values);
			goto out;
		}
		memcpy(v, p, n);
		v[n] = '\0';
		if (ipc_names_append(&req.names, &req.nr_names, v) < 0) {
			cli_error("Too many values (at most %d)", IPC_MAX_NAMES);
			goto out;
		}
		p += n + (p[n] == ',');
	}
	if (sc_resolve_session(session, req.session) < 0 || sc_request(&req, &rep) < 0)
		goto out;
	sc_print_message(&rep);
	if (rep.status >= 0) {
		char label[64];

		snprintf(label, sizeof(label), "%s", attr_labels[attr]);
		if (req.all) {
			label[0] = (char)(label[0] - 'a' + 'A');
			printf("%s tracking policy set to `%s`\n", label,
			       untrack ? "exclude all" : "include all");
		}
		/* The values that changed the set; the daemon warned about the others. */
		for (uint32_t i = 0; i < rep.nr_names; i++)
			printf("%s %s %s the %s tracker inclusion set\n",
			       untrack ? "Removed" : "Added", rep.names[i], untrack ? "from" : "to",
			       label);
	}
	ret = rep.status < 0 ? SC_EXIT_FAILED : CLI_EXIT_OK;
	ipc_reply_release(&rep);
out:
	ipc_request_release(&req);
	return ret;
}

static int track_run_common(int argc, char **argv, bool untrack)
{
	enum { OPT_PID = 256, OPT_VPID, OPT_UID, OPT_VUID, OPT_GID, OPT_VGID };
	static const struct option opts[] = {
		{ "userspace", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "session", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "pid", optional_argument, NULL, OPT_PID },
		{ "vpid", optional_argument, NULL, OPT_VPID },
		{ "uid", optional_argument, NULL, OPT_UID },
		{ "vuid", optional_argument, NULL, OPT_VUID },
		{ "gid", optional_argument, NULL, OPT_GID },
		{ "vgid", optional_argument, NULL, OPT_VGID },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = untrack ? "untrack" : "track";
	struct track_item items[32];
	const char *session = NULL;
	uint8_t domain = IPC_DOMAIN_NONE;
	unsigned int n = 0;
	bool all = false;
	int c, ret = CLI_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "uks:a", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
		case 'k':
			if (domain) {
				cli_error("Give one domain: -u or -k");
				return cli_usage_error(cmd);
			}
			domain = c == 'u' ? IPC_DOMAIN_UST : IPC_DOMAIN_KERNEL;
			break;
		case 's':
			session = optarg;
			break;
		case 'a':
			all = true;
			break;
		case OPT_PID:
		case OPT_VPID:
		case OPT_UID:
		case OPT_VUID:
		case OPT_GID:
		case OPT_VGID:
			if (n == ARRAY_SIZE(items)) {
				cli_error("Too many attributes");
				return cli_usage_error(cmd);
			}
			if (!all && (!optarg || !optarg[0])) {
				cli_error("--%s needs values, or --all before it",
					  opts[4 + (c - OPT_PID)].name);
				return cli_usage_error(cmd);
			}
			if (all && optarg) {
				cli_error("--all and values are mutually exclusive");
				return cli_usage_error(cmd);
			}
			items[n++] = (struct track_item){ .attr = (uint8_t)(c - OPT_PID),
							  .values = all ? NULL : optarg };
			break;
		default:
			return cli_usage_error(cmd);
		}
	}
	if (!domain) {
		cli_error("Please specify a domain (-u or -k)");
		return cli_usage_error(cmd);
	}
	if (!n || optind < argc) {
		cli_error(optind < argc ? "Unexpected argument '%s'" :
					  "No process attribute given: --pid, --vpid, --uid...",
			  optind < argc ? argv[optind] : "");
		return cli_usage_error(cmd);
	}
	for (unsigned int i = 0; i < n && ret == CLI_EXIT_OK; i++)
		ret = track_one(untrack, domain, session, &items[i]);
	return ret;
}

static int track_run(int argc, char **argv)
{
	return track_run_common(argc, argv, false);
}

static int untrack_run(int argc, char **argv)
{
	return track_run_common(argc, argv, true);
}

const struct cli_command cli_cmd_track = {
	.name = "track",
	.run = track_run,
	.help = track_help,
	.summary = "record only the processes of given ids",
};

const struct cli_command cli_cmd_untrack = {
	.name = "untrack",
	.run = untrack_run,
	.help = untrack_help,
	.summary = "stop recording the processes of given ids",
};
