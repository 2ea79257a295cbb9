/* SPDX-License-Identifier: MIT */
/*
 * The kernel domain of strata-sessiond: kernel tracepoints and syscalls
 * recorded by eBPF (no kernel module), with contexts captured in the kernel at
 * event time, delivered as CTF-encodable records.
 *
 * Shape (DESIGN.md §5):
 * - One kernel_tracer per daemon. It loads the BPF recorder once, attaches a
 *   tracepoint on its first enable and keeps the attachment for its whole life:
 *   detaching costs ~130 ms per tracepoint in the kernel, so enable, disable,
 *   start and stop are map writes, and kernel_tracer_destroy() hands the
 *   attachments to a background process that detaches them.
 * - Up to KERNEL_MAX_CHANNELS channels (over all sessions). A channel has one
 *   BPF ring buffer per CPU and one consumer thread, which calls the channel's
 *   record callback. Streams: one per CPU, plus one for the statedump.
 * - Timestamps are CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns), the clock
 *   user-space events use.
 *
 * Thread-safety: the tracer and channel functions may be called from any one
 * control thread at a time; the record callback runs on the channel's consumer
 * thread and must not call back into this API except kernel_channel_discarded().
 *
 * Errors: >= 0 or -errno; -STRATA_EUNSUPPORTED for a feature this kernel or
 * build lacks. Functions taking `char *why` fill it with a user-facing reason.
 */
#ifndef STRATA_SESSIOND_KERNEL_H
#define STRATA_SESSIOND_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_MAX_CHANNELS 4
#define KERNEL_MAX_COUNTERS 8 /* distinct perf counters open at once, over all channels */

struct kernel_tracer;
struct kernel_channel;

/*
 * Whether kernel tracing can work here: root (CAP_BPF/CAP_PERFMON), tracefs
 * mounted, kernel BTF, BPF tracepoint programs, and a build with BPF support.
 * Returns 0, or a negative error with `why` naming what is missing and how to
 * fix it (e.g. "tracefs is not mounted: run 'mount -t tracefs nodev
 * /sys/kernel/tracing'").
 */
int kernel_check(char *why, size_t len);

/* Load the recorder. kernel_check() failures are returned as is. */
int kernel_tracer_create(struct kernel_tracer **ret, char *why, size_t len);

/*
 * Release everything. Channels must be destroyed first. The tracepoint
 * attachments are detached by a forked background process, so this returns in
 * milliseconds whatever the number of attached tracepoints.
 */
void kernel_tracer_destroy(struct kernel_tracer *kt);

/* Number of tracepoints currently attached (kept for the tracer's life). */
unsigned int kernel_tracer_nr_attached(const struct kernel_tracer *kt);

/*
 * Call cb once per event the tracer can record: every tracepoint
 * ("sched_switch") when syscalls is false, else every syscall name ("openat").
 * Stops and returns cb's value when it returns non-zero.
 */
int kernel_tracer_list(struct kernel_tracer *kt, bool syscalls,
		       int (*cb)(void *opaque, const char *system, const char *name), void *opaque);

struct kernel_channel_attr {
	uint64_t subbuf_size; /* consumer wakeup threshold; default 1 MiB */
	uint32_t num_subbuf; /* ring size per CPU = subbuf_size * num_subbuf; default 4 */
	/* Flight-recorder mode: the BPF ring still drops new records when full
	 * (it cannot overwrite); the record callback's owner keeps only the
	 * newest sub-buffers (src/sessiond/trace-kernel.c). */
	bool overwrite;
	uint32_t read_timer_us; /* consumer poll period for the tail; default 200 ms */
};

/* One event, ready to be written after a CTF event header. */
struct kernel_record {
	uint32_t stream; /* CPU number, or kernel_channel_nr_streams() - 1: statedump */
	uint32_t event_id; /* CTF event id in this channel */
	uint64_t timestamp; /* CLOCK_MONOTONIC ns */
	const uint8_t *context; /* stream event context, encoded as the metadata declares */
	size_t context_len;
	const uint8_t *payload; /* event fields, encoded as the metadata declares */
	size_t payload_len;
};

typedef void (*kernel_record_cb)(void *opaque, const struct kernel_record *rec);

/* Create a stopped channel; attr may be NULL for defaults. */
int kernel_channel_create(struct kernel_tracer *kt, const char *name,
			  const struct kernel_channel_attr *attr, kernel_record_cb cb, void *opaque,
			  struct kernel_channel **ret, char *why, size_t len);

/* Stop, drain and release the channel (its rings and consumer thread). */
void kernel_channel_destroy(struct kernel_channel *ch);

enum kernel_event_type {
	KERNEL_EVENT_TRACEPOINT, /* tracepoints (sched_switch, 'sched_*', '*') */
	KERNEL_EVENT_SYSCALL, /* syscalls by name ('openat', '*'): entry and exit */
	KERNEL_EVENT_ALL, /* both, plus the statedump events */
	/* Probes (probe.c): one rule per record name, at a location. */
	KERNEL_EVENT_PROBE, /* kprobe at SYM[+OFF] or 0xADDR: NAME (ip) */
	KERNEL_EVENT_FUNCTION, /* kernel function SYM or 0xADDR: NAME_entry, NAME_return */
	KERNEL_EVENT_USERSPACE_PROBE, /* uprobe at elf:PATH:FUNC or sdt:PATH:PROVIDER:NAME */
	KERNEL_EVENT_USERSPACE_FUNCTION, /* elf:PATH:FUNC: NAME_entry, NAME_return */
};

/*
 * Enable events matching a glob pattern (NULL = all of that type). Tracepoint
 * names may be qualified "system:name". Attaches tracepoints not attached yet.
 * "All tracepoints" leaves out syscalls:* and raw_syscalls:*, which the
 * syscall events already cover (name them explicitly to get them). The
 * syscall name "unknown" (included by "*") selects syscall_entry/exit_unknown:
 * numbers missing from the build's table and ia32 syscalls, with their id.
 * Returns the number of events matched (>= 1), or -ENOENT when none did.
 */
int kernel_channel_enable_event(struct kernel_channel *ch, const char *pattern,
				enum kernel_event_type type, char *why, size_t len);
int kernel_channel_disable_event(struct kernel_channel *ch, const char *pattern,
				 enum kernel_event_type type);

/*
 * Filtered rules (`enable-event -k --filter EXPR`). Enable the events that
 * pattern and type select (as kernel_channel_enable_event()) under a rule
 * whose filter decides, in the eBPF program and before anything is written
 * to a ring buffer, whether each hit is recorded. bc/bc_len is bytecode
 * from flt_compile() (lib/filter/filter.h), validated here. A channel ORs
 * its rules on an event; an event also enabled by
 * kernel_channel_enable_event() (a rule without filter) is recorded
 * whatever the filters say. As in LTTng's kernel tracer, a rule records
 * nothing of an event its filter cannot read: a field the event lacks,
 * floating-point numbers, $app contexts, kernel contexts other than pid,
 * tid, ppid, vpid, vtid, vppid, prio, nice, procname and cpu_id. The
 * statedump events, written by the daemon rather than the eBPF program,
 * are left out of filtered rules (enable them without a filter).
 * Returns the rule's id (>= 0) for kernel_channel_remove_filter(), or
 * -EINVAL (invalid bytecode), -E2BIG (more than 64 instructions or 256
 * bytes of strings: too long for the kernel), -ENOSPC (16 filtered rules
 * per channel), -ENOENT (no event matches), each with why filled.
 * Works while the channel records (map updates only).
 */
int kernel_channel_add_filter(struct kernel_channel *ch, const char *pattern,
			      enum kernel_event_type type, const void *bc, size_t bc_len, char *why,
			      size_t len);

/*
 * Remove a filtered rule: its events stay enabled only where another rule
 * enables them. kernel_channel_disable_event() leaves filtered rules alone.
 * -ENOENT: no such rule.
 */
int kernel_channel_remove_filter(struct kernel_channel *ch, int rule);

/*
 * Trackers (`track|untrack -k`), per channel: the daemon gives every
 * channel of a session that session's trackers. A hit is recorded only if
 * its process passes every attribute's policy:
 *   ALL   every process (the default)
 *   SET   processes whose id is one of ids[0, n)
 *   NONE  no process
 * Ids, checked in the eBPF program on every hit: pid and vpid are the
 * process (thread group) id in the root and in the task's pid namespace;
 * uid/gid the real ids in the root user namespace, vuid/vgid in the
 * task's (65534 where a namespace cannot map them). SET replaces the
 * previous set; new ids are added before old ones go, so that an id in
 * both sets is never missed. Map writes only: works while recording.
 * -EINVAL (bad attribute or policy), -E2BIG (too many ids: 4096 over all
 * channels), why filled.
 */
enum kernel_tracker_attr {
	KERNEL_TRACKER_PID,
	KERNEL_TRACKER_VPID,
	KERNEL_TRACKER_UID,
	KERNEL_TRACKER_VUID,
	KERNEL_TRACKER_GID,
	KERNEL_TRACKER_VGID,
};

enum kernel_tracker_policy {
	KERNEL_TRACKER_ALL,
	KERNEL_TRACKER_SET,
	KERNEL_TRACKER_NONE,
};

int kernel_channel_set_tracker(struct kernel_channel *ch, enum kernel_tracker_attr attr,
			       enum kernel_tracker_policy policy, const uint32_t *ids, size_t n,
			       char *why, size_t len);

/*
 * Check a probe location before any rule exists: the ELF function or USDT
 * probe is found, the kernel symbol exists and the kernel lets strata
 * attach to it (a trial attachment, closed again). 0, or -errno with why
 * naming what is wrong: for kernel functions on a kernel that refuses them,
 * every way tried and the kernel feature each lacks.
 */
int kernel_probe_check(struct kernel_tracer *kt, enum kernel_event_type type, const char *location,
		       char *why, size_t len);

/*
 * Record the probe rule name at location (KERNEL_EVENT_PROBE and after):
 * attached now, detached when the channel is destroyed. Enabling a rule the
 * channel has again (same name and location) re-enables it; -EEXIST when
 * the name is taken by another location.
 */
int kernel_channel_enable_probe(struct kernel_channel *ch, const char *name,
				enum kernel_event_type type, const char *location, char *why,
				size_t len);
/* Stop recording the probe rule name (it stays attached); -ENOENT if none. */
int kernel_channel_disable_probe(struct kernel_channel *ch, const char *name);

/*
 * Check a context name as kernel_channel_add_context() will take it (a perf
 * counter is opened on every CPU, then closed): 0, or -errno with why.
 */
int kernel_context_check(const char *name, char *why, size_t len);

/*
 * Add a context: pid, tid, procname, ppid, vpid, vtid, vppid, prio, nice,
 * hostname, or a perf counter with LTTng's names (lib/common/context-names.h:
 * perf:cpu:NAME, perf:NAME, perf:cpu:raw:rNNN:NAME). The channel opens its
 * counters on every CPU (shared with channels recording the same one) and
 * closes them when destroyed; at most KERNEL_MAX_COUNTERS distinct ones are open
 * at once over all channels. Counters the machine cannot open fail with a
 * reason. Only before start.
 */
int kernel_channel_add_context(struct kernel_channel *ch, const char *name, char *why, size_t len);

/*
 * Start recording, then take the statedump (if its events are enabled) on the
 * statedump stream; returns once the statedump is delivered.
 */
int kernel_channel_start(struct kernel_channel *ch);

/*
 * Stop recording and deliver every record still in the rings before
 * returning, those of program runs still in flight at the stop included.
 * A negative error other than from the drain (-EINVAL: a nohz_full kernel)
 * means the runs in flight could not be waited for: a record of one may be
 * delivered after this returns.
 */
int kernel_channel_stop(struct kernel_channel *ch);

unsigned int kernel_channel_nr_streams(const struct kernel_channel *ch);

/*
 * Events lost on a stream since the channel was created: ring full, plus (on
 * stream 0) events the kernel dropped because a BPF program was already
 * running on that CPU (recursion_misses).
 */
uint64_t kernel_channel_discarded(struct kernel_channel *ch, unsigned int stream);

/* Name of event id in this channel ("sched_switch"), or NULL. */
const char *kernel_channel_event_name(const struct kernel_channel *ch, uint32_t id);

/* Whether the channel's stream uses event_header_compact (< 31 events at start). */
bool kernel_channel_compact_header(const struct kernel_channel *ch);

/* What the metadata's trace, env and clock blocks say. */
struct kernel_trace_info {
	uint8_t uuid[16]; /* trace uuid */
	const char *hostname;
	const char *trace_name;
	const char *creation_datetime; /* "YYYYmmddTHHMMSS+hhmm" */
	const char *clock_uuid; /* boot id, "xxxxxxxx-xxxx-..." */
	int64_t clock_offset; /* realtime - monotonic, ns */
};

/*
 * The complete TSDL metadata of the kernel/ trace holding these channels;
 * channel i is stream id i. *ret is malloc'ed. Call it again after enabling
 * events while started: new events are appended with new ids.
 */
int kernel_metadata(struct kernel_channel *const *chans, size_t n,
		    const struct kernel_trace_info *info, char **ret);

/* Whether name is a syscall of the build's table ("getpgid"). */
bool kernel_syscall_exists(const char *name);

/*
 * Tests only: every entry record of syscall_name spins ns in the recorder
 * between its program reading the channel state and the ring commit (0 ns:
 * off), so that a test can stop a channel while a record is in flight.
 * -ENOENT: no such syscall.
 */
int kernel_tracer_test_delay(struct kernel_tracer *kt, const char *syscall_name, uint64_t ns);

#endif
