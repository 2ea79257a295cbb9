/* SPDX-License-Identifier: MIT */
/*
 * The text printer's value formatters against outputs of babeltrace2 2.0.4
 * (ctf.md §3.3 and §3.6, and traces printed by babeltrace2 on this machine).
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctf/pretty-internal.h"
#include "common/common.h"

static struct ctf_pbuf buf;

/* The buffer's content as a NUL-terminated string, then cleared. */
static const char *take(void)
{
	static char out[8192];

	assert_false(buf.oom);
	assert_true(buf.len < sizeof(out));
	memcpy(out, buf.data, buf.len);
	out[buf.len] = '\0';
	buf.len = 0;
	return out;
}

static const char *fint(uint64_t raw, bool is_signed, uint32_t size, uint32_t base)
{
	ctf_fmt_int(&buf, raw, is_signed, size, base);
	return take();
}

static void test_decimal(void **state)
{
	char tmp[32];

	(void)state;
	assert_string_equal(fint(0, false, 32, 10), "0");
	assert_string_equal(fint(7, false, 8, 10), "7");
	assert_string_equal(fint(10, false, 8, 10), "10");
	assert_string_equal(fint(255, false, 8, 10), "255");
	assert_string_equal(fint(UINT64_MAX, false, 64, 10), "18446744073709551615");
	assert_string_equal(fint((uint64_t)-1, true, 8, 10), "-1");
	assert_string_equal(fint((uint64_t)INT64_MIN, true, 64, 10), "-9223372036854775808");
	assert_string_equal(fint((uint64_t)INT64_MAX, true, 64, 10), "9223372036854775807");
	assert_string_equal(fint((uint64_t)-2147483648LL, true, 32, 10), "-2147483648");
	/* Every length of the 2-digit converter against snprintf. */
	for (uint64_t v = 1, i = 0; i < 20; i++, v *= 10) {
		for (int d = -1; d <= 1; d++) {
			uint64_t x = v + (uint64_t)d;

			snprintf(tmp, sizeof(tmp), "%" PRIu64, x);
			assert_string_equal(fint(x, false, 64, 10), tmp);
		}
	}
}

static void test_hex(void **state)
{
	(void)state;
	/* Signed values are masked to the size rounded up to 4 bits. */
	assert_string_equal(fint((uint64_t)-1, true, 8, 16), "0xFF");
	assert_string_equal(fint((uint64_t)-2, true, 4, 16), "0xE");
	assert_string_equal(fint((uint64_t)-1, true, 16, 16), "0xFFFF");
	assert_string_equal(fint((uint64_t)-2147483648LL, true, 32, 16), "0x80000000");
	assert_string_equal(fint((uint64_t)-20, true, 32, 16), "0xFFFFFFEC");
	assert_string_equal(fint((uint64_t)-1, true, 64, 16), "0xFFFFFFFFFFFFFFFF");
	assert_string_equal(fint((uint64_t)-1, true, 5, 16), "0xFF");
	assert_string_equal(fint(UINT64_MAX, false, 64, 16), "0xFFFFFFFFFFFFFFFF");
	assert_string_equal(fint(0, false, 32, 16), "0x0");
	assert_string_equal(fint(0x7F7AAD316000, false, 64, 16), "0x7F7AAD316000");
	assert_string_equal(fint(0xE, false, 8, 16), "0xE");
	/* 61..63 bits round up to 64: babeltrace2's mask is then 0. */
	assert_string_equal(fint(0x123, false, 62, 16), "0x0");
	assert_string_equal(fint(0x123, false, 60, 16), "0x123");
	/* Every digit count, against printf's "%" PRIX64. */
	for (unsigned k = 0; k < 64; k++) {
		uint64_t vals[] = { UINT64_C(1) << k, (UINT64_C(1) << k) - 1,
				    (UINT64_C(1) << k) | UINT64_C(0xA5) };
		char tmp[32], fast[32];

		for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
			size_t n = ctf_fmt_x64(fast, vals[i]);

			fast[n] = '\0';
			snprintf(tmp, sizeof(tmp), "0x%" PRIX64, vals[i]);
			assert_string_equal(fast, tmp);
			assert_string_equal(fint(vals[i], false, 64, 16), tmp);
		}
	}
	/* The mask for every size, against the shift babeltrace2 does. */
	for (uint32_t size = 1; size <= 64; size++) {
		uint32_t rounded = (size + 3) & ~UINT32_C(3);
		uint64_t want = size == 64    ? UINT64_MAX :
				rounded == 64 ? 0 :
						(UINT64_C(1) << rounded) - 1;

		assert_true(ctf_hex_mask(size) == want);
	}
}

static void test_octal(void **state)
{
	(void)state;
	assert_string_equal(fint(0, false, 32, 8), "00");
	assert_string_equal(fint(8, false, 32, 8), "010");
	/* Signed: masked to the size rounded up to 3 bits. */
	assert_string_equal(fint((uint64_t)-1, true, 7, 8), "0777");
	assert_string_equal(fint((uint64_t)-1, true, 8, 8), "0777");
	assert_string_equal(fint((uint64_t)-1, true, 3, 8), "07");
	assert_string_equal(fint((uint64_t)-1, true, 64, 8), "01777777777777777777777");
	/* Unsigned values are not masked. */
	assert_string_equal(fint(0777, false, 7, 8), "0777");
}

static void test_binary(void **state)
{
	(void)state;
	/* Exactly `size` digits. */
	assert_string_equal(fint((uint64_t)-2, true, 9, 2), "0b111111110");
	assert_string_equal(fint(5, false, 4, 2), "0b0101");
	assert_string_equal(fint(0, false, 1, 2), "0b0");
	assert_string_equal(fint(1, false, 1, 2), "0b1");
	{
		char want[67] = "0b1";

		memset(want + 3, '0', 63);
		want[66] = '\0';
		assert_string_equal(fint(UINT64_C(1) << 63, false, 64, 2), want);
	}
}

static const char *fdbl(double v)
{
	ctf_fmt_double(&buf, v);
	return take();
}

static void test_double(void **state)
{
	volatile double zero = 0.0;

	(void)state;
	assert_string_equal(fdbl(3.14159265), "3.14159");
	assert_string_equal(fdbl(2.718281828), "2.71828");
	assert_string_equal(fdbl(1e20), "1e+20");
	assert_string_equal(fdbl(1e-300), "1e-300");
	assert_string_equal(fdbl(0.0), "0");
	assert_string_equal(fdbl(-0.0), "-0");
	assert_string_equal(fdbl(-123456789.0), "-1.23457e+08");
	assert_string_equal(fdbl(100000), "100000");
	assert_string_equal(fdbl(1234567), "1.23457e+06");
	assert_string_equal(fdbl(-0.5), "-0.5");
	assert_string_equal(fdbl(1.0 / 3), "0.333333");
	assert_string_equal(fdbl(123456.5), "123456");
	assert_string_equal(fdbl(1e-5), "1e-05");
	assert_string_equal(fdbl(0.0001), "0.0001");
	assert_string_equal(fdbl(10), "10");
	assert_string_equal(fdbl(-7), "-7");
	assert_string_equal(fdbl(999999), "999999");
	assert_string_equal(fdbl(INFINITY), "inf");
	assert_string_equal(fdbl(-INFINITY), "-inf");
	assert_string_equal(fdbl(NAN), "nan");
	assert_string_equal(fdbl(-NAN), "-nan");
	/* x86's 0.0/0.0 has the sign bit set. */
	assert_string_equal(fdbl(zero / zero), "-nan");
	assert_string_equal(fdbl((double)(float)3.14159265f), "3.14159");
	assert_string_equal(fdbl(1.875), "1.875");
	assert_string_equal(fdbl(-15.375), "-15.375");
	assert_string_equal(fdbl(12345.5), "12345.5");
	assert_string_equal(fdbl(0.0001220703125), "0.00012207");
	assert_string_equal(fdbl(99999.9375), "99999.9");

	/* Every short binary fraction against the C library's %g. */
	assert_string_equal(fdbl(24999.875), "24999.9");
	assert_string_equal(fdbl(0.5), "0.5");
	assert_string_equal(fdbl(10000.03125), "10000");
	assert_string_equal(fdbl(99999.96875), "100000");
	assert_string_equal(fdbl(12345.25), "12345.2");
	assert_string_equal(fdbl(12345.75), "12345.8");
	for (int j = 0; j <= 22; j++) {
		for (long i = -200000; i <= 200000; i += 31) {
			double v = (double)i * 37.0 / (double)(1L << j);
			char want[64];

			snprintf(want, sizeof(want), "%g", v);
			assert_string_equal(fdbl(v), want);
			snprintf(want, sizeof(want), "%g", v / 1024);
			assert_string_equal(fdbl(v / 1024), want);
		}
	}
}

static const char *fstr(const char *s, size_t len)
{
	ctf_fmt_string(&buf, s, len);
	return take();
}

static void test_escape(void **state)
{
	static const char in1[] = "a\"b\\c\nd\te\x1f?g'h\x7f";
	static const char in2[] = "\x01\x02\a\b\x1b\f\r\v\xff";
	char big[5000];
	const char *out;

	(void)state;
	assert_string_equal(fstr("hello", 5), "\"hello\"");
	assert_string_equal(fstr("", 0), "\"\"");
	assert_string_equal(fstr(in1, sizeof(in1) - 1),
			    "\"a\\\"b\\\\c\\nd\\te\\x1f\\?g\\'h\\x7f\"");
	assert_string_equal(fstr(in2, sizeof(in2) - 1), "\"\\x01\\x02\\a\\b\\e\\f\\r\\v\xff\"");
	/* UTF-8 (valid or not) passes through raw. */
	assert_string_equal(fstr("caf\xc3\xa9", 5), "\"caf\xc3\xa9\"");
	assert_string_equal(fstr("hi\"\\\n\t\x01z", 8), "\"hi\\\"\\\\\\n\\t\\x01z\"");
	/* Only len bytes are read. */
	assert_string_equal(fstr("abcdef", 3), "\"abc\"");
	/* Long runs cross the chunking. */
	memset(big, 'x', sizeof(big));
	out = fstr(big, sizeof(big));
	assert_int_equal(strlen(out), sizeof(big) + 2);
	/* Short (one-pass) and long (chunked) strings escape every byte alike. */
	for (size_t i = 0; i < 1024; i++)
		big[i] = (char)(i & 0xff);
	{
		char once[1100];
		size_t n;

		/* Every byte value once; the escaped form holds no NUL. */
		out = fstr(big, 256);
		n = strlen(out) - 2;
		assert_true(n < sizeof(once));
		memcpy(once, out + 1, n);
		out = fstr(big, 1024);
		assert_int_equal(strlen(out), 4 * n + 2);
		for (size_t k = 0; k < 4; k++)
			assert_memory_equal(out + 1 + k * n, once, n);
	}
}

static const char *fwall(struct ctf_pretty_clock *c, int64_t ns)
{
	ctf_fmt_wall(c, &buf, ns);
	return take();
}

/* 2026-12-03 08:21:54.544845565 UTC. */
#define T0 INT64_C(1796286114544845565)

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void test_time_utc(void **state)
{
	struct ctf_pretty_clock c;

	(void)state;
	set_tz("UTC");
	ctf_pretty_clock_init(&c, false, false, false, NULL);
	assert_string_equal(fwall(&c, T0), "08:21:54.544845565");
	/* Same second (cache hit) and the next one (cache miss). */
	assert_string_equal(fwall(&c, T0 + 1), "08:21:54.544845566");
	assert_string_equal(fwall(&c, T0 + 455154435), "08:21:55.000000000");
	assert_string_equal(fwall(&c, 0), "00:00:00.000000000");

	ctf_pretty_clock_init(&c, false, true, false, NULL);
	assert_string_equal(fwall(&c, T0), "2026-12-03 08:21:54.544845565");
	ctf_pretty_clock_init(&c, false, true, true, NULL);
	assert_string_equal(fwall(&c, T0), "1796286114.544845565");
	assert_string_equal(fwall(&c, -98999000000), "-98.999000000");
	assert_string_equal(fwall(&c, -5), "-0.000000005");
	assert_string_equal(fwall(&c, 7), "0.000000007");
}

static void test_time_zones(void **state)
{
	struct ctf_pretty_clock c;

	(void)state;
	if (access("/usr/share/zoneinfo/America/Montreal", R_OK) != 0 ||
	    access("/usr/share/zoneinfo/Asia/Kolkata", R_OK) != 0)
		skip();
	set_tz("America/Montreal");
	ctf_pretty_clock_init(&c, false, false, false, NULL);
	assert_string_equal(fwall(&c, T0), "03:21:54.544845565");
	/* --clock-gmt ignores TZ. */
	ctf_pretty_clock_init(&c, true, false, false, NULL);
	assert_string_equal(fwall(&c, T0), "08:21:54.544845565");
	set_tz("Asia/Kolkata");
	ctf_pretty_clock_init(&c, false, true, false, NULL);
	assert_string_equal(fwall(&c, T0), "2026-12-03 13:51:54.544845565");
	ctf_pretty_clock_init(&c, true, true, false, NULL);
	assert_string_equal(fwall(&c, T0), "2026-12-03 08:21:54.544845565");
	set_tz("UTC");
}

static void test_time_negative(void **state)
{
	struct ctf_pretty_clock c;
	char *errbuf = NULL;
	size_t errlen = 0;
	FILE *err = open_memstream(&errbuf, &errlen);

	(void)state;
	assert_non_null(err);
	set_tz("UTC");
	ctf_pretty_clock_init(&c, false, false, false, err);
	/* The first negative time falls back to seconds, with one warning... */
	assert_string_equal(fwall(&c, -98999000000), "-98.999000000");
	/* ...later ones use the absolute value through localtime (2.0.4 bug). */
	assert_string_equal(fwall(&c, -98999000000), "00:01:38.999000000");
	assert_string_equal(fwall(&c, -1), "00:00:00.000000001");
	fclose(err);
	assert_string_equal(errbuf,
			    "[warning] Fallback to [sec.ns] to print negative time value. Use "
			    "--clock-seconds.\n");
	free(errbuf);
}

static void test_delta(void **state)
{
	(void)state;
	ctf_fmt_delta(&buf, 54087);
	assert_string_equal(take(), "+0.000054087");
	ctf_fmt_delta(&buf, INT64_C(134217729000000));
	assert_string_equal(take(), "+134217.729000000");
	ctf_fmt_delta(&buf, 0);
	assert_string_equal(take(), "+0.000000000");
	/* A negative difference prints as unsigned, as in babeltrace2. */
	ctf_fmt_delta(&buf, (uint64_t)-1);
	assert_string_equal(take(), "+18446744073.709551615");
}

static void test_pad_and_uuid(void **state)
{
	static const uint8_t uuid[16] = { 0x21, 0xc4, 0x8d, 0xe8, 0x65, 0x0e, 0x44, 0x1a,
					  0x94, 0x81, 0xbb, 0x2d, 0xfb, 0x49, 0x51, 0x95 };
	char tmp[32];
	size_t n;

	(void)state;
	n = ctf_fmt_u64_pad(tmp, UINT64_C(7532973158320), 20);
	tmp[n] = '\0';
	assert_string_equal(tmp, "00000007532973158320");
	n = ctf_fmt_u64_pad(tmp, 123, 2);
	tmp[n] = '\0';
	assert_string_equal(tmp, "123");
	ctf_fmt_uuid(&buf, uuid);
	assert_string_equal(take(), "21c48de8-650e-441a-9481-bb2dfb495195");
}

/* Writes 16 bytes where the buffer says; returns where that was. */
static void *oom_writer(void *arg)
{
	struct ctf_pbuf *b = arg;
	char *p = ctf_pbuf_reserve(b, 16);

	memcpy(p, "0123456789abcdef", 16);
	b->len += 16;
	return p;
}

/*
 * After an allocation failure a buffer's writes land in a scratch area of
 * the writing thread, never one another thread may be writing: the view's
 * threads hand line buffers to each other (pretty-run.c).
 */
static void test_oom_scratch_per_thread(void **state)
{
	struct ctf_pbuf a = { 0 }, b = { 0 };
	pthread_t t;
	void *pa, *pm;

	(void)state;
	ctf_pbuf_set_oom(&a);
	ctf_pbuf_set_oom(&b);
	assert_int_equal(pthread_create(&t, NULL, oom_writer, &a), 0);
	assert_int_equal(pthread_join(t, &pa), 0);
	/* The same buffer, then written by this thread. */
	pm = oom_writer(&a);
	assert_ptr_not_equal(pa, pm);
	assert_true(a.oom);
	/* Each reserve starts over at the scratch: nothing accumulates. */
	assert_ptr_equal(oom_writer(&b), pm);
	assert_ptr_equal(oom_writer(&b), pm);
	assert_int_equal(b.len, 16);
	/* Formatters keep working, their output dropped. */
	ctf_fmt_int(&b, UINT64_MAX, false, 64, 2);
	assert_true(b.oom);
	assert_true(b.len <= 68);
	ctf_pbuf_release(&a);
	ctf_pbuf_release(&b);
	assert_false(a.oom);
	assert_null(a.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oom_scratch_per_thread),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_octal),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_time_utc),
		cmocka_unit_test(test_time_zones),
		cmocka_unit_test(test_time_negative),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_pad_and_uuid),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	ctf_pbuf_release(&buf);
	return ret;
}
