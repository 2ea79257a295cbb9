/* SPDX-License-Identifier: MIT */
/*
 * The TSC -> CLOCK_MONOTONIC conversion page.
 *
 * Kernel events are stamped with bpf_ktime_get_ns() (CLOCK_MONOTONIC) and
 * several apps share one per-UID buffer, so every user-space timestamp must
 * be CLOCK_MONOTONIC nanoseconds computed the same way by every app. Reading
 * that clock costs ~26 ns here (kvm-clock vDSO; the VM boots with
 * tsc=unstable, so the kernel offers no TSC clocksource); rdtsc costs 8 ns.
 * strata-sessiond therefore publishes a piecewise-linear map from the TSC
 * to CLOCK_MONOTONIC in one page (a memfd sent to each app, mapped read-only)
 * and refreshes it every UST_CLOCK_PAGE_PERIOD_NS:
 *
 *         seq (odd while the daemon writes)  valid  tsc_base  mono_base  mult  max_delta
 *
 *   ns(tsc) = mono_base + ((tsc - tsc_base) * mult) >> UST_CLOCK_PAGE_SHIFT
 *                                   for tsc - tsc_base in [-UST_CLOCK_PAGE_BACK_TICKS, max_delta]
 *
 *   mono ^                                  true CLOCK_MONOTONIC
 *        |                          ....../
 *        |                   ......'   ,-'  line k+1: starts where line k is at
 *        |            ......'       ,-'     refresh k+1, slope chosen to meet
 *        |     ......'          ,-'         the true clock at refresh k+2
 *        |..../..............,-'
 *        |  line k       refresh k+1          refresh k+2
 *        +-----------------------------------------------------> tsc
 *
 * Refresh (daemon, ust_clock_calib_update()): sample (tsc, monotonic) with
 * the smallest read window; the old line's value there becomes the new
 * mono_base (continuity: no step), and the new slope is the measured TSC
 * rate plus the error divided by one period, clamped to +-UST_CLOCK_SLEW_PPM
 * (the clock slews, always forward). An error beyond UST_CLOCK_STEP_NS, the
 * TSC or the clock going backwards, or a TSC rate that jumps (VM restore)
 * resets the line onto the sample: the one step, logged by the daemon. TSCs
 * that disagree across CPUs make the page invalid.
 *
 * Reader (app, ust_clock_page_convert()): no syscall, no lock, the TSC read
 * inside the seqcount window, at most UST_CLOCK_PAGE_READ_TRIES attempts (a daemon killed mid-update
 * leaves seq odd forever); whenever the page is absent, invalid, being
 * written, or the TSC lies outside the line's range (stale: the daemon
 * stopped refreshing; behind: a TSC jump backwards) it says so and the
 * caller falls back to clock_gettime(CLOCK_MONOTONIC). A TSC slightly behind
 * tsc_base (an unfenced rdtsc executed a little early, or another CPU's
 * TSC a little behind) maps to mono_base, which every reading of the
 * previous line is below: timestamps never go backwards across a refresh. The
 * fallback itself agrees with the line within the calibration error
 * (< 1 us here); only a reset steps.
 *
 * Memory ordering: the writer stores seq odd, a release fence, the fields,
 * then seq even with release; the reader loads seq with acquire, the
 * fields, an acquire fence, and seq again (the Linux seqcount pairs).
 */
#ifndef STRATA_UST_CLOCK_PAGE_H
#define STRATA_UST_CLOCK_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#define UST_CLOCK_PAGE_MAGIC 0x4b435453u /* "STCK" */
#define UST_CLOCK_PAGE_VERSION 1
#define UST_CLOCK_PAGE_SIZE 4096 /* the memfd's size */
#define UST_CLOCK_PAGE_SHIFT 32
#define UST_CLOCK_PAGE_READ_TRIES 4
/* TSC ticks before tsc_base still mapped (to mono_base): ~25 us at 2.6 GHz. */
#define UST_CLOCK_PAGE_BACK_TICKS (1ull << 16)

#define UST_CLOCK_PAGE_PERIOD_NS 200000000ull /* refresh every 200 ms */
#define UST_CLOCK_PAGE_STALE_PERIODS 5 /* a line serves 1 s past its start */
#define UST_CLOCK_SLEW_PPM 500 /* like adjtime(3) */
#define UST_CLOCK_STEP_NS 1000000ull /* a larger error resets the line */
#define UST_CLOCK_CPU_SPREAD_NS 5000ull /* TSCs of two CPUs disagree beyond this */

struct ust_clock_page {
	uint32_t magic; /* UST_CLOCK_PAGE_MAGIC; the rest is valid once seen */
	uint16_t version; /* UST_CLOCK_PAGE_VERSION */
	uint16_t size; /* sizeof(struct ust_clock_page) */
	uint32_t seq; /* seqcount: odd while the daemon writes */
	uint32_t valid; /* 0: use clock_gettime(CLOCK_MONOTONIC) */
	uint64_t tsc_base;
	uint64_t mono_base; /* ns */
	uint64_t mult; /* ns per TSC tick << UST_CLOCK_PAGE_SHIFT */
	uint64_t max_delta; /* TSC ticks past tsc_base the line stays usable */
	uint64_t resets; /* informative: line resets since the daemon started */
};

/*
 * Read the TSC with read_tsc() and map it through the page; true and
 * *ret_ns on success, false when the caller must read CLOCK_MONOTONIC
 * itself (see the header comment). The TSC is read inside the seqcount
 * window: a thread preempted there while the daemon republishes retries
 * with a fresh TSC instead of landing behind the new line. Async-signal-
 * safe, wait-free.
 */
static inline __attribute__((always_inline)) bool
ust_clock_page_convert(const struct ust_clock_page *pg, uint64_t (*read_tsc)(void),
		       uint64_t *ret_ns)
{
	__extension__ typedef unsigned __int128 u128;

	for (int i = 0; i < UST_CLOCK_PAGE_READ_TRIES; i++) {
		/* pairs with the writer's final store-release of seq */
		uint32_t s = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE);
		uint64_t base, mono, mult, max, d, tsc;
		uint32_t valid;

		if (__builtin_expect(s & 1, 0))
			continue;
		tsc = read_tsc();
		valid = __atomic_load_n(&pg->valid, __ATOMIC_RELAXED);
		base = __atomic_load_n(&pg->tsc_base, __ATOMIC_RELAXED);
		mono = __atomic_load_n(&pg->mono_base, __ATOMIC_RELAXED);
		mult = __atomic_load_n(&pg->mult, __ATOMIC_RELAXED);
		max = __atomic_load_n(&pg->max_delta, __ATOMIC_RELAXED);
		/* pairs with the writer's release fence after seq turned odd */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__builtin_expect(__atomic_load_n(&pg->seq, __ATOMIC_RELAXED) != s, 0))
			continue;
		if (__builtin_expect(!valid, 0))
			return false;
		d = tsc - base;
		if (__builtin_expect(d > max, 0)) {
			if (base - tsc > UST_CLOCK_PAGE_BACK_TICKS)
				return false; /* stale, or far behind */
			d = 0;
		}
		*ret_ns = mono + (uint64_t)(((u128)d * mult) >> UST_CLOCK_PAGE_SHIFT);
		return true;
	}
	return false;
}

/*
 * The daemon's side: the line and what it learned, in process memory; it
 * copies the line into the shared page under the seqcount
 * (ust_clock_page_publish()). Pure arithmetic on the samples it is given,
 * so that it can be tested without a TSC.
 */
#define UST_CLOCK_CALIB_HISTORY 16 /* rate over the last ~3 s of refreshes */

enum ust_clock_calib_event {
	UST_CLOCK_CALIB_NONE = 0, /* not calibrated yet (first sample) */
	UST_CLOCK_CALIB_SLEW, /* the line continues, slope adjusted */
	UST_CLOCK_CALIB_START, /* first line */
	UST_CLOCK_CALIB_RESET_BACKWARDS, /* TSC or monotonic went backwards */
	UST_CLOCK_CALIB_RESET_RATE, /* the TSC rate jumped */
	UST_CLOCK_CALIB_RESET_ERROR, /* the line was off by more than UST_CLOCK_STEP_NS */
};

struct ust_clock_calib {
	uint64_t period_ns;
	/* the published line (once have_line) */
	bool have_line;
	uint64_t tsc_base, mono_base, mult;
	/* the next line, set by an update, installed by the commit */
	bool pending, next_anchored; /* not anchored: continue the published line */
	uint64_t next_tsc, next_mono, next_mult;
	/* measured rate: ns per tick << UST_CLOCK_PAGE_SHIFT */
	uint64_t rate;
	/* the error corrected by the last update (for the daemon's log) */
	int64_t last_error_ns;
	uint64_t resets;
	struct {
		uint64_t tsc, mono;
	} hist[UST_CLOCK_CALIB_HISTORY];
	uint32_t nr_hist, hist_head;
};

void ust_clock_calib_init(struct ust_clock_calib *c, uint64_t period_ns);
/* The line's value at tsc (tsc at or after tsc_base). */
uint64_t ust_clock_calib_at(const struct ust_clock_calib *c, uint64_t tsc);
/*
 * Feed one (tsc, monotonic) sample taken now: measures the rate and the
 * published line's error, and prepares the next line; what will happen.
 */
enum ust_clock_calib_event ust_clock_calib_update(struct ust_clock_calib *c, uint64_t tsc,
						  uint64_t mono_ns);
/*
 * Install the prepared line at tsc_now (a TSC read after the page turned
 * odd): a slewed line starts at the published line's value there, so no
 * reader of the old line can have seen a later time.
 */
void ust_clock_calib_commit(struct ust_clock_calib *c, uint64_t tsc_now);
/* TSC ticks in ns (rounded down) at the measured rate; 0 before calibration. */
uint64_t ust_clock_calib_ticks(const struct ust_clock_calib *c, uint64_t ns);
/* ns in TSC ticks at the measured rate (rounded down). */
uint64_t ust_clock_calib_ns(const struct ust_clock_calib *c, uint64_t ticks);

/* Daemon: write the page header (magic, version, size) once, invalid. */
void ust_clock_page_init(struct ust_clock_page *pg);
/*
 * Daemon: under the seqcount, commit c's prepared line at read_tsc() and
 * publish it (valid), or mark the page invalid.
 */
void ust_clock_page_publish(struct ust_clock_page *pg, struct ust_clock_calib *c, bool valid,
			    uint64_t (*read_tsc)(void));
/* App: the page is one this code can read. */
static inline bool ust_clock_page_check(const struct ust_clock_page *pg)
{
	/* pairs with the store-release of magic in ust_clock_page_init() */
	return __atomic_load_n(&pg->magic, __ATOMIC_ACQUIRE) == UST_CLOCK_PAGE_MAGIC &&
	       pg->version == UST_CLOCK_PAGE_VERSION && pg->size >= sizeof(*pg);
}

#endif
