/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <strata/error.h>
#include <strata/ust-abi.h>

#include "strata-config.h"
#include "cli.h"
#include "session-client.h"
#include "common/common.h"

#define REPLY_TIMEOUT_MS 60000 /* stop/destroy flush buffers */
#define SPAWN_TIMEOUT_MS 10000

static int control_path(char *buf, size_t len)
{
	char rundir[IPC_PATH_MAX];
	int ret = strata_rundir_path(rundir, sizeof(rundir));

	if (ret < 0)
		return ret;
	ret = snprintf(buf, len, "%s/%s", rundir, STRATA_CONTROL_SOCK_NAME);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

static int try_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static bool executable_at(const char *path)
{
	return access(path, X_OK) == 0;
}

/* Where strata-sessiond is; false if nowhere but PATH (buf = bare name). */
static void find_sessiond(char *buf, size_t len)
{
	const char *env = getenv("STRATA_SESSIOND_PATH");
	char self[PATH_MAX];
	ssize_t n;

	if (env && env[0]) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, len, "%s/strata-sessiond", self);
			if (executable_at(buf))
				return;
			/* The build tree: build/src/cli/strata, build/src/sessiond/. */
			snprintf(buf, len, "%s/../sessiond/strata-sessiond", self);
			if (executable_at(buf))
				return;
		}
	}
	snprintf(buf, len, "%s/strata-sessiond", STRATA_BINDIR);
	if (executable_at(buf))
		return;
	snprintf(buf, len, "strata-sessiond");
}

static int spawn_daemon(void)
{
	char path[PATH_MAX + 32];
	pid_t pid;
	int status;

	find_sessiond(path, sizeof(path));
	printf("Spawning a session daemon\n");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char *argv[] = { path, (char *)"--daemonize", NULL };

		execvp(path, argv);
		fprintf(stderr, "Error: Failed to run '%s': %s\n", path, strerror(errno));
		_exit(127);
	}
	/* --daemonize exits once the control socket listens (bounded there). */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		cli_error("Failed to start the session daemon '%s' (exit status %d): run it by "
			  "hand with `strata-sessiond --verbose` to see why",
			  path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -ECHILD;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_daemon(void)
{
	char path[IPC_PATH_MAX + 32];
	int64_t deadline;
	int fd, ret;

	ret = control_path(path, sizeof(path));
	if (ret < 0) {
		cli_error("Failed to find the session daemon's directory: %s (set HOME or "
			  "STRATA_RUNDIR)",
			  strerror(-ret));
		return ret;
	}
	fd = try_connect(path);
	if (fd >= 0)
		return fd;
	/* Spawn only when nobody listens; EACCES means someone else's daemon. */
	if (fd != -ENOENT && fd != -ECONNREFUSED) {
		cli_error("Failed to connect to the session daemon at '%s': %s", path,
			  strerror(-fd));
		return fd;
	}
	ret = spawn_daemon();
	if (ret < 0)
		return ret;
	/* The daemon said it listens; allow for a slow start all the same. */
	deadline = now_ms() + SPAWN_TIMEOUT_MS;
	for (;;) {
		fd = try_connect(path);
		if (fd >= 0)
			return fd;
		if (now_ms() >= deadline)
			break;
		poll(NULL, 0, 10);
	}
	cli_error("Failed to connect to the session daemon at '%s': %s", path, strerror(-fd));
	return fd;
}

int sc_request(const struct ipc_request *req, struct ipc_reply *rep)
{
	struct ipc_buf b;
	uint8_t *payload = NULL;
	uint16_t type;
	uint32_t len;
	int fd, ret;

	*rep = (struct ipc_reply){ 0 };
	fd = connect_daemon();
	if (fd < 0)
		return fd;
	ret = ipc_request_encode(req, &b);
	if (ret == 0)
		ret = ipc_send_buf(fd, &b);
	ipc_buf_release(&b);
	if (ret == 0)
		ret = ipc_recv_msg(fd, REPLY_TIMEOUT_MS, &type, &payload, &len);
	close(fd);
	if (ret == 0 && type != IPC_MSG_REPLY)
		ret = -STRATA_EPROTO;
	if (ret == 0)
		ret = ipc_reply_decode(payload, len, rep);
	free(payload);
	if (ret < 0)
		cli_error("Failed to talk to the session daemon: %s", strata_strerror(ret));
	return ret;
}

static int rc_path(char *buf, size_t len)
{
	const char *home = getenv("STRATA_HOME");
	int n;

	if (!home || !home[0])
		home = getenv("HOME");
	if (!home || !home[0])
		return -ENOENT;
	n = snprintf(buf, len, "%s/.strata/current-session", home);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sc_current_session_get(char out[IPC_NAME_MAX])
{
	char path[PATH_MAX];
	FILE *f;
	int ret = rc_path(path, sizeof(path));

	out[0] = '\0';
	if (ret < 0)
		return ret;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(out, IPC_NAME_MAX, f))
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return out[0] ? 0 : -ENOENT;
}

int sc_current_session_set(const char *name)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;
	int ret = rc_path(path, sizeof(path));

	if (ret < 0)
		return ret;
	/* mkdir of $HOME/.strata (0700: it may also be the run directory). */
	snprintf(tmp, sizeof(tmp), "%s", path);
	*strrchr(tmp, '/') = '\0';
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
		return -errno;
	/* Write a temporary file and rename it: readers never see half a name. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", name);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		ret = -errno;
		unlink(tmp);
		return ret;
	}
	return 0;
}

void sc_current_session_forget(const char *name)
{
	char cur[IPC_NAME_MAX], path[PATH_MAX];

	if (sc_current_session_get(cur) == 0 && strcmp(cur, name) == 0 &&
	    rc_path(path, sizeof(path)) == 0)
		unlink(path);
}

int sc_resolve_session(const char *arg, char out[IPC_NAME_MAX])
{
	if (arg) {
		if (strlen(arg) >= IPC_NAME_MAX) {
			cli_error("Session name '%.32s...' is too long (at most %d bytes)", arg,
				  IPC_NAME_MAX - 1);
			return -ENAMETOOLONG;
		}
		memcpy(out, arg, strlen(arg) + 1);
		return 0;
	}
	if (sc_current_session_get(out) == 0)
		return 0;
	cli_error("No current recording session\nDid you create a session? (strata create "
		  "<my_session>)");
	return -ENOENT;
}

void sc_print_message(const struct ipc_reply *rep)
{
	const char *p = rep->message;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (rep->status < 0 && rep->status != -EALREADY)
			cli_error("%.*s", (int)n, p);
		else
			cli_warn("%.*s", (int)n, p);
		p += n;
		if (*p == '\n')
			p++;
	}
}

static const char *const loglevels[] = {
	"TRACE_EMERG",		"TRACE_ALERT",	       "TRACE_CRIT",	     "TRACE_ERR",
	"TRACE_WARNING",	"TRACE_NOTICE",	       "TRACE_INFO",	     "TRACE_DEBUG_SYSTEM",
	"TRACE_DEBUG_PROGRAM",	"TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE", "TRACE_DEBUG_UNIT",
	"TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",    "TRACE_DEBUG",
};

const char *sc_loglevel_name(int level)
{
	if (level < 0 || level >= (int)ARRAY_SIZE(loglevels))
		return "UNKNOWN";
	return loglevels[level];
}

int sc_loglevel_parse(const char *s)
{
	unsigned int v;

	if (sc_parse_u32(s, &v) == 0)
		return v < ARRAY_SIZE(loglevels) ? (int)v : -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(loglevels); i++)
		if (strcasecmp(s, loglevels[i]) == 0 || strcasecmp(s, loglevels[i] + 6) == 0)
			return (int)i;
	return -EINVAL;
}

int sc_parse_size(const char *s, unsigned long long *ret)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s[0] || s[0] == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'G':
		mult = 1ull << 30;
		end++;
		break;
	default:
		return -EINVAL;
	}
	if (*end || v > ULLONG_MAX / mult)
		return -EINVAL;
	*ret = v * mult;
	return 0;
}

int sc_parse_u32(const char *s, unsigned int *ret)
{
	unsigned long v;
	char *end;

	if (!s[0] || s[0] == '-' || s[0] == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*ret = (unsigned int)v;
	return 0;
}

static void print_event(const struct ipc_event_info *e, uint8_t domain)
{
	static const char *const probe_types[] = { "probe", "function", "userspace-probe",
						   "userspace-function" };
	const char *type = e->type == IPC_EVENT_SYSCALL ? "syscall" :
			   e->type == IPC_EVENT_TRACEPOINT ?
							  "tracepoint" :
			   e->type >= IPC_EVENT_PROBE && e->type <= IPC_EVENT_USERSPACE_FUNCTION ?
							  probe_types[e->type - IPC_EVENT_PROBE] :
							  "all";

	printf("      %s", e->name);
	if (domain == IPC_DOMAIN_UST && e->loglevel_type == IPC_LOGLEVEL_RANGE)
		printf(" (loglevel <= %s (%d))", sc_loglevel_name(e->loglevel), e->loglevel);
	else if (domain == IPC_DOMAIN_UST && e->loglevel_type == IPC_LOGLEVEL_SINGLE)
		printf(" (loglevel == %s (%d))", sc_loglevel_name(e->loglevel), e->loglevel);
	printf(" (type: %s) [%s]", type, e->enabled ? "enabled" : "disabled");
	for (uint32_t i = 0; i < e->nr_exclusions; i++)
		printf("%s%s", i ? ", " : " [exclusions: ", e->exclusions[i]);
	if (e->nr_exclusions)
		printf("]");
	if (e->filter)
		printf(" [with filter]");
	printf("\n");
	if (e->probe)
		printf("        location: %s\n", e->probe);
}

/* lttng's "Tracked process attributes" block of a domain. */
static void print_trackers(const struct ipc_session_info *s, uint8_t domain)
{
	static const char *const labels[IPC_TRACKER_COUNT] = {
		[IPC_TRACKER_PID] = "Process IDs:", [IPC_TRACKER_VPID] = "Virtual process IDs:",
		[IPC_TRACKER_UID] = "User IDs:",    [IPC_TRACKER_VUID] = "Virtual user IDs:",
		[IPC_TRACKER_GID] = "Group IDs:",   [IPC_TRACKER_VGID] = "Virtual group IDs:",
	};

	printf("Tracked process attributes\n");
	for (int a = 0; a < IPC_TRACKER_COUNT; a++) {
		const struct ipc_tracker_info *t = NULL;

		if (domain == IPC_DOMAIN_UST &&
		    (a == IPC_TRACKER_PID || a == IPC_TRACKER_UID || a == IPC_TRACKER_GID))
			continue;
		for (uint32_t i = 0; i < s->nr_trackers; i++)
			if (s->trackers[i].domain == domain && s->trackers[i].attr == a)
				t = &s->trackers[i];
		printf("  %-22s", labels[a]);
		if (!t) {
			printf("all\n");
		} else if (t->policy == IPC_TRACKER_NONE || !t->nr_values) {
			printf("none\n");
		} else {
			for (uint32_t i = 0; i < t->nr_values; i++)
				printf("%s%s", i ? ", " : "", t->values[i]);
			printf("\n");
		}
	}
	printf("\n");
}

static void print_channel(const struct ipc_channel_info *c)
{
	printf("- %s: [%s]\n\n", c->name, c->enabled ? "enabled" : "disabled");
	printf("    Attributes:\n");
	printf("      Event-loss mode:  %s\n", c->overwrite ? "overwrite" : "discard");
	printf("      Sub-buffer size:  %llu bytes\n", (unsigned long long)c->subbuf_size);
	printf("      Sub-buffer count: %u\n", c->num_subbuf);
	if (c->switch_timer_us)
		printf("      Switch timer:     %u us\n", c->switch_timer_us);
	else
		printf("      Switch timer:     inactive\n");
	printf("      Output mode:      mmap\n\n");
	printf("    Statistics:\n");
	printf("      Discarded events: %llu\n\n", (unsigned long long)c->discarded);
	if (c->nr_contexts) {
		printf("    Context fields:\n");
		for (uint32_t i = 0; i < c->nr_contexts; i++)
			printf("      %s\n", c->contexts[i]);
		printf("\n");
	}
	printf("    Recording event rules:\n");
	if (!c->nr_events)
		printf("      None\n");
	for (uint32_t i = 0; i < c->nr_events; i++)
		print_event(&c->events[i], c->domain);
	printf("\n");
}

static void print_domain(const struct ipc_session_info *s, uint8_t domain)
{
	bool any = false;

	for (uint32_t i = 0; i < s->nr_channels; i++)
		any |= s->channels[i].domain == domain;
	if (!any)
		return;
	if (domain == IPC_DOMAIN_KERNEL) {
		printf("=== Domain: Linux kernel ===\n\n");
	} else {
		bool pid = false;

		for (uint32_t i = 0; i < s->nr_channels; i++)
			if (s->channels[i].domain == domain)
				pid = s->channels[i].buffers == IPC_BUFFERS_PID;
		printf("=== Domain: User space ===\n\n");
		printf("Buffering scheme: %s\n\n", pid ? "per-process" : "per-user");
	}
	print_trackers(s, domain);
	printf("Channels:\n-------------\n");
	for (uint32_t i = 0; i < s->nr_channels; i++)
		if (s->channels[i].domain == domain)
			print_channel(&s->channels[i]);
}

void sc_print_session(const struct ipc_session_info *s)
{
	printf("Recording session %s: [%s%s]\n", s->name, s->active ? "active" : "inactive",
	       s->snapshot ? " snapshot" : "");
	printf("    Trace output: %s\n\n", s->output);
	print_domain(s, IPC_DOMAIN_KERNEL);
	print_domain(s, IPC_DOMAIN_UST);
}

int sc_run_session_command(int argc, char **argv, const char *name, uint16_t ipc_cmd,
			   const char *done)
{
	static const struct option no_options[] = { { NULL, 0, NULL, 0 } };
	struct ipc_request req = { .cmd = ipc_cmd };
	struct ipc_reply rep;
	int status;

	optind = 1;
	if (getopt_long(argc, argv, "", no_options, NULL) != -1)
		return cli_usage_error(name);
	if (argc - optind > 1) {
		cli_error("%s takes at most one session name", name);
		return cli_usage_error(name);
	}
	if (sc_resolve_session(optind < argc ? argv[optind] : NULL, req.session) < 0)
		return SC_EXIT_FAILED;
	if (sc_request(&req, &rep) < 0)
		return SC_EXIT_FAILED;
	if (rep.status == -EALREADY) {
		/* lttng prints this as a warning and exits non-zero. */
		cli_warn("%s", rep.message);
		ipc_reply_release(&rep);
		return SC_EXIT_FAILED;
	}
	sc_print_message(&rep);
	if (rep.status == 0)
		printf("%s%s\n", done, req.session);
	status = rep.status < 0 ? SC_EXIT_FAILED : CLI_EXIT_OK;
	ipc_reply_release(&rep);
	return status;
}
