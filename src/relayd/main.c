/* SPDX-License-Identifier: MIT */
/*
 * strata-relayd's command line, listeners and event loop (the design is in
 * relayd.h): one epoll loop over the listening sockets, every connection
 * (level-triggered: a connection is watched for input only while it wants
 * some, for output only while it has replies to send), a signalfd, and a
 * one-second tick for the timeouts.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "strata-config.h"
#include "relayd/relayd.h"
#include "common/lttng-viewer.h"
#include "common/cleanup.h"
#include "common/daemon.h"
#include "common/fs.h"
#include "common/url.h"
#include "common/common.h"

#define READY_TIMEOUT_MS 10000
/* Bytes read from a data connection at once: large packets in few calls. */
#define DATA_READ_MAX (256u << 10)

static const char usage_text[] =
	"Usage: strata-relayd [OPTIONS]\n"
	"\n"
	"Receive traces that session daemons (strata-sessiond, lttng-sessiond 2.4 to\n"
	"2.13) stream over the network, write them below DIR, and serve them to live\n"
	"viewers (strata view net://..., babeltrace2 --input-format=lttng-live).\n"
	"\n"
	"Options:\n"
	"  -C, --control-port=URL   control connections (default tcp://0.0.0.0:5342)\n"
	"  -D, --data-port=URL      data connections (default tcp://0.0.0.0:5343)\n"
	"  -L, --live-port=URL      live viewers (default tcp://localhost:5344)\n"
	"  -o, --output=DIR         write traces below DIR (default $STRATA_HOME/strata-traces,\n"
	"                           else ~/strata-traces)\n"
	"  -d, --daemonize          detach once listening; messages go nowhere\n"
	"  -b, --background         detach once listening, keeping the terminal for messages\n"
	"  -w, --working-directory=DIR  work in DIR\n"
	"      --group-output-by-host     DIR/HOSTNAME/SESSION-DATE (the default)\n"
	"      --group-output-by-session  DIR/SESSION/HOSTNAME-DATE\n"
	"  -v, --verbose            log more (twice: debug messages)\n"
	"  -V, --version            show the version\n"
	"  -h, --help               show this help\n"
	"\n"
	"URLs: tcp://HOST[:PORT] or net://HOST[:PORT] (IPv4), tcp6://[ADDRESS][:PORT] or\n"
	"net6://... (IPv6); HOST may be a name or an address.\n"
	"\n"
	"A session is written to DIR/HOSTNAME/SESSION-YYYYmmdd-HHMMSS/ (or\n"
	"DIR/HOSTNAME/PATH/ for a session created with a path in its URL), in LTTng's\n"
	"layout. Session rotation and clearing are not supported.\n"
	"\n"
	"Environment:\n"
	"  STRATA_RELAYD_TEST_TIMEOUT_MS  (tests) the time a connection has to say who it\n"
	"                           is, to finish a message, and a viewer may stay idle\n"
	"                           (default 30 s, 60 s and 10 min)\n"
	"  STRATA_RELAYD_RECORD=FILE  write what the connections receive to FILE, in the\n"
	"                           relay fuzzer's format (stream handles become 1, 2, 3...)\n";

enum { OPT_BY_HOST = 256, OPT_BY_SESSION };

struct options {
	const char *url[3]; /* control, data, live */
	const char *output;
	const char *workdir;
	bool daemonize, background, by_session;
	int verbose;
};

/* --- URLs and listeners ---------------------------------------------------------------- */

/*
 * tcp[4|6]://HOST[:PORT] or net[4|6]://HOST[:PORT], IPv6 addresses in
 * brackets; no path. Fills host, port and the family.
 */
static int parse_url(const char *url, uint16_t default_port, char *host, size_t hlen,
		     uint16_t *ret_port, int *ret_family)
{
	static const struct {
		const char *scheme;
		int family;
	} schemes[] = { { "tcp://", AF_INET }, { "tcp4://", AF_INET }, { "tcp6://", AF_INET6 },
			{ "net://", AF_INET }, { "net4://", AF_INET }, { "net6://", AF_INET6 } };
	const char *p = NULL, *rest;

	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++) {
		if (!strncmp(url, schemes[i].scheme, strlen(schemes[i].scheme))) {
			p = url + strlen(schemes[i].scheme);
			*ret_family = schemes[i].family;
		}
	}
	*ret_port = default_port;
	if (!p || strata_url_hostport(p, host, hlen, ret_port, &rest) < 0)
		return -EINVAL;
	return *rest ? -EINVAL : 0;
}

static int listen_on(struct rd_listener *l, enum rd_conn_kind kind, const char *url,
		     uint16_t default_port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai = NULL;
	char host[256], port[8];
	uint16_t p;
	int family, fd, one = 1, ret;

	if (parse_url(url, default_port, host, sizeof(host), &p, &family) < 0) {
		log_error("Invalid URL '%s': expected tcp://HOST[:PORT], net://HOST[:PORT] or "
			  "tcp6://[ADDRESS][:PORT]",
			  url);
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%u", p);
	hints.ai_family = family;
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret != 0) {
		log_error("Failed to resolve '%s' of URL '%s': %s", host, url, gai_strerror(ret));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
		ret = -errno;
		log_error("Failed to listen on '%s': %s", url, strerror(-ret));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return ret;
	}
	freeaddrinfo(ai);
	l->fd = fd;
	l->kind = kind;
	snprintf(l->url, sizeof(l->url), "%s", url);
	return 0;
}

static void peer_string(const struct sockaddr_storage *ss, char *out, size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
		snprintf(out, len, "%s:%u", addr, ntohs(in->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
		snprintf(out, len, "[%s]:%u", addr, ntohs(in6->sin6_port));
	}
}

/*
 * Keep-alive finds peers that vanished between messages (a sessiond's
 * control connection may rightly be silent for hours): after 60 s of
 * silence, 6 probes 10 s apart. A link cut for a few seconds survives.
 */
static void socket_setup(int fd, enum rd_conn_kind kind)
{
	int one = 1, idle = 60, intvl = 10, cnt = 6;

	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	/* Replies are small and awaited. */
	if (kind != RD_CONN_DATA)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void accept_all(struct rd_relay *r, struct rd_listener *l)
{
	for (;;) {
		struct sockaddr_storage ss = { 0 };
		socklen_t sl = sizeof(ss);
		struct epoll_event ev = { .events = EPOLLIN };
		struct rd_conn *c;
		int fd = accept4(l->fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warn("Failed to accept on '%s': %s", l->url, strerror(errno));
			return;
		}
		if (r->n_conns >= r->max_conns) {
			char peer[64] = "?";

			peer_string(&ss, peer, sizeof(peer));
			log_warn("Refusing a connection from %s: %zu connections already", peer,
				 r->n_conns);
			close(fd);
			continue;
		}
		socket_setup(fd, l->kind);
		c = rd_conn_new(r, l->kind, fd, &ss);
		if (!c) {
			close(fd);
			continue;
		}
		peer_string(&ss, c->peer_str, sizeof(c->peer_str));
		c->events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			rd_conn_close(c);
			continue;
		}
		log_debug("New %s connection %" PRIu64 " from %s", l->url, c->id, c->peer_str);
	}
}

/* --- recording (the fuzzer's corpus) ----------------------------------------------------- */

/*
 * STRATA_RELAYD_RECORD=FILE writes what every connection receives in the
 * relay fuzzer's input format (tests/fuzz/fuzz-relay.c): records
 * {op u8, len u16 big-endian, bytes}, op = connection slot (0-2 control,
 * 3-5 data, 6-8 live, by order of arrival; later connections are not
 * recorded) or 0x80 | slot when it closes.
 */
static int record_slot(struct rd_relay *r, struct rd_conn *c)
{
	static uint64_t slots[9];

	for (int i = 0; i < 3; i++) {
		int s = (int)c->kind * 3 + i;

		if (slots[s] == c->id)
			return s;
		if (!slots[s]) {
			slots[s] = c->id;
			return s;
		}
	}
	(void)r;
	return -1;
}

static void record(struct rd_relay *r, struct rd_conn *c, const uint8_t *p, size_t n, bool close_op)
{
	int slot;

	if (r->record_fd < 0 || (slot = record_slot(r, c)) < 0)
		return;
	do {
		size_t k = MIN(n, (size_t)UINT16_MAX);
		uint8_t h[3] = { (uint8_t)(close_op ? 0x80 | slot : slot), (uint8_t)(k >> 8),
				 (uint8_t)k };

		if (write(r->record_fd, h, 3) != 3 ||
		    (k && write(r->record_fd, p, k) != (ssize_t)k))
			return;
		p += k;
		n -= k;
	} while (n);
}

/* --- the loop ------------------------------------------------------------------------------ */

static bool wants_input(const struct rd_conn *c)
{
	if (c->dead)
		return false;
	if (c->kind == RD_CONN_LIVE ? rd_buf_avail(&c->out) > 0 :
				      rd_buf_avail(&c->out) >= (64u << 10))
		return false;
	/* Room below a chunk, or room reserved for a message being received. */
	return rd_buf_avail(&c->in) < RD_IN_CHUNK || c->in.len < c->in.cap;
}

/*
 * Read what the connection has, up to a few chunks (a data connection that
 * keeps its peer waiting makes it drop events), and process it.
 */
static void conn_read(struct rd_relay *r, struct rd_conn *c)
{
	size_t want = c->kind == RD_CONN_DATA ? DATA_READ_MAX : RD_IN_CHUNK;

	for (int i = 0; i < 4 && wants_input(c); i++) {
		size_t room;
		ssize_t n;

		if (c->in.cap - c->in.len < want && rd_buf_avail(&c->in) < RD_IN_CHUNK &&
		    rd_buf_reserve(&c->in, want) < 0) {
			rd_conn_kill(c, "out of memory");
			return;
		}
		room = c->in.cap - c->in.len;
		n = recv(c->fd, c->in.data + c->in.len, room, MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				rd_conn_kill(c, "%s", strerror(errno));
			return;
		}
		if (n == 0) {
			if (rd_conn_mid_message(c))
				rd_conn_kill(c, "closed in the middle of a message");
			else
				c->dead = true; /* an orderly end */
			return;
		}
		record(r, c, c->in.data + c->in.len, (size_t)n, false);
		c->in.len += (size_t)n;
		c->progress_ms = r->now_ms;
		rd_conn_process(c);
		if ((size_t)n < room)
			return; /* drained */
	}
}

static void conn_flush(struct rd_relay *r, struct rd_conn *c)
{
	while (!c->dead && rd_buf_avail(&c->out)) {
		ssize_t n = send(c->fd, rd_buf_head(&c->out), rd_buf_avail(&c->out),
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				rd_conn_kill(c, "%s", strerror(errno));
			return;
		}
		rd_buf_consume(&c->out, (size_t)n);
		c->progress_ms = r->now_ms;
	}
}

/* After events: send what can go, let blocked input through, set the watch mask. */
static void conn_settle(struct rd_relay *r, struct rd_conn *c)
{
	uint32_t ev;

	for (int i = 0; i < 4 && !c->dead; i++) {
		size_t before = rd_buf_avail(&c->in);

		conn_flush(r, c);
		/* Input held while the replies were pending is processed now. */
		if (c->dead || rd_buf_avail(&c->out) || !before)
			break;
		rd_conn_process(c);
		if (rd_buf_avail(&c->in) == before && !rd_buf_avail(&c->out))
			break;
	}
	if (c->dead)
		return;
	ev = (wants_input(c) ? EPOLLIN : 0) | (rd_buf_avail(&c->out) ? EPOLLOUT : 0);
	if (ev != c->events) {
		struct epoll_event e = { .events = ev, .data.ptr = c };

		if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, c->fd, &e) < 0)
			rd_conn_kill(c, "%s", strerror(errno));
		c->events = ev;
	}
}

static void check_timeouts(struct rd_relay *r)
{
	struct rd_list *l;

	rd_list_for_each(l, &r->conns)
	{
		struct rd_conn *c = container_of(l, struct rd_conn, node);
		uint64_t quiet = r->now_ms - c->progress_ms;

		if (!c->said_hello && r->now_ms - c->created_ms > r->hello_timeout_ms)
			rd_conn_kill(c, "no complete message within %" PRIu64 " ms",
				     r->hello_timeout_ms);
		else if (rd_conn_mid_message(c) && quiet > r->msg_timeout_ms)
			rd_conn_kill(c, "a message stalled for %" PRIu64 " ms", r->msg_timeout_ms);
		else if (c->kind == RD_CONN_LIVE && quiet > r->viewer_idle_ms)
			rd_conn_kill(c, "viewer idle for %" PRIu64 " ms", r->viewer_idle_ms);
	}
}

static void reap(struct rd_relay *r)
{
	struct rd_list *l, *t;

	rd_list_for_each_safe(l, t, &r->conns)
	{
		struct rd_conn *c = container_of(l, struct rd_conn, node);

		if (c->dead) {
			record(r, c, NULL, 0, true);
			rd_conn_close(c);
		}
	}
}

static int run(struct rd_relay *r, int sfd)
{
	struct epoll_event evs[64], ev = { .events = EPOLLIN };
	uint64_t last_tick = r->now_ms;

	ev.data.ptr = &sfd;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, sfd, &ev) < 0)
		return -errno;
	for (;;) {
		int n = epoll_wait(r->epfd, evs, ARRAY_SIZE(evs), 1000);
		struct rd_list *l, *t;

		if (n < 0 && errno != EINTR)
			return -errno;
		r->now_ms = rd_now_ms();
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					log_info("Exiting on signal %u", si.ssi_signo);
					return 0;
				}
				continue;
			}
			if (p >= (void *)r->listeners &&
			    p < (void *)(r->listeners + ARRAY_SIZE(r->listeners))) {
				accept_all(r, p);
				continue;
			}
			if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				conn_read(r, p);
			if (evs[i].events & EPOLLOUT)
				conn_flush(r, p);
		}
		rd_list_for_each_safe(l, t, &r->conns)
			conn_settle(r, container_of(l, struct rd_conn, node));
		if (r->now_ms - last_tick >= 1000) {
			last_tick = r->now_ms;
			check_timeouts(r);
		}
		reap(r);
	}
}

/* --- setup ------------------------------------------------------------------------------------ */

/* -o DIR, else $STRATA_HOME, $HOME or the password file's home + /strata-traces. */
static int output_root(const char *opt, char *out, size_t len)
{
	const char *home = getenv("STRATA_HOME");
	int n;

	if (opt) {
		n = snprintf(out, len, "%s", opt);
	} else {
		if (!home || !*home)
			home = getenv("HOME");
		if (!home || !*home) {
			struct passwd *pw = getpwuid(geteuid());

			home = pw ? pw->pw_dir : NULL;
		}
		if (!home)
			return -ENOENT;
		n = snprintf(out, len, "%s/strata-traces", home);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "control-port", required_argument, NULL, 'C' },
		{ "data-port", required_argument, NULL, 'D' },
		{ "live-port", required_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' },
		{ "daemonize", no_argument, NULL, 'd' },
		{ "background", no_argument, NULL, 'b' },
		{ "working-directory", required_argument, NULL, 'w' },
		{ "group-output-by-host", no_argument, NULL, OPT_BY_HOST },
		{ "group-output-by-session", no_argument, NULL, OPT_BY_SESSION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":C:D:L:o:dbw:vVh", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			o->url[RD_CONN_CONTROL] = optarg;
			break;
		case 'D':
			o->url[RD_CONN_DATA] = optarg;
			break;
		case 'L':
			o->url[RD_CONN_LIVE] = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'd':
			o->daemonize = true;
			break;
		case 'b':
			o->background = true;
			break;
		case 'w':
			o->workdir = optarg;
			break;
		case OPT_BY_HOST:
			o->by_session = false;
			break;
		case OPT_BY_SESSION:
			o->by_session = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			printf("strata-relayd %s\n", STRATA_VERSION);
			exit(0);
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case ':':
			log_error("Option '%s' needs a value (see 'strata-relayd --help')",
				  argv[optind - 1]);
			return -1;
		default:
			log_error("Unknown option '%s' (see 'strata-relayd --help')",
				  argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		log_error("Unexpected argument '%s' (see 'strata-relayd --help')", argv[optind]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const default_url[3] = { "tcp://0.0.0.0", "tcp://0.0.0.0",
						    "tcp://localhost" };
	static const uint16_t default_port[3] = { 5342, 5343, LV_DEFAULT_PORT };
	struct options o = { 0 };
	struct rd_relay r;
	char root[4096];
	const char *rec;
	unsigned long long test_ms = 0;
	sigset_t mask;
	int ready = -1, sfd, ret;

	strata_log_init("strata-relayd", STRATA_LOG_WARN);
	if (parse_args(argc, argv, &o) < 0)
		return 1;
	strata_log_init("strata-relayd", o.verbose >= 2 ? STRATA_LOG_DEBUG :
					 o.verbose	? STRATA_LOG_INFO :
							  STRATA_LOG_WARN);
	/* Bad input changes nothing: everything is checked before anything is made. */
	for (int k = 0; k < 3; k++) {
		char host[256];
		uint16_t port;
		int family;

		if (o.url[k] &&
		    parse_url(o.url[k], default_port[k], host, sizeof(host), &port, &family) < 0) {
			log_error(
				"Invalid URL '%s': expected tcp://HOST[:PORT], net://HOST[:PORT] or "
				"tcp6://[ADDRESS][:PORT]",
				o.url[k]);
			return 1;
		}
	}
	rec = getenv("STRATA_RELAYD_TEST_TIMEOUT_MS");
	if (rec && *rec) {
		char *end;

		test_ms = strtoull(rec, &end, 10);
		if (*end || test_ms == 0 || test_ms > 3600000) {
			log_error("STRATA_RELAYD_TEST_TIMEOUT_MS='%s': expected 1 to 3600000", rec);
			return 1;
		}
	}
	if (o.workdir && chdir(o.workdir) < 0) {
		log_error("Failed to change to the working directory '%s': %s", o.workdir,
			  strerror(errno));
		return 1;
	}
	ret = output_root(o.output, root, sizeof(root));
	if (ret == 0)
		ret = fs_mkdir_p(root, 0770);
	if (ret == 0)
		ret = rd_relay_init(&r, root, o.by_session);
	if (ret < 0) {
		log_error("Failed to open the output directory '%s': %s (set it with -o DIR)", root,
			  strerror(-ret));
		return 1;
	}
	r.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r.epfd < 0) {
		log_error("Failed to create an epoll instance: %s", strerror(errno));
		return 1;
	}
	for (int k = 0; k < 3; k++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &r.listeners[k] };

		if (listen_on(&r.listeners[k], (enum rd_conn_kind)k,
			      o.url[k] ? o.url[k] : default_url[k], default_port[k]) < 0 ||
		    epoll_ctl(r.epfd, EPOLL_CTL_ADD, r.listeners[k].fd, &ev) < 0)
			return 1;
	}
	if (test_ms)
		r.hello_timeout_ms = r.msg_timeout_ms = r.viewer_idle_ms = test_ms;
	rec = getenv("STRATA_RELAYD_RECORD");
	if (rec && *rec) {
		r.record_fd = open(rec, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (r.record_fd < 0)
			log_warn("Failed to open '%s' to record into: %s", rec, strerror(errno));
		r.counter_handles = true;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.daemonize || o.background)
		ready = strata_daemonize(o.background, READY_TIMEOUT_MS);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		log_error("Failed to create a signalfd: %s", strerror(errno));
		return 1;
	}
	log_info("Listening: control %s, data %s, live %s; writing below '%s'", r.listeners[0].url,
		 r.listeners[1].url, r.listeners[2].url, r.root);
	if (ready >= 0) {
		(void)!write(ready, "R", 1);
		close(ready);
	}
	ret = run(&r, sfd);
	if (ret < 0)
		log_error("The event loop failed: %s", strerror(-ret));
	rd_relay_release(&r);
	for (int k = 0; k < 3; k++)
		close(r.listeners[k].fd);
	close(r.epfd);
	close(sfd);
	if (r.record_fd >= 0)
		close(r.record_fd);
	return ret < 0;
}
