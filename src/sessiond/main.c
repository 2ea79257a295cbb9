/* SPDX-License-Identifier: MIT */
/*
 * strata-sessiond: the per-user session daemon. Root's daemon serves the
 * whole system from /run/strata; another user's lives in
 * $XDG_RUNTIME_DIR/strata or ~/.strata ($STRATA_RUNDIR overrides both).
 * The run directory is 0700 (0755 for root's, whose registration socket is
 * open to every user and whose control socket only to root and the tracing
 * group) and holds control.sock, ust.sock and the pid lock sessiond.pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <strata/error.h>

#include "strata-config.h"
#include "sessiond/app.h"
#include "sessiond/clock.h"
#include "sessiond/sessiond.h"
#include "sessiond/trace.h"
#include "common/cleanup.h"
#include "common/fs.h"
#include "common/log.h"
#include "common/common.h"

#define READY_TIMEOUT_MS 10000

int sd_watch_add(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0 ? -errno : 0;
}

int sd_watch_mod(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(d->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0 ? -errno : 0;
}

void sd_watch_del(struct sd_daemon *d, struct sd_watch *w)
{
	if (w->fd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, w->fd, NULL);
}

static void usage(FILE *out)
{
	fputs("Usage: strata-sessiond [OPTIONS]\n"
	      "\n"
	      "The strata session daemon: sessions, channels, events, the registry of\n"
	      "traced apps and the consumer that writes CTF traces. The strata CLI starts\n"
	      "it when none is running.\n"
	      "\n"
	      "Options:\n"
	      "  -F, --foreground   stay in the foreground (default)\n"
	      "  -d, --daemonize    detach; exit once the control socket answers\n"
	      "  -g, --group=NAME   root's daemon: members of group NAME may control it\n"
	      "                     (default: tracing)\n"
	      "  -v, --verbose      log more (repeat for debug messages)\n"
	      "  -h, --help         show this help\n"
	      "  -V, --version      show the version\n"
	      "\n"
	      "Environment:\n"
	      "  STRATA_RUNDIR      run directory (sockets, pid file) instead of the default\n"
	      "                     /run/strata (root), $XDG_RUNTIME_DIR/strata or ~/.strata\n"
	      "  STRATA_SESSIOND_QUEUE_MAX\n"
	      "                     bytes of user space packets the consumer holds for its\n"
	      "                     writer (4096 to 1073741824; default 67108864); past it,\n"
	      "                     apps drop and count events until the writer catches up\n",
	      out);
}

static int prepare_rundir(struct sd_daemon *d)
{
	struct stat st;
	int ret;

	ret = strata_rundir_path(d->rundir, sizeof(d->rundir));
	if (ret < 0) {
		log_error("Failed to find the run directory: %s (set HOME or STRATA_RUNDIR)",
			  strerror(-ret));
		return ret;
	}
	/* Root's daemon traces every user's apps, wherever its run directory. */
	d->global = geteuid() == 0;
	ret = fs_mkdir_p(d->rundir, 0700);
	if (ret < 0) {
		log_error("Failed to create the run directory '%s': %s", d->rundir, strerror(-ret));
		return ret;
	}
	if (stat(d->rundir, &st) < 0)
		return -errno;
	/* Refuse a directory someone else controls: they could swap sockets. */
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		log_error("Failed to use the run directory '%s': it must be owned by uid %u and "
			  "not writable by others (fix with chown/chmod, or set STRATA_RUNDIR)",
			  d->rundir, (unsigned)geteuid());
		return -EPERM;
	}
	/* Other users' apps must reach root's registration socket; nobody else ours. */
	if (chmod(d->rundir, d->global ? 0755 : 0700) < 0)
		return -errno;
	return 0;
}

/*
 * Apps, their connections and the trace files each take descriptors: use
 * what the hard limit allows, so that a crowd of connections meets the
 * daemon's own bounds (app.c) before the kernel's.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_warn("Failed to raise the descriptor limit: %s", strerror(errno));
	}
}

static int take_lock(struct sd_daemon *d)
{
	char path[IPC_PATH_MAX + 32], pid[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", d->rundir, STRATA_PID_FILE_NAME);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		log_error("Failed to open the pid file '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;
		ssize_t r = read(fd, pid, sizeof(pid) - 1);

		pid[r > 0 ? r : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (err == EWOULDBLOCK)
			log_error(
				"A session daemon is already running (pid %s, run directory '%s')",
				pid[0] ? pid : "?", d->rundir);
		else
			log_error("Failed to lock '%s': %s", path, strerror(err));
		close(fd);
		return -EEXIST;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		log_error("Failed to write the pid file '%s': %s", path, strerror(errno));
		close(fd);
		return -EIO;
	}
	return fd; /* held open (and locked) for the daemon's life */
}

static void signals_on_event(struct sd_daemon *d, struct sd_watch *w, uint32_t events)
{
	struct signalfd_siginfo si;

	(void)events;
	while (read(w->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		log_info("Received signal %u, exiting", si.ssi_signo);
		d->quit = true;
	}
}

static int setup_signals(struct sd_daemon *d)
{
	sigset_t set;
	int fd;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	d->signals = (struct sd_watch){ .fd = fd, .on_event = signals_on_event };
	return sd_watch_add(d, &d->signals, EPOLLIN);
}

/*
 * --daemonize: fork twice (the daemon is no session leader and is reparented),
 * and keep the first parent waiting on a pipe until the daemon reports that
 * its sockets listen, so that `strata` knows it can connect when we exit.
 * Returns the write end of the pipe in the daemon, or exits.
 */
static int daemonize(void)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		log_error("Failed to create a pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		log_error("Failed to fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		char c = 0;
		int status;

		close(p[1]);
		waitpid(pid, &status, 0); /* the intermediate child exits at once */
		if (poll(&pfd, 1, READY_TIMEOUT_MS) == 1 && read(p[0], &c, 1) == 1 && c == 'R')
			exit(0);
		exit(1);
	}
	close(p[0]);
	if (setsid() < 0)
		_exit(1);
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	if (chdir("/") < 0)
		_exit(1);
	return p[1];
}

static void detach_stdio(bool keep_stderr)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (!keep_stderr)
		dup2(fd, STDERR_FILENO);
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'F' },
		{ "daemonize", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "group", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	struct sd_daemon d = { .epfd = -1,
			       .ctl_listen.fd = -1,
			       .ust_listen.fd = -1,
			       .signals.fd = -1,
			       .tracing_group = "tracing" };
	char path[IPC_PATH_MAX + 32];
	bool do_daemonize = false;
	int verbose = 0, ready_fd = -1, lock_fd = -1, ret = 1, c;
	const char *home;

	while ((c = getopt_long(argc, argv, "Fdg:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (!optarg[0] || strlen(optarg) >= sizeof(d.tracing_group)) {
				fprintf(stderr,
					"strata-sessiond: invalid group name '%s': expected 1 to %zu "
					"characters\n",
					optarg, sizeof(d.tracing_group) - 1);
				return 1;
			}
			snprintf(d.tracing_group, sizeof(d.tracing_group), "%s", optarg);
			break;
		case 'F':
			do_daemonize = false;
			break;
		case 'd':
			do_daemonize = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("strata-sessiond %s\n", STRATA_VERSION);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "strata-sessiond: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 1;
	}
	strata_log_init("strata-sessiond", verbose >= 2 ? STRATA_LOG_DEBUG :
					   verbose == 1 ? STRATA_LOG_INFO :
							  STRATA_LOG_WARN);
	/* Before daemonizing: a bad setting is reported where it was made. */
	if (sdu_configure() < 0 || sdk_configure() < 0)
		return 1;
	if (do_daemonize)
		ready_fd = daemonize();

	home = getenv("HOME");
	if (!home || !home[0]) {
		struct passwd *pw = getpwuid(geteuid());

		home = pw ? pw->pw_dir : "/tmp";
	}
	raise_nofile();
	sd_state_init(&d.state, home);
	d.state.priv = &d;
	sd_trace_init(&d);

	if (prepare_rundir(&d) < 0)
		goto out;
	lock_fd = take_lock(&d);
	if (lock_fd < 0)
		goto out;
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d.epfd < 0 || setup_signals(&d) < 0) {
		log_error("Failed to set up the event loop: %s", strerror(errno));
		goto out;
	}
	c = sd_clock_start(&d);
	if (c < 0)
		log_warn("Failed to set up the TSC clock page: %s; apps stamp with clock_gettime",
			 strerror(-c));
	snprintf(path, sizeof(path), "%s/%s", d.rundir, STRATA_UST_SOCK_NAME);
	if (sd_app_listen(&d, path) < 0) {
		log_error("Failed to listen on '%s': %s", path, strerror(errno));
		goto out;
	}
	/* The control socket comes last: once it answers, everything is up. */
	snprintf(path, sizeof(path), "%s/%s", d.rundir, STRATA_CONTROL_SOCK_NAME);
	c = sd_control_listen(&d, path);
	if (c < 0) {
		log_error("Failed to listen on '%s': %s", path, strerror(-c));
		goto out;
	}
	log_info("Ready: run directory '%s', pid %d", d.rundir, (int)getpid());
	if (ready_fd >= 0) {
		detach_stdio(verbose > 0);
		if (write(ready_fd, "R", 1) != 1)
			goto out;
		close(ready_fd);
		ready_fd = -1;
	}

	while (!d.quit) {
		struct epoll_event evs[32];
		/* Wake for the first app reply deadline: a silent app is dropped then. */
		int ta = sd_app_timeout_ms(&d), tc = sd_control_timeout_ms(&d);
		int n = epoll_wait(d.epfd, evs, (int)ARRAY_SIZE(evs),
				   ta < 0 ? tc :
				   tc < 0 ? ta :
					    MIN(ta, tc));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_error("Failed to wait for events: %s", strerror(errno));
			goto out;
		}
		for (int i = 0; i < n; i++) {
			struct sd_watch *w = evs[i].data.ptr;

			/* An earlier handler of this batch may have closed it (an app
			 * dropped while a command ran): its slot is zeroed. A reused
			 * slot only sees a spurious, harmless EAGAIN. */
			if (w->fd >= 0 && w->on_event)
				w->on_event(&d, w, evs[i].events);
		}
		sd_app_expire(&d);
		sd_control_expire(&d);
	}
	ret = 0;
out:
	/* Sessions first: stopping them flushes buffers to disk. */
	sd_state_release(&d.state);
	sd_app_release(&d);
	sd_control_release(&d);
	sd_trace_release(&d);
	sd_clock_stop(&d);
	if (lock_fd >= 0) {
		/* Ours to remove: the lock proves no other daemon uses them. */
		snprintf(path, sizeof(path), "%s/%s", d.rundir, STRATA_CONTROL_SOCK_NAME);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", d.rundir, STRATA_UST_SOCK_NAME);
		unlink(path);
		close(lock_fd);
	}
	if (d.signals.fd >= 0)
		close(d.signals.fd);
	if (d.epfd >= 0)
		close(d.epfd);
	return ret;
}
