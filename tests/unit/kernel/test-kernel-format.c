/* SPDX-License-Identifier: MIT */
/*
 * tracefs format parsing: committed copies of this machine's format files
 * (so the test runs anywhere), and, when tracefs is readable, every format of
 * the running kernel.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format.h"
#include "tracefs.h"

#include "common/common.h"

static char *read_committed(const char *name)
{
	char path[1024];
	char *text = NULL;
	const char *root = getenv("STRATA_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/tests/unit/kernel/formats/%s.format", root ? root : ".",
		 name);
	assert_int_equal(kt_read_file(path, &text, NULL), 0);
	return text;
}

static const struct kt_field *field(const struct kt_format *f, const char *name)
{
	for (size_t i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	fail_msg("no field '%s' in %s", name, f->name);
	return NULL;
}

static void check_sched_switch(const struct kt_format *f)
{
	const struct kt_field *x;

	assert_string_equal(f->name, "sched_switch");
	assert_int_equal(f->nfields, 7); /* common_* dropped */
	assert_int_equal(f->ndl, 0);
	assert_int_equal(f->fixed_end, 64);
	x = field(f, "prev_comm");
	assert_int_equal(x->kind, KT_F_TEXT);
	assert_int_equal(x->offset, 0); /* the 8-byte header is never recorded */
	assert_int_equal(x->count, 16);
	x = field(f, "prev_tid"); /* LTTng's name for ftrace's prev_pid */
	assert_int_equal(x->kind, KT_F_INT);
	assert_int_equal(x->offset, 16);
	assert_int_equal(x->ctf_size, 4);
	assert_true(x->is_signed);
	x = field(f, "prev_state");
	assert_int_equal(x->ctf_size, 8);
	assert_true(x->is_signed);
	x = field(f, "next_comm");
	assert_int_equal(x->offset, 32);
	x = field(f, "next_tid");
	assert_int_equal(x->offset, 48);
}

static void test_sched_switch(void **state _unused_)
{
	char *text = read_committed("sched_sched_switch");
	struct kt_format f;

	assert_int_equal(kt_format_parse(text, "sched", &f), 0);
	assert_int_equal(f.id, 372);
	check_sched_switch(&f);
	kt_format_release(&f);
	free(text);
}

static void test_sched_process_exec(void **state _unused_)
{
	char *text = read_committed("sched_sched_process_exec");
	struct kt_format f;
	const struct kt_field *x;

	assert_int_equal(kt_format_parse(text, "sched", &f), 0);
	assert_int_equal(f.nfields, 3);
	assert_int_equal(f.ndl, 1);
	assert_int_equal(f.dl_off[0], 8); /* offset in the full record */
	assert_int_equal(f.fixed_end, 20);
	x = field(&f, "filename");
	assert_int_equal(x->kind, KT_F_DL_STRING);
	assert_int_equal(x->offset, 0);
	assert_int_equal(field(&f, "tid")->offset, 4);
	assert_int_equal(field(&f, "old_tid")->offset, 8);
	kt_format_release(&f);
	free(text);
}

static void test_sched_process_fork(void **state _unused_)
{
	char *text = read_committed("sched_sched_process_fork");
	struct kt_format f;

	assert_int_equal(kt_format_parse(text, "sched", &f), 0);
	/* Linux 6.18 records the comms as __data_loc strings. */
	assert_int_equal(f.ndl, 2);
	assert_int_equal(field(&f, "parent_comm")->kind, KT_F_DL_STRING);
	assert_int_equal(field(&f, "parent_tid")->kind, KT_F_INT);
	assert_int_equal(field(&f, "child_tid")->offset, 12);
	assert_int_equal(field(&f, "child_comm")->kind, KT_F_DL_STRING);
	kt_format_release(&f);
	free(text);
}

static void test_raw_syscalls(void **state _unused_)
{
	char *text = read_committed("raw_syscalls_sys_enter");
	struct kt_format f;
	const struct kt_field *x;

	assert_int_equal(kt_format_parse(text, "raw_syscalls", &f), 0);
	assert_int_equal(f.nfields, 2);
	x = field(&f, "id"); /* not renamed outside sched_* */
	assert_int_equal(x->ctf_size, 8);
	assert_true(x->is_signed);
	x = field(&f, "args");
	assert_int_equal(x->kind, KT_F_ARRAY);
	assert_int_equal(x->offset, 8);
	assert_int_equal(x->count, 6);
	assert_int_equal(x->elem_size, 8);
	assert_false(x->is_signed);
	kt_format_release(&f);
	free(text);

	text = read_committed("raw_syscalls_sys_exit");
	assert_int_equal(kt_format_parse(text, "raw_syscalls", &f), 0);
	assert_int_equal(field(&f, "ret")->offset, 8);
	kt_format_release(&f);
	free(text);
}

static void test_data_loc_arrays(void **state _unused_)
{
	char *text = read_committed("dma_dma_map_sg");
	struct kt_format f;
	const struct kt_field *x;

	assert_int_equal(kt_format_parse(text, "dma", &f), 0);
	assert_int_equal(f.ndl, 4);
	assert_int_equal(field(&f, "device")->kind, KT_F_DL_STRING);
	x = field(&f, "phys_addrs");
	assert_int_equal(x->kind, KT_F_DL_ARRAY);
	assert_int_equal(x->elem_size, 8);
	x = field(&f, "lengths");
	assert_int_equal(x->kind, KT_F_DL_ARRAY);
	assert_int_equal(x->elem_size, 4);
	x = field(&f, "truncated");
	assert_int_equal(x->kind, KT_F_INT);
	assert_int_equal(x->ctf_size, 1);
	kt_format_release(&f);
	free(text);
}

static void test_malformed(void **state _unused_)
{
	struct kt_format f;
	const char *no_offset = "name: x\nID: 1\nformat:\n\tfield:int a;\tsize:4;\tsigned:1;\n";
	const char *no_name = "ID: 1\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n";
	const char *too_many_dl = "name: x\nID: 1\nformat:\n"
				  "\tfield:__data_loc char[] a;\toffset:8;\tsize:4;\tsigned:0;\n"
				  "\tfield:__data_loc char[] b;\toffset:12;\tsize:4;\tsigned:0;\n"
				  "\tfield:__data_loc char[] c;\toffset:16;\tsize:4;\tsigned:0;\n"
				  "\tfield:__data_loc char[] d;\toffset:20;\tsize:4;\tsigned:0;\n"
				  "\tfield:__data_loc char[] e;\toffset:24;\tsize:4;\tsigned:0;\n";
	const char *odd = "name: x\nID: 1\nformat:\n"
			  "\tfield:struct foo s;\toffset:8;\tsize:12;\tsigned:0;\n"
			  "\tfield:unsigned long flex[];\toffset:20;\tsize:0;\tsigned:0;\n"
			  "\tfield:__rel_loc char[] r;\toffset:20;\tsize:4;\tsigned:0;\n";

	assert_int_equal(kt_format_parse(no_offset, "s", &f), -EINVAL);
	assert_int_equal(kt_format_parse(no_name, "s", &f), -EINVAL);
	assert_int_equal(kt_format_parse(too_many_dl, "s", &f), -E2BIG);
	assert_int_equal(kt_format_parse(odd, "s", &f), 0);
	/* A struct becomes a byte array; flexible arrays and __rel_loc are dropped. */
	assert_int_equal(f.nfields, 1);
	assert_int_equal(f.fields[0].kind, KT_F_ARRAY);
	assert_int_equal(f.fields[0].count, 12);
	kt_format_release(&f);
}

/* Every format of the running kernel parses, and the committed copies match it. */
static void test_live_tracefs(void **state _unused_)
{
	struct kt_tracepoint_list l;
	char root[256];
	size_t ok = 0, big = 0;
	struct kt_format f;

	if (kt_tracefs_find(root, sizeof(root)) < 0 || kt_tracefs_list(root, &l) < 0) {
		skip();
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		int r = kt_format_read(root, l.tp[i].system, l.tp[i].name, &f);

		if (r == -E2BIG) {
			big++;
			continue;
		}
		if (r)
			fail_msg("format of %s:%s: %d", l.tp[i].system, l.tp[i].name, r);
		assert_string_equal(f.name, l.tp[i].name);
		kt_format_release(&f);
		ok++;
	}
	assert_true(ok > 100);
	assert_int_equal(big, 0);
	assert_true(kt_tracepoint_lookup(&l, "sched", "sched_switch") >= 0);
	assert_int_equal(kt_format_read(root, "sched", "sched_switch", &f), 0);
	check_sched_switch(&f);
	kt_format_release(&f);
	kt_tracepoint_list_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_switch),
		cmocka_unit_test(test_sched_process_exec),
		cmocka_unit_test(test_sched_process_fork),
		cmocka_unit_test(test_raw_syscalls),
		cmocka_unit_test(test_data_loc_arrays),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_live_tracefs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
