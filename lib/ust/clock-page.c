/* SPDX-License-Identifier: MIT */
/* The daemon's side of the conversion page: see clock-page.h. */
#include <string.h>

#include "ust/clock-page.h"

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;

void ust_clock_calib_init(struct ust_clock_calib *c, uint64_t period_ns)
{
	memset(c, 0, sizeof(*c));
	c->period_ns = period_ns;
}

uint64_t ust_clock_calib_at(const struct ust_clock_calib *c, uint64_t tsc)
{
	return c->mono_base +
	       (uint64_t)(((u128)(tsc - c->tsc_base) * c->mult) >> UST_CLOCK_PAGE_SHIFT);
}

uint64_t ust_clock_calib_ticks(const struct ust_clock_calib *c, uint64_t ns)
{
	u128 t;

	if (!c->rate)
		return 0;
	t = ((u128)ns << UST_CLOCK_PAGE_SHIFT) / c->rate;
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

uint64_t ust_clock_calib_ns(const struct ust_clock_calib *c, uint64_t ticks)
{
	return (uint64_t)(((u128)ticks * c->rate) >> UST_CLOCK_PAGE_SHIFT);
}

static void hist_reset(struct ust_clock_calib *c)
{
	c->nr_hist = 0;
	c->hist_head = 0;
}

static void hist_push(struct ust_clock_calib *c, uint64_t tsc, uint64_t mono)
{
	c->hist[c->hist_head].tsc = tsc;
	c->hist[c->hist_head].mono = mono;
	c->hist_head = (c->hist_head + 1) % UST_CLOCK_CALIB_HISTORY;
	if (c->nr_hist < UST_CLOCK_CALIB_HISTORY)
		c->nr_hist++;
}

/* The line to publish next: anchored at (tsc, mono), or continuing the published one. */
static void line_next(struct ust_clock_calib *c, bool anchored, uint64_t tsc, uint64_t mono,
		      uint64_t mult)
{
	c->next_anchored = anchored;
	c->next_tsc = tsc;
	c->next_mono = mono;
	c->next_mult = mult;
	c->pending = true;
}

/* A reset keeps the TSC rate (a jump moves the counter, not its frequency). */
static enum ust_clock_calib_event reset(struct ust_clock_calib *c, uint64_t tsc, uint64_t mono,
					enum ust_clock_calib_event why)
{
	hist_reset(c);
	hist_push(c, tsc, mono);
	c->last_error_ns = 0;
	if (!c->rate) {
		c->have_line = false;
		c->pending = false;
		return UST_CLOCK_CALIB_NONE;
	}
	line_next(c, true, tsc, mono, c->rate);
	c->resets++;
	return why;
}

enum ust_clock_calib_event ust_clock_calib_update(struct ust_clock_calib *c, uint64_t tsc,
						  uint64_t mono_ns)
{
	uint32_t newest, oldest;
	uint64_t dt, dns, rate, period_ticks, max_corr;
	int64_t err;
	s128 corr;

	if (!c->nr_hist) {
		hist_push(c, tsc, mono_ns);
		return UST_CLOCK_CALIB_NONE;
	}
	newest = (c->hist_head + UST_CLOCK_CALIB_HISTORY - 1) % UST_CLOCK_CALIB_HISTORY;
	if (tsc <= c->hist[newest].tsc || mono_ns <= c->hist[newest].mono)
		return reset(c, tsc, mono_ns, UST_CLOCK_CALIB_RESET_BACKWARDS);
	oldest = (c->hist_head + UST_CLOCK_CALIB_HISTORY - c->nr_hist) % UST_CLOCK_CALIB_HISTORY;
	dt = tsc - c->hist[oldest].tsc;
	dns = mono_ns - c->hist[oldest].mono;
	rate = c->rate;
	if (dns >= 1000000) { /* shorter baselines are all sampling noise */
		u128 r = ((u128)dns << UST_CLOCK_PAGE_SHIFT) / dt;

		rate = r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
		/* The history no longer describes one counter: it jumped. */
		if (c->rate && (rate > c->rate + c->rate / 1000 || rate < c->rate - c->rate / 1000))
			return reset(c, tsc, mono_ns, UST_CLOCK_CALIB_RESET_RATE);
	}
	hist_push(c, tsc, mono_ns);
	if (!rate)
		return UST_CLOCK_CALIB_NONE;
	c->rate = rate;
	if (!c->have_line) {
		line_next(c, true, tsc, mono_ns, rate);
		c->last_error_ns = 0;
		return UST_CLOCK_CALIB_START;
	}
	err = (int64_t)(mono_ns - ust_clock_calib_at(c, tsc));
	c->last_error_ns = err;
	if (err > (int64_t)UST_CLOCK_STEP_NS || err < -(int64_t)UST_CLOCK_STEP_NS) {
		line_next(c, true, tsc, mono_ns, rate);
		c->resets++;
		return UST_CLOCK_CALIB_RESET_ERROR;
	}
	/* Meet the true clock one period from now, within the slew bound. */
	period_ticks = ust_clock_calib_ticks(c, c->period_ns);
	corr = period_ticks ? (s128)err * ((s128)1 << UST_CLOCK_PAGE_SHIFT) / (s128)period_ticks :
			      0;
	max_corr = (uint64_t)((u128)rate * UST_CLOCK_SLEW_PPM / 1000000);
	if (corr > (s128)max_corr)
		corr = (s128)max_corr;
	else if (corr < -(s128)max_corr)
		corr = -(s128)max_corr;
	line_next(c, false, 0, 0, (uint64_t)((s128)rate + corr));
	return UST_CLOCK_CALIB_SLEW;
}

void ust_clock_calib_commit(struct ust_clock_calib *c, uint64_t tsc_now)
{
	if (!c->pending)
		return;
	c->pending = false;
	if (c->next_anchored || !c->have_line) {
		c->tsc_base = c->next_tsc;
		c->mono_base = c->next_mono;
	} else {
		/* Continue exactly where the published line is now. */
		c->mono_base = ust_clock_calib_at(c, tsc_now);
		c->tsc_base = tsc_now;
	}
	c->mult = c->next_mult;
	c->have_line = true;
}

void ust_clock_page_init(struct ust_clock_page *pg)
{
	memset(pg, 0, sizeof(*pg));
	pg->version = UST_CLOCK_PAGE_VERSION;
	pg->size = sizeof(*pg);
	/* The magic last: an app that sees it sees a complete header. */
	__atomic_store_n(&pg->magic, UST_CLOCK_PAGE_MAGIC, __ATOMIC_RELEASE);
}

void ust_clock_page_publish(struct ust_clock_page *pg, struct ust_clock_calib *c, bool valid,
			    uint64_t (*read_tsc)(void))
{
	uint32_t s = __atomic_load_n(&pg->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&pg->seq, s + 1, __ATOMIC_RELAXED);
	/*
	 * pairs with the reader's acquire fence before its second seq load;
	 * seq_cst also makes the odd seq visible before read_tsc() runs, so a
	 * reader that still accepts the old line read its TSC before tsc_now
	 * and stays below the new line's start.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ust_clock_calib_commit(c, read_tsc());
	valid = valid && c->have_line && c->rate;
	__atomic_store_n(&pg->valid, valid ? 1u : 0u, __ATOMIC_RELAXED);
	if (valid) {
		__atomic_store_n(&pg->tsc_base, c->tsc_base, __ATOMIC_RELAXED);
		__atomic_store_n(&pg->mono_base, c->mono_base, __ATOMIC_RELAXED);
		__atomic_store_n(&pg->mult, c->mult, __ATOMIC_RELAXED);
		__atomic_store_n(
			&pg->max_delta,
			ust_clock_calib_ticks(c, c->period_ns * UST_CLOCK_PAGE_STALE_PERIODS),
			__ATOMIC_RELAXED);
	}
	__atomic_store_n(&pg->resets, c->resets, __ATOMIC_RELAXED);
	/* pairs with the reader's first load-acquire of seq */
	__atomic_store_n(&pg->seq, s + 2, __ATOMIC_RELEASE);
}
