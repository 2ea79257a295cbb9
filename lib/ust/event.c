/* SPDX-License-Identifier: MIT */
/*
 * The fast path: strata_ust_event_reserve()/commit_next(), called by every
 * generated probe, and the per-process / per-thread context values.
 *
 * No lock, no allocation, no output. The only system calls are the first
 * event of a thread caching its tid and name (gettid, prctl), once.
 * Thread-local state uses the initial-exec TLS model so that a TLS access
 * is one %fs-relative load, not a __tls_get_addr call.
 *
 * Every context but "ip" is constant for a thread, so a thread keeps the
 * context bytes of the last channel it recorded into (tls_ctx_*) and
 * copies them in one go; the ring buffer backend is called directly, not
 * through its ops.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ust/backend-ringbuf.h"
#include "ust/ust-internal.h"

#include "filter/filter.h"

#include "common/common.h"

#define UST_TLS __thread __attribute__((tls_model("initial-exec")))

/* Nesting (signal handlers tracing inside a probe) beyond this drops. */
#define UST_MAX_NESTING 4

static UST_TLS int32_t tls_vtid;
static UST_TLS int tls_nesting;
static UST_TLS char tls_procname[UST_PROCNAME_LEN];
static UST_TLS int tls_procname_cached;

/* The context bytes of tls_ctx_chan (channels are never freed). */
static UST_TLS const struct ust_channel *tls_ctx_chan;
static UST_TLS uint8_t tls_ctx_bytes[UST_CTX_BYTES_MAX] __attribute__((aligned(16)));

static int32_t cached_vpid;
static uint32_t cached_vuid, cached_vgid;

int ust_debug_enabled;

static inline int32_t ctx_vtid(void)
{
	if (__builtin_expect(!tls_vtid, 0))
		tls_vtid = (int32_t)syscall(SYS_gettid);
	return tls_vtid;
}

static inline const char *ctx_procname(void)
{
	if (__builtin_expect(!tls_procname_cached, 0)) {
		char name[UST_PROCNAME_LEN] = { 0 };

		/* PR_GET_NAME writes at most 16 bytes including the NUL. */
		if (prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0) != 0)
			name[0] = '\0';
		memcpy(tls_procname, name, sizeof(tls_procname));
		tls_procname[UST_PROCNAME_LEN - 1] = '\0';
		tls_procname_cached = 1;
	}
	return tls_procname;
}

static inline int32_t ctx_vpid(void)
{
	int32_t pid = __atomic_load_n(&cached_vpid, __ATOMIC_RELAXED);

	if (__builtin_expect(!pid, 0)) {
		pid = (int32_t)getpid();
		__atomic_store_n(&cached_vpid, pid, __ATOMIC_RELAXED);
	}
	return pid;
}

/*
 * Per-thread perf counters (perf:thread:NAME contexts). A thread opens each
 * counter its channels record at its first record that needs it, for
 * itself only (perf_event_open(pid 0, cpu -1)), and maps the counter's
 * first page; reading it then takes no system call where the PMU lets
 * user space count (rdpmc, with the page's sequence protocol), and one
 * read(2) otherwise (software counters: page faults, context switches).
 *
 *   thread: tls_perf[0..tls_nperf) = { (type, config), fd, page }
 *           opened lazily (first record), closed at thread exit (the key's
 *           destructor) and in a forked child (whose counters were the
 *           parent thread's)
 *
 * A counter that cannot be opened (no PMU, too many open files, a full
 * table of UST_PERF_MAX per thread) reads 0 in every record; nothing
 * blocks, nothing aborts. perf_event_open and mmap are async-signal-safe
 * system calls: a probe in a signal handler may open one.
 */
#define UST_PERF_MAX 16

struct ust_perf_counter {
	uint32_t type;
	uint64_t config;
	int fd; /* -1: not available, reads 0 */
	struct perf_event_mmap_page *pg; /* NULL: read(2) */
};

static UST_TLS struct ust_perf_counter tls_perf[UST_PERF_MAX];
static UST_TLS uint32_t tls_nperf;
static pthread_key_t perf_key;
static bool perf_key_ok;

static void perf_close_all(void)
{
	long page = sysconf(_SC_PAGESIZE);

	for (uint32_t i = 0; i < tls_nperf; i++) {
		if (tls_perf[i].pg)
			munmap(tls_perf[i].pg, (size_t)page);
		if (tls_perf[i].fd >= 0)
			close(tls_perf[i].fd);
	}
	tls_nperf = 0;
}

static void perf_thread_exit(void *unused)
{
	(void)unused;
	perf_close_all();
}

static int perf_open(const struct ust_perf_ctx *pc)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = pc->type, .config = pc->config, .exclude_hv = 1
	};
	int fd, saved = errno;

	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		/* perf_event_paranoid leaves unprivileged users their user-space counts. */
		attr.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	errno = saved;
	return fd;
}

static struct ust_perf_counter *perf_counter(const struct ust_perf_ctx *pc)
{
	struct ust_perf_counter *c;
	void *pg;

	for (uint32_t i = 0; i < tls_nperf; i++)
		if (tls_perf[i].type == pc->type && tls_perf[i].config == pc->config)
			return &tls_perf[i];
	if (tls_nperf == UST_PERF_MAX)
		return NULL;
	c = &tls_perf[tls_nperf];
	c->type = pc->type;
	c->config = pc->config;
	c->pg = NULL;
	c->fd = perf_open(pc);
	if (c->fd >= 0) {
		pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, c->fd, 0);
		if (pg != MAP_FAILED)
			c->pg = pg;
		/* Close them when the thread ends (the value is only a flag). */
		if (perf_key_ok && !tls_nperf)
			pthread_setspecific(perf_key, (void *)1);
	}
	ust_debug("strata-ust: counter %u:%llu opened: fd %d, rdpmc %d\n", pc->type,
		  (unsigned long long)pc->config, c->fd, c->pg ? (int)c->pg->cap_user_rdpmc : 0);
	tls_nperf++;
	return c;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t perf_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | (uint64_t)hi << 32;
}
#endif

static uint64_t perf_value(struct ust_perf_counter *c)
{
	uint64_t v = 0;

	if (!c || c->fd < 0)
		return 0;
#if defined(__x86_64__) || defined(__i386__)
	if (c->pg) {
		struct perf_event_mmap_page *pg = c->pg;

		/* The kernel's sequence protocol (linux/perf_event.h, "lock"). */
		for (int tries = 0; tries < 64; tries++) {
			uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE), idx;
			uint64_t count;

			idx = __atomic_load_n(&pg->index, __ATOMIC_RELAXED);
			if (!pg->cap_user_rdpmc || !idx)
				break; /* not on the PMU: read(2) */
			count = __atomic_load_n((uint64_t *)&pg->offset, __ATOMIC_RELAXED);
			{
				uint16_t width = pg->pmc_width;
				int64_t pmc = (int64_t)(perf_rdpmc(idx - 1) << (64 - width));

				count += (uint64_t)(pmc >> (64 - width));
			}
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) == seq)
				return count;
		}
	}
#endif
	{
		int saved = errno;

		if (read(c->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		errno = saved;
	}
	return v;
}

static uint8_t *write_contexts(const struct ust_channel *chan, uint8_t *p, const void *ip)
{
	for (uint32_t i = 0; i < chan->n_ctx; i++) {
		switch (chan->ctx[i]) {
		case UST_CTX_VPID: {
			int32_t v = ctx_vpid();

			memcpy(p, &v, 4);
			p += 4;
			break;
		}
		case UST_CTX_VTID: {
			int32_t v = ctx_vtid();

			memcpy(p, &v, 4);
			p += 4;
			break;
		}
		case UST_CTX_PROCNAME:
			memcpy(p, ctx_procname(), UST_PROCNAME_LEN);
			p += UST_PROCNAME_LEN;
			break;
		case UST_CTX_PTHREAD_ID: {
			uint64_t v = (uint64_t)pthread_self();

			memcpy(p, &v, 8);
			p += 8;
			break;
		}
		case UST_CTX_IP: {
			uint64_t v = (uint64_t)(uintptr_t)ip;

			memcpy(p, &v, 8);
			p += 8;
			break;
		}
		case UST_CTX_VUID:
			memcpy(p, &cached_vuid, 4);
			p += 4;
			break;
		case UST_CTX_VGID:
			memcpy(p, &cached_vgid, 4);
			p += 4;
			break;
		case UST_CTX_PERF_THREAD: {
			uint64_t v = perf_value(perf_counter(&chan->perf[i]));

			memcpy(p, &v, 8);
			p += 8;
			break;
		}
		default:
			break;
		}
	}
	return p;
}

/* The contexts of chan at p, from this thread's copy when it has one. */
static inline uint8_t *put_contexts(const struct ust_channel *chan, uint8_t *p, size_t payload_len,
				    const void *ip)
{
	size_t n = chan->ctx_len;

	/*
	 * Only the outermost level uses the copy: a signal handler tracing
	 * into another channel must not rewrite it under our memcpy.
	 */
	if (__builtin_expect(tls_nesting != 1, 0))
		return write_contexts(chan, p, ip);
	if (__builtin_expect(tls_ctx_chan != chan, 0)) {
		if (!chan->ctx_per_thread)
			return write_contexts(chan, p, ip);
		write_contexts(chan, tls_ctx_bytes, NULL);
		tls_ctx_chan = chan;
	}
	/*
	 * A fixed 32-byte copy (two vector moves) when the record has room
	 * after the contexts: the probe then writes its payload over the
	 * excess.
	 */
	if (__builtin_expect(n <= 32 && n + payload_len >= 32, 1))
		memcpy(p, tls_ctx_bytes, 32);
	else
		memcpy(p, tls_ctx_bytes, n);
	return p + n;
}

/* ---- Filters: the $ctx values they may read --------------------------------- */

enum ust_filter_ctx_id {
	UFC_VPID,
	UFC_VTID,
	UFC_PTHREAD_ID,
	UFC_PROCNAME,
	UFC_CPU_ID,
	UFC_VUID,
	UFC_VGID,
	UFC_VEUID,
	UFC_VEGID,
	UFC_VSUID,
	UFC_VSGID,
	UFC_CGROUP_NS,
	UFC_IPC_NS,
	UFC_MNT_NS,
	UFC_NET_NS,
	UFC_PID_NS,
	UFC_TIME_NS,
	UFC_USER_NS,
	UFC_UTS_NS,
};

/* lttng-ust's $ctx names (filters.md: no add-context needed to read them). */
static const struct flt_ctx_desc filter_ctx[] = {
	{ "vpid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VPID },
	{ "vtid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VTID },
	{ "pthread_id", FLT_ROOT_CTX, FLT_CTX_INT, UFC_PTHREAD_ID },
	{ "procname", FLT_ROOT_CTX, FLT_CTX_STRING, UFC_PROCNAME },
	{ "cpu_id", FLT_ROOT_CTX, FLT_CTX_INT, UFC_CPU_ID },
	{ "vuid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VUID },
	{ "vgid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VGID },
	{ "veuid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VEUID },
	{ "vegid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VEGID },
	{ "vsuid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VSUID },
	{ "vsgid", FLT_ROOT_CTX, FLT_CTX_INT, UFC_VSGID },
	{ "cgroup_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_CGROUP_NS },
	{ "ipc_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_IPC_NS },
	{ "mnt_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_MNT_NS },
	{ "net_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_NET_NS },
	{ "pid_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_PID_NS },
	{ "time_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_TIME_NS },
	{ "user_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_USER_NS },
	{ "uts_ns", FLT_ROOT_CTX, FLT_CTX_INT, UFC_UTS_NS },
};
const struct flt_ctx_desc *const ust_filter_ctx = filter_ctx;
const size_t ust_filter_nr_ctx = ARRAY_SIZE(filter_ctx);

/* A namespace's inode number, as lttng-ust records it; read once per process. */
static int64_t ns_inode(unsigned int which)
{
	static const char *const names[] = { "cgroup", "ipc",  "mnt",  "net",
					     "pid",    "time", "user", "uts" };
	static int64_t cache[ARRAY_SIZE(names)];
	char path[32] = "/proc/self/ns/";
	int64_t v = __atomic_load_n(&cache[which], __ATOMIC_RELAXED);
	struct stat st;

	if (v)
		return v;
	/* Async-signal-safe: a stat(2), no allocation. */
	memcpy(path + 14, names[which], strlen(names[which]) + 1);
	v = stat(path, &st) == 0 ? (int64_t)st.st_ino : -1;
	__atomic_store_n(&cache[which], v, __ATOMIC_RELAXED);
	return v;
}

static int filter_get_ctx(void *opaque, uint32_t id, union strata_filter_arg *ret)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	(void)opaque;
	switch (id) {
	case UFC_VPID:
		ret->s64 = ctx_vpid();
		return 0;
	case UFC_VTID:
		ret->s64 = ctx_vtid();
		return 0;
	case UFC_PTHREAD_ID:
		ret->s64 = (int64_t)(uintptr_t)pthread_self();
		return 0;
	case UFC_PROCNAME:
		ret->ref.ptr = ctx_procname();
		ret->ref.len = strnlen(ctx_procname(), UST_PROCNAME_LEN);
		return 0;
	case UFC_CPU_ID: {
		int cpu = sched_getcpu();

		ret->s64 = cpu;
		return cpu < 0;
	}
	case UFC_VUID:
	case UFC_VEUID:
	case UFC_VSUID:
		if (getresuid(&ru, &eu, &su) < 0)
			return 1;
		ret->s64 = id == UFC_VUID ? ru : id == UFC_VEUID ? eu : su;
		return 0;
	case UFC_VGID:
	case UFC_VEGID:
	case UFC_VSGID:
		if (getresgid(&rg, &eg, &sg) < 0)
			return 1;
		ret->s64 = id == UFC_VGID ? rg : id == UFC_VEGID ? eg : sg;
		return 0;
	default:
		if (id >= UFC_CGROUP_NS && id <= UFC_UTS_NS) {
			ret->s64 = ns_inode(id - UFC_CGROUP_NS);
			return ret->s64 < 0;
		}
		return 1;
	}
}

static const struct flt_env filter_env = { .get_ctx = filter_get_ctx };

/* Does one of b's filters accept args? No arguments: the probe filled none. */
static bool filters_accept(const struct ust_binding *b, const union strata_filter_arg *args)
{
	if (__builtin_expect(!args, 0))
		return false;
	for (uint32_t i = 0; i < b->nr_filters; i++)
		if (flt_run(b->filters[i], args, &filter_env))
			return true;
	return false;
}

/*
 * Reserve the record of the next binding of ctx's snapshot that takes the
 * event; NULL (and the nesting level given back) once none is left.
 */
static void *reserve_next(struct strata_ust_ctx *ctx)
{
	const struct ust_bindings *bs = ctx->bindings;

	while (ctx->next < bs->n) {
		const struct ust_binding *b = &bs->b[ctx->next++];
		struct ust_channel *chan = b->chan;
		size_t len = chan->ctx_len + ctx->payload_len;
		uint8_t *p;

		/* Before anything is reserved: a rejected event costs no buffer space. */
		if (__builtin_expect(b->nr_filters != 0, 0) && !filters_accept(b, ctx->args))
			continue;

		if (__builtin_expect(chan->ops == &ust_ringbuf_backend_ops, 1))
			p = ust_ringbuf_reserve(chan->backend, ctx, b->id, len);
		else
			p = chan->ops->reserve(chan->backend, ctx, b->id, len, chan->clock);
		if (__builtin_expect(!p, 0))
			continue; /* counted lost by the buffer */
		ctx->chan = chan;
		return put_contexts(chan, p, ctx->payload_len, ctx->ip);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tls_nesting--;
	return NULL;
}

void *strata_ust_event_reserve(struct strata_ust_ctx *ctx, void *event, size_t payload_len,
			       const void *ip, const union strata_filter_arg *args)
{
	struct ust_event *ev = event;
	const struct ust_bindings *bs;

	if (__builtin_expect(!ev, 0))
		return NULL;
	/* Pairs with the release store in event_publish_locked(). */
	bs = __atomic_load_n(&ev->bindings, __ATOMIC_ACQUIRE);
	if (__builtin_expect(!bs, 0))
		return NULL;
	if (__builtin_expect(tls_nesting >= UST_MAX_NESTING, 0))
		return NULL;
	tls_nesting++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ctx->bindings = bs;
	ctx->next = 0;
	ctx->payload_len = payload_len;
	ctx->ip = ip;
	ctx->args = args;
	return reserve_next(ctx);
}

void *strata_ust_event_commit_next(struct strata_ust_ctx *ctx)
{
	struct ust_channel *chan = ctx->chan;

	if (__builtin_expect(chan->ops == &ust_ringbuf_backend_ops, 1))
		ust_ringbuf_commit(chan->backend, ctx);
	else
		chan->ops->commit(chan->backend, ctx);
	return reserve_next(ctx);
}

void ust_context_fork_reset(void)
{
	/* The child's only thread inherited the forking thread's cache. */
	__atomic_store_n(&cached_vpid, 0, __ATOMIC_RELAXED);
	tls_vtid = 0;
	tls_procname_cached = 0;
	tls_ctx_chan = NULL;
	/* The parent thread's counters: the child counts for itself. */
	perf_close_all();
}

void ust_debug_init(void)
{
	const char *v = getenv("STRATA_UST_DEBUG");

	ust_debug_enabled = v && v[0] == '1';
}

void ust_debug_printf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	/* A debug line that cannot be written is simply lost. */
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

/*
 * The daemon protocol's app side (lib/ust/comm.c, see meson.build) starts
 * from here when it is linked in.
 */
extern void ust_comm_init(void) __attribute__((weak));

static void __attribute__((constructor)) ust_init(void)
{
	ust_debug_init();
	cached_vuid = (uint32_t)getuid();
	cached_vgid = (uint32_t)getgid();
	pthread_atfork(NULL, NULL, ust_context_fork_reset);
	perf_key_ok = pthread_key_create(&perf_key, perf_thread_exit) == 0;
	ust_debug("strata-ust: initialized (pid %d, clock %s)\n", (int)getpid(),
		  ust_clock_default_kind() == UST_CLOCK_TSC ? "tsc" : "monotonic");
	if (ust_comm_init)
		ust_comm_init();
}
