/* SPDX-License-Identifier: MIT */
/*
 * Value formatters of the text printer. babeltrace2 formats everything with
 * g_string_append_printf(); these produce the same bytes without printf on
 * the hot path (integers, strings, times), which is where most of strata
 * view's speed advantage comes from.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctf/pretty-internal.h"
#include "common/common.h"

#define NSEC_PER_SEC 1000000000LL

/*
 * Where formatters write after an allocation failure (the content is
 * dropped). One per thread: the view's two threads hand line buffers to
 * each other, so a buffer in that state keeps no pointer to it between
 * writes (cap 0 sends every reserve back here, which points it at the
 * calling thread's own area).
 */
static _Thread_local char pbuf_scratch[4096];

void ctf_pbuf_release(struct ctf_pbuf *b)
{
	if (!b->oom)
		free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void ctf_pbuf_set_oom(struct ctf_pbuf *b)
{
	if (!b->oom)
		free(b->data);
	b->oom = true;
	b->data = NULL;
	b->len = b->cap = 0;
}

char *ctf_pbuf_grow(struct ctf_pbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->oom)
		goto fail;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = cap;
	return b->data + b->len;
fail:
	/*
	 * From now on every write lands at the start of the scratch area and
	 * is lost; the owner sees oom when it flushes. Requests are bounded
	 * (strings are added in chunks), so the scratch is always large enough.
	 */
	ctf_pbuf_set_oom(b);
	if (n > sizeof(pbuf_scratch))
		abort();
	b->data = pbuf_scratch;
	return pbuf_scratch;
}

void ctf_fmt_int(struct ctf_pbuf *b, uint64_t raw, bool is_signed, uint32_t size, uint32_t base)
{
	/* 64 binary digits + "0b" is the longest form. */
	char *p = ctf_pbuf_reserve(b, 68);
	char *start = p;

	switch (base) {
	case 2: {
		uint64_t v = size >= 64 ? raw : raw << (64 - size);

		*p++ = '0';
		*p++ = 'b';
		for (uint32_t i = 0; i < size; i++) {
			*p++ = (v & (UINT64_C(1) << 63)) ? '1' : '0';
			v <<= 1;
		}
		break;
	}
	case 8: {
		uint64_t v = raw;
		char tmp[22];
		char *t = tmp + sizeof(tmp);

		if (is_signed && size < 64) {
			uint32_t rounded = ((size - 1) / 3 + 1) * 3;

			v &= (UINT64_C(1) << rounded) - 1;
		}
		do {
			*--t = (char)('0' + (v & 7));
			v >>= 3;
		} while (v);
		*p++ = '0';
		memcpy(p, t, (size_t)(tmp + sizeof(tmp) - t));
		p += tmp + sizeof(tmp) - t;
		break;
	}
	case 16:
		p += ctf_fmt_x64(p, raw & ctf_hex_mask(size));
		break;
	default:
		if (is_signed)
			p += ctf_fmt_s64(p, (int64_t)raw);
		else
			p += ctf_fmt_u64(p, raw);
		break;
	}
	b->len += (size_t)(p - start);
}

/*
 * %g of a value m / 2^j (j <= 19) whose exact decimal expansion has at most
 * six significant digits and lies in %g's fixed-notation range: then %g
 * prints exactly those digits, so no rounding decision is needed. Returns
 * the length written to out, or 0 when v is not such a value.
 */
static size_t fmt_short_dyadic(char *out, double v)
{
	static const uint64_t pow5[20] = {
		1ULL,
		5ULL,
		25ULL,
		125ULL,
		625ULL,
		3125ULL,
		15625ULL,
		78125ULL,
		390625ULL,
		1953125ULL,
		9765625ULL,
		48828125ULL,
		244140625ULL,
		1220703125ULL,
		6103515625ULL,
		30517578125ULL,
		152587890625ULL,
		762939453125ULL,
		3814697265625ULL,
		19073486328125ULL,
	};
	double a = v < 0 ? -v : v;
	double s = a;
	unsigned j = 0;
	uint64_t m, ip, frac, fd;
	char digits[48];
	size_t nint, nd, first, last, k;
	char *p = out;

	if (!(a >= 1e-4 && a < 1e6))
		return 0;
	/*
	 * a = odd * 2^e2 from its bits (a is normal here): the least j that
	 * makes a * 2^j an integer is -e2; a < 2^20 keeps m below 2^39.
	 */
	{
		uint64_t bits, mant;
		int e2;

		memcpy(&bits, &s, sizeof(bits));
		mant = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
		e2 = (int)((bits >> 52) & 0x7ff) - 1075 + __builtin_ctzll(mant);
		mant >>= __builtin_ctzll(mant);
		if (e2 < -19)
			return 0;
		j = e2 < 0 ? (unsigned)-e2 : 0;
		m = e2 < 0 ? mant : mant << e2;
	}
	ip = m >> j;
	frac = m & ((UINT64_C(1) << j) - 1);
	/* frac / 2^j == frac * 5^j / 10^j, and frac * 5^j < 10^19. */
	fd = frac * pow5[j];

	nint = ip ? ctf_fmt_u64(digits, ip) : 0;
	nd = nint;
	for (k = 0; k < j; k++) {
		digits[nint + j - 1 - k] = (char)('0' + fd % 10);
		fd /= 10;
	}
	nd += j;
	/* Significant digits: first non-zero to last non-zero. */
	for (first = 0; first < nd && digits[first] == '0'; first++)
		;
	for (last = nd; last > first && digits[last - 1] == '0'; last--)
		;
	if (last - first > 6) {
		/*
		 * Round the exact expansion to 6 significant digits as glibc
		 * does: to nearest, ties to even. A carry out of the first
		 * digit changes the exponent; leave that rare case to printf.
		 */
		size_t cut = first + 6, i;
		bool up;

		if (digits[cut] != '5') {
			up = digits[cut] > '5';
		} else {
			/* Above the tie when any digit after the 5 is non-zero. */
			up = last > cut + 1 || ((digits[cut - 1] - '0') & 1);
		}
		if (up) {
			for (i = cut; i > first; i--) {
				if (digits[i - 1] != '9') {
					digits[i - 1]++;
					break;
				}
				digits[i - 1] = '0';
			}
			if (i == first)
				return 0;
		}
		for (last = cut; last > first && digits[last - 1] == '0'; last--)
			;
		if (last < nint)
			last = nint;
	}
	if (v < 0)
		*p++ = '-';
	if (nint) {
		memcpy(p, digits, nint);
		p += nint;
	} else {
		*p++ = '0';
	}
	if (last > nint) {
		*p++ = '.';
		memcpy(p, digits + nint, last - nint);
		p += last - nint;
	}
	return (size_t)(p - out);
}

void ctf_fmt_double(struct ctf_pbuf *b, double v)
{
	char tmp[64];
	size_t len;
	int n;

	/*
	 * Small integral values (counters, sizes stored as floats) print as
	 * their digits under %g; -0.0 compares equal to 0 but keeps its sign
	 * through snprintf below.
	 */
	if (v > -1e6 && v < 1e6 && v == (double)(int64_t)v && (v != 0 || !__builtin_signbit(v))) {
		char *p = ctf_pbuf_reserve(b, 24);

		b->len += ctf_fmt_s64(p, (int64_t)v);
		return;
	}
	/* At most 7 digits, a point, a sign and zeros below 1e-4: 64 is plenty. */
	len = fmt_short_dyadic(ctf_pbuf_reserve(b, 64), v);
	if (len) {
		b->len += len;
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%g", v);
	if (n > 0)
		ctf_pbuf_add(b, tmp, (size_t)MIN((size_t)n, sizeof(tmp) - 1));
}

/*
 * Per byte: 0 = copied as is; otherwise the character after the backslash
 * ('x' for "\xNN"). iscntrl() in the C locale is 0x00-0x1f and 0x7f.
 */
static const char escape_tab[256] = {
	['\0'] = '0', [0x01] = 'x', [0x02] = 'x',  [0x03] = 'x',  [0x04] = 'x', [0x05] = 'x',
	[0x06] = 'x', ['\a'] = 'a', ['\b'] = 'b',  ['\t'] = 't',  ['\n'] = 'n', ['\v'] = 'v',
	['\f'] = 'f', ['\r'] = 'r', [0x0e] = 'x',  [0x0f] = 'x',  [0x10] = 'x', [0x11] = 'x',
	[0x12] = 'x', [0x13] = 'x', [0x14] = 'x',  [0x15] = 'x',  [0x16] = 'x', [0x17] = 'x',
	[0x18] = 'x', [0x19] = 'x', [0x1a] = 'x',  [0x1b] = 'e',  [0x1c] = 'x', [0x1d] = 'x',
	[0x1e] = 'x', [0x1f] = 'x', ['\\'] = '\\', ['\''] = '\'', ['"'] = '"',	['?'] = '?',
	[0x7f] = 'x',
};

void ctf_fmt_string(struct ctf_pbuf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	if (len <= 512) {
		/* Short strings, the usual case: one reservation, one pass. */
		char *p = ctf_pbuf_reserve(b, len * 4 + 2);
		char *start = p;

		*p++ = '"';
		for (; i < len; i++) {
			char e = escape_tab[u[i]];

			if (__builtin_expect(!e, 1)) {
				*p++ = (char)u[i];
				continue;
			}
			p[0] = '\\';
			if (e == 'x') {
				p[1] = 'x';
				p[2] = hex[u[i] >> 4];
				p[3] = hex[u[i] & 15];
				p += 4;
			} else {
				p[1] = e;
				p += 2;
			}
		}
		*p++ = '"';
		b->len += (size_t)(p - start);
		return;
	}
	ctf_pbuf_addc(b, '"');
	while (i < len) {
		size_t run = i;

		while (run < len && !escape_tab[u[run]])
			run++;
		if (run > i) {
			/* Chunked so an allocation failure never needs more than the scratch. */
			size_t n = run - i;

			while (n) {
				size_t k = MIN(n, (size_t)2048);

				ctf_pbuf_add(b, s + i, k);
				i += k;
				n -= k;
			}
			continue;
		}
		{
			char e = escape_tab[u[i]];
			char *p = ctf_pbuf_reserve(b, 4);

			p[0] = '\\';
			if (e == 'x') {
				p[1] = 'x';
				p[2] = hex[u[i] >> 4];
				p[3] = hex[u[i] & 15];
				b->len += 4;
			} else {
				p[1] = e;
				b->len += 2;
			}
			i++;
		}
	}
	ctf_pbuf_addc(b, '"');
}

void ctf_pretty_clock_init(struct ctf_pretty_clock *c, bool gmt, bool date, bool seconds, FILE *err)
{
	memset(c, 0, sizeof(*c));
	c->gmt = gmt;
	c->date = date;
	c->seconds = seconds;
	c->err = err;
}

static void fmt_seconds(struct ctf_pbuf *b, bool is_negative, uint64_t sec_abs, uint64_t nsec_abs)
{
	char *p = ctf_pbuf_reserve(b, 32);
	char *start = p;

	if (is_negative)
		*p++ = '-';
	p += ctf_fmt_u64(p, sec_abs);
	*p++ = '.';
	ctf_fmt_9(p, (uint32_t)nsec_abs);
	p += 9;
	b->len += (size_t)(p - start);
}

static void warn(struct ctf_pretty_clock *c, const char *msg)
{
	if (c->err)
		fputs(msg, c->err);
}

/* Fills the cache with "[YYYY-MM-DD ]HH:MM:SS." for sec; false on failure. */
static bool fill_cache(struct ctf_pretty_clock *c, uint64_t sec)
{
	time_t t = (time_t)sec;
	struct tm tm;
	size_t n = 0;
	char *p;

	if (c->gmt) {
		if (!gmtime_r(&t, &tm)) {
			warn(c, "[warning] Unable to get gmtime.\n");
			return false;
		}
	} else if (!localtime_r(&t, &tm)) {
		warn(c, "[warning] Unable to get localtime.\n");
		return false;
	}
	if (c->date) {
		/* babeltrace2 formats into a 26-byte buffer. */
		n = strftime(c->cache, 26, "%Y-%m-%d ", &tm);
		if (!n) {
			warn(c, "[warning] Unable to print ascii time.\n");
			return false;
		}
	}
	p = c->cache + n;
	p[0] = ctf_digits2[tm.tm_hour * 2];
	p[1] = ctf_digits2[tm.tm_hour * 2 + 1];
	p[2] = ':';
	p[3] = ctf_digits2[tm.tm_min * 2];
	p[4] = ctf_digits2[tm.tm_min * 2 + 1];
	p[5] = ':';
	/* tm_sec can be 60 (leap second) and stays two digits. */
	p[6] = ctf_digits2[tm.tm_sec * 2];
	p[7] = ctf_digits2[tm.tm_sec * 2 + 1];
	p[8] = '.';
	c->cache_len = (uint8_t)(n + 9);
	c->cache_sec = (int64_t)sec;
	c->cache_valid = true;
	return true;
}

void ctf_fmt_wall(struct ctf_pretty_clock *c, struct ctf_pbuf *b, int64_t ns)
{
	int64_t ts_sec = ns / NSEC_PER_SEC;
	int64_t ts_nsec = ns % NSEC_PER_SEC;
	uint64_t sec_abs, nsec_abs;
	bool is_negative;
	char *p;

	/* The sign normalization of babeltrace2's print_timestamp_wall(). */
	if (ts_sec >= 0 && ts_nsec >= 0) {
		is_negative = false;
		sec_abs = (uint64_t)ts_sec;
		nsec_abs = (uint64_t)ts_nsec;
	} else if (ts_sec == 0 && ts_nsec < 0) {
		is_negative = true;
		sec_abs = 0;
		nsec_abs = (uint64_t)-ts_nsec;
	} else if (ts_sec < 0 && ts_nsec > 0) {
		/* Unreachable with C division; kept as babeltrace2 has it. */
		is_negative = true;
		sec_abs = (uint64_t) - (ts_sec + 1);
		nsec_abs = (uint64_t)(NSEC_PER_SEC - ts_nsec);
	} else {
		is_negative = true;
		sec_abs = -(uint64_t)ts_sec;
		nsec_abs = (uint64_t)-ts_nsec;
	}

	if (c->seconds)
		goto seconds;
	if (is_negative && !c->negative_warned) {
		/*
		 * Only the first negative time falls back to seconds; later
		 * ones go through localtime with the absolute value, as in
		 * babeltrace2 2.0.4.
		 */
		warn(c, "[warning] Fallback to [sec.ns] to print negative time value. "
			"Use --clock-seconds.\n");
		c->negative_warned = true;
		goto seconds;
	}
	if (!c->cache_valid || c->cache_sec != (int64_t)sec_abs) {
		if (!fill_cache(c, sec_abs)) {
			c->cache_valid = false;
			goto seconds;
		}
	}
	p = ctf_pbuf_reserve(b, sizeof(c->cache) + 9);
	/* A fixed-size copy compiles to a few moves; the tail is overwritten. */
	memcpy(p, c->cache, sizeof(c->cache));
	p += c->cache_len;
	ctf_fmt_9(p, (uint32_t)nsec_abs);
	b->len += c->cache_len + 9;
	return;
seconds:
	fmt_seconds(b, is_negative, sec_abs, nsec_abs);
}

void ctf_fmt_delta(struct ctf_pbuf *b, uint64_t delta_ns)
{
	char *p = ctf_pbuf_reserve(b, 32);
	char *start = p;

	*p++ = '+';
	p += ctf_fmt_u64(p, delta_ns / NSEC_PER_SEC);
	*p++ = '.';
	ctf_fmt_9(p, (uint32_t)(delta_ns % NSEC_PER_SEC));
	p += 9;
	b->len += (size_t)(p - start);
}

void ctf_fmt_uuid(struct ctf_pbuf *b, const uint8_t uuid[16])
{
	static const char hex[] = "0123456789abcdef";
	char *p = ctf_pbuf_reserve(b, 36);

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[uuid[i] >> 4];
		*p++ = hex[uuid[i] & 15];
	}
	b->len += 36;
}
