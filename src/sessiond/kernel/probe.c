/* SPDX-License-Identifier: MIT */
/*
 * Probe event rules of kernel channels: LTTng's --probe, --function and
 * --userspace-probe, and strata's --userspace-function.
 *
 *   location                     attached as                  records
 *   --probe SYM[+OFF] | 0xADDR   kprobe                       NAME: ip
 *   --function SYM | 0xADDR      kprobe + kretprobe           NAME_entry, NAME_return: ip, parent_ip
 *   --userspace-probe elf:P:F    uprobe at F's entry          NAME: ip
 *   --userspace-probe sdt:P:V:N  uprobe at each site of V:N   NAME: ip
 *                                (semaphore counted while attached)
 *   --userspace-function elf:P:F uprobe + uretprobe           NAME_entry, NAME_return: ip, parent_ip
 *
 * Every event is a key of the recorder (recorder-abi.h) owned by the channel
 * for its life: the BPF program attached to the probe gets the key as
 * cookie, so the channel's contexts (counters included) come with it like
 * with any kernel event. Unlike tracepoints, probes are attached per
 * channel and detached when it is destroyed, since their name and place
 * belong to one session.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strata/error.h>

#include "probe-elf.h"
#include "kernel-internal.h"

#include "common/common.h"

#define KT_PROBE_NAME_MAX 200 /* record name, before _entry/_return */

/* A location, parsed and resolved to where probes go. */
struct kt_probe_spec {
	bool kernel, entry_return, usdt;
	char path[PATH_MAX]; /* uprobes: the ELF file, resolved */
	char sym[256]; /* kprobes: the symbol, or "" for an address */
	uint64_t addr; /* kprobes at an address */
	uint64_t offset; /* kprobes: from sym */
	struct kt_usdt_site sites[KT_ELF_MAX_SITES]; /* uprobes: file offsets */
	int nsites;
};

static bool kt_is_kernel_type(enum kernel_event_type t)
{
	return t == KERNEL_EVENT_PROBE || t == KERNEL_EVENT_FUNCTION;
}

/* Whether sym is a text symbol of /proc/kallsyms. */
static int kt_kallsyms_has(const char *sym)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		char type, name[256];

		if (sscanf(line, "%*s %c %255s", &type, name) == 2 &&
		    (type == 't' || type == 'T') && !strcmp(name, sym))
			found = 1;
	}
	fclose(f);
	return found;
}

static int kt_parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* SYM[+OFF] | 0xADDR */
static int kt_parse_kernel(enum kernel_event_type type, const char *loc, struct kt_probe_spec *sp,
			   char *why, size_t len)
{
	const char *plus = strchr(loc, '+');
	size_t n = plus ? (size_t)(plus - loc) : strlen(loc);
	int r;

	sp->kernel = true;
	sp->entry_return = type == KERNEL_EVENT_FUNCTION;
	if (!strncmp(loc, "0x", 2) || !strncmp(loc, "0X", 2)) {
		if (plus || kt_parse_u64(loc, &sp->addr) || !sp->addr) {
			snprintf(why, len,
				 "Invalid kernel address '%s': give 0xADDR in hexadecimal", loc);
			return -EINVAL;
		}
		return 0;
	}
	if (!n || n >= sizeof(sp->sym) ||
	    strspn(loc, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$") != n) {
		snprintf(why, len, "Invalid kernel probe location '%s': give SYMBOL%s or 0xADDR",
			 loc, type == KERNEL_EVENT_PROBE ? "[+OFFSET]" : "");
		return -EINVAL;
	}
	if (plus && (type == KERNEL_EVENT_FUNCTION || kt_parse_u64(plus + 1, &sp->offset))) {
		snprintf(
			why, len,
			type == KERNEL_EVENT_FUNCTION ?
				"Invalid function '%s': --function takes SYMBOL or 0xADDR, no offset" :
				"Invalid offset in '%s': give SYMBOL+OFFSET, OFFSET a number",
			loc);
		return -EINVAL;
	}
	memcpy(sp->sym, loc, n);
	sp->sym[n] = '\0';
	r = kt_kallsyms_has(sp->sym);
	if (r < 0) {
		snprintf(why, len, "Failed to read /proc/kallsyms: %s", strerror(-r));
		return r;
	}
	if (!r) {
		snprintf(why, len,
			 "Kernel symbol '%s' not found in /proc/kallsyms: give a kernel function "
			 "name or an address",
			 sp->sym);
		return -ENOENT;
	}
	return 0;
}

/* Split "a:b:c" at the first n - 1 colons into parts (the last takes the rest). */
static int kt_split(const char *s, char parts[][PATH_MAX], int n)
{
	for (int i = 0; i < n; i++) {
		const char *colon = i < n - 1 ? strchr(s, ':') : NULL;
		size_t l = colon ? (size_t)(colon - s) : strlen(s);

		if ((i < n - 1 && !colon) || !l || l >= PATH_MAX)
			return -EINVAL;
		memcpy(parts[i], s, l);
		parts[i][l] = '\0';
		s += l + (colon ? 1 : 0);
	}
	return 0;
}

/* elf:PATH:FUNC | sdt:PATH:PROVIDER:NAME */
static int kt_parse_user(enum kernel_event_type type, const char *loc, struct kt_probe_spec *sp,
			 char *why, size_t len)
{
	char parts[3][PATH_MAX], err[512];
	bool sdt = !strncmp(loc, "sdt:", 4);
	int r;

	sp->entry_return = type == KERNEL_EVENT_USERSPACE_FUNCTION;
	if (strncmp(loc, "elf:", 4) && (!sdt || sp->entry_return)) {
		snprintf(why, len,
			 "Invalid user-space probe location '%s': give elf:PATH:FUNCTION%s", loc,
			 sp->entry_return ? "" : " or sdt:PATH:PROVIDER:NAME");
		return -EINVAL;
	}
	/* The path ends at the last colon(s): a path may hold colons, names do not. */
	{
		const char *body = loc + 4, *end = body + strlen(body);
		int want = sdt ? 2 : 1;

		for (int seen = 0; end > body && seen < want;)
			if (*--end == ':')
				seen++;
		if (end == body || *end != ':' || (size_t)(end - body) >= PATH_MAX) {
			snprintf(why, len, "Invalid user-space probe location '%s': give %s", loc,
				 sdt ? "sdt:PATH:PROVIDER:NAME" : "elf:PATH:FUNCTION");
			return -EINVAL;
		}
		memcpy(parts[0], body, (size_t)(end - body));
		parts[0][end - body] = '\0';
		if (kt_split(end + 1, parts + 1, want)) {
			snprintf(why, len, "Invalid user-space probe location '%s': give %s", loc,
				 sdt ? "sdt:PATH:PROVIDER:NAME" : "elf:PATH:FUNCTION");
			return -EINVAL;
		}
	}
	if (parts[0][0] != '/') {
		snprintf(why, len,
			 "Invalid user-space probe location '%s': the path must be absolute", loc);
		return -EINVAL;
	}
	if (!realpath(parts[0], sp->path)) {
		r = -errno;
		snprintf(why, len, "Cannot use '%s' for a user-space probe: %s", parts[0],
			 strerror(-r));
		return r;
	}
	if (sdt) {
		sp->usdt = true;
		r = kt_elf_usdt(sp->path, parts[1], parts[2], sp->sites, err, sizeof(err));
		if (r > 0)
			sp->nsites = r;
	} else {
		r = kt_elf_function(sp->path, parts[1], &sp->sites[0].offset, err, sizeof(err));
		if (!r)
			sp->nsites = 1;
	}
	if (r < 0) {
		snprintf(why, len, "Cannot probe '%s': %s", loc, err);
		return r;
	}
	return 0;
}

static int kt_probe_parse(enum kernel_event_type type, const char *loc, struct kt_probe_spec *sp,
			  char *why, size_t len)
{
	memset(sp, 0, sizeof(*sp));
	if (kt_is_kernel_type(type))
		return kt_parse_kernel(type, loc, sp, why, len);
	if (type == KERNEL_EVENT_USERSPACE_PROBE || type == KERNEL_EVENT_USERSPACE_FUNCTION)
		return kt_parse_user(type, loc, sp, why, len);
	snprintf(why, len, "Not a probe event type");
	return -EINVAL;
}

static int kt_key_alloc(struct kernel_tracer *kt, uint32_t *ret)
{
	for (uint32_t i = 0; i < KR_MAX_PROBES; i++) {
		if (!(kt->probe_keys[i / 64] & (1ULL << (i % 64)))) {
			kt->probe_keys[i / 64] |= 1ULL << (i % 64);
			*ret = KR_KEY_PROBE + i;
			return 0;
		}
	}
	return -ENOSPC;
}

/* Free a key and its class: nothing records it any more (its channel is gone or never had it). */
static void kt_key_free(struct kernel_tracer *kt, uint32_t key)
{
	uint32_t i = key - KR_KEY_PROBE;
	struct kt_class *c;

	if (key == KT_NO_KEY || i >= KR_MAX_PROBES)
		return;
	c = atomic_exchange(&kt->classes[key], NULL);
	if (c) {
		kt_class_release(c);
		free(c);
	}
	kt->probe_keys[i / 64] &= ~(1ULL << (i % 64));
}

/* Detaching a probe link costs ~120 ms: a background reaper does it. */
static void kt_links_close(int *links, size_t n)
{
	if (links)
		kt_rec_reap_links(links, n, 1);
	free(links);
}

/* Attach every probe of spec for key(s); the links go to *ret_links. */
static int kt_probe_attach(struct kernel_tracer *kt, const struct kt_probe_spec *sp,
			   const uint32_t keys[2], int **ret_links, size_t *ret_n, char *why,
			   size_t len)
{
	size_t cap = (size_t)(sp->kernel ? 1 : sp->nsites) * (sp->entry_return ? 2 : 1), n = 0;
	int *links = calloc(cap, sizeof(*links));
	int err = 0;

	if (!links)
		return -ENOMEM;
	for (int ret = 0; ret <= (int)sp->entry_return && err >= 0; ret++) {
		if (sp->kernel) {
			err = kt_rec_attach_kprobe(kt, keys[ret], sp->sym[0] ? sp->sym : NULL,
						   sp->addr, sp->offset, ret, why, len);
			if (err >= 0)
				links[n++] = err;
			continue;
		}
		for (int i = 0; i < sp->nsites && err >= 0; i++) {
			err = kt_rec_attach_uprobe(kt, keys[ret], sp->path, sp->sites[i].offset,
						   sp->sites[i].sem_offset, ret, why, len);
			if (err >= 0)
				links[n++] = err;
		}
	}
	if (err < 0) {
		kt_links_close(links, n);
		return err;
	}
	*ret_links = links;
	*ret_n = n;
	return 0;
}

/* Keys and classes for a probe named name; keys[1] is KT_NO_KEY without a return. */
static int kt_probe_keys(struct kernel_tracer *kt, const char *name, const struct kt_probe_spec *sp,
			 uint32_t keys[2])
{
	static const char *const suffix[2] = { "_entry", "_return" };
	int err = 0;

	keys[0] = keys[1] = KT_NO_KEY;
	for (int i = 0; i <= (int)sp->entry_return && !err; i++) {
		char cname[KT_PROBE_NAME_MAX + 16];
		struct kt_class *c;
		unsigned int flags = (sp->entry_return ? KR_PROBE_PARENT : 0) |
				     (i ? KR_PROBE_RETURN : 0) | (sp->kernel ? 0 : KR_PROBE_USER);

		err = kt_key_alloc(kt, &keys[i]);
		if (err)
			break;
		snprintf(cname, sizeof(cname), "%s%s", name, sp->entry_return ? suffix[i] : "");
		c = calloc(1, sizeof(*c));
		if (!c) {
			err = -ENOMEM;
			break;
		}
		err = kt_class_probe(keys[i], cname, sp->entry_return, c);
		if (!err)
			err = kt_rec_probe_desc(kt, keys[i], flags);
		if (err) {
			kt_class_release(c);
			free(c);
			break;
		}
		/* Pairs with the consumer's acquire load (consumer.c). */
		atomic_store_explicit(&kt->classes[keys[i]], c, memory_order_release);
	}
	if (err) {
		kt_key_free(kt, keys[0]);
		kt_key_free(kt, keys[1]);
	}
	return err;
}

int kernel_probe_check(struct kernel_tracer *kt, enum kernel_event_type type, const char *location,
		       char *why, size_t len)
{
	struct kt_probe_spec *sp = malloc(sizeof(*sp));
	uint32_t keys[2] = { KT_NO_KEY, KT_NO_KEY };
	size_t nlinks = 0;
	int *links = NULL;
	int err;

	if (!sp)
		return -ENOMEM;
	err = kt_probe_parse(type, location, sp, why, len);
	/*
	 * Kernel functions: the only way to know whether this kernel lets
	 * strata probe this function is to try (kprobe.multi, kprobes). The
	 * trial keys have no class and no channel: nothing is recorded.
	 */
	if (!err && sp->kernel) {
		for (int i = 0; i <= (int)sp->entry_return && !err; i++)
			err = kt_key_alloc(kt, &keys[i]);
		if (err)
			snprintf(why, len, "Too many probes (%d events at most)", KR_MAX_PROBES);
		else
			err = kt_probe_attach(kt, sp, keys, &links, &nlinks, why, len);
		if (!err)
			kt_links_close(links, nlinks);
		kt_key_free(kt, keys[0]);
		kt_key_free(kt, keys[1]);
	}
	free(sp);
	return err;
}

static struct kt_probe *kt_probe_find(struct kernel_channel *ch, const char *name)
{
	for (unsigned int i = 0; i < ch->nprobes; i++)
		if (!strcmp(ch->probes[i].name, name))
			return &ch->probes[i];
	return NULL;
}

static int kt_probe_set(struct kernel_channel *ch, struct kt_probe *p, bool on)
{
	for (int i = 0; i < 2; i++) {
		int err;

		if (p->keys[i] == KT_NO_KEY)
			continue;
		err = kt_channel_set_key(ch, p->keys[i], on);
		if (err)
			return err;
	}
	return 0;
}

int kernel_channel_enable_probe(struct kernel_channel *ch, const char *name,
				enum kernel_event_type type, const char *location, char *why,
				size_t len)
{
	struct kernel_tracer *kt = ch->kt;
	struct kt_probe *p = kt_probe_find(ch, name), np = { .type = type };
	struct kt_probe_spec *sp;
	int err;

	if (p) {
		if (p->type != type || strcmp(p->location, location)) {
			snprintf(why, len,
				 "Probe event '%s' already exists in channel '%s' at '%s': give "
				 "another name",
				 name, ch->name, p->location);
			return -EEXIST;
		}
		return kt_probe_set(ch, p, true);
	}
	if (strlen(name) > KT_PROBE_NAME_MAX) {
		snprintf(why, len, "Probe event name '%s' is longer than %d bytes", name,
			 KT_PROBE_NAME_MAX);
		return -ENAMETOOLONG;
	}
	if (ch->nprobes == KT_MAX_PROBES) {
		snprintf(why, len, "At most %d probe events per kernel channel", KT_MAX_PROBES);
		return -ENOSPC;
	}
	sp = malloc(sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	err = kt_probe_parse(type, location, sp, why, len);
	if (err)
		goto out;
	if (!ch->probes) {
		ch->probes = calloc(KT_MAX_PROBES, sizeof(*ch->probes));
		if (!ch->probes) {
			err = -ENOMEM;
			goto out;
		}
	}
	np.name = strdup(name);
	np.location = strdup(location);
	if (!np.name || !np.location) {
		err = -ENOMEM;
		goto err;
	}
	err = kt_probe_keys(kt, name, sp, np.keys);
	if (err) {
		snprintf(why, len, "Failed to create the events of probe '%s': %s", name,
			 err == -ENOSPC ? "too many probes in all kernel channels" :
					  strerror(-err));
		goto err;
	}
	err = kt_probe_attach(kt, sp, np.keys, &np.links, &np.nlinks, why, len);
	if (!err)
		err = kt_probe_set(ch, &np, true);
	if (err) {
		kt_probe_set(ch, &np, false);
		kt_links_close(np.links, np.nlinks);
		kt_key_free(kt, np.keys[0]);
		kt_key_free(kt, np.keys[1]);
		goto err;
	}
	ch->probes[ch->nprobes++] = np;
	goto out;
err:
	free(np.name);
	free(np.location);
out:
	free(sp);
	return err;
}

int kernel_channel_disable_probe(struct kernel_channel *ch, const char *name)
{
	struct kt_probe *p = kt_probe_find(ch, name);

	return p ? kt_probe_set(ch, p, false) : -ENOENT;
}

void kt_probes_release(struct kernel_channel *ch)
{
	size_t n = 0;
	int *all;

	for (unsigned int i = 0; i < ch->nprobes; i++)
		n += ch->probes[i].nlinks;
	/* One reaper for all the channel's links (each takes ~120 ms to detach). */
	all = calloc(MAX(n, 1u), sizeof(*all));
	n = 0;
	for (unsigned int i = 0; i < ch->nprobes; i++) {
		struct kt_probe *p = &ch->probes[i];

		kt_probe_set(ch, p, false);
		for (size_t j = 0; all && j < p->nlinks; j++, n++) {
			all[n] = p->links[j];
			p->links[j] = -1;
		}
		kt_links_close(p->links, p->nlinks);
		kt_key_free(ch->kt, p->keys[0]);
		kt_key_free(ch->kt, p->keys[1]);
		free(p->name);
		free(p->location);
	}
	kt_links_close(all, n);
	free(ch->probes);
	ch->probes = NULL;
	ch->nprobes = 0;
}
