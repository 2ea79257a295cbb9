/* SPDX-License-Identifier: MIT */
/*
 * Finding traces and their streams the way babeltrace2 2.0.4 does:
 * a directory holding a regular `metadata` file is a trace (its
 * subdirectories are not searched further); its stream files are the other
 * non-hidden, non-empty regular files; files sharing a (stream class,
 * stream_instance_id) form one stream, ordered by their first packet's
 * beginning time; streams are ordered by their first file's path, which
 * also numbers those without an instance id.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strata/error.h>

#include "ctf/stream.h"
#include "common/common.h"

#define DISCOVER_MAX_DEPTH 64

char *ctf_path_normalize(const char *path)
{
	size_t cwdlen = 0, len = strlen(path), n = 0;
	char *buf, *out;
	char *cwd = NULL;

	if (path[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
		cwdlen = strlen(cwd);
	}
	buf = malloc(cwdlen + len + 2);
	out = malloc(cwdlen + len + 2);
	if (!buf || !out) {
		free(cwd);
		free(buf);
		free(out);
		return NULL;
	}
	if (cwd)
		snprintf(buf, cwdlen + len + 2, "%s/%s", cwd, path);
	else
		snprintf(buf, len + 1, "%s", path);
	free(cwd);

	/* Component by component: drop "." and empty ones, pop on "..". */
	for (char *p = buf; *p;) {
		char *seg = p;
		size_t sl;

		while (*p && *p != '/')
			p++;
		sl = (size_t)(p - seg);
		if (*p)
			p++;
		if (sl == 0 || (sl == 1 && seg[0] == '.'))
			continue;
		if (sl == 2 && seg[0] == '.' && seg[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
			continue;
		}
		out[n++] = '/';
		memcpy(out + n, seg, sl);
		n += sl;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	free(buf);
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of a directory's entries (without "." and ".."). */
static int list_dir(const char *dir, char ***ret, size_t *ret_n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nn = realloc(names, ncap * sizeof(*nn));

			if (!nn)
				goto nomem;
			names = nn;
			cap = ncap;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
nomem:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return -ENOMEM;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 2);

	if (p)
		snprintf(p, la + lb + 2, "%s%s%s", a, (la && a[la - 1] == '/') ? "" : "/", b);
	return p;
}

static bool is_regular(const char *path, off_t *size)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (size)
		*size = st.st_size;
	return true;
}

static int add_found(struct ctf_found_trace **arr, size_t *n, const char *dir, const char *input)
{
	struct ctf_found_trace *f = realloc(*arr, (*n + 1) * sizeof(**arr));
	size_t il = strlen(input);

	if (!f)
		return -ENOMEM;
	*arr = f;
	f = &f[*n];
	f->dir = strdup(dir);
	f->name_suffix = NULL;
	if (!f->dir)
		return -ENOMEM;
	if (strcmp(dir, input) != 0) {
		/* dir is below input: the suffix is the path relative to it. */
		const char *rel = dir + il;

		while (*rel == '/')
			rel++;
		f->name_suffix = strdup(rel);
		if (!f->name_suffix) {
			free(f->dir);
			return -ENOMEM;
		}
	}
	(*n)++;
	return 0;
}

static int discover_dir(const char *dir, const char *input, unsigned depth,
			struct ctf_found_trace **arr, size_t *n)
{
	char *meta, **names = NULL;
	size_t nn = 0;
	bool is_trace;
	int r;

	meta = join(dir, "metadata");
	if (!meta)
		return -ENOMEM;
	is_trace = is_regular(meta, NULL);
	free(meta);
	if (is_trace)
		return add_found(arr, n, dir, input);
	if (depth >= DISCOVER_MAX_DEPTH)
		return 0;
	if (list_dir(dir, &names, &nn) < 0)
		return 0; /* unreadable directories hold no trace we can read */
	r = 0;
	for (size_t i = 0; i < nn && r == 0; i++) {
		char *sub = join(dir, names[i]);
		struct stat st;

		if (!sub) {
			r = -ENOMEM;
			break;
		}
		if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			r = discover_dir(sub, input, depth + 1, arr, n);
		free(sub);
	}
	free_names(names, nn);
	return r;
}

void ctf_found_traces_free(struct ctf_found_trace *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].dir);
		free(f[i].name_suffix);
	}
	free(f);
}

int ctf_discover_traces(const char *const *paths, unsigned n_paths, struct ctf_found_trace **ret,
			size_t *ret_n)
{
	struct ctf_found_trace *arr = NULL;
	size_t n = 0;
	int r = 0;

	for (unsigned i = 0; i < n_paths && r == 0; i++) {
		char *norm = ctf_path_normalize(paths[i]);
		struct stat st;

		if (!norm) {
			r = -ENOMEM;
			break;
		}
		if (stat(norm, &st) == 0 && S_ISDIR(st.st_mode))
			r = discover_dir(norm, norm, 0, &arr, &n);
		free(norm);
	}
	if (r < 0) {
		ctf_found_traces_free(arr, n);
		return r;
	}
	*ret = arr;
	*ret_n = n;
	return 0;
}

char *ctf_trace_name_make(const struct ctf_trace_class *tc, const char *suffix)
{
	const struct ctf_env_entry *host = ctf_trace_class_env(tc, "hostname");
	const char *h = host && !host->is_int && host->sval ? host->sval : NULL;
	size_t len = (h ? strlen(h) + 1 : 0) + (suffix ? strlen(suffix) : 0) + 1;
	char *name = malloc(len);

	/* babeltrace2's set_trace_name(): "HOST/SUFFIX", "HOST", "SUFFIX" or "". */
	if (name)
		snprintf(name, len, "%s%s%s", h ? h : "", h && suffix ? "/" : "",
			 suffix ? suffix : "");
	return name;
}

/* A group of files forming one stream, before it becomes a ctf_stream. */
struct group {
	uint64_t sc_id;
	bool keyed; /* has an instance id and a beginning time */
	uint64_t instance_id;
	struct ctf_stream_file *files;
	size_t n_files;
};

static int open_file(const char *path, int *ret_fd, uint64_t *ret_size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*ret_fd = fd;
	*ret_size = (uint64_t)st.st_size;
	return 0;
}

static int group_add(struct group **groups, size_t *n_groups, const struct ctf_packet_props *pp,
		     struct ctf_stream_file *file)
{
	struct group *g = NULL;
	struct ctf_stream_file *nf;
	size_t at;
	bool keyed = pp->has_instance_id && pp->has_begin;

	if (keyed) {
		for (size_t i = 0; i < *n_groups; i++)
			if ((*groups)[i].keyed && (*groups)[i].sc_id == pp->sc_id &&
			    (*groups)[i].instance_id == pp->instance_id)
				g = &(*groups)[i];
	}
	if (!g) {
		struct group *ng = realloc(*groups, (*n_groups + 1) * sizeof(*ng));

		if (!ng)
			return -ENOMEM;
		*groups = ng;
		g = &ng[(*n_groups)++];
		memset(g, 0, sizeof(*g));
		g->sc_id = pp->sc_id;
		g->keyed = keyed;
		g->instance_id = pp->instance_id;
	}
	nf = realloc(g->files, (g->n_files + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	g->files = nf;
	/* Sorted by beginning time; equal times keep discovery order. */
	for (at = 0; at < g->n_files; at++)
		if (file->begin_ns < g->files[at].begin_ns)
			break;
	memmove(&g->files[at + 1], &g->files[at], (g->n_files - at) * sizeof(*nf));
	g->files[at] = *file;
	g->n_files++;
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *ga = a, *gb = b;

	return strcmp(ga->files[0].path, gb->files[0].path);
}

static void free_file(struct ctf_stream_file *f)
{
	free(f->path);
}

static void free_files(struct ctf_stream_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free_file(&files[i]);
	free(files);
}

static int add_dir_files(const struct ctf_reader_trace *rt, const char *dir, struct group **pgroups,
			 size_t *pn_groups, char ***pnames, size_t *pnn, char *err, size_t errlen)
{
	int r;

	r = list_dir(dir, pnames, pnn);
	if (r < 0) {
		snprintf(err, errlen, "Failed to list trace directory '%s': %s", dir, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < *pnn; i++) {
		struct ctf_stream_file f = { 0 };
		struct ctf_packet_props pp;
		int fd = -1;

		if ((*pnames)[i][0] == '.' || strcmp((*pnames)[i], "metadata") == 0)
			continue;
		f.path = join(dir, (*pnames)[i]);
		if (!f.path) {
			r = -ENOMEM;
			return r;
		}
		if (!is_regular(f.path, NULL)) {
			free(f.path);
			continue;
		}
		r = open_file(f.path, &fd, &f.size);
		if (r < 0) {
			snprintf(err, errlen, "Failed to open stream file '%s': %s", f.path,
				 strerror(-r));
			free(f.path);
			return r;
		}
		/* Streams open their files again when they reach them: no fd is kept. */
		r = f.size ? ctf_packet_props_read(rt, f.path, fd, f.size, &pp, err, errlen) : 0;
		close(fd);
		if (f.size == 0) {
			free(f.path);
			continue;
		}
		if (r < 0) {
			free_file(&f);
			return r;
		}
		f.has_begin = pp.has_begin;
		f.begin_ns = pp.begin_ns;
		r = group_add(pgroups, pn_groups, &pp, &f);
		if (r < 0) {
			free_file(&f);
			return r;
		}
	}
	return 0;
}

int ctf_trace_open_streams(const struct ctf_reader_trace *rt, char *const *dirs, size_t n_dirs,
			   struct ctf_stream ***streams, size_t *n_streams, char *err,
			   size_t errlen)
{
	struct group *groups = NULL;
	size_t n_groups = 0, nn = 0;
	char **names = NULL;
	uint64_t next_id = 0;
	int r = 0;

	for (size_t d = 0; d < n_dirs; d++) {
		free_names(names, nn);
		names = NULL;
		nn = 0;
		r = add_dir_files(rt, dirs[d], &groups, &n_groups, &names, &nn, err, errlen);
		if (r < 0)
			goto out;
	}
	if (n_groups)
		qsort(groups, n_groups, sizeof(*groups), cmp_group);
	for (size_t i = 0; i < n_groups; i++) {
		struct ctf_stream **ns = realloc(*streams, (*n_streams + 1) * sizeof(*ns));
		struct ctf_stream *s;

		if (!ns) {
			r = -ENOMEM;
			goto out;
		}
		*streams = ns;
		s = calloc(1, sizeof(*s));
		if (!s) {
			r = -ENOMEM;
			goto out;
		}
		s->rt = rt;
		/* Known before the first packet is read again: the merge orders by it. */
		s->scd = ctf_trace_dec_sc(rt->td, groups[i].sc_id);
		s->stream_id = groups[i].keyed ? groups[i].instance_id : next_id++;
		s->files = groups[i].files;
		groups[i].files = NULL;
		s->n_files = groups[i].n_files;
		s->path = s->files[0].path;
		s->index = (unsigned)*n_streams;
		ns[(*n_streams)++] = s;
	}
	r = 0;
out:
	for (size_t i = 0; i < n_groups; i++)
		free_files(groups[i].files, groups[i].files ? groups[i].n_files : 0);
	free(groups);
	free_names(names, nn);
	return r;
}
