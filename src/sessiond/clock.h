/* SPDX-License-Identifier: MIT */
/*
 * The TSC -> CLOCK_MONOTONIC conversion page the daemon publishes to apps
 * (clock.c; layout and algorithm in lib/ust/clock-page.h).
 */
#ifndef STRATA_SESSIOND_CLOCK_H
#define STRATA_SESSIOND_CLOCK_H

#include "sessiond/sessiond.h"

/*
 * Create the page and start its refresh thread (d->clock); 0 without a
 * usable TSC (d->clock stays NULL: apps read clock_gettime), or -errno.
 * Afterwards ust_clock_read_monotonic_tsc() reads through it in the daemon.
 */
int sd_clock_start(struct sd_daemon *d);
/* Stop the thread, mark the page invalid for apps that outlive us, free it. */
void sd_clock_stop(struct sd_daemon *d);
/* Send the page to a newly registered app (it may be dropped: check a->in_use). */
void sd_clock_send(struct sd_daemon *d, struct sd_app *a);

#endif
