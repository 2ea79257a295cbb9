/* SPDX-License-Identifier: MIT */
/* Helpers of the kernel-domain end-to-end tests: skip rules, checks, record capture. */
#ifndef STRATA_TESTS_KERNEL_TEST_H
#define STRATA_TESTS_KERNEL_TEST_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"

#define KT_SKIP 77

#define CHECK(cond, ...)                                                                         \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                            \
			fputc('\n', stderr);                                                     \
			kt_test_failures++;                                                      \
		}                                                                                \
	} while (0)

extern int kt_test_failures;

/* A copy of one delivered record. */
struct kt_test_rec {
	uint32_t stream, id;
	uint64_t ts;
	uint8_t ctx[128];
	size_t ctx_len;
	uint8_t *payload; /* malloc'ed, whole */
	size_t payload_len;
};

struct kt_test_sink {
	pthread_mutex_t lock;
	struct kt_test_rec *recs;
	size_t n, cap;
	uint64_t total;
	bool keep; /* false: only count */
};

void kt_test_sink_init(struct kt_test_sink *s, bool keep);
void kt_test_sink_release(struct kt_test_sink *s);
void kt_test_record_cb(void *opaque, const struct kernel_record *rec);

/* Exit 77 with the reason when kernel tracing cannot run here. */
void kt_test_require_kernel(void);

int32_t kt_test_i32(const uint8_t *p);
int64_t kt_test_i64(const uint8_t *p);
uint64_t kt_test_now_ns(void);

#endif
