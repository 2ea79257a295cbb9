/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctf-mini.h"

#include "common/common.h"

#define CTF_MINI_HDR 84

static void mini_put(struct ctf_mini *m, const void *p, size_t n)
{
	if (m->len + n > m->cap) {
		size_t ncap = MAX(m->cap * 2, m->len + n + 4096);
		uint8_t *nb = realloc(m->buf, ncap);

		if (!nb)
			abort();
		m->buf = nb;
		m->cap = ncap;
	}
	memcpy(m->buf + m->len, p, n);
	m->len += n;
}

void ctf_mini_init(struct ctf_mini *m, bool compact)
{
	uint8_t zero[CTF_MINI_HDR] = { 0 };

	memset(m, 0, sizeof(*m));
	m->compact = compact;
	mini_put(m, zero, sizeof(zero));
}

void ctf_mini_event(struct ctf_mini *m, uint32_t id, uint64_t ts, const void *ctx, size_t ctx_len,
		    const void *payload, size_t payload_len)
{
	if (m->compact) {
		uint8_t b = 31; /* extended: 5-bit id, 3 bits of padding */

		mini_put(m, &b, 1);
	} else {
		uint16_t ext = 65535;

		mini_put(m, &ext, 2);
	}
	mini_put(m, &id, 4);
	mini_put(m, &ts, 8);
	if (ctx_len)
		mini_put(m, ctx, ctx_len);
	if (payload_len)
		mini_put(m, payload, payload_len);
	if (!m->nevents++)
		m->ts_begin = ts;
	m->ts_end = ts;
}

int ctf_mini_write(struct ctf_mini *m, const uint8_t uuid[16], uint32_t cpu, uint64_t discarded,
		   const char *path)
{
	uint64_t content = m->len * 8, packet = ALIGN_UP(m->len, 4096) * 8, seq = 0, inst = cpu;
	uint32_t magic = 0xC1FC1FC1, sid = 0;
	uint8_t *h = m->buf;
	size_t total = packet / 8;
	FILE *f;

	memcpy(h, &magic, 4);
	memcpy(h + 4, uuid, 16);
	memcpy(h + 20, &sid, 4);
	memcpy(h + 24, &inst, 8);
	memcpy(h + 32, &m->ts_begin, 8);
	memcpy(h + 40, &m->ts_end, 8);
	memcpy(h + 48, &content, 8);
	memcpy(h + 56, &packet, 8);
	memcpy(h + 64, &seq, 8);
	memcpy(h + 72, &discarded, 8);
	memcpy(h + 80, &cpu, 4);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fwrite(m->buf, 1, m->len, f);
	for (size_t i = m->len; i < total; i++)
		fputc(0, f);
	return fclose(f) ? -errno : 0;
}

void ctf_mini_release(struct ctf_mini *m)
{
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

int ctf_mini_run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int st;

	if (!p || !buf) {
		if (p)
			pclose(p);
		free(buf);
		return -1;
	}
	for (;;) {
		size_t n;

		if (cap - len < 2048) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = fread(buf + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	buf[len] = 0;
	st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
