/* SPDX-License-Identifier: MIT */
/*
 * Payload encoding, syscall and statedump classes, and the kernel metadata:
 * a trace made of generated metadata and encoded records must be read by
 * babeltrace2 without warnings and print the values that went in.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctf-mini.h"
#include "encode.h"
#include "kernel-internal.h"
#include "syscalls.h"

#include "common/common.h"

static const char exec_format[] =
	"name: sched_process_exec\nID: 365\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n";

static const char dlarr_format[] = "name: dl_test\nID: 9\nformat:\n"
				   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
				   "\tfield:__data_loc u64[] vals;\toffset:8;\tsize:4;\tsigned:0;\n"
				   "\tfield:char tag[4];\toffset:12;\tsize:4;\tsigned:0;\n"
				   "\tfield:unsigned long flags;\toffset:16;\tsize:8;\tsigned:0;\n";

/* A recorded exec payload: the record minus its 8-byte header. */
static size_t exec_payload(uint8_t *p, const char *filename, int32_t pid, int32_t old)
{
	uint32_t n = (uint32_t)strlen(filename) + 1, loc = (n << 16) | 20;

	memcpy(p, &loc, 4);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &old, 4);
	memcpy(p + 12, filename, n);
	return 12 + n;
}

static void make_class(const char *text, uint32_t key, struct kt_class *c)
{
	struct kt_format f;

	assert_int_equal(kt_format_parse(text, "test", &f), 0);
	assert_int_equal(kt_class_from_format(&f, key, c), 0);
}

static void test_encode_data_loc_string(void **state _unused_)
{
	struct kt_class c;
	uint8_t p[64], out[64];
	size_t n = exec_payload(p, "/bin/true", 42, 41);
	ssize_t r;
	int32_t v;

	make_class(exec_format, 0, &c);
	r = kt_encode_payload(&c, p, n, out, sizeof(out));
	assert_int_equal(r, 10 + 4 + 4);
	assert_string_equal((char *)out, "/bin/true");
	memcpy(&v, out + 10, 4);
	assert_int_equal(v, 42);
	memcpy(&v, out + 14, 4);
	assert_int_equal(v, 41);
	/* Too small an output buffer is an error, never an overflow. */
	assert_int_equal(kt_encode_payload(&c, p, n, out, 12), -ENOSPC);
	/* A truncated record still encodes: missing values become 0 / "". */
	r = kt_encode_payload(&c, p, 6, out, sizeof(out));
	assert_int_equal(r, 1 + 4 + 4);
	assert_int_equal(out[0], 0);
	kt_class_release(&c);
}

static void test_encode_data_loc_array(void **state _unused_)
{
	struct kt_class c;
	uint8_t p[64] = { 0 }, out[64];
	uint64_t vals[2] = { 7, 0x1122334455667788ull }, flags = 5, got;
	uint32_t loc = (16u << 16) | 24, count;
	ssize_t r;

	make_class(dlarr_format, 0, &c);
	memcpy(p, &loc, 4);
	memcpy(p + 4, "abcd", 4);
	memcpy(p + 8, &flags, 8);
	memcpy(p + 16, vals, 16);
	r = kt_encode_payload(&c, p, 32, out, sizeof(out));
	assert_int_equal(r, 4 + 16 + 4 + 8);
	memcpy(&count, out, 4);
	assert_int_equal(count, 2);
	memcpy(&got, out + 12, 8);
	assert_true(got == vals[1]);
	assert_memory_equal(out + 20, "abcd", 4);
	kt_class_release(&c);
}

static void test_syscall_table(void **state _unused_)
{
	const struct kt_syscall *sc = kt_syscall_by_nr(257);

	assert_non_null(sc);
	assert_string_equal(sc->name, "openat");
	assert_int_equal(sc->nargs, 4);
	assert_string_equal(sc->args[1].name, "filename");
	assert_true(sc->args[1].is_string);
	assert_int_equal(sc->args[0].size, 4);
	assert_true(sc->args[0].is_signed);
	assert_int_equal(kt_syscall_strmask(sc), 0x2);
	/* write's buffer is not a string. */
	assert_int_equal(kt_syscall_strmask(kt_syscall_by_nr(1)), 0);
	/* LTTng names: the kernel's (newstat), not unistd's (stat). */
	assert_int_equal(kt_syscall_by_name("newstat")->nr, 4);
	assert_int_equal(kt_syscall_by_name("getppid")->nargs, 0);
	assert_true(kt_nsyscalls > 300);
	for (unsigned int i = 1; i < kt_nsyscalls; i++)
		assert_true(kt_syscalls[i - 1].nr < kt_syscalls[i].nr);
}

static void test_syscall_classes(void **state _unused_)
{
	struct kt_class entry, exit_;
	uint8_t p[128] = { 0 }, out[128];
	int64_t id = 257, dfd = -100, flags = 0x80000, mode = 0644, ret = 3;
	ssize_t r;
	int32_t v;
	uint16_t m;

	assert_int_equal(kt_class_syscall(KR_KEY_SC_ENTRY + 257, &entry), 0);
	assert_string_equal(entry.name, "syscall_entry_openat");
	memcpy(p, &id, 8);
	memcpy(p + 8, &dfd, 8);
	memcpy(p + 24, &flags, 8);
	memcpy(p + 32, &mode, 8);
	memcpy(p + 56, "/etc/hostname", 14);
	r = kt_encode_payload(&entry, p, 70, out, sizeof(out));
	assert_int_equal(r, 4 + 14 + 4 + 2);
	memcpy(&v, out, 4);
	assert_int_equal(v, -100);
	assert_string_equal((char *)out + 4, "/etc/hostname");
	memcpy(&v, out + 18, 4);
	assert_int_equal(v, 0x80000);
	memcpy(&m, out + 22, 2);
	assert_int_equal(m, 0644);

	/* Exit: ret, then the strings re-read when the entry read faulted. */
	assert_int_equal(kt_class_syscall(KR_KEY_SC_EXIT + 257, &exit_), 0);
	assert_string_equal(exit_.name, "syscall_exit_openat");
	memset(p, 0, sizeof(p));
	memcpy(p, &id, 8);
	memcpy(p + 8, &ret, 8);
	memcpy(p + 16, "/x", 3);
	r = kt_encode_payload(&exit_, p, 19, out, sizeof(out));
	assert_int_equal(r, 8 + 3);
	assert_string_equal((char *)out + 8, "/x");
	kt_class_release(&entry);
	kt_class_release(&exit_);

	assert_int_equal(kt_class_syscall(KR_KEY_SC_ENTRY_UNKNOWN, &entry), 0);
	assert_string_equal(entry.name, "syscall_entry_unknown");
	kt_class_release(&entry);
	assert_int_equal(kt_class_syscall(KR_KEY_SC_ENTRY + 511, &entry), -ENOENT);
	assert_int_equal(kt_class_syscall(3, &entry), -EINVAL);
}

/* A channel object outside any tracer: what kernel_metadata() reads. */
struct fake {
	struct kernel_tracer kt;
	struct kernel_channel ch;
};

static struct fake *fake_create(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->ch.kt = &f->kt;
	f->kt.ncpu = 1;
	for (size_t k = 0; k < KR_MAX_KEYS; k++)
		atomic_init(&f->ch.id_of_key[k], -1);
	return f;
}

static void fake_add(struct fake *f, struct kt_class *c)
{
	unsigned int id = atomic_load(&f->ch.nids);

	atomic_store(&f->kt.classes[c->key], c);
	f->ch.key_of_id[id] = c->key;
	atomic_store(&f->ch.id_of_key[c->key], (int32_t)id);
	atomic_store(&f->ch.nids, id + 1);
}

static void fake_ctx(struct fake *f, enum kt_ctx_type t, const char *name)
{
	struct kt_ctx *c = &f->ch.ctx[f->ch.nctx++];

	c->type = t;
	snprintf(c->field, sizeof(c->field), "%s", name);
}

static void fake_destroy(struct fake *f)
{
	for (size_t k = 0; k < KR_MAX_KEYS; k++) {
		struct kt_class *c = atomic_load(&f->kt.classes[k]);

		if (c) {
			kt_class_release(c);
			free(c);
		}
	}
	free(f);
}

static void emit(struct ctf_mini *m, struct fake *f, uint32_t key, uint64_t ts,
		 const struct kr_rec *r, const char *host, const void *payload, size_t len)
{
	uint8_t ctx[256], out[512];
	struct kr_rec rr = *r;
	size_t cl;
	ssize_t n;

	rr.key = key;
	cl = kt_context_encode(&f->ch, &rr, NULL, host, ctx, sizeof(ctx));
	n = kt_encode_payload(atomic_load(&f->kt.classes[key]), payload, len, out, sizeof(out));
	assert_true(n >= 0);
	ctf_mini_event(m, (uint32_t)atomic_load(&f->ch.id_of_key[key]), ts, ctx, cl, out,
		       (size_t)n);
}

static void check_trace(bool compact)
{
	static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct kernel_trace_info info = {
		.hostname = "testhost",
		.trace_name = "unit",
		.creation_datetime = "20261203T101500+0000",
		.clock_uuid = "5887661f-c6a1-401c-b5c6-7da1597a8d24",
		.clock_offset = 1000000000,
	};
	struct kr_rec r = { .pid = 42, .tid = 43, .ppid = 1, .comm = "true" };
	struct fake *f = fake_create();
	struct kernel_channel *ch = &f->ch;
	struct kt_class *c;
	struct kt_sd_process sp = { .tid = 43, .pid = 42, .ppid = 1, .name = "true", .status = 5 };
	uint8_t p[128], fdrec[64] = { 0 };
	struct ctf_mini m;
	char dir[] = "/tmp/strata-kt-XXXXXX", path[256], cmd[512], *md, *out;
	int32_t fd = 3;
	int st;

	if (access("/usr/bin/babeltrace2", X_OK)) {
		fake_destroy(f);
		skip();
		return;
	}
	c = calloc(1, sizeof(*c));
	make_class(exec_format, 5, c);
	fake_add(f, c);
	c = calloc(1, sizeof(*c));
	assert_int_equal(kt_class_syscall(KR_KEY_SC_ENTRY + 257, c), 0);
	fake_add(f, c);
	c = calloc(1, sizeof(*c));
	assert_int_equal(kt_class_statedump(KR_KEY_STATEDUMP_PROCESS, c), 0);
	fake_add(f, c);
	c = calloc(1, sizeof(*c));
	assert_int_equal(kt_class_statedump(KR_KEY_STATEDUMP_FD, c), 0);
	fake_add(f, c);
	fake_ctx(f, KT_CTX_PID, "pid");
	fake_ctx(f, KT_CTX_TID, "tid");
	fake_ctx(f, KT_CTX_PROCNAME, "procname");
	fake_ctx(f, KT_CTX_PPID, "ppid");
	fake_ctx(f, KT_CTX_HOSTNAME, "hostname");
	ch->frozen = true;
	ch->compact = compact;

	assert_int_equal(kernel_metadata(&ch, 1, &info, &md), 0);
	assert_non_null(strstr(md, "domain = \"kernel\";"));
	assert_non_null(strstr(md, "tracer_name = \"strata\";"));
	assert_non_null(strstr(md, compact ? "struct event_header_compact;" :
					     "struct event_header_large;"));
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	FILE *mf = fopen(path, "we");
	assert_non_null(mf);
	fputs(md, mf);
	fclose(mf);
	free(md);

	ctf_mini_init(&m, compact);
	emit(&m, f, 5, 1000, &r, "h1", p, exec_payload(p, "/bin/true", 42, 41));
	memset(p, 0, sizeof(p));
	int64_t dfd = -100;
	memcpy(p + 8, &dfd, 8);
	memcpy(p + 56, "/etc/hostname", 14);
	emit(&m, f, KR_KEY_SC_ENTRY + 257, 2000, &r, "h1", p, 70);
	emit(&m, f, KR_KEY_STATEDUMP_PROCESS, 3000, &r, NULL, &sp, sizeof(sp));
	memcpy(fdrec, &sp.pid, 4);
	memcpy(fdrec + 4, &fd, 4);
	memcpy(fdrec + 16, "/dev/null", 10);
	emit(&m, f, KR_KEY_STATEDUMP_FD, 4000, &r, NULL, fdrec, 26);
	snprintf(path, sizeof(path), "%s/channel0_0", dir);
	assert_int_equal(ctf_mini_write(&m, uuid, 0, 0, path), 0);
	ctf_mini_release(&m);

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-gmt --no-delta %s 2>&1", dir);
	st = ctf_mini_run(cmd, &out);
	if (st != 0 || strstr(out, "WARN") || strstr(out, "ERROR"))
		fail_msg("babeltrace2 failed (%d):\n%s", st, out);
	assert_non_null(strstr(out,
			       "[00:00:01.000001000] testhost sched_process_exec: { cpu_id = 0 }, "
			       "{ pid = 42, tid = 43, procname = \"true\", ppid = 1, hostname = "
			       "\"h1\" }, { filename = \"/bin/true\", tid = 42, old_tid = 41 }"));
	assert_non_null(strstr(out,
			       "syscall_entry_openat: { cpu_id = 0 }, { pid = 42, tid = 43, "
			       "procname = \"true\", ppid = 1, hostname = \"h1\" }, { dfd = -100, "
			       "filename = \"/etc/hostname\", flags = 0, mode = 0 }"));
	assert_non_null(
		strstr(out, "lttng_statedump_process_state: { cpu_id = 0 }, { pid = 42, tid = "
			    "43, procname = \"true\", ppid = 1, hostname = \"\" }, { tid = 43, "
			    "pid = 42, ppid = 1, name = \"true\", type = 0, mode = 0, submode = "
			    "0, status = 5, cpu = 0, vtid = 0, vpid = 0, ns_level = 0, ns_inum = "
			    "0 }"));
	assert_non_null(
		strstr(out, "lttng_statedump_file_descriptor: { cpu_id = 0 }, { pid = 42, tid = "
			    "43, procname = \"true\", ppid = 1, hostname = \"\" }, { pid = 42, fd "
			    "= 3, flags = 0x0, fmode = 0x0, filename = \"/dev/null\" }"));
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	fake_destroy(f);
}

static void test_trace_large_header(void **state _unused_)
{
	check_trace(false);
}

static void test_trace_compact_header(void **state _unused_)
{
	check_trace(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_data_loc_string),
		cmocka_unit_test(test_encode_data_loc_array),
		cmocka_unit_test(test_syscall_table),
		cmocka_unit_test(test_syscall_classes),
		cmocka_unit_test(test_trace_large_header),
		cmocka_unit_test(test_trace_compact_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
