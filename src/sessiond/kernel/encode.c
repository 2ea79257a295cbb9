/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "kernel-internal.h"
#include "recorder-abi.h"
#include "syscalls.h"

#include "common/common.h"

void kt_strbuf_printf(struct kt_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->err)
		return;
	for (;;) {
		size_t room = sb->cap - sb->len;

		va_start(ap, fmt);
		n = vsnprintf(sb->s ? sb->s + sb->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			sb->err = -EINVAL;
			return;
		}
		if ((size_t)n < room) {
			sb->len += (size_t)n;
			return;
		}
		size_t ncap = MAX(sb->cap * 2, sb->len + (size_t)n + 256);
		char *ns = realloc(sb->s, ncap);

		if (!ns) {
			sb->err = -ENOMEM;
			return;
		}
		sb->s = ns;
		sb->cap = ncap;
	}
}

void kt_class_release(struct kt_class *c)
{
	if (!c)
		return;
	free(c->name);
	kt_fields_free(c->fields, c->nfields);
	memset(c, 0, sizeof(*c));
}

int kt_class_from_format(struct kt_format *f, uint32_t key, struct kt_class *ret)
{
	ret->name = f->name;
	ret->key = key;
	ret->nfields = f->nfields;
	ret->fields = f->fields;
	f->name = NULL;
	f->fields = NULL;
	f->nfields = 0;
	kt_format_release(f);
	return 0;
}

struct kt_field_init {
	const char *name;
	enum kt_field_kind kind;
	uint16_t offset, size, ctf_size;
	uint32_t count;
	bool is_signed, hex;
};

static int kt_class_build(struct kt_class *ret, uint32_t key, const char *name,
			  const struct kt_field_init *init, size_t n)
{
	struct kt_class c = { .key = key };

	c.name = strdup(name);
	c.fields = calloc(n ? n : 1, sizeof(*c.fields));
	if (!c.name || !c.fields)
		goto enomem;
	for (size_t i = 0; i < n; i++) {
		struct kt_field *f = &c.fields[i];

		f->name = strdup(init[i].name);
		if (!f->name)
			goto enomem;
		c.nfields++;
		f->kind = init[i].kind;
		f->offset = init[i].offset;
		f->size = init[i].size;
		f->ctf_size = init[i].ctf_size;
		f->elem_size = f->kind == KT_F_ARRAY ? init[i].size / init[i].count : init[i].size;
		f->count = init[i].count;
		f->is_signed = init[i].is_signed;
		f->hex = init[i].hex;
	}
	*ret = c;
	return 0;
enomem:
	kt_class_release(&c);
	return -ENOMEM;
}

int kt_class_syscall(uint32_t key, struct kt_class *ret)
{
	struct kt_field_init init[8];
	const struct kt_syscall *sc;
	char name[128];
	size_t n = 0;
	bool entry;

	if (key == KR_KEY_SC_ENTRY_UNKNOWN || key == KR_KEY_SC_EXIT_UNKNOWN) {
		entry = key == KR_KEY_SC_ENTRY_UNKNOWN;
		init[n++] = (struct kt_field_init){ "id", KT_F_INT, 0, 8, 4, 0, true, false };
		if (entry)
			init[n++] = (struct kt_field_init){ "args", KT_F_ARRAY, 8,     48,
							    0,	    6,		false, false };
		else
			init[n++] =
				(struct kt_field_init){ "ret", KT_F_INT, 8, 8, 8, 0, true, false };
		return kt_class_build(ret, key,
				      entry ? "syscall_entry_unknown" : "syscall_exit_unknown",
				      init, n);
	}
	if (key >= KR_KEY_SC_ENTRY && key < KR_KEY_SC_EXIT)
		entry = true;
	else if (key >= KR_KEY_SC_EXIT && key < KR_KEY_SC_EXIT + KR_MAX_SC)
		entry = false;
	else
		return -EINVAL;
	sc = kt_syscall_by_nr((int)(key - (entry ? KR_KEY_SC_ENTRY : KR_KEY_SC_EXIT)));
	if (!sc)
		return -ENOENT;
	snprintf(name, sizeof(name), "syscall_%s_%s", entry ? "entry" : "exit", sc->name);
	if (!entry) {
		init[n++] = (struct kt_field_init){ "ret", KT_F_INT, 8, 8, 8, 0, true, false };
		/* Strings that faulted at entry, re-read at exit ("" otherwise). */
		for (int i = 0; i < sc->nargs && i < 6; i++)
			if (sc->args[i].is_string)
				init[n++] = (struct kt_field_init){
					sc->args[i].name, KT_F_USTRING, 16, 0, 0, 0, false, false
				};
	} else if (sc->nargs < 0) {
		init[n++] = (struct kt_field_init){ "args", KT_F_ARRAY, 8, 48, 0, 6, false, false };
	} else {
		for (int i = 0; i < sc->nargs && i < 6; i++) {
			const struct kt_syscall_arg *a = &sc->args[i];

			if (a->is_string)
				init[n++] =
					(struct kt_field_init){ a->name, KT_F_USTRING, 56,   0, 0,
								0,	 false,	       false };
			else
				init[n++] = (struct kt_field_init){
					a->name, KT_F_INT, (uint16_t)(8 + 8 * i), 8,
					a->size, 0,	   a->is_signed != 0,	  a->hex != 0
				};
		}
	}
	return kt_class_build(ret, key, name, init, n);
}

int kt_class_probe(uint32_t key, const char *name, bool parent, struct kt_class *ret)
{
	/* lttng-modules' kprobe/uprobe (ip) and kretprobe (ip, parent_ip) layouts. */
	static const struct kt_field_init fields[] = {
		{ "ip", KT_F_INT, 0, 8, 8, 0, false, true },
		{ "parent_ip", KT_F_INT, 8, 8, 8, 0, false, true },
	};

	return kt_class_build(ret, key, name, fields, parent ? 2 : 1);
}

int kt_class_statedump(uint32_t key, struct kt_class *ret)
{
#define SDP(f) ((uint16_t)offsetof(struct kt_sd_process, f))
	static const struct kt_field_init proc[] = {
		{ "tid", KT_F_INT, SDP(tid), 4, 4, 0, true, false },
		{ "pid", KT_F_INT, SDP(pid), 4, 4, 0, true, false },
		{ "ppid", KT_F_INT, SDP(ppid), 4, 4, 0, true, false },
		{ "name", KT_F_TEXT, SDP(name), 16, 0, 16, true, false },
		{ "type", KT_F_INT, SDP(type), 4, 4, 0, true, false },
		{ "mode", KT_F_INT, SDP(mode), 4, 4, 0, true, false },
		{ "submode", KT_F_INT, SDP(submode), 4, 4, 0, true, false },
		{ "status", KT_F_INT, SDP(status), 4, 4, 0, true, false },
		{ "cpu", KT_F_INT, SDP(cpu), 4, 4, 0, true, false },
		{ "vtid", KT_F_INT, SDP(vtid), 4, 4, 0, true, false },
		{ "vpid", KT_F_INT, SDP(vpid), 4, 4, 0, true, false },
		{ "ns_level", KT_F_INT, SDP(ns_level), 4, 4, 0, true, false },
		{ "ns_inum", KT_F_INT, SDP(ns_inum), 4, 4, 0, false, false },
	};
#undef SDP
	static const struct kt_field_init fd[] = {
		{ "pid", KT_F_INT, 0, 4, 4, 0, true, false },
		{ "fd", KT_F_INT, 4, 4, 4, 0, true, false },
		{ "flags", KT_F_INT, 8, 4, 4, 0, false, true },
		{ "fmode", KT_F_INT, 12, 4, 4, 0, false, true },
		{ "filename", KT_F_STRING, 16, 0, 0, 0, false, false },
	};

	switch (key) {
	case KR_KEY_STATEDUMP_START:
		return kt_class_build(ret, key, "lttng_statedump_start", NULL, 0);
	case KR_KEY_STATEDUMP_END:
		return kt_class_build(ret, key, "lttng_statedump_end", NULL, 0);
	case KR_KEY_STATEDUMP_PROCESS:
		return kt_class_build(ret, key, "lttng_statedump_process_state", proc,
				      ARRAY_SIZE(proc));
	case KR_KEY_STATEDUMP_FD:
		return kt_class_build(ret, key, "lttng_statedump_file_descriptor", fd,
				      ARRAY_SIZE(fd));
	default:
		return -EINVAL;
	}
}

struct kt_out {
	uint8_t *p;
	size_t len, cap;
	bool full;
};

static void kt_put(struct kt_out *o, const void *src, size_t n)
{
	if (o->full || o->cap - o->len < n) {
		o->full = true;
		return;
	}
	if (src)
		memcpy(o->p + o->len, src, n);
	else
		memset(o->p + o->len, 0, n);
	o->len += n;
}

/* Bytes [off, off + n) of the payload, or NULL when the payload is too short. */
static const uint8_t *kt_at(const uint8_t *payload, size_t len, size_t off, size_t n)
{
	return off <= len && n <= len - off ? payload + off : NULL;
}

/* A string of at most max bytes at s, NUL-terminated in the output. */
static void kt_put_string(struct kt_out *o, const uint8_t *s, size_t max)
{
	size_t n = s ? strnlen((const char *)s, max) : 0;

	kt_put(o, s, n);
	kt_put(o, "", 1);
}

ssize_t kt_encode_payload(const struct kt_class *c, const uint8_t *payload, size_t len,
			  uint8_t *out, size_t cap)
{
	struct kt_out o = { .p = out, .cap = cap };
	size_t ustr = 0; /* next user string: the area starts at the first one's offset */
	bool ustr_started = false;

	for (size_t i = 0; i < c->nfields; i++) {
		const struct kt_field *f = &c->fields[i];
		const uint8_t *src;
		uint32_t loc, off, n;

		switch (f->kind) {
		case KT_F_INT:
			/* Little endian: narrowing keeps the low bytes. */
			kt_put(&o, kt_at(payload, len, f->offset, f->size), f->ctf_size);
			break;
		case KT_F_TEXT:
		case KT_F_ARRAY:
			kt_put(&o, kt_at(payload, len, f->offset, f->size), f->size);
			break;
		case KT_F_DL_STRING:
		case KT_F_DL_ARRAY:
			src = kt_at(payload, len, f->offset, 4);
			loc = 0;
			if (src)
				memcpy(&loc, src, 4);
			/* data_loc offsets count from the record start, header included. */
			off = (loc & 0xffff) >= 8 ? (loc & 0xffff) - 8 : 0;
			n = loc >> 16;
			src = loc ? kt_at(payload, len, off, n) : NULL;
			if (f->kind == KT_F_DL_STRING) {
				kt_put_string(&o, src, src ? n : 0);
			} else {
				uint32_t count = src ? n / f->elem_size : 0;

				kt_put(&o, &count, 4);
				kt_put(&o, src, (size_t)count * f->elem_size);
			}
			break;
		case KT_F_USTRING:
			if (!ustr_started) {
				ustr = f->offset;
				ustr_started = true;
			}
			src = ustr < len ? payload + ustr : NULL;
			n = src ? (uint32_t)strnlen((const char *)src, len - ustr) : 0;
			kt_put_string(&o, src, n);
			ustr += n + 1;
			break;
		case KT_F_STRING:
			src = f->offset < len ? payload + f->offset : NULL;
			kt_put_string(&o, src, src ? len - f->offset : 0);
			break;
		}
	}
	return o.full ? -ENOSPC : (ssize_t)o.len;
}

static void kt_int_tsdl(struct kt_strbuf *sb, unsigned int bytes, bool is_signed, bool hex,
			bool text)
{
	kt_strbuf_printf(sb,
			 "integer { size = %u; align = 8; signed = %d; encoding = %s; base = %d; }",
			 bytes * 8, is_signed, text ? "UTF8" : "none", hex ? 16 : 10);
}

int kt_class_fields_tsdl(const struct kt_class *c, struct kt_strbuf *sb)
{
	for (size_t i = 0; i < c->nfields; i++) {
		const struct kt_field *f = &c->fields[i];

		kt_strbuf_printf(sb, "\t\t");
		switch (f->kind) {
		case KT_F_INT:
			kt_int_tsdl(sb, f->ctf_size, f->is_signed, f->hex, false);
			kt_strbuf_printf(sb, " _%s;\n", f->name);
			break;
		case KT_F_TEXT:
			kt_int_tsdl(sb, 1, true, false, true);
			kt_strbuf_printf(sb, " _%s[%u];\n", f->name, f->count);
			break;
		case KT_F_ARRAY:
			kt_int_tsdl(sb, f->elem_size, f->is_signed, f->hex, false);
			kt_strbuf_printf(sb, " _%s[%u];\n", f->name, f->count);
			break;
		case KT_F_DL_STRING:
		case KT_F_USTRING:
		case KT_F_STRING:
			kt_strbuf_printf(sb, "string _%s;\n", f->name);
			break;
		case KT_F_DL_ARRAY:
			kt_int_tsdl(sb, 4, false, false, false);
			kt_strbuf_printf(sb, " __%s_length;\n\t\t", f->name);
			kt_int_tsdl(sb, f->elem_size, f->is_signed, f->hex, false);
			kt_strbuf_printf(sb, " _%s[ __%s_length ];\n", f->name, f->name);
			break;
		}
	}
	return sb->err;
}

size_t kt_context_encode(const struct kernel_channel *ch, const struct kr_rec *r,
			 const uint64_t *ctr, const char *host, uint8_t *out, size_t cap)
{
	size_t o = 0;

	for (unsigned int i = 0; i < ch->nctx; i++) {
		const struct kt_ctx *c = &ch->ctx[i];
		int32_t v = 0;
		uint64_t u = 0;
		size_t n;

		switch (c->type) {
		case KT_CTX_PROCNAME:
			if (o + 16 > cap)
				return o;
			memcpy(out + o, r->comm, 16);
			o += 16;
			continue;
		case KT_CTX_HOSTNAME:
			n = host ? strnlen(host, KR_HOST_LEN - 1) : 0;
			if (o + n + 1 > cap)
				return o;
			if (n)
				memcpy(out + o, host, n);
			out[o + n] = 0;
			o += n + 1;
			continue;
		case KT_CTX_PERF:
			/* The record holds the values of the slots in ctr_mask, in order. */
			if (ctr && c->ctr < KR_MAX_CTR && (r->ctr_mask & (1U << c->ctr)))
				memcpy(&u,
				       ctr + __builtin_popcount(r->ctr_mask & ((1U << c->ctr) - 1)),
				       8);
			if (o + 8 > cap)
				return o;
			memcpy(out + o, &u, 8);
			o += 8;
			continue;
		case KT_CTX_PID:
			v = r->pid;
			break;
		case KT_CTX_TID:
			v = r->tid;
			break;
		case KT_CTX_PPID:
			v = r->ppid;
			break;
		case KT_CTX_VPID:
			v = r->vpid;
			break;
		case KT_CTX_VTID:
			v = r->vtid;
			break;
		case KT_CTX_VPPID:
			v = r->vppid;
			break;
		case KT_CTX_PRIO:
			v = r->prio;
			break;
		case KT_CTX_NICE:
			v = r->nice;
			break;
		}
		if (o + 4 > cap)
			return o;
		memcpy(out + o, &v, 4);
		o += 4;
	}
	return o;
}
