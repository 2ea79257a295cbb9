/* SPDX-License-Identifier: MIT */
/*
 * Kernel filters and trackers end to end (root): a workload with known
 * syscalls runs under channels whose filtered rules and trackers must cut
 * exactly the records they should, in the eBPF program: what reaches the
 * ring buffers is counted, and nothing may be counted as discarded.
 *
 *   filters: a user string read at syscall entry (openat filename glob),
 *            integer arguments with contexts, rules OR-ed, a rule without
 *            filter, rules that never match (float, missing field),
 *            removal while recording; tracepoint fields (__data_loc
 *            strings, char arrays, integers)
 *   trackers: uid, gid, vuid, pid, vpid sets and policies, for a child
 *            running as root and one run by setpriv as nobody, changed
 *            while recording
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter/filter.h"
#include "kernel-test.h"

#include "common/common.h"

#define NOBODY 65534
#define N_OPEN_X 7
#define N_OPEN_Y 5
#define N_CLOSE_A 10 /* close(12345) */
#define N_CLOSE_B 20 /* close(12346) */
#define N_GETPPID 50

/* Context layout: the order of add_context below. */
enum { C_PID = 0, C_PROCNAME = 4 };

/* The workload: runs in a forked child, or exec'ed by setpriv with --work. */
static _noreturn_ void work(int go, int done, pid_t tag)
{
	char path[96], c;

	prctl(PR_SET_NAME, "kf-work");
	if (read(go, &c, 1) != 1)
		_exit(3);
	for (int i = 0; i < N_OPEN_X + N_OPEN_Y; i++) {
		snprintf(path, sizeof(path), "/tmp/strata-kf-%d-%s", tag,
			 i < N_OPEN_X ? "xa" : "ya");
		syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	}
	for (int i = 0; i < N_CLOSE_A; i++)
		syscall(SYS_close, 12345);
	for (int i = 0; i < N_CLOSE_B; i++)
		syscall(SYS_close, 12346);
	for (int i = 0; i < N_GETPPID; i++)
		syscall(SYS_getppid);
	if (write(done, "d", 1) != 1)
		_exit(4);
	_exit(0);
}

struct child {
	pid_t pid;
	int go, done;
};

/* Fork the workload; as nobody through setpriv(1) when as_nobody. */
static char self_exe[4096];

static int spawn(struct child *c, bool as_nobody)
{
	int go[2], done[2];
	char tag[16];

	if (pipe2(go, O_CLOEXEC) || pipe2(done, O_CLOEXEC))
		return -errno;
	pid_t self = getpid();

	snprintf(tag, sizeof(tag), "%d", self);
	c->pid = fork();
	if (c->pid == 0) {
		/* No syscall before the go: getppid() would be counted. */
		if (!as_nobody)
			work(go[0], done[1], self);
		if (dup2(go[0], 0) < 0 || dup2(done[1], 1) < 0)
			_exit(2);
		execlp("setpriv", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		       "--", self_exe, "--work", tag, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(done[1]);
	c->go = go[1];
	c->done = done[0];
	return c->pid > 0 ? 0 : -errno;
}

static void run(struct child *c)
{
	char d;
	int st;

	CHECK(write(c->go, "g", 1) == 1, "go");
	CHECK(read(c->done, &d, 1) == 1, "workload %d did not finish", c->pid);
	CHECK(waitpid(c->pid, &st, 0) == c->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "workload %d status %d", c->pid, st);
	close(c->go);
	close(c->done);
}

/* Records of event name (NULL: any) from pid (0: any). */
static unsigned int count(struct kernel_channel *ch, const struct kt_test_sink *s, const char *name,
			  pid_t pid)
{
	unsigned int n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const char *ev = kernel_channel_event_name(ch, s->recs[i].id);

		if (name && (!ev || strcmp(ev, name)))
			continue;
		if (pid && kt_test_i32(s->recs[i].ctx + C_PID) != pid)
			continue;
		n++;
	}
	return n;
}

static void sink_reset(struct kt_test_sink *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->recs[i].payload);
	s->n = 0;
	s->total = 0;
}

static uint64_t discarded(struct kernel_channel *ch)
{
	uint64_t n = 0;

	for (unsigned int s = 0; s < kernel_channel_nr_streams(ch); s++)
		n += kernel_channel_discarded(ch, s);
	return n;
}

static int add_filter_type(struct kernel_channel *ch, const char *name, enum kernel_event_type type,
			   const char *expr)
{
	char why[512];
	struct flt_error err;
	void *bc;
	size_t len;
	int r;

	r = flt_compile(expr, &bc, &len, &err);
	CHECK(r == 0, "compile '%s': %s", expr, err.msg);
	if (r)
		return r;
	r = kernel_channel_add_filter(ch, name, type, bc, len, why, sizeof(why));
	CHECK(r >= 0, "filter '%s' on %s: %d %s", expr, name, r, why);
	free(bc);
	return r;
}

static int add_filter(struct kernel_channel *ch, const char *sc, const char *expr)
{
	return add_filter_type(ch, sc, KERNEL_EVENT_SYSCALL, expr);
}

static struct kernel_channel *new_channel(struct kernel_tracer *kt, struct kt_test_sink *sink)
{
	struct kernel_channel *ch = NULL;
	char why[512];

	CHECK(kernel_channel_create(kt, "channel0", NULL, kt_test_record_cb, sink, &ch, why,
				    sizeof(why)) == 0,
	      "channel: %s", why);
	CHECK(ch && kernel_channel_add_context(ch, "pid", why, sizeof(why)) == 0, "pid: %s", why);
	CHECK(ch && kernel_channel_add_context(ch, "procname", why, sizeof(why)) == 0,
	      "procname: %s", why);
	return ch;
}

static void test_filters(struct kernel_tracer *kt)
{
	struct kt_test_sink sink;
	struct kernel_channel *ch;
	struct child c;
	char expr[256], why[512];
	int rule_b, r;

	kt_test_sink_init(&sink, true);
	ch = new_channel(kt, &sink);
	if (!ch)
		return;
	CHECK(spawn(&c, false) == 0, "spawn");
	snprintf(expr, sizeof(expr), "filename == \"/tmp/strata-kf-%d-x*\"", getpid());
	add_filter(ch, "openat", expr);
	add_filter(ch, "close", "fd == 12345 && $ctx.procname == \"kf-work*\"");
	snprintf(expr, sizeof(expr), "fd == 12346 && $ctx.pid == %d", c.pid);
	rule_b = add_filter(ch, "close", expr);
	/* Never: floats, a field getppid lacks, a shift out of range, $app. */
	add_filter(ch, "getppid", "$ctx.pid > 0 && 1 == 1.5");
	add_filter(ch, "getppid", "nosuch == 1 || $ctx.pid > 0");
	add_filter(ch, "getppid", "$ctx.pid >> 64 == 0");
	add_filter(ch, "getppid", "$app.p:c == 1 || $ctx.pid > 0");

	/* Refusals name the problem and change nothing. */
	r = kernel_channel_add_filter(ch, "close", KERNEL_EVENT_SYSCALL, "garbage", 7, why,
				      sizeof(why));
	CHECK(r == -EINVAL && strstr(why, "bytecode"), "garbage bytecode: %d %s", r, why);

	CHECK(kernel_channel_start(ch) == 0, "start");
	run(&c);
	CHECK(kernel_channel_stop(ch) == 0, "stop");
	CHECK(count(ch, &sink, "syscall_entry_openat", 0) == N_OPEN_X,
	      "openat entries: %u, expected %d", count(ch, &sink, "syscall_entry_openat", 0),
	      N_OPEN_X);
	CHECK(count(ch, &sink, "syscall_entry_openat", c.pid) == N_OPEN_X, "openat by child");
	/* The exit's re-read strings are empty: no exit passes the glob. */
	CHECK(count(ch, &sink, "syscall_exit_openat", 0) == 0, "openat exits");
	CHECK(count(ch, &sink, "syscall_entry_close", c.pid) == N_CLOSE_A + N_CLOSE_B,
	      "close entries by child: %u", count(ch, &sink, "syscall_entry_close", c.pid));
	CHECK(count(ch, &sink, "syscall_entry_close", 0) == N_CLOSE_A + N_CLOSE_B,
	      "close entries: %u", count(ch, &sink, "syscall_entry_close", 0));
	CHECK(count(ch, &sink, "syscall_exit_close", 0) == 0, "close exits have no fd");
	CHECK(count(ch, &sink, "syscall_entry_getppid", 0) == 0, "never-matching getppid rules");
	CHECK(sink.total == N_OPEN_X + N_CLOSE_A + N_CLOSE_B,
	      "%llu records reached the ring buffers, expected %d", (unsigned long long)sink.total,
	      N_OPEN_X + N_CLOSE_A + N_CLOSE_B);
	CHECK(discarded(ch) == 0, "discarded %llu", (unsigned long long)discarded(ch));
	printf("filters: %llu records reached the ring buffers, %llu discarded\n",
	       (unsigned long long)sink.total, (unsigned long long)discarded(ch));

	/* An unfiltered rule wins; a removed rule stops counting, while recording. */
	sink_reset(&sink);
	CHECK(spawn(&c, false) == 0, "spawn");
	CHECK(kernel_channel_enable_event(ch, "getppid", KERNEL_EVENT_SYSCALL, why, sizeof(why)) ==
		      1,
	      "enable getppid: %s", why);
	CHECK(kernel_channel_start(ch) == 0, "start");
	CHECK(kernel_channel_remove_filter(ch, rule_b) == 0, "remove rule");
	CHECK(kernel_channel_remove_filter(ch, rule_b) == -ENOENT, "remove twice");
	run(&c);
	CHECK(kernel_channel_stop(ch) == 0, "stop");
	CHECK(count(ch, &sink, "syscall_entry_getppid", c.pid) == N_GETPPID, "unfiltered getppid");
	CHECK(count(ch, &sink, "syscall_exit_getppid", c.pid) == N_GETPPID, "getppid exits");
	CHECK(count(ch, &sink, "syscall_entry_close", c.pid) == N_CLOSE_A,
	      "close after removal: %u", count(ch, &sink, "syscall_entry_close", c.pid));
	CHECK(discarded(ch) == 0, "discarded");
	kernel_channel_destroy(ch);
	kt_test_sink_release(&sink);
}

/*
 * Tracepoint fields: __data_loc strings (sched_process_fork's parent_comm,
 * sched_process_exec's filename), char[16] (sched_switch's prev_comm) and
 * integers, under LTTng's names (pid fields of sched_* are *_tid).
 */
static void test_tracepoint_filters(struct kernel_tracer *kt)
{
	struct kt_test_sink sink;
	struct kernel_channel *ch;
	int go[2], st;
	char expr[256], c;
	pid_t pid;

	kt_test_sink_init(&sink, true);
	ch = new_channel(kt, &sink);
	if (!ch || pipe2(go, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		pid_t g;

		prctl(PR_SET_NAME, "kf-exec");
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		g = fork();
		if (g == 0)
			_exit(0);
		if (g < 0 || waitpid(g, NULL, 0) != g)
			_exit(4);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	snprintf(expr, sizeof(expr), "parent_comm == \"kf-exec\" && parent_tid == %d", pid);
	add_filter_type(ch, "sched_process_fork", KERNEL_EVENT_TRACEPOINT, expr);
	snprintf(expr, sizeof(expr), "filename == \"/bin/tr*\" && tid == %d && old_tid == %d", pid,
		 pid);
	add_filter_type(ch, "sched_process_exec", KERNEL_EVENT_TRACEPOINT, expr);
	snprintf(expr, sizeof(expr), "prev_comm == \"kf-ex*\" && prev_tid == %d", pid);
	add_filter_type(ch, "sched_switch", KERNEL_EVENT_TRACEPOINT, expr);
	CHECK(kernel_channel_start(ch) == 0, "start");
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "exec child status %d", st);
	CHECK(kernel_channel_stop(ch) == 0, "stop");
	close(go[1]);
	CHECK(count(ch, &sink, "sched_process_fork", pid) == 1 &&
		      count(ch, &sink, NULL, 0) == 1 + count(ch, &sink, "sched_process_exec", 0) +
							   count(ch, &sink, "sched_switch", 0),
	      "sched_process_fork records: %u", count(ch, &sink, "sched_process_fork", 0));
	CHECK(count(ch, &sink, "sched_process_exec", pid) == 1, "sched_process_exec records: %u",
	      count(ch, &sink, "sched_process_exec", 0));
	CHECK(count(ch, &sink, "sched_switch", 0) >= 1 &&
		      count(ch, &sink, "sched_switch", 0) == count(ch, &sink, "sched_switch", pid),
	      "sched_switch records: %u (%u from the child)", count(ch, &sink, "sched_switch", 0),
	      count(ch, &sink, "sched_switch", pid));
	CHECK(discarded(ch) == 0, "discarded");
	printf("tracepoint filters: %zu records\n", sink.n);
	kernel_channel_destroy(ch);
	kt_test_sink_release(&sink);
}

struct tcase {
	const char *what;
	enum kernel_tracker_attr attr;
	enum kernel_tracker_policy pol;
	bool ids_root; /* the root child's id, else the nobody child's */
	unsigned int root, nobody; /* expected close(12345) records per child */
};

static void test_trackers(struct kernel_tracer *kt)
{
	const struct tcase cases[] = {
		{ "uid {65534}", KERNEL_TRACKER_UID, KERNEL_TRACKER_SET, false, 0, N_CLOSE_A },
		{ "gid {65534}", KERNEL_TRACKER_GID, KERNEL_TRACKER_SET, false, 0, N_CLOSE_A },
		{ "vuid {65534}", KERNEL_TRACKER_VUID, KERNEL_TRACKER_SET, false, 0, N_CLOSE_A },
		{ "vgid {0}", KERNEL_TRACKER_VGID, KERNEL_TRACKER_SET, true, N_CLOSE_A, 0 },
		{ "pid {root child}", KERNEL_TRACKER_PID, KERNEL_TRACKER_SET, true, N_CLOSE_A, 0 },
		{ "vpid {nobody child}", KERNEL_TRACKER_VPID, KERNEL_TRACKER_SET, false, 0,
		  N_CLOSE_A },
		{ "pid none", KERNEL_TRACKER_PID, KERNEL_TRACKER_NONE, false, 0, 0 },
		{ "uid all", KERNEL_TRACKER_UID, KERNEL_TRACKER_ALL, false, N_CLOSE_A, N_CLOSE_A },
	};
	struct kt_test_sink sink;
	struct kernel_channel *ch;
	char why[512];

	kt_test_sink_init(&sink, true);
	ch = new_channel(kt, &sink);
	if (!ch)
		return;
	add_filter(ch, "close", "fd == 12345");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct tcase *t = &cases[i];
		struct child root, nobody;
		uint32_t id;
		int r;

		sink_reset(&sink);
		CHECK(spawn(&root, false) == 0 && spawn(&nobody, true) == 0, "spawn");
		/* Each case alone: every other attribute back to ALL. */
		for (int a = KERNEL_TRACKER_PID; a <= KERNEL_TRACKER_VGID; a++)
			kernel_channel_set_tracker(ch, a, KERNEL_TRACKER_ALL, NULL, 0, why,
						   sizeof(why));
		switch (t->attr) {
		case KERNEL_TRACKER_PID:
		case KERNEL_TRACKER_VPID:
			id = (uint32_t)(t->ids_root ? root.pid : nobody.pid);
			break;
		default:
			id = t->ids_root ? 0 : NOBODY;
		}
		r = kernel_channel_set_tracker(ch, t->attr, t->pol, &id, 1, why, sizeof(why));
		CHECK(r == 0, "%s: %s", t->what, why);
		CHECK(kernel_channel_start(ch) == 0, "start");
		run(&root);
		run(&nobody);
		CHECK(kernel_channel_stop(ch) == 0, "stop");
		CHECK(count(ch, &sink, "syscall_entry_close", root.pid) == t->root &&
			      count(ch, &sink, "syscall_entry_close", nobody.pid) == t->nobody,
		      "tracker %s: root child %u, nobody child %u records (expected %u, %u)",
		      t->what, count(ch, &sink, "syscall_entry_close", root.pid),
		      count(ch, &sink, "syscall_entry_close", nobody.pid), t->root, t->nobody);
	}

	/* Changed while recording: nobody only, then everyone. */
	{
		struct child a, b, c2, d;
		uint32_t id = NOBODY;

		sink_reset(&sink);
		for (int at = KERNEL_TRACKER_PID; at <= KERNEL_TRACKER_VGID; at++)
			kernel_channel_set_tracker(ch, at, KERNEL_TRACKER_ALL, NULL, 0, why,
						   sizeof(why));
		CHECK(spawn(&a, false) == 0 && spawn(&b, true) == 0, "spawn");
		CHECK(kernel_channel_start(ch) == 0, "start");
		kernel_channel_set_tracker(ch, KERNEL_TRACKER_UID, KERNEL_TRACKER_SET, &id, 1, why,
					   sizeof(why));
		run(&a);
		run(&b);
		CHECK(spawn(&c2, false) == 0 && spawn(&d, true) == 0, "spawn");
		kernel_channel_set_tracker(ch, KERNEL_TRACKER_UID, KERNEL_TRACKER_ALL, NULL, 0, why,
					   sizeof(why));
		run(&c2);
		run(&d);
		CHECK(kernel_channel_stop(ch) == 0, "stop");
		CHECK(count(ch, &sink, "syscall_entry_close", a.pid) == 0 &&
			      count(ch, &sink, "syscall_entry_close", b.pid) == N_CLOSE_A &&
			      count(ch, &sink, "syscall_entry_close", c2.pid) == N_CLOSE_A &&
			      count(ch, &sink, "syscall_entry_close", d.pid) == N_CLOSE_A,
		      "tracker changed while recording");
		CHECK(discarded(ch) == 0, "discarded");
	}
	CHECK(kernel_channel_set_tracker(ch, 9, KERNEL_TRACKER_ALL, NULL, 0, why, sizeof(why)) ==
		      -EINVAL,
	      "bad attribute");
	printf("trackers: %zu cases\n", ARRAY_SIZE(cases) + 1);
	kernel_channel_destroy(ch);
	kt_test_sink_release(&sink);
}

int main(int argc, char **argv)
{
	struct kernel_tracer *kt;
	char why[512];

	if (argc == 3 && !strcmp(argv[1], "--work"))
		work(0, 1, (pid_t)strtol(argv[2], NULL, 10));
	kt_test_require_kernel();
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) <= 0) {
		printf("SKIP: cannot read /proc/self/exe\n");
		return KT_SKIP;
	}
	if (access("/usr/bin/setpriv", X_OK) && access("/bin/setpriv", X_OK)) {
		printf("SKIP: setpriv(1) is missing (util-linux)\n");
		return KT_SKIP;
	}
	if (kernel_tracer_create(&kt, why, sizeof(why))) {
		printf("SKIP: %s\n", why);
		return KT_SKIP;
	}
	test_filters(kt);
	test_tracepoint_filters(kt);
	test_trackers(kt);
	kernel_tracer_destroy(kt);
	printf("%d failures\n", kt_test_failures);
	return kt_test_failures ? 1 : 0;
}
