/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "format.h"
#include "tracefs.h"

#include "common/common.h"

#define KT_COMMON_HEADER 8
#define KT_MAX_FIELDS 128

void kt_fields_free(struct kt_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(fields[i].name);
	free(fields);
}

void kt_format_release(struct kt_format *f)
{
	if (!f)
		return;
	free(f->system);
	free(f->name);
	kt_fields_free(f->fields, f->nfields);
	memset(f, 0, sizeof(*f));
}

const char *kt_field_lttng_name(const char *event, const char *field)
{
	static const struct {
		const char *from, *to;
	} renames[] = {
		{ "pid", "tid" },
		{ "prev_pid", "prev_tid" },
		{ "next_pid", "next_tid" },
		{ "parent_pid", "parent_tid" },
		{ "child_pid", "child_tid" },
		{ "old_pid", "old_tid" },
		{ "orig_pid", "orig_tid" },
		{ "dest_pid", "dest_tid" },
	};

	/* ftrace's sched_* "pid" fields hold thread ids; LTTng names them *_tid. */
	if (strncmp(event, "sched_", 6) != 0)
		return field;
	for (size_t i = 0; i < ARRAY_SIZE(renames); i++)
		if (!strcmp(field, renames[i].from))
			return renames[i].to;
	return field;
}

static unsigned int kt_type_size(const char *type)
{
	static const struct {
		const char *name;
		unsigned int size;
	} sizes[] = {
		{ "char", 1 },	       { "unsigned char", 1 },
		{ "u8", 1 },	       { "s8", 1 },
		{ "__u8", 1 },	       { "u16", 2 },
		{ "s16", 2 },	       { "__u16", 2 },
		{ "short", 2 },	       { "unsigned short", 2 },
		{ "u32", 4 },	       { "s32", 4 },
		{ "__u32", 4 },	       { "int", 4 },
		{ "unsigned int", 4 }, { "u64", 8 },
		{ "s64", 8 },	       { "__u64", 8 },
		{ "long", 8 },	       { "unsigned long", 8 },
		{ "cpumask_t", 8 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		if (!strcmp(type, sizes[i].name))
			return sizes[i].size;
	return 1;
}

static bool kt_type_signed(const char *type)
{
	return !strcmp(type, "s8") || !strcmp(type, "s16") || !strcmp(type, "s32") ||
	       !strcmp(type, "s64") || !strcmp(type, "int") || !strcmp(type, "long") ||
	       !strcmp(type, "short");
}

static bool kt_is_char_type(const char *type)
{
	return !strcmp(type, "char") || !strcmp(type, "const char") || !strcmp(type, "signed char");
}

/*
 * Split "<type> <name>[N]" into its parts. Returns the number of elements
 * (1 for a scalar, N for an array, 0 for "[]") in *count.
 */
static int kt_split_decl(char *decl, char **type, char **name, uint32_t *count, bool *is_array)
{
	char *sp = strrchr(decl, ' ');
	char *br;

	if (!sp)
		return -EINVAL;
	*sp = 0;
	*type = decl;
	*name = sp + 1;
	*count = 1;
	*is_array = false;
	br = strchr(*name, '[');
	if (br) {
		char *end;

		*is_array = true;
		*br = 0;
		*count = (uint32_t)strtoul(br + 1, &end, 10);
		if (*end != ']')
			*count = 0; /* symbolic or empty bound: derive from size */
	}
	return **name ? 0 : -EINVAL;
}

static int kt_parse_field(char *line, const char *event, struct kt_field *f, bool *skip,
			  uint16_t *dl_off)
{
	char *decl, *p, *type, *name;
	unsigned long offset, size, sign;
	uint32_t count;
	bool is_array, dl = false;

	*skip = false;
	decl = strstr(line, "field:");
	if (!decl)
		return -EINVAL;
	decl += 6;
	p = strchr(decl, ';');
	if (!p)
		return -EINVAL;
	*p++ = 0;
	if (sscanf(p, " offset:%lu; size:%lu; signed:%lu;", &offset, &size, &sign) != 3)
		return -EINVAL;
	if (offset > UINT16_MAX || size > UINT16_MAX)
		return -EINVAL;
	if (!strncmp(decl, "__rel_loc ", 10)) {
		*skip = true;
		return 0;
	}
	if (!strncmp(decl, "__data_loc ", 11)) {
		dl = true;
		decl += 11;
	}
	if (kt_split_decl(decl, &type, &name, &count, &is_array))
		return -EINVAL;
	if (!strncmp(name, "common_", 7) || offset < KT_COMMON_HEADER) {
		*skip = true;
		return 0;
	}
	memset(f, 0, sizeof(*f));
	f->offset = (uint16_t)(offset - KT_COMMON_HEADER);
	f->size = (uint16_t)size;
	f->is_signed = sign != 0;
	f->hex = strchr(type, '*') != NULL;
	if (dl) {
		/* "__data_loc char[] name": the type carries the "[]". */
		char *tb = strstr(type, "[]");

		if (tb)
			*tb = 0;
		*dl_off = (uint16_t)offset;
		if (kt_is_char_type(type)) {
			f->kind = KT_F_DL_STRING;
		} else {
			f->kind = KT_F_DL_ARRAY;
			f->elem_size = (uint16_t)kt_type_size(type);
			f->is_signed = kt_type_signed(type);
			f->hex = !strcmp(type, "cpumask_t");
		}
	} else if (is_array) {
		if (size == 0) {
			*skip = true; /* flexible trailing array: no size to copy */
			return 0;
		}
		if (count == 0)
			count = (uint32_t)size / kt_type_size(type);
		if (count == 0 || size % count)
			return -EINVAL;
		f->count = count;
		f->elem_size = (uint16_t)(size / count);
		f->kind = kt_is_char_type(type) && f->elem_size == 1 ? KT_F_TEXT : KT_F_ARRAY;
	} else {
		if (size != 1 && size != 2 && size != 4 && size != 8) {
			/* Odd-sized scalars (structs): keep the bytes as an array. */
			f->kind = KT_F_ARRAY;
			f->count = (uint32_t)size;
			f->elem_size = 1;
			f->hex = true;
		} else {
			f->kind = KT_F_INT;
			f->elem_size = f->ctf_size = (uint16_t)size;
		}
	}
	f->name = strdup(kt_field_lttng_name(event, name));
	return f->name ? 1 : -ENOMEM;
}

int kt_format_parse(const char *text, const char *system, struct kt_format *ret)
{
	struct kt_format f = { 0 };
	_cleanup_free_ char *copy = strdup(text);
	char *line, *nl;
	unsigned long fixed_end = 0;
	int err = -EINVAL;

	if (!copy)
		return -ENOMEM;
	f.id = -1;
	f.fields = calloc(KT_MAX_FIELDS, sizeof(*f.fields));
	f.system = strdup(system);
	if (!f.fields || !f.system) {
		err = -ENOMEM;
		goto err;
	}
	for (line = copy; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		if (!strncmp(line, "name: ", 6)) {
			free(f.name);
			f.name = strdup(line + 6);
			if (!f.name) {
				err = -ENOMEM;
				goto err;
			}
		} else if (!strncmp(line, "ID: ", 4)) {
			f.id = (int)strtol(line + 4, NULL, 10);
		} else if (strstr(line, "field:")) {
			struct kt_field fld;
			uint16_t dl_off = 0;
			bool skip;
			int r;
			unsigned long off, size;
			const char *offp = strstr(line, "offset:");

			if (!f.name || !offp)
				goto err;
			if (sscanf(offp, "offset:%lu;\tsize:%lu;", &off, &size) == 2 &&
			    off + size > fixed_end)
				fixed_end = off + size;
			r = kt_parse_field(line, f.name, &fld, &skip, &dl_off);
			if (r < 0) {
				err = r;
				goto err;
			}
			if (skip)
				continue;
			if (f.nfields == KT_MAX_FIELDS) {
				free(fld.name);
				err = -E2BIG;
				goto err;
			}
			if (fld.kind == KT_F_DL_STRING || fld.kind == KT_F_DL_ARRAY) {
				if (f.ndl == ARRAY_SIZE(f.dl_off)) {
					free(fld.name);
					err = -E2BIG;
					goto err;
				}
				f.dl_off[f.ndl++] = dl_off;
			}
			f.fields[f.nfields++] = fld;
		}
	}
	if (!f.name || fixed_end > UINT16_MAX)
		goto err;
	f.fixed_end = (uint16_t)fixed_end;
	*ret = f;
	return 0;
err:
	kt_format_release(&f);
	return err;
}

int kt_format_read(const char *tracefs, const char *system, const char *name, struct kt_format *ret)
{
	char path[512];
	_cleanup_free_ char *text = NULL;
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, system, name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	r = kt_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	return kt_format_parse(text, system, ret);
}
