/* SPDX-License-Identifier: MIT */
/*
 * Kernel event classes: the fields of a recorded payload and how each one is
 * encoded in CTF. Tracepoint classes come from tracefs `format` files; syscall
 * and statedump classes are built by the syscall table and statedump modules.
 *
 * Offsets are relative to the recorded payload, which starts after the
 * tracepoint's 8-byte common header (never recorded: in BPF it holds a kernel
 * pointer). common_* fields are therefore never part of a class.
 */
#ifndef STRATA_KERNEL_FORMAT_H
#define STRATA_KERNEL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kt_field_kind {
	KT_F_INT, /* integer of `size` bytes, written as ctf_size bytes */
	KT_F_TEXT, /* char[count]: CTF text array */
	KT_F_ARRAY, /* fixed array of count integers of elem_size bytes */
	KT_F_DL_STRING, /* __data_loc char[]: CTF string */
	KT_F_DL_ARRAY, /* __data_loc T[]: CTF sequence with a uint32 length */
	KT_F_USTRING, /* syscall argument read from user memory: CTF string */
	KT_F_STRING, /* NUL-terminated string at offset (statedump) */
};

struct kt_field {
	char *name; /* without LTTng's leading '_' */
	enum kt_field_kind kind;
	uint16_t offset; /* in the payload */
	uint16_t size; /* bytes in the payload (whole array for arrays) */
	uint16_t elem_size; /* integer size (bytes) of INT/ARRAY/DL_ARRAY elements */
	uint16_t ctf_size; /* bytes written for KT_F_INT (narrowing <= size) */
	uint32_t count; /* elements of TEXT/ARRAY */
	bool is_signed;
	bool hex; /* pointers and addresses print in base 16 */
};

struct kt_format {
	char *system;
	char *name;
	int id; /* tracefs event id */
	uint16_t fixed_end; /* max(offset + size) over all fields, header included */
	uint16_t ndl; /* __data_loc fields */
	uint16_t dl_off[4]; /* their offsets in the full record (header included) */
	size_t nfields;
	struct kt_field *fields;
};

/*
 * Parse the text of an events/<sys>/<name>/format file. Fields this encoder
 * cannot represent (zero-size trailing arrays, __rel_loc) are dropped, and
 * events with more than 4 __data_loc fields are refused with -E2BIG.
 * Returns 0 or -EINVAL (malformed), -ENOMEM, -E2BIG. On success *ret is
 * filled and must be released with kt_format_release().
 */
int kt_format_parse(const char *text, const char *system, struct kt_format *ret);

/* Read and parse <tracefs>/events/<system>/<name>/format. */
int kt_format_read(const char *tracefs, const char *system, const char *name,
		   struct kt_format *ret);

void kt_format_release(struct kt_format *f);
void kt_fields_free(struct kt_field *fields, size_t n);

/* LTTng's name for a tracefs field of event `event` (prev_pid -> prev_tid ...). */
const char *kt_field_lttng_name(const char *event, const char *field);

#endif
