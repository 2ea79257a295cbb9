/* SPDX-License-Identifier: MIT */
/*
 * Built when clang, bpftool, libbpf or kernel BTF were missing at build time:
 * kernel_check() already reports that, so these are never reached through the
 * API; they keep the library linkable for the daemon.
 */
#include <errno.h>
#include <stdio.h>

#include <strata/error.h>

#include "kernel-internal.h"

#include "common/common.h"

int kt_rec_open(struct kernel_tracer *kt _unused_, char *why, size_t len)
{
	snprintf(why, len, "strata was built without BPF support");
	return -STRATA_EUNSUPPORTED;
}

void kt_rec_close(struct kernel_tracer *kt _unused_)
{
}

int kt_rec_attach_tp(struct kernel_tracer *kt _unused_, unsigned int idx _unused_,
		     const struct kt_format *f _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

int kt_rec_attach_syscalls(struct kernel_tracer *kt _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

void kt_rec_set_enabled(struct kernel_tracer *kt _unused_, unsigned int slot _unused_,
			uint32_t key _unused_, bool on _unused_)
{
}

void kt_rec_set_active(struct kernel_tracer *kt _unused_, unsigned int slot _unused_,
		       bool on _unused_)
{
}

void kt_rec_set_test_delay(struct kernel_tracer *kt _unused_, uint32_t key _unused_,
			   uint64_t ns _unused_)
{
}

void kt_rec_set_perf_passthrough(struct kernel_tracer *kt _unused_, bool on _unused_)
{
}

void kt_rec_set_host(struct kernel_tracer *kt _unused_, unsigned int slot _unused_,
		     bool on _unused_)
{
}

int kt_rec_rings_create(struct kernel_tracer *kt _unused_, unsigned int slot _unused_,
			uint64_t size _unused_, uint64_t wake _unused_, int **ret_fds _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

void kt_rec_rings_destroy(struct kernel_tracer *kt _unused_, unsigned int slot _unused_,
			  int *fds _unused_)
{
}

int kt_rec_counter_get(struct kernel_tracer *kt _unused_, uint32_t type _unused_,
		       uint64_t config _unused_, const char *name _unused_,
		       unsigned int *ret_slot _unused_, char *why, size_t len)
{
	snprintf(why, len, "strata was built without BPF support");
	return -STRATA_EUNSUPPORTED;
}

void kt_rec_counter_put(struct kernel_tracer *kt _unused_, unsigned int slot _unused_)
{
}

void kt_rec_set_counters(struct kernel_tracer *kt _unused_, unsigned int chan_slot _unused_,
			 unsigned int mask _unused_)
{
}

int kt_rec_probe_desc(struct kernel_tracer *kt _unused_, uint32_t key _unused_,
		      unsigned int flags _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

int kt_rec_attach_uprobe(struct kernel_tracer *kt _unused_, uint32_t key _unused_,
			 const char *path _unused_, uint64_t offset _unused_,
			 uint64_t ref_ctr_offset _unused_, bool ret _unused_, char *why, size_t len)
{
	snprintf(why, len, "strata was built without BPF support");
	return -STRATA_EUNSUPPORTED;
}

int kt_rec_attach_kprobe(struct kernel_tracer *kt _unused_, uint32_t key _unused_,
			 const char *sym _unused_, uint64_t addr _unused_, uint64_t offset _unused_,
			 bool ret _unused_, char *why, size_t len)
{
	snprintf(why, len, "strata was built without BPF support");
	return -STRATA_EUNSUPPORTED;
}

uint64_t kt_rec_lost(struct kernel_tracer *kt _unused_, unsigned int slot _unused_,
		     unsigned int cpu _unused_)
{
	return 0;
}

void kt_rec_run_stats(struct kernel_tracer *kt _unused_, uint64_t *ret_runs, uint64_t *ret_ns)
{
	*ret_runs = *ret_ns = 0;
}

void kt_rec_lost_reset(struct kernel_tracer *kt _unused_, unsigned int slot _unused_)
{
}

uint64_t kt_rec_recursion_misses(struct kernel_tracer *kt _unused_)
{
	return 0;
}

void kt_rec_detach_all(struct kernel_tracer *kt _unused_)
{
}

void kt_rec_reap_links(int *links _unused_, size_t n _unused_, size_t min _unused_)
{
}

int kt_consumer_start(struct kernel_channel *ch _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

int kt_consumer_sync(struct kernel_channel *ch _unused_, bool statedump _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

void kt_consumer_stop(struct kernel_channel *ch _unused_)
{
}

uint64_t kt_consumer_wakeups(const struct kernel_channel *ch _unused_)
{
	return 0;
}

int kt_rec_map_update(struct kernel_tracer *kt _unused_, enum kt_map map _unused_,
		      const void *key _unused_, const void *value _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

int kt_rec_map_delete(struct kernel_tracer *kt _unused_, enum kt_map map _unused_,
		      const void *key _unused_)
{
	return -STRATA_EUNSUPPORTED;
}

struct kf_globals *kt_rec_kf_globals(struct kernel_tracer *kt _unused_)
{
	return NULL;
}
