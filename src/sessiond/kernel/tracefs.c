/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tracefs.h"

#include "common/common.h"

#define KT_TRACEFS_MAGIC 0x74726163
#define KT_MAX_FILE (64u << 20)

int kt_read_file(const char *path, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *buf;

	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb;

			if (cap >= KT_MAX_FILE) {
				free(buf);
				return -EFBIG;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			int err = -errno;

			if (err == -EINTR)
				continue;
			free(buf);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

static bool kt_is_tracefs(const char *path)
{
	struct statfs sfs;
	char probe[512];

	if (statfs(path, &sfs) || sfs.f_type != KT_TRACEFS_MAGIC)
		return false;
	if ((size_t)snprintf(probe, sizeof(probe), "%s/available_events", path) >= sizeof(probe))
		return false;
	return access(probe, F_OK) == 0;
}

int kt_tracefs_find(char *buf, size_t len)
{
	static const char *const candidates[] = { "/sys/kernel/tracing",
						  "/sys/kernel/debug/tracing" };
	_cleanup_fclose_ FILE *mounts = NULL;
	char line[1024];

	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		if (kt_is_tracefs(candidates[i])) {
			if ((size_t)snprintf(buf, len, "%s", candidates[i]) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
	}
	mounts = fopen("/proc/self/mounts", "re");
	if (!mounts)
		return -ENOENT;
	while (fgets(line, sizeof(line), mounts)) {
		char dev[256], dir[512], type[64];

		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "tracefs") && kt_is_tracefs(dir)) {
			if ((size_t)snprintf(buf, len, "%s", dir) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
	}
	/* Fails without CAP_SYS_ADMIN or where /sys/kernel/tracing is missing. */
	if (mount("nodev", candidates[0], "tracefs", 0, NULL) == 0 &&
	    kt_is_tracefs(candidates[0])) {
		if ((size_t)snprintf(buf, len, "%s", candidates[0]) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	return -ENOENT;
}

void kt_tracepoint_list_release(struct kt_tracepoint_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->tp[i].system);
		free(l->tp[i].name);
	}
	free(l->tp);
	l->tp = NULL;
	l->n = 0;
}

int kt_tracefs_list(const char *tracefs, struct kt_tracepoint_list *ret)
{
	struct kt_tracepoint_list l = { 0 };
	_cleanup_free_ char *text = NULL;
	char path[512];
	size_t cap = 0;
	char *line, *nl;
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s/available_events", tracefs) >= sizeof(path))
		return -ENAMETOOLONG;
	r = kt_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	for (line = text; *line; line = nl) {
		char *colon;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		else
			nl = line + strlen(line);
		colon = strchr(line, ':');
		if (!colon || colon == line || !colon[1])
			continue;
		*colon = 0;
		if (l.n == cap) {
			struct kt_tracepoint *ntp;

			cap = cap ? cap * 2 : 1024;
			ntp = realloc(l.tp, cap * sizeof(*ntp));
			if (!ntp)
				goto enomem;
			l.tp = ntp;
		}
		l.tp[l.n].system = strdup(line);
		l.tp[l.n].name = strdup(colon + 1);
		if (!l.tp[l.n].system || !l.tp[l.n].name) {
			free(l.tp[l.n].system);
			free(l.tp[l.n].name);
			goto enomem;
		}
		l.n++;
	}
	*ret = l;
	return 0;
enomem:
	kt_tracepoint_list_release(&l);
	return -ENOMEM;
}

int kt_tracepoint_lookup(const struct kt_tracepoint_list *l, const char *system, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if ((!system || !strcmp(l->tp[i].system, system)) && !strcmp(l->tp[i].name, name))
			return (int)i;
	return -ENOENT;
}
