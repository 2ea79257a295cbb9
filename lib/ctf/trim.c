/* SPDX-License-Identifier: MIT */
/*
 * Time ranges as babeltrace2 2.0.4 reads them (flt.utils.trimmer's
 * set_bound_from_str() and its clock conversions): the text formats, the
 * time of day completed with the first message's date, and nanoseconds
 * back to clock values for the notices a range cuts.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <strata/ctf.h>

#include "ctf/trim.h"

#define NS_PER_S INT64_C(1000000000)

/* Exactly n digits at *p: their value, *p moved past them. */
static bool digits(const char **p, unsigned n, unsigned *ret)
{
	unsigned v = 0;

	for (unsigned i = 0; i < n; i++) {
		char c = (*p)[i];

		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (unsigned)(c - '0');
	}
	*p += n;
	*ret = v;
	return true;
}

/* ".d{1,9}" if *p is at a '.': nanoseconds (".5" is 500000000); else 0. */
static bool fraction(const char **p, int64_t *ret)
{
	const char *s = *p;
	int64_t ns = 0;
	unsigned n = 0;

	*ret = 0;
	if (*s != '.')
		return true;
	s++;
	while (s[n] >= '0' && s[n] <= '9') {
		if (++n > 9)
			return false;
		ns = ns * 10 + (s[n - 1] - '0');
	}
	if (n == 0)
		return false;
	for (unsigned i = n; i < 9; i++)
		ns *= 10;
	*p = s + n;
	*ret = ns;
	return true;
}

/* "hh:mm[:ss[.ns]]" at p, up to the end of the text, into b's fields. */
static bool time_of_day(const char *p, struct strata_ctf_bound *b)
{
	unsigned h, m, sec = 0;
	int64_t frac = 0;

	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &m))
		return false;
	if (*p == ':') {
		p++;
		if (!digits(&p, 2, &sec) || !fraction(&p, &frac))
			return false;
	}
	if (*p)
		return false;
	b->hour = (uint8_t)h;
	b->minute = (uint8_t)m;
	b->second = (uint8_t)sec;
	b->ns = frac;
	return true;
}

/*
 * A wall-clock date and time to ns from the epoch, each field handed to
 * mktime() as written, as babeltrace2 does: out-of-range fields then
 * normalize the same way, daylight saving time included (glibc takes the
 * zone's offset before adding seconds past 59, for one).
 */
static int wall_to_ns(unsigned year, unsigned month, unsigned day,
		      const struct strata_ctf_bound *tod, bool gmt, int64_t *ret)
{
	struct tm tm = {
		.tm_sec = tod->second,
		.tm_min = tod->minute,
		.tm_hour = tod->hour,
		.tm_mday = (int)day,
		.tm_mon = (int)month - 1,
		.tm_year = (int)year - 1900,
		.tm_isdst = -1,
	};
	time_t t = gmt ? timegm(&tm) : mktime(&tm);

	/* babeltrace2 refuses what comes out negative (or as mktime's -1). */
	if (t < 0 || t > INT64_MAX / NS_PER_S - 1)
		return -ERANGE;
	*ret = (int64_t)t * NS_PER_S + tod->ns;
	return 0;
}

/* "[-]SECONDS[.ns]". */
static int seconds(const char *p, int64_t *ret)
{
	bool neg = *p == '-';
	uint64_t s = 0;
	int64_t frac;
	const char *d;

	if (neg)
		p++;
	for (d = p; *p >= '0' && *p <= '9'; p++) {
		if (s > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		s = s * 10 + (uint64_t)(*p - '0');
	}
	if (p == d || !fraction(&p, &frac) || *p)
		return -EINVAL;
	/* INT64_MIN itself is refused too, as babeltrace2 does. */
	if (s > (uint64_t)(INT64_MAX - frac) / NS_PER_S)
		return -ERANGE;
	*ret = (int64_t)s * NS_PER_S + frac;
	if (neg)
		*ret = -*ret;
	return 0;
}

int strata_ctf_bound_parse(const char *text, bool gmt, struct strata_ctf_bound *ret)
{
	struct strata_ctf_bound b = { .set = true };
	const char *p = text;
	unsigned y, mo, d;
	int r;

	if (!text)
		return -EINVAL;
	if (digits(&p, 4, &y) && *p++ == '-' && digits(&p, 2, &mo) && *p++ == '-' &&
	    digits(&p, 2, &d)) {
		struct strata_ctf_bound tod = { 0 };

		if (*p && (*p++ != ' ' || !time_of_day(p, &tod)))
			return -EINVAL;
		r = wall_to_ns(y, mo, d, &tod, gmt, &b.ns);
		if (r < 0)
			return r;
	} else if (time_of_day(text, &b)) {
		b.time_of_day = true;
	} else {
		r = seconds(text, &b.ns);
		if (r < 0)
			return r;
	}
	*ret = b;
	return 0;
}

int ctf_bound_resolve(struct strata_ctf_bound *b, int64_t first_ns, bool gmt)
{
	/* The date of the first message: its whole seconds, truncated as C does. */
	time_t t = (time_t)(first_ns / NS_PER_S);
	struct tm tm;
	int r;

	if (!b->set || !b->time_of_day)
		return 0;
	if (!(gmt ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)))
		return -ERANGE;
	r = wall_to_ns((unsigned)tm.tm_year + 1900, (unsigned)tm.tm_mon + 1, (unsigned)tm.tm_mday,
		       b, gmt, &b->ns);
	if (r < 0)
		return r;
	b->time_of_day = false;
	b->hour = b->minute = b->second = 0;
	return 0;
}

/*
 * babeltrace2's bt_common_clock_value_from_ns_from_origin(): integer
 * arithmetic, so a value converted back to ns may differ from ns by the
 * rounding when the frequency is not 1 GHz, as it does there.
 */
int ctf_clock_raw_from_ns(int64_t offset_s, uint64_t offset_cycles, uint64_t freq, int64_t ns,
			  uint64_t *ret)
{
	int64_t offset_ns, add;
	uint64_t v, periods, rem, cycles;

	if (freq == 0 || __builtin_mul_overflow(offset_s, NS_PER_S, &offset_ns))
		return -ERANGE;
	if (freq == (uint64_t)NS_PER_S) {
		add = (int64_t)offset_cycles;
	} else {
		if (__builtin_mul_overflow((int64_t)offset_cycles, NS_PER_S, &add))
			return -ERANGE;
		add /= (int64_t)freq;
	}
	if (__builtin_add_overflow(offset_ns, add, &offset_ns) || ns < offset_ns)
		return -ERANGE;
	v = (uint64_t)(ns - offset_ns);
	periods = v / (uint64_t)NS_PER_S;
	rem = v - periods * (uint64_t)NS_PER_S;
	if (__builtin_mul_overflow(periods, freq, &cycles) ||
	    __builtin_mul_overflow(freq, rem, &rem) ||
	    __builtin_add_overflow(rem / (uint64_t)NS_PER_S, cycles, &cycles))
		return -ERANGE;
	*ret = cycles;
	return 0;
}
