/* SPDX-License-Identifier: MIT */
/*
 * The /proc statedump (no privilege needed for the caller's own process):
 * start and end bracket the dump, this process and its threads are listed
 * with the right ids and name, and an fd opened here is listed with its path.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel-internal.h"

#include "common/common.h"

struct seen {
	unsigned int start, end, order_errors;
	bool open;
	unsigned int self_threads, helper_thread, fd_found;
	pid_t pid, helper_tid;
	int fd;
	char name[16];
};

static void emit(void *opaque, uint32_t key, const void *payload, size_t len)
{
	struct seen *s = opaque;

	if (key == KR_KEY_STATEDUMP_START) {
		s->start++;
		s->open = true;
		return;
	}
	if (key == KR_KEY_STATEDUMP_END) {
		s->end++;
		s->open = false;
		return;
	}
	if (!s->open)
		s->order_errors++;
	if (key == KR_KEY_STATEDUMP_PROCESS) {
		const struct kt_sd_process *p = payload;

		assert_int_equal(len, sizeof(*p));
		if (p->pid != s->pid)
			return;
		s->self_threads++;
		assert_int_equal(p->ppid, getppid());
		assert_int_equal(p->vpid, p->pid);
		assert_int_equal(p->type, 0); /* user thread */
		/* This thread is running (R: LTTNG_RUN); the helper waits (S: LTTNG_WAIT). */
		if (p->tid == gettid())
			assert_int_equal(p->status, 6);
		if (p->tid == s->helper_tid)
			assert_int_equal(p->status, 5);
		if (p->tid == s->pid)
			assert_string_equal(p->name, s->name);
		if (p->tid == s->helper_tid) {
			s->helper_thread++;
			assert_string_equal(p->name, "sd-helper");
		}
	} else if (key == KR_KEY_STATEDUMP_FD) {
		const struct kt_sd_fd *f = payload;
		const char *path = (const char *)payload + sizeof(*f);

		assert_true(len > sizeof(*f));
		assert_int_equal(((const char *)payload)[len - 1], 0);
		if (f->pid == s->pid && f->fd == s->fd) {
			s->fd_found++;
			assert_string_equal(path, "/dev/null");
			assert_int_equal(f->fmode & 2, 2); /* opened for writing */
		}
	}
}

static pthread_mutex_t helper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t helper_cond = PTHREAD_COND_INITIALIZER;
static pid_t helper_tid;
static bool helper_quit;

static void *helper(void *arg _unused_)
{
	prctl(PR_SET_NAME, "sd-helper");
	pthread_mutex_lock(&helper_lock);
	helper_tid = gettid();
	pthread_cond_broadcast(&helper_cond);
	while (!helper_quit)
		pthread_cond_wait(&helper_cond, &helper_lock);
	pthread_mutex_unlock(&helper_lock);
	return NULL;
}

static void test_statedump_self(void **state _unused_)
{
	struct seen s = { .pid = getpid() };
	pthread_t th;

	prctl(PR_GET_NAME, s.name);
	s.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_true(s.fd >= 0);
	assert_int_equal(pthread_create(&th, NULL, helper, NULL), 0);
	pthread_mutex_lock(&helper_lock);
	while (!helper_tid)
		pthread_cond_wait(&helper_cond, &helper_lock);
	s.helper_tid = helper_tid;
	pthread_mutex_unlock(&helper_lock);

	assert_int_equal(kt_statedump_run(emit, &s), 0);

	pthread_mutex_lock(&helper_lock);
	helper_quit = true;
	pthread_cond_broadcast(&helper_cond);
	pthread_mutex_unlock(&helper_lock);
	pthread_join(th, NULL);
	close(s.fd);

	assert_int_equal(s.start, 1);
	assert_int_equal(s.end, 1);
	assert_int_equal(s.order_errors, 0);
	assert_int_equal(s.self_threads, 2);
	assert_int_equal(s.helper_thread, 1);
	assert_int_equal(s.fd_found, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statedump_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
