/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "ust/clock.h"
#include "ust/clock-page.h"

#include "common/common.h"

/*
 * The kernel lists "tsc" as an available clocksource only while it trusts
 * the TSC to be synchronized across CPUs (tsc=unstable or a failed sync
 * check removes it).
 */
static bool kernel_trusts_tsc(void)
{
	char buf[256] = { 0 };
	const char *p;
	ssize_t n;
	int fd;

	fd = open("/sys/devices/system/clocksource/clocksource0/available_clocksource",
		  O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	for (p = buf; (p = strstr(p, "tsc")); p += 3)
		if ((p == buf || p[-1] == ' ') && (p[3] == ' ' || p[3] == '\n' || p[3] == '\0'))
			return true;
	return false;
}

bool ust_clock_tsc_invariant(void)
{
#if UST_HAVE_TSC
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx))
		return false;
	return (edx & (1u << 8)) != 0;
#else
	return false;
#endif
}

bool ust_clock_tsc_usable(void)
{
	return ust_clock_tsc_invariant() && kernel_trusts_tsc();
}

uint64_t ust_clock_read_tsc(void)
{
	return ust_clock_read(UST_CLOCK_TSC);
}

uint64_t ust_clock_read_monotonic(void)
{
	return ust_clock_monotonic_ns();
}

static const struct ust_clock_page *clock_page;

const struct ust_clock_page *ust_clock_page_set(const struct ust_clock_page *pg)
{
	/* pairs with the load-acquire in ust_clock_read_monotonic_tsc() */
	return __atomic_exchange_n(&clock_page, pg, __ATOMIC_ACQ_REL);
}

#if UST_HAVE_TSC
/* Plain rdtsc: the ring buffer reads the clock after write_pos (its ordering window). */
static inline uint64_t read_tsc(void)
{
	return __rdtsc();
}
#endif

uint64_t ust_clock_read_monotonic_tsc(void)
{
#if UST_HAVE_TSC
	/* pairs with the exchange in ust_clock_page_set() */
	const struct ust_clock_page *pg = __atomic_load_n(&clock_page, __ATOMIC_ACQUIRE);
	uint64_t ns;

	if (__builtin_expect(pg != NULL, 1) && ust_clock_page_convert(pg, read_tsc, &ns))
		return ns;
#endif
	return ust_clock_monotonic_ns();
}

enum ust_clock_kind ust_clock_default_kind(void)
{
	return ust_clock_tsc_usable() ? UST_CLOCK_TSC : UST_CLOCK_MONOTONIC;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The best of tries (monotonic, TSC, [realtime], monotonic) reads: the one
 * with the smallest window, monotonic taken as its middle. Returns the
 * window in ns, UINT64_MAX when no read was usable.
 */
static uint64_t sample_best(int tries, bool realtime, struct ust_clock_sample *ret)
{
	uint64_t best_window = UINT64_MAX;

	for (int i = 0; i < tries; i++) {
		uint64_t m0, m1, r = 0, t = 0;

		m0 = ust_clock_monotonic_ns();
#if UST_HAVE_TSC
		/* Fenced both ways: the TSC is read between the two clock reads. */
		_mm_lfence();
		t = __rdtsc();
		_mm_lfence();
#endif
		if (realtime)
			r = realtime_ns();
		m1 = ust_clock_monotonic_ns();
		if (m1 >= m0 && m1 - m0 < best_window) {
			best_window = m1 - m0;
			ret->tsc = t;
			ret->monotonic_ns = m0 + (m1 - m0) / 2;
			ret->realtime_ns = r;
		}
	}
	return best_window;
}

void ust_clock_sample(struct ust_clock_sample *ret_sample)
{
	*ret_sample = (struct ust_clock_sample){ 0 };
	/* LTTng keeps the best of 10 (monotonic, realtime, monotonic) reads. */
	sample_best(10, true, ret_sample);
}

bool ust_clock_sample_tsc(uint64_t *ret_tsc, uint64_t *ret_mono, uint64_t *ret_window_ns)
{
#if UST_HAVE_TSC
	struct ust_clock_sample s = { 0 };
	uint64_t window = sample_best(16, false, &s);

	if (window == UINT64_MAX)
		return false;
	*ret_tsc = s.tsc;
	*ret_mono = s.monotonic_ns;
	*ret_window_ns = window;
	return true;
#else
	(void)ret_tsc;
	(void)ret_mono;
	(void)ret_window_ns;
	return false;
#endif
}

uint64_t ust_clock_tsc_freq(const struct ust_clock_sample *a, const struct ust_clock_sample *b)
{
	uint64_t dt, dns;

	if (b->monotonic_ns <= a->monotonic_ns || b->tsc <= a->tsc)
		return 0;
	dt = b->tsc - a->tsc;
	dns = b->monotonic_ns - a->monotonic_ns;
	if (dns < 1000000)
		return 0;
	__extension__ typedef unsigned __int128 u128;

	return (uint64_t)((u128)dt * 1000000000u / dns);
}
