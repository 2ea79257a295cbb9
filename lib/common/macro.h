/* SPDX-License-Identifier: MIT */
#ifndef STRATA_COMMON_MACRO_H
#define STRATA_COMMON_MACRO_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Each evaluates one argument twice: never pass a call or a shared load. */
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
