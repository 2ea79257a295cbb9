/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "common/log.h"
#include "common/common.h"

static const char *log_progname = "strata";
static enum strata_log_level log_max = STRATA_LOG_WARN;

void strata_log_init(const char *progname, enum strata_log_level max_level)
{
	log_progname = progname;
	log_max = max_level;
}

void strata_log(enum strata_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = { "Error", "Warning", "", "Debug" };
	va_list ap;

	if (level > log_max)
		return;
	if (level == STRATA_LOG_INFO)
		fprintf(stderr, "%s: ", log_progname);
	else
		fprintf(stderr, "%s: %s: ", log_progname, prefix[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
