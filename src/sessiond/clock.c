/* SPDX-License-Identifier: MIT */
/*
 * The TSC -> CLOCK_MONOTONIC conversion page (lib/ust/clock-page.h): one
 * sealed memfd for the daemon's life, sent to every app when it registers
 * (STRATA_UST_MSG_CLOCK), refreshed by one thread every
 * UST_CLOCK_PAGE_PERIOD_NS. The daemon's own consumer stamps packet ends
 * through the same page, so that they agree with the apps' records.
 *
 * The thread alone writes the page and the calibration; the event loop only
 * reads the fd. Every UST_CLOCK_CPU_CHECK_EVERY refreshes the thread takes a
 * sample on each CPU it may run on: TSCs that disagree by more than
 * UST_CLOCK_CPU_SPREAD_NS make the page invalid (apps then read
 * clock_gettime) until they agree again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sessiond/app.h"
#include "sessiond/clock.h"
#include "ust/clock-page.h"
#include "ust/clock.h"
#include "common/log.h"
#include "common/common.h"

#define UST_CLOCK_CPU_CHECK_EVERY 5 /* refreshes: once a second */
#define UST_CLOCK_FIRST_BASELINE_MS 20

struct sd_clock {
	int fd; /* the memfd apps receive */
	struct ust_clock_page *page; /* our writable mapping */
	int stop_fd; /* eventfd: the thread returns */
	pthread_t thread;
	bool running;
	struct ust_clock_calib calib; /* the thread's */
	bool cpus_agree;
	uint64_t refreshes;
};

static uint64_t read_tsc_fenced(void)
{
#if UST_HAVE_TSC
	_mm_lfence();
	return __rdtsc();
#else
	return 0;
#endif
}

static const char *event_name(enum ust_clock_calib_event ev)
{
	switch (ev) {
	case UST_CLOCK_CALIB_RESET_BACKWARDS:
		return "tsc-or-clock-went-backwards";
	case UST_CLOCK_CALIB_RESET_RATE:
		return "tsc-rate-jumped";
	case UST_CLOCK_CALIB_RESET_ERROR:
		return "error-too-large";
	default:
		return "none";
	}
}

/* true when the thread was asked to stop during the wait. */
static bool wait_stop(struct sd_clock *k, int ms)
{
	struct pollfd p = { .fd = k->stop_fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

/*
 * Offsets of each allowed CPU's TSC against the clock, relative to the
 * first one; their spread in *ret_spread. false if it could not sample.
 */
static bool cpu_spread(struct sd_clock *k, uint64_t *ret_spread)
{
	int64_t lo = 0, hi = 0;
	uint64_t t0 = 0, m0 = 0;
	bool first = true;
	cpu_set_t all, one;

	if (pthread_getaffinity_np(pthread_self(), sizeof(all), &all) != 0)
		return false;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		uint64_t t, m, w;
		int64_t off;

		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0 ||
		    !ust_clock_sample_tsc(&t, &m, &w))
			continue;
		if (first) {
			t0 = t;
			m0 = m;
			first = false;
			continue;
		}
		/* Clock time minus TSC time since the first CPU's sample. */
		off = (int64_t)(m - m0) - (int64_t)ust_clock_calib_ns(&k->calib, t - t0);
		lo = MIN(lo, off);
		hi = MAX(hi, off);
	}
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	if (first)
		return false;
	*ret_spread = (uint64_t)(hi - lo);
	return true;
}

static void refresh(struct sd_clock *k)
{
	enum ust_clock_calib_event ev;
	uint64_t tsc, mono, window, spread;

	if (!ust_clock_sample_tsc(&tsc, &mono, &window))
		return;
	ev = ust_clock_calib_update(&k->calib, tsc, mono);
	if (ev == UST_CLOCK_CALIB_NONE)
		return;
	if (ev == UST_CLOCK_CALIB_START)
		log_info("TSC clock: %llu Hz, apps stamp CLOCK_MONOTONIC from the TSC",
			 (unsigned long long)ust_clock_calib_ticks(&k->calib, 1000000000u));
	else if (ev != UST_CLOCK_CALIB_SLEW)
		log_warn("Reset the TSC clock line: reason=%s error_ns=%lld resets=%llu",
			 event_name(ev), (long long)k->calib.last_error_ns,
			 (unsigned long long)k->calib.resets);
	if (ev == UST_CLOCK_CALIB_START || k->refreshes % UST_CLOCK_CPU_CHECK_EVERY == 0) {
		if (cpu_spread(k, &spread)) {
			bool agree = spread <= UST_CLOCK_CPU_SPREAD_NS;

			if (!agree && (k->cpus_agree || ev == UST_CLOCK_CALIB_START))
				log_warn("CPUs' TSCs disagree: spread_ns=%llu; apps stamp with "
					 "clock_gettime until they agree",
					 (unsigned long long)spread);
			else if (agree && !k->cpus_agree && ev != UST_CLOCK_CALIB_START)
				log_info("CPUs' TSCs agree again: spread_ns=%llu",
					 (unsigned long long)spread);
			k->cpus_agree = agree;
		}
	}
	k->refreshes++;
	ust_clock_page_publish(k->page, &k->calib, k->cpus_agree, read_tsc_fenced);
}

static void *clock_thread(void *arg)
{
	struct sd_clock *k = arg;
	int period_ms = (int)(UST_CLOCK_PAGE_PERIOD_NS / 1000000);

	/* Two samples a short baseline apart give the first rate. */
	refresh(k);
	if (wait_stop(k, UST_CLOCK_FIRST_BASELINE_MS))
		return NULL;
	refresh(k);
	while (!wait_stop(k, period_ms))
		refresh(k);
	return NULL;
}

int sd_clock_start(struct sd_daemon *d)
{
	struct sd_clock *k;
	void *map = MAP_FAILED;
	int r;

	if (!ust_clock_tsc_invariant())
		return 0; /* apps keep clock_gettime */
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->stop_fd = -1;
	k->fd = memfd_create("strata-clock", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (k->fd < 0 || ftruncate(k->fd, UST_CLOCK_PAGE_SIZE) < 0)
		goto err_errno;
	map = mmap(NULL, UST_CLOCK_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, 0);
	if (map == MAP_FAILED)
		goto err_errno;
	/* Our mapping stays writable; apps can map it read-only only. */
	if (fcntl(k->fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) < 0)
		goto err_errno;
	k->page = map;
	ust_clock_page_init(k->page);
	ust_clock_calib_init(&k->calib, UST_CLOCK_PAGE_PERIOD_NS);
	k->cpus_agree = true;
	k->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (k->stop_fd < 0)
		goto err_errno;
	r = -pthread_create(&k->thread, NULL, clock_thread, k);
	if (r < 0)
		goto err;
	k->running = true;
	ust_clock_page_set(k->page);
	d->clock = k;
	return 0;
err_errno:
	r = -errno;
err:
	if (map != MAP_FAILED)
		munmap(map, UST_CLOCK_PAGE_SIZE);
	if (k->fd >= 0)
		close(k->fd);
	if (k->stop_fd >= 0)
		close(k->stop_fd);
	free(k);
	return r;
}

void sd_clock_stop(struct sd_daemon *d)
{
	struct sd_clock *k = d->clock;
	uint64_t one = 1;

	if (!k)
		return;
	if (k->running) {
		if (write(k->stop_fd, &one, sizeof(one)) != sizeof(one)) {
			/* The thread still writes the page: leave it all be. */
			log_warn("Failed to stop the clock thread: %s", strerror(errno));
			return;
		}
		pthread_join(k->thread, NULL);
	}
	/* Apps that outlive us fall back to clock_gettime at once. */
	ust_clock_page_publish(k->page, &k->calib, false, read_tsc_fenced);
	ust_clock_page_set(NULL);
	munmap(k->page, UST_CLOCK_PAGE_SIZE);
	close(k->fd);
	close(k->stop_fd);
	free(k);
	d->clock = NULL;
}

void sd_clock_send(struct sd_daemon *d, struct sd_app *a)
{
	struct strata_ust_clock m = {
		.hdr.type = STRATA_UST_MSG_CLOCK,
		.page_size = UST_CLOCK_PAGE_SIZE,
		.version = UST_CLOCK_PAGE_VERSION,
	};
	if (!d->clock)
		return;
	/* An app that cannot map it answers an error and reads clock_gettime. */
	sd_app_queue(d, a, &m, sizeof(m), &d->clock->fd, 1);
}
