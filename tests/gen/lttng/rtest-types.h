/* Argument structs of the rtest provider (outside the multi-read part of rtest-tp.h). */
#ifndef RTEST_TYPES_H
#define RTEST_TYPES_H

#include <stddef.h>
#include <stdint.h>

struct rtest_ints {
	int8_t s8;
	uint8_t u8;
	int16_t s16;
	uint16_t u16;
	int32_t s32;
	uint32_t u32;
	int64_t s64;
	uint64_t u64;
	char ch;
};

struct rtest_arrays {
	const char *text; /* at least 8 bytes readable */
	size_t text_len; /* sequence length, may include NULs */
	const int32_t *arr; /* 4 elements */
	const uint16_t *seq;
	size_t seq_len;
	const uint8_t *bytes; /* 6 elements, printed as numbers */
};

#endif /* RTEST_TYPES_H */
