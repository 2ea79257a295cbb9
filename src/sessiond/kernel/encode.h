/* SPDX-License-Identifier: MIT */
/*
 * Event classes of the kernel domain and the conversion of recorded payloads
 * into the CTF field encoding their metadata declares (byte-packed, little
 * endian, as LTTng writes on x86).
 */
#ifndef STRATA_KERNEL_ENCODE_H
#define STRATA_KERNEL_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format.h"

struct kt_class {
	char *name; /* CTF event name */
	uint32_t key;
	size_t nfields;
	struct kt_field *fields;
};

/* Take over a parsed tracepoint format (f is emptied). */
int kt_class_from_format(struct kt_format *f, uint32_t key, struct kt_class *ret);
/* The class of a syscall key (entry/exit of a known number, or unknown). */
int kt_class_syscall(uint32_t key, struct kt_class *ret);
/* A probe's class: ip, and parent_ip for function entry/return events. */
int kt_class_probe(uint32_t key, const char *name, bool parent, struct kt_class *ret);
/* The class of a statedump key. */
int kt_class_statedump(uint32_t key, struct kt_class *ret);
void kt_class_release(struct kt_class *c);

/*
 * Encode payload[0, len) of class c into out[0, cap). Fields the payload is
 * too short for are written as zeros/empty strings, so a truncated record
 * still decodes. Returns the number of bytes written, or -ENOSPC.
 */
ssize_t kt_encode_payload(const struct kt_class *c, const uint8_t *payload, size_t len,
			  uint8_t *out, size_t cap);

/* Append a field declaration list (one "\t\t<decl>;\n" per CTF field). */
struct kt_strbuf;
int kt_class_fields_tsdl(const struct kt_class *c, struct kt_strbuf *sb);

/* A growable string for metadata. */
struct kt_strbuf {
	char *s;
	size_t len, cap;
	int err; /* sticky -ENOMEM */
};
void kt_strbuf_printf(struct kt_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Statedump payload layouts (encoded by kt_encode_payload like any record). */
struct kt_sd_process {
	int32_t tid, pid, ppid, vtid, vpid, type, mode, submode, status, cpu, ns_level;
	uint32_t ns_inum;
	char name[16];
};
struct kt_sd_fd {
	int32_t pid, fd;
	uint32_t flags, fmode;
	/* filename follows, NUL-terminated */
};

#endif
