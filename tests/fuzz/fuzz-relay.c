/* SPDX-License-Identifier: MIT */
/*
 * Fuzz strata-relayd's protocols (src/relayd): sequences of bytes received
 * on up to three control, three data and three live connections at once,
 * driven through the relay's code without sockets. The input is records
 * {op u8, len u16 big-endian, bytes}: op 0-8 feeds the bytes to connection
 * op (0-2 control, 3-5 data, 6-8 live; made on first use), op 0x80 | n
 * closes connection n. `STRATA_RELAYD_RECORD=FILE strata-relayd` writes
 * what real peers send in this format (how the corpus seeds were made).
 *
 * Checked: no crash or sanitizer report; nothing is created outside the
 * output directory (the relay's root is BASE/root, BASE must hold nothing
 * else); once every connection closed, no session or stream is left.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "relayd/relayd.h"
#include "common/lttng-viewer.h"
#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[64], root[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static void cleanup(void)
{
	nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(base);
}

static void setup(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	strata_log_init("fuzz-relay", STRATA_LOG_ERR);
	snprintf(base, sizeof(base), "/tmp/fuzz-relay.XXXXXX");
	if (!mkdtemp(base))
		abort();
	snprintf(root, sizeof(root), "%s/root", base);
	atexit(cleanup);
}

/* BASE holds root and nothing else. */
static void check_confined(void)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		abort();
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, "root")) {
			fprintf(stderr, "fuzz-relay: '%s' created outside the root\n", e->d_name);
			abort();
		}
	closedir(d);
}

static void settle(struct rd_conn **slot)
{
	struct rd_conn *c = *slot;

	/* The peer reads every reply at once. */
	rd_buf_consume(&c->out, rd_buf_avail(&c->out));
	if (c->dead) {
		rd_conn_close(c);
		*slot = NULL;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_conn *conns[9] = { 0 };
	struct rd_relay r;

	setup();
	if (mkdir(root, 0700) < 0 && errno != EEXIST)
		abort();
	if (rd_relay_init(&r, root, size && data[0] & 1) < 0)
		abort();
	r.counter_handles = true;
	while (size >= 3) {
		unsigned op = data[0], n = (unsigned)be16_get(data + 1);
		struct rd_conn **slot = &conns[(op & 0x7f) % 9];

		data += 3;
		size -= 3;
		if (n > size)
			n = (unsigned)size;
		if (op & 0x80) {
			if (*slot) {
				rd_conn_close(*slot);
				*slot = NULL;
			}
		} else {
			if (!*slot)
				*slot = rd_conn_new(&r, (enum rd_conn_kind)(((op & 0x7f) % 9) / 3),
						    -1, NULL);
			if (!*slot)
				abort();
			/* Fed as the loop reads: what the connection takes, then processed. */
			if (rd_buf_append(&(*slot)->in, data, n) < 0)
				abort();
			(*slot)->said_hello = true;
			rd_conn_process(*slot);
			/* The loop processes again once replies went out. */
			for (int i = 0; i < 4 && *slot && !(*slot)->dead; i++) {
				rd_buf_consume(&(*slot)->out, rd_buf_avail(&(*slot)->out));
				rd_conn_process(*slot);
			}
			settle(slot);
		}
		data += n;
		size -= n;
	}
	for (size_t i = 0; i < ARRAY_SIZE(conns); i++)
		if (conns[i])
			rd_conn_close(conns[i]);
	if (r.n_sessions || r.n_streams || r.n_conns) {
		fprintf(stderr, "fuzz-relay: %zu sessions, %zu streams left\n", r.n_sessions,
			r.n_streams);
		abort();
	}
	rd_relay_release(&r);
	check_confined();
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
