/* SPDX-License-Identifier: MIT */
/*
 * The user-space event clock.
 *
 * Three kinds, chosen per channel by whoever creates it (the daemon, so that
 * every app writing into one per-UID buffer uses the same one):
 *
 *   UST_CLOCK_TSC        raw rdtsc, ~8 ns; only where the TSC is invariant
 *                        (cpuid 0x80000007 EDX bit 8) and the kernel lists
 *                        it as an available clocksource, i.e. trusts it to
 *                        be synchronized across CPUs (a VM booted with
 *                        tsc=unstable, like this one, falls back).
 *   UST_CLOCK_MONOTONIC  clock_gettime(CLOCK_MONOTONIC) in ns, 17-26 ns;
 *                        the clock BPF uses for kernel events.
 *   UST_CLOCK_MONOTONIC_TSC  CLOCK_MONOTONIC ns computed from rdtsc through
 *                        the conversion page strata-sessiond publishes
 *                        (clock-page.h), ~10 ns; needs no kernel trust in
 *                        the TSC (the daemon checks it, and slews the line
 *                        onto CLOCK_MONOTONIC every 200 ms); falls back to
 *                        UST_CLOCK_MONOTONIC without a usable page. What
 *                        the daemon's channels use.
 *
 * The daemon samples (tsc, monotonic) pairs with ust_clock_sample(); these
 * helpers are usable by the daemon without libstrata-ust.
 */
#ifndef STRATA_UST_CLOCK_H
#define STRATA_UST_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define UST_HAVE_TSC 1
#else
#define UST_HAVE_TSC 0
#endif

enum ust_clock_kind {
	UST_CLOCK_MONOTONIC = 0,
	UST_CLOCK_TSC = 1,
	UST_CLOCK_MONOTONIC_TSC = 2,
};

struct ust_clock_page;

static inline uint64_t ust_clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * UST_CLOCK_MONOTONIC_TSC: through the page set by ust_clock_page_set(), or
 * clock_gettime() without one. Async-signal-safe, wait-free.
 */
uint64_t ust_clock_read_monotonic_tsc(void);

static inline uint64_t ust_clock_read(enum ust_clock_kind kind)
{
#if UST_HAVE_TSC
	if (kind == UST_CLOCK_TSC)
		return __rdtsc();
#endif
	if (kind == UST_CLOCK_MONOTONIC_TSC)
		return ust_clock_read_monotonic_tsc();
	return ust_clock_monotonic_ns();
}

/* The same reads as plain functions (for rb_channel_set_clock()). */
uint64_t ust_clock_read_tsc(void);
uint64_t ust_clock_read_monotonic(void);

/*
 * The conversion page UST_CLOCK_MONOTONIC_TSC reads from now on (NULL: none);
 * it must stay mapped for the life of the process (a reader on another
 * thread may still hold it). Returns the previous one.
 */
const struct ust_clock_page *ust_clock_page_set(const struct ust_clock_page *pg);

/* The TSC ticks at a constant rate (cpuid invariant TSC bit). */
bool ust_clock_tsc_invariant(void);
/* True when UST_CLOCK_TSC gives a counter synchronized across CPUs. */
bool ust_clock_tsc_usable(void);

/* The kind a new channel uses unless told otherwise. */
enum ust_clock_kind ust_clock_default_kind(void);

/*
 * One correlation point: a TSC value (0 without a TSC) and the monotonic
 * and realtime clocks read around it; the best of several tries (smallest
 * read window) is kept, and monotonic is the middle of that window.
 */
struct ust_clock_sample {
	uint64_t tsc;
	uint64_t monotonic_ns;
	uint64_t realtime_ns;
};

void ust_clock_sample(struct ust_clock_sample *ret_sample);

/*
 * A (tsc, monotonic) pair for the conversion page: the best of several
 * (monotonic, fenced rdtsc, monotonic) reads, monotonic taken as the middle
 * of the smallest window; that window in *ret_window_ns. Returns false
 * without a TSC.
 */
bool ust_clock_sample_tsc(uint64_t *ret_tsc, uint64_t *ret_mono, uint64_t *ret_window_ns);

/*
 * TSC frequency in Hz from two samples taken at least ~10 ms apart;
 * 0 when they cannot give one.
 */
uint64_t ust_clock_tsc_freq(const struct ust_clock_sample *a, const struct ust_clock_sample *b);

#endif
