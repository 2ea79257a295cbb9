/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace-util.h"

#include "common/common.h"

struct find_ctx {
	const char *name;
	struct ust_event_info info;
	int found;
};

static int find_event(const struct ust_event_info *info, void *arg)
{
	struct find_ctx *f = arg;

	if (strcmp(info->full_name, f->name) != 0)
		return 0;
	f->info = *info;
	f->found = 1;
	return 1;
}

int tu_trace_begin(struct tu_trace *t, uint64_t freq, int64_t offset_ns,
		   const enum ust_context_type *ctx, uint32_t n_ctx, struct ust_channel *chan,
		   const char *const *events)
{
	const struct strata_field_desc *ctx_desc[UST_CTX_MAX];
	struct ctf_writer_env env = {
		.hostname = "testhost",
		.domain = "ust",
		.tracer_name = "strata",
		.tracer_major = 0,
		.tracer_minor = 1,
		.tracer_patchlevel = 0,
		.buffering_scheme = "uid",
		.buffering_id = getuid(),
		.architecture_bit_width = (int)sizeof(long) * 8,
		.trace_name = "unit",
		.trace_creation_datetime = "20261203T000000+0000",
	};
	struct ctf_writer_clock clock = {
		.name = "monotonic",
		.description = "Monotonic Clock",
		.freq = freq,
		.absolute = true,
	};
	int ret;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/strata-ust-test-XXXXXX");
	if (!mkdtemp(t->dir))
		return -errno;
	ret = ctf_uuid_generate(t->uuid);
	if (ret < 0)
		return ret;
	ret = ctf_metadata_init(&t->md, t->uuid);
	if (ret < 0)
		return ret;
	ctf_clock_set_offset_ns(&clock, offset_ns);
	ret = ctf_metadata_add_preamble(&t->md, &env, &clock);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < n_ctx; i++)
		ctx_desc[i] = ust_context_desc(ctx[i]);
	ret = ctf_metadata_add_stream(&t->md, 0, ctx_desc, n_ctx);
	if (ret < 0)
		return ret;
	for (uint32_t id = 0; events[id]; id++) {
		struct find_ctx f = { .name = events[id] };
		struct ctf_writer_event ev;

		ust_registry_foreach(find_event, &f);
		if (!f.found)
			return -ENOENT;
		ev = (struct ctf_writer_event){
			.name = f.info.full_name,
			.id = id,
			.stream_id = 0,
			.loglevel = f.info.loglevel,
			.model_emf_uri = f.info.model_emf_uri,
			.fields = f.info.desc->fields,
			.nr_fields = f.info.desc->nr_fields,
		};
		ret = ctf_metadata_add_event(&t->md, &ev);
		if (ret < 0)
			return ret;
		ret = ust_event_enable(events[id], chan, id);
		if (ret < 0)
			return ret;
		t->next_id = id + 1;
	}
	return 0;
}

int tu_trace_write_metadata(struct tu_trace *t)
{
	char path[512];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/metadata", t->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (t->plain_metadata)
		ret = ctf_metadata_write_text(fd, &t->md, 0, t->md.len);
	else
		ret = ctf_metadata_write_packets(fd, &t->md, 0, t->md.len);
	close(fd);
	return ret;
}

int tu_trace_append_packet(struct tu_trace *t, uint32_t cpu, const void *data, size_t size,
			   struct ctf_packet_info *pi)
{
	uint8_t hdr[CTF_PACKET_HEADER_LEN], idx[CTF_INDEX_ENTRY_LEN];
	size_t psize = ctf_packet_size(size);
	char path[512];
	uint8_t *pad;
	off_t offset;
	int fd, ret;

	memcpy(pi->uuid, t->uuid, 16);
	pi->content_size = (CTF_PACKET_HEADER_LEN + size) * 8;
	pi->packet_size = psize * 8;
	ctf_packet_header_write(hdr, pi, t->md.big_endian);
	pad = calloc(1, psize - CTF_PACKET_HEADER_LEN - size + 1);
	if (!pad)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/channel0_%u", t->dir, cpu);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(pad);
		return -errno;
	}
	offset = lseek(fd, 0, SEEK_END);
	ret = ctf_write_full(fd, hdr, sizeof(hdr));
	if (ret == 0)
		ret = ctf_write_full(fd, data, size);
	if (ret == 0)
		ret = ctf_write_full(fd, pad, psize - CTF_PACKET_HEADER_LEN - size);
	close(fd);
	free(pad);
	if (ret < 0)
		return ret;

	snprintf(path, sizeof(path), "%s/index", t->dir);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/index/channel0_%u.idx", t->dir, cpu);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (offset == 0) {
		uint8_t idx_hdr[CTF_INDEX_HEADER_LEN];

		ctf_index_header_write(idx_hdr);
		ret = ctf_write_full(fd, idx_hdr, sizeof(idx_hdr));
	}
	ctf_index_entry_write(idx, (uint64_t)offset, pi);
	if (ret == 0)
		ret = ctf_write_full(fd, idx, sizeof(idx));
	close(fd);
	return ret;
}

int tu_trace_write(struct tu_trace *t, struct ust_mem_backend *mb)
{
	struct ctf_packet_info pi = { 0 };
	size_t len;
	const uint8_t *data = ust_mem_backend_data(mb, &len);
	char path[512];
	int ret;

	ret = tu_trace_write_metadata(t);
	if (ret < 0)
		return ret;
	/* Rewrite the stream from scratch (a test may write twice). */
	snprintf(path, sizeof(path), "%s/channel0_0", t->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/index/channel0_0.idx", t->dir);
	unlink(path);
	pi.timestamp_begin = ust_mem_backend_first_ts(mb);
	pi.timestamp_end = ust_mem_backend_last_ts(mb);
	pi.events_discarded = ust_mem_backend_lost(mb);
	return tu_trace_append_packet(t, 0, data, len, &pi);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_trace_end(struct tu_trace *t)
{
	if (t->dir[0] && !getenv("STRATA_TEST_KEEP"))
		nftw(t->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	ctf_metadata_release(&t->md);
}

static char *read_all(int fd)
{
	struct tu_str out = { 0 };

	for (;;) {
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		tu_str_printf(&out, "%.*s", (int)n, buf);
	}
	if (!out.s)
		tu_str_printf(&out, "%s", "");
	return out.s;
}

char *tu_run2(char *const argv[], int *ret_status, char **ret_err)
{
	int out_pipe[2], err_pipe[2] = { -1, -1 }, status;
	char *out;
	pid_t pid;

	if (pipe2(out_pipe, O_CLOEXEC) < 0)
		return NULL;
	if (ret_err && pipe2(err_pipe, O_CLOEXEC) < 0) {
		close(out_pipe[0]);
		close(out_pipe[1]);
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		close(out_pipe[0]);
		close(out_pipe[1]);
		if (ret_err) {
			close(err_pipe[0]);
			close(err_pipe[1]);
		}
		return NULL;
	}
	if (pid == 0) {
		dup2(out_pipe[1], STDOUT_FILENO);
		if (ret_err)
			dup2(err_pipe[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out_pipe[1]);
	if (ret_err)
		close(err_pipe[1]);
	/* stdout first: stderr output stays small enough for the pipe. */
	out = read_all(out_pipe[0]);
	close(out_pipe[0]);
	if (ret_err) {
		*ret_err = read_all(err_pipe[0]);
		close(err_pipe[0]);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	return out;
}

char *tu_run(char *const argv[], int *ret_status)
{
	return tu_run2(argv, ret_status, NULL);
}

void tu_str_printf(struct tu_str *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = MAX(b->cap * 2, b->len + (size_t)n + 256);
		char *p = realloc(b->s, cap);

		if (!p)
			abort();
		b->s = p;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void tu_str_escaped(struct tu_str *b, const char *s, size_t max)
{
	tu_str_printf(b, "\"");
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '\\':
		case '\'':
		case '"':
		case '?':
			tu_str_printf(b, "\\%c", c);
			break;
		case '\a':
			tu_str_printf(b, "\\a");
			break;
		case '\b':
			tu_str_printf(b, "\\b");
			break;
		case 0x1b:
			tu_str_printf(b, "\\e");
			break;
		case '\f':
			tu_str_printf(b, "\\f");
			break;
		case '\n':
			tu_str_printf(b, "\\n");
			break;
		case '\r':
			tu_str_printf(b, "\\r");
			break;
		case '\t':
			tu_str_printf(b, "\\t");
			break;
		case '\v':
			tu_str_printf(b, "\\v");
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				tu_str_printf(b, "\\x%02x", c);
			else
				tu_str_printf(b, "%c", c);
		}
	}
	tu_str_printf(b, "\"");
}
