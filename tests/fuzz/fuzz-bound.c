/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the time-range parser (strata_ctf_bound_parse(), `strata view
 * --begin/--end`): the first byte picks UTC or local time, the rest is the
 * text. A time that parses must stay within what it claims: a time of day
 * within 99:99:99.999999999, a date not before the epoch, and seconds read
 * back the same from their canonical spelling. A time of day is then placed
 * on the date of a time taken from the input too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/ctf.h>

#include "ctf/trim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NS_PER_S INT64_C(1000000000)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strata_ctf_bound b = { 0 }, again = { 0 };
	char text[128], canon[64];
	bool gmt;
	int64_t first = 0;
	int ret;

	if (size < 1 || size > sizeof(text))
		return 0;
	gmt = data[0] & 1;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	ret = strata_ctf_bound_parse(text, gmt, &b);
	if (ret != 0 && ret != -EINVAL && ret != -ERANGE)
		abort();
	if (ret < 0) {
		if (b.set)
			abort();
		return 0;
	}
	if (!b.set)
		abort();
	if (b.time_of_day) {
		if (b.ns < 0 || b.ns >= NS_PER_S || b.hour > 99 || b.minute > 99 || b.second > 99)
			abort();
		/* The date: the input's first 8 bytes as a time, if there are that many. */
		if (size >= 9)
			memcpy(&first, data + 1, sizeof(first));
		ret = ctf_bound_resolve(&b, first, gmt);
		if (ret != 0 && ret != -ERANGE)
			abort();
		if (ret == 0 && (b.time_of_day || b.ns < 0))
			abort();
		return 0;
	}
	if (strchr(text, ':') || (strlen(text) >= 5 && text[4] == '-')) {
		if (b.ns < 0)
			abort();
		return 0;
	}
	snprintf(canon, sizeof(canon), "%s%" PRId64 ".%09" PRId64, b.ns < 0 ? "-" : "",
		 (b.ns < 0 ? -b.ns : b.ns) / NS_PER_S, (b.ns < 0 ? -b.ns : b.ns) % NS_PER_S);
	if (strata_ctf_bound_parse(canon, gmt, &again) != 0 || again.ns != b.ns ||
	    again.time_of_day)
		abort();
	return 0;
}
