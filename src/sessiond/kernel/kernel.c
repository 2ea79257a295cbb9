/* SPDX-License-Identifier: MIT */
/* The kernel domain's API (kernel.h): availability, tracer, channels, events, contexts. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <strata/error.h>

#include "common/context-names.h"
#include "kernel-internal.h"
#include "syscalls.h"

#include "common/common.h"

_Static_assert(KERNEL_MAX_COUNTERS == KR_MAX_CTR, "kernel.h and recorder-abi.h disagree");

#define KT_DEFAULT_SUBBUF (1u << 20)
#define KT_DEFAULT_NUM_SUBBUF 4
#define KT_MAX_RING (1u << 30)
#define KT_OVERWRITE_MIN_RING (4u << 20)

static const char *const kt_statedump_names[] = {
	"lttng_statedump_start",
	"lttng_statedump_process_state",
	"lttng_statedump_file_descriptor",
	"lttng_statedump_end",
};

static void kt_why(char *why, size_t len, const char *fmt, ...) _printf_(3, 4);
static void kt_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int kernel_check(char *why, size_t len)
{
	char tracefs[256];

	if (geteuid() != 0) {
		kt_why(why, len,
		       "Kernel tracing needs root (CAP_BPF, CAP_PERFMON): run strata-sessiond as "
		       "root");
		return -EPERM;
	}
	if (kt_tracefs_find(tracefs, sizeof(tracefs)) < 0) {
		kt_why(why, len,
		       "tracefs is not mounted: run 'mount -t tracefs nodev /sys/kernel/tracing'");
		return -ENOENT;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		kt_why(why, len,
		       "Kernel BTF is missing (/sys/kernel/btf/vmlinux): kernel tracing needs a "
		       "kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
#ifndef STRATA_HAVE_BPF
	kt_why(why, len,
	       "strata was built without BPF support: install clang, bpftool and libbpf-dev, "
	       "then rebuild");
	return -STRATA_EUNSUPPORTED;
#else
	return 0;
#endif
}

int kernel_tracer_create(struct kernel_tracer **ret, char *why, size_t len)
{
	struct kernel_tracer *kt;
	long ncpu;
	int err;

	err = kernel_check(why, len);
	if (err)
		return err;
	kt = calloc(1, sizeof(*kt));
	if (!kt)
		return -ENOMEM;
	kt->sc_link[0] = kt->sc_link[1] = -1;
	kt->self = getpid();
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	kt->ncpu = ncpu > 0 && ncpu <= KR_MAX_CPU ? (unsigned int)ncpu : 1;
	err = kt_tracefs_find(kt->tracefs, sizeof(kt->tracefs));
	if (!err)
		err = kt_tracefs_list(kt->tracefs, &kt->tps);
	if (err) {
		kt_why(why, len, "Failed to list kernel tracepoints: %s", strerror(-err));
		goto err;
	}
	if (kt->tps.n > KR_MAX_TP)
		kt->tps.n = KR_MAX_TP; /* the rest stays unlisted (never seen: 2305 here) */
	kt->tp_link = malloc(MAX(kt->tps.n, 1) * sizeof(*kt->tp_link));
	if (!kt->tp_link) {
		err = -ENOMEM;
		goto err;
	}
	for (size_t i = 0; i < kt->tps.n; i++)
		kt->tp_link[i] = -1;
	err = kt_rec_open(kt, why, len);
	if (err)
		goto err;
	*ret = kt;
	return 0;
err:
	kernel_tracer_destroy(kt);
	return err;
}

void kernel_tracer_destroy(struct kernel_tracer *kt)
{
	if (!kt)
		return;
	if (kt->skel)
		kt_rec_detach_all(kt);
	kt_rec_close(kt);
	for (size_t k = 0; k < KR_MAX_KEYS; k++) {
		struct kt_class *c = atomic_load(&kt->classes[k]);

		if (c) {
			kt_class_release(c);
			free(c);
		}
	}
	free(kt->tp_link);
	kt_tracepoint_list_release(&kt->tps);
	free(kt);
}

unsigned int kernel_tracer_nr_attached(const struct kernel_tracer *kt)
{
	return kt->nattached;
}

int kernel_tracer_list(struct kernel_tracer *kt, bool syscalls,
		       int (*cb)(void *opaque, const char *system, const char *name), void *opaque)
{
	int r;

	if (syscalls) {
		for (unsigned int i = 0; i < kt_nsyscalls; i++)
			if ((r = cb(opaque, "syscalls", kt_syscalls[i].name)))
				return r;
		return 0;
	}
	for (size_t i = 0; i < kt->tps.n; i++)
		if ((r = cb(opaque, kt->tps.tp[i].system, kt->tps.tp[i].name)))
			return r;
	for (size_t i = 0; i < ARRAY_SIZE(kt_statedump_names); i++)
		if ((r = cb(opaque, "lttng_statedump", kt_statedump_names[i])))
			return r;
	return 0;
}

int kernel_channel_create(struct kernel_tracer *kt, const char *name,
			  const struct kernel_channel_attr *attr, kernel_record_cb cb, void *opaque,
			  struct kernel_channel **ret, char *why, size_t len)
{
	struct kernel_channel_attr a = attr ? *attr : (struct kernel_channel_attr){ 0 };
	struct kernel_channel *ch;
	unsigned int slot;
	uint64_t ring = 4096;
	int err;

	for (slot = 0; slot < KR_MAX_CHAN && kt->chans[slot]; slot++)
		;
	if (slot == KR_MAX_CHAN) {
		kt_why(why, len, "At most %d kernel channels can exist at once", KR_MAX_CHAN);
		return -EMFILE;
	}
	if (!a.subbuf_size)
		a.subbuf_size = KT_DEFAULT_SUBBUF;
	if (!a.num_subbuf)
		a.num_subbuf = KT_DEFAULT_NUM_SUBBUF;
	if (a.subbuf_size > KT_MAX_RING || a.num_subbuf > KT_MAX_RING ||
	    a.subbuf_size * a.num_subbuf > KT_MAX_RING) {
		kt_why(why, len, "Kernel channel buffers are limited to %u MiB per CPU",
		       KT_MAX_RING >> 20);
		return -E2BIG;
	}
	/* BPF rings are a power of two of at least a page. In overwrite mode the
	 * ring only carries records to the consumer, which keeps the newest
	 * sub-buffers: a small ring would drop the newest records of a burst,
	 * so it gets room for one. */
	if (a.overwrite)
		ring = KT_OVERWRITE_MIN_RING;
	while (ring < a.subbuf_size * a.num_subbuf)
		ring <<= 1;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->kt = kt;
	ch->slot = slot;
	ch->attr = a;
	ch->cb = cb;
	ch->opaque = opaque;
	snprintf(ch->name, sizeof(ch->name), "%s", name ? name : "channel0");
	for (size_t k = 0; k < KR_MAX_KEYS; k++)
		atomic_init(&ch->id_of_key[k], -1);
	err = kt_rec_rings_create(kt, slot, ring, MIN(a.subbuf_size, ring / 2), &ch->ring_fds);
	if (err) {
		kt_why(why, len, "Failed to create the kernel ring buffers: %s", strerror(-err));
		free(ch);
		return err;
	}
	err = kt_consumer_start(ch);
	if (err) {
		kt_why(why, len, "Failed to start the kernel consumer: %s", strerror(-err));
		kt_rec_rings_destroy(kt, slot, ch->ring_fds);
		free(ch);
		return err;
	}
	/* Per session: what an earlier channel of this slot lost is not ours. */
	kt_rec_lost_reset(kt, slot);
	ch->recursion_base = kt_rec_recursion_misses(kt);
	kt->chans[slot] = ch;
	*ret = ch;
	return 0;
}

void kernel_channel_destroy(struct kernel_channel *ch)
{
	if (!ch)
		return;
	kernel_channel_stop(ch);
	kt_filter_channel_release(ch);
	for (uint32_t k = 0; k < KR_MAX_KEYS; k++)
		if (ch->enabled[k])
			kt_rec_set_enabled(ch->kt, ch->slot, k, false);
	kt_rec_set_host(ch->kt, ch->slot, false);
	kt_consumer_stop(ch);
	kt_probes_release(ch);
	kt_rec_set_counters(ch->kt, ch->slot, 0);
	for (unsigned int s = 0; s < KR_MAX_CTR; s++)
		if (ch->ctr_mask & (1U << s))
			kt_rec_counter_put(ch->kt, s);
	kt_rec_rings_destroy(ch->kt, ch->slot, ch->ring_fds);
	ch->kt->chans[ch->slot] = NULL;
	free(ch);
}

/* Create and publish the class of key once; classes are shared by channels. */
static int kt_ensure_class(struct kernel_tracer *kt, uint32_t key)
{
	struct kt_class *c;
	int err;

	if (atomic_load_explicit(&kt->classes[key], memory_order_acquire))
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (key < KR_MAX_TP) {
		struct kt_format f;

		err = kt_format_read(kt->tracefs, kt->tps.tp[key].system, kt->tps.tp[key].name, &f);
		if (!err) {
			err = kt_rec_attach_tp(kt, key, &f);
			if (!err)
				err = kt_class_from_format(&f, key, c);
			else
				kt_format_release(&f);
		}
	} else if (key >= KR_KEY_PROBE) {
		err = -ENOENT; /* probe classes are published by probe.c first */
	} else if (key >= KR_KEY_STATEDUMP_START) {
		err = kt_class_statedump(key, c);
	} else {
		err = kt_rec_attach_syscalls(kt);
		if (!err)
			err = kt_class_syscall(key, c);
	}
	if (err) {
		free(c);
		return err;
	}
	/* Pairs with the acquire loads of the consumer (consumer.c). */
	atomic_store_explicit(&kt->classes[key], c, memory_order_release);
	return 0;
}

int kt_key_prepare(struct kernel_channel *ch, uint32_t key)
{
	int err = kt_ensure_class(ch->kt, key);

	if (err)
		return err;
	if (atomic_load(&ch->id_of_key[key]) < 0) {
		unsigned int id = atomic_load(&ch->nids);

		ch->key_of_id[id] = key;
		atomic_store_explicit(&ch->nids, id + 1, memory_order_release);
		atomic_store_explicit(&ch->id_of_key[key], (int32_t)id, memory_order_release);
	}
	return 0;
}

/* The unfiltered rule of key (enable-event without --filter). */
static int kt_enable_key(struct kernel_channel *ch, uint32_t key, void *opaque)
{
	bool on = *(const bool *)opaque;
	int err;

	if (!on) {
		if (ch->enabled[key]) {
			ch->enabled[key] = false;
			kt_filter_sync_key(ch, key);
		}
		return 0;
	}
	err = kt_key_prepare(ch, key);
	if (err)
		return err;
	ch->enabled[key] = true;
	kt_filter_sync_key(ch, key);
	return 0;
}

int kt_channel_set_key(struct kernel_channel *ch, uint32_t key, bool on)
{
	return kt_enable_key(ch, key, &on);
}

static bool kt_match(const char *pattern, const char *system, const char *name)
{
	char full[256];

	if (!pattern)
		return true;
	if (strchr(pattern, ':')) {
		snprintf(full, sizeof(full), "%s:%s", system, name);
		return fnmatch(pattern, full, 0) == 0;
	}
	return fnmatch(pattern, name, 0) == 0;
}

/* Whether tracepoint i is one the pattern enables (all of them when NULL, syscalls aside). */
static bool kt_tp_selected(const struct kernel_tracer *kt, const char *pattern, size_t i)
{
	if (!kt_match(pattern, kt->tps.tp[i].system, kt->tps.tp[i].name))
		return false;
	return pattern || (strcmp(kt->tps.tp[i].system, "syscalls") &&
			   strcmp(kt->tps.tp[i].system, "raw_syscalls"));
}

int kt_for_each_key(struct kernel_channel *ch, const char *pattern, enum kernel_event_type type,
		    kt_key_fn fn, void *opaque, char *why, size_t len)
{
	struct kernel_tracer *kt = ch->kt;
	int matched = 0, last_err = 0;
	const char *failed = NULL;

	if (pattern && (!strcmp(pattern, "*") || !*pattern))
		pattern = NULL;
	if (type != KERNEL_EVENT_SYSCALL) {
		for (size_t i = 0; i < kt->tps.n; i++) {
			int err;

			if (!kt_tp_selected(kt, pattern, i))
				continue;
			err = fn(ch, (uint32_t)i, opaque);
			if (err) {
				/* One odd tracepoint must not fail --all: report the last one. */
				last_err = err;
				failed = kt->tps.tp[i].name;
				continue;
			}
			matched++;
		}
		for (size_t i = 0; i < ARRAY_SIZE(kt_statedump_names); i++) {
			if (!kt_match(pattern, "lttng_statedump", kt_statedump_names[i]))
				continue;
			if (!fn(ch, KR_KEY_STATEDUMP_START + (uint32_t)i, opaque))
				matched++;
		}
	}
	if (type != KERNEL_EVENT_TRACEPOINT) {
		for (unsigned int i = 0; i < kt_nsyscalls; i++) {
			const struct kt_syscall *sc = &kt_syscalls[i];
			int err;

			if (sc->nr < 0 || sc->nr >= KR_MAX_SC ||
			    !kt_match(pattern, "syscalls", sc->name))
				continue;
			err = fn(ch, KR_KEY_SC_ENTRY + (uint32_t)sc->nr, opaque);
			if (!err)
				err = fn(ch, KR_KEY_SC_EXIT + (uint32_t)sc->nr, opaque);
			if (err) {
				last_err = err;
				failed = sc->name;
				continue;
			}
			matched++;
		}
		/* Numbers outside the table, and ia32 syscalls: syscall_*_unknown. */
		if (kt_match(pattern, "syscalls", "unknown") &&
		    !fn(ch, KR_KEY_SC_ENTRY_UNKNOWN, opaque) &&
		    !fn(ch, KR_KEY_SC_EXIT_UNKNOWN, opaque))
			matched++;
	}
	if (!matched) {
		if (failed)
			kt_why(why, len, "Failed to enable kernel event '%s': %s", failed,
			       strerror(-last_err));
		else
			kt_why(why, len, "No kernel %s matches '%s' (see 'strata list -k%s')",
			       type == KERNEL_EVENT_SYSCALL ? "syscall" : "event",
			       pattern ? pattern : "*",
			       type == KERNEL_EVENT_SYSCALL ? " --syscall" : "");
		return last_err ? last_err : -ENOENT;
	}
	return matched;
}

int kernel_channel_enable_event(struct kernel_channel *ch, const char *pattern,
				enum kernel_event_type type, char *why, size_t len)
{
	bool on = true;

	return kt_for_each_key(ch, pattern, type, kt_enable_key, &on, why, len);
}

int kernel_channel_disable_event(struct kernel_channel *ch, const char *pattern,
				 enum kernel_event_type type)
{
	bool on = false;

	return kt_for_each_key(ch, pattern, type, kt_enable_key, &on, NULL, 0);
}

int kernel_channel_add_context(struct kernel_channel *ch, const char *name, char *why, size_t len)
{
	struct ctx_perf perf;
	struct kt_ctx c;
	int err;

	if (ch->frozen) {
		kt_why(why, len,
		       "Contexts cannot be added to a kernel channel once it has started");
		return -EBUSY;
	}
	if (ch->nctx == KT_MAX_CTX) {
		kt_why(why, len, "At most %d contexts per kernel channel", KT_MAX_CTX);
		return -E2BIG;
	}
	err = kt_context_parse(name, &c, &perf, why, len);
	if (err)
		return err;
	for (unsigned int i = 0; i < ch->nctx; i++)
		if (!strcmp(ch->ctx[i].field, c.field))
			return 0; /* already there: adding twice is harmless */
	if (c.type == KT_CTX_PERF) {
		err = kt_rec_counter_get(ch->kt, perf.type, perf.config, name, &c.ctr, why, len);
		if (err)
			return err;
		/* perf:cpu:X and perf:X share the slot: the channel holds it once. */
		if (ch->ctr_mask & (1U << c.ctr))
			kt_rec_counter_put(ch->kt, c.ctr);
		ch->ctr_mask |= 1U << c.ctr;
		kt_rec_set_counters(ch->kt, ch->slot, ch->ctr_mask);
	}
	if (c.type == KT_CTX_HOSTNAME)
		kt_rec_set_host(ch->kt, ch->slot, true);
	ch->ctx[ch->nctx++] = c;
	return 0;
}

int kernel_channel_start(struct kernel_channel *ch)
{
	if (ch->started)
		return 0;
	if (!ch->frozen) {
		/* LTTng's rule: compact headers when fewer than 31 events exist at start. */
		ch->compact = atomic_load(&ch->nids) < 31;
		ch->frozen = true;
	}
	ch->started = true;
	kt_rec_set_active(ch->kt, ch->slot, true);
	/* Recording is live before the walk: nothing falls between dump and trace. */
	return kt_consumer_sync(ch, true);
}

/*
 * Stop: clear the channel's bit in kr_active, wait out the programs that may
 * have read it set, then drain the rings once more.
 *
 * A record reaches a ring in one bpf_ringbuf_output() (reserve, copy,
 * commit) inside a program run that read kr_active first, and the store
 * that clears the bit does not wait for runs in flight: a program on
 * another CPU that read the bit before the store can commit after the
 * consumer's final drain. Its record would then be delivered by the
 * consumer's timer while the channel is stopped (into packet buffers that
 * the control thread is writing out, trace-kernel.c) and reach the files
 * only at the next stop. The window is a program run (microseconds) unless
 * its vCPU is preempted; tests/e2e/session-kernel-stop.sh widens it with
 * STRATA_SESSIOND_TEST_RECORD_DELAY.
 *
 * Every tracepoint program run (trace_call_bpf(), and the tracepoint call
 * around it) is an RCU read-side critical section, so an RCU grace period
 * after the store closes the window: MEMBARRIER_CMD_GLOBAL is
 * synchronize_rcu(). A run that began before the grace period has finished,
 * its commit included; one that begins after it sees the bit clear (RCU's
 * ordering guarantee) and records nothing. The drain that follows, whose
 * request the consumer takes after the grace period (kt_consumer_request()
 * pairs through its mutex), finds every record of the session in the
 * rings. Detaching the programs would give the same guarantee, at ~130 ms
 * per tracepoint (README.md).
 *
 * Kernels booted with nohz_full refuse MEMBARRIER_CMD_GLOBAL (EINVAL): the
 * rings are still drained, and the error is returned so that the caller
 * can say a late record may follow.
 */
int kernel_channel_stop(struct kernel_channel *ch)
{
	int ret = 0, err;

	if (!ch->started)
		return 0;
	ch->started = false;
	kt_rec_set_active(ch->kt, ch->slot, false);
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		ret = -errno;
	err = kt_consumer_sync(ch, false);
	return err < 0 ? err : ret;
}

int kernel_tracer_test_delay(struct kernel_tracer *kt, const char *syscall_name, uint64_t ns)
{
	const struct kt_syscall *sc = kt_syscall_by_name(syscall_name);

	if (!sc)
		return -ENOENT;
	kt_rec_set_test_delay(kt, KR_KEY_SC_ENTRY + (uint32_t)sc->nr, ns);
	return 0;
}

bool kernel_syscall_exists(const char *name)
{
	return kt_syscall_by_name(name) != NULL;
}

unsigned int kernel_channel_nr_streams(const struct kernel_channel *ch)
{
	return ch->kt->ncpu + 1;
}

uint64_t kernel_channel_discarded(struct kernel_channel *ch, unsigned int stream)
{
	uint64_t n = 0;

	if (stream < ch->kt->ncpu)
		n = kt_rec_lost(ch->kt, ch->slot, stream);
	if (stream == 0)
		n += kt_rec_recursion_misses(ch->kt) - ch->recursion_base;
	return n;
}

const char *kernel_channel_event_name(const struct kernel_channel *ch, uint32_t id)
{
	const struct kt_class *c;

	if (id >= atomic_load_explicit(&ch->nids, memory_order_acquire))
		return NULL;
	c = atomic_load_explicit(&ch->kt->classes[ch->key_of_id[id]], memory_order_acquire);
	return c ? c->name : NULL;
}

bool kernel_channel_compact_header(const struct kernel_channel *ch)
{
	return ch->frozen ? ch->compact : atomic_load(&ch->nids) < 31;
}
