/* SPDX-License-Identifier: MIT */
/*
 * The statedump: every process, thread and open file at start, as LTTng's
 * lttng_statedump_* events, read from /proc.
 *
 * It runs after the channel is recording, so fork/exec/exit tracing is live:
 * a task created or gone during the walk is in the trace, in the dump, or in
 * both, and a viewer trusts whichever is newer. Tasks that vanish mid-walk
 * (ENOENT) are skipped for that reason.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "kernel-internal.h"

#include "common/common.h"

#define KT_PF_KTHREAD 0x00200000u

static void kt_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static bool kt_is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Parse /proc/P/task/T/stat: comm is between '(' and the *last* ')'. */
static int kt_read_stat(const char *path, struct kt_sd_process *p)
{
	_cleanup_free_ char *text = NULL;
	char *open, *close, state = 0;
	unsigned long flags = 0;
	int ppid = 0, cpu = 0;
	int r = kt_read_file(path, &text, NULL);

	if (r < 0)
		return r;
	open = strchr(text, '(');
	close = strrchr(text, ')');
	if (!open || !close || close < open)
		return -EINVAL;
	memset(p->name, 0, sizeof(p->name));
	memcpy(p->name, open + 1, MIN((size_t)(close - open - 1), sizeof(p->name) - 1));
	/* Fields after comm: 3 state, 4 ppid, ... 9 flags, ... 39 processor. */
	if (sscanf(close + 2,
		   "%c %d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
		   "%*u %*u %*d %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*d %d",
		   &state, &ppid, &flags, &cpu) < 3)
		return -EINVAL;
	p->ppid = ppid;
	p->cpu = cpu;
	/* lttng-modules' enums: lttng_thread_type, _execution_mode/_submode, _process_status. */
	p->type = (flags & KT_PF_KTHREAD) ? 1 : 0; /* LTTNG_KERNEL_THREAD : LTTNG_USER_THREAD */
	p->mode = 5; /* LTTNG_MODE_UNKNOWN */
	p->submode = 1; /* LTTNG_UNKNOWN */
	switch (state) {
	case 'R':
		p->status = 6; /* LTTNG_RUN */
		break;
	case 'S':
	case 'D':
	case 'I':
		p->status = 5; /* LTTNG_WAIT */
		break;
	case 'Z':
		p->status = 4; /* LTTNG_ZOMBIE */
		break;
	case 'X':
		p->status = 7; /* LTTNG_DEAD */
		break;
	default:
		p->status = 0; /* LTTNG_UNNAMED */
		break;
	}
	return 0;
}

/* NSpid: the last entry is the id in the innermost namespace; level = entries - 1. */
static void kt_read_nspid(const char *path, struct kt_sd_process *p)
{
	_cleanup_free_ char *text = NULL;
	char *line;

	p->vtid = p->tid;
	p->vpid = p->pid;
	p->ns_level = 0;
	if (kt_read_file(path, &text, NULL) < 0)
		return;
	for (int k = 0; k < 2; k++) {
		const char *key = k ? "NStgid:" : "NSpid:";
		int level = -1, last = 0;
		char *s, *end;

		line = strstr(text, key);
		if (!line)
			continue;
		s = line + strlen(key);
		for (;;) {
			long v = strtol(s, &end, 10);

			if (end == s)
				break;
			last = (int)v;
			level++;
			s = end;
			if (*s == '\n')
				break;
		}
		if (level < 0)
			continue;
		if (k)
			p->vpid = last;
		else
			p->vtid = last, p->ns_level = level;
	}
}

static void kt_dump_fds(int pid, kt_sd_emit emit, void *opaque)
{
	char dir[64];
	_cleanup_(kt_closedirp) DIR *d = NULL;
	struct dirent *de;
	uint8_t buf[sizeof(struct kt_sd_fd) + 4096];
	struct kt_sd_fd *rec = (struct kt_sd_fd *)buf;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], info[512];
		_cleanup_free_ char *fdinfo = NULL;
		ssize_t n;
		char *flags;

		if (!kt_is_number(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, (char *)buf + sizeof(*rec), 4095);
		if (n < 0)
			continue;
		buf[sizeof(*rec) + (size_t)n] = 0;
		rec->pid = pid;
		rec->fd = (int32_t)strtol(de->d_name, NULL, 10);
		rec->flags = 0;
		rec->fmode = 0;
		snprintf(info, sizeof(info), "/proc/%d/fdinfo/%s", pid, de->d_name);
		if (kt_read_file(info, &fdinfo, NULL) >= 0 && (flags = strstr(fdinfo, "flags:"))) {
			unsigned long f = strtoul(flags + 6, NULL, 8);

			rec->flags = (uint32_t)f;
			/* FMODE_READ 0x1 / FMODE_WRITE 0x2 from O_ACCMODE. */
			rec->fmode = (f & 3) == 0 ? 1 : (f & 3) == 1 ? 2 : 3;
		}
		emit(opaque, KR_KEY_STATEDUMP_FD, buf, sizeof(*rec) + (size_t)n + 1);
	}
}

int kt_statedump_run(kt_sd_emit emit, void *opaque)
{
	_cleanup_(kt_closedirp) DIR *proc = opendir("/proc");
	struct dirent *de;

	emit(opaque, KR_KEY_STATEDUMP_START, NULL, 0);
	if (!proc) {
		int err = -errno;

		emit(opaque, KR_KEY_STATEDUMP_END, NULL, 0);
		return err;
	}
	while ((de = readdir(proc))) {
		char path[128];
		_cleanup_(kt_closedirp) DIR *tasks = NULL;
		struct dirent *te;
		int pid;

		if (!kt_is_number(de->d_name))
			continue;
		pid = (int)strtol(de->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		tasks = opendir(path);
		if (!tasks)
			continue; /* exited: its exit is in the trace */
		while ((te = readdir(tasks))) {
			struct kt_sd_process p = { 0 };
			struct stat st;

			if (!kt_is_number(te->d_name))
				continue;
			p.pid = pid;
			p.tid = (int32_t)strtol(te->d_name, NULL, 10);
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, p.tid);
			if (kt_read_stat(path, &p) < 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, p.tid);
			kt_read_nspid(path, &p);
			snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
			/* EACCES on pid 1 here: tolerated, inode 0. */
			p.ns_inum = stat(path, &st) ? 0 : (uint32_t)st.st_ino;
			emit(opaque, KR_KEY_STATEDUMP_PROCESS, &p, sizeof(p));
		}
		kt_dump_fds(pid, emit, opaque);
	}
	emit(opaque, KR_KEY_STATEDUMP_END, NULL, 0);
	return 0;
}
