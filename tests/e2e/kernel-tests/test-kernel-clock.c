/* SPDX-License-Identifier: MIT */
/*
 * Kernel events share user space's clock (root): a child brackets each of
 * 100 000 getppid() calls with clock_gettime(CLOCK_MONOTONIC), the clock
 * user-space events are stamped with. Every syscall_entry_getppid must fall
 * after the stamp taken just before the call, and its exit before the stamp
 * taken just after it: a user event emitted immediately before a syscall
 * sorts before that syscall's entry, and one emitted after its exit after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel-test.h"

#include "common/common.h"

#define NCALLS 100000

struct stamps {
	uint64_t before[NCALLS], after[NCALLS];
};

struct sink {
	pthread_mutex_t lock;
	uint64_t *entry, *exit_;
	size_t nentry, nexit;
	uint32_t id_entry, id_exit;
	pid_t child;
	unsigned int foreign;
};

static void clock_cb(void *opaque, const struct kernel_record *rec)
{
	struct sink *s = opaque;
	int32_t pid;

	if (rec->context_len < 4)
		return;
	memcpy(&pid, rec->context, 4);
	pthread_mutex_lock(&s->lock);
	if (pid != s->child) {
		s->foreign++;
	} else if (rec->event_id == s->id_entry && s->nentry < NCALLS) {
		s->entry[s->nentry++] = rec->timestamp;
	} else if (rec->event_id == s->id_exit && s->nexit < NCALLS) {
		s->exit_[s->nexit++] = rec->timestamp;
	}
	pthread_mutex_unlock(&s->lock);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	struct kernel_channel_attr attr = { .subbuf_size = 1 << 20, .num_subbuf = 32 };
	struct sink s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct kernel_tracer *kt;
	struct kernel_channel *ch;
	struct stamps *st;
	char why[512], c;
	int go[2], st_status;
	size_t bad_entry = 0, bad_exit = 0;

	kt_test_require_kernel();
	/* Shared with the child, which fills it. */
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	s.entry = calloc(NCALLS, sizeof(uint64_t));
	s.exit_ = calloc(NCALLS, sizeof(uint64_t));
	if (st == MAP_FAILED || !s.entry || !s.exit_ || pipe2(go, O_CLOEXEC))
		return 1;
	if (kernel_tracer_create(&kt, why, sizeof(why))) {
		printf("SKIP: %s\n", why);
		return KT_SKIP;
	}
	if (kernel_channel_create(kt, "channel0", &attr, clock_cb, &s, &ch, why, sizeof(why))) {
		fprintf(stderr, "channel: %s\n", why);
		return 1;
	}
	CHECK(kernel_channel_add_context(ch, "pid", why, sizeof(why)) == 0, "%s", why);
	CHECK(kernel_channel_enable_event(ch, "getppid", KERNEL_EVENT_SYSCALL, why, sizeof(why)) ==
		      1,
	      "%s", why);
	for (uint32_t id = 0; kernel_channel_event_name(ch, id); id++) {
		if (!strcmp(kernel_channel_event_name(ch, id), "syscall_entry_getppid"))
			s.id_entry = id;
		else if (!strcmp(kernel_channel_event_name(ch, id), "syscall_exit_getppid"))
			s.id_exit = id;
	}
	s.child = fork();
	if (s.child == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		for (int i = 0; i < NCALLS; i++) {
			st->before[i] = mono();
			syscall(SYS_getppid);
			st->after[i] = mono();
		}
		_exit(0);
	}
	CHECK(kernel_channel_start(ch) == 0, "start");
	CHECK(write(go[1], "g", 1) == 1, "go");
	CHECK(waitpid(s.child, &st_status, 0) == s.child && WIFEXITED(st_status) &&
		      WEXITSTATUS(st_status) == 0,
	      "child");
	CHECK(kernel_channel_stop(ch) == 0, "stop");

	CHECK(s.nentry == NCALLS && s.nexit == NCALLS, "entries %zu exits %zu of %d", s.nentry,
	      s.nexit, NCALLS);
	/*
	 * The rings are per CPU and the child may migrate: one thread's calls are
	 * strictly ordered in time, so sorting restores call order.
	 */
	qsort(s.entry, s.nentry, sizeof(uint64_t), cmp_u64);
	qsort(s.exit_, s.nexit, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < MIN(s.nentry, s.nexit); i++) {
		if (!(st->before[i] <= s.entry[i] && s.entry[i] <= s.exit_[i]))
			bad_entry++;
		if (!(s.exit_[i] <= st->after[i]))
			bad_exit++;
	}
	CHECK(bad_entry == 0, "%zu entries not after the user stamp before the call", bad_entry);
	CHECK(bad_exit == 0, "%zu exits not before the user stamp after the call", bad_exit);
	printf("%zu calls bracketed; %u records of other processes ignored\n",
	       MIN(s.nentry, s.nexit), s.foreign);
	kernel_channel_destroy(ch);
	kernel_tracer_destroy(kt);
	free(s.entry);
	free(s.exit_);
	munmap(st, sizeof(*st));
	return kt_test_failures ? 1 : 0;
}
