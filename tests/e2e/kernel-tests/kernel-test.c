/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel-test.h"

#include "common/common.h"

int kt_test_failures;

void kt_test_sink_init(struct kt_test_sink *s, bool keep)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->keep = keep;
}

void kt_test_sink_release(struct kt_test_sink *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->recs[i].payload);
	free(s->recs);
	pthread_mutex_destroy(&s->lock);
}

void kt_test_record_cb(void *opaque, const struct kernel_record *rec)
{
	struct kt_test_sink *s = opaque;
	struct kt_test_rec *r;

	pthread_mutex_lock(&s->lock);
	s->total++;
	if (!s->keep) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4096;
		struct kt_test_rec *nr = realloc(s->recs, ncap * sizeof(*nr));

		if (!nr)
			abort();
		s->recs = nr;
		s->cap = ncap;
	}
	r = &s->recs[s->n++];
	r->stream = rec->stream;
	r->id = rec->event_id;
	r->ts = rec->timestamp;
	r->ctx_len = MIN(rec->context_len, sizeof(r->ctx));
	memcpy(r->ctx, rec->context, r->ctx_len);
	r->payload_len = rec->payload_len;
	r->payload = malloc(rec->payload_len + 1);
	if (!r->payload)
		abort();
	memcpy(r->payload, rec->payload, rec->payload_len);
	pthread_mutex_unlock(&s->lock);
}

void kt_test_require_kernel(void)
{
	char why[512];

	if (kernel_check(why, sizeof(why))) {
		printf("SKIP: %s\n", why);
		exit(KT_SKIP);
	}
}

int32_t kt_test_i32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

int64_t kt_test_i64(const uint8_t *p)
{
	int64_t v;

	memcpy(&v, p, 8);
	return v;
}

uint64_t kt_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
