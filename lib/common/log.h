/* SPDX-License-Identifier: MIT */
/*
 * Logging for daemons and tools (never for libraries: they return errors).
 * Messages read "Failed to <do what>: <why>" with key=value details and user
 * strings in single quotes.
 */
#ifndef STRATA_COMMON_LOG_H
#define STRATA_COMMON_LOG_H

#include "common/macro.h"

enum strata_log_level { STRATA_LOG_ERR, STRATA_LOG_WARN, STRATA_LOG_INFO, STRATA_LOG_DEBUG };

/* Program name prefixed to every message, and the most verbose level shown. */
void strata_log_init(const char *progname, enum strata_log_level max_level);
void strata_log(enum strata_log_level level, const char *fmt, ...) _printf_(2, 3);

#define log_error(...) strata_log(STRATA_LOG_ERR, __VA_ARGS__)
#define log_warn(...) strata_log(STRATA_LOG_WARN, __VA_ARGS__)
#define log_info(...) strata_log(STRATA_LOG_INFO, __VA_ARGS__)
#define log_debug(...) strata_log(STRATA_LOG_DEBUG, __VA_ARGS__)

#endif
